/* The Alpha 21264/EV67 performance-monitoring hardware: PCTR_CTL and its two
 * 20-bit counters in Aggregate and ProfileMe mode, the ProfileMe sampler
 * (selection, count window, latched PMPC/I_STAT/status bits), the counter
 * overflow interrupt requests, and the quirks the HRM warns PALcode about.
 * Knows nothing of perf. All state lives in struct ev67_pmu (no globals, no
 * allocation); the machine embeds one per CPU.
 *
 * Time: every input carries absolute cycle numbers. Fates arrive in fetch
 * order, each complete, so their events (retires, B-cache misses, replays) lie
 * in the future of the fetch stream; the PMU queues them and counts cycle by
 * cycle up to a horizon (the latest fetch cycle - 1), before which no later
 * fate can add anything. Register accesses at cycle T first count up to T.
 * Invariant: counts are final for cycles < `next`; queued events are >= next.
 * Sources and every choice where the HRM is silent: docs/pmu.md. */
#ifndef PMU_EV67_PMU_H
#define PMU_EV67_PMU_H
#include <stdbool.h>
#include <stdint.h>
#include "uarch/uarch.h"
#include "uapi/ev67_regs.h"

/* IPR indices (HW_MFPR/HW_MTPR, HRM Table 5-1). PCTX is 0x40..0x5F: index bits
 * [4:0] select the fields a write updates; bit 3 selects PPCE (HRM Table 5-13). */
#define EV67_IPR_PMPC        0x05
#define EV67_IPR_IER         0x0A   /* writes/reads the interrupt enables only */
#define EV67_IPR_IER_CM      0x0B
#define EV67_IPR_ISUM        0x0D
#define EV67_IPR_HW_INT_CLR  0x0E
#define EV67_IPR_I_CTL       0x11
#define EV67_IPR_PCTR_CTL    0x14
#define EV67_IPR_I_STAT      0x16
#define EV67_IPR_PCTX        0x40
#define EV67_PCTX_SEL_PPCE   0x08

/* Legal write ranges of the PCTR_CTL counters (HRM 6.10.2.1). */
#define EV67_PCTR0_WRITE_MAX    ((1u << 20) - 16)
#define EV67_PCTR1_WRITE_MAX    ((1u << 20) - 4)

/* PC[1:0] at [30:29] in ISUM, HW_INT_CLR (W1C) and IER_CM (PCEN). */
#define EV67_PC0                (1ull << 29)
#define EV67_PC1                (1ull << 30)
/* I_CTL (positions from the EV6 21264 I_CTL, coreboot dc21264.h) and PCTX. */
#define EV67_I_CTL_SPCE         (1ull << 0)
#define EV67_I_CTL_PCT0_EN      (1ull << 18)
#define EV67_I_CTL_PCT1_EN      (1ull << 19)
#define EV67_PCTX_PPCE          (1ull << 1)

/* wrperfmon (CALL_PAL 0x39) commands, as Linux's asm/wrperfmon.h numbers them. */
enum ev67_perfmon_cmd {
  EV67_PERFMON_DISABLE = 0,        /* arg: mask of counters (bit0 PCTR0, bit1 PCTR1) */
  EV67_PERFMON_ENABLE = 1,         /* arg: mask of counters */
  EV67_PERFMON_DESIRED_EVENTS = 2, /* arg: SL0|SL1 at their PCTR_CTL positions */
  EV67_PERFMON_LOGGING_OPTIONS = 3,/* arg bit0: only processes with PCTX[PPCE] */
  EV67_PERFMON_INT_FREQ = 4,       /* EV5 only: fails here */
  EV67_PERFMON_READ = 5,           /* returns PCTR_CTL */
  EV67_PERFMON_WRITE = 6,          /* arg: values at PCTR_CTL positions | mask in [1:0] */
  EV67_PERFMON_ENABLE_WRITE = 7,   /* WRITE, then ENABLE, same mask */
  EV67_PERFMON_I_STAT = 8,         /* returns I_STAT */
  EV67_PERFMON_PMPC = 9            /* returns PMPC */
};

/* Aggregate-mode counter inputs (HRM Table 5-16, SL0 = 0), numbered as the
 * Linux driver's EV67_* event types. */
enum ev67_event { EV67_EV_NONE, EV67_EV_CYCLES, EV67_EV_INSTRUCTIONS, EV67_EV_BCACHE, EV67_EV_MBOX };

/* Where event ev can count next to what the counters already count (on[k] =
 * the event on PCTRk, or EV67_EV_NONE): returns the counter index and sets
 * *sl1 to the input selection that serves both, or returns -1 when no row of
 * Table 5-16 does. Rows are tried in SL1 order, so a lone event lands where
 * arch/alpha/kernel/perf_event.c puts it (cycles on PCTR1, instructions on
 * PCTR0). */
int ev67_place(unsigned ev, const unsigned on[2], unsigned *sl1);

/* Cycles from an overflow request to the CPU (HRM silent; docs/pmu.md). */
#define EV67_PMU_IRQ_LATENCY    3
#define EV67_PMU_RING           512   /* pending retire cycles (merged per cycle) */
#define EV67_PMU_HEAP           512   /* pending B-cache-miss and replay events */

struct ev67_pmu_event { uint64_t cycle; uint32_t count; uint32_t stream; };

struct ev67_pmu {
  uint64_t pal_base;             /* PAL_BASE, for redirect-type PMPC values */
  unsigned irq_latency;          /* EV67_PMU_IRQ_LATENCY unless the machine says */
  /* PCTR_CTL */
  uint32_t ctr[2];
  uint8_t sl0, sl1;
  bool pm_stalled, pm_killed_bm, val, tak;
  /* ProfileMe outputs */
  uint64_t pmpc, i_stat;
  /* enables: I_CTL, PCTX, IER_CM */
  bool pct_en[2], spce, ppce, pcen[2];
  uint64_t pcen_since[2];        /* cycle PCEN last went from 0 to 1 */
  /* counter interrupt requests (cleared only by HW_INT_CLR) */
  bool req[2];
  uint64_t req_cycle[2];
  /* quirks (HRM 6.10.1, D.28) */
  bool latch[2];                 /* overflow latch */
  uint8_t writes[2];             /* counter writes since the latch was set */
  bool exit_ovf[2];              /* written at the threshold: fires at PAL exit */
  bool suppress[2];              /* written out of range: the next wrap is missed */
  /* time and queued events */
  uint64_t next;                 /* first cycle not yet counted */
  uint64_t max_fetch;            /* latest fetch cycle observed */
  uint64_t carry[3];             /* per stream: events over the per-cycle cap, not yet counted */
  uint64_t last_cycle[3];        /* per stream: last cycle with events, and how many */
  uint32_t last_n[3];
  struct { uint64_t cycle; uint32_t n; } ring[EV67_PMU_RING];   /* retires, in order */
  unsigned ring_head, ring_count;
  uint64_t ring_total;
  struct ev67_pmu_event heap[EV67_PMU_HEAP];                    /* min-heap on cycle */
  unsigned heap_n;
  uint64_t heap_total[3];
  uint64_t ret_pushes;              /* retire events ever queued */
  bool irq_memo_ok;                 /* ev67_pmu_irq_cycle's memo (see there) */
  bool eager;                       /* count after every fate and never use the memo: the
                                       reference the deferred path is tested against */
  uint64_t irq_memo, irq_memo_until, irq_memo_wrap;
  /* ProfileMe sampler */
  int pm;                        /* enum in ev67_pmu.c: off, waiting, residual, window, done */
  uint64_t pm_fetch_cycle;       /* fetch cycle being counted, and how many in it (<= 4) */
  unsigned pm_fetch_n;
  struct uop_fate prof;          /* the profiled instruction */
  uint64_t w0, w1;               /* window: first and last cycle */
  uint64_t inum_lo, inum_hi;     /* cycles it held the retire pointer, within the window */
  unsigned ovr;                  /* residual fetched count (I_STAT[OVR]) */
};

/* Power-up state: counters disabled, both overflow latches set (HRM 6.10.1: reset
 * PALcode must write the counters twice). pal_base forms redirect PMPC values. */
void ev67_pmu_init(struct ev67_pmu *pmu, uint64_t pal_base);

/* Whether `ipr` holds PMU fields. For the shared IPRs (IER, IER_CM, ISUM,
 * HW_INT_CLR, I_CTL, PCTX) the CPU keeps the other fields and ORs reads. */
bool ev67_pmu_owns_ipr(unsigned ipr);

/* HW_MFPR at `cycle`: the PMU fields of `ipr` (0 for an IPR it does not own).
 * Counts up to `cycle` first; a PCTR_CTL read shows events of `cycle` itself. */
uint64_t ev67_pmu_mfpr(struct ev67_pmu *pmu, unsigned ipr, uint64_t cycle);

/* HW_MTPR at `cycle`, effective from cycle+1. Returns ev67_pmu_owns_ipr(ipr). */
bool ev67_pmu_mtpr(struct ev67_pmu *pmu, unsigned ipr, uint64_t value, uint64_t cycle);

/* One wrperfmon CALL_PAL at `cycle`, done as OSF PALcode would: IPR accesses
 * (counter writes done twice, HRM 6.10.1), then the PAL exit (ev67_pmu_leave_pal).
 * Returns v0: the value for READ/I_STAT/PMPC, else 1 success or 0 failure. */
uint64_t ev67_pmu_wrperfmon(struct ev67_pmu *pmu, uint64_t cmd, uint64_t arg, uint64_t cycle);

/* The PALmode exit (HW_RET to native mode) at `cycle`: fires the overflow
 * signals the HRM ties to leaving PALmode (threshold writes, stale latches,
 * Restriction 32). */
void ev67_pmu_leave_pal(struct ev67_pmu *pmu, uint64_t cycle);

/* One fetched instruction's complete record, in fetch order (seq increasing,
 * fetch cycles non-decreasing; retire cycles of retired fates non-decreasing).
 * Every fetched instruction, wrong-path, killed and squashed ones included. */
void ev67_pmu_observe(struct ev67_pmu *pmu, const struct uop_fate *f);

/* Counts up to `cycle` (end of run, or before reading the struct directly). */
void ev67_pmu_sync(struct ev67_pmu *pmu, uint64_t cycle);

/* The cycle at which the earliest pending and enabled (IER_CM[PCEN]) overflow
 * interrupt reaches the CPU: request cycle + irq_latency, or UINT64_MAX. Looks
 * ahead over the events observed so far (an overflow the queued retires or the
 * cycle count will cause is reported before the PMU has counted up to it).
 * The CPU takes it at the first instruction retiring after this cycle and
 * acknowledges with HW_INT_CLR. */
uint64_t ev67_pmu_irq_cycle(struct ev67_pmu *pmu);

/* ---- functional spans (sampled simulation, docs/sampled.md) ----
 * Between detailed windows the machine runs instructions without the timing
 * model, so without fates; it tells the PMU what they did as totals, which
 * it estimates (fetched instructions, B-cache misses, replays) or knows
 * (retired instructions). */
enum { EV67_STREAM_RETIRED, EV67_STREAM_FETCHED, EV67_STREAM_BCACHE, EV67_STREAM_REPLAYS, EV67_STREAMS };
struct ev67_pmu_span { uint64_t n[EV67_STREAMS]; };

/* Fills h with how many more events of each stream the enabled counters can
 * take before one of them wraps (events already queued included), or
 * UINT64_MAX when no counter takes the stream. Fetched instructions count
 * only while ProfileMe waits for its sample: h then gives the fetches up to
 * and including the one that would be profiled. */
void ev67_pmu_headroom(struct ev67_pmu *pmu, struct ev67_pmu_span *h);

/* Counts a functional span that ends at cycle `end`: every cycle up to end
 * (a cycles counter counts them, overflowing at its exact cycle), then the
 * span's events, all at end (a counter they wrap raises its request at
 * end). A ProfileMe PCTR0 waiting for its sample stops one fetch short of
 * the wrap: a sample is only ever taken on a fate (the machine switches to
 * the detailed model before it is due). */
void ev67_pmu_functional(struct ev67_pmu *pmu, uint64_t end, const struct ev67_pmu_span *s);

/* Whether no ProfileMe sample is between its selection and its latch: the
 * PMU needs no more fates and the machine may leave the detailed model. */
bool ev67_pmu_quiet(const struct ev67_pmu *pmu);

#endif
