/* Loads of two latencies, for mem record --ldlat: every iteration loads from a
 * 4 KB table the Dcache holds, every eighth also from a 32 MB buffer a page
 * apart (a DTB and B-cache miss each). */
#include <stdlib.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 100000;
  static volatile long small[512];
  volatile char *big = calloc(1, 32ul << 20);
  if (!big) return 1;
  long sum = 0;
  for (long i = 0; i < n; i++) {
    sum += small[i & 511];
    if ((i & 7) == 0) sum += big[(size_t)(i >> 3) % 4096 * 8192];
  }
  return (int)(sum & 1);
}
