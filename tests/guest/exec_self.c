/* execve of the program itself through argv[0] (not /proc/self/exe): the
 * new image gets the new argv and environment, keeps file descriptors that
 * are not close-on-exec, loses those that are, keeps ignored signals
 * ignored and caught ones reset to default, and keeps its pid. Three
 * stages chain into each other; the last exits with status 5. */
//@ exec
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* Ignores a signal; used as a handler to check it is reset by exec. */
static void on_usr1(int sig)
{
    (void)sig;
}

/* Orders C strings held by pointer. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints what a later stage inherited. */
static void show_inheritance(int keep_fd, int cloexec_fd, const char *pid_text)
{
    char buf[32] = {0};
    lseek(keep_fd, 0, SEEK_SET);
    ssize_t n = read(keep_fd, buf, sizeof buf - 1);
    printf("  kept fd reads %zd bytes: %s\n", n, buf);
    errno = 0;
    int r = fcntl(cloexec_fd, F_GETFD);
    printf("  cloexec fd: fcntl=%d EBADF=%d\n", r, errno == EBADF);
    struct sigaction sa;
    sigaction(SIGUSR2, NULL, &sa);
    printf("  SIGUSR2 still ignored: %d\n", sa.sa_handler == SIG_IGN);
    sigaction(SIGUSR1, NULL, &sa);
    printf("  SIGUSR1 reset to default: %d\n", sa.sa_handler == SIG_DFL);
    printf("  same pid: %d\n", atol(pid_text) == (long)getpid());
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "stage2") == 0) {
        /* argv[2..4] are fd numbers and the pid: checked, not printed. */
        printf("stage2: argc=%d [%s]", argc, argv[1]);
        for (int i = 5; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("\n  EXEC_TEST=%s\n", getenv("EXEC_TEST") ? getenv("EXEC_TEST") : "(unset)");
        show_inheritance(atoi(argv[2]), atoi(argv[3]), argv[4]);
        fflush(stdout);
        char *nargv[] = {argv[0], "stage3", "last", NULL};
        char *nenv[] = {"ONLY=this", "SECOND=var", NULL};
        execve(argv[0], nargv, nenv);
        printf("stage2: execve failed: %s\n", strerror(errno));
        return 1;
    }
    if (argc >= 2 && strcmp(argv[1], "stage3") == 0) {
        /* Sorted: qemu 7.2 hands the guest its environment in reverse order. */
        char *env[16];
        int n = 0;
        for (char **e = environ; *e && n < 16; e++)
            env[n++] = *e;
        qsort(env, (size_t)n, sizeof env[0], cmp_str);
        for (int i = 0; i < n; i++)
            printf("stage3: env %s\n", env[i]);
        printf("stage3: argv[2]=%s, exiting with 5\n", argv[2]);
        return 5;
    }

    printf("stage1: argc=%d\n", argc);
    errno = 0;
    execl("./no-such-file", "x", (char *)NULL);
    printf("stage1: exec of a missing file: ENOENT=%d\n", errno == ENOENT);
    int keep = open("exec_keep.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
    write(keep, "inherited", 9);
    int cloexec = open("exec_keep.tmp", O_RDONLY | O_CLOEXEC);
    unlink("exec_keep.tmp");
    signal(SIGUSR2, SIG_IGN);
    signal(SIGUSR1, on_usr1);
    setenv("EXEC_TEST", "from stage1", 1);
    char a1[16], a2[16], a3[32];
    snprintf(a1, sizeof a1, "%d", keep);
    snprintf(a2, sizeof a2, "%d", cloexec);
    snprintf(a3, sizeof a3, "%ld", (long)getpid());
    fflush(stdout);
    execl(argv[0], argv[0], "stage2", a1, a2, a3, "with space", "", (char *)NULL);
    printf("stage1: exec failed: %s\n", strerror(errno));
    return 1;
}
