/* Processes: fork with a pipe (the child writes, the parent reads), exit
 * statuses, children killed by signals (WIFSIGNALED/WTERMSIG), waitpid with
 * WNOHANG, SIGCHLD, copy-on-write separation of memory, and a pipeline of
 * several children passing a token along. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t chld_seen;

/* Notes that a SIGCHLD arrived. */
static void on_chld(int sig)
{
    (void)sig;
    chld_seen = 1;
}

/* Prints how a child ended. */
static void describe(const char *tag, int status)
{
    if (WIFEXITED(status))
        printf("%s: exited %d\n", tag, WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        printf("%s: killed by signal %d\n", tag, WTERMSIG(status));
    else
        printf("%s: other status %#x\n", tag, status);
}

int main(void)
{
    signal(SIGCHLD, on_chld);
    int fds[2];
    pipe(fds);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        for (int i = 0; i < 5; i++) {
            char line[64];
            int n = snprintf(line, sizeof line, "line %d from child, square %d\n", i, i * i);
            write(fds[1], line, (size_t)n);
        }
        _exit(0);
    }
    close(fds[1]);
    char buf[4096];
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = 0;
    close(fds[0]);
    printf("parent read %zu bytes:\n%s", got, buf);
    int status;
    pid_t w = waitpid(pid, &status, 0);
    printf("waitpid matched=%d ", w == pid);
    describe("child", status);

    int codes[] = {0, 1, 7, 42, 255};
    pid_t pids[5];
    fflush(stdout);
    for (int i = 0; i < 5; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            exit(codes[i]);
    }
    for (int i = 4; i >= 0; i--) {
        waitpid(pids[i], &status, 0);
        char tag[32];
        snprintf(tag, sizeof tag, "exit-child %d", i);
        describe(tag, status);
    }

    int sigs[] = {SIGTERM, SIGKILL, SIGUSR1, SIGSEGV};
    for (int i = 0; i < 4; i++) {
        fflush(stdout);
        pid = fork();
        if (pid == 0) {
            signal(SIGSEGV, SIG_DFL);
            if (sigs[i] == SIGSEGV)
                *(volatile int *)8 = 0;
            raise(sigs[i]);
            _exit(99);
        }
        waitpid(pid, &status, 0);
        describe("signal-child", status);
    }

    /* A child that pauses until the parent kills it; WNOHANG sees it running. */
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        for (;;)
            pause();
    }
    w = waitpid(pid, &status, WNOHANG);
    printf("WNOHANG on running child returned %d\n", w);
    kill(pid, SIGTERM);
    waitpid(pid, &status, 0);
    describe("paused-child", status);
    w = waitpid(-1, &status, WNOHANG);
    printf("no children left: %d errno=ECHILD:%d\n", w, w == -1 && errno == ECHILD);
    printf("SIGCHLD seen: %d\n", (int)chld_seen);

    /* Copy-on-write: the child's writes are invisible to the parent. */
    static int shared_value = 10;
    int *heap = malloc(sizeof *heap);
    *heap = 20;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        shared_value = 11;
        *heap = 21;
        _exit(shared_value + *heap);
    }
    waitpid(pid, &status, 0);
    printf("cow: parent sees %d %d, child computed %d\n", shared_value, *heap, WEXITSTATUS(status));
    free(heap);

    /* A chain of 4 processes, each adding its index to a number on a pipe. */
    int in[2];
    pipe(in);
    write(in[1], "1000", 4);
    close(in[1]);
    int cur = in[0];
    fflush(stdout);
    for (int i = 1; i <= 4; i++) {
        int out[2];
        pipe(out);
        pid = fork();
        if (pid == 0) {
            close(out[0]);
            char b[32] = {0};
            read(cur, b, sizeof b - 1);
            int v = atoi(b) * 2 + i;
            int len = snprintf(b, sizeof b, "%d", v);
            write(out[1], b, (size_t)len);
            _exit(0);
        }
        close(out[1]);
        close(cur);
        cur = out[0];
    }
    char res[32] = {0};
    read(cur, res, sizeof res - 1);
    close(cur);
    while (wait(NULL) > 0)
        ;
    printf("chain result: %s\n", res);
    return 0;
}
