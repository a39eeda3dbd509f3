/* Four independent chains of adds: enough parallelism for the four integer
 * pipes (HRM 2.1.1.6: two arbiters, two issues each per cycle), limited by
 * the 4-wide fetch and map: IPC near 4. */
#include <stdlib.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long a = 0, b = 0, c = 0, d = 0;
  for (long i = 0; i < n; i++)
    __asm__ volatile(
#define Q "addq %0,1,%0\n\taddq %1,1,%1\n\taddq %2,1,%2\n\taddq %3,1,%3\n\t"
#define Q4 Q Q Q Q
      Q4 Q4 Q4 Q4 : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
  return (int)((a + b + c + d) & 1);
}
