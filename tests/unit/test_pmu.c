/* EV67 PMU hardware (src/pmu/ev67_pmu.c) driven by synthetic fate streams:
 * register layout, Aggregate counting (8-per-cycle retire cap and carry, cycles,
 * B-cache misses, replays, overflow and interrupt cycles), the HRM 6.10.1 / D.28
 * quirks one by one, ProfileMe selection, window, counts, OVR and latched status,
 * wrperfmon as the Linux drivers use it, and a chi-square uniformity check. */
#include "check.h"
#include "pmu/ev67_pmu.h"
#include <string.h>

#define WRAP (1u << 20)
#define MASK EV67_PCTR_MASK
#define PAL_BASE 0x20000ull
#define ALL_EN (EV67_I_CTL_SPCE | EV67_I_CTL_PCT0_EN | EV67_I_CTL_PCT1_EN)

static uint64_t seq;

/* A fate with plausible stage cycles: fetched at `fetch`, ending at `end`. */
static struct uop_fate mk(uint64_t pc, uint64_t fetch, uint64_t end, uint32_t flags)
{
  struct uop_fate f;
  memset(&f, 0, sizeof f);
  f.pc = pc;
  f.seq = seq++;
  f.fetch = fetch;
  f.slot = fetch + 1;
  f.map = fetch + 2;
  f.issue = fetch + 3;
  f.complete = fetch + 4;
  f.end = end;
  f.flags = flags;
  f.trap = EV67_TRAP_NONE;
  f.level = LVL_NONE;
  return f;
}

static void obs(struct ev67_pmu *p, struct uop_fate f) { ev67_pmu_observe(p, &f); }

static uint64_t ctl(int sl0, int sl1, uint32_t c0, uint32_t c1)
{
  return (uint64_t)c0 << EV67_PCTR0_SHIFT | (uint64_t)c1 << EV67_PCTR1_SHIFT
       | (sl0 ? EV67_PCTR_SL0 : 0) | (uint64_t)sl1 << EV67_PCTR_SL1_SHIFT;
}

/* Reset PALcode as the HRM asks: counters written twice, then interrupts and
 * counting enabled (at `cycle`, so counting starts at cycle + 1). */
static void setup(struct ev67_pmu *p, uint64_t pctr_ctl, uint64_t cycle)
{
  ev67_pmu_init(p, PAL_BASE);
  ev67_pmu_mtpr(p, EV67_IPR_PCTR_CTL, pctr_ctl, cycle);
  ev67_pmu_mtpr(p, EV67_IPR_PCTR_CTL, pctr_ctl, cycle);
  ev67_pmu_mtpr(p, EV67_IPR_IER_CM, EV67_PC0 | EV67_PC1, cycle);
  ev67_pmu_mtpr(p, EV67_IPR_I_CTL, ALL_EN, cycle);
}

static uint32_t rd(struct ev67_pmu *p, int k, uint64_t cycle)
{
  uint64_t v = ev67_pmu_mfpr(p, EV67_IPR_PCTR_CTL, cycle);
  return (uint32_t)(v >> (k ? EV67_PCTR1_SHIFT : EV67_PCTR0_SHIFT)) & MASK;
}

static uint64_t isum(struct ev67_pmu *p, uint64_t cycle)
{
  return ev67_pmu_mfpr(p, EV67_IPR_ISUM, cycle);
}

static void clear_irq(struct ev67_pmu *p, uint64_t cycle)
{
  ev67_pmu_mtpr(p, EV67_IPR_HW_INT_CLR, EV67_PC0 | EV67_PC1, cycle);
}

static void test_registers(void)
{
  struct ev67_pmu p;
  ev67_pmu_init(&p, PAL_BASE);
  /* SL1=01: PCTR0 counts cycles and PCTR1 nothing, so disabled reads add nothing. */
  uint64_t w = ctl(0, 1, 0x80000, 0x12345) | EV67_PCTR_VAL | EV67_PCTR_TAK
             | EV67_PCTR_PM_STALLED | EV67_PCTR_PM_KILLED_BM | (1u << 5) | 0xFFFF000000000000ull;
  ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, w, 10);
  uint64_t r = ev67_pmu_mfpr(&p, EV67_IPR_PCTR_CTL, 10);
  CHECK_EQ_U64(r, 0xFFFF800000000000ull | 0x12345ull << 6 | 1u << 2,
               "PCTR_CTL: RO bits and bit 5 ignored, bit 47 sign-extended");
  ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, ctl(1, 3, 0x7FFF0, 0), 10);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_PCTR_CTL, 10), ctl(1, 3, 0x7FFF0, 0),
               "PCTR_CTL: SL0/SL1 round trip, no sign extension below bit 47");
  ev67_pmu_mtpr(&p, EV67_IPR_I_CTL, ~0ull, 10);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_I_CTL, 10), ALL_EN, "I_CTL: SPCE, PCT0_EN, PCT1_EN");
  ev67_pmu_mtpr(&p, EV67_IPR_PCTX | 0x07, EV67_PCTX_PPCE, 10);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_PCTX, 10), 0, "PCTX: PPCE unchanged without index bit 3");
  ev67_pmu_mtpr(&p, EV67_IPR_PCTX | EV67_PCTX_SEL_PPCE, EV67_PCTX_PPCE, 10);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_PCTX | 0x1F, 10), EV67_PCTX_PPCE, "PCTX: PPCE written with index bit 3");
  ev67_pmu_mtpr(&p, EV67_IPR_IER_CM, ~0ull, 10);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_IER_CM, 10), EV67_PC0 | EV67_PC1, "IER_CM: PCEN[1:0] at [30:29]");
  CHECK(ev67_pmu_owns_ipr(EV67_IPR_PMPC) && ev67_pmu_owns_ipr(0x5F) && !ev67_pmu_owns_ipr(0x09)
        && !ev67_pmu_owns_ipr(0x06), "owns PMU IPRs only (not CM, not EXC_ADDR)");
  CHECK(!ev67_pmu_mtpr(&p, 0x06, 1, 10), "mtpr of a non-PMU IPR is not taken");
}

static void test_retire_cap_and_carry(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, 0), 10);
  /* 11 retires in cycle 100, plus fates that must not count. */
  for (int i = 0; i < 11; i++)
    obs(&p, mk(0x1000 + 4 * i, 90 + i / 4, 100, FATE_RETIRED));
  obs(&p, mk(0x2000, 92, 96, FATE_WRONG_PATH | FATE_KILLED_AM));
  obs(&p, mk(0x2004, 92, 100, FATE_RETIRED | FATE_SQUASHED_NOP));
  CHECK_EQ_U64(rd(&p, 0, 99), 0, "retires: nothing before cycle 100");
  CHECK_EQ_U64(rd(&p, 0, 100), 8, "retires: at most 8 counted in cycle 100");
  CHECK_EQ_U64(rd(&p, 0, 101), 11, "retires: the 3 left over counted in cycle 101");
  /* 20 at cycle 300 then 5 at 301: 8, 8 (of 17), 8 (of 9), 1. */
  for (int i = 0; i < 20; i++)
    obs(&p, mk(0x3000 + 4 * i, 280 + i / 4, 300, FATE_RETIRED));
  for (int i = 0; i < 5; i++)
    obs(&p, mk(0x4000 + 4 * i, 290 + i / 4, 301, FATE_RETIRED));
  CHECK_EQ_U64(rd(&p, 0, 300), 19, "carry: +8 in cycle 300");
  CHECK_EQ_U64(rd(&p, 0, 301), 27, "carry: +8 in cycle 301");
  CHECK_EQ_U64(rd(&p, 0, 302), 35, "carry: +8 in cycle 302");
  CHECK_EQ_U64(rd(&p, 0, 303), 36, "carry: last 1 in cycle 303");
  CHECK_EQ_U64(rd(&p, 0, 400), 36, "carry: nothing lost, nothing added");
  CHECK_EQ_U64(rd(&p, 1, 400), 390, "cycles: PCTR1 counted cycles 11..400");
}

static void test_retire_overflow(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, WRAP - 16, 0), 10);
  for (int i = 0; i < 17; i++)
    obs(&p, mk(0x1000 + 4 * i, 190 + i / 4, 200, FATE_RETIRED));
  /* Nothing has been counted yet (horizon 193): the interrupt cycle is looked ahead. */
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 201 + EV67_PMU_IRQ_LATENCY,
               "retire overflow: 17 retires in cycle 200 wrap 2^20-16 in cycle 201, known ahead");
  CHECK_EQ_U64(isum(&p, 200), 0, "retire overflow: no request at 200");
  CHECK_EQ_U64(isum(&p, 201), EV67_PC0, "retire overflow: ISUM[PC0] at 201");
  CHECK_EQ_U64(rd(&p, 0, 202), 1, "retire overflow: counter keeps counting past the wrap");
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 201 + EV67_PMU_IRQ_LATENCY, "retire overflow: irq cycle once counted");
}

static void test_cycles_overflow(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, WRAP - 50), 100);   /* counting from cycle 101 */
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 150 + EV67_PMU_IRQ_LATENCY, "cycles: overflow cycle 150 known ahead");
  CHECK_EQ_U64(rd(&p, 1, 149), MASK, "cycles: 2^20-1 at cycle 149");
  CHECK_EQ_U64(isum(&p, 149), 0, "cycles: no request before the wrap");
  CHECK_EQ_U64(isum(&p, 150), EV67_PC1, "cycles: ISUM[PC1] at the wrapping cycle");
  CHECK_EQ_U64(rd(&p, 1, 160), 10, "cycles: counts on after overflow (20-bit wrap)");
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 153, "cycles: irq = overflow + latency");
  clear_irq(&p, 160);
  CHECK_EQ_U64(isum(&p, 160), 0, "cycles: HW_INT_CLR clears ISUM[PC1]");
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 150 + WRAP + EV67_PMU_IRQ_LATENCY, "cycles: next irq one period later");
  ev67_pmu_mtpr(&p, EV67_IPR_IER_CM, EV67_PC0, 161);
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), UINT64_MAX, "cycles: PCEN1 clear, no interrupt");
}

static void test_bcache_and_replay(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 2, 0, 0), 10);
  struct uop_fate a = mk(0x1000, 100, 400, FATE_RETIRED), b = mk(0x1004, 100, 400, FATE_RETIRED);
  a.level = b.level = LVL_MEM;      /* both issue at 103 */
  struct uop_fate c = mk(0x1008, 100, 400, FATE_RETIRED | FATE_WRONG_PATH);
  c.level = LVL_BCACHE;             /* a B-cache hit: not counted */
  obs(&p, a); obs(&p, b); obs(&p, c);
  CHECK_EQ_U64(rd(&p, 1, 103), 1, "B-cache misses: 1 per cycle at the issue cycle");
  CHECK_EQ_U64(rd(&p, 1, 104), 2, "B-cache misses: the second carried to the next cycle");
  setup(&p, ctl(0, 3, 0, 0), 10);
  struct uop_fate r = mk(0x2000, 100, 120, FATE_TRAP | FATE_KILLED_AM);
  r.trap = EV67_TRAP_REPLAY;
  obs(&p, r);
  CHECK_EQ_U64(rd(&p, 1, 119), 0, "replays: not before the trap cycle");
  CHECK_EQ_U64(rd(&p, 1, 120), 1, "replays: counted at the trap cycle");
  CHECK_EQ_U64(rd(&p, 0, 120), 110, "replays: PCTR0 counts cycles with SL1=11");
}

/* HRM 6.10.1 + D.28: writing once after an overflow leaves the latch set. */
static void test_quirk_overflow_latch(void)
{
  struct ev67_pmu p;
  ev67_pmu_init(&p, PAL_BASE);
  ev67_pmu_mtpr(&p, EV67_IPR_IER_CM, EV67_PC0 | EV67_PC1, 1);
  ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, 0, 1);
  ev67_pmu_leave_pal(&p, 2);
  CHECK_EQ_U64(isum(&p, 2), EV67_PC0 | EV67_PC1, "latch: reset PAL writing once gets spurious interrupts");
  for (int twice = 0; twice < 2; twice++) {
    setup(&p, ctl(0, 0, 0, WRAP - 10), 100);   /* PCTR1 wraps at 110 */
    clear_irq(&p, 120);
    ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, ctl(0, 0, 0, 0x1000), 121);
    if (twice)
      ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, ctl(0, 0, 0, 0x1000), 122);
    ev67_pmu_leave_pal(&p, 123);
    if (twice)
      CHECK_EQ_U64(isum(&p, 124), 0, "latch: written twice after the overflow, no stale interrupt");
    else
      CHECK_EQ_U64(isum(&p, 124), EV67_PC1, "latch: written once after the overflow, stale overflow at PAL exit");
  }
}

/* HRM 6.10.1: a counter at the threshold that is written signals an overflow at
 * the PAL exit, even disabled. */
static void test_quirk_threshold_write(void)
{
  for (int at = 0; at < 2; at++) {
    struct ev67_pmu p;
    setup(&p, ctl(0, 0, at ? MASK : 5, 0), 10);
    ev67_pmu_mtpr(&p, EV67_IPR_I_CTL, 0, 10);           /* counting disabled */
    ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, ctl(0, 0, 0, 0), 20);
    ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, ctl(0, 0, 0, 0), 20);
    CHECK_EQ_U64(isum(&p, 21), 0, "threshold: nothing before the PAL exit");
    ev67_pmu_leave_pal(&p, 22);
    if (at)
      CHECK_EQ_U64(isum(&p, 23), EV67_PC0, "threshold: written at 2^20-1, PC0 on PAL exit though disabled");
    else
      CHECK_EQ_U64(isum(&p, 23), 0, "threshold: written at 5, no interrupt on PAL exit");
  }
}

/* Restriction 32: a disabled counter within a cycle of overflow signals over
 * and over (our model: at every PAL exit). */
static void test_quirk_restriction32(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, MASK), 10);
  ev67_pmu_mtpr(&p, EV67_IPR_I_CTL, EV67_I_CTL_SPCE | EV67_I_CTL_PCT0_EN, 10);   /* PCTR1 off */
  int signals = 0;
  for (int i = 0; i < 3; i++) {
    ev67_pmu_leave_pal(&p, 20 + 10 * i);
    signals += (isum(&p, 21 + 10 * i) & EV67_PC1) != 0;
    clear_irq(&p, 22 + 10 * i);
  }
  CHECK_EQ_U64(signals, 3, "R32: disabled PCTR1 at 2^20-1 signals at each of 3 PAL exits");
  ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, ctl(0, 0, 0, 0), 60);
  ev67_pmu_mtpr(&p, EV67_IPR_PCTR_CTL, ctl(0, 0, 0, 0), 60);
  ev67_pmu_leave_pal(&p, 61);
  CHECK_EQ_U64(isum(&p, 62) & EV67_PC1, EV67_PC1, "R32: moving it away is a threshold write: one more");
  clear_irq(&p, 63);
  ev67_pmu_leave_pal(&p, 64);
  CHECK_EQ_U64(isum(&p, 65), 0, "R32: then quiet");
  /* PCTR0 counting retires moves up to 8 a cycle: within 8 of overflow is "near". */
  for (uint32_t v = WRAP - 9; v <= WRAP - 8; v++) {
    setup(&p, ctl(0, 0, v, 0), 10);
    ev67_pmu_mtpr(&p, EV67_IPR_I_CTL, 0, 10);
    ev67_pmu_leave_pal(&p, 20);
    CHECK_EQ_U64(isum(&p, 21), v == WRAP - 8 ? EV67_PC0 : 0,
                 "R32: disabled PCTR0 (retires) at 2^20-%u", WRAP - v);
  }
}

/* An interrupt stays pending after its counter is rewritten, until HW_INT_CLR. */
static void test_quirk_pending_after_rewrite(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, WRAP - 50), 100);
  CHECK_EQ_U64(isum(&p, 155), EV67_PC1, "pending: overflow at 150");
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_WRITE, (uint64_t)(WRAP - 1000) << EV67_PCTR1_SHIFT | 2, 156);
  CHECK_EQ_U64(isum(&p, 157), EV67_PC1, "pending: still set after the counter is rewritten");
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 153, "pending: irq cycle unchanged by the rewrite");
  clear_irq(&p, 158);
  CHECK_EQ_U64(isum(&p, 158), 0, "pending: HW_INT_CLR clears it");
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 156 + 1000 + EV67_PMU_IRQ_LATENCY, "pending: next irq from the new value");
}

/* HRM 6.10.1: a read while counting is disabled returns value + increment. */
static void test_quirk_disabled_read(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 100, 200), 10);
  ev67_pmu_mtpr(&p, EV67_IPR_I_CTL, 0, 10);
  for (int i = 0; i < 6; i++)
    obs(&p, mk(0x1000 + 4 * i, 480 + i / 4, 500, FATE_RETIRED));
  CHECK_EQ_U64(rd(&p, 0, 500), 104, "disabled read: PCTR0 + 4 (6 retires this cycle, at most 4)");
  CHECK_EQ_U64(rd(&p, 1, 500), 201, "disabled read: PCTR1 (cycles) + 1");
  CHECK_EQ_U64(rd(&p, 0, 501), 100, "disabled read: + 0 in a cycle without retires");
  setup(&p, ctl(0, 0, 100, 200), 10);
  for (int i = 0; i < 6; i++)
    obs(&p, mk(0x1000 + 4 * i, 480 + i / 4, 500, FATE_RETIRED));
  CHECK_EQ_U64(rd(&p, 0, 500), 106, "enabled read: exact count");
}

/* Out-of-range writes (HRM 6.10.2.1): our model misses the first wrap. */
static void test_quirk_out_of_range(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 1, WRAP - 8, 0), 100);   /* PCTR0 counts cycles */
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 108 + WRAP + EV67_PMU_IRQ_LATENCY,
               "out of range: the wrap at 108 will not be signalled");
  CHECK_EQ_U64(rd(&p, 0, 120), 12, "out of range: the counter still wraps");
  CHECK_EQ_U64(isum(&p, 120), 0, "out of range: no request");
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_WRITE, (uint64_t)(WRAP - 16) << EV67_PCTR0_SHIFT | 1, 200);
  CHECK_EQ_U64(isum(&p, 216), EV67_PC0, "legal 2^20-16: wrap signalled after 16 cycles");
}

/* wrperfmon WRITE of one counter, or DESIRED_EVENTS, leaves the other
 * counting untouched: rewriting it with its value read within 16 of overflow
 * would be an out-of-range write and lose its wrap (a driver using both
 * counters lost one that way, 2^20 counts). */
static void test_wrperfmon_keeps_other_counter(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 1, WRAP - 100, 0), 100);   /* PCTR0 counts cycles from 101 */
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_WRITE, (uint64_t)(WRAP - 1000) << EV67_PCTR1_SHIFT | 2, 195);
  CHECK_EQ_U64(rd(&p, 0, 196), WRAP - 4, "WRITE(PCTR1): PCTR0 counts on through the call");
  CHECK_EQ_U64(isum(&p, 200), EV67_PC0, "WRITE(PCTR1) 5 cycles before PCTR0 wraps: the wrap is signalled");
  CHECK_EQ_U64(rd(&p, 0, 210), 10, "WRITE(PCTR1): PCTR0 wrapped at 200");
  clear_irq(&p, 210);
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_WRITE, (uint64_t)(WRAP - 100) << EV67_PCTR0_SHIFT | 1, 300);
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_DESIRED_EVENTS, 1u << 2, 398);
  CHECK_EQ_U64(isum(&p, 400), EV67_PC0, "DESIRED_EVENTS 2 cycles before PCTR0 wraps: the wrap is signalled");
}

/* ---- ProfileMe ---- */

/* Arms ProfileMe at `cycle` to profile the N-th valid fetched instruction. */
static void arm(struct ev67_pmu *p, int sl1, uint32_t n, uint64_t cycle)
{
  ev67_pmu_mtpr(p, EV67_IPR_PCTR_CTL, ctl(1, sl1, WRAP - n, 0), cycle);
}

static void test_pm_selection(void)
{
  for (uint32_t n = 16; n <= 27; n++) {
    struct ev67_pmu p;
    setup(&p, ctl(0, 0, 0, 0), 10);
    arm(&p, 0, n, 50);
    uint64_t want = 0;
    for (uint32_t i = 0; i < 40; i++) {
      uint64_t fetch = 100 + i / 4;
      struct uop_fate f;
      if (i % 5 == 1)
        f = mk(0x1000 + 4 * i, fetch, fetch + 6, FATE_WRONG_PATH | FATE_KILLED_AM);
      else if (i % 5 == 3)
        f = mk(0x1000 + 4 * i, fetch, fetch + 10, FATE_SQUASHED_NOP);
      else
        f = mk(0x1000 + 4 * i, fetch, fetch + 10, FATE_RETIRED);
      if (i == n - 1)
        want = f.pc;
      obs(&p, f);
    }
    CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_PMPC, 1000), want,
                 "selection: N=%u profiles the %u-th fetched (wrong-path/squashed count)", n, n);
  }
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, 0), 10);
  arm(&p, 0, 5, 50);     /* 2^20-5 is above the legal 2^20-16 */
  for (uint32_t i = 0; i < 40; i++)
    obs(&p, mk(0x1000 + 4 * i, 100 + i / 4, 110 + i / 4, FATE_RETIRED));
  CHECK(ev67_pmu_irq_cycle(&p) == UINT64_MAX && ev67_pmu_mfpr(&p, EV67_IPR_PMPC, 1000) == 0,
        "selection: out-of-range 2^20-5 misses the wrap, no sample");
}

/* The window scenario: profiled P fetched at 100, retiring at 130: window
 * [105, 132], 28 cycles. Filler, then O1..O3 older, P, then younger fates. */
struct pm_result { uint64_t c0, c1, pmpc, i_stat, irq_before, pmpc_before; };

static struct pm_result pm_scenario(int sl1, uint16_t retire_delay)
{
  struct ev67_pmu p;
  struct pm_result r;
  setup(&p, ctl(0, 0, 0, 0), 10);
  arm(&p, sl1, 16, 50);
  for (int i = 0; i < 12; i++)
    obs(&p, mk(0x100 + 4 * i, 80 + i / 4, 90 + i / 4, FATE_RETIRED));
  struct uop_fate o1 = mk(0x200, 99, 104, FATE_RETIRED);     /* retires before the window */
  o1.issue = 101; o1.level = LVL_MEM;                        /* miss at W0-4: outside */
  struct uop_fate o2 = mk(0x204, 99, 105, FATE_RETIRED);     /* first window cycle */
  o2.issue = 102; o2.level = LVL_MEM;                        /* miss at W0-3: inside */
  obs(&p, o1); obs(&p, o2);
  obs(&p, mk(0x208, 100, 120, FATE_RETIRED));
  struct uop_fate pf = mk(0x20C, 100, 130, FATE_RETIRED);
  pf.retire_delay = retire_delay;
  obs(&p, pf);
  obs(&p, mk(0x210, 100, 130, FATE_RETIRED));                /* residual 1 */
  const uint64_t y2_end[4] = { 131, 132, 132, 133 };
  for (int i = 0; i < 4; i++) {                              /* residual 2..5 */
    struct uop_fate y = mk(0x214 + 4 * i, 101, y2_end[i], FATE_RETIRED);
    if (i < 2) { y.issue = 129 + i; y.level = LVL_MEM; }      /* W1-3 inside, W1-2 outside */
    obs(&p, y);
  }
  const uint64_t rp_end[4] = { 104, 105, 132, 133 };         /* replays: 2 inside */
  obs(&p, mk(0x224, 102, 140, FATE_RETIRED));
  for (int i = 0; i < 4; i++) {
    struct uop_fate t = mk(0x228 + 4 * i, 102 + (i == 3), rp_end[i], FATE_TRAP | FATE_KILLED_AM);
    t.trap = EV67_TRAP_REPLAY;
    obs(&p, t);
  }
  r.irq_before = ev67_pmu_irq_cycle(&p);
  r.pmpc_before = p.pmpc;
  obs(&p, mk(0x300, 200, 210, FATE_RETIRED));                /* passes the window end */
  r.pmpc = p.pmpc;
  r.i_stat = p.i_stat;
  r.c0 = rd(&p, 0, 400);
  r.c1 = rd(&p, 1, 400);
  return r;
}

static void test_pm_window(void)
{
  struct pm_result r = pm_scenario(0, 0);
  CHECK_EQ_U64(r.irq_before, 132 + EV67_PMU_IRQ_LATENCY, "window: interrupt at its last cycle (132) + latency");
  CHECK_EQ_U64(r.pmpc_before, 0, "window: not final before a fate fetched after its end");
  CHECK_EQ_U64(r.pmpc, 0x20C, "window: latched once fates pass its end");
  CHECK_EQ_U64((r.i_stat >> EV67_I_STAT_OVR_SHIFT) & 7, 5, "OVR: 1 + 4 fetched in the overflow cycle and the next");
  CHECK_EQ_U64(r.c0, 5 + 7, "SL1=00: PCTR0 = OVR + the 7 retires in [105,132]");
  CHECK_EQ_U64(r.c1, 28, "SL1=00: PCTR1 = window length 28");
  r = pm_scenario(1, 10);
  CHECK_EQ_U64(r.c0, 5 + 28, "SL1=01: PCTR0 = OVR + window cycles");
  CHECK_EQ_U64(r.c1, 10, "SL1=01: inum retire delay 10");
  r = pm_scenario(1, 100);
  CHECK_EQ_U64(r.c1, 26, "SL1=01: inum retire delay capped at length - 2");
  r = pm_scenario(2, 0);
  CHECK_EQ_U64(r.c0, 12, "SL1=10: PCTR0 = OVR + retires");
  CHECK_EQ_U64(r.c1, 2, "SL1=10: B-cache misses in [102,129] (3 cycles early)");
  r = pm_scenario(3, 0);
  CHECK_EQ_U64(r.c0, 33, "SL1=11: PCTR0 = OVR + cycles");
  CHECK_EQ_U64(r.c1, 2, "SL1=11: replays in [105,132]");
}

static void test_pm_ovr_and_stop(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, 0), 10);
  arm(&p, 1, 16, 50);
  for (int i = 0; i < 15; i++)
    obs(&p, mk(0x100 + 4 * i, 60 + i / 4, 70 + i / 4, FATE_RETIRED));
  for (int i = 0; i < 12; i++)    /* the profiled one is first of 4 in cycle 100 */
    obs(&p, mk(0x200 + 4 * i, 100 + i / 4, 110 + i / 4, FATE_RETIRED));
  obs(&p, mk(0x300, 200, 210, FATE_RETIRED));
  CHECK_EQ_U64((p.i_stat >> EV67_I_STAT_OVR_SHIFT) & 7, 7, "OVR: 3 + 4 = 7 at most");
  uint32_t c0 = rd(&p, 0, 300), c1 = rd(&p, 1, 300);
  CHECK_EQ_U64(c0, 7 + 8, "window [105,112] of 8 cycles: PCTR0 = OVR + 8");
  for (int i = 0; i < 40; i++)
    obs(&p, mk(0x400 + 4 * i, 300 + i / 4, 310 + i / 4, FATE_RETIRED));
  CHECK(rd(&p, 0, 500) == c0 && rd(&p, 1, 500) == c1, "PCTR0 and PCTR1 stop after the window");
  CHECK_EQ_U64(isum(&p, 500), EV67_PC0, "the window raised ISUM[PC0]");
  clear_irq(&p, 500);
  arm(&p, 1, 16, 500);
  for (int i = 0; i < 40; i++)
    obs(&p, mk(0x800 + 4 * i, 600 + i / 4, 610 + i / 4, FATE_RETIRED));
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_PMPC, 900), 0x800 + 4 * 15, "writing PCTR_CTL re-arms: next sample");
}

/* Profiles one fate (the 16th) and returns the latched registers. */
static void pm_one(struct ev67_pmu *p, struct uop_fate f)
{
  setup(p, ctl(0, 0, 0, 0), 10);
  arm(p, 0, 16, 50);
  for (int i = 0; i < 15; i++)
    obs(p, mk(0x100 + 4 * i, 60 + i / 4, 70 + i / 4, FATE_RETIRED));
  obs(p, f);
  obs(p, mk(0x900, 400, 410, FATE_RETIRED));
}

static void test_pm_status(void)
{
  struct ev67_pmu p;
  uint64_t tt_mask = 15ull << EV67_I_STAT_TT_SHIFT;
  struct uop_fate f = mk(0x5000, 100, 110, FATE_RETIRED | FATE_TRAP | FATE_MISPREDICT | FATE_TAKEN);
  pm_one(&p, f);
  uint64_t pc = ev67_pmu_mfpr(&p, EV67_IPR_PCTR_CTL, 500), is = ev67_pmu_mfpr(&p, EV67_IPR_I_STAT, 500);
  CHECK(is & EV67_I_STAT_MIS && is & EV67_I_STAT_TRP && pc & EV67_PCTR_VAL && pc & EV67_PCTR_TAK,
        "mispredicted branch: MIS, TRP, VAL, TAK");
  CHECK_EQ_U64(is & tt_mask, 1ull << EV67_I_STAT_TT_SHIFT, "mispredicted branch: TRAP_TYPE 1 (no code)");
  CHECK_EQ_U64(ev67_pmu_wrperfmon(&p, EV67_PERFMON_PMPC, 0, 500), 0x5000, "mispredicted branch: PMPC");

  f = mk(0x5100, 100, 112, FATE_TRAP | FATE_KILLED_AM | FATE_DTB_MISS);
  f.trap = EV67_TRAP_DTB_MISS;
  pm_one(&p, f);
  pc = ev67_pmu_mfpr(&p, EV67_IPR_PCTR_CTL, 500); is = ev67_pmu_mfpr(&p, EV67_IPR_I_STAT, 500);
  CHECK(is & EV67_I_STAT_TRP && !(is & EV67_I_STAT_MIS) && !(pc & EV67_PCTR_VAL),
        "DTB miss: TRP, no MIS, VAL clear (aborted)");
  CHECK_EQ_U64(is & tt_mask, 6ull << EV67_I_STAT_TT_SHIFT, "DTB miss: TRAP_TYPE 6");

  f = mk(0x5200, 100, 102, FATE_KILLED_BM | FATE_WRONG_PATH | FATE_MAP_STALL);
  pm_one(&p, f);
  pc = ev67_pmu_mfpr(&p, EV67_IPR_PCTR_CTL, 500); is = ev67_pmu_mfpr(&p, EV67_IPR_I_STAT, 500);
  CHECK(pc & EV67_PCTR_PM_KILLED_BM && pc & EV67_PCTR_PM_STALLED && !(pc & EV67_PCTR_VAL)
        && !(is & EV67_I_STAT_TRP), "killed before map: PM_KILLED_BM, PM_STALLED, no VAL, no TRP");
  CHECK_EQ_U64((pc >> EV67_PCTR1_SHIFT) & MASK, 1, "killed before map: one-cycle window");

  f = mk(0x5300, 100, 108, FATE_ITB_MISS | FATE_ICM | FATE_KILLED_AM);
  f.pmpc_redirect = EV67_PMPC_ITB_MISS;
  pm_one(&p, f);
  is = ev67_pmu_mfpr(&p, EV67_IPR_I_STAT, 500);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_PMPC, 500), PAL_BASE | 0x581, "ITB miss: PMPC = PAL_BASE | 0x581");
  CHECK(is & EV67_I_STAT_TRP && is & EV67_I_STAT_ICM, "ITB miss: TRP and ICM");
  CHECK_EQ_U64(is & tt_mask, 11ull << EV67_I_STAT_TT_SHIFT, "ITB miss: TRAP_TYPE 11 (use PMPC)");

  f = mk(0x5400, 100, 115, FATE_TRAP | FATE_LSO | FATE_KILLED_AM);
  f.trap = EV67_TRAP_REPLAY;
  pm_one(&p, f);
  is = ev67_pmu_mfpr(&p, EV67_IPR_I_STAT, 500);
  CHECK(is & EV67_I_STAT_TRP && is & EV67_I_STAT_LSO && !(is & tt_mask), "load-store order replay: TRP, LSO, TRAP_TYPE 0");
}

static uint64_t xs_state = 0x9E3779B97F4A7C15ull;
static uint64_t xorshift(void)
{
  xs_state ^= xs_state << 13;
  xs_state ^= xs_state >> 7;
  xs_state ^= xs_state << 17;
  return xs_state;
}

/* Straight-line stream of a 16-instruction loop, N uniform in [16, 79]: each
 * PC must be picked equally often. 1600 samples, 15 degrees of freedom; the
 * seed is fixed, so the bound (chi2 < 37.70, p = 0.001) cannot flake. */
static void test_pm_uniformity(void)
{
  enum { BINS = 16, SAMPLES = 1600 };
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, 0), 10);
  unsigned hist[BINS] = { 0 }, samples = 0, exact = 0;
  uint64_t i = 0, want = 0;
  uint32_t n = 16 + (uint32_t)(xorshift() % 64);
  arm(&p, 0, n, 100);
  uint64_t counted = 0;
  while (samples < SAMPLES) {
    uint64_t fetch = 101 + i / 4;
    struct uop_fate f = mk(0x10000 + 4 * (i % BINS), fetch, fetch + 8, FATE_RETIRED);
    if (++counted == n)
      want = f.pc;
    obs(&p, f);
    i++;
    uint64_t irq = ev67_pmu_irq_cycle(&p);
    if (irq != UINT64_MAX && fetch > irq) {
      uint64_t pmpc = ev67_pmu_mfpr(&p, EV67_IPR_PMPC, fetch);
      hist[(pmpc - 0x10000) / 4 % BINS]++;
      exact += pmpc == want;
      samples++;
      clear_irq(&p, fetch);
      n = 16 + (uint32_t)(xorshift() % 64);
      counted = 0;
      arm(&p, 0, n, fetch);
    }
  }
  double chi2 = 0, e = (double)SAMPLES / BINS;
  for (int b = 0; b < BINS; b++)
    chi2 += (hist[b] - e) * (hist[b] - e) / e;
  CHECK_EQ_U64(exact, SAMPLES, "uniformity: every sample is exactly the N-th fetched");
  CHECK(chi2 < 37.70, "uniformity: chi2 = %.2f < 37.70 over %d PCs (df 15, p 0.001)", chi2, BINS);
}

/* ---- wrperfmon as arch/alpha/kernel/perf_event.c and op_model_ev67.c use it ---- */

static void test_wrperfmon(void)
{
  struct ev67_pmu p;
  ev67_pmu_init(&p, PAL_BASE);
  ev67_pmu_mtpr(&p, EV67_IPR_IER_CM, EV67_PC0 | EV67_PC1, 1);
  /* perf: LOGGING_OPTIONS(0), DESIRED_EVENTS(config), WRITE(-left), ENABLE(mask). */
  CHECK_EQ_U64(ev67_pmu_wrperfmon(&p, EV67_PERFMON_LOGGING_OPTIONS, 0, 10), 1, "LOGGING_OPTIONS(0): success");
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_DESIRED_EVENTS, 0 /* EV67_PCTR_INSTR_CYCLES */, 10);
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_WRITE, (uint64_t)(WRAP - 100) << EV67_PCTR0_SHIFT | 1, 10);
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_ENABLE, 1, 10);
  CHECK_EQ_U64(isum(&p, 11), 0, "perf setup: no spurious interrupt (PAL wrote the counters twice)");
  for (int i = 0; i < 100; i++)
    obs(&p, mk(0x1000 + 4 * i, 20 + i / 4, 50 + i / 4, FATE_RETIRED));
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 74 + EV67_PMU_IRQ_LATENCY, "perf: the 100th retire (cycle 74) overflows");
  uint64_t v = ev67_pmu_wrperfmon(&p, EV67_PERFMON_READ, 0, 80);
  CHECK_EQ_U64((v >> EV67_PCTR0_SHIFT) & MASK, 0, "READ: PCTR0 at >>28");
  CHECK_EQ_U64((v >> EV67_PCTR1_SHIFT) & MASK, 1, "READ: PCTR1 never enabled: 0 + the disabled-read 1");
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_DISABLE, 1, 80);
  clear_irq(&p, 80);
  for (int i = 0; i < 8; i++)
    obs(&p, mk(0x2000 + 4 * i, 90, 100, FATE_RETIRED));
  CHECK_EQ_U64((ev67_pmu_wrperfmon(&p, EV67_PERFMON_READ, 0, 120) >> EV67_PCTR0_SHIFT) & MASK, 0,
               "DISABLE: retires no longer counted");
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_ENABLE_WRITE, 7ull << EV67_PCTR1_SHIFT | 2, 130);
  CHECK_EQ_U64(rd(&p, 1, 140), 17, "ENABLE_WRITE: PCTR1 written (7) and counting cycles from 131");
  CHECK_EQ_U64(ev67_pmu_wrperfmon(&p, EV67_PERFMON_INT_FREQ, 0, 140), 0, "INT_FREQ: EV5 only, fails");
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_LOGGING_OPTIONS, 1, 150);   /* selected processes only */
  uint32_t c1 = rd(&p, 1, 150);
  CHECK_EQ_U64(rd(&p, 1, 160), c1, "LOGGING_OPTIONS(1): SPCE off, PCTR1 stopped");
  ev67_pmu_mtpr(&p, EV67_IPR_PCTX | EV67_PCTX_SEL_PPCE, EV67_PCTX_PPCE, 160);
  CHECK_EQ_U64(rd(&p, 1, 170), c1 - 1 + 10, "PCTX[PPCE]: counting again from 161 (no read increment)");
  /* oprofile ProfileMe setup: DESIRED_EVENTS(1<<4 | sl1), LOGGING(0), WRITE(reset | 3). */
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_DESIRED_EVENTS, EV67_PCTR_SL0 | 1u << 2, 200);
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_LOGGING_OPTIONS, 0, 200);
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_WRITE, (uint64_t)(WRAP - 16) << EV67_PCTR0_SHIFT | 3, 200);
  ev67_pmu_wrperfmon(&p, EV67_PERFMON_ENABLE, 3, 200);
  for (int i = 0; i < 40; i++)
    obs(&p, mk(0x3000 + 4 * i, 210 + i / 4, 220 + i / 4, FATE_RETIRED));
  CHECK_EQ_U64(ev67_pmu_wrperfmon(&p, EV67_PERFMON_PMPC, 0, 300), 0x3000 + 4 * 15, "oprofile: PMPC of the 16th");
  CHECK_EQ_U64(ev67_pmu_wrperfmon(&p, EV67_PERFMON_I_STAT, 0, 300), 4ull << EV67_I_STAT_OVR_SHIFT,
               "oprofile: I_STAT of a plain instruction, last of its fetch block: OVR 0 + 4");
}


/* ---- the deferred counting and the interrupt memo against the eager reference ---- */

/* Two PMUs fed the same random stream (fates, register reads and writes near
 * the counters' wrap, interrupt acknowledges, syncs, PALcode exits) in every
 * mode: the default one defers counting and remembers the interrupt cycle,
 * the other counts after every fate and recomputes it. Every answer must be
 * the same. */
static void test_deferred_equals_eager(void)
{
  struct ev67_pmu a, b;
  unsigned mismatches = 0, irqs = 0, ops = 0;
  for (int mode = 0; mode < 8; mode++) {
    int sl0 = mode >= 4, sl1 = mode & 3;
    uint32_t c0 = MASK - (uint32_t)(xorshift() % 3000), c1 = MASK - (uint32_t)(xorshift() % 3000);
    setup(&a, ctl(sl0, sl1, c0, c1), 10);
    setup(&b, ctl(sl0, sl1, c0, c1), 10);
    b.eager = true;
    uint64_t fetch = 31, last_end = 31;
    for (int i = 0; i < 20000; i++) {
      uint64_t r = xorshift(), op = r % 1000;
      /* Register accesses come at the retire horizon, which may be behind
       * the fetch stream (then the deferred counting must catch up first). */
      uint64_t now = fetch + (r >> 8) % 24 - 12;
      ops++;
      if (op < 900) {
        fetch += (r >> 12) % 4 == 0;
        /* Now and then a fate out of fetch order whose events fall before
         * what has been counted (they are counted in the first open cycle). */
        uint64_t ff = (r >> 44) % 64 == 0 && fetch > 40 ? fetch - 30 : fetch;
        uint64_t end = ff + 1 + (r >> 16) % 60;
        uint32_t flags = (r >> 24) % 10 ? FATE_RETIRED : (r >> 28) % 2 ? FATE_KILLED_AM : FATE_SQUASHED_NOP;
        struct uop_fate f = mk(0x10000 + 4 * (uint64_t)i, ff, end, flags);
        if ((r >> 32) % 8 == 0) { f.level = LVL_MEM; f.issue = ff + 3; }
        if ((r >> 36) % 16 == 0) f.trap = EV67_TRAP_REPLAY;
        f.retire_delay = (uint16_t)((r >> 40) % 4);
        obs(&a, f);
        obs(&b, f);
        last_end = end > last_end ? end : last_end;
      } else if (op < 940) {
        mismatches += ev67_pmu_mfpr(&a, EV67_IPR_PCTR_CTL, now) != ev67_pmu_mfpr(&b, EV67_IPR_PCTR_CTL, now);
        mismatches += isum(&a, now) != isum(&b, now);
      } else if (op < 975) {
        uint64_t is = isum(&a, now);
        mismatches += is != isum(&b, now);
        irqs += (is & (EV67_PC0 | EV67_PC1)) != 0;
        clear_irq(&a, now);
        clear_irq(&b, now);
      } else if (op < 980) {
        uint64_t w = ctl(sl0, sl1, MASK - (uint32_t)((r >> 16) % 400), MASK - (uint32_t)((r >> 32) % 400));
        ev67_pmu_mtpr(&a, EV67_IPR_PCTR_CTL, w, now);
        ev67_pmu_mtpr(&b, EV67_IPR_PCTR_CTL, w, now);
      } else if (op < 995) {
        ev67_pmu_sync(&a, now);
        ev67_pmu_sync(&b, now);
      } else {
        ev67_pmu_leave_pal(&a, now);
        ev67_pmu_leave_pal(&b, now);
      }
      mismatches += ev67_pmu_irq_cycle(&a) != ev67_pmu_irq_cycle(&b);
    }
    uint64_t end = last_end + 100;
    mismatches += ev67_pmu_mfpr(&a, EV67_IPR_PCTR_CTL, end) != ev67_pmu_mfpr(&b, EV67_IPR_PCTR_CTL, end);
    mismatches += ev67_pmu_mfpr(&a, EV67_IPR_PMPC, end) != ev67_pmu_mfpr(&b, EV67_IPR_PMPC, end);
    mismatches += ev67_pmu_mfpr(&a, EV67_IPR_I_STAT, end) != ev67_pmu_mfpr(&b, EV67_IPR_I_STAT, end);
  }
  CHECK_EQ_U64(mismatches, 0, "deferred counting = eager counting over %u operations in 8 modes", ops);
  CHECK(irqs > 100, "the random stream reached the interrupts it is meant to test (%u)", irqs);
}

int main(void)
{
  test_registers();
  test_retire_cap_and_carry();
  test_retire_overflow();
  test_cycles_overflow();
  test_bcache_and_replay();
  test_quirk_overflow_latch();
  test_quirk_threshold_write();
  test_quirk_restriction32();
  test_quirk_pending_after_rewrite();
  test_quirk_disabled_read();
  test_quirk_out_of_range();
  test_wrperfmon_keeps_other_counter();
  test_pm_selection();
  test_pm_window();
  test_pm_ovr_and_stop();
  test_pm_status();
  test_pm_uniformity();
  test_wrperfmon();
  test_deferred_equals_eager();
  return check_done();
}
