/* profileme run: loads an Alpha Linux program and runs it on the functional
 * machine; the exit status is the guest's (128+signal when a signal killed it). */
#include "tools/commands.h"
#include "tools/spawn.h"
#include "kernel/alpha_sysfs.h"
#include "machine/machine.h"
#include "util/err.h"
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static void run_usage(FILE *f)
{
  fprintf(f,
    "usage: profileme run [OPTIONS] [--] PROG [ARGS...]\n"
    "Runs the Alpha Linux program PROG (static or dynamic) on the emulated EV67.\n\n"
    "  --sysroot DIR   look up absolute paths (the dynamic linker, libraries)\n"
    "                  under DIR first (default /usr/alpha-linux-gnu)\n"
    "  --seed N        seed for the guest's random numbers (default 0)\n"
    "  --cpus N        CPUs of the machine (default 1); threads and processes run\n"
    "                  on them concurrently in simulated time\n"
    "  --ram SIZE      physical memory of the machine (default 1G; K, M, G suffixes,\n"
    "                  64M to 64G); a program that needs more is OOM-killed\n"
    "  --stats         print instructions, wall time and MIPS to stderr\n"
    "  --trace         run with the trace unit on (trace//, drained through its\n"
    "                  AUX area and discarded): with --stats, the trace bytes\n"
    "                  per instruction (make bench)\n"
    "  --real-time     guest clocks follow the host clock instead of the\n"
    "                  instruction count (runs are then not reproducible)\n"
    "  --timed         run on the timed EV67 cores with their PMUs, so the\n"
    "                  guest's own perf_event_open can count and sample them\n"
    "  --strace        print each system call, its raw arguments and result\n"
    "                  to stderr, as it completes\n"
    "  --paranoid N    kernel.perf_event_paranoid for the guest (default 2)\n"
    "  --no-jit        interpret every instruction: the functional core's\n"
    "                  translation of hot blocks to host code off (the same\n"
    "                  results, slower; for comparing the two)\n"
    "  -h, --help      this text\n");
  tool_machine_usage(f, "run", 2, 18);
  fprintf(f, "\nThe exit status is the guest's; 128+N when signal N ended it. --uarch\n"
             "needs --timed: the functional core has no timing model.\n");
}

static const char *signame(int hs)
{
  const char *d = strsignal(hs);
  return d ? d : "unknown signal";
}

/* --trace: perf's user space for a trace// event whose data is counted
 * and given back (what `record -e trace//` would write, unwritten). */
struct run_trace {
  int fd;
  struct perf_event_mmap_page *up;
  uint64_t bytes, records, truncated, reads;
};

struct run_poll { struct machine *m; struct progress progress; struct run_trace *trace; };

static void trace_consume(struct run_trace *t)
{
  const uint8_t *data = (const uint8_t *)t->up + t->up->data_offset;
  uint64_t size = t->up->data_size, head = __atomic_load_n(&t->up->data_head, __ATOMIC_ACQUIRE), tail = t->up->data_tail;
  while (tail < head) {
    struct perf_event_header h;
    uint64_t v[3];
    for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) & (size - 1)];
    if (h.type == PERF_RECORD_AUX) {
      for (size_t i = 0; i < sizeof v; i++) ((uint8_t *)v)[i] = data[(tail + 8 + i) & (size - 1)];
      t->bytes += v[1];
      t->records++;
      if (v[2] & PERF_AUX_FLAG_TRUNCATED) t->truncated++;
    }
    tail += h.size ? h.size : 8;
  }
  __atomic_store_n(&t->up->data_tail, tail, __ATOMIC_RELEASE);
  __atomic_store_n(&t->up->aux_tail, __atomic_load_n(&t->up->aux_head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
}

static void run_poll(void *ctx)
{
  struct run_poll *rp = ctx;
  if (rp->trace) trace_consume(rp->trace);
  progress_update(&rp->progress, rp->m, NULL, 0);
}

#define TRACE_RING_PAGES 8
#define TRACE_AUX_PAGES 256   /* 2 MB */

static int trace_open(struct machine *mach, struct run_trace *t)
{
  const struct pmu_sysfs *d = pmu_sysfs_find("trace");
  struct perf_event_attr a = { .size = sizeof a, .type = d ? (uint32_t)atoi(d->type) : 0, .exclude_kernel = 1,
                               .inherit = 1, .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU, .sample_id_all = 1 };
  t->fd = machine_perf_open(mach, &a, machine_init_pid(mach), -1, -1, 0);
  if (t->fd < 0) return t->fd;
  void *addr;
  int err = machine_perf_mmap(mach, t->fd, (1 + TRACE_RING_PAGES) * PHYS_PAGE, &addr);
  if (err) return err;
  t->up = addr;
  t->up->aux_offset = (1 + TRACE_RING_PAGES) * PHYS_PAGE;
  t->up->aux_size = TRACE_AUX_PAGES * PHYS_PAGE;
  return machine_perf_mmap_aux(mach, t->fd, t->up->aux_offset, t->up->aux_size, true, &addr);
}

/* The seed's drain: read the event until its count is 0. */
static void trace_drain(struct machine *mach, struct run_trace *t)
{
  uint64_t v = 1;
  while (v && t->reads < 100000) {
    t->reads++;
    if (machine_perf_read(mach, t->fd, &v, sizeof v) != 8) break;
    trace_consume(t);
  }
}

int cmd_run(int argc, char **argv)
{
  static const struct option opts[] = {
    { "sysroot", required_argument, 0, 's' }, { "seed", required_argument, 0, 'S' },
    { "stats", no_argument, 0, 't' }, { "real-time", no_argument, 0, 'r' },
    { "cpus", required_argument, 0, 'C' }, { "help", no_argument, 0, 'h' },
    { "timed", no_argument, 0, 'T' }, { "privileged", no_argument, 0, 'P' },
    { "paranoid", required_argument, 0, 'N' }, { "trace", no_argument, 0, 'X' },
    { "ram", required_argument, 0, 1101 }, { "strace", no_argument, 0, 1102 },
    { "user", no_argument, 0, 1103 }, { "uarch", required_argument, 0, 1104 },
    { "no-jit", no_argument, 0, 1105 },
    { 0, 0, 0, 0 },
  };
  struct machine_opts mo = { .os = { .sysroot = "/usr/alpha-linux-gnu" },
                             .perf = { .paranoid = 2, .privileged = tool_privileged_default("run") } };
  struct ev67_config uarch = ev67_default_config;
  bool uarch_given = false;
  bool stats = false, trace = false;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
    switch (c) {
    case 's': mo.os.sysroot = optarg; break;
    case 'S': {
      char *end;
      mo.os.seed = strtoull(optarg, &end, 0);
      if (*end || !*optarg) { fprintf(stderr, "profileme run: bad --seed '%s'\n", optarg); return 2; }
      break;
    }
    case 't': stats = true; break;
    case 'r': mo.os.real_time = true; break;
    case 'X': trace = true; break;
    case 'C': if (tool_parse_cpus("run", optarg, &mo.ncpus)) return 2; break;
    case 'T': mo.timed = true; break;
    case 'P': mo.perf.privileged = true; break;
    case 'N': {
      char *end;
      mo.perf.paranoid = (int)strtol(optarg, &end, 0);
      if (*end || !*optarg) { fprintf(stderr, "profileme run: bad --paranoid '%s'\n", optarg); return 2; }
      break;
    }
    case 1101: if (tool_parse_ram("run", optarg, &mo.os.ram_bytes)) return 2; break;
    case 1102: mo.os.strace = true; break;
    case 1103: mo.perf.privileged = false; break;
    case 1104: if (tool_parse_uarch("run", optarg, &uarch)) return 2; uarch_given = true; break;
    case 1105: mo.os.no_jit = true; break;
    case 'h': run_usage(stdout); return 0;
    default: run_usage(stderr); return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "profileme run: no program given\n");
    run_usage(stderr);
    return 2;
  }
  if (uarch_given && !mo.timed) {
    fprintf(stderr, "profileme run: --uarch changes the timed EV67: add --timed (the functional core has no timing model)\n");
    return 2;
  }
  if (tool_uarch_finish("run", &uarch, &mo)) return 2;
  /* Guest SIGPIPE is modelled; the host must not die of it when a guest
   * writes to a closed pipe. */
  signal(SIGPIPE, SIG_IGN);
  const char *prog = argv[optind];
  int rc;
  struct machine *mach = tool_spawn("run", &mo, argc - optind, argv + optind, &rc);
  if (!mach) return rc;
  struct os *m = machine_os(mach);
  struct run_poll rp = { .m = mach };
  struct run_trace rt = { .fd = -1 };
  if (trace) {
    int err = trace_open(mach, &rt);
    if (err) {
      fprintf(stderr, "profileme run: trace//: %s\n", strerror(-err));
      machine_destroy(mach);
      return 1;
    }
    rp.trace = &rt;
  }
  progress_start(&rp.progress, "run", stats);
  machine_set_poll(mach, run_poll, &rp);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = machine_run(mach);
  if (trace) trace_drain(mach, &rt);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  progress_end(&rp.progress);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (stats) {
    struct machine_progress mp;
    machine_progress(mach, &mp);
    fprintf(stderr, "profileme: %llu instructions, %.3f s, %.1f MIPS, %llu syscalls, %llu unaligned fix-ups\n",
            (unsigned long long)mp.insns, secs, secs > 0 ? (double)mp.insns / secs / 1e6 : 0.0,
            (unsigned long long)m->syscalls, (unsigned long long)m->cpus[0].unaligned_fixups);
    if (trace)
      fprintf(stderr, "profileme: trace: %llu AUX bytes, %.3f bytes/instruction, %llu AUX records, %llu truncated, %llu drain reads\n",
              (unsigned long long)rt.bytes, mp.insns ? (double)rt.bytes / (double)mp.insns : 0.0,
              (unsigned long long)rt.records, (unsigned long long)rt.truncated, (unsigned long long)rt.reads);
  }
  fflush(stdout);
  if (status & 0x7f) {
    int hs = sig_to_host(status & 0x7f);
    fprintf(stderr, "profileme: %s: %s%s", prog, signame(hs), status & 0x80 ? " (core dumped)" : "");
    if (m->fatal.valid && m->fatal.sig == (status & 0x7f))
      fprintf(stderr, " at pc 0x%llx, address 0x%llx", (unsigned long long)m->fatal.pc,
              (unsigned long long)m->fatal.addr);
    fprintf(stderr, "\n");
  }
  rc = tool_exit_status(status);
  machine_destroy(mach);
  return rc;
}
