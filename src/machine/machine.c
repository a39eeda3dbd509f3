/* The machine; see machine.h. A timed CPU runs every guest instruction
 * through its EV67 core before the instruction commits (struct cpu_timing);
 * kernel work becomes synthetic kernel-mode instructions at the PCs of the
 * synthetic kernel image (guest/kimage.h), so it costs cycles and can be
 * sampled. Interrupts (the PMU's overflow, the timer at HZ) are taken at the
 * first instruction that retires after they reach the CPU (docs/design.md). First
 * touches of guest pages are charged as page faults.
 *
 * Kernel paths are not constant: they run through the synthetic text's mix
 * of loads, stores and conditional branches (shared caches and predictor),
 * the branches taken or not as the data of the work at hand decides (a CPU's
 * kernel state folds in each entry's cycle, syscall number and sizes), and
 * the PMU handler's tail grows with the bytes it writes. A constant path
 * would make sampling lock onto loops, which hardware does not do. */
#include "machine/machine.h"
#include "machine/guest_perf.h"
#include "machine/machine_sysfs.h"
#include "guest/kimage.h"
#include "guest/loader.h"
#include "kernel/alpha_pmu.h"
#include "kernel/sim_pmu.h"
#include "kernel/truth.h"
#include "kernel/trace_pmu.h"
#include "kernel/perf_aux.h"
#include "util/assert.h"
#include "pmu/trace_unit.h"
#include "guest/shadow.h"
#include "guest/systab.h"
#include "unwind/unwind.h"
#include "isa/isa.h"
#include "util/err.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FDS 256
/* A task runs for this many ticks before the tick asks for a reschedule (3 ms
 * at HZ 1024, about what CFS gives each of two runnable tasks with its 6 ms
 * sched_latency; kernel/sched/fair.c). */
#define SLICE_TICKS 3
/* In timed runs the tick ends time slices; this bound on a round only keeps
 * a functional loop (no timer) responsive. */
#define TIMED_QUANTUM 50000000u

/* One CPU: its EV67 core and PMU, and what its timing hook tracks. */
struct mcpu {
  struct machine *m;
  int id;
  struct ev67 *core;
  struct ev67_pmu pmu;
  struct cpu_timing hook;
  uint64_t last_mm;          /* its serial: a freed mm's address may come back */
  uint64_t last_touched;
  uint64_t last_pc;              /* the previous instruction: the one that touched a page */
  uint64_t next_tick;            /* cycle of the next timer interrupt */
  unsigned slice_ticks;          /* ticks the running task has had */
  bool pmu_irq, timer_irq;       /* what the interrupt being taken is for */
  uint64_t kstate;               /* the data the kernel's branches and addresses depend on */
  /* The last entry into the kernel from user mode: the user frame it saved
   * (task_pt_regs), whose task, and what the entry was for (the callers of
   * shared kernel code follow it). */
  struct perf_regs entry_frame;
  int entry_tid;                 /* 0: none yet */
  int entry_act;
  uint64_t entry_nr;             /* the number of the last system call */
  /* The trace unit (docs/trace.md) and, on a functional CPU, the hook that
   * feeds it while it is on (a timed CPU feeds it from `before`). */
  struct trace_unit trace;
  struct cpu_timing trace_hook;
  bool trace_irq;                /* the interrupt being taken is the unit's */
  uint32_t trace_pid, trace_tid; /* the task on this CPU, kept by switch_hook for the unit */
  /* Sampled mode (docs/sampled.md; NULL smp: exact). In a warm stretch the
   * CPU runs warm_hook: instructions go through ev67_warm and count in
   * warm_n, and the clock runs at cpi (16.16 fixed point) per instruction;
   * warm_fold moves them into the core's clock, the PMU and the estimates. */
  struct smp *smp;
  struct cpu_timing warm_hook;
  bool warm;
  uint64_t steps;                /* user instructions through the core, warm_n not included */
  uint64_t kcycles;              /* cycles of the kernel's work (sampled mode: always timed) */
  uint64_t check_at;             /* detailed: steps at which the schedule is looked at next */
  uint64_t warm_n, warm_stop;    /* the stretch: instructions warmed; where it must stop and look */
  uint64_t cpi, cyc_frac;        /* cycles per instruction, and the fraction carried (16.16) */
  uint64_t ev_rate[EV67_STREAMS], ev_frac[EV67_STREAMS];   /* PMU events per instruction (16.16) */
  struct ev67_stats warm_prev;   /* ev67_warm_stats (user) at the last fold */
  /* What a fetch estimate is made of, summed over the units (wrong-path
   * fetches and mispredicts decayed, smp_take_rates): wrong-path fetches
   * and mispredicts, instructions killed by traps and traps. */
  double u_wp, u_mis, u_tk, u_traps;
  /* The last ProfileMe warm-up, timed in detail: its user fetches and
   * instructions at its start (pm_f0, pm_n0; pm_open while it runs), and
   * its fetches per instruction (16.16), 0 before the first. */
  uint64_t pm_f0, pm_n0, pm_recent;
  bool pm_open;
  uint64_t warm_plain;           /* instructions axp_run_warm ran without the hook (each one retire) */
  uint64_t warm_told;            /* of the skipped ones: told to warm_jit (retires in ev67's counts) */
  struct cpu *oc;                /* this CPU in the OS (its warm_skipped count) */
  uint64_t skip_seen;            /* oc->warm_skipped when last taken into warm_n */
  bool exit_pending;             /* stop the executor at the next instruction (to change its build) */
  bool switch_irq;               /* the "interrupt" being taken is only that stop */
};

struct machine {
  struct machine_opts opt;
  struct ev67_config uarch;      /* the cores' model: opt.uarch points here */
  struct os *os;
  int ncpus;
  struct mcpu cpu[MACHINE_MAX_CPUS];
  struct axp_insn *ktext;        /* the kernel text (kimage_word), decoded */
  size_t nktext;
  uint64_t tick_cycles;          /* cycles between timer interrupts */
  struct perf_ctx *perf;
  struct alpha_pmu *drv;
  struct sim_pmu *sim;
  struct trace_fw fw;            /* the trace units' firmware (PALcode) */
  struct trace_pmu *trace;       /* the trace PMU driver over them */
  struct truth *truth;           /* ground truth per instruction, when a tool asked */
  struct perf_event *fds[MAX_FDS];
  struct guest_perf *gperf;      /* the guests' perf_event_open */
  void (*poll)(void *ctx);
  void *poll_ctx;
  bool announced;                /* the first program's exec records were emitted */
  bool stopping, stopped;
  /* Record-time unwinding (machine_unwind_enable): the executable mappings
   * of every address space, as the MMAP2 records say, and a stack buffer. */
  struct unw *unw;
  struct umap { const struct guest_mm *mm; uint64_t start, end, pgoff; char *path; } *umaps;
  size_t numaps, cap_umaps;
  uint8_t *ustack;
  /* The true call stack of every sample (machine_callchain_truth). */
  machine_chain_fn chain_fn;
  void *chain_ctx;
  /* The trace driver's interrupt handler (the unit's half-full interrupt). */
  void (*trace_irq)(void *ctx, int cpu);
  void *trace_irq_ctx;
};

/* The CPU the OS is running now (CPU 0 between rounds). */
static struct mcpu *cur(struct machine *m) { return &m->cpu[m->os->cur_cpu > 0 ? m->os->cur_cpu : 0]; }

/* ---- time ---- */

#define FX 16                         /* the rates' fixed point */
#define FX_ONE (1ull << FX)

/* A warm stretch's clock from its last fold on; n0: the instructions
 * warmed since the fold when translated code's budget was set (the events'
 * `left` counts down from there). */
static struct ev67_warm_clock warm_clk(const struct mcpu *c, uint64_t n0)
{
  return (struct ev67_warm_clock){ ev67_now(c->core), n0, c->cpi, c->cyc_frac, FX };
}

/* The estimated clock of a warm stretch n instructions after its last fold. */
static uint64_t warm_clock(const struct mcpu *c, uint64_t n)
{
  const struct ev67_warm_clock clk = warm_clk(c, 0);
  return ev67_warm_cycle(&clk, n);
}

/* A timed CPU's clock in cycles: its core's, and in a warm stretch the
 * estimate of the instructions warmed since the last fold. */
static uint64_t mcpu_cycles(const struct mcpu *c)
{
  return c->warm ? warm_clock(c, c->warm_n + c->oc->warm_skipped - c->skip_seen) : ev67_now(c->core);
}

/* A timed CPU's busy time: its core's clock. */
static uint64_t cycle_ns(void *ctx, int cpu)
{
  struct machine *m = ctx;
  return mcpu_cycles(&m->cpu[cpu]) * 1000 / MACHINE_CLOCK_MHZ;
}

/* ---- sampled mode (docs/sampled.md) ---- */

#define STRETCH_MAX (1ull << 24)      /* instructions between looks at the schedule, at most */

static uint64_t fx(double x) { return x <= 0 ? 0 : (uint64_t)(x * (double)FX_ONE + 0.5); }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The counts a unit is measured by: the user instructions' cycles (the
 * kernel's work left out) and every user-mode ground-truth field. */
static void smp_counts(const struct mcpu *c, double *v)
{
  v[SMP_Q_CYCLES] = (double)(ev67_now(c->core) - c->kcycles);
  const uint64_t *u = (const uint64_t *)ev67_stats(c->core, false);
  for (size_t i = 0; i < SMP_NFIELDS; i++) v[SMP_Q_FIELD(i)] = (double)u[i];
}

/* A unit ended: the stretches to come run at its rates. Retires are not
 * estimated (warming counts them); their rate only bounds a stretch. The
 * fetched instructions' rate only plans a stretch: warm_fetches makes the
 * estimate. */
static void smp_take_rates(struct mcpu *c)
{
  const double *r = c->smp->rate, n = (double)c->smp->last_n;
  /* Wrong-path fetches per mispredict from the recent units (a weight of
   * 1/32 each, some 150 mispredicts on the demo), not all of them: the
   * first units' mispredicts (cold caches, late-resolving branches) fetch
   * more down the wrong path, and the whole-run ratio carried that into
   * every later stretch: the demo's estimate applied 43 a mispredict
   * against the exact run's 38, and record --sampled took 1.8% more
   * samples than the exact mode. */
  c->u_wp *= 1.0 - 1.0 / 32;
  c->u_mis *= 1.0 - 1.0 / 32;
  c->u_wp += r[SMP_Q(wrong_path)] * n;
  c->u_mis += (r[SMP_Q(cond_mispredicts)] + r[SMP_Q(jump_mispredicts)]) * n;
  c->u_tk += (r[SMP_Q(killed)] - r[SMP_Q(wrong_path)]) * n;
  c->u_traps += r[SMP_Q(traps)] * n;
  c->cpi = fx(r[SMP_Q_CYCLES]);
  if (!c->cpi) c->cpi = 1;
  c->ev_rate[EV67_STREAM_RETIRED] = 2 * FX_ONE;   /* a CMOV retires twice */
  c->ev_rate[EV67_STREAM_FETCHED] = fx(r[SMP_Q(fetched)]);
  c->ev_rate[EV67_STREAM_BCACHE] = fx(r[SMP_Q(bcache_misses)]);
  c->ev_rate[EV67_STREAM_REPLAYS] = fx(r[SMP_Q(replays)]);
}

/* Moves the stretch warmed so far into the core's clock (at the unit's
 * cycles per instruction), the PMU (its retires as warming counted them,
 * its fetches, B-cache misses and replays at the unit's rates) and the
 * estimates. The next instruction looks at the schedule again. */
/* The instructions axp_run_warm ran past the hook, into the stretch. */
static inline void warm_take_skipped(struct mcpu *c)
{
  uint64_t k = c->oc->warm_skipped - c->skip_seen;
  PM_ASSERT(k >= c->warm_told);
  c->skip_seen += k;
  c->warm_n += k;
  c->warm_plain += k - c->warm_told;
  c->warm_told = 0;
}

/* The fetched instructions of a stretch of n (16.16): warming knows its
 * retires, squashed NOPs, mispredicts and traps (DTB misses, unaligned
 * accesses) exactly; the units say how many wrong-path fetches a
 * mispredict brings and how many instructions a trap kills (replays are
 * estimated at the unit's rate). A unit's fetches per instruction alone
 * carried one phase's rate into the next: the DTB-missing pointer chase of
 * tests/sampled/phases.c fetches several times per instruction and got
 * half its samples. Until the units have seen both, their rate. */
static uint64_t warm_fetches(const struct mcpu *c, const struct ev67_stats *w, uint64_t n)
{
  const struct ev67_stats *p = &c->warm_prev;
  if (c->u_mis <= 0 || c->u_traps <= 0) return n * c->ev_rate[EV67_STREAM_FETCHED];
  double mis = (double)(w->cond_mispredicts - p->cond_mispredicts + w->jump_mispredicts - p->jump_mispredicts);
  double traps = (double)(w->dtb_misses - p->dtb_misses + w->unaligned - p->unaligned) +
                 (double)n * c->smp->rate[SMP_Q(replays)];
  double f = (double)(w->retired - p->retired + w->squashed_nops - p->squashed_nops + c->warm_plain) +
             mis * c->u_wp / c->u_mis + traps * c->u_tk / c->u_traps;
  return (uint64_t)(f * (double)FX_ONE);
}

static void warm_fold(struct mcpu *c)
{
  if (!c->warm) return;
  c->warm_stop = 0;
  warm_take_skipped(c);
  uint64_t n = c->warm_n;
  if (!n) return;
  c->warm_n = 0;
  uint64_t cyc = n * c->cpi + c->cyc_frac;
  c->cyc_frac = cyc & (FX_ONE - 1);
  ev67_stall(c->core, cyc >> FX);
  struct ev67_pmu_span sp;
  for (int k = 0; k < EV67_STREAMS; k++) {
    if (k == EV67_STREAM_RETIRED || k == EV67_STREAM_FETCHED) continue;   /* below */
    uint64_t v = n * c->ev_rate[k] + c->ev_frac[k];
    c->ev_frac[k] = v & (FX_ONE - 1);
    sp.n[k] = v >> FX;
  }
  const struct ev67_stats *w = ev67_warm_stats(c->core, false);
  sp.n[EV67_STREAM_RETIRED] = w->retired - c->warm_prev.retired + c->warm_plain;
  uint64_t f = warm_fetches(c, w, n) + c->ev_frac[EV67_STREAM_FETCHED];
  c->ev_frac[EV67_STREAM_FETCHED] = f & (FX_ONE - 1);
  sp.n[EV67_STREAM_FETCHED] = f >> FX;
  c->warm_prev = *w;
  c->warm_plain = 0;
  ev67_pmu_functional(&c->pmu, ev67_now(c->core), &sp);
  smp_charge(c->smp, n);
  c->steps += n;
}

/* The fetches a ProfileMe sample needs of detailed warm-up: W instructions'
 * worth at the fetch rate the timing model had in the last sample's
 * warm-up (a period ago: the same phase of the program, mostly), or the
 * last unit's before the first (at least W). Not the warm stretches'
 * estimate, nor the larger of the unit's and theirs, as before: a phase of
 * many wrong-path fetches (7 an instruction in a B-cache-missing walk)
 * then made the samples of the next phase take up to 7 W detailed
 * instructions each, and a short stretch's estimate with one mispredict
 * made the next sample look due at once (the machine stayed detailed for
 * a whole period): on the demo at -c 20011, 5,200 detailed instructions a
 * sample instead of 2,300. */
static uint64_t pm_rate(const struct mcpu *c)
{
  uint64_t r = c->pm_recent ? c->pm_recent : c->ev_rate[EV67_STREAM_FETCHED];
  return r > FX_ONE ? r : FX_ONE;
}

static uint64_t pm_margin(const struct mcpu *c)
{
  return (c->smp->p.warmup * pm_rate(c)) >> FX;
}

/* Whether a ProfileMe sample is due within the warm-up: the counter is
 * waiting and at most pm_margin fetches from its wrap. */
static bool pm_due(struct mcpu *c)
{
  struct ev67_pmu_span h;
  ev67_pmu_headroom(&c->pmu, &h);
  return h.n[EV67_STREAM_FETCHED] != UINT64_MAX && h.n[EV67_STREAM_FETCHED] <= pm_margin(c) + 1;
}

/* Instructions of the stretch in `cycles` cycles (rounded up). */
static uint64_t insns_in(const struct mcpu *c, uint64_t cycles)
{
  if (cycles >= STRETCH_MAX * 1024) return STRETCH_MAX;
  return ((cycles << FX) + c->cpi - 1) / c->cpi;
}

/* How long the next stretch may run before something needs the CPU: the
 * next window, the timer, a projected PMU interrupt, a counter's wrap at
 * the estimated rates, a ProfileMe sample's warm-up. At least one. */
static uint64_t stretch_length(struct mcpu *c)
{
  uint64_t now = ev67_now(c->core), n = STRETCH_MAX;
  n = min_u64(n, c->smp->next_start - c->steps);
  n = min_u64(n, insns_in(c, c->next_tick - now));
  uint64_t irq = ev67_pmu_irq_cycle(&c->pmu);
  if (irq != UINT64_MAX) n = min_u64(n, insns_in(c, irq - now));
  struct ev67_pmu_span h;
  ev67_pmu_headroom(&c->pmu, &h);
  for (int k = 0; k < EV67_STREAMS; k++) {
    uint64_t room = h.n[k];
    if (room == UINT64_MAX || !c->ev_rate[k]) continue;
    if (k == EV67_STREAM_FETCHED) {
      /* Half the way to the warm-up at the larger of the unit's and the
       * last stretch's rate: the fetch estimate follows the program's
       * phases, so the sample's warm-up starts where it should. */
      room = room > pm_margin(c) ? room - pm_margin(c) : 0;
      n = min_u64(n, (room << FX) / (2 * pm_rate(c)) + 1);
      continue;
    }
    n = min_u64(n, (room << FX) / c->ev_rate[k]);
  }
  return n ? n : 1;
}

static bool before(void *ctx, const struct uarch_insn *ui);

/* To the timing model from the next instruction on. */
static void set_detailed(struct mcpu *c)
{
  warm_take_skipped(c);
  c->warm = false;
  c->m->os->cpus[c->id].timing = &c->hook;
  c->m->os->cpus[c->id].warm_build = false;
  c->check_at = c->steps;
}

/* To functional warming from the next instruction on: the pipeline drains.
 * The executor is stopped at the next instruction to change to the warming
 * build, unless the trace unit or the shadow call stack needs every
 * instruction. */
static void set_warm(struct mcpu *c)
{
  if (c->pm_open && c->steps > c->pm_n0) {
    uint64_t f = ev67_stats(c->core, false)->fetched - c->pm_f0;
    c->pm_recent = (f << FX) / (c->steps - c->pm_n0);
  }
  c->pm_open = false;
  ev67_stall(c->core, 0);
  c->warm = true;
  c->warm_n = c->warm_stop = 0;
  struct cpu *oc = c->oc;
  c->skip_seen = oc->warm_skipped;
  oc->warm_line = ~0ull;
  oc->warm_build = !c->trace.on && !oc->shadow_on;
  c->exit_pending = oc->warm_build;
  oc->timing = &c->warm_hook;
}

/* Detailed mode reached check_at: start or end the unit, and go warm when
 * nothing needs the timing model (a unit measured already, outside the
 * window, no ProfileMe sample open or due). */
static void smp_check(struct mcpu *c)
{
  struct smp *s = c->smp;
  if (c->steps >= smp_next_event(s)) {
    double v[SMP_NQ];
    smp_counts(c, v);
    if (smp_detailed(s, c->steps, v)) smp_take_rates(c);
  }
  bool window = smp_in_window(s, c->steps);
  if (s->have_rate && !window && ev67_pmu_quiet(&c->pmu) && !pm_due(c)) {
    set_warm(c);
    return;
  }
  c->check_at = window || !s->have_rate ? smp_next_event(s) : c->steps + 1;
}

/* A warm stretch's first instruction or stopping point: fold it, take a
 * due interrupt, go detailed when a window or a ProfileMe sample is due,
 * else size the next stretch. Returns 1 to interrupt, 2 to time this
 * instruction in detail, 0 to warm it. */
static int warm_boundary(struct mcpu *c)
{
  warm_fold(c);
  uint64_t now = ev67_now(c->core);
  c->timer_irq = now >= c->next_tick;
  c->pmu_irq = ev67_pmu_irq_cycle(&c->pmu) <= now;
  if (c->timer_irq || c->pmu_irq) return 1;
  bool window = smp_in_window(c->smp, c->steps);
  if (window || pm_due(c)) {
    /* The executor stops before this instruction and comes back in the
     * timed build, which times it. */
    c->pm_open = !window;
    c->pm_f0 = ev67_stats(c->core, false)->fetched;
    c->pm_n0 = c->steps;
    set_detailed(c);
    c->switch_irq = true;
    return 1;
  }
  c->warm_stop = stretch_length(c);
  return 0;
}

static uint64_t perf_clock(void *ctx)
{
  struct machine *m = ctx;
  return os_now(m->os);
}

/* ---- the timed core ---- */

/* The decoded kernel instruction at pc, or NULL outside the text. */
static const struct axp_insn *ktext_at(const struct machine *m, uint64_t pc)
{
  uint64_t i = (pc - KIMAGE_TEXT_BASE) / 4;
  return pc >= KIMAGE_TEXT_BASE && i < m->nktext && m->ktext[i].raw ? &m->ktext[i] : NULL;
}

static const struct axp_insn *fetch_cb(void *ctx, uint64_t pc)
{
  struct mcpu *c = ctx;
  if (pc >= KIMAGE_TEXT_BASE) return ktext_at(c->m, pc);
  struct task *t = c->m->os->current;
  if (!t || !t->mm) return NULL;
  return axp_fetch_decoded(&c->m->os->cpus[c->id], t->mm, pc);
}

/* The ITB's translation for Icache fills: KSEG for the kernel, the running
 * task's page for user code (an unbacked address for a page without a frame:
 * a wrong-path fetch or a prefetch allocates nothing). */
static uint64_t xlate_cb(void *ctx, unsigned asn, uint64_t va)
{
  struct mcpu *c = ctx;
  (void)asn;
  if (va >= KIMAGE_KSEG) return va - KIMAGE_KSEG;
  struct task *t = c->m->os->current;
  bool fault = false;
  if (!t || !t->mm) return va | MM_PA_UNBACKED;
  return mm_phys(t->mm, va, 0, false, &fault);
}

static void fate_cb(void *ctx, const struct uop_fate *f)
{
  struct mcpu *c = ctx;
  /* The timing model emits in fetch order, as the PMU expects (ev67.h,
   * ev67_pmu.h; the PMU tolerates a late fate, its unit test feeds some). */
  PM_ASSERT(f->fetch >= c->pmu.max_fetch);
  ev67_pmu_observe(&c->pmu, f);
  if (c->m->truth) {
    const struct task *t = c->m->os->current;
    truth_observe(c->m->truth, f, t ? (int32_t)t->proc->pid : 0);
  }
  const struct machine_opts *o = &c->m->opt;
  if (o->dump_count && f->seq >= o->dump_from && f->seq < o->dump_from + o->dump_count)
    fprintf(stderr, "fate %llu pc %#llx fetch %llu map %llu issue %llu complete %llu end %llu flags %#x trap %u level %u\n",
            (unsigned long long)f->seq, (unsigned long long)f->pc, (unsigned long long)f->fetch,
            (unsigned long long)f->map, (unsigned long long)f->issue, (unsigned long long)f->complete,
            (unsigned long long)f->end, f->flags, f->trap, f->level);
}

/* ---- register frames, user memory and kernel chains for perf sampling ---- */

/* A task's user frame: its registers as the trap frame (pt_regs) and
 * rdusp() give them, at user pc. r9-r15 are not in pt_regs. */
static void user_frame(const struct task *t, uint64_t pc, struct perf_regs *f)
{
  memset(f, 0, sizeof *f);
  f->abi = PERF_SAMPLE_REGS_ABI_64;
  f->user = true;
  for (int i = 0; i < PERF_REG_ALPHA_PC; i++)
    if (!((PERF_REG_ALPHA_SWITCH_STACK_MASK >> i) & 1)) f->r[i] = t->ctx.r[i];
  f->r[PERF_REG_ALPHA_PC] = pc;
}

/* A kernel frame of task tid at pc with stack pointer sp: the kernel's
 * general registers are not modelled (it runs as host code), so only pc,
 * sp and ra (the return address into the caller, from the image's call
 * chain) are filled. */
static void kernel_frame(const struct mcpu *c, uint64_t pc, uint64_t sp, struct perf_regs *f)
{
  memset(f, 0, sizeof *f);
  f->abi = PERF_SAMPLE_REGS_ABI_64;
  uint64_t ips[2];
  if (kimage_callchain(pc, (enum kactivity)c->entry_act, c->entry_nr, ips, 2) == 2) f->r[PERF_REG_ALPHA_R26] = ips[1];
  f->r[PERF_REG_ALPHA_SP] = sp;
  f->r[PERF_REG_ALPHA_PC] = pc;
}

/* Entering the kernel from user mode saves the user frame (SAVE_ALL). */
static void note_entry(struct mcpu *c, int activity, uint64_t nr)
{
  struct task *t = c->m->os->current;
  if (!t || activity == KACT_PMU_OUTPUT || activity == KACT_SCHEDULE || activity == KACT_SIGNAL) return;
  user_frame(t, activity == KACT_PAGE_FAULT ? c->last_pc : t->ctx.pc, &c->entry_frame);
  c->entry_tid = t->tid;
  c->entry_act = activity;
  if (activity == KACT_SYSCALL) c->entry_nr = nr;   /* the last system call: __copy_user's caller */
}

static struct task *sample_task(struct machine *m, const struct perf_sample *s)
{
  struct task *t = m->os->current;
  return t && (uint32_t)t->tid == s->tid ? t : task_find(m->os, (int)s->tid);
}

/* perf's regs for sample s: a user-mode sample's frame is the interrupted
 * user state with the sample's ip as pc (as IBS sets regs->ip, so a
 * ProfileMe sample's pc is the profiled instruction); a kernel-mode one's
 * intr frame is the kernel frame at ip, with SP the end of the trap frame,
 * and its user frame the one the entry saved, or none in the entry window
 * before the frame is saved (patch 4). */
static void arch_regs(void *ctx, int cpu, const struct perf_sample *s, struct perf_regs *intr, struct perf_regs *user)
{
  struct machine *m = ctx;
  const struct mcpu *c = &m->cpu[cpu >= 0 && cpu < m->ncpus ? cpu : 0];
  struct task *t = sample_task(m, s);
  if (!t || !t->mm) return;
  if (!s->kernel) {
    user_frame(t, s->ip, user);
    *intr = *user;
    return;
  }
  kernel_frame(c, s->ip, kimage_kstack_top((uint32_t)t->tid), intr);
  if (kimage_in_entry_window(s->ip)) return;
  if (c->entry_tid == t->tid) *user = c->entry_frame;
  else user_frame(t, t->ctx.pc, user);   /* off the CPU: its saved state */
}

/* copy_from_user_nofault from the task's stack: page by page while pages
 * are readable and present (a page never touched would fault, so it ends
 * the copy), and not past the top of the main stack. */
static size_t arch_copy_user(void *ctx, int cpu, const struct perf_sample *s, uint64_t addr, void *buf, size_t len)
{
  struct machine *m = ctx;
  (void)cpu;
  struct task *t = sample_task(m, s);
  if (!t || !t->mm) return 0;
  if (addr < GUEST_STACK_TOP && len > GUEST_STACK_TOP - addr) len = (size_t)(GUEST_STACK_TOP - addr);
  size_t done = 0;
  while (done < len) {
    uint64_t a = addr + done, in_page = a & GUEST_PAGE_MASK, n = GUEST_PAGE_SIZE - in_page;
    const struct guest_page *pg = mm_page(t->mm, a);
    if (!pg || !(pg->prot & GUEST_PROT_READ) || !pg->host) break;
    if (n > len - done) n = len - done;
    memcpy((uint8_t *)buf + done, pg->host + in_page, n);
    done += n;
  }
  return done;
}

static size_t arch_kernel_chain(void *ctx, int cpu, const struct perf_regs *intr, uint64_t *ips, size_t max)
{
  struct machine *m = ctx;
  const struct mcpu *c = &m->cpu[cpu >= 0 && cpu < m->ncpus ? cpu : 0];
  return kimage_callchain(intr->r[PERF_REG_ALPHA_PC], (enum kactivity)c->entry_act, c->entry_nr, ips, max);
}

/* The scheduler's own frame for task t (perf_fetch_caller_regs in
 * __schedule): pc at schedule's call into perf, sp below the trap frame,
 * switch_stack and schedule's frame on t's kernel stack. */
#define SCHEDULE_FRAME 0x60
static void sched_frame(const struct mcpu *c, const struct task *t, struct perf_regs *f)
{
  uint64_t sp = kimage_kstack_top((uint32_t)t->tid) - KIMAGE_PT_REGS_SIZE - KIMAGE_SWITCH_STACK_SIZE - SCHEDULE_FRAME;
  kernel_frame(c, kimage_call_site(kimage_symbol("schedule")), sp, f);
}

static void sched_event(struct machine *m, int cpu, uint64_t config, struct task *t)
{
  struct perf_regs f;
  sched_frame(&m->cpu[cpu], t, &f);
  perf_sw_event_sched(m->perf, cpu, config, (uint32_t)t->proc->pid, (uint32_t)t->tid, &f);
}

static void task_sw_event(struct machine *m, int cpu, uint64_t config, struct task *t, uint64_t pc)
{
  if (!t) return;
  perf_sw_event(m->perf, cpu, config, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, pc >= KIMAGE_TEXT_BASE);
}

static uint64_t kmix(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Kernel data: a page per function, and per-task structures that move with
 * the work (the addresses a path touches are not always the same). */
#define KDATA_BASE 0xfffffc0001000000ull

/* Fills in what the core needs of kernel instruction d at pc: the branch
 * outcome and the data address, both from the CPU's kernel state. Each
 * branch has its own bias (most are nearly always one way, some follow the
 * data), as a kernel's do. Returns the next pc. */
static uint64_t kernel_operands(struct mcpu *c, struct uarch_insn *ui)
{
  const struct axp_insn *d = ui->d;
  uint64_t h = kmix(ui->pc), v = kmix(c->kstate ^ ui->pc);
  ui->taken = false;
  ui->ea = 0;
  ui->pa_valid = false;
  switch (axp_info[d->id].cls) {
  case AXP_CLS_IBR: {
    static const unsigned taken_pct[4] = { 50, 90, 10, 97 };
    ui->taken = v % 100 < taken_pct[h & 3];
    return ui->taken ? ui->pc + 4 + (uint64_t)(int64_t)d->imm : ui->pc + 4;
  }
  case AXP_CLS_ILD: case AXP_CLS_IST: {
    uint64_t page = (ui->pc - KIMAGE_TEXT_BASE) & ~0x1FFFull;
    ui->ea = KDATA_BASE + page + ((uint64_t)d->imm & 0x1FF8);
    if (h & 4) ui->ea += (c->kstate >> 3 & 0xF) * 0x2000;   /* one of 16 task structures */
    ui->pa = ui->ea - KIMAGE_KSEG;   /* KSEG: the kernel's reserved memory */
    ui->pa_valid = true;
    return ui->pc + 4;
  }
  default:
    return ui->pc + 4;
  }
}

/* Runs a kernel activity (kimage.h) through the core now. */
/* In a warm stretch, whether a kernel path of `insns` instructions must be
 * timed: a ProfileMe sample could come due inside it. */
static bool kernel_pm_close(struct mcpu *c, uint64_t insns)
{
  struct ev67_pmu_span h;
  ev67_pmu_headroom(&c->pmu, &h);
  return h.n[EV67_STREAM_FETCHED] != UINT64_MAX && h.n[EV67_STREAM_FETCHED] <= pm_margin(c) + 4 * insns;
}

/* The kernel-mode counts of a timed kernel path: its cycles and stats. */
static void kernel_counts(const struct ev67_stats *a, const struct ev67_stats *b, uint64_t cycles, double *v)
{
  const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
  v[SMP_Q_CYCLES] = (double)cycles;
  for (size_t i = 0; i < SMP_NFIELDS; i++) v[SMP_Q_FIELD(i)] = (double)(y[i] - x[i]);
}

/* A warmed kernel path of n instructions of kind key: its cycles and PMU
 * events at its kind's rates (its retires exactly). */
static void kernel_charge(struct mcpu *c, uint32_t key, uint64_t n, uint64_t retired)
{
  double r[SMP_NQ];
  if (!smp_kernel_charge(c->smp, key, (double)n, r)) return;
  uint64_t cyc = (uint64_t)((double)n * r[SMP_Q_CYCLES] + 0.5);
  ev67_stall(c->core, cyc);
  c->kcycles += cyc;
  struct ev67_pmu_span sp = { { 0 } };
  sp.n[EV67_STREAM_RETIRED] = retired;
  sp.n[EV67_STREAM_FETCHED] = (uint64_t)((double)n * r[SMP_Q(fetched)] + 0.5);
  sp.n[EV67_STREAM_BCACHE] = (uint64_t)((double)n * r[SMP_Q(bcache_misses)] + 0.5);
  sp.n[EV67_STREAM_REPLAYS] = (uint64_t)((double)n * r[SMP_Q(replays)] + 0.5);
  ev67_pmu_functional(&c->pmu, ev67_now(c->core), &sp);
}

/* Runs a kernel activity (kimage.h) through the core now. In a warm
 * stretch of sampled mode it is stratified by kind (sampling.h): timed in
 * detail when its kind asks or a ProfileMe sample is near, else warmed and
 * charged at its kind's rates. */
static void kernel_work(struct mcpu *c, int activity, uint64_t nr, uint64_t bytes)
{
  struct machine *m = c->m;
  struct kleg legs[8];
  size_t n = kimage_path((enum kactivity)activity, nr, bytes, legs, 8);
  warm_fold(c);
  uint64_t insns = 0;
  for (size_t i = 0; i < n; i++) insns += legs[i].insns;
  uint32_t key = (uint32_t)activity << 20 | (uint32_t)(nr & 0xFFFFF);
  bool warm = c->warm && !kernel_pm_close(c, insns) && !smp_kernel_time(c->smp, key);
  uint64_t t0 = ev67_now(c->core);
  struct ev67_stats k0 = { 0 }, w0 = { 0 };
  if (c->warm) {
    k0 = *ev67_stats(c->core, true);
    w0 = *ev67_warm_stats(c->core, true);
  }
  /* The data this entry works on: when it happens, what was asked. */
  c->kstate = kmix(c->kstate ^ ev67_now(c->core) ^ nr << 20 ^ bytes << 40 ^ (uint64_t)activity);
  note_entry(c, activity, nr);
  /* Entering the kernel (callsys, a trap, an interrupt) goes through PALcode:
   * the pipeline drains and fetch restarts at the handler, so nothing is
   * fetched ahead across the boundary. */
  if (activity != KACT_PMU_OUTPUT) ev67_stall(c->core, 0);
  if (activity == KACT_PAGE_FAULT) {
    /* do_page_fault, then mm_account_fault: a minor fault (no swap here) */
    task_sw_event(m, c->id, PERF_COUNT_SW_PAGE_FAULTS, m->os->current, c->last_pc);
    task_sw_event(m, c->id, PERF_COUNT_SW_PAGE_FAULTS_MIN, m->os->current, c->last_pc);
  }
  struct uarch_insn ui = { .kernel = true, .asn = 0 };
  for (size_t i = 0; i < n; i++) {
    uint64_t start = legs[i].sym->addr, end = start + legs[i].sym->size, pc = start;
    for (unsigned k = 0; k < legs[i].insns; k++) {
      ui.pc = pc;
      ui.d = ktext_at(m, pc);
      pc = kernel_operands(c, &ui);
      if (pc >= end) pc = start;     /* the path loops in its function */
      ui.next_pc = pc;
      if (warm) ev67_warm(c->core, &ui, ev67_now(c->core));
      else ev67_step(c->core, &ui);
    }
  }
  if (warm) {
    kernel_charge(c, key, insns, ev67_warm_stats(c->core, true)->retired - w0.retired);
    return;
  }
  c->kcycles += ev67_now(c->core) - t0;
  if (c->warm) {
    double v[SMP_NQ];
    kernel_counts(&k0, ev67_stats(c->core, true), ev67_now(c->core) - t0, v);
    smp_kernel_timed(c->smp, key, (double)insns, v);
  }
  /* A ProfileMe sample the kernel's work opened needs the fates that close it. */
  if (c->warm && !ev67_pmu_quiet(&c->pmu)) set_detailed(c);
}

/* The trace unit's kind of entry for system call nr (syscall.def's flags). */
static int syscall_kind(uint64_t nr)
{
  uint32_t f = sys_flags(nr);
  return f & SYSF_EXEC ? TRACE_ASYNC_EXEC : f & SYSF_SIGRETURN ? TRACE_ASYNC_SIGRETURN : TRACE_ASYNC_SYSCALL;
}

static void kernel_hook(void *ctx, int activity, uint64_t nr, uint64_t bytes)
{
  struct machine *m = ctx;
  struct mcpu *c = cur(m);
  if (activity == KACT_SYSCALL && c->trace.on && m->os->current)
    trace_unit_kernel_entry(&c->trace, syscall_kind(nr), m->os->current->ctx.pc);
  if (m->opt.timed) kernel_work(c, activity, nr, bytes);
}

/* The trace unit's half-full interrupt, taken before the next instruction
 * commits (the unit does not see that one until the task resumes). */
static bool trace_irq_due(struct mcpu *c)
{
  if (!trace_unit_irq(&c->trace)) return false;
  c->trace_irq = true;
  return true;
}

/* A timed CPU's instruction about to commit at cycle, for its trace unit. */
static bool trace_insn(struct mcpu *c, const struct uarch_insn *ui, uint64_t cycle)
{
  if (trace_irq_due(c)) return true;
  trace_unit_step(&c->trace, ui, cycle, c->trace_pid, c->trace_tid);
  return false;
}

/* A functional CPU's hook while its unit is on: one cycle per instruction. */
static bool trace_before(void *ctx, const struct uarch_insn *ui)
{
  struct mcpu *c = ctx;
  if (trace_irq_due(c)) return true;
  trace_unit_step_derived(&c->trace, ui, c->trace_pid, c->trace_tid);
  return false;
}

static uint64_t trace_now(void *ctx)
{
  struct mcpu *c = ctx;
  return c->core ? mcpu_cycles(c) : trace_unit_derived_cycle(&c->trace);
}

/* The firmware started or stopped a unit: a functional CPU runs the hooked
 * executor only while its unit is on, so tracing off costs nothing. */
static void trace_power(void *ctx, int cpu, bool on)
{
  struct machine *m = ctx;
  if (m->opt.timed) return;
  m->os->cpus[cpu].timing = on ? &m->cpu[cpu].trace_hook : NULL;
}

/* Pages touched for the first time since the last instruction were page
 * faults (demand-zero or file pages) in a real kernel. */
static void note_faults(struct mcpu *c, const struct uarch_insn *ui)
{
  struct task *t = c->m->os->current;
  if (!t || !t->mm) return;
  if (t->mm->serial != c->last_mm) {
    c->last_mm = t->mm->serial;
    c->last_touched = t->mm->pages_touched;
  } else if (t->mm->pages_touched != c->last_touched) {
    uint64_t n = t->mm->pages_touched - c->last_touched;
    /* The touch was this instruction's own (its access took the frame
     * before it runs): the fault is at its pc. */
    if (ui->fault) c->last_pc = ui->pc;
    /* Charged once, here: the other CPUs running this address space's
     * threads have seen these touches too. */
    for (int i = 0; i < c->m->ncpus; i++)
      if (c->m->cpu[i].last_mm == t->mm->serial) c->m->cpu[i].last_touched = t->mm->pages_touched;
    for (uint64_t i = 0; i < n && i < 64; i++) kernel_work(c, KACT_PAGE_FAULT, 0, 0);
  }
}

static bool before(void *ctx, const struct uarch_insn *ui)
{
  struct mcpu *c = ctx;
  note_faults(c, ui);
  const struct uop_fate *f = ev67_step(c->core, ui);
  c->steps++;
  c->last_pc = ui->pc;
  /* The kernel's unaligned fix-up (entUna, do_entUna) runs after the trap. */
  if (f->flags & FATE_UNALIGNED) kernel_work(c, KACT_UNALIGNED, 0, 0);
  /* An interrupt that reached the CPU before this instruction retires is
   * taken before it commits: its PC is the exception PC. */
  c->pmu_irq = ev67_pmu_irq_cycle(&c->pmu) < f->end;
  c->timer_irq = f->end >= c->next_tick;
  if (__builtin_expect(c->smp != NULL, 0) && c->steps >= c->check_at) smp_check(c);
  if (c->pmu_irq || c->timer_irq) return true;
  return __builtin_expect(c->trace.on, 0) && trace_insn(c, ui, f->end);
}

/* Translated code may run the stretch's rest (cpu_timing.room): the
 * stretch's stopping point and everything else are warm_before's. */
static uint64_t warm_room(void *ctx)
{
  struct mcpu *c = ctx;
  if (!c->warm || c->exit_pending || c->trace.on) return 0;
  warm_take_skipped(c);
  return c->warm_n < c->warm_stop ? c->warm_stop - c->warm_n : 0;
}

/* The instructions translated code describes (cpu_timing.warm): warmed at
 * the estimated cycle, as warm_before would. Their pages have TLB entries,
 * so no fault; their accesses are aligned (a misaligned one leaves for the
 * interpreter). */
static void warm_jit(void *ctx, const struct jit_warm_event *ev, size_t n)
{
  struct mcpu *c = ctx;
  const struct ev67_warm_clock clk =
      warm_clk(c, c->warm_n + c->oc->warm_skipped - c->skip_seen + c->oc->warm_budget0);
  ev67_warm_events(c->core, c->oc->asn, ev, &clk, n);
  c->warm_told += n;
}

/* A warm stretch's instruction: warmed, its time estimated. */
static bool warm_before(void *ctx, const struct uarch_insn *ui)
{
  struct mcpu *c = ctx;
  if (__builtin_expect(c->exit_pending, 0)) {
    c->exit_pending = false;
    c->switch_irq = true;
    return true;
  }
  warm_take_skipped(c);
  if (c->warm_n >= c->warm_stop) {
    int r = warm_boundary(c);
    if (r == 1) return true;
    if (r == 2) return before(ctx, ui);
    note_faults(c, ui);
    if (!c->warm) return before(ctx, ui);
  }
  /* note_faults where a page can have been touched first: this access's
   * own fault, or a fetch from another code page (the start of a stretch
   * looks too, and a task switch or an exec ends the stretch). The fault's
   * kernel work may open a ProfileMe sample: then this one is timed. */
  if (__builtin_expect(ui->fault || ((ui->pc ^ c->last_pc) >> 13), 0)) {
    note_faults(c, ui);
    if (!c->warm) return before(ctx, ui);
  }
  /* mcpu_cycles, the skipped instructions just taken */
  bool unaligned = ev67_warm(c->core, ui, warm_clock(c, c->warm_n));
  c->warm_n++;
  c->last_pc = ui->pc;
  if (unaligned) kernel_work(c, KACT_UNALIGNED, 0, 0);
  return __builtin_expect(c->trace.on, 0) && trace_insn(c, ui, mcpu_cycles(c));
}

/* The timer interrupt: kernel work, perf's tick (unthrottling, frequency,
 * multiplexing, software clocks), the time slice, and the tool's poll. */
static void timer_tick(struct mcpu *c, struct task *t)
{
  struct machine *m = c->m;
  uint64_t pc = t->ctx.pc;
  kernel_work(c, KACT_TIMER, 0, 0);
  uint64_t now = mcpu_cycles(c);
  while (c->next_tick <= now) c->next_tick += m->tick_cycles;
  perf_ctx_tick(m->perf, c->id, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, pc >= KIMAGE_TEXT_BASE);
  if (++c->slice_ticks >= SLICE_TICKS) {
    os_resched(m->os);
    c->slice_ticks = 0;
  }
  if (m->poll) m->poll(m->poll_ctx);
}

static void irq_hook(void *ctx, struct task *t)
{
  struct machine *m = ctx;
  struct mcpu *c = cur(m);
  if (c->switch_irq && !c->pmu_irq && !c->timer_irq && !c->trace_irq) {
    c->switch_irq = false;   /* only a change of executor build */
    return;
  }
  c->switch_irq = false;
  if (c->trace.on) trace_unit_kernel_entry(&c->trace, TRACE_ASYNC_INTERRUPT, 0);
  if (c->trace_irq) {
    c->trace_irq = false;
    if (m->opt.timed) kernel_work(c, KACT_INTERRUPT, 0, 0);
    if (m->trace_irq) m->trace_irq(m->trace_irq_ctx, c->id);
  }
  if (c->pmu_irq) {
    kernel_work(c, KACT_INTERRUPT, 0, 0);
    uint64_t pc = t->ctx.pc, out = perf_ctx_output_bytes(m->perf);
    alpha_pmu_irq(m->drv, c->id, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, pc >= KIMAGE_TEXT_BASE);
    kernel_work(c, KACT_PMU_OUTPUT, 0, perf_ctx_output_bytes(m->perf) - out);
  }
  if (c->timer_irq) timer_tick(c, t);
  c->pmu_irq = c->timer_irq = false;
}

/* ---- the kernel's side-band records and scheduling events ---- */

/* The task as perf's scheduling sees it: ids and the process ancestry
 * (for inherited events). */
static void perf_task_of(const struct task *t, struct perf_task *pt)
{
  pt->pid = (uint32_t)t->proc->pid;
  pt->tid = (uint32_t)t->tid;
  pt->nancestors = 0;
  for (const struct process *p = t->proc->parent; p && pt->nancestors < PERF_TASK_ANCESTORS; p = p->parent)
    pt->ancestors[pt->nancestors++] = (uint32_t)p->pid;
}


/* ---- record-time unwinding and the true call stacks ---- */

static void umaps_drop(struct machine *m, const struct guest_mm *mm)
{
  size_t k = 0;
  for (size_t i = 0; i < m->numaps; i++) {
    if (m->umaps[i].mm == mm) free(m->umaps[i].path);
    else m->umaps[k++] = m->umaps[i];
  }
  m->numaps = k;
}

static void umaps_add(struct machine *m, const struct guest_mm *mm, uint64_t start, uint64_t end, uint64_t pgoff,
                      const char *path)
{
  if (m->numaps == m->cap_umaps) {
    size_t cap = m->cap_umaps ? 2 * m->cap_umaps : 16;
    struct umap *n = realloc(m->umaps, cap * sizeof *n);
    if (!n) return;              /* the chains through it end as "no mapping" */
    m->umaps = n;
    m->cap_umaps = cap;
  }
  char *p = strdup(path);
  if (!p) return;
  m->umaps[m->numaps++] = (struct umap){ mm, start, end, pgoff, p };
}

/* What the unwinder needs of address spaces: exec empties one, a fork's
 * copy gets the parent's mappings (the mm may reuse a freed one's address). */
static void umaps_event(struct machine *m, const struct task_event *e)
{
  switch (e->kind) {
  case TEV_EXEC: umaps_drop(m, e->t->mm); break;
  case TEV_MMAP: umaps_add(m, e->t->mm, e->addr, e->addr + e->len, e->pgoff, e->path); break;
  case TEV_FORK:
    if (e->t->mm == e->parent->mm) break;
    umaps_drop(m, e->t->mm);
    for (size_t i = 0, n = m->numaps; i < n; i++)
      if (m->umaps[i].mm == e->parent->mm)
        umaps_add(m, e->t->mm, m->umaps[i].start, m->umaps[i].end, m->umaps[i].pgoff, m->umaps[i].path);
    break;
  case TEV_EXIT: break;
  }
}

struct unwind_ctx { struct machine *m; const struct guest_mm *mm; };

static bool unwind_find_map(void *ctx, uint64_t addr, struct unw_map *map)
{
  const struct unwind_ctx *u = ctx;
  for (size_t i = u->m->numaps; i-- > 0;) {
    const struct umap *p = &u->m->umaps[i];
    if (p->mm == u->mm && addr >= p->start && addr < p->end) {
      *map = (struct unw_map){ p->path, p->start, p->pgoff };
      return true;
    }
  }
  return false;
}

#define USTACK_MAX (64 * 1024)   /* the stack the record-time unwinder reads (perf's dwarf dump is at most 65528) */

static size_t arch_copy_user(void *ctx, int cpu, const struct perf_sample *s, uint64_t addr, void *buf, size_t len);

/* The pc where the user frame's registers are: a user-mode ProfileMe
 * sample's user frame has the profiled instruction as its pc, which may
 * lie several instructions (a call, a return) before the interrupted
 * state its other registers are from. The chain is the interrupted
 * state's, as Linux's callchain comes from the interrupt regs (x86 PEBS
 * and IBS: perf_callchain(event, iregs)). */
static uint64_t interrupted_pc(const struct task *t, const struct perf_sample *s, const struct perf_regs *user)
{
  return s->kernel ? user->r[PERF_REG_ALPHA_PC] : t->ctx.pc;
}

static uint64_t arch_interrupted_pc(void *ctx, int cpu, const struct perf_sample *s)
{
  struct machine *m = ctx;
  (void)cpu;
  struct task *t = sample_task(m, s);
  return t ? t->ctx.pc : s->ip;
}

/* The user chain from the user frame with every register (r9-r15 too:
 * callee-saved, they are the task's own even during a system call) and the
 * task's stack as it is now. An unwind that stopped before the outermost
 * frame ends the chain where it stopped and is marked: an empty
 * PERF_CONTEXT_USER context follows (docs/callgraph.md; perf reads a
 * context with no entries as nothing), in the last slot when the chain
 * fills max. */
static size_t arch_user_chain(void *ctx, int cpu, const struct perf_sample *s, const struct perf_regs *user,
                              uint64_t *ips, size_t max)
{
  struct machine *m = ctx;
  struct task *t = sample_task(m, s);
  if (!t || !t->mm) return 0;
  struct unw_regs regs = { .mask = (1ull << UNW_NREGS) - 1 };
  for (int i = 0; i < UNW_NREGS; i++) regs.r[i] = user->r[i];
  for (int i = 9; i <= 15; i++) regs.r[i] = t->ctx.r[i];
  regs.r[UNW_REG_PC] = interrupted_pc(t, s, user);
  uint64_t sp = regs.r[UNW_REG_SP];
  struct unw_stack st = { m->ustack, sp, arch_copy_user(m, cpu, s, sp, m->ustack, USTACK_MAX) };
  struct unwind_ctx uc = { m, t->mm };
  struct unw_result res;
  unw_unwind(m->unw, &regs, &st, unwind_find_map, &uc, max < UNW_MAX_DEPTH ? (unsigned)max : UNW_MAX_DEPTH, &res);
  size_t n = res.n;
  if (res.status != UNW_COMPLETE && n > 0 && max > 1) {
    if (n >= max) n = max - 1;
    memcpy(ips, res.pc, n * sizeof ips[0]);
    ips[n++] = (uint64_t)PERF_CONTEXT_USER;
    return n;
  }
  memcpy(ips, res.pc, n * sizeof ips[0]);
  return n;
}

/* The true stack of sample s: its user pc, then the shadow's return addresses. */
static void arch_sampled(void *ctx, int cpu, const struct perf_sample *s, const struct perf_regs *user, uint64_t time)
{
  struct machine *m = ctx;
  (void)cpu;
  struct task *t = sample_task(m, s);
  if (!t || user->abi == PERF_SAMPLE_REGS_ABI_NONE) return;
  uint64_t chain[1 + UNW_MAX_DEPTH];
  chain[0] = interrupted_pc(t, s, user);
  int n = shadow_read(t, chain + 1, UNW_MAX_DEPTH);
  m->chain_fn(m->chain_ctx, s->pid, s->tid, time, chain, n < 0 ? -1 : n + 1);
}

static void set_arch(struct machine *m);

int machine_unwind_enable(struct machine *m)
{
  if (m->unw) return 0;
  m->unw = unw_create(NULL);
  m->ustack = malloc(USTACK_MAX);
  if (!m->unw || !m->ustack) return -ENOMEM;
  set_arch(m);
  return 0;
}

int machine_callchain_truth(struct machine *m, machine_chain_fn fn, void *ctx)
{
  if (!m->opt.timed) return -EOPNOTSUPP;
  m->chain_fn = fn;
  m->chain_ctx = ctx;
  os_shadow_enable(m->os);
  set_arch(m);
  return 0;
}

static void task_hook(void *ctx, const struct task_event *e)
{
  struct machine *m = ctx;
  struct perf_task pt;
  perf_task_of(e->t, &pt);
  if (m->unw) umaps_event(m, e);
  int cpu = m->os->cur_cpu >= 0 ? m->os->cur_cpu : 0;
  switch (e->kind) {
  case TEV_EXEC:
    guest_perf_exec(m->gperf, e->t);
    perf_record_comm(m->perf, cpu, &pt, task_comm(e->t), true);
    break;
  case TEV_MMAP:
    perf_record_mmap2(m->perf, cpu, &pt, e->addr, e->len, e->pgoff, e->prot, e->flags, e->path);
    break;
  case TEV_FORK:
    if (m->gperf) guest_perf_fork(m->gperf, e->parent, e->t);
    perf_record_fork(m->perf, cpu, &pt, (uint32_t)e->parent->proc->pid, (uint32_t)e->parent->tid);
    break;
  case TEV_EXIT:
    perf_record_exit(m->perf, cpu, &pt, (uint32_t)e->t->proc->ppid);
    if (m->gperf) guest_perf_exit(m->gperf, e->t);
    break;
  }
}

/* A CPU changes task (__schedule): the context switch counts for the task
 * leaving, whose events come off; the one coming in brings its events (and
 * a migration when it last ran elsewhere); the scheduler's kernel work. */
static void switch_hook(void *ctx, int cpu, struct task *prev, struct task *next, bool migrated)
{
  struct machine *m = ctx;
  struct mcpu *c = &m->cpu[cpu];
  warm_fold(c);   /* another task: the next instruction looks at the stretch again */
  c->slice_ticks = 0;
  c->trace_pid = next ? (uint32_t)next->proc->pid : 0;
  c->trace_tid = next ? (uint32_t)next->tid : 0;
  struct perf_task pp, pn;
  if (prev) perf_task_of(prev, &pp);
  if (next) perf_task_of(next, &pn);
  if (prev) {
    sched_event(m, cpu, PERF_COUNT_SW_CONTEXT_SWITCHES, prev);   /* to a task or to idle */
    perf_record_switch(m->perf, cpu, &pp, next ? &pn : NULL, true, prev->state == TASK_RUNNABLE);
    perf_sched_out(m->perf, cpu);
  }
  if (!next) return;
  perf_sched_in(m->perf, cpu, &pn);
  perf_record_switch(m->perf, cpu, &pn, prev ? &pp : NULL, false, false);
  if (migrated) sched_event(m, cpu, PERF_COUNT_SW_CPU_MIGRATIONS, next);
  if (prev && m->opt.timed) kernel_work(c, KACT_SCHEDULE, 0, 0);
}

/* After each round: the tick of an untimed machine (it has no timer
 * interrupt), the tool's poll, and the end of the workload after
 * machine_stop. */
static void slice_hook(void *ctx)
{
  struct machine *m = ctx;
  struct task *t = m->os->current;
  uint64_t pc = t ? t->ctx.pc : 0;
  if (!m->opt.timed && t)
    perf_ctx_tick(m->perf, m->os->cur_cpu, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, pc >= KIMAGE_TEXT_BASE);
  guest_perf_poll(m->gperf);
  if (m->poll) m->poll(m->poll_ctx);
  if (m->stopping && !m->stopped) {
    m->stopped = true;
    for (struct task *o = m->os->tasks; o; o = o->next)
      if (o->state < TASK_ZOMBIE) task_exit(m->os, o, GSIG_INT, true);
  }
}

/* ---- what the PMU drivers need ---- */

/* The driver reads or programs the PMU: a warm stretch is folded first, so
 * the counters hold its events. */
static uint64_t drv_now(void *ctx, int cpu)
{
  struct machine *m = ctx;
  warm_fold(&m->cpu[cpu]);
  return ev67_now(m->cpu[cpu].core);
}

static bool insn_at(void *ctx, uint64_t pc, uint32_t *word)
{
  struct machine *m = ctx;
  if (pc >= KIMAGE_TEXT_BASE) { *word = kimage_word(pc); return *word != 0; }
  struct task *t = m->os->current;
  if (!t || !t->mm) return false;
  return mm_read(t->mm, pc, word, 4, false) == 0;
}

static bool truth_is_jump(void *ctx, uint64_t pc)
{
  uint32_t w;
  if (!insn_at(ctx, pc, &w)) return false;
  struct axp_insn d = axp_decode(w);
  return d.id < AXP_NUM_IDS && axp_info[d.id].format == AXP_FMT_JMP;
}

static uint64_t drv_random(void *ctx)
{
  struct machine *m = ctx;
  return os_random(m->os);
}

/* The detailed counts, and in sampled mode the warmed stretches' estimates. */
static void est_stats(const struct mcpu *c, bool kernel, struct ev67_stats *s)
{
  *s = *ev67_stats(c->core, kernel);
  if (!c->smp) return;
  uint64_t *v = (uint64_t *)s;
  for (size_t i = 0; i < SMP_NFIELDS; i++)
    v[i] += (uint64_t)((kernel ? c->smp->kest : c->smp->est)[SMP_Q_FIELD(i)] + 0.5);
}

static void sim_totals(void *ctx, int cpu, bool kernel, struct ev67_stats *s, uint64_t *cycles)
{
  struct machine *m = ctx;
  warm_fold(&m->cpu[cpu]);
  est_stats(&m->cpu[cpu], kernel, s);
  *cycles = ev67_now(m->cpu[cpu].core);
}

/* ---- life cycle ---- */

/* Decodes the kernel text once (the wrong-path fetch and the kernel paths
 * read it). Returns 0 or -1. */
static int build_ktext(struct machine *m)
{
  size_t nk;
  const struct ksym *ks = kimage_symbols(&nk);
  m->nktext = (size_t)(ks[nk - 1].addr + ks[nk - 1].size - KIMAGE_TEXT_BASE) / 4;
  m->ktext = calloc(m->nktext, sizeof *m->ktext);
  if (!m->ktext) return -1;
  for (size_t i = 0; i < m->nktext; i++) {
    uint32_t w = kimage_word(KIMAGE_TEXT_BASE + 4 * i);
    if (w) m->ktext[i] = axp_decode(w);
  }
  return 0;
}

/* The unit's half-full interrupt goes to the trace driver. */
static void trace_irq_default(void *ctx, int cpu)
{
  struct machine *m = ctx;
  trace_pmu_irq(m->trace, cpu);
}

static int attach_cpu(struct machine *m, int id)
{
  struct mcpu *c = &m->cpu[id];
  c->m = m;
  c->id = id;
  c->oc = &m->os->cpus[id];
  trace_unit_init(&c->trace, &m->os->cpus[id].icount, trace_now, c, m->opt.os.seed * 8 + (uint64_t)id);
  c->trace_hook = (struct cpu_timing){ .before = trace_before, .ctx = c };
  m->fw.units[id] = &c->trace;
  m->fw.nunits = id + 1;
  if (!m->opt.timed) return 0;
  ev67_pmu_init(&c->pmu, 0);
  c->core = ev67_create(&m->uarch, fetch_cb, fate_cb, c);
  if (!c->core) return -1;
  ev67_set_xlate(c->core, xlate_cb, c);
  c->next_tick = m->tick_cycles;
  c->hook = (struct cpu_timing){ .before = before, .ctx = c };
  c->warm_hook = (struct cpu_timing){ .before = warm_before, .ctx = c, .room = warm_room, .warm = warm_jit };
  m->os->cpus[id].timing = &c->hook;
  if (m->opt.sampled.unit) {
    /* Detailed until the first unit has been measured. */
    if (!(c->smp = malloc(sizeof *c->smp))) return -1;
    smp_init(c->smp, &m->opt.sampled, m->opt.os.seed * 8 + (uint64_t)id);
    c->check_at = smp_next_event(c->smp);
  }
  return 0;
}

struct machine *machine_create(const struct machine_opts *o)
{
  struct machine *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->opt = *o;
  m->uarch = o->uarch ? *o->uarch : ev67_default_config;
  m->opt.uarch = &m->uarch;
  m->ncpus = o->ncpus ? o->ncpus : 1;
  if (m->ncpus < 1 || m->ncpus > MACHINE_MAX_CPUS) { free(m); return NULL; }
  if (o->sampled.unit && (!o->timed || smp_params_check(&o->sampled))) { free(m); return NULL; }
  struct os_opts oo = o->os;
  oo.ncpus = m->ncpus;
  if (o->timed && !oo.quantum) oo.quantum = TIMED_QUANTUM;
  m->os = os_create(&oo);
  if (!m->os) { free(m); return NULL; }
  if (build_ktext(m)) { machine_destroy(m); return NULL; }
  m->tick_cycles = (uint64_t)MACHINE_CLOCK_MHZ * 1000000 / MACHINE_HZ;
  m->os->hooks = (struct os_hooks){ .kernel = kernel_hook, .task = task_hook, .slice = slice_hook,
                                    .switch_to = switch_hook, .irq = irq_hook, .ctx = m };
  if (o->timed) m->os->hooks.clock = cycle_ns;
  m->fw = (struct trace_fw){ .phys = os_phys(m->os), .phys_bytes = PHYS_DEFAULT_BYTES, .power = trace_power, .ctx = m };
  struct perf_sysctl sys = o->perf;
  sys.hz = MACHINE_HZ;
  sys.ncpus = m->ncpus;
  m->perf = perf_ctx_create(&sys, os_phys(m->os), perf_clock, m);
  if (!m->perf) { machine_destroy(m); return NULL; }
  perf_pmu_register(m->perf, perf_sw_pmu());
  if (!(m->gperf = guest_perf_create(m->os, m->perf, o->perf.privileged))) { machine_destroy(m); return NULL; }
  set_arch(m);
  for (int i = 0; i < m->ncpus; i++)
    if (attach_cpu(m, i)) { machine_destroy(m); return NULL; }
  if (!(m->trace = trace_pmu_create(m->perf, &m->fw))) { machine_destroy(m); return NULL; }
  machine_set_trace_irq(m, trace_irq_default, m);
  if (o->timed) {
    struct alpha_pmu_env env = { .now = drv_now, .insn_at = insn_at, .random = drv_random, .ctx = m };
    for (int i = 0; i < m->ncpus; i++) env.hw[i] = &m->cpu[i].pmu;
    m->drv = alpha_pmu_create(m->perf, &env);
    const struct sim_pmu_env senv = { sim_totals, m };
    m->sim = sim_pmu_create(m->perf, &senv);
    if (!m->drv || !m->sim) { machine_destroy(m); return NULL; }
  }
  /* Without the files the guest sees the host's, as before (no reason to
   * refuse the machine). */
  (void)machine_sysfs_publish(m->os, perf_ctx_sysctl(m->perf), o->timed);
  return m;
}

static void arch_overflow(void *ctx, int cpu, struct perf_event *e, const struct perf_sample *s, bool hup)
{
  struct machine *m = ctx;
  guest_perf_overflow(m->gperf, cpu, e, s, hup);
}

static void set_arch(struct machine *m)
{
  const struct perf_arch arch = { .regs = arch_regs, .copy_user = arch_copy_user, .kernel_chain = arch_kernel_chain,
                                  .interrupted_pc = arch_interrupted_pc,
                                  .user_chain = m->unw ? arch_user_chain : NULL,
                                  .sampled = m->chain_fn ? arch_sampled : NULL, .overflow = arch_overflow,
                                  .ctx = m };
  perf_ctx_set_arch(m->perf, &arch);
}

void machine_destroy(struct machine *m)
{
  if (!m) return;
  unw_destroy(m->unw);
  for (size_t i = 0; i < m->numaps; i++) free(m->umaps[i].path);
  free(m->umaps);
  free(m->ustack);
  for (int i = 0; i < MAX_FDS; i++) if (m->fds[i]) perf_event_close(m->fds[i]);
  guest_perf_destroy(m->gperf);
  perf_ctx_destroy(m->perf);
  trace_pmu_destroy(m->trace);
  alpha_pmu_destroy(m->drv);
  sim_pmu_destroy(m->sim);
  truth_destroy(m->truth);
  for (int i = 0; i < m->ncpus; i++) {
    if (m->os) m->os->cpus[i].timing = NULL;
    ev67_destroy(m->cpu[i].core);
    smp_free(m->cpu[i].smp);
    free(m->cpu[i].smp);
    trace_unit_fini(&m->cpu[i].trace);
  }
  os_destroy(m->os);
  free(m->ktext);
  free(m);
}

int machine_spawn(struct machine *m, int argc, char *const *argv, char *const *envp,
                  char *detail, size_t detail_len)
{
  return os_spawn(m->os, argv[0], argc, argv, envp, detail, detail_len);
}

int machine_init_pid(const struct machine *m) { return m->os->init_pid; }
struct os *machine_os(struct machine *m) { return m->os; }
void machine_stop(struct machine *m) { m->stopping = true; }

void machine_set_poll(struct machine *m, void (*fn)(void *ctx), void *ctx)
{
  m->poll = fn;
  m->poll_ctx = ctx;
}

int machine_run(struct machine *m)
{
  /* The first program was exec'd before the tool's events existed; as for a
   * workload perf forks and then lets exec, its COMM and MMAPs come now. */
  if (!m->announced && m->os->tasks) {
    m->announced = true;
    os_announce(m->os, m->os->tasks);
  }
  int status = os_run(m->os);
  if (m->poll) m->poll(m->poll_ctx);
  return status;
}

void machine_progress(const struct machine *m, struct machine_progress *p)
{
  memset(p, 0, sizeof *p);
  for (int i = 0; i < m->ncpus; i++) {
    p->insns += m->os->cpus[i].icount;
    if (m->opt.timed) p->cycles += mcpu_cycles(&m->cpu[i]);
  }
  p->ns = m->os->time_hwm;
}

bool machine_sim_stats(const struct machine *m, struct ev67_stats *s, uint64_t *cycles)
{
  if (!m->opt.timed) return false;
  memset(s, 0, sizeof *s);
  *cycles = 0;
  for (int i = 0; i < m->ncpus; i++) {
    for (int kernel = 0; kernel < 2; kernel++) {
      struct ev67_stats e;
      est_stats(&m->cpu[i], kernel, &e);
      const uint64_t *src = (const uint64_t *)&e;
      uint64_t *dst = (uint64_t *)s;
      for (size_t k = 0; k < sizeof *s / sizeof(uint64_t); k++) dst[k] += src[k];
    }
    *cycles += mcpu_cycles(&m->cpu[i]);
  }
  return true;
}

bool machine_sampled_info(const struct machine *m, struct machine_sampled *s)
{
  memset(s, 0, sizeof *s);
  if (!m->opt.sampled.unit) return false;
  for (int i = 0; i < m->ncpus; i++) {
    const struct mcpu *c = &m->cpu[i];
    s->units += c->smp->units;
    s->insns_unit += c->smp->steps_unit;
    s->insns_warm += c->smp->steps_warm + c->warm_n;
    s->insns += c->steps + c->warm_n;
  }
  return true;
}

double machine_sampled_halfwidth(const struct machine *m, int cpu, unsigned q)
{
  if (!m->opt.sampled.unit) return 0;
  double var = 0;
  for (int i = 0; i < m->ncpus; i++)
    if (cpu < 0 || cpu == i) var += smp_variance(m->cpu[i].smp, q);
  return 1.959963984540054 * sqrt(var);
}

int machine_truth_enable(struct machine *m)
{
  if (!m->opt.timed) return -EOPNOTSUPP;
  if (!m->truth && !(m->truth = truth_create(truth_is_jump, m))) return -ENOMEM;
  return 0;
}

int machine_truth_read(const struct machine *m, struct pm_truth_entry **out, size_t *n)
{
  *out = NULL;
  *n = 0;
  return m->truth ? truth_export(m->truth, out, n) : -EINVAL;
}

/* ---- the perf system calls ---- */

static struct perf_event *fd_event(struct machine *m, int fd)
{
  return fd >= 0 && fd < MAX_FDS ? m->fds[fd] : NULL;
}

int machine_perf_open(struct machine *m, const struct perf_event_attr *attr, int pid, int cpu,
                      int group_fd, unsigned long flags)
{
  if (flags & ~(unsigned long)(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP |
                               PERF_FLAG_FD_CLOEXEC))
    return -EINVAL;
  if (flags & PERF_FLAG_PID_CGROUP) return -EOPNOTSUPP;   /* no cgroups in the modelled kernel */
  struct perf_event *group = NULL;
  if (group_fd != -1 && !(group = fd_event(m, group_fd))) return -EBADF;
  if (pid > 0 && !proc_find(m->os, pid) && !task_find(m->os, pid)) return -ESRCH;
  int fd = 0;
  while (fd < MAX_FDS && m->fds[fd]) fd++;
  if (fd == MAX_FDS) return -EMFILE;
  struct perf_event *e;
  int err = perf_event_open(m->perf, attr, pid, cpu, group, &e);
  if (err) return err;
  m->fds[fd] = e;
  return fd;
}

int machine_perf_mmap(struct machine *m, int fd, size_t len, void **addr)
{
  struct perf_event *e = fd_event(m, fd);
  if (!e) return -EBADF;
  if (len < 2 * PHYS_PAGE || len % PHYS_PAGE) return -EINVAL;
  int err = perf_event_mmap(e, len / PHYS_PAGE - 1, PHYS_PAGE);
  if (err) return err;
  *addr = perf_event_user_page(e);
  return 0;
}

int machine_perf_mmap_aux(struct machine *m, int fd, uint64_t offset, size_t len, bool writable, void **addr)
{
  struct perf_event *e = fd_event(m, fd);
  if (!e) return -EBADF;
  return perf_aux_mmap(e, offset, len, writable, addr);
}

long machine_perf_read(struct machine *m, int fd, void *buf, size_t len)
{
  struct perf_event *e = fd_event(m, fd);
  return e ? perf_event_read(e, buf, len) : -EBADF;
}

int machine_perf_ioctl(struct machine *m, int fd, unsigned long req, uintptr_t arg)
{
  struct perf_event *e = fd_event(m, fd);
  if (!e) return -EBADF;
  switch (req) {
  case PERF_EVENT_IOC_ENABLE: perf_event_enable(e); return 0;
  case PERF_EVENT_IOC_DISABLE: perf_event_disable(e); return 0;
  case PERF_EVENT_IOC_RESET: perf_event_reset(e); return 0;
  case PERF_EVENT_IOC_REFRESH: return perf_event_refresh(e, arg);
  case PERF_EVENT_IOC_PERIOD: return arg ? perf_event_period(e, *(const uint64_t *)arg) : -EFAULT;
  case PERF_EVENT_IOC_ID:
    if (!arg) return -EFAULT;
    *(uint64_t *)arg = e->id;
    return 0;
  case PERF_EVENT_IOC_SET_OUTPUT: {
    if ((int)arg == -1) return e->rb ? -EBUSY : 0;
    struct perf_event *target = fd_event(m, (int)arg);
    return target ? perf_event_set_output(e, target) : -EBADF;
  }
  case PERF_EVENT_IOC_SET_FILTER: return -EINVAL;   /* tracepoint filters only */
  default: return -ENOTTY;
  }
}

int machine_perf_close(struct machine *m, int fd)
{
  struct perf_event *e = fd_event(m, fd);
  if (!e) return -EBADF;
  perf_event_close(e);
  m->fds[fd] = NULL;
  return 0;
}

/* ---- the trace unit's firmware, for the trace driver and tests ---- */

struct trace_fw *machine_trace_fw(struct machine *m) { return &m->fw; }
const struct trace_pmu_stats *machine_trace_stats(const struct machine *m) { return trace_pmu_stats(m->trace); }

void machine_trace_totals(const struct machine *m, struct trace_unit_stats *s)
{
  memset(s, 0, sizeof *s);
  for (int i = 0; i < m->ncpus; i++) {
    const struct trace_unit_stats *u = &m->cpu[i].trace.stats;
    s->bytes += u->bytes;
    s->packets += u->packets;
    s->insns += u->insns;
    s->lost_bytes += u->lost_bytes;
    s->overflows += u->overflows;
    s->irqs += u->irqs;
  }
}

void machine_set_trace_irq(struct machine *m, void (*fn)(void *ctx, int cpu), void *ctx)
{
  m->trace_irq = fn;
  m->trace_irq_ctx = ctx;
}
