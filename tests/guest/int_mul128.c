/* 128-bit integer arithmetic: unsigned and signed 64x64->128 multiplies
 * (umulh plus sign corrections), __int128 division (__udivti3/__divti3),
 * 64-bit modular multiplication in a Miller-Rabin primality test. */
//@ isa
#include <stdint.h>
#include <stdio.h>

typedef unsigned __int128 u128;
typedef __int128 s128;

/* Prints a 128-bit value as 32 hex digits. */
static void put128(const char *tag, u128 v)
{
    printf("%s %016llx%016llx\n", tag, (unsigned long long)(v >> 64), (unsigned long long)v);
}

/* Prints an unsigned 128-bit value in decimal. */
static void putdec(const char *tag, u128 v)
{
    char buf[64];
    int i = 63;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    printf("%s %s\n", tag, buf + i);
}

/* Returns a*b mod m without overflow, via a 128-bit product. */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((u128)a * b % m);
}

/* Returns a^e mod m. */
static uint64_t powmod(uint64_t a, uint64_t e, uint64_t m)
{
    uint64_t r = 1;
    a %= m;
    while (e) {
        if (e & 1)
            r = mulmod(r, a, m);
        a = mulmod(a, a, m);
        e >>= 1;
    }
    return r;
}

/* Returns 1 if n is prime (deterministic Miller-Rabin for 64-bit n). */
static int is_prime(uint64_t n)
{
    static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    if (n < 2)
        return 0;
    for (int i = 0; i < 12; i++)
        if (n % bases[i] == 0)
            return n == bases[i];
    uint64_t d = n - 1;
    int s = 0;
    while (!(d & 1)) {
        d >>= 1;
        s++;
    }
    for (int i = 0; i < 12; i++) {
        uint64_t x = powmod(bases[i], d, n);
        if (x == 1 || x == n - 1)
            continue;
        int r;
        for (r = 1; r < s; r++) {
            x = mulmod(x, x, n);
            if (x == n - 1)
                break;
        }
        if (r == s)
            return 0;
    }
    return 1;
}

int main(void)
{
    volatile uint64_t a = 0xfedcba9876543210ULL, b = 0x0123456789abcdefULL;
    put128("umul", (u128)a * b);
    put128("umul-max", (u128)(uint64_t)~0ULL * (uint64_t)~0ULL);
    volatile int64_t sa = -0x123456789abcdefLL, sb = 0x7edcba987654321LL;
    put128("smul", (u128)((s128)sa * sb));
    put128("smul-neg", (u128)((s128)sa * (s128)(-sb)));
    printf("umulh-high %016llx\n", (unsigned long long)(((u128)a * b) >> 64));

    u128 f = 1;
    for (int i = 1; i <= 34; i++) {
        f *= (u128)i;
        if (i % 5 == 4 || i == 34)
            putdec("fact", f);
    }
    u128 q = f / 1000000007ULL, r = f % 1000000007ULL;
    putdec("fact/p", q);
    putdec("fact%p", r);
    u128 big = ((u128)0x0123456789abcdefULL << 64) | 0xfedcba9876543210ULL;
    u128 div = ((u128)0x12345ULL << 64) | 0x6789ULL;
    putdec("big/div", big / div);
    putdec("big%div", big % div);
    s128 sn = -(s128)big;
    printf("sdiv %lld %lld\n", (long long)(sn / (s128)div), (long long)(sn % (s128)div % 1000000));

    uint64_t h = 0;
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        u128 p = (u128)x * (x | 1);
        h ^= (uint64_t)(p >> 64) + (uint64_t)p * 31;
        s128 sp = (s128)(int64_t)x * (int64_t)(h | 1);
        h += (uint64_t)(sp >> 64);
    }
    printf("mix %016llx\n", (unsigned long long)h);

    int count = 0;
    uint64_t last = 0;
    for (uint64_t n = (1ULL << 62) - 1000; n < (1ULL << 62); n++)
        if (is_prime(n)) {
            count++;
            last = n;
        }
    printf("primes below 2^62 in last 1000: %d, largest %llu\n", count, (unsigned long long)last);
    count = 0;
    for (uint64_t n = 0xffffffffffffffffULL - 2000; n != 0; n++)
        count += is_prime(n);
    printf("primes in top 2000: %d\n", count);
    return 0;
}
