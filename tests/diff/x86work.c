/* The host-side workload of tests/scripts/diff_callgrind.sh: recorded by
 * Linux perf on x86-64 twice with different trip counts, so that perf diff
 * and profileme diff compare perf's own files. No library call in the
 * loops: their samples land on our symbols. */
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) long sum_loop(long n)
{
  long s = 0;
  for (long i = 0; i < n; i++)
    s += i * 3 + (s >> 7);
  return s;
}

__attribute__((noinline)) long mix_loop(long n)
{
  long s = 1;
  for (long i = 0; i < n; i++)
    s ^= s * 7 + i;
  return s;
}

int main(int argc, char **argv)
{
  long a = argc > 1 ? atol(argv[1]) : 1000000, b = argc > 2 ? atol(argv[2]) : 1000000;
  for (int r = 0; r < 20; r++) sink += sum_loop(a) + mix_loop(b);
  return 0;
}
