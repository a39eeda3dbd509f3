/* A branch on random data (xorshift): no predictor can learn it, so it
 * mispredicts about half the time, each costing the HRM's 7-cycle penalty or
 * more. With argument 2 = "sorted" the same loop sees long runs and almost
 * never mispredicts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  int sorted = argc > 2 && !strcmp(argv[2], "sorted");
  uint64_t s = 0x9E3779B97F4A7C15ull;
  long hits = 0;
  for (long i = 0; i < n; i++) {
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    uint64_t bit = sorted ? (uint64_t)((i >> 12) & 1) : (s >> 32) & 1;
    if (bit) {
      __asm__ volatile("" ::: "memory");
      hits += 3;
    } else {
      __asm__ volatile("" ::: "memory");
      hits -= 1;
    }
  }
  return (int)(hits & 1);
}
