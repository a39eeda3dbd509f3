/* Thread-local storage and thread utilities: __thread variables (initialised
 * and zero, in the executable and reached through pointers) private to each
 * thread, pthread_once run exactly once by racing threads, a barrier through
 * several phases, thread-specific data with destructors, join values,
 * detached threads, and pthread_self/pthread_equal. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT 6

static __thread long tls_init = 1000;
static __thread long tls_zero;
static __thread char tls_name[32] = "main";
static __thread int tls_array[64];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static pthread_barrier_t barrier;
static pthread_key_t key;
static int destructor_calls;
static long destructor_sum;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long phase_sums[4];

/* The pthread_once routine: must run once in total. */
static void init_once(void)
{
    once_runs++;
}

/* Key destructor: counts calls and the values freed. */
static void destroy(void *p)
{
    pthread_mutex_lock(&lock);
    destructor_calls++;
    destructor_sum += *(long *)p;
    pthread_mutex_unlock(&lock);
    free(p);
}

/* Returns the address of this thread's tls_zero (checked distinct per thread). */
static long *tls_zero_addr(void)
{
    return &tls_zero;
}

/* Each worker modifies its TLS, meets the others at the barrier in four
 * phases, and returns a checksum of what it saw. */
static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    pthread_once(&once, init_once);
    long seen_init = tls_init, seen_zero = tls_zero;
    tls_init += id;
    *tls_zero_addr() = id * 10;
    snprintf(tls_name, sizeof tls_name, "worker-%ld", id);
    for (int i = 0; i < 64; i++)
        tls_array[i] = (int)(id * 64 + i);
    long *spec = malloc(sizeof *spec);
    *spec = id + 1;
    pthread_setspecific(key, spec);
    for (int phase = 0; phase < 4; phase++) {
        pthread_mutex_lock(&lock);
        phase_sums[phase] += tls_init * (phase + 1);
        pthread_mutex_unlock(&lock);
        int r = pthread_barrier_wait(&barrier);
        if (r != 0 && r != PTHREAD_BARRIER_SERIAL_THREAD)
            return (void *)-1;
        tls_init++;
    }
    long sum = 0;
    for (int i = 0; i < 64; i++)
        sum += tls_array[i];
    int name_ok = strncmp(tls_name, "worker-", 7) == 0 && atol(tls_name + 7) == id;
    long got = *(long *)pthread_getspecific(key);
    long ok = seen_init == 1000 && seen_zero == 0 && tls_zero == id * 10 && name_ok &&
              got == id + 1 && sum == id * 64 * 64 + 2016;
    return (void *)(intptr_t)(ok ? 100 + id : -id);
}

static volatile int detached_done;

/* A detached thread: sets a flag and ends. */
static void *detached(void *arg)
{
    (void)arg;
    detached_done = 1;
    return NULL;
}

int main(void)
{
    pthread_barrier_init(&barrier, NULL, NT);
    pthread_key_create(&key, destroy);
    pthread_t t[NT];
    for (long i = 0; i < NT; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < NT; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        printf("thread %d returned %ld\n", i, (long)(intptr_t)ret);
    }
    printf("once ran %d time(s)\n", once_runs);
    for (int p = 0; p < 4; p++)
        printf("phase %d sum %ld\n", p, phase_sums[p]);
    printf("destructors: %d calls, sum %ld\n", destructor_calls, destructor_sum);
    printf("main tls untouched: init=%ld zero=%ld name=%s\n", tls_init, tls_zero, tls_name);
    pthread_barrier_destroy(&barrier);

    pthread_t self = pthread_self();
    printf("pthread_equal(self, self)=%d (self, t[0])=%d\n", pthread_equal(self, self) != 0,
           pthread_equal(self, t[0]) != 0);

    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 256 * 1024);
    pthread_t d;
    pthread_create(&d, &at, detached, NULL);
    for (int i = 0; i < 2000 && !detached_done; i++)
        usleep(1000);
    printf("detached thread ran: %d\n", detached_done);
    pthread_attr_destroy(&at);
    return 0;
}
