/* Benchmark kernel: a tight integer loop of adds, xors, shifts and a multiply
 * with a counter, no memory traffic and no calls, so it measures the raw
 * dispatch speed of the interpreter. The iteration count is argv[1] (default
 * 500 million, about 4.5 billion Alpha instructions at -O2). Prints a checksum
 * so the work cannot be optimized away. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 500000000ul;
  unsigned long a = 0x9E3779B97F4A7C15ul, b = 12345, c = 0;
  for (unsigned long i = 0; i < n; i++) {
    a += b ^ i;
    b ^= a << 13;
    c += (a >> 7) ^ (b * 3);
  }
  printf("%016lx\n", a ^ b ^ c);
  return 0;
}
