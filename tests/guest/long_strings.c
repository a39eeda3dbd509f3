/* Strings a system call copies in from the program, when they are too long
 * for the call or not mapped: a path longer than PATH_MAX (ENAMETOOLONG),
 * a memfd_create name over 249 bytes (EINVAL), an execve argument longer
 * than MAX_ARG_STRLEN (E2BIG), and an unmapped pointer for each (EFAULT).
 * The emulator tells the two failures apart by the code its string reader
 * returns (guest/mem.h mm_read_str). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BAD ((char *)8)   /* in the unmapped page 0 */

static char *filled(size_t n, char c)
{
    char *s = malloc(n + 1);
    if (!s) exit(2);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void report(const char *what, long r)
{
    if (r >= 0) printf("%s: succeeded\n", what);
    else printf("%s: %s\n", what, strerror(errno));
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        printf("exec with %d arguments succeeded\n", argc);
        return 1;
    }
    char *path = filled(5000, 'p');
    report("open, 5000-byte path", open(path, O_RDONLY));
    report("open, unmapped path", open(BAD, O_RDONLY));
    report("access, 5000-byte path", access(path, F_OK));

    char *name = filled(300, 'n');
    report("memfd_create, 300-byte name", memfd_create(name, MFD_CLOEXEC));
    report("memfd_create, unmapped name", memfd_create(BAD, MFD_CLOEXEC));

    char *arg = filled(300000, 'a');
    char *long_argv[] = { argv[0], arg, NULL };
    char *bad_argv[] = { argv[0], BAD, NULL };
    char *envp[] = { NULL };
    report("execve, 300000-byte argument", execve(argv[0], long_argv, envp));
    report("execve, unmapped argument", execve(argv[0], bad_argv, envp));
    char *short_argv[] = { argv[0], NULL };
    char *long_envp[] = { arg, NULL };
    report("execve, 300000-byte environment string", execve(argv[0], short_argv, long_envp));
    free(path);
    free(name);
    free(arg);
    return 0;
}
