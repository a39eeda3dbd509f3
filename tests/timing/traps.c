/* Unaligned loads (a misaligned pointer cast compiles to a plain ldq, which
 * traps and is fixed up by the kernel) and DTB misses (one load per page over
 * 16 MB): the fates that carry those traps must be the trapping loads. */
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 100;
  static char buf[64] __attribute__((aligned(8)));
  memset(buf, 1, sizeof buf);
  volatile long *p = (volatile long *)(buf + (argc > 2 ? 5 : 3));   /* misaligned, opaque to GCC */
  long sum = 0;
  char *big = calloc(1, 16 << 20);
  for (long i = 0; i < n; i++) {
    sum += *p;
    sum += big[(size_t)(i % 2048) * 8192];
  }
  return (int)(sum & 1);
}
