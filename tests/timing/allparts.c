/* A little of everything the timing model times, so that changing any one
 * --uarch parameter changes the cycle count (tests/scripts/uarch.sh checks
 * that every parameter offered is honoured): integer adds, shifts,
 * multiplies, CIX counts and cmov; FP add, multiply, divide and square root
 * in both formats, and transfers between the register files; loads and
 * stores that hit, miss the Dcache, the Bcache and the DTB over 8 MB; a
 * store followed by a load of the same address whose address comes late
 * (store-load order replays); unaligned loads (the kernel's fix-up);
 * branches on random data (mispredicts and wrong paths); indirect calls
 * whose target changes, and recursion 24 deep (the return stack). */
#include <stdint.h>
#include <stdlib.h>

typedef long (*fn)(long);
static long f0(long x) { return x + 1; }
static long f1(long x) { return x ^ 5; }
static long f2(long x) { return x * 3; }
static fn fns[3] = { f0, f1, f2 };

static long __attribute__((noinline)) deep(long d)
{
  if (!d) return 1;
  long r = deep(d - 1);
  __asm__ volatile("" : "+r"(r));   /* no tail call: every level returns */
  return r + d;
}

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 200;
  size_t big = 8ul << 20;
  char *mem = malloc(big);
  static char buf[64] __attribute__((aligned(8)));
  volatile long *una = (volatile long *)(buf + (argc > 2 ? 5 : 3));   /* misaligned, opaque to GCC */
  volatile long slot[8];
  if (!mem) return 1;
  uint64_t s = 88172645463325252ull, sum = 0;
  double x = 1.5, y = 2.25;
  float xf = 1.5f;
  for (long i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    if (s & 1) sum += s >> 3; else sum ^= s << 2;                 /* random branch */
    sum += (s * 0x9E3779B97F4A7C15ull) >> 17;                      /* multiply, shift */
    uint64_t c;
    __asm__(".arch ev67\n\tctpop %1,%0" : "=r"(c) : "r"(s));         /* CIX */
    sum += c;
    x = x * 1.0001 + y / (x + 1.0);                                /* FP mul, add, divide */
    double yy = y + 1.0;
    __asm__(".arch ev67\n\tsqrtt %1,%0" : "=f"(y) : "f"(yy));         /* FIX square roots */
    float xx = xf + 1.0f, r;
    __asm__(".arch ev67\n\tsqrts %1,%0" : "=f"(r) : "f"(xx));
    xf = r / (xf + 2.0f);                                          /* divs */
    double d;
    __asm__(".arch ev67\n\titoft %1,%0" : "=f"(d) : "r"(sum));       /* int -> FP */
    uint64_t back;
    __asm__(".arch ev67\n\tftoit %1,%0" : "=r"(back) : "f"(d + y));  /* FP -> int */
    sum += back & 1;
    for (int k = 0; k < 16; k++) sum += (uint64_t)mem[((s >> 9) + (size_t)k * 4160) % big];   /* misses, DTB */
    slot[(s >> 20) & 7] = (long)sum;                               /* a store, then a load */
    sum += (uint64_t)slot[(sum >> 5) & 7];                         /* whose address comes late */
    sum += (uint64_t)*una;                                          /* unaligned: the fix-up */
    sum = (uint64_t)fns[s % 3]((long)sum);                         /* indirect call */
    if ((i & 15) == 0) sum += (uint64_t)deep(24);                  /* returns 24 deep */
    sum = sum > (uint64_t)i ? sum - (uint64_t)i : sum + 7;         /* cmov */
  }
  return (int)((sum + (uint64_t)x + (uint64_t)y + (uint64_t)xf) & 1);
}
