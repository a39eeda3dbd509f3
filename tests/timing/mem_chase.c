/* A pointer chase over 16 MB, four times the 4 MB B-cache: each 8 KB page's
 * 128 lines are visited in a shuffled order, page after page, so every load
 * misses to memory while the DTB misses only once per 128 loads. Expect one
 * load per memory latency (B-cache latency + memory latency in the config). */
#include <stdint.h>
#include <stdlib.h>
#define MB (16ul << 20)
#define LINE 64
#define PAGE 8192
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  char *buf = aligned_alloc(PAGE, MB);
  if (!buf) return 1;
  size_t lines = MB / LINE, per = PAGE / LINE;
  uint32_t *order = malloc(lines * sizeof *order);
  uint64_t s = 88172645463325252ull;
  for (size_t pg = 0; pg < MB / PAGE; pg++) {
    uint32_t *o = order + pg * per;
    for (size_t k = 0; k < per; k++) o[k] = (uint32_t)(pg * per + k);
    for (size_t k = per - 1; k > 0; k--) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      size_t j = s % (k + 1);
      uint32_t t = o[k]; o[k] = o[j]; o[j] = t;
    }
  }
  for (size_t k = 0; k < lines; k++)
    *(void **)(buf + (size_t)order[k] * LINE) = buf + (size_t)order[(k + 1) % lines] * LINE;
  void *p = buf + (size_t)order[0] * LINE;
  for (long i = 0; i < n; i++)
    __asm__ volatile("ldq %0,0(%0)\n\tldq %0,0(%0)\n\tldq %0,0(%0)\n\tldq %0,0(%0)" : "+r"(p));
  return p == 0;
}
