/* One load per 8 KB page over 64 MB (8192 pages, far more than the 128-entry
 * DTB, HRM 2.1.6.4): nearly every load misses the DTB. */
#include <stdlib.h>
#define MB (64ul << 20)
#define PAGE 8192
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  volatile char *buf = calloc(1, MB);
  if (!buf) return 1;
  long sum = 0;
  for (long i = 0; i < n; i++)
    sum += buf[(size_t)(i % (MB / PAGE)) * PAGE];
  return (int)(sum & 1);
}
