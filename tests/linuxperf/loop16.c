/* The series' 16-instruction loop: a body of exactly 16 instructions (14
 * independent adds, the count's subq and the bne back), run argv[1] times
 * (default 20000000). Skid-free sampling puts samples on every one of its
 * 16 PCs; ordinary overflow sampling on Alpha piles them onto a few. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static unsigned long loop16(unsigned long n)
{
  unsigned long a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0;
  __asm__ volatile(
    ".align 4\n"
    "1:\n\t"
    "addq %1, 1, %1\n\t" "addq %2, 2, %2\n\t" "addq %3, 3, %3\n\t" "addq %4, 4, %4\n\t"
    "addq %5, 5, %5\n\t" "addq %6, 6, %6\n\t" "addq %7, 7, %7\n\t"
    "addq %1, 1, %1\n\t" "addq %2, 2, %2\n\t" "addq %3, 3, %3\n\t" "addq %4, 4, %4\n\t"
    "addq %5, 5, %5\n\t" "addq %6, 6, %6\n\t" "addq %7, 7, %7\n\t"
    "subq %0, 1, %0\n\t"
    "bne %0, 1b\n\t"
    : "+r"(n), "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g));
  return a + b + c + d + e + f + g;
}
int main(int argc, char **argv)
{
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000;
  printf("%lu\n", loop16(n ? n : 1));
  return 0;
}
