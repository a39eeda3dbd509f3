/* A hot function that patches its own page: g(x, w) stores the instruction
 * word w a few instructions ahead of itself, runs imb, branches, and returns
 * x plus the literal of the instruction it just wrote. Called 4000 times
 * with a new literal each time (long past the translation threshold of the
 * functional core, guest/jit.h), the sum must be that of the new literals.
 * qemu 7.2 gets this wrong: its self-modifying-code detection on Alpha is
 * not precise, and each call runs the word the previous call wrote (the sum
 * comes out 20 short), so NAME.expected, the architectural answer the
 * program also computes, replaces the oracle. */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

/* Alpha encodings (Alpha Architecture Handbook 3.3, 4). */
#define OPL(op, fn, ra, lit, rc) \
  ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(lit) << 13 | 1u << 12 | (uint32_t)(fn) << 5 | (rc))
#define OPR(op, fn, ra, rb, rc) \
  ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(rb) << 16 | (uint32_t)(fn) << 5 | (rc))
#define MEM(op, ra, rb, d) ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(rb) << 16 | ((uint32_t)(d) & 0xFFFF))
#define ADDQ_LIT(ra, lit, rc) OPL(0x10, 0x20, ra, lit, rc)
#define ADDQ(ra, rb, rc) OPR(0x10, 0x20, ra, rb, rc)
#define STL(ra, rb, d) MEM(0x2C, ra, rb, d)
#define RET 0x6BFA8001u            /* ret $31, ($26), 1 */
#define IMB 0x00000086u            /* call_pal imb */
#define BR_NEXT 0xC3E00000u        /* br $31, .+4 */
#define V0 0
#define A0 16
#define A1 17
#define PV 27
#define ZERO 31

int main(void)
{
  uint32_t *g = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (g == MAP_FAILED) { perror("mmap"); return 1; }
  g[0] = STL(A1, PV, 16);         /* g[4] = a1 (gcc calls through $27 = g) */
  g[1] = IMB;
  g[2] = BR_NEXT;
  g[3] = ADDQ(A0, ZERO, V0);      /* v0 = x */
  g[4] = ADDQ_LIT(V0, 0, V0);     /* replaced by each call */
  g[5] = RET;
  __asm__ volatile("call_pal 0x86" ::: "memory");
  long (*volatile call)(long, long) = (long (*)(long, long))(void *)g;
  long s = 0, want = 0, wrong = 0;
  for (long i = 0; i < 4000; i++) {
    long lit = (i % 7) * 10;
    long r = call(i, (long)ADDQ_LIT(V0, lit, V0));
    s += r;
    want += i + lit;
    wrong += r != i + lit;
  }
  printf("self-patch: %ld, expected %ld, %ld calls ran an old word, last word %08x\n",
         s, want, wrong, g[4]);
  return 0;
}
