/* Directories: mkdir (and EEXIST), nested trees, opendir/readdir listed in
 * sorted order with d_type, scandir with alphasort, rewinddir, getcwd
 * before and after chdir/fchdir (only the last path components are
 * printed, since the test runs in a fresh temporary directory), rmdir of a
 * non-empty and then an empty directory, and a recursive removal. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Orders C strings held by pointer. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints the entries of a directory, sorted, with their types. */
static void list(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        printf("opendir %s failed: %s\n", path, strerror(errno));
        return;
    }
    char *names[64];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 64) {
        char buf[300];
        const char *t = e->d_type == DT_DIR ? "/" : e->d_type == DT_REG ? "" : e->d_type == DT_LNK ? "@" : "?";
        snprintf(buf, sizeof buf, "%s%s", e->d_name, t);
        names[n++] = strdup(buf);
    }
    rewinddir(d);
    int again = 0;
    while (readdir(d))
        again++;
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    printf("%s (%d entries, %d after rewind):", path, n, again);
    for (int i = 0; i < n; i++) {
        printf(" %s", names[i]);
        free(names[i]);
    }
    printf("\n");
}

static char start_dir[4096];

/* Prints the current directory relative to start_dir. */
static void show_cwd(const char *tag)
{
    char buf[4096];
    if (!getcwd(buf, sizeof buf)) {
        printf("%s: getcwd failed\n", tag);
        return;
    }
    size_t n = strlen(start_dir);
    if (strncmp(buf, start_dir, n) == 0 && (buf[n] == '/' || buf[n] == 0))
        printf("%s: start%s\n", tag, buf + n);
    else
        printf("%s: outside the start directory\n", tag);
}

/* Removes a tree depth-first; returns the number of entries removed. */
static int remove_tree(const char *path)
{
    int count = 0;
    DIR *d = opendir(path);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        struct stat st;
        lstat(sub, &st);
        if (S_ISDIR(st.st_mode))
            count += remove_tree(sub);
        else
            count += unlink(sub) == 0;
    }
    closedir(d);
    return count + (rmdir(path) == 0);
}

int main(void)
{
    umask(022);
    printf("mkdir top=%d\n", mkdir("top", 0755));
    errno = 0;
    int r = mkdir("top", 0755);
    printf("mkdir again=%d EEXIST=%d\n", r, errno == EEXIST);
    mkdir("top/beta", 0700);
    mkdir("top/alpha", 0755);
    mkdir("top/alpha/deep", 0755);
    mkdir("top/alpha/deep/deeper", 0755);
    const char *files[] = {"top/zeta.txt", "top/Capital", "top/alpha/a1", "top/alpha/deep/d1", "top/.hidden"};
    for (int i = 0; i < 5; i++)
        close(open(files[i], O_CREAT | O_WRONLY, 0644));
    symlink("alpha/a1", "top/link");
    list("top");
    list("top/alpha");
    list("top/alpha/deep/deeper");

    struct dirent **ents;
    int n = scandir("top", &ents, NULL, alphasort);
    printf("scandir: %d:", n);
    for (int i = 0; i < n; i++) {
        printf(" %s", ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
    printf("\n");

    struct stat st;
    stat("top/beta", &st);
    printf("top/beta mode=%o isdir=%d\n", st.st_mode & 07777, S_ISDIR(st.st_mode));

    char *got = getcwd(start_dir, sizeof start_dir);
    printf("getcwd ok=%d absolute=%d\n", got == start_dir, start_dir[0] == '/');
    char small[2];
    errno = 0;
    got = getcwd(small, sizeof small);
    printf("getcwd into 2 bytes: %s ERANGE=%d\n", got ? "ok" : "NULL", errno == ERANGE);
    show_cwd("start");
    int here = open(".", O_RDONLY | O_DIRECTORY);
    printf("chdir=%d\n", chdir("top/alpha/deep"));
    show_cwd("after chdir");
    list(".");
    printf("chdir ..=%d\n", chdir(".."));
    show_cwd("after ..");
    printf("fchdir=%d\n", fchdir(here));
    close(here);
    show_cwd("after fchdir");
    errno = 0;
    r = chdir("top/zeta.txt");
    printf("chdir to a file=%d ENOTDIR=%d\n", r, errno == ENOTDIR);

    errno = 0;
    r = rmdir("top/alpha");
    printf("rmdir non-empty=%d ENOTEMPTY=%d\n", r, errno == ENOTEMPTY);
    printf("rmdir empty=%d\n", rmdir("top/alpha/deep/deeper"));
    printf("removed %d entries\n", remove_tree("top"));
    errno = 0;
    r = rmdir("top");
    printf("rmdir gone=%d ENOENT=%d\n", r, errno == ENOENT);
    list(".");
    return 0;
}
