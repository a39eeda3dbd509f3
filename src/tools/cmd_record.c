/* profileme record: runs a program on the timed EV67 with perf events opened
 * through the modelled kernel (perf_event_open, mmap'd ring buffers) and
 * drains the rings into a perf.data file exactly as perf record drains a real
 * one: read data_head, copy the records up to it, publish data_tail. Records
 * that perf record synthesizes from /proc (COMM and MMAP of the program and
 * the kernel map) are written by the tool. */
#include "tools/commands.h"
#include "tools/timed.h"
#include "tools/events.h"
#include "tools/spawn.h"
#include "guest/kimage.h"
#include "kernel/perf.h"
#include "kernel/alpha_pmu.h"
#include "perfdata/perfdata.h"
#include "perfdata/pm_raw.h"
#include "util/err.h"
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#define GUEST_MHZ 667
#define PAGE 8192
#define RING_PAGES 64          /* perf's default 512 KB of data pages */
#define MAX_EVENTS 8

struct rec {
  struct machine *m;
  struct timed *timed;
  struct perf_ctx *perf;
  struct alpha_pmu *drv;
  struct pd_writer *w;
  struct perf_event *ev[MAX_EVENTS];
  char names[MAX_EVENTS][96];
  int nev;
  uint64_t samples, bytes, lost_records;
  uint8_t *tmp;
  bool stopped;
  double t0;
  bool progress;
  uint64_t last_progress;
  struct task *last_task;       /* for context-switch events */
};

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) { (void)sig; interrupted = 1; }

static double host_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t cycle_now(void *ctx)
{
  struct rec *r = ctx;
  return ev67_now(timed_core(r->timed));
}

static uint64_t guest_ns(void *ctx) { return cycle_now(ctx) * 1000 / GUEST_MHZ; }

static bool insn_at(void *ctx, uint64_t pc, uint32_t *word)
{
  struct rec *r = ctx;
  if (pc >= KIMAGE_TEXT_BASE) { *word = KIMAGE_INSN; return kimage_lookup(pc) != NULL; }
  struct task *t = r->m->current;
  if (!t || !t->mm) return false;
  return mm_read(t->mm, pc, word, 4, false) == 0;
}

static uint64_t rnd(void *ctx)
{
  struct rec *r = ctx;
  return machine_random(r->m);
}

/* Copies every complete record between data_tail and data_head into the
 * file, then publishes the new tail (what perf's mmap reader does). */
static void drain(struct rec *r)
{
  struct perf_event_mmap_page *up = perf_event_user_page(r->ev[0]);
  if (!up) return;               /* not mapped (the ring is mapped before the run) */
  uint64_t size, head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE), tail = up->data_tail;
  const uint8_t *data = perf_event_data(r->ev[0], &size);
  while (tail < head) {
    struct perf_event_header h;
    uint64_t off = tail & (size - 1);
    for (unsigned i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(off + i) & (size - 1)];
    if (h.size < sizeof h || tail + h.size > head) break;
    for (unsigned i = 0; i < h.size; i++) r->tmp[i] = data[(off + i) & (size - 1)];
    if (h.type == PERF_RECORD_SAMPLE) r->samples++;
    if (h.type == PERF_RECORD_LOST) r->lost_records++;
    pd_writer_record(r->w, (const struct perf_event_header *)r->tmp);
    r->bytes += h.size;
    tail += h.size;
  }
  __atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
}

static void slice(void *ctx)
{
  struct rec *r = ctx;
  struct task *t = r->m->current;
  uint64_t pc = t ? t->ctx.pc : 0;
  if (t && r->last_task && t != r->last_task)
    perf_sw_event(r->perf, PERF_COUNT_SW_CONTEXT_SWITCHES, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, false);
  r->last_task = t;
  if (t) perf_ctx_tick(r->perf, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, pc >= KIMAGE_TEXT_BASE);
  drain(r);
  if (interrupted && !r->stopped) {
    /* Ctrl-C: end the guest as perf's SIGINT ends the workload; the file
     * stays valid because everything recorded so far is drained. */
    r->stopped = true;
    for (struct task *o = r->m->tasks; o; o = o->next)
      if (o->state < TASK_ZOMBIE) task_exit(r->m, o, 2 /* SIGINT */, true);
  }
  if (r->progress) {
    double now = host_now();
    if (now - r->t0 > 2 && (uint64_t)(now * 2) != r->last_progress) {
      r->last_progress = (uint64_t)(now * 2);
      fprintf(stderr, "\r[ profileme record: %llu samples, %.1f guest ms, %.0f s ]",
              (unsigned long long)r->samples, (double)guest_ns(r) / 1e6, now - r->t0);
    }
  }
}

/* Page faults (first touches of pages) are software events. */
static void on_kernel(void *ctx, int activity, uint64_t pc)
{
  struct rec *r = ctx;
  struct task *t = r->m->current;
  if (activity == KACT_PAGE_FAULT && t)
    perf_sw_event(r->perf, PERF_COUNT_SW_PAGE_FAULTS, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, false);
}

static void on_irq(void *ctx, struct task *t, uint64_t pc)
{
  struct rec *r = ctx;
  alpha_pmu_irq(r->drv, (uint32_t)t->proc->pid, (uint32_t)t->tid, pc, pc >= KIMAGE_TEXT_BASE);
}

static void on_task(void *ctx, const struct task_event *e)
{
  struct rec *r = ctx;
  uint32_t pid = (uint32_t)e->t->proc->pid, tid = (uint32_t)e->t->tid;
  switch (e->kind) {
  case TEV_EXEC: perf_record_comm(r->perf, pid, tid, task_comm(e->t), true); break;
  case TEV_MMAP:
    perf_record_mmap2(r->perf, pid, tid, e->addr, e->len, e->pgoff, e->prot, e->flags, e->path, false);
    if (e->path) {
      uint8_t id[20];
      size_t n = pd_elf_build_id(e->path, id);
      if (n) pd_writer_add_build_id(r->w, (int)pid, PERF_RECORD_MISC_USER, id, n, e->path);
    }
    break;
  case TEV_FORK:
    perf_record_fork(r->perf, pid, (uint32_t)e->parent->proc->pid, tid, (uint32_t)e->parent->tid);
    break;
  case TEV_EXIT: perf_record_exit(r->perf, pid, (uint32_t)e->t->proc->ppid, tid, tid); break;
  }
}

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme record [OPTIONS] [--] PROG [ARGS...]\n"
    "Runs PROG on the timed EV67 and samples it into a perf.data file.\n\n"
    "  -e, --event EVENT     event to sample (repeatable); default cycles:p, which\n"
    "                        uses ProfileMe (precise, with per-instruction status)\n"
    "  -c, --count N         sample every N events (ProfileMe: fetched instructions)\n"
    "  -F, --freq N          sample N times per second of guest time (default 4000)\n"
    "  -o, --output FILE     output file (default perf.data)\n"
    "      --seed N          seed for the guest and for randomized intervals\n"
    "      --privileged      record as root (CAP_PERFMON); default: a normal user\n"
    "      --paranoid N      kernel.perf_event_paranoid for the run (default 2)\n"
    "      --sysroot DIR     where absolute guest paths are looked up first\n"
    "  -q, --quiet           no summary line\n"
    "  -h, --help            this text\n\n"
    "As a normal user at paranoid 2 kernel events are not allowed; like perf,\n"
    "record then falls back to user-only sampling (:u).\n");
}

int cmd_record(int argc, char **argv)
{
  static const struct option opts[] = {
    { "event", required_argument, 0, 'e' }, { "count", required_argument, 0, 'c' },
    { "freq", required_argument, 0, 'F' }, { "output", required_argument, 0, 'o' },
    { "seed", required_argument, 0, 'S' }, { "privileged", no_argument, 0, 'P' },
    { "paranoid", required_argument, 0, 'N' }, { "sysroot", required_argument, 0, 's' },
    { "quiet", no_argument, 0, 'q' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
  };
  const char *events[MAX_EVENTS];
  int nevents = 0;
  uint64_t count = 0, freq = 0;
  const char *out = "perf.data";
  struct machine_opts mo = { .sysroot = "/usr/alpha-linux-gnu" };
  struct perf_sysctl sys = { .paranoid = 2 };
  bool quiet = false;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+e:c:F:o:qh", opts, NULL)) != -1) {
    char *end = NULL;
    switch (c) {
    case 'e':
      if (nevents == MAX_EVENTS) { fprintf(stderr, "profileme record: too many events\n"); return 2; }
      events[nevents++] = optarg;
      break;
    case 'c': count = strtoull(optarg, &end, 0); if (*end || !count) goto badnum; break;
    case 'F': freq = strtoull(optarg, &end, 0); if (*end || !freq) goto badnum; break;
    case 'o': out = optarg; break;
    case 'S': mo.seed = strtoull(optarg, &end, 0); if (*end) goto badnum; break;
    case 'P': sys.privileged = true; break;
    case 'N': sys.paranoid = (int)strtol(optarg, &end, 0); if (*end) goto badnum; break;
    case 's': mo.sysroot = optarg; break;
    case 'q': quiet = true; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
    continue;
  badnum:
    fprintf(stderr, "profileme record: bad number '%s'\n", optarg);
    return 2;
  }
  if (optind >= argc) { fprintf(stderr, "profileme record: no program given\n"); usage(stderr); return 2; }
  if (!nevents) events[nevents++] = "cycles:p";
  if (!count && !freq) freq = 4000;
  struct rec r;
  memset(&r, 0, sizeof r);
  struct perf_event_attr attrs[MAX_EVENTS];
  for (int i = 0; i < nevents; i++) {
    if (event_parse(events[i], &attrs[i])) {
      fprintf(stderr, "event syntax error: '%s'\n%s", events[i], event_help);
      return 2;
    }
    struct perf_event_attr *a = &attrs[i];
    a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                     PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
    a->sample_id_all = 1;
    a->inherit = 1;
    if (count) a->sample_period = a->sample_period ? a->sample_period : count;
    else if (!a->sample_period) { a->freq = 1; a->sample_freq = freq; }
    a->exclude_hv = 1;
    snprintf(r.names[i], sizeof r.names[i], "%s", events[i]);
  }
  attrs[0].comm = attrs[0].mmap = attrs[0].mmap2 = attrs[0].task = 1;
  attrs[0].sample_id_all = 1;

  signal(SIGPIPE, SIG_IGN);
  int src;
  struct machine *m = tool_spawn("record", &mo, argc - optind, argv + optind, &src);
  if (!m) return src;
  r.m = m;
  const struct timed_ops ops = { NULL, on_irq, on_kernel };
  r.timed = timed_create(m, &ev67_default_config, &ops, &r);
  r.perf = perf_ctx_create(&sys, machine_phys(m), guest_ns, &r);
  r.tmp = malloc(65536);
  if (!r.timed || !r.perf || !r.tmp) { fprintf(stderr, "profileme record: out of memory\n"); return 1; }
  perf_pmu_register(r.perf, perf_sw_pmu());
  const struct alpha_pmu_env env = { timed_pmu(r.timed), cycle_now, insn_at, rnd, &r };
  r.drv = alpha_pmu_create(r.perf, &env);
  int perr = 0;
  r.w = pd_writer_create(out, &perr);
  if (!r.w) {
    fprintf(stderr, "profileme record: cannot create %s: %s\n", out, pm_strerror(perr));
    return 1;
  }
  int pid = m->init_pid;
  for (int i = 0; i < nevents; i++) {
    int e = perf_event_open(r.perf, &attrs[i], pid, -1, NULL, &r.ev[i]);
    if (e == -EACCES && !attrs[i].exclude_kernel && !sys.privileged) {
      /* perf's fallback: a normal user at paranoid >= 2 samples user space only. */
      attrs[i].exclude_kernel = 1;
      if (!quiet)
        fprintf(stderr, "profileme record: kernel.perf_event_paranoid=%d: sampling user space only "
                        "for '%s' (use --privileged to include the kernel)\n", sys.paranoid, events[i]);
      e = perf_event_open(r.perf, &attrs[i], pid, -1, NULL, &r.ev[i]);
    }
    if (e) {
      fprintf(stderr, "profileme record: perf_event_open for '%s' failed: %s\n", events[i], strerror(-e));
      if (e == -EOPNOTSUPP && attrs[i].precise_ip > 2)
        fprintf(stderr, "  the EV67 supports precise_ip up to 2 (ProfileMe); use :p or :pp\n");
      pd_writer_close(r.w);
      return 1;
    }
    r.nev++;
    int me = i == 0 ? perf_event_mmap(r.ev[0], RING_PAGES, PAGE) : perf_event_set_output(r.ev[i], r.ev[0]);
    if (me) {
      fprintf(stderr, "profileme record: cannot map the ring buffer: %s\n", strerror(-me));
      pd_writer_close(r.w);
      return 1;
    }
    uint64_t id = r.ev[i]->id;
    pd_writer_add_event(r.w, &attrs[i], r.names[i], &id, 1);
  }
  /* What perf record synthesizes from /proc before the workload runs: the
   * kernel map, then the program's COMM and MMAPs (written through the ring
   * by the kernel here, so they are ordered with the samples). */
  size_t nk;
  const struct ksym *ks = kimage_symbols(&nk);
  uint64_t kend = ks[nk - 1].addr + ks[nk - 1].size;
  perf_record_mmap2(r.perf, (uint32_t)-1, 0, KIMAGE_TEXT_BASE, kend - KIMAGE_TEXT_BASE, KIMAGE_TEXT_BASE,
                    5, 2, "[kernel.kallsyms]_text", true);
  m->task_hook = on_task;
  m->slice_hook = slice;
  m->rec_ctx = &r;
  machine_announce(m, m->tasks);
  struct pd_env penv = { .hostname = "profileme", .os_release = "6.1.0-profileme-alpha",
                         .version = "6.1 (profileme)", .arch = "alpha",
                         .cpudesc = "Alpha EV67 (21264A), simulated by profileme", .cpuid = "EV67",
                         .nr_cpus_avail = 1, .nr_cpus_online = 1, .total_mem_kb = 4 << 20,
                         .argc = argc, .argv = argv };
  pd_writer_set_env(r.w, &penv);
  interrupted = 0;
  struct sigaction sa = { 0 }, old;
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old);
  r.progress = isatty(2) && !quiet;
  r.t0 = host_now();
  int status = machine_run(m);
  sigaction(SIGINT, &old, NULL);
  drain(&r);
  if (r.progress && host_now() - r.t0 > 2) fprintf(stderr, "\n");
  uint64_t kept, dropped, spurious;
  alpha_pmu_counts(r.drv, &kept, &dropped, &spurious);
  int werr = pd_writer_close(r.w);
  if (werr) fprintf(stderr, "profileme record: writing %s failed: %s\n", out, pm_strerror(werr));
  if (!quiet)
    fprintf(stderr, "[ profileme record: Captured and wrote %.3f MB %s (%llu samples%s) ]\n",
            (double)r.bytes / 1e6, out, (unsigned long long)r.samples,
            r.lost_records ? ", some lost" : "");
  for (int i = 0; i < r.nev; i++) perf_event_close(r.ev[i]);
  alpha_pmu_destroy(r.drv);
  perf_ctx_destroy(r.perf);
  timed_destroy(r.timed);
  free(r.tmp);
  int rc = tool_exit_status(status);
  machine_destroy(m);
  if (werr) return 1;
  return interrupted ? 130 : rc;
}
