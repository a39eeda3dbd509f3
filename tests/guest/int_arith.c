/* Integer arithmetic: division and modulo by many divisors (variable divisors
 * go through the __divq/__remq/__divl millicode, constant ones through umulh
 * sequences), 32-bit sign extension, wrapping, shifts and compares. */
//@ isa
#include <stdint.h>
#include <stdio.h>

static uint64_t rng_state = 0x123456789abcdef1ULL;

/* Returns the next value of a 64-bit xorshift generator. */
static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* Folds v into a running FNV-style checksum. */
static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ULL;
}

static const int64_t divisors[] = {
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19, 23, 25, 31, 32,
    33, 63, 64, 65, 100, 127, 128, 255, 256, 1000, 4095, 65535, 65536, 1000003,
    2147483647LL, 2147483648LL, 4294967295LL, 4294967296LL, 1000000000000LL,
    0x7fffffffffffffffLL, -1, -2, -3, -7, -10, -16, -1000, -2147483648LL,
    -4294967296LL, -0x7fffffffffffffffLL,
};
#define NDIV (sizeof divisors / sizeof divisors[0])

/* Divides many random values by d in signed/unsigned 32/64-bit; returns a checksum. */
static uint64_t divide_all(int64_t d)
{
    volatile int64_t vd = d;
    uint64_t h = 14695981039346656037ULL;
    for (int i = 0; i < 2000; i++) {
        int64_t a = (int64_t)rng();
        if (i % 4 == 1)
            a >>= (i % 60);
        if (a == INT64_MIN && vd == -1)
            continue;
        int64_t sd = vd;
        h = mix(h, (uint64_t)(a / sd));
        h = mix(h, (uint64_t)(a % sd));
        uint64_t ud = (uint64_t)vd;
        h = mix(h, (uint64_t)a / ud);
        h = mix(h, (uint64_t)a % ud);
        int32_t a32 = (int32_t)a, d32 = (int32_t)sd;
        if (d32 != 0 && !(a32 == INT32_MIN && d32 == -1)) {
            h = mix(h, (uint64_t)(int64_t)(a32 / d32));
            h = mix(h, (uint64_t)(int64_t)(a32 % d32));
        }
        uint32_t u32 = (uint32_t)a, ud32 = (uint32_t)ud;
        if (ud32 != 0) {
            h = mix(h, u32 / ud32);
            h = mix(h, u32 % ud32);
        }
    }
    return h;
}

/* Constant divisors: the compiler turns these into multiply-high sequences. */
static uint64_t divide_const(void)
{
    uint64_t h = 0;
    for (int i = 0; i < 5000; i++) {
        uint64_t u = rng();
        int64_t s = (int64_t)u >> (i % 64);
        h = mix(h, u / 3); h = mix(h, u % 3);
        h = mix(h, u / 7); h = mix(h, u % 10);
        h = mix(h, u / 1000); h = mix(h, u % 1000000007);
        h = mix(h, (uint64_t)(s / 3)); h = mix(h, (uint64_t)(s % 3));
        h = mix(h, (uint64_t)(s / -7)); h = mix(h, (uint64_t)(s % 10));
        h = mix(h, (uint64_t)(s / 16)); h = mix(h, (uint64_t)(s % 16));
        uint32_t w = (uint32_t)u;
        h = mix(h, w / 5); h = mix(h, w % 60); h = mix(h, w / 86400);
        int32_t sw = (int32_t)w;
        h = mix(h, (uint64_t)(int64_t)(sw / 9)); h = mix(h, (uint64_t)(int64_t)(sw % 9));
    }
    return h;
}

int main(void)
{
    volatile int64_t a = 1000000007LL * 999983LL, b = -12345;
    printf("a/b=%lld a%%b=%lld\n", (long long)(a / b), (long long)(a % b));
    printf("-7/2=%d -7%%2=%d 7/-2=%d 7%%-2=%d\n", (int)(-7 / (int)(b / b + 1)),
           (int)(-7 % (int)(b / b + 1)), (int)(7 / -(int)(b / b + 1)), (int)(7 % -(int)(b / b + 1)));
    volatile uint64_t big = 0xffffffffffffffffULL;
    printf("umax/3=%llu umax%%7=%llu\n", (unsigned long long)(big / (uint64_t)(b / b * 3)),
           (unsigned long long)(big % (uint64_t)(b / b * 7)));
    for (unsigned i = 0; i < NDIV; i++)
        printf("div %lld: %016llx\n", (long long)divisors[i], (unsigned long long)divide_all(divisors[i]));
    printf("const: %016llx\n", (unsigned long long)divide_const());

    /* 32-bit arithmetic wraps and sign-extends (addl/subl/mull). */
    volatile int32_t x = 0x7fffffff, y = 1;
    volatile uint32_t ux = 0xffffffffu;
    printf("wrap32: %d %u %d\n", (int32_t)((uint32_t)x + (uint32_t)y), ux + 1u,
           (int32_t)((uint32_t)x * 3u));
    volatile int64_t m = 0x7fffffffffffffffLL;
    printf("wrap64: %lld\n", (long long)(int64_t)((uint64_t)m + 1u));
    uint64_t h = 0;
    for (int i = 0; i < 64; i++) {
        volatile int sh = i;
        uint64_t v = 0x8123456789abcdefULL;
        h = mix(h, v << sh);
        h = mix(h, v >> sh);
        h = mix(h, (uint64_t)((int64_t)v >> sh));
        h = mix(h, (uint64_t)(int64_t)(int32_t)((uint32_t)v << (sh & 31)));
    }
    printf("shifts: %016llx\n", (unsigned long long)h);
    int less = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t p = (int64_t)rng(), q = (int64_t)rng();
        less += (p < q) + 2 * ((uint64_t)p < (uint64_t)q) + 4 * ((int32_t)p <= (int32_t)q);
    }
    printf("compares: %d\n", less);
    int64_t mulh = 0;
    for (int i = 0; i < 1000; i++)
        mulh = (int64_t)mix((uint64_t)mulh, (uint64_t)((int64_t)rng() * (int64_t)(int32_t)rng()));
    printf("mul: %016llx\n", (unsigned long long)mulh);
    return 0;
}
