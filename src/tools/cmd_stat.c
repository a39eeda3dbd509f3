/* profileme stat: counts events over a run, like perf stat. Hardware events
 * (cycles, instructions, cache-misses = B-cache misses, mbox-replays) obey the
 * EV67's two-counter constraints (arch/alpha/kernel/perf_event.c) and are
 * multiplexed like perf when they do not fit at once, with scaled counts; the
 * sim/ PMU gives exact ground truth from the timing model. Output on stderr. */
#include "tools/commands.h"
#include "tools/events.h"
#include "tools/timed.h"
#include "tools/spawn.h"
#include "pmu/ev67_pmu.h"
#include "perfdata/pm_raw.h"
#include "util/err.h"
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#define GUEST_HZ 667000000.0   /* the modelled EV67 clock (docs/timing.md) */
#define MAX_EVENTS 64
#define MUX_CYCLES 2668000u    /* perf's 4 ms multiplexing tick at 667 MHz */

enum hw { HW_CYCLES = EV67_EV_CYCLES, HW_INSTRUCTIONS = EV67_EV_INSTRUCTIONS,
          HW_BCACHE = EV67_EV_BCACHE, HW_MBOX = EV67_EV_MBOX };

struct sim_event { const char *name; const char *desc; size_t off; };
#define SIM(f) offsetof(struct ev67_stats, f)
#define SIM_CYCLES SIZE_MAX      /* the model's clock, not a struct ev67_stats field */
/* Ground-truth events, what they count (exactly, from the timing model) and
 * where in struct ev67_stats. */
static const struct sim_event sim_events[] = {
  { "cycles", "CPU cycles", SIM_CYCLES },
  { "instructions", "retired instructions (squashed NOPs excluded)", SIM(retired) },
  { "fetched", "fetched instructions, wrong path and killed included", SIM(fetched) },
  { "branches", "retired conditional branches", SIM(cond_branches) },
  { "branch-misses", "mispredicted conditional branches", SIM(cond_mispredicts) },
  { "jump-misses", "mispredicted jumps and returns", SIM(jump_mispredicts) },
  { "dtb-misses", "DTB misses", SIM(dtb_misses) },
  { "itb-misses", "ITB misses", SIM(itb_misses) },
  { "icache-misses", "Icache misses (fetch blocks)", SIM(icache_misses) },
  { "dcache-misses", "Dcache misses (loads)", SIM(dcache_misses) },
  { "bcache-misses", "B-cache misses (loads)", SIM(bcache_misses) },
  { "killed", "instructions killed (wrong path or behind a trap)", SIM(killed) },
  { "wrong-path", "instructions fetched on a mispredicted path", SIM(wrong_path) },
  { "unaligned", "unaligned-access traps", SIM(unaligned) },
  { "replays", "load-store order replay traps", SIM(replays) },
  { "map-stalls", "instructions stalled between fetch and map", SIM(map_stalls) },
  { "loads", "loads executed", SIM(loads) },
  { "stores", "stores executed", SIM(stores) },
  { "traps", "traps of any kind", SIM(traps) },
};
#define NSIM (sizeof sim_events / sizeof sim_events[0])

struct event {
  char name[64];
  bool sim;
  int hw;          /* enum hw for hardware events */
  int sim_idx;
  uint64_t value, enabled, running;
};

struct stat_run {
  struct event ev[MAX_EVENTS];
  int n;
  /* hardware scheduling */
  int configs[MAX_EVENTS][2];   /* event on PCTR0, PCTR1 per multiplexing slot, -1 = none */
  unsigned sl1[MAX_EVENTS];     /* PCTR_CTL SL1 for each slot (HRM Table 5-16) */
  int nconfigs, cur;
  uint32_t prev[2];             /* raw counter values at the last update */
  uint64_t slot_start, last_cycle;
  struct timed *timed;
  uint64_t dump_from, dump_count;   /* --dump-fates FROM:COUNT */
  uint64_t irqs;
};

static uint64_t sim_value(const struct ev67_stats *s, uint64_t cycles, int i)
{
  size_t off = sim_events[i].off;
  return off == SIM_CYCLES ? cycles : *(const uint64_t *)((const char *)s + off);
}

/* Parses one event name; returns 0 or -1 with a message. */
static int parse_event(const char *s, struct event *e)
{
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", s);
  if (!strncmp(s, "sim/", 4)) {
    char n[64];
    snprintf(n, sizeof n, "%s", s + 4);
    size_t l = strlen(n);
    if (l && n[l - 1] == '/') n[l - 1] = 0;
    for (size_t i = 0; i < NSIM; i++)
      if (!strcmp(n, sim_events[i].name)) { e->sim = true; e->sim_idx = (int)i; return 0; }
    fprintf(stderr, "event syntax error: '%s'\n  unknown sim event; 'profileme stat --list' shows them\n", s);
    return -1;
  }
  struct perf_event_attr a;
  if (!event_parse(s, &a)) {
    /* stat counts in Aggregate mode on the EV67's counters, which cannot
     * separate user from kernel (arch/alpha/kernel/perf_event.c). */
    unsigned ev = a.type == PERF_TYPE_RAW ? (unsigned)(a.config & PM_CFG_EVENT_MASK)
                : a.type != PERF_TYPE_HARDWARE ? 0
                : a.config == PERF_COUNT_HW_CPU_CYCLES ? HW_CYCLES
                : a.config == PERF_COUNT_HW_INSTRUCTIONS ? HW_INSTRUCTIONS
                : a.config == PERF_COUNT_HW_CACHE_MISSES ? HW_BCACHE : 0;
    bool aggregate = !a.precise_ip && !(a.config & (PM_CFG_PROFILEME | PM_CFG_RANDOM)) &&
                     !a.exclude_user && !a.exclude_kernel && a.type != PERF_TYPE_SOFTWARE;
    if (ev >= HW_CYCLES && ev <= HW_MBOX && aggregate) {
      e->hw = (int)ev;
      return 0;
    }
    fprintf(stderr, "event '%s' cannot be counted by stat: it counts the EV67's four Aggregate-mode\n"
                    "  events for user and kernel together (no :u, :k, :p or ProfileMe)\n", s);
    return -1;
  }
  if (!strcmp(s, "cache-references") || !strcmp(s, "branches") || !strcmp(s, "branch-misses") ||
      !strncmp(s, "L1-", 3) || !strncmp(s, "dTLB", 4) || !strncmp(s, "iTLB", 4)) {
    fprintf(stderr, "event '%s' is not supported by the EV67 PMU (perf: <not supported>);\n"
                    "  its exact count is available as a sim/ event, e.g. sim/branch-misses/\n", s);
    return -1;
  }
  fprintf(stderr, "event syntax error: '%s'\n  unknown event; 'profileme stat --list' shows them\n", s);
  return -1;
}

/* Groups the hardware events into multiplexing slots, each a placement the
 * EV67 allows (ev67_place, HRM Table 5-16), in the order they were given. */
static void schedule(struct stat_run *r)
{
  bool placed[MAX_EVENTS] = { false };
  r->nconfigs = 0;
  for (int i = 0; i < r->n; i++) {
    if (r->ev[i].sim || placed[i]) continue;
    int *c = r->configs[r->nconfigs];
    unsigned *sl1 = &r->sl1[r->nconfigs], on[2] = { EV67_EV_NONE, EV67_EV_NONE };
    r->nconfigs++;
    c[0] = c[1] = -1;
    for (int j = i; j < r->n; j++) {
      if (r->ev[j].sim || placed[j]) continue;
      int k = ev67_place((unsigned)r->ev[j].hw, on, sl1);
      if (k < 0 && j != i && (c[0] < 0) != (c[1] < 0)) {
        /* A pair may need the first event on the other counter (cycles
         * moves to PCTR0 for Mbox replays): place the newcomer first. */
        int e0 = c[0] >= 0 ? c[0] : c[1];
        unsigned on2[2] = { EV67_EV_NONE, EV67_EV_NONE }, s2;
        int k2 = ev67_place((unsigned)r->ev[j].hw, on2, &s2);
        if (k2 >= 0) {
          on2[k2] = (unsigned)r->ev[j].hw;
          int k0 = ev67_place((unsigned)r->ev[e0].hw, on2, &s2);
          if (k0 >= 0) {
            c[0] = c[1] = -1;
            c[k0] = e0;
            on[0] = on[1] = EV67_EV_NONE;
            on[k0] = (unsigned)r->ev[e0].hw;
            *sl1 = s2;
            k = k2;
          }
        }
      }
      if (k < 0) continue;
      c[k] = j;
      on[k] = (unsigned)r->ev[j].hw;
      placed[j] = true;
    }
  }
}

/* Folds the counters' progress into the events of the current slot; counters
 * that overflowed (bits of ovf) wrapped once (Linux's alpha_perf_event_update). */
static void update(struct stat_run *r, uint64_t cycle, unsigned ovf)
{
  struct ev67_pmu *pmu = timed_pmu(r->timed);
  uint64_t ctl = ev67_pmu_mfpr(pmu, EV67_IPR_PCTR_CTL, cycle);
  uint32_t now[2] = { (uint32_t)(ctl >> EV67_PCTR0_SHIFT) & EV67_PCTR_MASK,
                      (uint32_t)(ctl >> EV67_PCTR1_SHIFT) & EV67_PCTR_MASK };
  int *c = r->configs[r->cur];
  for (int k = 0; k < 2; k++) {
    int64_t d = (int64_t)now[k] - (int64_t)r->prev[k];
    if ((ovf & (1u << k)) || d < 0) d += 1 << 20;
    r->prev[k] = now[k];
    if (c[k] >= 0) r->ev[c[k]].value += (uint64_t)d;
  }
}

/* Programs the PMU for slot `cur` as the Linux driver does: events selected,
 * counters zeroed, overflow interrupts enabled, counting enabled. */
static void program(struct stat_run *r, uint64_t cycle)
{
  struct ev67_pmu *pmu = timed_pmu(r->timed);
  int *c = r->configs[r->cur];
  unsigned mask = (c[0] >= 0 ? 1u : 0) | (c[1] >= 0 ? 2u : 0);
  ev67_pmu_wrperfmon(pmu, EV67_PERFMON_DISABLE, 3, cycle);
  ev67_pmu_wrperfmon(pmu, EV67_PERFMON_LOGGING_OPTIONS, 0, cycle);
  ev67_pmu_wrperfmon(pmu, EV67_PERFMON_DESIRED_EVENTS,
                     (uint64_t)r->sl1[r->cur] << EV67_PCTR_SL1_SHIFT, cycle);
  ev67_pmu_wrperfmon(pmu, EV67_PERFMON_WRITE, 3, cycle);
  ev67_pmu_mtpr(pmu, EV67_IPR_HW_INT_CLR, EV67_PC0 | EV67_PC1, cycle);
  ev67_pmu_mtpr(pmu, EV67_IPR_IER_CM, EV67_PC0 | EV67_PC1, cycle);
  ev67_pmu_wrperfmon(pmu, EV67_PERFMON_ENABLE, mask, cycle);
  r->prev[0] = r->prev[1] = 0;
}

/* The PMU interrupt handler: fold the overflowed counters in, acknowledge. */
static void on_irq(void *ctx, struct task *t, uint64_t pc)
{
  (void)t; (void)pc;
  struct stat_run *r = ctx;
  struct ev67_pmu *pmu = timed_pmu(r->timed);
  uint64_t now = ev67_now(timed_core(r->timed));
  uint64_t isum = ev67_pmu_mfpr(pmu, EV67_IPR_ISUM, now);
  unsigned ovf = (isum & EV67_PC0 ? 1u : 0) | (isum & EV67_PC1 ? 2u : 0);
  update(r, now, ovf);
  ev67_pmu_mtpr(pmu, EV67_IPR_HW_INT_CLR, isum & (EV67_PC0 | EV67_PC1), now);
  r->irqs++;
}

/* Time accounting for multiplexing (done per slot, not per instruction: the
 * time a slot ran is the span of retire cycles it saw), and rotation on
 * perf's tick. */
/* Adds dt cycles of enabled time to every hardware event and of running time
 * to those of the current slot. */
static void account(struct stat_run *r, uint64_t dt)
{
  int *c = r->configs[r->cur];
  for (int i = 0; i < r->n; i++) if (!r->ev[i].sim) r->ev[i].enabled += dt;
  for (int k = 0; k < 2; k++) if (c[k] >= 0) r->ev[c[k]].running += dt;
}

static void on_fate(void *ctx, const struct uop_fate *f)
{
  struct stat_run *r = ctx;
  if (r->dump_count && f->seq >= r->dump_from && f->seq < r->dump_from + r->dump_count)
    fprintf(stderr, "fate %llu pc %#llx fetch %llu map %llu issue %llu complete %llu end %llu flags %#x trap %u level %u\n",
            (unsigned long long)f->seq, (unsigned long long)f->pc, (unsigned long long)f->fetch,
            (unsigned long long)f->map, (unsigned long long)f->issue, (unsigned long long)f->complete,
            (unsigned long long)f->end, f->flags, f->trap, f->level);
  if (!r->nconfigs || !(f->flags & FATE_RETIRED) || f->end <= r->last_cycle) return;
  uint64_t now = f->end;
  r->last_cycle = now;
  if (r->nconfigs > 1 && now - r->slot_start >= MUX_CYCLES) {
    account(r, now - r->slot_start);
    ev67_pmu_sync(timed_pmu(r->timed), now);
    update(r, now, 0);
    r->cur = (r->cur + 1) % r->nconfigs;
    r->slot_start = now;
    program(r, now);
  }
}

static void list_events(void)
{
  printf("List of pre-defined events (to be used in -e):\n\n");
  printf("  cycles OR cpu-cycles                               [Hardware event]\n");
  printf("  instructions                                       [Hardware event]\n");
  printf("  cache-misses OR bcache-misses                      [Hardware event: B-cache misses]\n");
  printf("  mbox-replays                                       [Hardware event: Mbox replay traps]\n");
  printf("  cpu/event=N/, rN (N = 1 cycles, 2 instructions, 3 B-cache misses, 4 Mbox replays)\n\n");
  for (size_t i = 0; i < NSIM; i++)
    printf("  sim/%s/%*s[Ground truth: %s]\n", sim_events[i].name,
           (int)(46 - strlen(sim_events[i].name)), "", sim_events[i].desc);
}

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme stat [OPTIONS] [--] PROG [ARGS...]\n"
    "Runs PROG on the timed EV67 and prints event counts on stderr, like perf stat.\n\n"
    "  -e, --event LIST   events to count (comma separated, repeatable); default\n"
    "                     cycles,instructions,sim/branches/,sim/branch-misses/\n"
    "  -x, --field-separator SEP   CSV output: value,unit,event,run-time,percent,,\n"
    "      --list         list the events\n"
    "      --seed N       guest random seed (runs are deterministic)\n"
    "      --sysroot DIR  where absolute guest paths are looked up first\n"
    "      --dump-fates FROM:COUNT  print the fates of fetched instructions FROM..\n"
    "  -h, --help         this text\n\n"
    "Hardware events follow the EV67's two-counter constraints; when they do not\n"
    "fit at once they are multiplexed and scaled, as perf does.\n");
}

static void print_num(FILE *f, uint64_t v)
{
  char buf[32], out[48];
  int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)v), j = 0;
  for (int i = 0; i < n; i++) {
    out[j++] = buf[i];
    if ((n - i - 1) % 3 == 0 && i != n - 1) out[j++] = ',';
  }
  out[j] = 0;
  fprintf(f, "%18s", out);
}

int cmd_stat(int argc, char **argv)
{
  static const struct option opts[] = {
    { "event", required_argument, 0, 'e' }, { "field-separator", required_argument, 0, 'x' },
    { "list", no_argument, 0, 'l' }, { "seed", required_argument, 0, 'S' },
    { "sysroot", required_argument, 0, 's' }, { "help", no_argument, 0, 'h' },
    { "dump-fates", required_argument, 0, 'D' }, { 0, 0, 0, 0 },
  };
  struct stat_run r;
  memset(&r, 0, sizeof r);
  struct machine_opts mo = { .sysroot = "/usr/alpha-linux-gnu" };
  const char *sep = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+e:x:h", opts, NULL)) != -1) {
    switch (c) {
    case 'e': {
      char *list = strdup(optarg), *cursor = list;
      if (!list) return 1;
      for (char *tok; (tok = event_list_next(&cursor));) {
        if (!*tok) continue;   /* empty items, as strtok skipped them */
        if (r.n == MAX_EVENTS) { fprintf(stderr, "profileme stat: too many events\n"); free(list); return 2; }
        if (parse_event(tok, &r.ev[r.n])) { free(list); return 2; }
        r.n++;
      }
      free(list);
      break;
    }
    case 'x': sep = optarg; break;
    case 'l': list_events(); return 0;
    case 'S': {
      char *end;
      mo.seed = strtoull(optarg, &end, 0);
      if (!*optarg || *end) {
        fprintf(stderr, "profileme stat: --seed wants a number, not '%s'\n", optarg);
        return 2;
      }
      break;
    }
    case 's': mo.sysroot = optarg; break;
    case 'D':
      if (sscanf(optarg, "%llu:%llu", (unsigned long long *)&r.dump_from,
                 (unsigned long long *)&r.dump_count) != 2) {
        fprintf(stderr, "profileme stat: --dump-fates wants FROM:COUNT\n");
        return 2;
      }
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind >= argc) { fprintf(stderr, "profileme stat: no program given\n"); usage(stderr); return 2; }
  if (!r.n) {
    const char *def[] = { "cycles", "instructions", "sim/branches/", "sim/branch-misses/" };
    for (int i = 0; i < 4; i++) parse_event(def[i], &r.ev[r.n++]);
  }
  schedule(&r);
  signal(SIGPIPE, SIG_IGN);
  const char *prog = argv[optind];
  int src;
  struct machine *m = tool_spawn("stat", &mo, argc - optind, argv + optind, &src);
  if (!m) return src;
  const struct timed_ops ops = { on_fate, r.nconfigs ? on_irq : NULL, NULL };
  r.timed = timed_create(m, &ev67_default_config, &ops, &r);
  if (!r.timed) { machine_destroy(m); return 1; }
  if (r.nconfigs) program(&r, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = machine_run(m);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fflush(stdout);
  const struct ev67_stats *st = ev67_stats(timed_core(r.timed));
  uint64_t cycles = ev67_now(timed_core(r.timed));
  if (r.nconfigs) {
    ev67_pmu_sync(timed_pmu(r.timed), cycles);
    update(&r, cycles, 0);
    account(&r, r.last_cycle - r.slot_start + (cycles > r.last_cycle ? cycles - r.last_cycle : 0));
  }
  for (int i = 0; i < r.n; i++) {
    struct event *e = &r.ev[i];
    if (e->sim) { e->value = sim_value(st, cycles, e->sim_idx); e->enabled = e->running = cycles; }
  }
  double guest_s = (double)cycles / GUEST_HZ;
  double host_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  uint64_t hw_cycles = 0, hw_insns = 0;
  for (int i = 0; i < r.n; i++) {
    struct event *e = &r.ev[i];
    double scaled = e->running ? (double)e->value * ((double)e->enabled / (double)e->running) : 0;
    double pct = e->enabled ? 100.0 * (double)e->running / (double)e->enabled : 0;
    uint64_t v = (uint64_t)(scaled + 0.5);
    if (!e->sim && e->hw == HW_CYCLES) hw_cycles = v;
    if (!e->sim && e->hw == HW_INSTRUCTIONS) hw_insns = v;
    if (sep) {
      if (e->running)
        fprintf(stderr, "%llu%s%s%s%s%s%llu%s%.2f%s%s\n", (unsigned long long)v, sep, "", sep, e->name,
                sep, (unsigned long long)((double)e->running / GUEST_HZ * 1e9), sep, pct, sep, sep);
      else fprintf(stderr, "<not counted>%s%s%s%s0%s0.00%s%s\n", sep, sep, e->name, sep, sep, sep, sep);
    } else {
      if (i == 0) fprintf(stderr, "\n Performance counter stats for '%s':\n\n", prog);
      if (!e->running) { fprintf(stderr, "%18s      %-28s\n", "<not counted>", e->name); continue; }
      print_num(stderr, v);
      fprintf(stderr, "      %-28s", e->name);
      if (!e->sim && e->hw == HW_INSTRUCTIONS && hw_cycles)
        fprintf(stderr, " #  %5.2f  insn per cycle", (double)hw_insns / (double)hw_cycles);
      if (pct < 99.995) fprintf(stderr, "  (%.2f%%)", pct);
      fprintf(stderr, "\n");
    }
  }
  if (!sep) {
    fprintf(stderr, "\n  %15.9f seconds time elapsed (guest, at 667 MHz)\n", guest_s);
    fprintf(stderr, "  %15.9f seconds host time, %.1f guest MIPS\n\n", host_s,
            host_s > 0 ? (double)st->retired / host_s / 1e6 : 0.0);
  }
  timed_destroy(r.timed);
  int rc = tool_exit_status(status);
  machine_destroy(m);
  return rc;
}
