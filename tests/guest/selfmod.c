/* Code that changes while it is hot: the functional core translates blocks
 * run often enough (guest/jit.h) and must drop them when their code changes.
 * Generated Alpha functions in an mmap'd page are called a few thousand
 * times each (long past the translation threshold), then: patched with a
 * store and imb, by C code and by generated code in another page; unmapped
 * and mapped again at the same address with other code, anonymous (with
 * imb) and from a file (without); made non-executable (SIGSEGV) and
 * executable again. (A function that patches
 * its own page is selfmod_page.c: qemu gets that wrong.) */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef long (*fn1)(long);

/* Alpha encodings (Alpha Architecture Handbook 3.3, 4). */
#define OPL(op, fn, ra, lit, rc) \
  ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(lit) << 13 | 1u << 12 | (uint32_t)(fn) << 5 | (rc))
#define MEM(op, ra, rb, d) ((uint32_t)(op) << 26 | (uint32_t)(ra) << 21 | (uint32_t)(rb) << 16 | ((uint32_t)(d) & 0xFFFF))
#define ADDQ_LIT(ra, lit, rc) OPL(0x10, 0x20, ra, lit, rc)
#define SUBQ_LIT(ra, lit, rc) OPL(0x10, 0x29, ra, lit, rc)
#define MULQ_LIT(ra, lit, rc) OPL(0x13, 0x20, ra, lit, rc)
#define STL(ra, rb, d) MEM(0x2C, ra, rb, d)
#define LDA(ra, rb, d) MEM(0x08, ra, rb, d)
#define RET 0x6BFA8001u            /* ret $31, ($26), 1 */
#define IMB 0x00000086u            /* call_pal imb */
#define V0 0
#define A0 16
#define A1 17

#define PAGE 8192

static void imb(void) { __asm__ volatile("call_pal 0x86" ::: "memory"); }

/* Calls f on every fourth pass only, so that this loop gets hot (and
 * translated) again before f does after each change. */
static long call_many(fn1 f, long n)
{
  long s = 0;
  for (long i = 0; i < n; i++) s += i & 3 ? i : f(i);
  return s;
}

static sigjmp_buf env;
static volatile sig_atomic_t faults;

static void on_segv(int sig)
{
  (void)sig;
  faults++;
  siglongjmp(env, 1);
}

int main(void)
{
  uint32_t *code = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) { perror("mmap"); return 1; }
  fn1 f = (fn1)(void *)code;

  /* 1. f(x) = x + 5, hot; then x * 3 after a store and imb. */
  code[0] = ADDQ_LIT(A0, 5, V0);
  code[1] = RET;
  imb();
  printf("add5: %ld\n", call_many(f, 3000));
  code[0] = MULQ_LIT(A0, 3, V0);
  imb();
  printf("mul3: %ld\n", call_many(f, 3000));
  /* Patched in the middle of a longer block, still hot. */
  code[0] = ADDQ_LIT(A0, 1, V0);
  code[1] = ADDQ_LIT(V0, 2, V0);
  code[2] = ADDQ_LIT(V0, 3, V0);
  code[3] = RET;
  imb();
  printf("add6: %ld\n", call_many(f, 3000));
  code[1] = SUBQ_LIT(V0, 2, V0);
  imb();
  printf("add2: %ld\n", call_many(f, 3000));

  /* 2. Generated code in the second page, called hot, patches f (in the
   * first page, hot too) with a store and imb; f runs the new code. */
  uint32_t *p = code + PAGE / 4;
  p[0] = STL(A1, A0, 0);          /* *(int *)a0 = a1 */
  p[1] = IMB;
  p[2] = RET;
  imb();
  void (*patch)(uint32_t *, long) = (void (*)(uint32_t *, long))(void *)p;
  code[0] = ADDQ_LIT(A0, 0, V0);
  code[1] = RET;
  imb();
  long s = 0;
  for (long i = 0; i < 2000; i++) {
    patch(code, (long)ADDQ_LIT(A0, (i % 7) * 10, V0));
    s += f(i);
  }
  printf("patched by generated code: %ld, last word %08x\n", s, code[0]);

  /* 3. The page unmapped and mapped again with other code at the same
   * address, after the old code was hot. */
  code[0] = LDA(V0, A0, 100);     /* v0 = x + 100 */
  code[1] = RET;
  imb();
  printf("lda100: %ld\n", call_many(f, 3000));
  if (munmap(code, PAGE) != 0) { perror("munmap"); return 1; }
  uint32_t *again = mmap(code, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (again != code) { perror("mmap fixed"); return 1; }
  code[0] = LDA(V0, A0, -7);      /* v0 = x - 7 */
  code[1] = RET;
  imb();
  printf("lda-7: %ld\n", call_many(f, 3000));
  /* The same address mapped from a file with other code, and no imb (the
   * kernel keeps a new mapping coherent), while the caller stays hot. */
  static const uint32_t file_code[2] = { LDA(V0, A0, 1000), RET };
  FILE *cf = fopen("code.bin", "w+");
  if (!cf || fwrite(file_code, sizeof file_code, 1, cf) != 1 || fflush(cf) != 0) { perror("code.bin"); return 1; }
  if (mmap(code, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fileno(cf), 0) != code) {
    perror("mmap file");
    return 1;
  }
  printf("file lda1000: %ld\n", call_many(f, 3000));
  fclose(cf);
  unlink("code.bin");

  /* 4. Not executable any more: SIGSEGV (from the hot loop); executable
   * again: runs. */
  signal(SIGSEGV, on_segv);
  if (mprotect(code, PAGE, PROT_READ) != 0) { perror("mprotect"); return 1; }
  if (sigsetjmp(env, 1) == 0) {
    long r = call_many(f, 3000);
    printf("no fault: %ld\n", r);
  }
  printf("faults: %d\n", (int)faults);
  if (mprotect(code, PAGE, PROT_READ | PROT_EXEC) != 0) { perror("mprotect"); return 1; }
  printf("exec again, from file: %ld\n", call_many(f, 3000));
  /* Anonymous and executable again, with new code written and imb. */
  if (mmap(code, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
           -1, 0) != code) { perror("mmap"); return 1; }
  code[0] = LDA(V0, A0, -7);
  code[1] = RET;
  imb();
  printf("exec again: %ld\n", call_many(f, 3000));
  return 0;
}
