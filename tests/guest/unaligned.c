/* Unaligned data: packed structs (GCC emits ldq_u/extql/insql/mskql
 * sequences), and deliberately misaligned pointer casts that make plain
 * ldl/ldq/stl/stq/ldt/stt/lds/sts/ldwu/stw trap and be fixed up by the
 * kernel; every offset 0..7 for every width, loads and stores, checked
 * against byte-wise values. Without BWX (the default -mcpu), 16-bit accesses
 * are ldq_u/extwl and ldq_u/inswl/mskwl/stq_u sequences that never trap, so a
 * halfword straddling a quadword boundary loses its high byte, as on EV4/EV5
 * hardware: the default build reports 2 load and 1 store mismatches, the
 * ev56/ev67 builds (ldwu/stw, fixed up by the kernel) none. */
//@ isa
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct __attribute__((packed)) packed {
    char c;
    uint64_t q;
    uint16_t h;
    uint32_t l;
    double d;
    float f;
    int16_t sh;
    int32_t sl;
};

static unsigned char buf[64] __attribute__((aligned(16)));

/* Returns the little-endian value of n bytes at p, assembled byte by byte. */
static uint64_t bytes_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* The accessors are noinline so the compiler cannot see the misalignment
 * and must use the naturally aligned instructions. */
__attribute__((noinline)) static uint64_t load64(const void *p) { return *(const volatile uint64_t *)p; }
__attribute__((noinline)) static uint32_t load32(const void *p) { return *(const volatile uint32_t *)p; }
__attribute__((noinline)) static int32_t loads32(const void *p) { return *(const volatile int32_t *)p; }
__attribute__((noinline)) static uint16_t load16(const void *p) { return *(const volatile uint16_t *)p; }
__attribute__((noinline)) static int16_t loads16(const void *p) { return *(const volatile int16_t *)p; }
__attribute__((noinline)) static double loadd(const void *p) { return *(const volatile double *)p; }
__attribute__((noinline)) static float loadf(const void *p) { return *(const volatile float *)p; }
__attribute__((noinline)) static void store64(void *p, uint64_t v) { *(volatile uint64_t *)p = v; }
__attribute__((noinline)) static void store32(void *p, uint32_t v) { *(volatile uint32_t *)p = v; }
__attribute__((noinline)) static void store16(void *p, uint16_t v) { *(volatile uint16_t *)p = v; }
__attribute__((noinline)) static void stored(void *p, double v) { *(volatile double *)p = v; }
__attribute__((noinline)) static void storef(void *p, float v) { *(volatile float *)p = v; }

int main(void)
{
    for (int i = 0; i < 64; i++)
        buf[i] = (unsigned char)(0x11 * (i % 15) + i);

    int bad = 0;
    for (int off = 0; off < 8; off++) {
        unsigned char *p = buf + 8 + off;
        bad += load64(p) != bytes_le(p, 8);
        bad += load32(p) != bytes_le(p, 4);
        bad += (int64_t)loads32(p) != (int64_t)(int32_t)bytes_le(p, 4);
        bad += load16(p) != bytes_le(p, 2);
        bad += (int64_t)loads16(p) != (int64_t)(int16_t)bytes_le(p, 2);
        printf("off %d: q=%016llx l=%08x sl=%d w=%04x sw=%d\n", off, (unsigned long long)load64(p),
               load32(p), loads32(p), load16(p), loads16(p));
    }
    printf("load mismatches: %d\n", bad);

    /* Stores at every offset must change exactly the bytes they cover. */
    bad = 0;
    for (int off = 0; off < 8; off++) {
        unsigned char before[64];
        memcpy(before, buf, 64);
        unsigned char *p = buf + 16 + off;
        store64(p, 0x0102030405060708ULL);
        store32(p + 9, 0xa1b2c3d4u);
        store16(p + 14, 0xbeefu);
        for (int i = 0; i < 64; i++) {
            int k = i - (16 + off);
            unsigned char want = before[i];
            if (k >= 0 && k < 8)
                want = (unsigned char)(0x08 - k);
            else if (k >= 9 && k < 13)
                want = (unsigned char)(0xd4c3b2a1u >> (8 * (3 - (k - 9))) & 0xff);
            else if (k >= 14 && k < 16)
                want = k == 14 ? 0xef : 0xbe;
            if (buf[i] != want)
                bad++;
        }
    }
    printf("store mismatches: %d\n", bad);

    /* Floating-point loads and stores through misaligned addresses. */
    double dsum = 0;
    float fsum = 0;
    for (int off = 0; off < 8; off++) {
        unsigned char *p = buf + 32 + off;
        stored(p, 1.5 + off);
        dsum += loadd(p);
        storef(p + 1, 0.25f * (float)off);
        fsum += loadf(p + 1);
    }
    printf("fp through misaligned: dsum=%g fsum=%g\n", dsum, (double)fsum);
    double d = 3.0;
    memcpy(buf + 3, &d, 8);
    printf("double at +3 = %g, bits %016llx\n", loadd(buf + 3), (unsigned long long)load64(buf + 3));

    /* Packed structs: the compiler knows these are misaligned. */
    struct packed arr[5];
    memset(arr, 0, sizeof arr);
    for (int i = 0; i < 5; i++) {
        arr[i].c = (char)('a' + i);
        arr[i].q = 0x1122334455667788ULL * (uint64_t)(i + 1);
        arr[i].h = (uint16_t)(0xf00d + i);
        arr[i].l = 0xdeadbeefu ^ (uint32_t)i;
        arr[i].d = i * 0.1;
        arr[i].f = (float)i * 2.5f;
        arr[i].sh = (int16_t)(-1000 * i);
        arr[i].sl = -100000 * i;
    }
    uint64_t h = 0;
    double fs = 0;
    for (int i = 0; i < 5; i++) {
        h = h * 31 + arr[i].q + arr[i].h + arr[i].l + (uint64_t)(int64_t)arr[i].sh + (uint64_t)(int64_t)arr[i].sl;
        fs += arr[i].d + arr[i].f;
    }
    printf("packed: sizeof=%zu hash=%016llx fsum=%.17g c4=%c\n", sizeof(struct packed),
           (unsigned long long)h, fs, arr[4].c);
    unsigned char raw[sizeof arr];
    memcpy(raw, arr, sizeof arr);
    printf("packed q[3] from raw bytes: %016llx\n",
           (unsigned long long)bytes_le(raw + 3 * sizeof(struct packed) + 1, 8));

    /* Misaligned arrays in a loop, as a sloppy program would do. */
    uint32_t *wp = (uint32_t *)(void *)(buf + 1);
    uint64_t total = 0;
    for (int i = 0; i < 12; i++)
        total += load32(&wp[i]);
    printf("misaligned array sum=%llu\n", (unsigned long long)total);
    return 0;
}
