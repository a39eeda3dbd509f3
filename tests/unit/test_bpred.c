/* The 21264 branch-prediction front end against analytical answers: biased,
 * alternating, loop, correlated, random and sorted-data branch patterns; the
 * return stack at and past its depth; indirect jumps; BR/BSR; stWait clearing.
 * Measured rates are printed as "# ..." lines. */
#include <time.h>
#include "check.h"
#include "uarch/bpred.h"

static const struct ev67_config *cfg = &ev67_default_config;

/* Seeded xorshift64: the next pseudo-random word. */
static uint64_t rng(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static const struct axp_insn BNE = { .id = AXP_BNE, .imm = -64 };
static const struct axp_insn FBEQ = { .id = AXP_FBEQ, .imm = 256 };

static int consistent = 1;  /* predict and update agreed on every miss so far */

/* Runs one conditional branch d at pc with outcome taken; returns 1 on a miss. */
static int cond_d(struct bpred *bp, uint64_t pc, const struct axp_insn *d, bool taken)
{
  bool ptaken = false;
  uint64_t ptarget = 0, target = pc + 4 + (uint64_t)(int64_t)d->imm;
  bpred_predict(bp, pc, d, &ptaken, &ptarget);
  if (ptarget != (ptaken ? target : pc + 4))
    consistent = 0;
  bool miss = bpred_update(bp, pc, d, taken, taken ? target : pc + 4);
  if (miss != (ptaken != taken))
    consistent = 0;
  return miss;
}

/* A BNE at pc: returns 1 on a miss. */
static int cond(struct bpred *bp, uint64_t pc, bool taken)
{
  return cond_d(bp, pc, &BNE, taken);
}

/* Runs a control transfer d at pc that goes to next; returns 1 on a miss. */
static int xfer(struct bpred *bp, uint64_t pc, enum axp_id id, uint64_t next)
{
  struct axp_insn d = { .id = (uint16_t)id, .imm = (int32_t)(next - pc - 4) };
  bool ptaken = false;
  uint64_t ptarget = 0;
  bpred_predict(bp, pc, &d, &ptaken, &ptarget);
  bool miss = bpred_update(bp, pc, &d, true, next);
  if (miss != (ptarget != next) || !ptaken)
    consistent = 0;
  return miss;
}

static void test_biased(void)
{
  struct bpred *bp = bpred_create(cfg);
  int warm = 0, late = 0, nt = 0;
  for (int i = 0; i < 1000; i++)
    *(i < 100 ? &warm : &late) += cond(bp, 0x1000, true);
  for (int i = 0; i < 1000; i++)
    nt += cond(bp, 0x2040, false);
  printf("# always taken: %d misses in the first 100, %d in the next 900; "
         "always not taken: %d of 1000\n", warm, late, nt);
  CHECK(warm <= 2, "always-taken branch: at most 2 misses while warming up");
  CHECK_EQ_U64(late, 0, "always-taken branch: no misses after warm-up");
  CHECK(nt <= 3, "always-not-taken branch: at most 3 misses");
  bpred_destroy(bp);
}

/* Runs a loop branch with the period-n pattern (n - 1 taken, 1 not taken) for
 * iters iterations, each preceded by a noise branch (random when noisy, else
 * always taken) at a PC whose local-history entry differs; returns the loop
 * branch's misses over the last quarter. With random noise the global history
 * is useless to the loop branch and the local counters (indexed by history
 * alone, shared by all branches) take random training: a small residue stays. */
static int loop_misses(unsigned n, int iters, bool noisy)
{
  struct bpred *bp = bpred_create(cfg);
  uint64_t s = 0x9E3779B97F4A7C15ull + n;
  int late = 0;
  for (int i = 0; i < iters; i++) {
    cond(bp, 0x1040, noisy ? rng(&s) & 1 : true);
    int m = cond(bp, 0x1000, (unsigned)i % n != n - 1);
    if (i >= iters - iters / 4)
      late += m;
  }
  bpred_destroy(bp);
  return late;
}

static void test_alternating(void)
{
  int quiet = loop_misses(2, 4000, false);
  printf("# alternating T/N: %d misses in the last 1000\n", quiet);
  CHECK_EQ_U64(quiet, 0, "alternating T/N learned");
  int noisy = loop_misses(2, 40000, true);
  printf("# alternating T/N behind a random branch: %d misses in the last 10000\n", noisy);
  CHECK(noisy <= 100, "alternating T/N learned by the local predictor under global noise (<1%%)");
}

static void test_loops(void)
{
  for (unsigned n = 3; n <= 10; n++) {
    int q = loop_misses(n, 400 * (int)n, false);
    int z = loop_misses(n, 4000 * (int)n, true);
    printf("# period-%u loop: %d misses in the last %u; behind a random branch %d in the last %u\n",
           n, q, 100 * n, z, 1000 * n);
    CHECK_EQ_U64(q, 0, "period-%u loop branch learned", n);
    CHECK(z * 100 <= 1000 * (int)n, "period-%u loop branch behind a random branch: <1%% misses", n);
  }
}

/* B is the opposite of the random branch A just before it. B's own history is
 * random, so only the global predictor can learn it. The global index is the
 * path history alone, so the 2 of 64 history patterns B shares with A keep
 * taking A's random training: a residue of a few tenths of a percent. */
static void test_correlated(void)
{
  struct bpred *bp = bpred_create(cfg);
  uint64_t s = 12345;
  int a_miss = 0, b_miss = 0, b_late = 0;
  const int iters = 40000;
  for (int i = 0; i < iters; i++) {
    bool a = rng(&s) & 1;
    a_miss += cond(bp, 0x3000, a);
    int m = cond(bp, 0x3100, !a);
    b_miss += m;
    if (i >= iters - 10000)
      b_late += m;
  }
  printf("# correlated: random A misses %.1f%%; B = !A misses %.2f%% overall, %d in the last 10000\n",
         100.0 * a_miss / iters, 100.0 * b_miss / iters, b_late);
  CHECK(b_late <= 100, "branch correlated with the previous one learned by the global predictor (<1%%)");
  bpred_destroy(bp);
}

static void test_random(void)
{
  struct bpred *bp = bpred_create(cfg);
  uint64_t s = 0xDEADBEEFull;
  int miss = 0;
  const int iters = 100000;
  for (int i = 0; i < iters; i++)
    miss += cond_d(bp, 0x4000, &FBEQ, rng(&s) & 1);
  printf("# random branch: %.2f%% misses\n", 100.0 * miss / iters);
  CHECK(miss > iters * 40 / 100 && miss < iters * 60 / 100, "random branch mispredicts 40-60%%");
  bpred_destroy(bp);
}

static void test_sorted(void)
{
  struct bpred *bp = bpred_create(cfg);
  uint64_t s = 777;
  int miss = 0, n = 0;
  while (n < 200000) {
    int run_t = 1000 + (int)(rng(&s) % 4000), run_n = 1000 + (int)(rng(&s) % 4000);
    for (int i = 0; i < run_t; i++, n++)
      miss += cond(bp, 0x5000, true);
    for (int i = 0; i < run_n; i++, n++)
      miss += cond(bp, 0x5000, false);
  }
  printf("# sorted-data runs (1000-5000 long): %d misses of %d (%.3f%%)\n", miss, n, 100.0 * miss / n);
  CHECK(miss * 100 < n, "sorted-data-like runs mispredict <1%%");
  bpred_destroy(bp);
}

/* Calls depth nested functions with BSR (call site i at 0x10000 + 0x40 i,
 * function i at 0x20000 + 0x100 i) and returns with RET; returns the number of
 * mispredicted returns, *call_miss the mispredicted calls. */
static int nest(struct bpred *bp, unsigned depth, bool jsr, int *call_miss)
{
  int miss = 0;
  *call_miss = 0;
  for (unsigned i = 0; i < depth; i++)
    *call_miss += xfer(bp, 0x10000 + 0x40 * i, jsr ? AXP_JSR : AXP_BSR, 0x20000 + 0x100 * i);
  for (unsigned i = depth; i-- > 0;)
    miss += xfer(bp, 0x20000 + 0x100 * i + 0x80, AXP_RET, 0x10000 + 0x40 * i + 4);
  return miss;
}

static void test_returns(void)
{
  struct bpred *bp = bpred_create(cfg);
  unsigned n = cfg->ras_entries;
  int cm = 0;
  CHECK_EQ_U64(nest(bp, n, false, &cm), 0, "BSR/RET nesting %u deep: every return predicted", n);
  CHECK_EQ_U64(cm, 0, "BSR targets always predicted");
  for (unsigned extra = 1; extra <= 5; extra++) {
    int m = nest(bp, n + extra, false, &cm);
    printf("# call depth %u with a %u-entry stack: %d return misses\n", n + extra, n, m);
    CHECK_EQ_U64(m, extra, "nesting %u deep: the %u overflowed returns mispredict", n + extra, extra);
  }
  /* JSR (cold jump table: the call misses once, then is learned) pushes too. */
  bpred_destroy(bp);
  bp = bpred_create(cfg);
  int r1 = nest(bp, n, true, &cm);
  int c1 = cm;
  int r2 = nest(bp, n, true, &cm);
  CHECK_EQ_U64(r1 + r2, 0, "JSR/RET nesting %u deep: every return predicted", n);
  CHECK_EQ_U64(c1, n, "JSR targets miss once each when cold");
  CHECK_EQ_U64(cm, 0, "JSR targets learned");
  /* JSR_COROUTINE pops, then pushes its own return address. */
  xfer(bp, 0x30000, AXP_BSR, 0x31000);                                 /* push 0x30004 */
  CHECK_EQ_U64(xfer(bp, 0x31010, AXP_JSR_COROUTINE, 0x30004), 0, "coroutine switch predicted from the stack");
  CHECK_EQ_U64(xfer(bp, 0x30020, AXP_JSR_COROUTINE, 0x31014), 0, "coroutine switch back predicted");
  CHECK_EQ_U64(xfer(bp, 0x31030, AXP_RET, 0x30024), 0, "return after coroutine switches predicted");
  const struct bpred_stats *st = bpred_stats(bp);
  CHECK_EQ_U64(st->ret_mispred, 0, "stats: no return misses");
  CHECK_EQ_U64(st->ret, 2 * n + 3, "stats: returns counted");
  bpred_destroy(bp);
}

static void test_jumps(void)
{
  struct bpred *bp = bpred_create(cfg);
  int first = xfer(bp, 0x6000, AXP_JMP, 0x7000), rest = 0;
  for (int i = 0; i < 100; i++)
    rest += xfer(bp, 0x6000, AXP_JMP, 0x7000);
  CHECK_EQ_U64(first, 1, "indirect jump: the first execution misses");
  CHECK_EQ_U64(rest, 0, "indirect jump with a fixed target predicted after one miss");
  CHECK_EQ_U64(xfer(bp, 0x6000, AXP_JMP, 0x8000), 1, "changed target misses once");
  CHECK_EQ_U64(xfer(bp, 0x6000, AXP_JMP, 0x8000), 0, "... and is then predicted");
  int br = 0;
  for (int i = 0; i < 10; i++)
    br += xfer(bp, 0x6100 + 0x40 * (uint64_t)i, AXP_BR, 0x1000 * (uint64_t)i);
  CHECK_EQ_U64(br, 0, "BR always predicted");
  struct axp_insn add = { .id = AXP_ADDQ };
  bool t = false;
  uint64_t tgt = 0;
  CHECK(!bpred_predict(bp, 0x6000, &add, &t, &tgt), "ADDQ is not control flow");
  CHECK(!bpred_update(bp, 0x6000, &add, false, 0x6004), "ADDQ never mispredicts");
  struct axp_insn pal = { .id = AXP_CALL_PAL, .imm = AXP_PAL_CALLSYS };
  CHECK_EQ_U64(bpred_classify(&pal), BPRED_NONE, "CALL_PAL is left to the modelled kernel");
  CHECK_EQ_U64(bpred_classify(&FBEQ), BPRED_COND, "FBEQ is a conditional branch");
  bpred_destroy(bp);
}

static void test_stwait(void)
{
  struct bpred *bp = bpred_create(cfg);
  CHECK(!bpred_stwait_get(bp, 0x8000), "stWait clear at reset");
  bpred_stwait_set(bp, 0x8000);
  CHECK(bpred_stwait_get(bp, 0x8000), "stWait set after a store-load replay");
  CHECK(!bpred_stwait_get(bp, 0x8004), "neighbour unaffected");
  CHECK(bpred_stwait_get(bp, 0x8000 + 4 * (uint64_t)cfg->stwait_entries), "aliases 1024 instructions away");
  bpred_stwait_tick(bp, BPRED_STWAIT_CLEAR_CYCLES - 1);
  CHECK(bpred_stwait_get(bp, 0x8000), "still set before 16384 cycles");
  bpred_stwait_tick(bp, BPRED_STWAIT_CLEAR_CYCLES);
  CHECK(!bpred_stwait_get(bp, 0x8000), "cleared at cycle 16384");
  bpred_stwait_set(bp, 0x8000);
  bpred_stwait_tick(bp, 2 * BPRED_STWAIT_CLEAR_CYCLES - 1);
  CHECK(bpred_stwait_get(bp, 0x8000), "set again, kept until the next period");
  bpred_stwait_tick(bp, 5 * BPRED_STWAIT_CLEAR_CYCLES + 7);
  CHECK(!bpred_stwait_get(bp, 0x8000), "cleared after skipping several periods");
  bpred_destroy(bp);
}

static void test_config(void)
{
  struct ev67_config c = *cfg;
  c.global_entries = 3000;
  CHECK(bpred_create(&c) == NULL, "non-power-of-two table refused");
  c = *cfg;
  c.ras_entries = 1;
  c.jump_entries = 1;
  struct bpred *bp = bpred_create(&c);
  CHECK(bp != NULL, "one-entry return stack and jump table accepted");
  int cm;
  CHECK_EQ_U64(nest(bp, 3, false, &cm), 2, "one-entry stack: only the innermost return predicted");
  bpred_destroy(bp);
  bpred_destroy(NULL);
}

/* Mean host time of one predict + update over a mixed stream, in ns. */
static double speed(void)
{
  struct bpred *bp = bpred_create(cfg);
  uint64_t s = 42, pcs[64];
  for (int i = 0; i < 64; i++)
    pcs[i] = 0x120000000ull + (rng(&s) & 0xFFFFC);
  struct timespec t0, t1;
  const int n = 4000000;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < n; i++) {
    uint64_t r = rng(&s);
    cond(bp, pcs[r & 63], (r >> 8) % 4 != 0);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  bpred_destroy(bp);
  return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
}

int main(void)
{
  test_biased();
  test_alternating();
  test_loops();
  test_correlated();
  test_random();
  test_sorted();
  test_returns();
  test_jumps();
  test_stwait();
  test_config();
  CHECK(consistent, "bpred_update's miss agrees with bpred_predict everywhere");
  printf("# %.1f ns per predict + update (host, this build)\n", speed());
  return check_done();
}
