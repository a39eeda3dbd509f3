/* profileme stat: counts events over a run, like perf stat. Every event is
 * opened with perf_event_open on the machine's kernel (inherited by the
 * workload's threads and children) and read with TOTAL_TIME_ENABLED and
 * TOTAL_TIME_RUNNING: hardware events the EV67's two counters cannot hold at
 * once are multiplexed by the kernel on its tick, and stat scales them as perf
 * stat does (count * enabled / running) and prints the share of time each
 * ran. The sim/ PMU gives exact ground truth from the timing model. Output on
 * stderr. */
#include "tools/commands.h"
#include "tools/events.h"
#include "tools/fallback.h"
#include "tools/spawn.h"
#include "kernel/sim_pmu.h"
#include "uapi/pm_raw.h"
#include "util/err.h"
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_EVENTS 64

/* One count: value, time enabled, time running. */
struct count { uint64_t value, enabled, running; };

struct event {
  char name[64];
  struct perf_event_attr attr;
  int fd[MACHINE_MAX_CPUS];      /* one per CPU of -a/-C, else one on the workload */
  int err;                       /* -errno of perf_event_open, 0 when open */
  struct count cpu[MACHINE_MAX_CPUS];
};

struct stat_run {
  struct event ev[MAX_EVENTS];
  int n;
  int cpus[MACHINE_MAX_CPUS];    /* -a/-C: the CPUs counted; else { -1 } */
  int ncpus;
  const char *cpu_list;          /* -C as given, for the header */
  bool no_aggr;                  /* -A: a line per CPU */
  bool verbose;                  /* -v: perf's warnings */
  int paranoid;                  /* kernel.perf_event_paranoid of the run */
  struct machine *m;
  struct progress progress;
  bool sampled;                  /* --sampled: estimates with their 95% interval */
};

/* Parses one event name into its attr; returns 0 or -1 with a message. */
static int parse_event(const char *s, struct event *e)
{
  memset(e, 0, sizeof *e);
  snprintf(e->name, sizeof e->name, "%s", s);
  char msg[1024];
  if (event_parse_msg(s, &e->attr, msg, sizeof msg)) {
    if (!strncmp(s, "sim/", 4))
      fprintf(stderr, "event syntax error: '%s'\n  unknown sim event; 'profileme stat --list' shows them\n", s);
    else if (!strcmp(s, "cache-references") || !strcmp(s, "branches") || !strcmp(s, "branch-misses") ||
             !strncmp(s, "L1-", 3) || !strncmp(s, "dTLB", 4) || !strncmp(s, "iTLB", 4))
      fprintf(stderr, "event '%s' is not supported by the EV67 PMU (perf: <not supported>);\n"
                      "  its exact count is available as a sim/ event, e.g. sim/branch-misses/\n", s);
    else
      fprintf(stderr, "%sRun 'profileme stat --list' for a list of valid events\n", msg);
    return -1;
  }
  const struct perf_event_attr *a = &e->attr;
  /* A ProfileMe event counts sampled instructions, not its event. A mode
   * (:u, :k) on an Aggregate event is the kernel's to refuse (the EV67's
   * counters cannot tell user from kernel: EINVAL, <not supported> as in
   * perf stat). */
  bool hw = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_RAW;
  if (hw && (a->precise_ip || (a->config & (PM_CFG_PROFILEME | PM_CFG_RANDOM)))) {
    fprintf(stderr, "event '%s' cannot be counted by stat: it counts the EV67's four Aggregate-mode\n"
                    "  events (no :p or ProfileMe)\n", s);
    return -1;
  }
  e->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  e->attr.inherit = 1;
  for (int k = 0; k < MACHINE_MAX_CPUS; k++) e->fd[k] = -1;
  return 0;
}

/* Opens every event on the workload (or on each CPU of -a/-C); one that
 * cannot be opened is reported as perf stat reports it (<not supported>),
 * except a permission error. As perf stat (stat_handle_error), an event
 * refused for the kernel at paranoid > 1 is tried again without it and
 * renamed (evsel__fallback); the EV67 refuses that on a hardware event
 * (EINVAL), which is then <not supported> under its :u name. */
static int open_events(struct stat_run *r, int pid)
{
  for (int i = 0; i < r->n; i++) {
    struct event *e = &r->ev[i];
    for (int k = 0; k < r->ncpus; k++) {
      int cpu = r->cpus[k];
      e->fd[k] = machine_perf_open(r->m, &e->attr, cpu < 0 ? pid : -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
      char msg[256];
      if (e->fd[k] < 0 && event_fallback(&e->attr, e->fd[k], r->paranoid, e->name, sizeof e->name, msg, sizeof msg)) {
        if (r->verbose) fprintf(stderr, "Warning:\n%s\n", msg);
        e->fd[k] = machine_perf_open(r->m, &e->attr, cpu < 0 ? pid : -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
      }
      if (e->fd[k] >= 0) continue;
      e->err = e->fd[k];
      if (e->err == -EACCES || e->err == -EPERM) {
        fprintf(stderr, "profileme stat: no permission to count '%s' (%s): kernel.perf_event_paranoid "
                        "forbids it (stat counts as root unless --user)\n", e->name, strerror(-e->err));
        return 1;
      }
    }
  }
  return 0;
}

/* Reads every event on every CPU (value, time enabled, time running). */
static void read_events(struct stat_run *r)
{
  for (int i = 0; i < r->n; i++) {
    struct event *e = &r->ev[i];
    for (int k = 0; k < r->ncpus; k++) {
      uint64_t v[3];
      if (e->fd[k] < 0 || machine_perf_read(r->m, e->fd[k], v, sizeof v) != (long)sizeof v) continue;
      e->cpu[k] = (struct count){ v[0], v[1], v[2] };
    }
  }
}

static void close_events(struct stat_run *r)
{
  for (int i = 0; i < r->n; i++)
    for (int k = 0; k < r->ncpus; k++)
      if (r->ev[i].fd[k] >= 0) machine_perf_close(r->m, r->ev[i].fd[k]);
}

/* The sampled estimate that event e reads (sampling.h), or -1 when it is
 * counted exactly (instructions: warming counts them) or not estimated. */
static int event_quantity(const struct event *e)
{
  const struct perf_event_attr *a = &e->attr;
  unsigned ev = 0;
  if (a->type == PERF_TYPE_HARDWARE)
    ev = a->config == PERF_COUNT_HW_CPU_CYCLES ? 1 : a->config == PERF_COUNT_HW_CACHE_MISSES ? 3 : 0;
  else if (a->type == PERF_TYPE_RAW)
    ev = (unsigned)(a->config & PM_CFG_EVENT_MASK);
  else if (a->type == SIM_PMU_TYPE) {
    int f = sim_pmu_event_field(a->config);
    /* The kernel's work is timed in detail: its counts are exact. */
    if (f < -1 || (f >= 0 && a->exclude_user)) return -1;
    return f == -1 ? SMP_Q_CYCLES : (int)SMP_Q_FIELD((unsigned)f);
  }
  switch (ev) {
  case 1: return SMP_Q_CYCLES;
  case 3: return (int)SMP_Q(bcache_misses);
  case 4: return (int)SMP_Q(replays);
  default: return -1;
  }
}

/* The 95% half-width of event e's count v on CPU cpu (-1: all) in percent
 * of v, or -1 when there is none to print. */
static double noise_pct(const struct stat_run *r, const struct event *e, int cpu, double v)
{
  int q = r->sampled ? event_quantity(e) : -1;
  if (q < 0 || v <= 0) return -1;
  return 100.0 * machine_sampled_halfwidth(r->m, cpu, (unsigned)q) / v;
}

static void stat_poll(void *ctx)
{
  struct stat_run *r = ctx;
  progress_update(&r->progress, r->m, NULL, 0);
}

static void list_events(void)
{
  printf("List of pre-defined events (to be used in -e):\n\n");
  printf("  cycles OR cpu-cycles                               [Hardware event]\n");
  printf("  instructions                                       [Hardware event]\n");
  printf("  cache-misses OR bcache_misses                      [Hardware event: B-cache misses]\n");
  printf("  mbox-replays                                       [Hardware event: Mbox replay traps]\n");
  printf("  cpu/event=N/, rN (N = 1 cycles, 2 instructions, 3 B-cache misses, 4 Mbox replays)\n\n");
  size_t n;
  const struct sim_event *sim = sim_pmu_events(&n);
  for (size_t i = 0; i < n; i++)
    printf("  sim/%s/%*s[Ground truth: %s]\n", sim[i].name, (int)(46 - strlen(sim[i].name)), "",
           sim[i].desc);
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
    "      --sampled[=U,W[,P]]  sampled simulation (docs/sampled.md): U-instruction\n"
    "                     units timed in detail after W detailed instructions of\n"
    "                     warm-up, one every P instructions (default 1000,2000,\n"
    "                     100000), functional warming in between; counts are\n"
    "                     estimates, printed with their 95%% confidence interval\n"
    "                     in perf's ( +- x%% ) column\n"
    "      --cpus N       CPUs of the machine (default 1: a single-threaded program\n"
    "                     gains nothing from more, and the CPUs are simulated in turn)\n"
    "      --ram SIZE     physical memory of the machine (default 1G, 64M to 64G)\n"
    "      --sysroot DIR  where absolute guest paths are looked up first\n"
    "      --dump-fates FROM:COUNT  print the fates of fetched instructions FROM..\n");
  tool_machine_usage(f, "stat", 6, 21);
  fprintf(f,
    "  -v, --verbose      perf's warnings (the fallback to user space only)\n"
    "      --paranoid N   kernel.perf_event_paranoid for the run (default 2)\n"
    "  -a, --all-cpus     count every task on every CPU (system-wide)\n"
    "  -C, --cpu LIST     system-wide on these CPUs only (0,1 or 0-1)\n"
    "  -A, --no-aggr, --per-cpu  a line per CPU (with -a or -C)\n"
    "  -h, --help         this text\n\n"
    "Events are opened with perf_event_open on the machine's kernel. Hardware\n"
    "events follow the EV67's two-counter constraints; when they do not fit at\n"
    "once the kernel multiplexes them on its tick and stat scales them, as perf\n"
    "stat does, printing the share of time each was counted. As a normal user\n"
    "(--user) at paranoid 2, hardware events fall back to :u and are\n"
    "<not supported>, as with perf.\n");
}

/* ---- output, as perf stat 6.1 prints it (util/stat-display.c and
 * stat-shadow.c): a value column (msec with two decimals for the clock
 * events, whose scale is 1e-6; counts with thousands separators), a unit
 * column four wide, the name 32 wide, then the metric perf derives from
 * the other counts ("CPUs utilized", "insn per cycle", "GHz", a rate per
 * second) in a 35-wide column, then the share of time counted. ---- */

#define METRIC_LEN 35   /* stat-display.c */

/* perf's evsel__is_clock: task-clock and cpu-clock count nanoseconds and
 * are shown in msec. */
static bool is_clock(const struct event *e)
{
  return e->attr.type == PERF_TYPE_SOFTWARE &&
         (e->attr.config == PERF_COUNT_SW_TASK_CLOCK || e->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

static bool is_hw(const struct event *e, uint64_t config)
{
  return e->attr.type == PERF_TYPE_HARDWARE && e->attr.config == config;
}

/* stat-shadow.c's evsel_context: the shadow counts are kept per set of
 * exclude bits, so cycles:u pairs with instructions:u only. */
static unsigned ctx_of(const struct event *e)
{
  return e->attr.exclude_kernel | e->attr.exclude_user << 1 | e->attr.exclude_hv << 2 |
         e->attr.exclude_host << 3 | e->attr.exclude_idle << 4;
}

/* The counts perf's metrics read (perf_stat__update_shadow_stats): the mean
 * of the clock events' nanoseconds and of the cycles, per context. */
#define NCTX 32
struct shadow { double nsecs[NCTX], cycles[NCTX]; unsigned n_nsecs[NCTX], n_cycles[NCTX]; };

static double scaled(const struct count *c)
{
  return c->running ? (double)c->value * ((double)c->enabled / (double)c->running) : 0;
}

static void shadow_add(struct shadow *sh, const struct event *e, const struct count *c)
{
  if (!c->running) return;
  unsigned x = ctx_of(e);
  double v = (double)(uint64_t)(scaled(c) + 0.5);
  if (is_clock(e)) { sh->nsecs[x] += v; sh->n_nsecs[x]++; }
  else if (is_hw(e, PERF_COUNT_HW_CPU_CYCLES)) { sh->cycles[x] += v; sh->n_cycles[x]++; }
}

/* A number with thousands separators (perf's %' in a grouping locale). */
static void grouped(char *out, size_t len, double v, int decimals)
{
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", decimals, v);
  size_t intlen = strcspn(buf, "."), j = 0;
  for (size_t i = 0; buf[i] && j + 2 < len; i++) {
    out[j++] = buf[i];
    if (i + 1 < intlen && (intlen - i - 1) % 3 == 0 && buf[i] != '-') out[j++] = ',';
  }
  out[j] = 0;
}

/* The metric of one counter: fmt and unit as perf's print_metric gets them
 * (fmt NULL: none). */
struct metric { const char *fmt, *unit; double val; char unit_buf[16]; };

static void metric_of(const struct event *e, double v, const struct shadow *sh, double walltime_ns,
                      struct metric *m)
{
  unsigned x = ctx_of(e);
  double ns = sh->n_nsecs[x] ? sh->nsecs[x] / sh->n_nsecs[x] : 0;
  double cyc = sh->n_cycles[x] ? sh->cycles[x] / sh->n_cycles[x] : 0;
  *m = (struct metric){ NULL, NULL, 0, "" };
  if (is_hw(e, PERF_COUNT_HW_INSTRUCTIONS)) {
    m->unit = "insn per cycle";
    if (sh->n_cycles[x]) { m->fmt = "%7.2f "; m->val = cyc ? v / cyc : 0; }
  } else if (is_hw(e, PERF_COUNT_HW_CPU_CYCLES)) {
    if (ns) { m->fmt = "%8.3f"; m->unit = "GHz"; m->val = v / ns; }
  } else if (is_clock(e)) {
    m->unit = "CPUs utilized";
    if (walltime_ns) { m->fmt = "%8.3f"; m->val = v / walltime_ns; }
  } else if (sh->n_nsecs[x]) {
    /* convert_unit_double: K, M, G per second */
    double r = ns ? 1e9 * v / ns : 0;
    char u = ' ';
    for (const char *p = "KMG"; *p && r > 1000.0; p++) { r /= 1000.0; u = *p; }
    snprintf(m->unit_buf, sizeof m->unit_buf, u == ' ' ? "/sec" : "%c/sec", u);
    m->fmt = "%8.3f";
    m->unit = m->unit_buf;
    m->val = r;
  }
}

/* Prints one counter's line; prefix is the CPU column of -A ("" else). */
static void print_count(const struct stat_run *r, const struct event *e, const struct count *c, int cpu,
                        const char *prefix, const char *sep, const struct shadow *sh, double walltime_ns)
{
  bool clock = is_clock(e);
  const char *unit = clock ? "msec" : "";
  /* print_running: the share counted, 100 when it ran all it was enabled */
  double pct = c->running != c->enabled ? 100.0 * (double)c->running / (double)c->enabled : 100.0;
  const char *why = e->err ? "<not supported>" : "<not counted>";
  double v = (double)(uint64_t)(scaled(c) + 0.5);
  double noise = noise_pct(r, e, cpu, v);
  char ncol[32] = "";   /* perf's CSV noise column, after the name */
  if (sep && noise >= 0) snprintf(ncol, sizeof ncol, "%s%.2f%%", sep, noise);
  struct metric m;
  metric_of(e, v, sh, walltime_ns, &m);
  if (sep) {
    if (*prefix) fprintf(stderr, "%s%s", prefix, sep);
    if (!c->running || !c->enabled) {
      fprintf(stderr, "%s%s%s%s%s%s%s%llu%s%.2f%s%s\n", why, sep, unit, sep, e->name, ncol, sep,
              (unsigned long long)c->running, sep, pct, sep, sep);
      return;
    }
    if (clock) fprintf(stderr, "%.2f", v / 1e6);
    else fprintf(stderr, "%.0f", v);
    fprintf(stderr, "%s%s%s%s%s%s%llu%s%.2f", sep, unit, sep, e->name, ncol, sep, (unsigned long long)c->running,
            sep, pct);
    /* print_metric_csv: the value stripped of blanks, then the unit */
    char num[64];
    if (m.fmt) snprintf(num, sizeof num, m.fmt, m.val);
    const char *p = num;
    while (m.fmt && *p == ' ') p++;
    size_t n = m.fmt ? strspn(p, "0123456789.") : 0;
    if (m.fmt) fprintf(stderr, "%s%.*s%s%s\n", sep, (int)n, p, sep, m.unit);
    else fprintf(stderr, "%s%s\n", sep, sep);
    return;
  }
  fprintf(stderr, "%s", prefix);
  if (!c->running || !c->enabled) {
    fprintf(stderr, "%18s %-4s %-25s%-*s", why, unit, e->name, METRIC_LEN, "");
    if (c->running != c->enabled) fprintf(stderr, "  (%.2f%%)", pct);
    fprintf(stderr, "\n");
    return;
  }
  char num[64];
  if (clock) grouped(num, sizeof num, v / 1e6, 2);
  else grouped(num, sizeof num, v, 0);
  fprintf(stderr, "%18s %-4s %-32s", num, unit, e->name);
  if (m.fmt) {   /* print_metric_std */
    char val[64];
    int n = snprintf(val, sizeof val, m.fmt, m.val) + 3;
    fprintf(stderr, " # %s %-*s", val, METRIC_LEN - n - 1, m.unit);
  } else {
    fprintf(stderr, "%-*s", METRIC_LEN, "");
  }
  if (noise > 0) fprintf(stderr, "  ( +-%6.2f%% )", noise);   /* print_noise_pct */
  if (c->running != c->enabled) fprintf(stderr, "  (%.2f%%)", pct);
  fprintf(stderr, "\n");
}

/* Prints the counts: summed over the CPUs, or a line per CPU with -A. */
static void print_counts(const struct stat_run *r, int argc, char **argv, const char *sep, double walltime_ns)
{
  if (!sep) {
    /* print_header: 'system wide', 'CPU(s) LIST' or the command line */
    fprintf(stderr, "\n Performance counter stats for '");
    if (r->cpu_list) fprintf(stderr, "CPU(s) %s", r->cpu_list);
    else if (r->cpus[0] >= 0) fprintf(stderr, "system wide");
    else for (int i = 0; i < argc; i++) fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
    fprintf(stderr, "':\n\n");
  }
  for (int k = 0; r->no_aggr && k < r->ncpus; k++) {
    struct shadow sh;
    memset(&sh, 0, sizeof sh);
    for (int i = 0; i < r->n; i++) shadow_add(&sh, &r->ev[i], &r->ev[i].cpu[k]);
    char prefix[16];
    snprintf(prefix, sizeof prefix, sep ? "CPU%d" : "CPU%-7d ", r->cpus[k]);
    for (int i = 0; i < r->n; i++) print_count(r, &r->ev[i], &r->ev[i].cpu[k], r->cpus[k], prefix, sep, &sh, walltime_ns);
  }
  if (r->no_aggr) return;
  struct count sum[MAX_EVENTS];
  struct shadow sh;
  memset(&sh, 0, sizeof sh);
  for (int i = 0; i < r->n; i++) {
    sum[i] = (struct count){ 0, 0, 0 };
    for (int k = 0; k < r->ncpus; k++) {
      sum[i].value += r->ev[i].cpu[k].value;
      sum[i].enabled += r->ev[i].cpu[k].enabled;
      sum[i].running += r->ev[i].cpu[k].running;
    }
    shadow_add(&sh, &r->ev[i], &sum[i]);
  }
  for (int i = 0; i < r->n; i++) print_count(r, &r->ev[i], &sum[i], -1, "", sep, &sh, walltime_ns);
}

int cmd_stat(int argc, char **argv)
{
  static const struct option opts[] = {
    { "event", required_argument, 0, 'e' }, { "field-separator", required_argument, 0, 'x' },
    { "list", no_argument, 0, 'l' }, { "seed", required_argument, 0, 'S' },
    { "sysroot", required_argument, 0, 's' }, { "help", no_argument, 0, 'h' },
    { "dump-fates", required_argument, 0, 'D' }, { "user", no_argument, 0, 'U' },
    { "privileged", no_argument, 0, 'P' }, { "uarch", required_argument, 0, 1102 },
    { "paranoid", required_argument, 0, 'N' }, { "cpus", required_argument, 0, 'M' },
    { "all-cpus", no_argument, 0, 'a' }, { "cpu", required_argument, 0, 'C' },
    { "no-aggr", no_argument, 0, 'A' }, { "per-cpu", no_argument, 0, 'A' },
    { "verbose", no_argument, 0, 'v' }, { "ram", required_argument, 0, 1101 },
    { "sampled", optional_argument, 0, 1103 }, { 0, 0, 0, 0 },
  };
  struct stat_run r;
  memset(&r, 0, sizeof r);
  struct machine_opts mo = { .os = { .sysroot = "/usr/alpha-linux-gnu" }, .timed = true,
                             .perf = { .paranoid = 2, .privileged = tool_privileged_default("stat") } };
  struct ev67_config uarch = ev67_default_config;
  const char *sep = NULL;
  int c;
  optind = 1;
  const char *cpu_list = NULL;
  bool all_cpus = false;
  while ((c = getopt_long(argc, argv, "+e:x:vhaC:A", opts, NULL)) != -1) {
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
    case 'S': case 'N': {
      char *end;
      long long v = strtoll(optarg, &end, 0);
      if (!*optarg || *end) {
        fprintf(stderr, "profileme stat: --%s wants a number, not '%s'\n", c == 'S' ? "seed" : "paranoid", optarg);
        return 2;
      }
      if (c == 'S') mo.os.seed = (uint64_t)v;
      else mo.perf.paranoid = (int)v;
      break;
    }
    case 'U': mo.perf.privileged = false; break;
    case 'P': mo.perf.privileged = true; break;
    case 1102: if (tool_parse_uarch("stat", optarg, &uarch)) return 2; break;
    case 'M': if (tool_parse_cpus("stat", optarg, &mo.ncpus)) return 2; break;
    case 1101: if (tool_parse_ram("stat", optarg, &mo.os.ram_bytes)) return 2; break;
    case 1103: if (tool_parse_sampled("stat", optarg, &mo.sampled)) return 2; r.sampled = true; break;
    case 'a': all_cpus = true; break;
    case 'C': cpu_list = optarg; break;
    case 'A': r.no_aggr = true; break;
    case 'v': r.verbose = true; break;
    case 's': mo.os.sysroot = optarg; break;
    case 'D':
      if (sscanf(optarg, "%llu:%llu", (unsigned long long *)&mo.dump_from,
                 (unsigned long long *)&mo.dump_count) != 2) {
        fprintf(stderr, "profileme stat: --dump-fates wants FROM:COUNT\n");
        return 2;
      }
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind >= argc) { fprintf(stderr, "profileme stat: no program given\n"); usage(stderr); return 2; }
  if (tool_uarch_finish("stat", &uarch, &mo)) return 2;
  if (!r.n) {
    const char *def[] = { "cycles", "instructions", "sim/branches/", "sim/branch-misses/" };
    for (int i = 0; i < 4; i++) parse_event(def[i], &r.ev[r.n++]);
  }
  int machine_cpus = mo.ncpus ? mo.ncpus : 1;
  if (cpu_list) {
    if (tool_parse_cpu_list("stat", cpu_list, machine_cpus, r.cpus, &r.ncpus)) return 2;
  } else if (all_cpus) {
    for (int i = 0; i < machine_cpus; i++) r.cpus[r.ncpus++] = i;
  } else {
    r.cpus[r.ncpus++] = -1;
  }
  if (r.no_aggr && r.cpus[0] < 0) {
    fprintf(stderr, "profileme stat: -A (--no-aggr, --per-cpu) counts per CPU: use it with -a or -C\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  r.cpu_list = cpu_list;
  int rc;
  r.paranoid = mo.perf.paranoid;
  r.m = tool_spawn("stat", &mo, argc - optind, argv + optind, &rc);
  if (!r.m) return rc;
  if (open_events(&r, machine_init_pid(r.m))) { close_events(&r); machine_destroy(r.m); return 1; }
  progress_start(&r.progress, "stat", true);
  machine_set_poll(r.m, stat_poll, &r);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = machine_run(r.m);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  progress_end(&r.progress);
  fflush(stdout);
  read_events(&r);
  struct machine_progress mp;
  machine_progress(r.m, &mp);
  print_counts(&r, argc - optind, argv + optind, sep, (double)mp.ns);
  double host_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (!sep) {
    /* print_footer; then ours: the host's side of the run */
    fprintf(stderr, "\n %17.9f seconds time elapsed\n\n", (double)mp.ns / 1e9);
    fprintf(stderr, " %17.9f seconds host time, %.1f guest MIPS (guest time: cycles at %d MHz)\n\n",
            host_s, host_s > 0 ? (double)mp.insns / host_s / 1e6 : 0.0, MACHINE_CLOCK_MHZ);
    if (mo.uarch) {   /* counts from a what-if machine say so */
      char what[2048];
      ev67_config_format(mo.uarch, false, what, sizeof what);
      fprintf(stderr, " a what-if EV67: %s (the rest as the HRM's)\n\n", what);
    }
    struct machine_sampled ms;
    if (machine_sampled_info(r.m, &ms))
      fprintf(stderr, " sampled: %llu units of %llu instructions (%llu warm-up) every %llu; %.2f%% of %llu\n"
                      " instructions timed in detail, %.2f%% warmed; +- is the 95%% confidence interval\n\n",
              (unsigned long long)ms.units, (unsigned long long)mo.sampled.unit,
              (unsigned long long)mo.sampled.warmup, (unsigned long long)mo.sampled.period,
              ms.insns ? 100.0 * (double)(ms.insns - ms.insns_warm) / (double)ms.insns : 0.0,
              (unsigned long long)ms.insns, ms.insns ? 100.0 * (double)ms.insns_warm / (double)ms.insns : 0.0);
  }
  close_events(&r);
  rc = tool_exit_status(status);
  machine_destroy(r.m);
  return rc;
}
