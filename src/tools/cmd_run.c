/* profileme run: loads an Alpha Linux program and runs it on the functional
 * machine; the exit status is the guest's (128+signal when a signal killed it). */
#include "tools/commands.h"
#include "tools/spawn.h"
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
    "  --real-time     guest clocks follow the host clock instead of the\n"
    "                  instruction count (runs are then not reproducible)\n"
    "  -h, --help      this text\n\n"
    "The exit status is the guest's; 128+N when signal N ended it.\n");
}

static const char *signame(int hs)
{
  const char *d = strsignal(hs);
  return d ? d : "unknown signal";
}

struct run_poll { struct machine *m; struct progress progress; };

static void run_poll(void *ctx)
{
  struct run_poll *rp = ctx;
  progress_update(&rp->progress, rp->m, NULL, 0);
}

int cmd_run(int argc, char **argv)
{
  static const struct option opts[] = {
    { "sysroot", required_argument, 0, 's' }, { "seed", required_argument, 0, 'S' },
    { "stats", no_argument, 0, 't' }, { "real-time", no_argument, 0, 'r' },
    { "cpus", required_argument, 0, 'C' }, { "help", no_argument, 0, 'h' },
    { "ram", required_argument, 0, 1101 }, { 0, 0, 0, 0 },
  };
  struct machine_opts mo = { .os = { .sysroot = "/usr/alpha-linux-gnu" } };
  bool stats = false;
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
    case 'C': if (tool_parse_cpus("run", optarg, &mo.ncpus)) return 2; break;
    case 1101: if (tool_parse_ram("run", optarg, &mo.os.ram_bytes)) return 2; break;
    case 'h': run_usage(stdout); return 0;
    default: run_usage(stderr); return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "profileme run: no program given\n");
    run_usage(stderr);
    return 2;
  }
  /* Guest SIGPIPE is modelled; the host must not die of it when a guest
   * writes to a closed pipe. */
  signal(SIGPIPE, SIG_IGN);
  const char *prog = argv[optind];
  int rc;
  struct machine *mach = tool_spawn("run", &mo, argc - optind, argv + optind, &rc);
  if (!mach) return rc;
  struct os *m = machine_os(mach);
  struct run_poll rp = { .m = mach };
  progress_start(&rp.progress, "run", stats);
  machine_set_poll(mach, run_poll, &rp);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = machine_run(mach);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  progress_end(&rp.progress);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (stats) {
    struct machine_progress mp;
    machine_progress(mach, &mp);
    fprintf(stderr, "profileme: %llu instructions, %.3f s, %.1f MIPS, %llu syscalls, %llu unaligned fix-ups\n",
            (unsigned long long)mp.insns, secs, secs > 0 ? (double)mp.insns / secs / 1e6 : 0.0,
            (unsigned long long)m->syscalls, (unsigned long long)m->cpus[0].unaligned_fixups);
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
