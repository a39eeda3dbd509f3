/* pthreads with mutexes and condition variables: a bounded-buffer
 * producer/consumer (one consumer checks the order of every item), a
 * many-producer many-consumer run checked by totals, a counter protected by
 * a mutex, a reader-writer lock, and pthread_cond_broadcast to release a
 * group. The output does not depend on scheduling. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define QSIZE 16

struct queue {
    pthread_mutex_t lock;
    pthread_cond_t not_full, not_empty;
    long items[QSIZE];
    int head, count;
};

static struct queue q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                         PTHREAD_COND_INITIALIZER, {0}, 0, 0};

/* Appends v, waiting while the queue is full. */
static void put(long v)
{
    pthread_mutex_lock(&q.lock);
    while (q.count == QSIZE)
        pthread_cond_wait(&q.not_full, &q.lock);
    q.items[(q.head + q.count) % QSIZE] = v;
    q.count++;
    pthread_cond_signal(&q.not_empty);
    pthread_mutex_unlock(&q.lock);
}

/* Removes and returns the oldest item, waiting while the queue is empty. */
static long get(void)
{
    pthread_mutex_lock(&q.lock);
    while (q.count == 0)
        pthread_cond_wait(&q.not_empty, &q.lock);
    long v = q.items[q.head];
    q.head = (q.head + 1) % QSIZE;
    q.count--;
    pthread_cond_signal(&q.not_full);
    pthread_mutex_unlock(&q.lock);
    return v;
}

/* Produces 1..n followed by the end marker -1. */
static void *producer(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 1; i <= n; i++)
        put(i);
    put(-1);
    return NULL;
}

struct consumer_result {
    long sum, count, out_of_order;
};

/* Consumes until the end marker; checks the items arrive in order. */
static void *ordered_consumer(void *arg)
{
    struct consumer_result *r = arg;
    long expect = 1, v;
    while ((v = get()) != -1) {
        if (v != expect)
            r->out_of_order++;
        expect = v + 1;
        r->sum += v;
        r->count++;
    }
    return NULL;
}

/* Consumes until it sees an end marker; sums what it got. */
static void *any_consumer(void *arg)
{
    struct consumer_result *r = arg;
    long v;
    while ((v = get()) != -1) {
        r->sum += v;
        r->count++;
    }
    return NULL;
}

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

/* Adds 1 to the shared counter 20000 times under the mutex. */
static void *incrementer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&counter_lock);
        counter++;
        pthread_mutex_unlock(&counter_lock);
    }
    return NULL;
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long table[8];

/* Writers bump every slot together; readers check the slots stay equal. */
static void *rw_worker(void *arg)
{
    long id = (long)(intptr_t)arg, torn = 0;
    for (int i = 0; i < 3000; i++) {
        if ((i + id) % 5 == 0) {
            pthread_rwlock_wrlock(&rw);
            for (int k = 0; k < 8; k++)
                table[k]++;
            pthread_rwlock_unlock(&rw);
        } else {
            pthread_rwlock_rdlock(&rw);
            for (int k = 1; k < 8; k++)
                torn += table[k] != table[0];
            pthread_rwlock_unlock(&rw);
        }
    }
    return (void *)(intptr_t)torn;
}

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open, waiting, released;

/* Waits at the gate until it is opened by a broadcast. */
static void *gate_waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gate_lock);
    waiting++;
    pthread_cond_broadcast(&gate_cond);
    while (!gate_open)
        pthread_cond_wait(&gate_cond, &gate_lock);
    released++;
    pthread_mutex_unlock(&gate_lock);
    return NULL;
}

int main(void)
{
    pthread_t p, c, ts[8];
    struct consumer_result r1 = {0, 0, 0};
    pthread_create(&c, NULL, ordered_consumer, &r1);
    pthread_create(&p, NULL, producer, (void *)(intptr_t)50000);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    printf("1:1 count=%ld sum=%ld out_of_order=%ld\n", r1.count, r1.sum, r1.out_of_order);

    struct consumer_result rs[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < 3; i++)
        pthread_create(&ts[i], NULL, producer, (void *)(intptr_t)(10000 * (i + 1)));
    for (int i = 0; i < 3; i++)
        pthread_create(&ts[3 + i], NULL, any_consumer, &rs[i]);
    for (int i = 0; i < 6; i++)
        pthread_join(ts[i], NULL);
    long sum = 0, count = 0;
    for (int i = 0; i < 3; i++) {
        sum += rs[i].sum;
        count += rs[i].count;
    }
    printf("3:3 count=%ld sum=%ld\n", count, sum);

    for (int i = 0; i < 4; i++)
        pthread_create(&ts[i], NULL, incrementer, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(ts[i], NULL);
    printf("mutex counter=%ld\n", counter);

    long torn = 0;
    for (int i = 0; i < 4; i++)
        pthread_create(&ts[i], NULL, rw_worker, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(ts[i], &ret);
        torn += (long)(intptr_t)ret;
    }
    printf("rwlock torn reads=%ld slot=%ld\n", torn, table[7]);

    for (int i = 0; i < 5; i++)
        pthread_create(&ts[i], NULL, gate_waiter, NULL);
    pthread_mutex_lock(&gate_lock);
    while (waiting < 5)
        pthread_cond_wait(&gate_cond, &gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
    for (int i = 0; i < 5; i++)
        pthread_join(ts[i], NULL);
    printf("broadcast released=%d\n", released);

    pthread_mutex_t m;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &ma);
    pthread_mutex_lock(&m);
    printf("errorcheck relock=%d trylock-busy=%d\n", pthread_mutex_lock(&m) != 0,
           pthread_mutex_trylock(&m) != 0);
    pthread_mutex_unlock(&m);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_t rm;
    pthread_mutex_init(&rm, &ma);
    int ok = pthread_mutex_lock(&rm) == 0 && pthread_mutex_lock(&rm) == 0 &&
             pthread_mutex_unlock(&rm) == 0 && pthread_mutex_unlock(&rm) == 0;
    printf("recursive lock twice ok=%d\n", ok);
    return 0;
}
