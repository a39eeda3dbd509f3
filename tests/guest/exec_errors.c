/* execve of paths that cannot run, and the errno of each: a path through a
 * regular file (ENOTDIR), a symlink loop (ELOOP), a 299-byte name
 * (ENAMETOOLONG), a missing file (ENOENT), a directory, a text file and a
 * copy of this program both without execute permission (EACCES). Stdout
 * is unbuffered: were an exec to succeed, its child's line shows it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void copy(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    char buf[65536];
    ssize_t n;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) break;
    close(in);
    close(out);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1) {
        printf("the exec of %s succeeded\n", argv[1]);
        return 1;
    }
    close(open("text", O_CREAT | O_WRONLY, 0644));
    copy(argv[0], "noexec");
    symlink("loop", "loop");
    char longname[300];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const char *paths[] = { "text/x", "loop", "nonexistent", ".", "text", "noexec", longname };
    const char *what[] = { "text/x", "loop", "nonexistent", ".", "text", "noexec", "a 299-byte name" };
    for (int i = 0; i < 7; i++) {
        char *av[] = { "exec_errors", (char *)what[i], NULL };
        char *ev[] = { NULL };
        execve(paths[i], av, ev);
        printf("%s: %s\n", what[i], strerror(errno));
    }
    return 0;
}
