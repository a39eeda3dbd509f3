/* qsort and bsearch: integers, strings and structs with a tie-breaking
 * comparator (output must not depend on qsort's stability), plus lfind. */
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 100000

static uint64_t rng_state = 0xdeadbeefcafef00dULL;

/* Returns the next value of a 64-bit xorshift generator. */
static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* Orders ints ascending; returns <0, 0 or >0. */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Orders C strings held by pointer. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct rec {
    int key;
    int id;
    double weight;
};

/* Orders records by key descending, then by id ascending (a total order). */
static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if (x->key != y->key)
        return y->key - x->key;
    return (x->id > y->id) - (x->id < y->id);
}

static int arr[N];
static struct rec recs[5000];

int main(void)
{
    for (int i = 0; i < N; i++)
        arr[i] = (int)(rng() % 1000000) - 500000;
    qsort(arr, N, sizeof arr[0], cmp_int);
    int sorted = 1;
    long long s = 0;
    for (int i = 1; i < N; i++)
        sorted &= arr[i - 1] <= arr[i];
    for (int i = 0; i < N; i += 1000)
        s += (long long)arr[i] * (i + 1);
    printf("ints sorted=%d min=%d max=%d median=%d weighted=%lld\n", sorted, arr[0], arr[N - 1],
           arr[N / 2], s);
    int found = 0, missing = 0;
    for (int k = -500000; k < 500000; k += 37) {
        int *p = bsearch(&k, arr, N, sizeof arr[0], cmp_int);
        if (p && *p == k)
            found++;
        else if (!p)
            missing++;
    }
    printf("bsearch found=%d missing=%d\n", found, missing);

    static char storage[2000][12];
    char *words[2000];
    for (int i = 0; i < 2000; i++) {
        int len = 3 + (int)(rng() % 8);
        for (int j = 0; j < len; j++)
            storage[i][j] = (char)('a' + rng() % 6);
        storage[i][len] = 0;
        words[i] = storage[i];
    }
    qsort(words, 2000, sizeof words[0], cmp_str);
    printf("words first=%s second=%s last=%s\n", words[0], words[1], words[1999]);
    char *key = words[1234];
    char **hit = bsearch(&key, words, 2000, sizeof words[0], cmp_str);
    printf("bsearch word %s -> %s\n", key, hit ? *hit : "(none)");
    int uniq = 1;
    for (int i = 1; i < 2000; i++)
        uniq += strcmp(words[i - 1], words[i]) != 0;
    printf("unique words=%d\n", uniq);

    for (int i = 0; i < 5000; i++) {
        recs[i].key = (int)(rng() % 50);
        recs[i].id = i;
        recs[i].weight = (double)(rng() % 1000) / 8;
    }
    qsort(recs, 5000, sizeof recs[0], cmp_rec);
    for (int i = 0; i < 5; i++)
        printf("rec %d: key=%d id=%d w=%.3f\n", i, recs[i].key, recs[i].id, recs[i].weight);
    double wsum = 0;
    for (int i = 0; i < 5000; i++)
        wsum += recs[i].weight * (i % 7);
    printf("rec last: key=%d id=%d wsum=%.3f\n", recs[4999].key, recs[4999].id, wsum);

    int small[] = {5, 3, 9, 1, 7};
    size_t nmemb = 5;
    int want = 9;
    int *lf = lfind(&want, small, &nmemb, sizeof small[0], cmp_int);
    printf("lfind 9 at index %td\n", lf - small);
    qsort(small, 0, sizeof small[0], cmp_int);
    qsort(small, 1, sizeof small[0], cmp_int);
    printf("qsort of 0 and 1 elements ok: %d\n", small[0]);
    return 0;
}
