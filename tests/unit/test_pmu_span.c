/* The PMU between detailed windows (ev67_pmu_functional, _headroom, _quiet):
 * a functional span's cycles and events reach the Aggregate counters, wraps
 * raise their requests at the span's end and interrupts are projected from
 * them, the headroom says exactly how many events a counter can take before
 * it wraps, and a ProfileMe counter is left one fetch short of its wrap so
 * that the sample is taken on the next fate, never inside a span. */
#include "check.h"
#include "pmu/ev67_pmu.h"
#include <string.h>

#define WRAP (1u << 20)
#define MASK EV67_PCTR_MASK
#define ALL_EN (EV67_I_CTL_SPCE | EV67_I_CTL_PCT0_EN | EV67_I_CTL_PCT1_EN)

static uint64_t seq;

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
  return f;
}

static uint64_t ctl(int sl0, int sl1, uint32_t c0, uint32_t c1)
{
  return (uint64_t)c0 << EV67_PCTR0_SHIFT | (uint64_t)c1 << EV67_PCTR1_SHIFT
       | (sl0 ? EV67_PCTR_SL0 : 0) | (uint64_t)sl1 << EV67_PCTR_SL1_SHIFT;
}

static void setup(struct ev67_pmu *p, uint64_t pctr_ctl, uint64_t cycle)
{
  ev67_pmu_init(p, 0x20000);
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

static struct ev67_pmu_span span(uint64_t ret, uint64_t fetched, uint64_t bc, uint64_t rp)
{
  struct ev67_pmu_span s = { { 0 } };
  s.n[EV67_STREAM_RETIRED] = ret;
  s.n[EV67_STREAM_FETCHED] = fetched;
  s.n[EV67_STREAM_BCACHE] = bc;
  s.n[EV67_STREAM_REPLAYS] = rp;
  return s;
}

/* SL1=0: PCTR0 retires, PCTR1 cycles. */
static void test_aggregate(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, 0), 10);
  struct uop_fate f = mk(0x1000, 20, 30, FATE_RETIRED);
  ev67_pmu_observe(&p, &f);
  struct ev67_pmu_span s = span(5000, 0, 0, 0);
  ev67_pmu_functional(&p, 1030, &s);
  CHECK_EQ_U64(rd(&p, 0, 1030), 5001, "span: its retires reach PCTR0, the queued one too");
  CHECK_EQ_U64(rd(&p, 1, 1030), 1020, "span: cycles 11..1030 reach PCTR1");
  struct ev67_pmu_span h;
  ev67_pmu_headroom(&p, &h);
  CHECK_EQ_U64(h.n[EV67_STREAM_RETIRED], WRAP - 5001, "headroom: retires until PCTR0 wraps");
  CHECK_EQ_U64(h.n[EV67_STREAM_BCACHE], UINT64_MAX, "headroom: no counter takes B-cache misses");
  CHECK_EQ_U64(h.n[EV67_STREAM_FETCHED], UINT64_MAX, "headroom: no fetch counting in Aggregate mode");
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 1031 + (WRAP - 1020) - 1 + EV67_PMU_IRQ_LATENCY,
               "the cycles counter projects its wrap from the span's end");
}

/* A span that wraps a counter raises the request at its end. */
static void test_wrap_at_end(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 2, WRAP - 100, WRAP - 10), 10);   /* SL1=2: PCTR0 retires, PCTR1 B-cache misses */
  struct ev67_pmu_span h;
  ev67_pmu_headroom(&p, &h);
  CHECK_EQ_U64(h.n[EV67_STREAM_RETIRED], 100, "headroom: 100 retires to the wrap");
  CHECK_EQ_U64(h.n[EV67_STREAM_BCACHE], 10, "headroom: 10 B-cache misses to the wrap");
  struct ev67_pmu_span s = span(99, 0, 9, 0);
  ev67_pmu_functional(&p, 500, &s);
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), UINT64_MAX, "one short of both wraps: no request");
  s = span(1, 0, 0, 0);
  ev67_pmu_functional(&p, 600, &s);
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), 600 + EV67_PMU_IRQ_LATENCY, "the 100th retire wraps PCTR0 at the span's end");
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_ISUM, 600), EV67_PC0, "ISUM shows PC0");
  ev67_pmu_mtpr(&p, EV67_IPR_HW_INT_CLR, EV67_PC0, 601);
  s = span(0, 0, 3, 0);
  ev67_pmu_functional(&p, 700, &s);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_ISUM, 700), EV67_PC1, "B-cache misses wrap PCTR1 in their span");
  CHECK_EQ_U64(rd(&p, 1, 700), 2, "PCTR1 wrapped and went on");
}

/* The cycles counter overflows at its exact cycle inside a span, and the
 * projection announces it before the span is counted. */
static void test_cycles_projection(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(0, 0, 0, WRAP - 1000), 10);
  uint64_t t = ev67_pmu_irq_cycle(&p);
  CHECK_EQ_U64(t, 10 + 1000 + EV67_PMU_IRQ_LATENCY, "projection: the cycle counter's wrap 1000 cycles on");
  struct ev67_pmu_span s = span(0, 0, 0, 0);
  ev67_pmu_functional(&p, 5000, &s);
  CHECK_EQ_U64(ev67_pmu_irq_cycle(&p), t, "the span raised it at that cycle, not at its end");
}

/* ProfileMe: the span leaves PCTR0 one fetch short; the next fates wrap it. */
static void test_profileme(void)
{
  struct ev67_pmu p;
  setup(&p, ctl(1, 0, WRAP - 1000, 0), 10);
  struct ev67_pmu_span h;
  ev67_pmu_headroom(&p, &h);
  CHECK_EQ_U64(h.n[EV67_STREAM_FETCHED], 1000, "headroom: the 1000th fetch is profiled");
  CHECK_EQ_U64(h.n[EV67_STREAM_RETIRED], UINT64_MAX, "headroom: retires do not count in ProfileMe");
  struct ev67_pmu_span s = span(800, 600, 0, 0);
  ev67_pmu_functional(&p, 1000, &s);
  ev67_pmu_headroom(&p, &h);
  CHECK_EQ_U64(h.n[EV67_STREAM_FETCHED], 400, "600 fetches counted");
  s = span(5000, 5000, 0, 0);
  ev67_pmu_functional(&p, 2000, &s);
  ev67_pmu_headroom(&p, &h);
  CHECK_EQ_U64(h.n[EV67_STREAM_FETCHED], 2, "a span past the wrap stops one short of it");
  CHECK(ev67_pmu_quiet(&p) && ev67_pmu_irq_cycle(&p) == UINT64_MAX, "no sample, no request from a span");
  struct uop_fate a = mk(0x4000, 2001, 2010, FATE_RETIRED), b = mk(0x4004, 2001, 2010, FATE_RETIRED);
  ev67_pmu_observe(&p, &a);
  CHECK(ev67_pmu_quiet(&p), "the fate before the wrap is not profiled");
  ev67_pmu_observe(&p, &b);
  CHECK(!ev67_pmu_quiet(&p), "the next fate is: a sample is open");
  struct uop_fate c = mk(0x4008, 2020, 2030, FATE_RETIRED);
  ev67_pmu_observe(&p, &c);
  ev67_pmu_sync(&p, 2100);
  CHECK_EQ_U64(ev67_pmu_mfpr(&p, EV67_IPR_PMPC, 2100), 0x4004, "PMPC: the fate that wrapped");
  CHECK(ev67_pmu_quiet(&p), "latched: quiet again");
}

int main(void)
{
  test_aggregate();
  test_wrap_at_end();
  test_cycles_projection();
  test_profileme();
  return check_done();
}
