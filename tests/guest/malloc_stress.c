/* malloc at scale: millions of small allocations in several free orders,
 * a large realloc growth and shrink, calloc zeroing, memalign, and large
 * (mmap-backed) blocks; every block's contents are checked. */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSMALL 250000

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

/* Returns the next value of a 64-bit xorshift generator. */
static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static unsigned char *blocks[NSMALL];
static unsigned short sizes[NSMALL];

/* Allocates every block with a random small size and a fill pattern. */
static void fill_all(int maxsize)
{
    for (int i = 0; i < NSMALL; i++) {
        sizes[i] = (unsigned short)(1 + rng() % (uint64_t)maxsize);
        blocks[i] = malloc(sizes[i]);
        if (!blocks[i]) {
            printf("malloc failed at %d\n", i);
            exit(1);
        }
        memset(blocks[i], (int)(i & 0xff), sizes[i]);
    }
}

/* Returns how many blocks lost their fill pattern. */
static int check_all(void)
{
    int bad = 0;
    for (int i = 0; i < NSMALL; i++)
        if (blocks[i] && (blocks[i][0] != (i & 0xff) || blocks[i][sizes[i] - 1] != (i & 0xff)))
            bad++;
    return bad;
}

int main(void)
{
    long total = 0;
    for (int round = 0; round < 4; round++) {
        fill_all(round == 3 ? 600 : 48);
        printf("round %d: corrupt=%d\n", round, check_all());
        switch (round) {
        case 0: /* free in allocation order */
            for (int i = 0; i < NSMALL; i++)
                free(blocks[i]);
            break;
        case 1: /* free in reverse order */
            for (int i = NSMALL - 1; i >= 0; i--)
                free(blocks[i]);
            break;
        case 2: /* free every other block, refill the holes, then free all */
            for (int i = 0; i < NSMALL; i += 2) {
                free(blocks[i]);
                blocks[i] = NULL;
            }
            for (int i = 0; i < NSMALL; i += 2) {
                sizes[i] = (unsigned short)(1 + rng() % 100);
                blocks[i] = malloc(sizes[i]);
                memset(blocks[i], (int)(i & 0xff), sizes[i]);
            }
            printf("refilled holes: corrupt=%d\n", check_all());
            for (int i = 0; i < NSMALL; i++)
                free(blocks[i]);
            break;
        default: /* free in a random order */
            for (int i = NSMALL - 1; i > 0; i--) {
                int j = (int)(rng() % (uint64_t)(i + 1));
                unsigned char *t = blocks[i];
                blocks[i] = blocks[j];
                blocks[j] = t;
            }
            for (int i = 0; i < NSMALL; i++)
                free(blocks[i]);
            break;
        }
        total += NSMALL;
    }

    /* One million allocate/free pairs with a small live set. */
    unsigned char *ring[64] = {0};
    uint64_t h = 0;
    for (int i = 0; i < 1000000; i++) {
        int k = (int)(rng() & 63);
        if (ring[k])
            h = h * 31 + ring[k][0];
        free(ring[k]);
        ring[k] = malloc(8 + (size_t)(i % 200));
        ring[k][0] = (unsigned char)i;
    }
    for (int k = 0; k < 64; k++)
        free(ring[k]);
    total += 1000000;
    printf("churn hash=%016llx\n", (unsigned long long)h);

    /* Grow one block by realloc to 32 MiB, keeping a checksum of its contents. */
    size_t n = 16;
    unsigned char *p = malloc(n);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7);
    while (n < (32u << 20)) {
        size_t m = n * 2 + 3;
        p = realloc(p, m);
        for (size_t i = n; i < m; i++)
            p[i] = (unsigned char)(i * 7);
        n = m;
    }
    uint64_t cs = 0;
    for (size_t i = 0; i < n; i += 4093)
        cs += p[i] * (i + 1);
    int ok = 1;
    for (size_t i = 0; i < n; i += 997)
        ok &= p[i] == (unsigned char)(i * 7);
    p = realloc(p, 100);
    for (size_t i = 0; i < 100; i++)
        ok &= p[i] == (unsigned char)(i * 7);
    free(p);
    printf("realloc grew to %zu bytes: ok=%d checksum=%llu\n", n, ok, (unsigned long long)cs);

    unsigned char *z = calloc(1 << 20, 4);
    int zero = 1;
    for (int i = 0; i < 4 << 20; i += 511)
        zero &= z[i] == 0;
    free(z);
    void *al = memalign(4096, 1000);
    void *pa = NULL;
    int pr = posix_memalign(&pa, 256, 77);
    printf("calloc zero=%d memalign aligned=%d posix_memalign=%d aligned=%d\n", zero,
           ((uintptr_t)al & 4095) == 0, pr, ((uintptr_t)pa & 255) == 0);
    free(al);
    free(pa);
    void *bigs[8];
    for (int i = 0; i < 8; i++) {
        bigs[i] = malloc((size_t)(1 + i) << 20);
        memset(bigs[i], i, (size_t)(1 + i) << 20);
    }
    int bigok = 1;
    for (int i = 0; i < 8; i++) {
        bigok &= ((unsigned char *)bigs[i])[((size_t)(1 + i) << 20) - 1] == i;
        free(bigs[i]);
    }
    printf("large blocks ok=%d\n", bigok);
    printf("allocations: %ld\n", total);
    return 0;
}
