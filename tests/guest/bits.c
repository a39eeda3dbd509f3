/* Bit operations: popcount, count leading/trailing zeros, byte swaps,
 * rotates, parity, byte extraction/insertion and sign extension (with
 * -mcpu=ev67 these become ctpop/ctlz/cttz; with ev56 sextb/sextw). */
//@ isa
#include <stdint.h>
#include <stdio.h>
#include <strings.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

/* Returns the next value of a 64-bit xorshift generator. */
static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* Returns v with its bits in reverse order, by the shift-and-mask method. */
static uint64_t bitrev(uint64_t v)
{
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    return __builtin_bswap64(v);
}

/* Returns the population count by a loop, to check the builtin against. */
static int slow_popcount(uint64_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Returns v rotated left by n (0..63). */
static uint64_t rotl(uint64_t v, unsigned n)
{
    return (v << (n & 63)) | (v >> ((64 - n) & 63));
}

int main(void)
{
    static const uint64_t vals[] = {
        0, 1, 2, 3, 0x80, 0xff, 0x100, 0x8000000000000000ULL, 0xffffffffffffffffULL,
        0x00000000ffffffffULL, 0xffffffff00000000ULL, 0x0123456789abcdefULL,
        0x5555555555555555ULL, 0x0000000100000000ULL, 0x0000800000000000ULL,
    };
    for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        volatile uint64_t v = vals[i];
        printf("%016llx pop=%d clz=%d ctz=%d par=%d ffs=%d bswap=%016llx rev=%016llx\n",
               (unsigned long long)v, __builtin_popcountll(v), v ? __builtin_clzll(v) : -1,
               v ? __builtin_ctzll(v) : -1, __builtin_parityll(v), ffsll((long long)v),
               (unsigned long long)__builtin_bswap64(v), (unsigned long long)bitrev(v));
    }
    volatile uint32_t w = 0x80000001u;
    printf("32: pop=%d clz=%d ctz=%d bswap32=%08x bswap16=%04x\n", __builtin_popcount(w),
           __builtin_clz(w >> 4), __builtin_ctz(w & ~1u), __builtin_bswap32(w),
           __builtin_bswap16((uint16_t)(w + 0x1233)));
    uint64_t h = 0;
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t v = rng() >> (i % 64);
        int p = __builtin_popcountll(v);
        if (p != slow_popcount(v))
            bad++;
        h = h * 31 + (uint64_t)p;
        h = h * 31 + (uint64_t)(v ? __builtin_clzll(v) : 64);
        h = h * 31 + (uint64_t)(v ? __builtin_ctzll(v) : 64);
        h ^= rotl(v, (unsigned)i);
        h += bitrev(v) ^ __builtin_bswap64(h);
    }
    printf("random: %016llx mismatches=%d\n", (unsigned long long)h, bad);

    /* Bytes and sub-words: sign extension, extraction, insertion, masking. */
    volatile uint64_t q = 0x89abcdef01234567ULL;
    for (int k = 0; k < 8; k++) {
        int8_t sb = (int8_t)(q >> (8 * k));
        int16_t sw = (int16_t)(q >> (8 * k));
        int32_t sl = (int32_t)(q >> (8 * k));
        uint64_t zap = q & ~(0xffULL << (8 * k));
        uint64_t ins = zap | ((uint64_t)(uint8_t)(k * 0x11) << (8 * k));
        printf("byte%d: sb=%d sw=%d sl=%d ins=%016llx\n", k, sb, sw, sl, (unsigned long long)ins);
    }
    unsigned char bytes[16];
    for (int k = 0; k < 16; k++)
        bytes[k] = (unsigned char)(0xf0 + k * 7);
    int sum = 0;
    for (int k = 0; k < 16; k++)
        sum += (signed char)bytes[k] * (k + 1);
    printf("signed-byte sum=%d\n", sum);
    uint16_t hw[8];
    for (int k = 0; k < 8; k++)
        hw[k] = (uint16_t)(0x8000 + k * 0x1111);
    long hs = 0;
    for (int k = 0; k < 8; k++)
        hs += (int16_t)hw[k] * (k + 1);
    printf("signed-half sum=%ld\n", hs);
    /* Byte-wise compare/min/max (the kind of thing cmpbge and MVI do). */
    unsigned char a8[8] = {1, 200, 3, 255, 0, 128, 127, 64}, b8[8] = {2, 100, 3, 0, 0, 129, 126, 65};
    for (int k = 0; k < 8; k++)
        printf("%d%s", a8[k] < b8[k] ? b8[k] - a8[k] : a8[k] - b8[k], k == 7 ? "\n" : ",");
    return 0;
}
