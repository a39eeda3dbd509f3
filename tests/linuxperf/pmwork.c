/* A workload for the ProfileMe statuses the perf-tools series decodes
 * (tests/scripts/linux_perf_series.sh): loads and stores that miss the DTB
 * (a stride of three 8 KB pages over 4 MB, beyond the DTB's 1 MB reach), a
 * data-dependent branch that mispredicts about half the time, misaligned
 * quadword loads that trap and are fixed up by the kernel, and a plain
 * arithmetic loop, each in its own function so that the sums by symbol
 * tell them apart. argv[1]: rounds (default 40). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGES 512
#define PAGE 8192

static unsigned char *mem;

__attribute__((noinline)) static long pages(long rounds)
{
  long s = 0;
  for (long r = 0; r < rounds; r++)
    for (long p = 0; p < PAGES; p += 3) {
      long *q = (long *)(mem + p * PAGE + (r & 7) * 8);
      s += *q;
      *q = s;
    }
  return s;
}

__attribute__((noinline)) static long branches(long rounds)
{
  unsigned long x = 12345;
  long s = 0;
  for (long i = 0; i < rounds * 400; i++) {
    x = x * 6364136223846793005ul + 1442695040888963407ul;
    if ((x >> 33) & 1) s += i;
    else s -= 3;
  }
  return s;
}

__attribute__((noinline)) static long unaligned(long rounds)
{
  long s = 0;
  for (long i = 0; i < rounds * 8; i++) {
    volatile long *q = (volatile long *)(mem + 8 * (i & 63) + 3);
    s += *q;
  }
  return s;
}

__attribute__((noinline)) static long arith(long rounds)
{
  long a = 1, b = 2, c = 3;
  for (long i = 0; i < rounds * 500; i++) {
    a += b ^ i;
    b += c >> 1;
    c += a & 7;
  }
  return a + b + c;
}

int main(int argc, char **argv)
{
  long rounds = argc > 1 ? atol(argv[1]) : 40;
  mem = malloc((size_t)PAGES * PAGE);
  if (!mem) return 1;
  memset(mem, 1, (size_t)PAGES * PAGE);
  long s = pages(rounds) + branches(rounds) + unaligned(rounds) + arith(rounds);
  printf("%ld\n", s & 0xffff);
  return 0;
}
