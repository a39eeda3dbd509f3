/* Functional warming (ev67_warm) against the detailed model it stands in
 * for: a synthetic loop (a load walking 8 MB, a store over 32 KB, a branch
 * on pseudo-random data, a call and a return, code spread over 96 KB so the
 * Icache and ITB turn over) is run once in detail throughout and once warmed
 * for its first part; after a drain, the detailed part that follows must see
 * exactly the same predictor and cache behaviour: the same mispredicts and
 * Icache, Dcache, Bcache and TB misses, because warming left the structures
 * in the same state. A cold start instead gives different counts (so the
 * check can fail). Then the warm counts against the detailed ones, the
 * stWait table, a line evicted by detail, a mispredict's wrong path, and a
 * speed figure. */
#include <string.h>
#include <time.h>
#include "check.h"
#include "uarch/ev67.h"

#define CODE 0x120000000ull
#define DATA 0x140000000ull
#define STACK 0x11ff00000ull
#define FUNCS 24                /* functions 4 KB apart: 96 KB of code */

static uint32_t mem_op(unsigned op, unsigned ra, unsigned rb, int disp)
{
  return op << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xFFFF);
}
static uint32_t opr(unsigned op, unsigned fn, unsigned ra, unsigned rb, unsigned rc)
{
  return op << 26 | ra << 21 | rb << 16 | fn << 5 | rc;
}
static uint32_t bra(unsigned op, unsigned ra, int disp)
{
  return op << 26 | ra << 21 | ((uint32_t)disp & 0x1FFFFF);
}

/* One instruction of the stream, as the functional core would describe it. */
struct gen {
  uint64_t rng, iter;
  bool taken;                   /* the last branch's direction */
  struct axp_insn in[8];
};

static uint64_t next_rand(struct gen *g)
{
  g->rng ^= g->rng << 13;
  g->rng ^= g->rng >> 7;
  g->rng ^= g->rng << 17;
  return g->rng;
}

static void gen_init(struct gen *g)
{
  memset(g, 0, sizeof *g);
  g->rng = 0x9E3779B97F4A7C15ull;
  const uint32_t words[8] = {
    mem_op(0x29, 1, 2, 0),            /* ldq   r1, 0(r2)     walks 8 MB */
    opr(0x10, 0x20, 1, 3, 3),         /* addq  r1, r3, r3 */
    mem_op(0x2D, 3, 4, 8),            /* stq   r3, 8(r4)     over 32 KB */
    bra(0x3D, 5, 1),                  /* bne   r5, +1        random */
    opr(0x10, 0x20, 1, 3, 3),         /* addq (skipped when taken) */
    mem_op(0x1A, 26, 27, 0x4000),     /* jsr   r26, (r27)    the function */
    mem_op(0x1A, 31, 26, 0x8000),     /* ret   (r26)         in the function */
    bra(0x30, 31, 0),                 /* br    (back to the loop) */
  };
  for (int i = 0; i < 8; i++) g->in[i] = axp_decode(words[i]);
}

/* Fills ui with the k-th instruction (k < 7) of iteration g->iter. */
static void gen_insn(struct gen *g, int k, struct uarch_insn *ui)
{
  uint64_t f = g->iter % FUNCS, loop = CODE + f * 0x1000;
  memset(ui, 0, sizeof *ui);
  ui->asn = 1;
  ui->d = &g->in[k];
  switch (k) {
  case 0: ui->pc = loop; ui->ea = DATA + (next_rand(g) & ((8 << 20) - 8)); break;
  case 1: ui->pc = loop + 4; break;
  case 2: ui->pc = loop + 8; ui->ea = DATA + (16 << 20) + 8 + (g->iter * 72 & 0x7FF8); break;
  case 3: ui->pc = loop + 12; ui->taken = g->taken = next_rand(g) & 1; break;
  case 4: ui->pc = loop + 16; break;
  case 5: ui->pc = loop + 20; ui->taken = true; ui->next_pc = CODE + 0x40000 + f * 0x200; break;
  case 6: ui->pc = CODE + 0x40000 + f * 0x200; ui->taken = true; ui->next_pc = loop + 24; break;
  }
  if (k == 3) ui->next_pc = ui->taken ? ui->pc + 8 : ui->pc + 4;
  else if (k != 5 && k != 6) ui->next_pc = ui->pc + 4;
  /* frames scattered (an odd multiplier permutes the 64 K frame numbers),
   * so that an access warmed at its virtual address lands elsewhere */
  ui->pa = ((((ui->ea >> 13) * 0x9E3779B1u) & 0xFFFF) << 13) | (ui->ea & 0x1FFF);
  ui->pa_valid = k == 0 || k == 2;
}

enum how { DETAIL, WARM, WARM_EVENTS };

/* ui as translated code gives it (guest/jit.h, struct jit_warm_event):
 * an access's address and frame, a control transfer's direction and
 * target, nothing for the others. */
static struct jit_warm_event as_event(const struct uarch_insn *ui, int k)
{
  struct jit_warm_event e = { .in = ui->d, .pc = ui->pc, .id = ui->d->id };
  if (k == 0 || k == 2) { e.a = ui->ea; e.b = ui->pa; }
  else if (k == 3) { e.a = ui->taken; e.b = ui->pc + 8; }
  else if (k == 5 || k == 6) { e.a = 1; e.b = ui->next_pc; }
  return e;
}

/* Runs n iterations through the model: warm (cycle estimate 1 per
 * instruction), as ev67_warm or as translated code's events, or detailed. */
static void run(struct ev67 *m, struct gen *g, uint64_t n, enum how how)
{
  for (uint64_t i = 0; i < n; i++, g->iter++) {
    struct jit_warm_event ev[7];
    /* the event's cycle, ev67_now(m) + i * 7 + k, from its budget left */
    const struct ev67_warm_clock clk = { .base = ev67_now(m) + i * 7, .n0 = 7, .rate = 1 };
    size_t nev = 0;
    for (int k = 0; k < 7; k++) {
      struct uarch_insn ui;
      gen_insn(g, k, &ui);
      if (k == 4 && g->iter % 2 == 0) continue;   /* deterministic mix of fall-through */
      uint64_t t = ev67_now(m) + i * 7 + (uint64_t)k;
      if (how == WARM) ev67_warm(m, &ui, t);
      else if (how == WARM_EVENTS) {
        ev[nev] = as_event(&ui, k);
        ev[nev].left = 7 - (uint64_t)k;
        nev++;
      }
      else ev67_step(m, &ui);
    }
    if (nev) ev67_warm_events(m, 1, ev, &clk, nev);
  }
}

static struct ev67_stats diff(const struct ev67_stats *a, const struct ev67_stats *b)
{
  struct ev67_stats d;
  const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
  uint64_t *o = (uint64_t *)&d;
  for (size_t i = 0; i < sizeof d / sizeof *o; i++) o[i] = x[i] - y[i];
  return d;
}

/* Detailed part of `meas` iterations after `pre` iterations run warm (0,
 * or 3 as translated code's events), in detail (1), or not at all (2:
 * cold). */
static struct ev67_stats measured(uint64_t pre, int mode, uint64_t meas)
{
  struct ev67 *m = ev67_create(&ev67_default_config, NULL, NULL, NULL);
  struct gen g;
  gen_init(&g);
  if (mode == 2) {
    /* cold: the same stream positions, nothing in the structures */
    for (uint64_t i = 0; i < pre; i++, g.iter++) {
      struct uarch_insn ui;
      for (int k = 0; k < 7; k++) gen_insn(&g, k, &ui);
    }
  } else {
    run(m, &g, pre, mode == 0 ? WARM : mode == 3 ? WARM_EVENTS : DETAIL);
  }
  ev67_stall(m, 100000);
  struct ev67_stats before = *ev67_stats(m, false);
  run(m, &g, meas, DETAIL);
  struct ev67_stats d = diff(ev67_stats(m, false), &before);
  ev67_destroy(m);
  return d;
}

/* The detailed part's predictor and cache figures after `how` equal those
 * after a detailed prefix. */
static void same_state(const char *how, const struct ev67_stats *a, const struct ev67_stats *d)
{
  CHECK_EQ_U64(a->cond_mispredicts, d->cond_mispredicts, "after %s: same conditional mispredicts", how);
  CHECK_EQ_U64(a->jump_mispredicts, d->jump_mispredicts, "after %s: same jump and return mispredicts", how);
  CHECK_EQ_U64(a->dcache_misses, d->dcache_misses, "after %s: same Dcache misses", how);
  CHECK_EQ_U64(a->bcache_misses, d->bcache_misses, "after %s: same B-cache misses", how);
  CHECK_EQ_U64(a->icache_misses, d->icache_misses, "after %s: same Icache misses", how);
  CHECK_EQ_U64(a->itb_misses, d->itb_misses, "after %s: same ITB misses", how);
  CHECK_EQ_U64(a->dtb_misses, d->dtb_misses, "after %s: same DTB misses", how);
}

static void test_same_state(void)
{
  const uint64_t pre = 200000, meas = 20000;
  struct ev67_stats w = measured(pre, 0, meas), d = measured(pre, 1, meas), c = measured(pre, 2, meas),
                    e = measured(pre, 3, meas);
  CHECK(d.cond_mispredicts > 1000 && d.bcache_misses > 1000 && d.icache_misses > 100 && d.dtb_misses > 1000,
        "the measured part exercises the predictor and caches (%llu mispredicts, %llu B-cache, %llu Icache, %llu DTB misses)",
        (unsigned long long)d.cond_mispredicts, (unsigned long long)d.bcache_misses,
        (unsigned long long)d.icache_misses, (unsigned long long)d.dtb_misses);
  same_state("warming", &w, &d);
  same_state("warming by events", &e, &d);   /* translated code's batches (ev67_warm_events) */
  CHECK(c.dcache_misses != d.dcache_misses && c.icache_misses != d.icache_misses,
        "a cold start differs (Dcache %llu vs %llu, Icache %llu vs %llu)", (unsigned long long)c.dcache_misses,
        (unsigned long long)d.dcache_misses, (unsigned long long)c.icache_misses,
        (unsigned long long)d.icache_misses);
}

/* The warm counters against the detailed model's over the same stream. */
static void test_counts(void)
{
  struct ev67 *w = ev67_create(&ev67_default_config, NULL, NULL, NULL);
  struct ev67 *d = ev67_create(&ev67_default_config, NULL, NULL, NULL);
  struct gen g1, g2;
  gen_init(&g1);
  gen_init(&g2);
  run(w, &g1, 50000, WARM);
  run(d, &g2, 50000, DETAIL);
  const struct ev67_stats *a = ev67_warm_stats(w, false), *b = ev67_stats(d, false);
  CHECK_EQ_U64(a->retired, b->retired, "warm counts retired instructions as the detailed model does");
  /* The detailed model counts each executed instance: a load that misses
   * the DTB is executed again after the fill. */
  CHECK_EQ_U64(a->loads, 50000, "warm loads: one per iteration");
  CHECK_EQ_U64(a->stores, 50000, "warm stores: one per iteration");
  CHECK_EQ_U64(b->loads - b->dtb_misses + (b->stores - 50000), 50000,
               "detailed loads: one per iteration plus one per DTB-miss replay");
  CHECK_EQ_U64(a->cond_branches, b->cond_branches, "warm conditional branches");
  CHECK_EQ_U64(a->cond_mispredicts, b->cond_mispredicts, "warm conditional mispredicts");
  CHECK_EQ_U64(a->jumps, b->jumps, "warm jumps");
  /* B-cache misses differ by timing alone: a load retried after its DTB
   * miss merges with its own fill in detail, or not, as the MAF decides. */
  CHECK(a->bcache_misses > b->bcache_misses * 99 / 100 && a->bcache_misses < b->bcache_misses * 101 / 100,
        "warm B-cache misses within 1%% of the detailed count (%llu, %llu)", (unsigned long long)a->bcache_misses,
        (unsigned long long)b->bcache_misses);
  CHECK_EQ_U64(ev67_stats(w, false)->retired, 0, "warming times nothing");
  ev67_destroy(w);
  ev67_destroy(d);
}

/* The stWait bit after warming (HRM 2.11.1.2: a load that replayed behind
 * a store waits for older stores until the table clears). A loop of a
 * missing load, a store of its result (issued late) and a load of the
 * stored quadword replays in detail; warming must set the load's bit as a
 * replay would, but only for loads a recent store wrote to: after a warm
 * stretch in which the store goes to another quadword the load must not
 * wait, as it does not after the same stretch in detail. Seen through the
 * first measured load's wait from map to issue. */
static uint64_t stw_wait_after(bool near_in_warm, enum how how)
{
  struct ev67 *m = ev67_create(&ev67_default_config, NULL, NULL, NULL);
  struct axp_insn in[4] = {
    axp_decode(mem_op(0x29, 3, 2, 0)),   /* ldq r3, 0(r2)   misses */
    axp_decode(mem_op(0x2D, 3, 4, 8)),   /* stq r3, 8(r4)   waits for r3 */
    axp_decode(mem_op(0x29, 1, 5, 8)),   /* ldq r1, 8(r5)   the load watched */
    axp_decode(bra(0x30, 31, -4)),       /* br  back */
  };
  uint64_t rng = 0x9E3779B97F4A7C15ull, wait = 0;
  for (int phase = 0; phase < 3; phase++) {
    /* detailed training with the store on the load's quadword, the stretch
     * (near or not), then one measured iteration in detail */
    bool near = phase == 0 || near_in_warm;
    enum how h = phase == 1 ? how : DETAIL;
    uint64_t iters = phase == 0 ? 20000 : phase == 1 ? 40000 : 1;
    if (phase == 2) ev67_stall(m, how == WARM ? 40000 * 20 : 100);   /* the warm stretch's cycles, as warm_fold */
    for (uint64_t i = 0; i < iters; i++) {
      for (int k = 0; k < 4; k++) {
        struct uarch_insn ui = { .asn = 1, .d = &in[k], .pc = CODE + 4 * (uint64_t)k, .pa_valid = k < 3 };
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        if (k == 0) ui.ea = DATA + (rng & ((8 << 20) - 8));
        if (k == 1) ui.ea = DATA + (16 << 20) + 8 + (near ? 0 : 64);
        if (k == 2) ui.ea = DATA + (16 << 20) + 8;
        ui.pa = ui.ea;
        ui.taken = k == 3;
        ui.next_pc = k == 3 ? CODE : ui.pc + 4;
        if (h == WARM) {
          ev67_warm(m, &ui, ev67_now(m) + i * 20 + (uint64_t)k);
          continue;
        }
        const struct uop_fate *f = ev67_step(m, &ui);
        if (phase == 2 && k == 2) wait = f->issue - f->map;
      }
    }
  }
  ev67_destroy(m);
  return wait;
}

/* A line warming fetched, then evicted by the timing model, is fetched
 * again when warming resumes in it (warming skips the fetch check within
 * the line it saw last: a detailed step must end that). */
static void test_line_after_detail(void)
{
  struct ev67 *m = ev67_create(&ev67_default_config, NULL, NULL, NULL);
  struct axp_insn add = axp_decode(opr(0x10, 0x20, 1, 3, 3));
  /* the Icache's ways are 32 KB apart: B and C take both ways of A's set */
  const uint64_t a = CODE, set_stride = 32 << 10;
  struct uarch_insn ui = { .asn = 1, .d = &add };
  ui.pc = a;
  ui.next_pc = a + 4;
  ev67_warm(m, &ui, ev67_now(m));
  uint64_t before = ev67_warm_stats(m, false)->icache_misses;
  for (uint64_t k = 1; k <= 2; k++) {
    ui.pc = a + k * set_stride;
    ui.next_pc = ui.pc + 4;
    ev67_step(m, &ui);
  }
  ev67_stall(m, 1000);
  ui.pc = a + 4;   /* the same line as the last warmed instruction */
  ui.next_pc = a + 8;
  ev67_warm(m, &ui, ev67_now(m));
  CHECK_EQ_U64(ev67_warm_stats(m, false)->icache_misses - before, 1,
               "warming fetches again a line it saw last, evicted by detailed steps since");
  ev67_destroy(m);
}

/* The detailed model's wrong-path fetches: straight-line code of adds. */
static const struct axp_insn *fetch_add(void *ctx, uint64_t pc)
{
  (void)pc;
  return ctx;
}

/* Icache misses of a detailed fetch from the wrong path of a branch that
 * mispredicted (not taken, predicted taken by the cold predictor; its
 * target 1 KB on, a line that no correct-path fetch or Istream prefetch
 * reached), the instructions before it run as `how`. */
static uint64_t wrong_path_misses(enum how how, uint64_t *mispredicts)
{
  struct axp_insn add = axp_decode(opr(0x10, 0x20, 1, 3, 3)), bne = axp_decode(bra(0x3D, 5, 0x100));
  struct ev67 *m = ev67_create(&ev67_default_config, fetch_add, NULL, &add);
  const uint64_t br = CODE + 60, target = br + 4 + 0x400;
  struct uarch_insn ui = { .asn = 1, .d = &add, .pc = CODE, .next_pc = CODE + 4 };
  for (int i = 0; i < 2; i++) {
    if (i == 1) ui = (struct uarch_insn){ .asn = 1, .d = &bne, .pc = br, .next_pc = br + 4 };
    if (how == DETAIL) ev67_step(m, &ui);
    else ev67_warm(m, &ui, ev67_now(m) + (uint64_t)i);
  }
  *mispredicts = ev67_stats(m, false)->cond_mispredicts + ev67_warm_stats(m, false)->cond_mispredicts;
  ev67_stall(m, 1000);
  uint64_t before = ev67_stats(m, false)->icache_misses;
  ui = (struct uarch_insn){ .asn = 1, .d = &add, .pc = target, .next_pc = target + 4 };
  ev67_step(m, &ui);
  uint64_t n = ev67_stats(m, false)->icache_misses - before;
  ev67_destroy(m);
  return n;
}

static void test_wrong_path(void)
{
  uint64_t dmis, wmis;
  uint64_t d = wrong_path_misses(DETAIL, &dmis), w = wrong_path_misses(WARM, &wmis);
  CHECK(dmis == 1 && wmis == 1, "the branch mispredicted once in both (%llu, %llu)", (unsigned long long)dmis,
        (unsigned long long)wmis);
  CHECK_EQ_U64(d, 0, "the detailed model fetched the wrong path's line: a later fetch hits");
  CHECK_EQ_U64(w, d, "warming fetched it too (%llu Icache misses against %llu)", (unsigned long long)w,
               (unsigned long long)d);
}

static void test_stwait(void)
{
  uint64_t dn = stw_wait_after(true, DETAIL), wn = stw_wait_after(true, WARM);
  uint64_t df = stw_wait_after(false, DETAIL), wf = stw_wait_after(false, WARM);
  CHECK(dn > 20, "after a detailed stretch of replays the load waits for the store (%llu cycles from map to issue)",
        (unsigned long long)dn);
  CHECK(wn > 20, "after warming the same stretch it waits too (%llu cycles)", (unsigned long long)wn);
  CHECK(df < 10, "after a detailed stretch with the store elsewhere it does not (%llu cycles)", (unsigned long long)df);
  CHECK(wf < 10, "nor after warming that stretch (%llu cycles): no draw without a recent store to its quadword",
        (unsigned long long)wf);
}

static void test_speed(void)
{
  struct ev67 *w = ev67_create(&ev67_default_config, NULL, NULL, NULL);
  struct gen g;
  gen_init(&g);
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  run(w, &g, 200000, WARM);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (200000.0 * 6.5);
  printf("warm: %.1f ns of CPU time per instruction (a miss-heavy stream: per 6.5 instructions a B-cache and DTB miss, Icache misses, 3 control transfers)\n", ns);
  ev67_destroy(w);
}

int main(void)
{
  test_same_state();
  test_counts();
  test_stwait();
  test_line_after_detail();
  test_wrong_path();
  test_speed();
  return check_done();
}
