/* sched_setaffinity honoured by the scheduler: two CPU-bound threads of N
 * iterations (argv[1]), both pinned to the CPU argv[2] names (or free with
 * "-"). Each prints the CPUs it ran on (sched_getcpu, sampled as it runs).
 * Then the main thread pins itself to CPU 0, 1, 0, 1 in turn and prints
 * where it runs after each call. Then the calls' errors as Linux 6.1 gives them: a mask of no CPU the
 * machine has is EINVAL, an unknown pid ESRCH, a buffer shorter than
 * nr_cpu_ids bits or not whole longs EINVAL. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
static long n;
static int pin = -1;
static unsigned seen[2];
static void *work(void *arg)
{
    long id = (long)arg;
    if (pin >= 0) {
        cpu_set_t s;
        CPU_ZERO(&s);
        CPU_SET(pin, &s);
        if (sched_setaffinity(0, sizeof s, &s)) { perror("sched_setaffinity"); exit(1); }
    }
    volatile long x = 0;
    for (long i = 0; i < n; i++) {
        x += i ^ id;
        if ((i & 4095) == 0) seen[id] |= 1u << sched_getcpu();
    }
    return NULL;
}
int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 1000000;
    if (argc > 2 && strcmp(argv[2], "-")) pin = atoi(argv[2]);
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, work, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    printf("cpus seen: %#x %#x\n", seen[0], seen[1]);
    /* the running thread moves at once to the CPU it is pinned to */
    printf("moves:");
    for (int k = 0; k < 4; k++) {
        cpu_set_t m;
        CPU_ZERO(&m);
        CPU_SET(k & 1, &m);
        printf(" %d", sched_setaffinity(0, sizeof m, &m) ? -1 : sched_getcpu());
    }
    printf("\n");
    cpu_set_t s;
    CPU_ZERO(&s);
    printf("getaffinity: %d, %d CPUs\n", sched_getaffinity(0, sizeof s, &s), CPU_COUNT(&s));
    CPU_ZERO(&s);
    CPU_SET(7, &s);
    int r = sched_setaffinity(0, sizeof s, &s);
    printf("set CPU 7: %d %s\n", r, r ? strerror(errno) : "");
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    r = sched_setaffinity(999999, sizeof s, &s);
    printf("set pid 999999: %d %s\n", r, r ? strerror(errno) : "");
    long k = syscall(SYS_sched_getaffinity, 0, 4, &s);
    printf("get 4 bytes: %ld %s\n", k, k < 0 ? strerror(errno) : "");
    k = syscall(SYS_sched_getaffinity, 0, 16, &s);
    printf("get 16 bytes: %ld\n", k);
    return 0;
}
