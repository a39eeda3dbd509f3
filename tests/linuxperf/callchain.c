/* Four frames deep, outer -> middle -> leaf called from main, the time in
 * leaf: what perf record --call-graph dwarf must bring back whole (built
 * -O0 -g so that every frame stays). argv[1]: iterations of leaf's loop. */
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static long leaf(long n)
{
  volatile long s = 0;
  for (long i = 0; i < n; i++) s += i;
  return s;
}
__attribute__((noinline)) static long middle(long n) { return leaf(n) + 1; }
__attribute__((noinline)) static long outer(long n) { return middle(n) + 1; }
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 3000000;
  printf("%ld\n", outer(n));
  return 0;
}
