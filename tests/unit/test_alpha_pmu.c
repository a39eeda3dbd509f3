/* The Alpha PMU driver (src/kernel/alpha_pmu.c) on the EV67 PMU model
 * (src/pmu/ev67_pmu.c) through the perf core, against the ProfileMe series
 * and Linux 6.1: stale interrupts in ProfileMe mode and counters parked away
 * from overflow (patch 5, HRM Restriction 32), exclude flags refused on
 * Aggregate events (PERF_PMU_CAP_NO_EXCLUDE: EINVAL), the event's own SL1
 * row under :p (HRM Table 5-16), DATA_SRC of loads by their fate (patch 10,
 * include/uapi/linux/perf_event.h), and EXACT_IP only where PMPC is the
 * profiled instruction (HRM Table 5-12, redirect traps). Fates are synthetic,
 * fetched 4 per cycle; interrupts are taken as the machine takes them. */
#include "check.h"
#include "guest/phys.h"
#include "kernel/alpha_pmu.h"
#include "kernel/perf.h"
#include "uapi/pm_raw.h"
#include <errno.h>
#include <string.h>

#define LDQ  0xa4300008u    /* ldq t0,8(a0) */
#define ADDQ 0x40203401u    /* addq t0,1,t0 */
#define LOAD_PC 0x120000800ull   /* the only loads: pc & 0x800 */

struct world {
  struct physmem *ram;
  struct ev67_pmu hw;
  struct perf_ctx *c;
  struct alpha_pmu *drv;
  uint64_t cycle, fetch, seq;
  unsigned in_cycle;         /* fates fetched in cycle `fetch` so far */
};

static uint64_t now_fn(void *ctx, int cpu) { (void)cpu; return ((struct world *)ctx)->cycle; }
static uint64_t clock_fn(void *ctx) { return ((struct world *)ctx)->cycle; }
static uint64_t rnd_fn(void *ctx) { (void)ctx; return 12345; }
static bool insn_fn(void *ctx, uint64_t pc, uint32_t *word)
{
  (void)ctx;
  *word = pc & 0x800 ? LDQ : ADDQ;
  return true;
}

static const struct perf_task task1000 = { .pid = 1000, .tid = 1000 };

static void world_init(struct world *w, struct physmem *ram)
{
  memset(w, 0, sizeof *w);
  w->ram = ram;
  w->cycle = w->fetch = 100;
  ev67_pmu_init(&w->hw, 0);
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true, .max_sample_rate = 100000000 };
  w->c = perf_ctx_create(&sys, ram, clock_fn, w);
  struct alpha_pmu_env env = { .hw = { &w->hw }, .now = now_fn, .insn_at = insn_fn, .random = rnd_fn, .ctx = w };
  w->drv = alpha_pmu_create(w->c, &env);
  perf_sched_in(w->c, 0, &task1000);
}

static void world_done(struct world *w)
{
  perf_ctx_destroy(w->c);
  alpha_pmu_destroy(w->drv);
}

/* Takes the PMU interrupt as the machine does (irq_hook), at `pc`. */
static void take_irq(struct world *w, uint64_t pc)
{
  alpha_pmu_irq(w->drv, 0, 1000, 1000, pc, false);
  w->fetch = w->cycle + 1;   /* the pipeline restarts after the interrupt */
  w->in_cycle = 0;
}

/* One fetched instruction at pc with `flags` (and a trap), ending 10 cycles
 * after its fetch; a pending interrupt is taken when `service` (the machine
 * takes it at the first instruction ending after it reached the CPU). */
static void fate(struct world *w, uint64_t pc, uint32_t flags, uint8_t trap, uint16_t redirect, bool service)
{
  if (w->in_cycle == 4) { w->fetch++; w->in_cycle = 0; }
  w->in_cycle++;
  struct uop_fate f;
  memset(&f, 0, sizeof f);
  f.pc = pc;
  f.seq = w->seq++;
  f.fetch = w->fetch;
  f.slot = f.fetch + 1;
  f.map = f.fetch + 2;
  f.issue = f.fetch + 3;
  f.complete = f.fetch + 4;
  f.end = f.fetch + 10;
  f.flags = flags;
  f.trap = trap;
  f.level = LVL_NONE;
  f.pmpc_redirect = redirect;
  ev67_pmu_observe(&w->hw, &f);
  if (w->cycle < f.fetch) w->cycle = f.fetch;
  if (service && ev67_pmu_irq_cycle(&w->hw) < f.end) {
    w->cycle = f.end;
    take_irq(w, pc + 4);
  }
}

static void fillers(struct world *w, int n, bool service)
{
  for (int i = 0; i < n; i++) fate(w, 0x120000000ull + 4 * (i % 64), FATE_RETIRED, EV67_TRAP_NONE, 0, service);
}

static int open_ev(struct world *w, uint32_t type, uint64_t config, uint64_t period, uint8_t precise,
                   struct perf_event **e)
{
  struct perf_event_attr a = { .type = type, .size = sizeof a, .config = config, .sample_period = period,
                               .precise_ip = precise,
                               .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_DATA_SRC };
  int err = perf_event_open(w->c, &a, 1000, -1, NULL, e);
  if (!err) perf_event_mmap(*e, 4, PHYS_PAGE);
  return err;
}

/* The SAMPLE records in e's ring (IP, DATA_SRC), up to max. */
struct smp { uint16_t misc; uint64_t ip, data_src; };
static int samples_of(struct perf_event *e, struct smp *out, int max)
{
  uint64_t size;
  const uint8_t *d = perf_event_data(e, &size);
  uint64_t head = perf_event_user_page(e)->data_head;
  int n = 0;
  for (uint64_t t = 0; t < head && n < max;) {
    struct perf_event_header h;
    memcpy(&h, d + (t & (size - 1)), sizeof h);
    if (h.type == PERF_RECORD_SAMPLE) {
      out[n].misc = h.misc;
      memcpy(&out[n].ip, d + ((t + 8) & (size - 1)), 8);
      memcpy(&out[n].data_src, d + ((t + 16) & (size - 1)), 8);
      n++;
    }
    t += h.size ? h.size : 8;
  }
  return n;
}

static uint32_t pctr(struct world *w, int k)
{
  uint64_t v = ev67_pmu_mfpr(&w->hw, EV67_IPR_PCTR_CTL, w->cycle);
  return (uint32_t)(v >> (k ? EV67_PCTR1_SHIFT : EV67_PCTR0_SHIFT)) & EV67_PCTR_MASK;
}

/* Patch 5 in ProfileMe mode: a PC0 request pending from an Aggregate event
 * taken off before its interrupt must not become a ProfileMe sample. */
static void test_stale_at_sched_in(struct physmem *ram)
{
  struct world w;
  world_init(&w, ram);
  struct perf_event *agg, *pm;
  CHECK_EQ_U64(open_ev(&w, PERF_TYPE_RAW, EV67_EV_INSTRUCTIONS, 100, 0, &agg), 0, "stale/sched-in: instructions on PCTR0");
  fillers(&w, 150, false);                       /* wraps PCTR0: PC0 requested, not yet taken */
  perf_event_close(agg);
  CHECK_EQ_U64(open_ev(&w, PERF_TYPE_RAW, EV67_EV_CYCLES | PM_CFG_PROFILEME, 1000, 0, &pm), 0,
               "stale/sched-in: a ProfileMe event scheduled in");
  CHECK(ev67_pmu_mfpr(&w.hw, EV67_IPR_ISUM, w.cycle) & EV67_PC0, "stale/sched-in: PC0 still pending");
  w.cycle += 5;
  take_irq(&w, 0x120000040);
  struct smp s[4];
  uint64_t kept, dropped, spurious;
  alpha_pmu_counts(w.drv, &kept, &dropped, &spurious);
  CHECK(samples_of(pm, s, 4) == 0 && spurious == 1,
        "stale/sched-in: the pending PC0 is ignored, no sample with PMPC 0 (%d samples, ip %#llx, %llu spurious)",
        samples_of(pm, s, 4), (unsigned long long)s[0].ip, (unsigned long long)spurious);
  fillers(&w, 2000, true);
  int n = samples_of(pm, s, 4);
  CHECK(n >= 1 && s[0].ip >= 0x120000000ull, "stale/sched-in: the event then samples real instructions (%d, ip %#llx)",
        n, n ? (unsigned long long)s[0].ip : 0ull);
  perf_event_close(pm);
  world_done(&w);
}

/* Patch 5 / Restriction 32: a ProfileMe event removed two fetches before its
 * overflow must not leave PCTR0 there, where every PAL exit raises PC0 again. */
static void test_removed_counter_parked(struct physmem *ram)
{
  struct world w;
  world_init(&w, ram);
  struct perf_event *pm, *pm2;
  CHECK_EQ_U64(open_ev(&w, PERF_TYPE_RAW, EV67_EV_CYCLES | PM_CFG_PROFILEME, 20, 0, &pm), 0, "parked: ProfileMe, N = 20");
  fillers(&w, 18, false);
  CHECK_EQ_U64(pctr(&w, 0), EV67_PCTR_MASK - 1, "parked: PCTR0 two below overflow before the removal");
  w.cycle += 5;
  perf_event_close(pm);
  ev67_pmu_mtpr(&w.hw, EV67_IPR_HW_INT_CLR, EV67_PC0 | EV67_PC1, w.cycle);
  ev67_pmu_wrperfmon(&w.hw, EV67_PERFMON_READ, 0, w.cycle);   /* any later PAL exit */
  uint32_t c0 = pctr(&w, 0);
  CHECK(!(ev67_pmu_mfpr(&w.hw, EV67_IPR_ISUM, w.cycle) & EV67_PC0) && c0 < (1u << 19),
        "parked: after the removal PCTR0 is away from overflow (%#x) and no PC0 follows HW_INT_CLR", c0);
  CHECK_EQ_U64(open_ev(&w, PERF_TYPE_RAW, EV67_EV_CYCLES | PM_CFG_PROFILEME, 1000, 0, &pm2), 0, "parked: next ProfileMe event");
  w.cycle += 5;
  if (ev67_pmu_mfpr(&w.hw, EV67_IPR_ISUM, w.cycle) & EV67_PC0) take_irq(&w, 0x120000040);
  struct smp s[2];
  CHECK_EQ_U64(samples_of(pm2, s, 2), 0, "parked: the next ProfileMe event gets no ip-0 sample");
  perf_event_close(pm2);
  world_done(&w);
}

/* Linux 6.1: PERF_PMU_CAP_NO_EXCLUDE, EINVAL from perf_try_init_event; the
 * series keeps mode filtering for ProfileMe events (patch 13). */
static void test_exclude(struct physmem *ram)
{
  struct world w;
  world_init(&w, ram);
  static const char *const name[4] = { "exclude_user", "exclude_kernel", "exclude_hv", "exclude_idle" };
  for (int k = 0; k < 4; k++) {
    for (int pm = 0; pm < 2; pm++) {
      struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = sizeof a,
                                   .config = PERF_COUNT_HW_INSTRUCTIONS, .precise_ip = (uint8_t)pm,
                                   .sample_period = 1000 };
      a.exclude_user = k == 0; a.exclude_kernel = k == 1; a.exclude_hv = k == 2; a.exclude_idle = k == 3;
      struct perf_event *e = NULL;
      int err = perf_event_open(w.c, &a, 1000, -1, NULL, &e);
      if (pm) CHECK_EQ_U64(err, 0, "exclude: %s on a ProfileMe event (instructions:p) is accepted", name[k]);
      else CHECK_EQ_U64(err, (uint64_t)-EINVAL, "exclude: %s on an Aggregate event: EINVAL", name[k]);
      if (!err) perf_event_close(e);
    }
  }
  struct perf_event_attr raw = { .type = PERF_TYPE_RAW, .size = sizeof raw, .config = EV67_EV_MBOX,
                                 .exclude_kernel = 1, .exclude_hv = 1 };
  struct perf_event *e = NULL;
  CHECK_EQ_U64(perf_event_open(w.c, &raw, 1000, -1, NULL, &e), (uint64_t)-EINVAL, "exclude: mbox-replays:u counting: EINVAL");
  world_done(&w);
}

/* HRM Table 5-16 with SL0 = 1: the event decides what PCTR1 counts in the
 * window; a row where neither counter counts the event is refused. */
static void test_pm_sl1(struct physmem *ram)
{
  struct world w;
  world_init(&w, ram);
  static const struct { uint32_t type; uint64_t config; uint8_t precise; int want; const char *what; } t[] = {
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 0, "cycles:p: SL1=00 (PCTR1 cycles)" },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 0, "instructions:p: SL1=00 (PCTR0 retires)" },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1, 2, "cache-misses:p: SL1=10 (PCTR1 B-cache misses)" },
    { PERF_TYPE_RAW, EV67_EV_BCACHE | PM_CFG_PROFILEME, 0, 2, "cpu/event=3,profileme=1/: SL1=10" },
    { PERF_TYPE_RAW, EV67_EV_MBOX, 1, 3, "mbox-replays:p: SL1=11 (PCTR1 Mbox replays)" },
    { PERF_TYPE_RAW, EV67_EV_CYCLES | PM_CFG_PROFILEME | 1ull << PM_CFG_SL1_SHIFT, 0, 1,
      "cpu/event=1,profileme=1,sl1=1/: SL1=01 (PCTR0 cycles, PCTR1 inum retire delay)" },
    { PERF_TYPE_RAW, EV67_EV_INSTRUCTIONS | PM_CFG_PROFILEME | 2ull << PM_CFG_SL1_SHIFT, 0, 2,
      "cpu/event=2,profileme=1,sl1=2/: SL1=10 (PCTR0 retires)" },
    { PERF_TYPE_RAW, EV67_EV_BCACHE | PM_CFG_PROFILEME | 1ull << PM_CFG_SL1_SHIFT, 0, -EINVAL,
      "cpu/event=3,profileme=1,sl1=1/: no B-cache input in SL1=01: EINVAL" },
    { PERF_TYPE_RAW, EV67_EV_CYCLES | PM_CFG_PROFILEME | 2ull << PM_CFG_SL1_SHIFT, 0, -EINVAL,
      "cpu/event=1,profileme=1,sl1=2/: no cycles input in SL1=10: EINVAL" },
    { PERF_TYPE_RAW, EV67_EV_MBOX | PM_CFG_PROFILEME | 1ull << PM_CFG_SL1_SHIFT, 0, -EINVAL,
      "cpu/event=4,profileme=1,sl1=1/: no replay input in SL1=01: EINVAL" },
    { PERF_TYPE_RAW, EV67_EV_INSTRUCTIONS | PM_CFG_PROFILEME | 3ull << PM_CFG_SL1_SHIFT, 0, -EINVAL,
      "cpu/event=2,profileme=1,sl1=3/: no retire input in SL1=11: EINVAL" },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    struct perf_event *e = NULL;
    int err = open_ev(&w, t[i].type, t[i].config, 1000, t[i].precise, &e);
    if (t[i].want < 0) { CHECK_EQ_U64(err, (uint64_t)(int64_t)t[i].want, "sl1: %s", t[i].what); }
    else {
      uint64_t ctl = ev67_pmu_mfpr(&w.hw, EV67_IPR_PCTR_CTL, w.cycle);
      CHECK(!err && (ctl & EV67_PCTR_SL0) && ((ctl >> EV67_PCTR_SL1_SHIFT) & 3) == (uint64_t)t[i].want,
            "sl1: %s (open %d, SL1 %llu)", t[i].what, err, (unsigned long long)((ctl >> EV67_PCTR_SL1_SHIFT) & 3));
    }
    if (!err) perf_event_close(e);
  }
  world_done(&w);
}

/* Profiles the 16th fetched instruction after the (re)arming: 15 fillers,
 * the fate, then enough to close its window and take the interrupt. */
static void profile_one(struct world *w, uint64_t pc, uint32_t flags, uint8_t trap, uint16_t redirect)
{
  fillers(w, 15, true);
  fate(w, pc, flags, trap, redirect, true);
  for (int i = 0; i < 64 && ev67_pmu_irq_cycle(&w->hw) != UINT64_MAX; i++) fillers(w, 1, true);
}

#define DS(a, b) ((uint64_t)PERF_MEM_##a##_##b << PERF_MEM_##a##_SHIFT)

/* Patch 10: DATA_SRC by fate, in Linux 6.1's encoding; and EXACT_IP
 * only for samples whose ip is the profiled instruction. */
static void test_data_src_and_exact(struct physmem *ram)
{
  struct world w;
  world_init(&w, ram);
  struct perf_event *pm;
  CHECK_EQ_U64(open_ev(&w, PERF_TYPE_RAW, EV67_EV_CYCLES | PM_CFG_PROFILEME, 16, 0, &pm), 0, "data_src: ProfileMe every 16");
  /* Re-arming at the interrupt restarts the count: each profile_one is a sample. */
  profile_one(&w, LOAD_PC, FATE_RETIRED, EV67_TRAP_NONE, 0);
  profile_one(&w, LOAD_PC + 4, FATE_WRONG_PATH | FATE_KILLED_AM, EV67_TRAP_NONE, 0);
  profile_one(&w, LOAD_PC + 8, FATE_TRAP | FATE_DTB_MISS | FATE_KILLED_AM, EV67_TRAP_DTB_MISS, 0);
  profile_one(&w, LOAD_PC + 12, FATE_TRAP | FATE_UNALIGNED | FATE_KILLED_AM, EV67_TRAP_UNALIGNED, 0);
  profile_one(&w, 0x120000100, FATE_RETIRED, EV67_TRAP_NONE, 0);
  profile_one(&w, 0x120000200, FATE_TRAP | FATE_ITB_MISS, EV67_TRAP_NONE, EV67_PMPC_ITB_MISS);
  struct smp s[16];
  int n = samples_of(pm, s, 16);
  CHECK(n == 6 && s[1].ip == LOAD_PC + 4 && s[4].ip == 0x120000100, "data_src: six samples, of the instructions profiled");
  if (n != 6) { world_done(&w); return; }
  uint64_t load = DS(OP, LOAD) | DS(LVL, NA) | DS(LVLNUM, NA) | DS(SNOOP, NA) | DS(LOCK, NA);
  CHECK(s[0].ip == LOAD_PC && s[0].data_src == (load | DS(TLB, L1) | DS(TLB, HIT)),
        "data_src: a retired load: LOAD, LVL NA, LVLNUM NA, TLB L1 hit (%#llx)", (unsigned long long)s[0].data_src);
  CHECK(s[1].ip == LOAD_PC + 4 && s[1].data_src == (load | DS(TLB, NA)),
        "data_src: a killed load: TLB NA, not a hit (%#llx)", (unsigned long long)s[1].data_src);
  CHECK(s[2].ip == LOAD_PC + 8 && s[2].data_src == (load | DS(TLB, L1) | DS(TLB, MISS)),
        "data_src: a DTB-miss trap: TLB L1 miss (%#llx)", (unsigned long long)s[2].data_src);
  CHECK(s[3].ip == LOAD_PC + 12 && s[3].data_src == (load | DS(TLB, NA)),
        "data_src: an aborted unaligned load: TLB NA (%#llx)", (unsigned long long)s[3].data_src);
  uint64_t mem_na = DS(OP, NA) | DS(LVL, NA) | DS(SNOOP, NA) | DS(LOCK, NA) | DS(TLB, NA);
  CHECK(s[4].data_src == mem_na && mem_na == 0x5080021,
        "data_src: a non-memory instruction: Linux 6.1's PERF_MEM_NA 0x5080021 (%#llx)", (unsigned long long)s[4].data_src);
  bool exact = true;
  for (int i = 0; i < 5; i++) exact = exact && (s[i].misc & PERF_RECORD_MISC_EXACT_IP);
  CHECK(exact, "exact_ip: samples at the profiled PC carry PERF_RECORD_MISC_EXACT_IP");
  CHECK(!(s[5].misc & PERF_RECORD_MISC_EXACT_IP) && s[5].ip != 0x120000200,
        "exact_ip: an ITB-miss sample, redirected to the interrupted PC %#llx, is not EXACT_IP (misc %#x)",
        (unsigned long long)s[5].ip, s[5].misc);
  perf_event_close(pm);
  world_done(&w);
}

int main(void)
{
  struct physmem *ram = phys_create(64ull << 20);
  CHECK(ram != NULL, "64 MB of simulated RAM");
  if (!ram) return check_done();
  test_stale_at_sched_in(ram);
  test_removed_counter_parked(ram);
  test_exclude(ram);
  test_pm_sl1(ram);
  test_data_src_and_exact(ram);
  phys_destroy(ram);
  return check_done();
}
