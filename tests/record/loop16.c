/* A 16-instruction loop: 15 independent adds and the loop branch, aligned to
 * a fetch block. ProfileMe samples should land on all 16; Aggregate-mode
 * samples, taken where the interrupt is, on only a few. */
#include <stdlib.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 100000;
  long a = 0, b = 0, c = 0, d = 0, e = n;
  __asm__ volatile(
    ".align 6\n"
    "1:\n\t"
    "addq %0,1,%0\n\taddq %1,1,%1\n\taddq %2,1,%2\n\taddq %3,1,%3\n\t"
    "addq %0,1,%0\n\taddq %1,1,%1\n\taddq %2,1,%2\n\taddq %3,1,%3\n\t"
    "addq %0,1,%0\n\taddq %1,1,%1\n\taddq %2,1,%2\n\taddq %3,1,%3\n\t"
    "addq %0,1,%0\n\taddq %1,1,%1\n\tsubq %4,1,%4\n\t"
    "bne %4,1b\n"
    : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e));
  return (int)((a + b + c + d) & 1);
}
