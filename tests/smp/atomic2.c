/* Two threads increment one counter N times each with an atomic add
 * (ldq_l/stq_c) and another with a mutex; both must end at exactly 2N
 * whichever CPUs run the threads and wherever their turns are cut. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long n, atomic_count, locked_count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg)
{
    (void)arg;
    for (long i = 0; i < n; i++) {
        __atomic_fetch_add(&atomic_count, 1, __ATOMIC_RELAXED);
        if (i % 16 == 0) {
            pthread_mutex_lock(&lock);
            locked_count++;
            pthread_mutex_unlock(&lock);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atol(argv[1]) : 100000;
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, work, NULL);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    printf("atomic %ld locked %ld\n", atomic_count, locked_count);
    return atomic_count == 2 * n && locked_count == 2 * ((n + 15) / 16) ? 0 : 1;
}
