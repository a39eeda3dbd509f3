/* Two threads making system calls in a loop: most of their time is kernel
 * work, on whichever CPU each runs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long n;

static void *work(void *arg)
{
    long s = 0;
    for (long i = 0; i < n; i++) s += getppid();
    return (void *)(s + (long)arg);
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 10000;
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, work, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    puts("done");
    return 0;
}
