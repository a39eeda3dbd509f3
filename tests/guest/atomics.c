/* Atomic operations from several threads (Alpha builds them from
 * ldl_l/ldq_l and stl_c/stq_c loops, with byte and halfword atomics done on
 * the containing longword): fetch-add on 8/16/32/64-bit values,
 * compare-exchange loops, exchange, a spinlock on atomic_flag, and memory
 * fences around a message-passing pattern. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define NT 4
#define ITERS 20000

static _Atomic uint64_t a64;
static _Atomic uint32_t a32;
static _Atomic uint16_t a16[4];
static _Atomic uint8_t a8[8];
static _Atomic int64_t maxv;
static atomic_flag spin = ATOMIC_FLAG_INIT;
static long plain_counter;
static _Atomic long xchg_sum, token;

/* Raises maxv to v with a compare-exchange loop. */
static void atomic_max(int64_t v)
{
    int64_t cur = atomic_load(&maxv);
    while (cur < v && !atomic_compare_exchange_weak(&maxv, &cur, v))
        ;
}

/* Hammers all the atomics; id picks the slots and values. */
static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(id + 1);
    for (int i = 0; i < ITERS; i++) {
        atomic_fetch_add(&a64, 3);
        atomic_fetch_sub(&a32, 1);
        atomic_fetch_add(&a16[i & 3], 1);
        atomic_fetch_add(&a8[(i + id) & 7], 1);
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        atomic_max((int64_t)(x >> 24));
        while (atomic_flag_test_and_set_explicit(&spin, memory_order_acquire))
            ;
        plain_counter++;
        atomic_flag_clear_explicit(&spin, memory_order_release);
        /* Every value put into token is taken out exactly once. */
        atomic_fetch_add(&xchg_sum, atomic_exchange(&token, i % 7));
    }
    return NULL;
}

static _Atomic int ready;
static long payload[16];

/* Publishes a payload, then sets the flag with release ordering. */
static void *publisher(void *arg)
{
    (void)arg;
    for (int i = 0; i < 16; i++)
        payload[i] = i * i;
    atomic_store_explicit(&ready, 1, memory_order_release);
    return NULL;
}

int main(void)
{
    pthread_t t[NT];
    atomic_store(&a32, NT * ITERS * 2);
    for (int i = 0; i < NT; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < NT; i++)
        pthread_join(t[i], NULL);
    printf("a64=%llu a32=%u\n", (unsigned long long)atomic_load(&a64), atomic_load(&a32));
    printf("a16=%u,%u,%u,%u\n", atomic_load(&a16[0]), atomic_load(&a16[1]), atomic_load(&a16[2]),
           atomic_load(&a16[3]));
    unsigned total8 = 0;
    for (int i = 0; i < 8; i++)
        total8 += atomic_load(&a8[i]);
    printf("a8 total=%u (each wraps mod 256: a8[0]=%u)\n", total8, atomic_load(&a8[0]));
    printf("spinlock counter=%ld\n", plain_counter);
    long xs = atomic_load(&xchg_sum) + atomic_load(&token), per = 0;
    for (int i = 0; i < ITERS; i++)
        per += i % 7;
    printf("exchange conserves: %d\n", xs == NT * per);

    /* The maximum is the largest value any thread generated: recompute it. */
    int64_t expect = 0;
    for (int id = 0; id < NT; id++) {
        uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(id + 1);
        for (int i = 0; i < ITERS; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            if ((int64_t)(x >> 24) > expect)
                expect = (int64_t)(x >> 24);
        }
    }
    printf("cas max ok=%d\n", atomic_load(&maxv) == expect);

    pthread_t p;
    pthread_create(&p, NULL, publisher, NULL);
    while (!atomic_load_explicit(&ready, memory_order_acquire))
        ;
    long s = 0;
    for (int i = 0; i < 16; i++)
        s += payload[i];
    pthread_join(p, NULL);
    printf("message passing sum=%ld\n", s);

    /* Single-threaded semantics of the GCC builtins on each width. */
    uint8_t b = 250;
    uint16_t h = 65530;
    uint32_t w = 0xfffffff0u;
    uint64_t q = ~0ULL - 5;
    unsigned ob = __atomic_fetch_add(&b, 10, __ATOMIC_SEQ_CST);
    unsigned nh = __atomic_add_fetch(&h, 10, __ATOMIC_SEQ_CST);
    unsigned long long nq = __atomic_add_fetch(&q, 10, __ATOMIC_SEQ_CST);
    printf("fetch_add wrap: %u %u %u %llu\n", ob, b, nh, nq);
    int c1 = __sync_bool_compare_and_swap(&w, 0xfffffff0u, 7u);
    unsigned w1 = w;
    int c2 = __sync_bool_compare_and_swap(&w, 0u, 9u);
    unsigned v3 = __sync_val_compare_and_swap(&w, 7u, 8u);
    printf("cas: %d %u %d %u %u\n", c1, w1, c2, v3, w);
    unsigned o1 = __atomic_or_fetch(&w, 0xf0u, __ATOMIC_RELAXED);
    unsigned o2 = __atomic_and_fetch(&w, 0x3cu, __ATOMIC_RELAXED);
    unsigned o3 = __atomic_xor_fetch(&w, 0xffu, __ATOMIC_RELAXED);
    printf("or/and/xor: %#x %#x %#x\n", o1, o2, o3);
    printf("lock-free: 1=%d 2=%d 4=%d 8=%d\n", __atomic_always_lock_free(1, 0),
           __atomic_always_lock_free(2, 0), __atomic_always_lock_free(4, 0),
           __atomic_always_lock_free(8, 0));
    return 0;
}
