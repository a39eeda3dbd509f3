#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static long n;
static void *work(void *arg)
{
    volatile long s = 0;
    for (long i = 0; i < n; i++) s += i ^ (long)arg;
    return (void *)s;
}
int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 1000000;
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, work, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    puts("done");
    return 0;
}
