/* The workload of tests/scripts/diff_callgrind.sh: a call tree with a hot
 * loop per function, a recursion, and each loop's trip count from the
 * command line (argv[1] scales sum_loop, argv[2] mix_loop), so that two
 * runs differ by known amounts. Built -O1 -g: one source line per
 * statement, for the per-line checks. */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) long sum_loop(long n)
{
  long s = 0;
  for (long i = 0; i < n; i++)
    s += i * 3;
  return s;
}

__attribute__((noinline)) long mix_loop(long n)
{
  long s = 1;
  for (long i = 0; i < n; i++) {
    s ^= s * 7 + i;
    s += i >> 2;
  }
  return s;
}

/* depth levels of recursion, each running sum_loop: a function found
 * several times on one call chain */
__attribute__((noinline)) long recurse(int depth, long n)
{
  if (depth == 0)
    return sum_loop(n);
  return recurse(depth - 1, n) + depth;
}

__attribute__((noinline)) long driver(long a, long b)
{
  long s = sum_loop(a);
  s += mix_loop(b);
  s += recurse(3, a / 4);
  return s;
}

int main(int argc, char **argv)
{
  long a = argc > 1 ? atol(argv[1]) : 100000;
  long b = argc > 2 ? atol(argv[2]) : 100000;
  sink = driver(a, b);
  return 0;
}
