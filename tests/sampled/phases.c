/* A workload for sampled simulation's tests (tests/scripts/sampled.sh):
 * four functions of very different cycles per instruction, run in
 * interleaved phases of different lengths, so that a sampled estimate is
 * wrong if the units miss phases or carry one phase's rates into another:
 * chase (a dependent walk over 8 MB: B-cache misses), branchy (a branch on
 * pseudo-random bits: mispredicts), adds (independent adds: near 4 IPC) and
 * stores (stores and reloads of a small buffer: store-load replays).
 * Usage: phases ROUNDS (default 4); prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#define CHASE_WORDS (1u << 20)   /* 8 MB of indices: twice the B-cache */

static uint64_t *next_idx;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t xorshift(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

__attribute__((noinline)) static uint64_t chase(unsigned n)
{
  uint64_t i = 0, sum = 0;
  for (unsigned k = 0; k < n; k++) {
    i = next_idx[i];
    sum += i;
  }
  return sum;
}

__attribute__((noinline)) static uint64_t branchy(unsigned n)
{
  uint64_t a = 0, b = 0;
  for (unsigned k = 0; k < n; k++) {
    if (xorshift() & 1) a += k;
    else b ^= k;
  }
  return a + b;
}

__attribute__((noinline)) static uint64_t adds(unsigned n)
{
  uint64_t a = 1, b = 2, c = 3, d = 4;
  for (unsigned k = 0; k < n; k++) {
    a += k; b += a; c += k ^ 5; d += c;
    a += 3; b += 7; c += 11; d += 13;
  }
  return a ^ b ^ c ^ d;
}

__attribute__((noinline)) static uint64_t stores(unsigned n)
{
  static volatile uint32_t buf[64];
  uint64_t s = 0;
  for (unsigned k = 0; k < n; k++) {
    buf[k & 63] = k;
    s += buf[(k * 7) & 63];
  }
  return s;
}

int main(int argc, char **argv)
{
  unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
  next_idx = malloc(CHASE_WORDS * sizeof *next_idx);
  if (!next_idx) return 1;
  /* One cycle over all the words with an odd stride of about 5 MB: each
   * step lands on a line far from the last (cheap to build: no shuffle). */
  for (uint32_t k = 0; k < CHASE_WORDS; k++) next_idx[k] = (k + 0x9E377u) & (CHASE_WORDS - 1);
  uint64_t sum = 0;
  for (unsigned r = 0; r < rounds; r++) {
    sum += chase(60000);
    sum += branchy(150000);
    sum += adds(120000);
    sum += stores(100000);
  }
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
