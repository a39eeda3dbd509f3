/* CPU-bound threads (2 unless argv[2] says how many, up to 8), each running
 * N iterations of a loop (argv[1]). */
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
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    pthread_t t[8];
    if (threads < 1 || threads > 8) return 2;
    for (long i = 0; i < threads; i++) pthread_create(&t[i], 0, work, (void *)i);
    for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
    puts("done");
    return 0;
}
