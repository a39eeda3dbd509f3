/* Many hot instructions of different kinds: a pseudo-random walk over a
 * table, with data-dependent branches (mispredicts, wrong paths), loads that
 * miss, stores and multiplies, so a profile has some hundred PCs worth
 * comparing with their exact counts (record --truth). */
#include <stdlib.h>
static unsigned long table[1 << 16];
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 100000;
  /* A second argument fills only that many entries (the rest read as 0), for
   * a short run: filling all of them is some 430 K instructions. */
  long fill = argc > 2 ? atol(argv[2]) : (long)(sizeof table / sizeof table[0]);
  if (fill < 0 || fill > (long)(sizeof table / sizeof table[0])) fill = (long)(sizeof table / sizeof table[0]);
  unsigned long x = 88172645463325252ul, s = 0;
  for (long i = 0; i < fill; i++) table[i] = i * 2654435761ul;
  for (long i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    unsigned long v = table[x & 0xFFFF];
    if (x & 1) s += v * 3;
    else s ^= v >> 3;
    if ((x >> 8 & 7) == 0) table[(x >> 20) & 0xFFFF] = s;
    if (x & 0x100) s = s * 0x9E3779B97F4A7C15ul + i;
    else if (x & 0x200) s -= v;
    else s += (v & 0xFF) * (i | 1);
    switch (x >> 33 & 3) {
    case 0: s += x >> 5; break;
    case 1: s ^= x << 3; break;
    case 2: s -= i; break;
    default: s = (s << 1) | (s >> 63); break;
    }
  }
  return (int)(s & 1);
}
