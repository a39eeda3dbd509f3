/* The Alpha EV67 PMU driver; see alpha_pmu.h. Counters are written at most
 * half their range below overflow (2^19), so an interrupt whose counter has
 * not wrapped is recognised as one the counter does not account for and
 * ignored. ProfileMe events take both counters and are scheduled alone. */
#include "kernel/alpha_pmu.h"
#include "uapi/pm_raw.h"
#include "isa/isa.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CTR_BITS 20
#define CTR_RANGE (1u << CTR_BITS)
#define MAX_LEFT (1u << 19)          /* half the range */
static const uint32_t pmc_left[2] = { 16, 4 };   /* HRM 6.10.2.1 legal write ranges */

/* Linux 6.1's include/linux/perf_event.h PERF_MEM_NA (what its core puts in
 * a sample a driver did not fill): OP, LVL, SNOOP, LOCK and TLB "not
 * available", mem_lvl_num 0 (LVLNUM_NA joined it in later kernels). */
#define PERF_MEM_NA (PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) | \
                     PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA))


/* One CPU's counters as the driver has them (cpu_hw_events). */
struct alpha_cpu {
  struct perf_event *on[2];      /* event on PCTR0, PCTR1 (a ProfileMe event holds both) */
  unsigned sl1;
  bool profileme;
};

struct alpha_pmu {
  struct pmu pmu;
  struct alpha_pmu_env env;
  struct alpha_cpu cpu[PERF_MAX_CPUS];
  uint64_t kept, dropped, spurious;
};

static struct alpha_pmu *drv(struct perf_event *e) { return e->pmu->priv; }
/* The CPU an event counts on (instances carry it; 0 otherwise). */
static int cpu_of(const struct perf_event *e) { return e->cpu > 0 ? e->cpu : 0; }
static struct alpha_cpu *cs(struct perf_event *e) { return &drv(e)->cpu[cpu_of(e)]; }
static struct ev67_pmu *hw(struct perf_event *e) { return drv(e)->env.hw[cpu_of(e)]; }
static uint64_t now(struct perf_event *e) { struct alpha_pmu *p = drv(e); return p->env.now(p->env.ctx, cpu_of(e)); }

static bool is_pm(const struct perf_event *e) { return e->hw.config & PM_CFG_PROFILEME; }
static unsigned ev_of(const struct perf_event *e) { return (unsigned)(e->hw.config & PM_CFG_EVENT_MASK); }

/* event_has_any_exclude_flag (include/linux/perf_event.h). */
static bool has_any_exclude(const struct perf_event_attr *a)
{
  return a->exclude_idle || a->exclude_user || a->exclude_kernel || a->exclude_hv ||
         a->exclude_guest || a->exclude_host;
}

/* What PCTR1 counts in the ProfileMe window (the weight) follows the event
 * (HRM Table 5-16, SL0 = 1): cycles SL1=00 (PCTR1 cycles), instructions
 * SL1=00 (PCTR0 counts the window's retires, PCTR1 cycles), B-cache misses
 * SL1=10, Mbox replays SL1=11. An explicit sl1 term other than 0 must be a
 * row where one of the counters counts the event: cycles also with 01
 * (PCTR1 inum retire delay, PCTR0 cycles) or 11 (PCTR0 cycles, PCTR1
 * replays), instructions also with 10. Returns -1 for a row that cannot
 * count the event. */
static int pm_select_sl1(uint64_t *config)
{
  static const unsigned dflt[5] = { 0, 0, 0, 2, 3 };
  static const uint8_t rows[5] = { 0, 1u << 0 | 1u << 1 | 1u << 3, 1u << 0 | 1u << 2, 1u << 2, 1u << 3 };
  unsigned ev = (unsigned)(*config & PM_CFG_EVENT_MASK);
  unsigned sl1 = (unsigned)(*config >> PM_CFG_SL1_SHIFT) & 3;
  if (!sl1) sl1 = dflt[ev];       /* no term (sl1=0): the event's own row */
  if (!(rows[ev] & (1u << sl1))) return -1;
  *config = (*config & ~(3ull << PM_CFG_SL1_SHIFT)) | (uint64_t)sl1 << PM_CFG_SL1_SHIFT;
  return 0;
}

static int alpha_event_init(struct perf_event *e)
{
  uint64_t config;
  switch (e->attr.type) {
  case PERF_TYPE_HARDWARE:
    switch (e->attr.config) {
    case PERF_COUNT_HW_CPU_CYCLES: config = EV67_EV_CYCLES; break;
    case PERF_COUNT_HW_INSTRUCTIONS: config = EV67_EV_INSTRUCTIONS; break;
    case PERF_COUNT_HW_CACHE_MISSES: config = EV67_EV_BCACHE; break;
    default: return -EOPNOTSUPP;
    }
    break;
  case PERF_TYPE_RAW:
    config = e->attr.config;
    if (!(config & PM_CFG_EVENT_MASK) || (config & PM_CFG_EVENT_MASK) > EV67_EV_MBOX) return -EINVAL;
    if (config & ~(PM_CFG_EVENT_MASK | PM_CFG_PROFILEME | PM_CFG_RANDOM | (3ull << PM_CFG_SL1_SHIFT)))
      return -EINVAL;
    break;
  case PERF_TYPE_HW_CACHE:
    return -EOPNOTSUPP;
  default:
    return -ENOENT;
  }
  if (e->attr.precise_ip > 2) return -EOPNOTSUPP;
  if (e->attr.precise_ip) config |= PM_CFG_PROFILEME;
  if (e->attr.config1 & ~(PM_FILT_RETIRED | PM_FILT_MISPREDICT | PM_FILT_TRAP)) return -EINVAL;
  if (!(config & PM_CFG_PROFILEME) && e->attr.config1) return -EINVAL;
  /* ldlat (config2, perf mem's cpu/mem-loads,ldlat=N/P): ProfileMe only */
  if (e->attr.config2 & ~PM_LDLAT_MASK) return -EINVAL;
  if (!(config & PM_CFG_PROFILEME) && e->attr.config2) return -EINVAL;
  /* The counters cannot tell the modes apart: Linux 6.1's driver declares
   * PERF_PMU_CAP_NO_EXCLUDE and the core answers EINVAL to any exclude flag
   * (perf_try_init_event). Only ProfileMe events drop samples by the mode of
   * the profiled instruction's PC (the series' patch 13). */
  if (!(config & PM_CFG_PROFILEME) && has_any_exclude(&e->attr)) return -EINVAL;
  if ((config & PM_CFG_PROFILEME) && pm_select_sl1(&config)) return -EINVAL;
  e->hw.config = config;   /* the core has set the period (perf_event_open) */
  return 0;
}

static uint32_t read_ctr(struct perf_event *e, int idx)
{
  uint64_t v = ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_READ, 0, now(e));
  return (uint32_t)(v >> (idx ? EV67_PCTR1_SHIFT : EV67_PCTR0_SHIFT)) & EV67_PCTR_MASK;
}

static void write_ctr(struct perf_event *e, int idx, uint32_t val)
{
  uint64_t arg = ((uint64_t)val << (idx ? EV67_PCTR1_SHIFT : EV67_PCTR0_SHIFT)) | (1u << idx);
  ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_WRITE, arg, now(e));
}

/* Folds the counter into event->count (alpha_perf_event_update): ovf adds a
 * wrap the caller knows happened. Returns the delta. */
static uint64_t fold(struct perf_event *e, int idx, uint32_t ovf)
{
  uint32_t raw = read_ctr(e, idx);
  int64_t delta = (int64_t)raw - (int64_t)(e->hw.prev_count & EV67_PCTR_MASK) + ovf;
  if (delta < 0) delta += CTR_RANGE;   /* an overflow not yet serviced */
  e->hw.prev_count = raw;
  e->count += (uint64_t)delta;
  e->hw.freq_count += (uint64_t)delta;
  e->hw.period_left -= delta;
  return (uint64_t)delta;
}

/* A random extra of 0..period/2 for a randomized interval (no draw when
 * period/2 is 0). */
static uint64_t jitter(struct alpha_pmu *p, uint64_t period)
{
  uint64_t span = period / 2;
  return span ? p->env.random(p->env.ctx) % (span + 1) : 0;
}

/* The next interval for a ProfileMe event: N fetched instructions, with an
 * optional random jitter of up to N/2 (computed without overflow, the sum
 * saturated at half the counter range). The jitter must exceed a loop
 * iteration to break the aliasing of a periodic program with the interval,
 * so it is wide; each sample reports the interval actually used. */
static uint32_t pm_interval(struct perf_event *e)
{
  uint64_t n = e->hw.sample_period ? e->hw.sample_period : MAX_LEFT;
  if (e->hw.config & PM_CFG_RANDOM) {
    uint64_t j = jitter(drv(e), n);
    n = n > UINT64_MAX - j ? UINT64_MAX : n + j;
  }
  if (n > MAX_LEFT) n = MAX_LEFT;
  if (n < pmc_left[0]) n = pmc_left[0];
  e->hw.last_period = n;
  return (uint32_t)n;
}

/* Programs the period of an Aggregate event (alpha_perf_event_set_period). */
static void set_period(struct perf_event *e, int idx)
{
  struct alpha_pmu *p = drv(e);
  int64_t left = e->hw.period_left;
  if (!e->hw.sample_period) left = MAX_LEFT;
  if (left <= 0) { left += (int64_t)e->hw.sample_period; e->hw.period_left = left; }
  if (e->hw.config & PM_CFG_RANDOM) {
    /* randomized interval: up to period/2 more, no overflow, saturated */
    uint64_t j = jitter(p, e->hw.sample_period);
    left = left > INT64_MAX - (int64_t)j ? INT64_MAX : left + (int64_t)j;
  }
  if (left > MAX_LEFT) left = MAX_LEFT;
  if (left < (int64_t)pmc_left[idx]) left = pmc_left[idx];
  e->hw.last_period = e->hw.sample_period;
  uint32_t v = (uint32_t)(CTR_RANGE - (uint64_t)left);
  e->hw.prev_count = v;
  write_ctr(e, idx, v);
}

/* Selects the CPU's events for e's placement (e is on that CPU). */
static void program(struct perf_event *e)
{
  struct alpha_cpu *c = cs(e);
  uint64_t sel = (uint64_t)c->sl1 << EV67_PCTR_SL1_SHIFT | (c->profileme ? EV67_PCTR_SL0 : 0);
  ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_LOGGING_OPTIONS, 0, now(e));
  ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_DESIRED_EVENTS, sel, now(e));
  ev67_pmu_mtpr(hw(e), EV67_IPR_IER_CM, EV67_PC0 | EV67_PC1, now(e));
}

static void alpha_start(struct perf_event *e, int flags)
{
  (void)flags;
  if (!(e->hw.state & PERF_HES_STOPPED)) return;
  e->hw.state = 0;
  if (is_pm(e)) {
    write_ctr(e, 1, 0);
    write_ctr(e, 0, CTR_RANGE - pm_interval(e));
    ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_ENABLE, 3, now(e));
  } else {
    set_period(e, e->hw.idx);
    ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_ENABLE, 1u << e->hw.idx, now(e));
  }
}

static void alpha_stop(struct perf_event *e, int flags)
{
  bool running = !(e->hw.state & PERF_HES_STOPPED);
  e->hw.state |= PERF_HES_STOPPED;
  /* Fold only a counter that was started: a count is not lost (nor invented)
   * when an event is stopped before its first start. As alpha_pmu_stop, the
   * count is read before the counter is disabled. */
  if ((flags & PERF_EF_UPDATE) && !(e->hw.state & PERF_HES_UPTODATE)) {
    if (!is_pm(e)) fold(e, e->hw.idx, 0);
    e->hw.state |= PERF_HES_UPTODATE;
  }
  if (!running) return;
  /* Counters left near overflow signal again at every PAL exit once disabled
   * (HRM Restriction 32) and would interrupt the next event: park them at 0
   * before disabling (a start always rewrites them). The series' patch 5. */
  unsigned mask = is_pm(e) ? 3 : 1u << e->hw.idx;
  ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_WRITE, mask, now(e));
  ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_DISABLE, mask, now(e));
}

static int alpha_add(struct perf_event *e, int flags)
{
  struct alpha_cpu *p = cs(e);
  if (is_pm(e)) {
    if (p->on[0] || p->on[1]) return -EAGAIN;   /* ProfileMe is scheduled alone */
    p->on[0] = p->on[1] = e;
    p->profileme = true;
    p->sl1 = (unsigned)((e->hw.config >> PM_CFG_SL1_SHIFT) & 3);
    e->hw.idx = 0;
  } else {
    unsigned sl1 = 0, on[2] = { p->on[0] ? ev_of(p->on[0]) : EV67_EV_NONE,
                                p->on[1] ? ev_of(p->on[1]) : EV67_EV_NONE };
    int idx = ev67_place(ev_of(e), on, &sl1);
    if (idx < 0) return -EAGAIN;
    p->on[idx] = e;
    p->profileme = false;
    p->sl1 = sl1;
    e->hw.idx = idx;
  }
  program(e);
  e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
  if (flags & PERF_EF_START) { e->hw.state = PERF_HES_STOPPED; alpha_start(e, PERF_EF_RELOAD); }
  return 0;
}

static void alpha_del(struct perf_event *e, int flags)
{
  struct alpha_cpu *p = cs(e);
  alpha_stop(e, flags | PERF_EF_UPDATE);
  if (is_pm(e)) {
    p->on[0] = p->on[1] = NULL;
    p->profileme = false;
  } else if (e->hw.idx >= 0) {
    p->on[e->hw.idx] = NULL;
  }
  e->hw.idx = -1;
}

static void alpha_read(struct perf_event *e)
{
  if (!is_pm(e) && e->hw.idx >= 0 && !(e->hw.state & PERF_HES_STOPPED)) fold(e, e->hw.idx, 0);
}

/* ---- ProfileMe samples ---- */

static uint64_t status_of(uint64_t i_stat, uint64_t ctl, uint64_t pmpc, const struct axp_insn *d)
{
  uint64_t st = 0;
  unsigned tt = (unsigned)(i_stat >> EV67_I_STAT_TT_SHIFT) & 0xF;
  bool trp = i_stat & EV67_I_STAT_TRP, val = ctl & EV67_PCTR_VAL;
  if (val) st |= PM_ST_RETIRED;
  if (val && !trp) st |= PM_ST_VALID;
  if (ctl & EV67_PCTR_PM_KILLED_BM) st |= PM_ST_EARLY_KILL;
  else if (!val && !trp) st |= PM_ST_LATE_KILL;
  if (trp) st |= PM_ST_TRAP | (uint64_t)tt << 32;
  if (trp && (i_stat & EV67_I_STAT_MIS)) st |= PM_ST_MISPREDICT;
  if (ctl & EV67_PCTR_TAK) st |= PM_ST_TAKEN;
  if (ctl & EV67_PCTR_PM_STALLED) st |= PM_ST_MAP_STALL;
  if (i_stat & EV67_I_STAT_ICM) st |= PM_ST_NYP;
  if (trp && (i_stat & EV67_I_STAT_LSO)) st |= PM_ST_LDSTORDER;
  if (trp && (tt == 2 || tt == 3 || tt == 6)) st |= PM_ST_DTB_MISS;
  if (trp && tt == 5) st |= PM_ST_UNALIGNED;
  if (trp && tt == 0 && !(i_stat & EV67_I_STAT_MIS)) st |= PM_ST_REPLAY;
  if (trp && tt == 12) st |= PM_ST_ARITH;
  if (trp && (pmpc & 0x7FFF) == EV67_PMPC_ITB_MISS) st |= PM_ST_ITB_MISS;
  if (trp && !(i_stat & EV67_I_STAT_MIS) && d && axp_info[d->id].format == AXP_FMT_JMP) st |= PM_ST_JMP_MISPRED;
  return st;
}

/* PERF_SAMPLE_DATA_SRC from the instruction and its fate (the series' patch
 * 10: loads and stores, loads into $31/$f31 are prefetches, unop is not a
 * memory access). ProfileMe does not say which cache level served an access:
 * mem_lvl and mem_lvl_num are NA (as perf's arm-spe decoder writes an unknown
 * level). Only an access that retired without a DTB-miss trap is known to have
 * hit the DTB; a DTB-miss trap is a miss; one killed, aborted or trapping for
 * another reason tells nothing of the DTB (TLB NA). */
static uint64_t data_src_of(const struct axp_insn *d, uint64_t st)
{
  union perf_mem_data_src ds = { .val = 0 };
  if (!d || d->id >= AXP_NUM_IDS) return PERF_MEM_NA;
  unsigned cls = axp_info[d->id].cls;
  bool load = cls == AXP_CLS_ILD || cls == AXP_CLS_FLD, store = cls == AXP_CLS_IST || cls == AXP_CLS_FST;
  if (!load && !store) return PERF_MEM_NA;
  if (d->id == AXP_LDQ_U && d->ra == 31) return PERF_MEM_NA;   /* unop */
  ds.mem_op = store ? PERF_MEM_OP_STORE : d->ra == 31 ? PERF_MEM_OP_PFETCH : PERF_MEM_OP_LOAD;
  ds.mem_lvl = PERF_MEM_LVL_NA;
  ds.mem_lvl_num = PERF_MEM_LVLNUM_NA;
  ds.mem_snoop = PERF_MEM_SNOOP_NA;
  ds.mem_lock = PERF_MEM_LOCK_NA;
  if (st & PM_ST_DTB_MISS) ds.mem_dtlb = PERF_MEM_TLB_L1 | PERF_MEM_TLB_MISS;
  else if (st & PM_ST_RETIRED) ds.mem_dtlb = PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT;
  else ds.mem_dtlb = PERF_MEM_TLB_NA;
  return ds.val;
}

static void pm_sample(struct alpha_pmu *p, struct perf_event *e, uint32_t pid, uint32_t tid,
                      uint64_t pc, bool kernel)
{
  uint64_t t = now(e);
  uint64_t pmpc = ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_PMPC, 0, t);
  uint64_t i_stat = ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_I_STAT, 0, t);
  uint64_t ctl = ev67_pmu_wrperfmon(hw(e), EV67_PERFMON_READ, 0, t);
  bool redirect = (i_stat & EV67_I_STAT_TRP) && ((pmpc & 0x7FFF) == EV67_PMPC_ITB_MISS ||
                  (pmpc & 0x7FFF) == EV67_PMPC_IACV || (pmpc & 0x7FFF) == EV67_PMPC_INTERRUPT);
  /* Redirect-type traps leave a PALcode entry in PMPC: the sample goes to the
   * interrupted PC (EXC_ADDR), which need not be the profiled instruction, so
   * it is not PERF_RECORD_MISC_EXACT_IP. */
  uint64_t ip = redirect ? pc : pmpc & ~3ull;
  uint32_t word;
  struct axp_insn dec, *d = NULL;
  if (p->env.insn_at(p->env.ctx, ip, &word)) { dec = axp_decode(word); d = &dec; }
  uint64_t st = status_of(i_stat, ctl, pmpc, d);
  bool ip_kernel = ip >= 0xfffffc0000000000ull;
  if (ip_kernel) st |= PM_ST_KERNEL;
  unsigned ovr = (unsigned)(i_stat >> EV67_I_STAT_OVR_SHIFT) & 7;
  uint32_t c0 = (uint32_t)(ctl >> EV67_PCTR0_SHIFT) & EV67_PCTR_MASK;
  uint32_t c1 = (uint32_t)(ctl >> EV67_PCTR1_SHIFT) & EV67_PCTR_MASK;
  struct pm_raw_v1 raw = { PM_RAW_VERSION, pmpc, i_stat, ctl, st, c0 >= ovr ? c0 - ovr : 0, c1 };
  /* Filters: precise events keep retired instructions only; config1 keeps
   * retired, mispredicted or trapping ones. */
  bool keep = true;
  if (e->attr.precise_ip && !(st & PM_ST_RETIRED)) keep = false;
  uint64_t f = e->attr.config1;
  if (f && !(((f & PM_FILT_RETIRED) && (st & PM_ST_RETIRED)) ||
             ((f & PM_FILT_MISPREDICT) && (st & (PM_ST_MISPREDICT | PM_ST_JMP_MISPRED))) ||
             ((f & PM_FILT_TRAP) && (st & PM_ST_TRAP))))
    keep = false;
  /* ldlat: loads only, whose window lasted at least that many of what PCTR1
   * counts (cycles for mem-loads: the instruction's fetch-to-retire
   * latency, the closest ProfileMe has to PEBS's load latency) */
  uint64_t ldlat = e->attr.config2 & PM_LDLAT_MASK;
  if (ldlat) {
    union perf_mem_data_src ds = { .val = data_src_of(d, st) };
    if (data_src_of(d, st) == PERF_MEM_NA || ds.mem_op != PERF_MEM_OP_LOAD || c1 < ldlat) keep = false;
  }
  (void)kernel;
  uint64_t period = e->hw.last_period ? e->hw.last_period : 1;
  e->count += period;
  e->hw.freq_count += period;
  if (keep) {
    struct perf_sample s = { .ip = ip, .pid = pid, .tid = tid, .period = period, .weight = c1,
                             .data_src = data_src_of(d, st), .kernel = ip_kernel, .exact_ip = !redirect,
                             .raw = &raw, .raw_size = sizeof raw };
    p->kept++;
    if (perf_event_overflow(e, &s)) { alpha_stop(e, 0); return; }
  } else {
    p->dropped++;
    if (perf_event_account(e)) { alpha_stop(e, 0); return; }
  }
  /* Re-arm: writing PCTR_CTL restarts selection (HRM 6.10.3.2 step 6). */
  write_ctr(e, 1, 0);
  write_ctr(e, 0, CTR_RANGE - pm_interval(e));
}

void alpha_pmu_irq(struct alpha_pmu *p, int cpu, uint32_t pid, uint32_t tid, uint64_t pc, bool kernel)
{
  struct alpha_cpu *c = &p->cpu[cpu];
  struct ev67_pmu *h = p->env.hw[cpu];
  uint64_t t = p->env.now(p->env.ctx, cpu);
  uint64_t isum = ev67_pmu_mfpr(h, EV67_IPR_ISUM, t);
  ev67_pmu_mtpr(h, EV67_IPR_HW_INT_CLR, isum & (EV67_PC0 | EV67_PC1), t);
  if (c->profileme && c->on[0]) {
    /* A sample's interrupt comes after PCTR0 wrapped (it was armed at most
     * half the range below overflow, and counts only the residual and the
     * window after); a PC0 request older than the arming (pending when the
     * event was scheduled in, or raised by a counter another event left near
     * overflow) finds it still high: ignore it, as in Aggregate mode. */
    struct perf_event *e = c->on[0];
    if (!(isum & EV67_PC0) || (e->hw.state & PERF_HES_STOPPED)) return;
    if (read_ctr(e, 0) >= MAX_LEFT) { p->spurious++; return; }
    pm_sample(p, e, pid, tid, pc, kernel);
    return;
  }
  for (int idx = 0; idx < 2; idx++) {
    struct perf_event *e = c->on[idx];
    if (!e || !(isum & (idx ? EV67_PC1 : EV67_PC0)) || (e->hw.state & PERF_HES_STOPPED)) continue;
    /* A real overflow leaves the counter just past zero; a counter still
     * high (it was written at most half the range below overflow) means an
     * interrupt it does not account for: ignore it. */
    uint32_t raw = read_ctr(e, idx);
    if (raw >= MAX_LEFT) { p->spurious++; continue; }
    fold(e, idx, 0);
    /* A period longer than one counter write (2^19) takes several wraps:
     * only the one that ends it is a sample (alpha_perf_event_set_period
     * returns 1 only then). */
    bool elapsed = e->hw.sample_period && e->hw.period_left <= 0;
    struct perf_sample s = { .ip = pc, .pid = pid, .tid = tid, .period = e->hw.last_period,
                             .data_src = PERF_MEM_NA, .kernel = kernel, .cpu = (uint32_t)cpu };
    set_period(e, idx);
    if (!elapsed) continue;
    p->kept++;
    if (perf_event_overflow(e, &s)) alpha_stop(e, 0);
  }
}

struct alpha_pmu *alpha_pmu_create(struct perf_ctx *c, const struct alpha_pmu_env *env)
{
  struct alpha_pmu *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->env = *env;
  p->pmu = (struct pmu){ .name = "cpu", .type = PERF_TYPE_RAW, .priv = p, .event_init = alpha_event_init,
                         .add = alpha_add, .del = alpha_del, .start = alpha_start, .stop = alpha_stop,
                         .read = alpha_read };
  perf_pmu_register(c, &p->pmu);
  return p;
}

void alpha_pmu_destroy(struct alpha_pmu *p) { free(p); }

void alpha_pmu_counts(const struct alpha_pmu *p, uint64_t *kept, uint64_t *dropped, uint64_t *spurious)
{
  *kept = p->kept;
  *dropped = p->dropped;
  *spurious = p->spurious;
}
