/* A chain of dependent adds: each addq needs the previous result, so the 21264
 * issues one per cycle (iadd latency 1, HRM Table 2-4): IPC near 1. */
#include <stdlib.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long x = 0;
  for (long i = 0; i < n; i++)
    __asm__ volatile(
#define A "addq %0,1,%0\n\t"
#define A8 A A A A A A A A
      A8 A8 A8 A8 A8 A8 A8 A8 : "+r"(x));
  return (int)(x & 1);
}
