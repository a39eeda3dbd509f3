/* stdio on files: fopen modes, fprintf/fputs/fputc, fgets line by line,
 * fscanf of mixed fields, fread/fwrite of binary records, fseek/ftell/rewind,
 * ungetc, getline, setvbuf modes, feof/ferror, freopen, and fdopen/fileno. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rec {
    int id;
    double value;
    char name[12];
};

int main(void)
{
    FILE *f = fopen("notes.txt", "w");
    for (int i = 1; i <= 5; i++)
        fprintf(f, "item %d %s %.2f\n", i, i % 2 ? "odd" : "even", i * 1.25);
    fputs("last line without newline", f);
    fputc('!', f);
    printf("ftell after writing: %ld\n", ftell(f));
    fclose(f);

    f = fopen("notes.txt", "r");
    char line[128];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        printf("fgets %d: [%s]\n", ++n, line);
    }
    printf("feof=%d ferror=%d\n", feof(f) != 0, ferror(f) != 0);
    rewind(f);
    int id;
    char word[16];
    double v;
    int fields, rows = 0;
    double total = 0;
    while ((fields = fscanf(f, "item %d %15s %lf ", &id, word, &v)) == 3) {
        total += v * id;
        rows++;
    }
    printf("fscanf rows=%d last fields=%d total=%.4f\n", rows, fields, total);
    fseek(f, -5, SEEK_END);
    int c = fgetc(f);
    ungetc('#', f);
    fgets(line, sizeof line, f);
    printf("fseek/ungetc: first='%c' then [%s] pos=%ld\n", c, line, ftell(f));
    fclose(f);

    f = fopen("notes.txt", "a+");
    fputs("\nappended\n", f);
    fseek(f, 0, SEEK_SET);
    char *lp = NULL;
    size_t cap = 0;
    ssize_t len;
    int lines = 0;
    long chars = 0;
    while ((len = getline(&lp, &cap, f)) > 0) {
        lines++;
        chars += len;
    }
    free(lp);
    printf("getline lines=%d chars=%ld\n", lines, chars);
    fclose(f);

    struct rec out[4] = {{1, 0.5, "one"}, {2, -2.25, "two"}, {3, 1e10, "three"}, {4, 3.14159, "four"}};
    f = fopen("records.bin", "wb+");
    size_t wr = fwrite(out, sizeof out[0], 4, f);
    printf("fwrite=%zu size=%ld\n", wr, ftell(f));
    struct rec in;
    fseek(f, 2 * (long)sizeof in, SEEK_SET);
    size_t rd = fread(&in, sizeof in, 1, f);
    printf("fread=%zu rec: %d %g %s\n", rd, in.id, in.value, in.name);
    fseek(f, 0, SEEK_SET);
    struct rec all[8];
    rd = fread(all, sizeof all[0], 8, f);
    printf("short fread=%zu eof=%d\n", rd, feof(f) != 0);
    clearerr(f);
    printf("after clearerr eof=%d\n", feof(f) != 0);
    fclose(f);

    /* Buffering modes: output goes through the buffer in the right order. */
    f = fopen("buffered.txt", "w");
    setvbuf(f, NULL, _IOFBF, 16);
    for (int i = 0; i < 10; i++)
        fprintf(f, "%d,", i);
    fclose(f);
    f = fopen("buffered.txt", "r");
    fgets(line, sizeof line, f);
    printf("buffered content: %s\n", line);
    fclose(f);

    int fd = fileno(stdout);
    printf("fileno(stdout)=%d fileno(stdin)=%d\n", fd, fileno(stdin));
    int dfd = dup(fileno(stdout));
    FILE *d = fdopen(dfd, "w");
    fprintf(d, "via fdopen on a dup of stdout\n");
    fflush(stdout);
    fclose(d);

    f = freopen("notes.txt", "r", stdin);
    char first[64];
    scanf("%63s", first);
    printf("freopen stdin, first word: %s\n", first);

    printf("fopen missing: %s\n", fopen("no/such/file", "r") == NULL ? "NULL" : "opened");
    int r1 = remove("notes.txt"), r2 = remove("records.bin"), r3 = remove("buffered.txt");
    printf("remove=%d %d %d\n", r1, r2, r3);
    return 0;
}
