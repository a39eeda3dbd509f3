/* A load-use chain: each ldq loads the address of the next (a pointer to
 * itself), so loads cannot overlap: one per L1 load-to-use latency, 3 cycles
 * (HRM Table 2-4). */
#include <stdlib.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  static void *cell[8] __attribute__((aligned(64)));
  cell[0] = &cell[0];
  void *p = cell[0];
  for (long i = 0; i < n; i++)
    __asm__ volatile(
#define L "ldq %0,0(%0)\n\t"
#define L8 L L L L L L L L
      L8 L8 L8 L8 : "+r"(p));
  return p == 0;
}
