/* A parent and three child processes, each doing a fixed amount of work;
 * the parent waits for them. For counting with inherit: the parent's count
 * includes its exited children. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long work(long n)
{
    volatile long s = 0;
    for (long i = 0; i < n; i++) s += i * 3;
    return s;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    for (int k = 0; k < 3; k++) {
        pid_t p = fork();
        if (p == 0) { work(n); _exit(0); }
        if (p < 0) { perror("fork"); return 1; }
    }
    work(n);
    for (int k = 0; k < 3; k++) wait(NULL);
    puts("done");
    return 0;
}
