/* profileme record: runs a program on the timed EV67 with perf events opened
 * through the modelled kernel (perf_event_open, mmap'd ring buffers) and
 * drains the rings into a perf.data file exactly as perf record drains a real
 * one: read data_head, copy the records up to it, publish data_tail. The
 * kernel writes COMM, MMAP2, FORK and EXIT into the ring as the attr asks;
 * the kernel map, which perf synthesizes from /proc/kallsyms, is written by
 * the tool. */
#include "tools/commands.h"
#include "tools/events.h"
#include "tools/fallback.h"
#include "tools/spawn.h"
#include "analysis/reg_names.h"
#include "analysis/itrace.h"
#include "tools/record_aux.h"
#include "uapi/perf_regs.h"
#include "kernel/alpha_sysfs.h"
#include "guest/kimage.h"
#include "machine/machine.h"
#include "perfdata/perfdata.h"
#include "perfdata/records.h"
#include "uapi/pm_truth.h"
#include "util/err.h"
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGE 8192
#define RING_PAGES 64          /* perf's default 512 KB of data pages */
#define MAX_EVENTS 8
#define AUX_PAGES 128          /* a trace event's AUX area: 1 MB */
#define AUX_DRAIN_READS 100000 /* the drain loop's bound (each read dumps up to the AUX space) */

struct rec {
  struct machine *m;
  struct pd_writer *w;
  int fd[MAX_EVENTS * MACHINE_MAX_CPUS];
  int nfd;
  struct perf_event_attr attr[MAX_EVENTS];
  uint64_t id[MAX_EVENTS][MACHINE_MAX_CPUS];   /* per event, per CPU opened on */
  char names[MAX_EVENTS][96];
  struct perf_event_mmap_page *up[2 * MACHINE_MAX_CPUS];   /* the rings, as mmap gave them */
  int nrings;
  struct aux_map *aux;                    /* the trace events' AUX areas, one per fd (naux) */
  int naux;
  bool aux_snapshot;                      /* --snapshot */
  uint64_t samples, bytes, lost_records, lost_samples;
  uint8_t *tmp;
  FILE *chain_truth;             /* --callchain-truth */
  bool stopped;
  struct progress progress;
};

static volatile sig_atomic_t interrupted, snapshot_asked;
static void on_sigint(int sig) { (void)sig; interrupted = 1; }
static void on_sigusr2(int sig) { (void)sig; snapshot_asked = 1; }

/* What perf record does with an MMAP2 of a file: remember its build id for
 * the file's header (perf's build-id collection). */
static void note_build_id(struct rec *r, const struct perf_event_header *h)
{
  struct pd_mmap_rec m;
  if (h->misc & PERF_RECORD_MISC_KERNEL || !pd_read_mmap(h, &m)) return;
  uint8_t id[20];
  size_t len = m.filename[0] == '/' ? pd_elf_build_id(m.filename, id) : 0;
  if (len) pd_writer_add_build_id(r->w, (int)m.pid, PERF_RECORD_MISC_USER, id, len, m.filename);
}

/* Copies every complete record between data_tail and data_head of one ring
 * into the file, then publishes the new tail (what perf's mmap reader does). */
static void drain_ring(struct rec *r, struct perf_event_mmap_page *up, struct aux_map *aux)
{
  uint64_t size = up->data_size, head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE),
           tail = up->data_tail;
  const uint8_t *data = (const uint8_t *)up + up->data_offset;
  while (tail < head) {
    struct perf_event_header h;
    uint64_t off = tail & (size - 1);
    for (unsigned i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(off + i) & (size - 1)];
    if (h.size < sizeof h || tail + h.size > head) break;
    for (unsigned i = 0; i < h.size; i++) r->tmp[i] = data[(off + i) & (size - 1)];
    const struct perf_event_header *rec = (const struct perf_event_header *)r->tmp;
    if (h.type == PERF_RECORD_SAMPLE) r->samples++;
    uint64_t lost_id, lost;
    if (pd_read_lost(rec, &lost_id, &lost)) {
      r->lost_records++;
      r->lost_samples += lost;
    }
    if (h.type == PERF_RECORD_MMAP2) note_build_id(r, rec);
    pd_writer_record(r->w, rec);
    if (h.type == PERF_RECORD_AUX && aux) {
      /* the dump's bytes, as record__auxtrace_mmap_read copies them */
      uint64_t before = aux->bytes;
      aux_map_process_aux(aux, r->w, rec);
      r->bytes += aux->bytes - before;
    }
    r->bytes += h.size;
    tail += h.size;
  }
  __atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
}

/* The AUX map whose ring up is, or NULL. */
static struct aux_map *aux_of(struct rec *r, const struct perf_event_mmap_page *up)
{
  for (int i = 0; i < r->naux; i++)
    if (r->aux[i].up == up) return &r->aux[i];
  return NULL;
}

static void drain(struct rec *r)
{
  for (int i = 0; i < r->nrings; i++) drain_ring(r, r->up[i], aux_of(r, r->up[i]));
  /* snapshot mode: SIGUSR2 asks for one (record__read_auxtrace_snapshot):
   * a read makes the driver dump, then the dumps still in the area are copied */
  if (!snapshot_asked) return;
  snapshot_asked = 0;
  for (int i = 0; i < r->naux; i++) {
    uint64_t v[4], before = r->aux[i].bytes;
    machine_perf_read(r->m, r->aux[i].fd, v, sizeof v);
    drain_ring(r, r->aux[i].up, &r->aux[i]);
    aux_snapshot(&r->aux[i], r->w);
    r->bytes += r->aux[i].bytes - before;
  }
}

/* The machine calls this between scheduling rounds and on every tick. */
static void poll_rings(void *ctx)
{
  struct rec *r = ctx;
  drain(r);
  if (interrupted && !r->stopped) {
    /* Ctrl-C: end the guest as perf's SIGINT ends the workload; the file
     * stays valid because everything recorded so far is drained. */
    r->stopped = true;
    machine_stop(r->m);
  }
  progress_update(&r->progress, r->m, "samples", r->samples);
}

/* perf_event__synthesize_kernel_mmap: the kernel map, written by the tool
 * (perf reads it from /proc/kallsyms) with the sample_id trailer of the
 * first event. */
static void synth_kernel_mmap(struct rec *r)
{
  size_t nk;
  const struct ksym *ks = kimage_symbols(&nk);
  uint64_t start = KIMAGE_TEXT_BASE, end = ks[nk - 1].addr + ks[nk - 1].size;
  uint8_t rec[256];
  struct pd_mmap_rec map = { .pid = (uint32_t)-1, .tid = 0, .start = start, .len = end - start, .pgoff = start,
                             .prot = 5, .flags = 2, .filename = "[kernel.kallsyms]_text" };
  struct pd_sample_id sid = { .pid = (uint32_t)-1, .id = r->id[0][0], .stream_id = r->id[0][0] };
  size_t n = pd_build_mmap2(rec, sizeof rec, PERF_RECORD_MISC_KERNEL, &map);
  n += pd_build_sample_id(rec + n, sizeof rec - n, r->attr[0].sample_type, &sid);
  struct perf_event_header *h = (struct perf_event_header *)rec;
  h->size = (uint16_t)n;
  pd_writer_record(r->w, h);
  r->bytes += n;
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
    "      --cpus N          CPUs of the machine (default 1: a single-threaded program\n"
    "                        gains nothing from more, and the CPUs are simulated in turn)\n"
    "      --ram SIZE        physical memory of the machine (default 1G, 64M to 64G)\n"
    "  -a, --all-cpus        system-wide: every task on every CPU (needs --privileged)\n"
    "  -C, --cpu LIST        system-wide on these CPUs only (0,1 or 0-1)\n"
    "      --per-thread      follow the workload's first thread only (no inherit)\n"
    "  -m, --mmap-pages N    data pages (8 KB) of each ring, a power of two (default 64)\n"
    "      --call-graph MODE call chains: fp (the kernel's chain; user part: the pc\n"
    "                        only, Alpha code keeps no frame chain) or dwarf[,SIZE]\n"
    "                        (user registers and SIZE bytes of user stack, default\n"
    "                        8192, for a DWARF unwinder)\n"
    "      --unwind-at-record with --call-graph dwarf: unwind in the kernel at\n"
    "                        each sample (all registers, the guest's stack) and\n"
    "                        store the whole user chain in the callchain, no\n"
    "                        registers or stack: a far smaller file, same report\n"
    "      --callchain-truth FILE  write the true call stack of every sample (the\n"
    "                        machine's shadow of calls and returns) to FILE, one\n"
    "                        line each: pid tid time n pc ret... (hex; n -1: unknown)\n"
    "  -g                    --call-graph fp, as perf\n"
    "      --user-regs[=LIST] sample these user registers (r0..r8, r16..r28, gp,\n"
    "                        sp, pc; all when no list; ? lists them)\n"
    "  -I, --intr-regs[=LIST] sample the registers of the interrupted frame (all\n"
    "                        when no list; ? lists them)\n"
    "      --switch-events   record context switches (PERF_RECORD_SWITCH, and\n"
    "                        SWITCH_CPU_WIDE with -a or -C)\n"
    "      --paranoid N      kernel.perf_event_paranoid for the run (default 2)\n"
    "      --max-sample-rate N  kernel.perf_event_max_sample_rate for the run\n"
    "                        (default 100000: each event takes at most\n"
    "                        DIV_ROUND_UP(N, HZ) interrupts per tick per CPU)\n"
    "      --sysroot DIR     where absolute guest paths are looked up first\n"
    "  -m, --mmap-pages N[,M] ... M: pages (8 KB) of a trace event's AUX area\n"
    "                        (default 128: 1 MB), a power of two\n"
    "      --snapshot        trace in snapshot mode (the AUX area overwritten in a\n"
    "                        circle); SIGUSR2 takes a snapshot, as perf record -S,\n"
    "                        and one is taken at the end\n"
    "      --sampled[=U,W[,P]] sampled simulation (docs/sampled.md): functional warming\n"
    "                        between detailed windows; the machine switches to the\n"
    "                        timing model W instructions before each ProfileMe\n"
    "                        sample is due, so every sample is taken in detail, and\n"
    "                        times U-instruction units every P instructions for the\n"
    "                        clock (default 1000,2000,100000)\n"
    "      --truth           also store the exact count of every instruction's fetches\n"
    "                        and ProfileMe statuses (dcpi and annotate compare)\n"
    "  -q, --quiet           no summary line\n"
    "  -v, --verbose         perf's warnings (the fallback to user space only)\n"
    "  -h, --help            this text\n");
  tool_machine_usage(f, "record", 6, 24);
  fprintf(f, "\n"
    "As a normal user at paranoid 2 kernel events are not allowed; like perf,\n"
    "record then retries excluding the kernel (:u, with -v perf's warning). The\n"
    "EV67 excludes by mode only in ProfileMe: an Aggregate event (cycles,\n"
    "instructions, ...) then fails as on Linux; use --privileged.\n");
}

struct rec_opts {
  const char *events[MAX_EVENTS];
  int nevents;
  uint64_t count, freq;
  const char *out;
  bool quiet, verbose;
  bool all_cpus, per_thread, switch_events;
  bool truth;                    /* --truth: ground truth per instruction */
  bool unwind_at_record;         /* --unwind-at-record */
  const char *chain_truth;       /* --callchain-truth FILE */
  uint64_t mmap_pages;           /* data pages per ring (-m) */
  uint64_t aux_pages;            /* AUX pages of a trace event (-m N,M) */
  bool snapshot;                 /* --snapshot */
  const char *cpu_list;          /* -C */
  int callgraph;                 /* 0, CG_FP or CG_DWARF */
  uint32_t stack_size;           /* --call-graph dwarf,SIZE */
  uint64_t user_regs, intr_regs; /* --user-regs, -I masks (0: not asked) */
  int cpus[MACHINE_MAX_CPUS];    /* the CPUs events are opened on; -1: the workload's, wherever it runs */
  int ncpus;
  struct machine_opts mo;
  struct ev67_config uarch;      /* --uarch; mo.uarch points here when it is not the HRM's */
};

enum { CG_FP = 1, CG_DWARF = 2 };
#define DEFAULT_STACK_DUMP 8192   /* perf's default dwarf stack size */
#define MAX_STACK_DUMP 65528      /* round_down(USHRT_MAX, 8) */

/* --call-graph fp | dwarf[,SIZE] (perf's parse_callchain_record). Returns
 * 0 or 2 after a message. */
static int parse_call_graph(const char *arg, struct rec_opts *o)
{
  if (!strcmp(arg, "fp")) { o->callgraph = CG_FP; return 0; }
  if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',')) {
    fprintf(stderr, "callchain: Unknown --call-graph option value: %s\n", arg);
    return 2;
  }
  o->callgraph = CG_DWARF;
  o->stack_size = DEFAULT_STACK_DUMP;
  if (!arg[5]) return 0;
  char *end = NULL;
  unsigned long long size = strtoull(arg + 6, &end, 0);
  size = (size + 7) & ~7ull;
  if (!arg[6] || *end || !size || size > MAX_STACK_DUMP) {
    fprintf(stderr, "callchain: Incorrect stack dump size (max %d): %s\n", MAX_STACK_DUMP, arg + 6);
    return 2;
  }
  o->stack_size = (uint32_t)size;
  return 0;
}

/* --user-regs / --intr-regs: 0 to go on, else the exit status ("?" lists). */
static int parse_regs_opt(const char *arg, const char *name, uint64_t *mask)
{
  int rc = tool_parse_regs(arg, name, mask, stderr);
  return rc == 0 ? 0 : rc > 0 ? 129 : 2;
}

/* Parses the options. Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct rec_opts *o)
{
  static const struct option opts[] = {
    { "event", required_argument, 0, 'e' }, { "count", required_argument, 0, 'c' },
    { "freq", required_argument, 0, 'F' }, { "output", required_argument, 0, 'o' },
    { "seed", required_argument, 0, 'S' }, { "privileged", no_argument, 0, 'P' },
    { "paranoid", required_argument, 0, 'N' }, { "sysroot", required_argument, 0, 's' },
    { "quiet", no_argument, 0, 'q' }, { "help", no_argument, 0, 'h' }, { "verbose", no_argument, 0, 'v' },
    { "cpus", required_argument, 0, 'M' }, { "all-cpus", no_argument, 0, 'a' },
    { "cpu", required_argument, 0, 'C' }, { "per-thread", no_argument, 0, 'T' },
    { "switch-events", no_argument, 0, 'W' }, { "mmap-pages", required_argument, 0, 'm' },
    { "call-graph", required_argument, 0, 'G' }, { "user-regs", optional_argument, 0, 'U' },
    { "intr-regs", optional_argument, 0, 'I' }, { "truth", no_argument, 0, 'X' },
    { "max-sample-rate", required_argument, 0, 'R' },
    { "ram", required_argument, 0, 1101 }, { "unwind-at-record", no_argument, 0, 1001 },
    { "callchain-truth", required_argument, 0, 1002 }, { "snapshot", no_argument, 0, 1003 },
    { "user", no_argument, 0, 1004 }, { "uarch", required_argument, 0, 1005 },
    { "sampled", optional_argument, 0, 1006 }, { 0, 0, 0, 0 },
  };
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "+e:c:F:o:qvhaC:m:gI::", opts, NULL)) != -1) {
    char *end = NULL;
    switch (c) {
    case 'e':
      if (o->nevents == MAX_EVENTS) { fprintf(stderr, "profileme record: too many events\n"); return 2; }
      o->events[o->nevents++] = optarg;
      break;
    case 'c': o->count = strtoull(optarg, &end, 0); if (*end || !o->count) goto badnum; break;
    case 'F': o->freq = strtoull(optarg, &end, 0); if (*end || !o->freq) goto badnum; break;
    case 'o': o->out = optarg; break;
    case 'S': o->mo.os.seed = strtoull(optarg, &end, 0); if (*end || !*optarg) goto badnum; break;
    case 'P': o->mo.perf.privileged = true; break;
    case 1004: o->mo.perf.privileged = false; break;
    case 1005: if (tool_parse_uarch("record", optarg, &o->uarch)) return 2; break;
    case 'N': o->mo.perf.paranoid = (int)strtol(optarg, &end, 0); if (*end || !*optarg) goto badnum; break;
    case 's': o->mo.os.sysroot = optarg; break;
    case 'q': o->quiet = true; break;
    case 'v': o->verbose = true; break;
    case 'M': if (tool_parse_cpus("record", optarg, &o->mo.ncpus)) return 2; break;
    case 1101: if (tool_parse_ram("record", optarg, &o->mo.os.ram_bytes)) return 2; break;
    case 'a': o->all_cpus = true; break;
    case 'C': o->cpu_list = optarg; break;
    case 'T': o->per_thread = true; break;
    case 'R': {
      unsigned long long v = strtoull(optarg, &end, 0);
      /* The sysctl is an int that must be positive (perf_proc_update_handler). */
      if (*end || !*optarg || !v || v > 0x7fffffff) goto badnum;
      o->mo.perf.max_sample_rate = (uint32_t)v;
      break;
    }
    case 'W': o->switch_events = true; break;
    case 'X': o->truth = true; break;
    case 1001: o->unwind_at_record = true; break;
    case 1002: o->chain_truth = optarg; break;
    case 1003: o->snapshot = true; break;
    case 1006: if (tool_parse_sampled("record", optarg, &o->mo.sampled)) return 2; break;
    case 'm':
      o->mmap_pages = strtoull(optarg, &end, 0);
      if (*end == ',') {       /* perf's -m pages,auxpages */
        o->aux_pages = strtoull(end + 1, &end, 0);
        if (*end || !o->aux_pages || (o->aux_pages & (o->aux_pages - 1)) || o->aux_pages > 65536) {
          fprintf(stderr, "profileme record: the AUX pages of -m want a power of two from 1 to 65536, not '%s'\n",
                  optarg);
          return 2;
        }
      }
      if (*end || !o->mmap_pages || (o->mmap_pages & (o->mmap_pages - 1)) || o->mmap_pages > 65536) {
        fprintf(stderr, "profileme record: --mmap-pages wants a power of two from 1 to 65536 "
                        "(8 KB pages), not '%s'\n", optarg);
        return 2;
      }
      break;
    case 'G': if (parse_call_graph(optarg, o)) return 2; break;
    case 'g': o->callgraph = CG_FP; break;
    case 'U': { int rc = parse_regs_opt(optarg, "--user-regs", &o->user_regs); if (rc) return rc; break; }
    case 'I': { int rc = parse_regs_opt(optarg, "-I", &o->intr_regs); if (rc) return rc; break; }
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
    continue;
  badnum:
    fprintf(stderr, "profileme record: bad number '%s'\n", optarg);
    return 2;
  }
  if (optind >= argc) { fprintf(stderr, "profileme record: no program given\n"); usage(stderr); return 2; }
  if (tool_uarch_finish("record", &o->uarch, &o->mo)) return 2;
  if (o->unwind_at_record && o->callgraph != CG_DWARF) {
    fprintf(stderr, "profileme record: --unwind-at-record needs --call-graph dwarf\n");
    return 2;
  }
  if (o->truth && o->mo.sampled.unit) {
    fprintf(stderr, "profileme record: --truth counts every fetch of the timing model; with --sampled\n"
                    "  most instructions are warmed, not timed: record the exact run for the truth\n");
    return 2;
  }
  if (!o->nevents) o->events[o->nevents++] = "cycles:p";
  if (!o->mmap_pages) o->mmap_pages = RING_PAGES;
  if (!o->aux_pages) o->aux_pages = AUX_PAGES;
  if (!o->count && !o->freq) o->freq = 4000;
  uint64_t max_rate = o->mo.perf.max_sample_rate ? o->mo.perf.max_sample_rate : 100000;
  if (o->freq > max_rate) {
    /* perf record lowers it (record_opts__config_freq) rather than fail. */
    fprintf(stderr, "Maximum frequency rate (%llu Hz) exceeded, throttling from %llu Hz to %llu Hz.\n"
                    "The limit can be raised with --max-sample-rate (kernel.perf_event_max_sample_rate).\n",
            (unsigned long long)max_rate, (unsigned long long)o->freq, (unsigned long long)max_rate);
    o->freq = max_rate;
  }
  if (o->per_thread && (o->all_cpus || o->cpu_list)) {
    fprintf(stderr, "profileme record: --per-thread follows the workload's threads wherever they run; "
                    "it cannot be combined with -a or -C\n");
    return 2;
  }
  int machine_cpus = o->mo.ncpus ? o->mo.ncpus : 1;
  if (o->cpu_list) {
    if (tool_parse_cpu_list("record", o->cpu_list, machine_cpus, o->cpus, &o->ncpus)) return 2;
  } else if (o->all_cpus) {
    for (int i = 0; i < machine_cpus; i++) o->cpus[o->ncpus++] = i;
  } else {
    o->cpus[o->ncpus++] = -1;
  }
  return -1;
}

/* Call chains and registers (evsel__config_callchain, evsel__config):
 * dwarf mode samples every user register (at least pc and sp when
 * --user-regs chose a subset) and the stack, and leaves the user part of
 * the chain to the unwinder. Returns 0. */
static int set_regs_attr(struct perf_event_attr *a, const struct rec_opts *o)
{
  if (o->callgraph) {
    a->sample_type |= PERF_SAMPLE_CALLCHAIN;
    a->sample_max_stack = PERF_MAX_STACK_DEFAULT;
  }
  if (o->callgraph == CG_DWARF && o->unwind_at_record) {
    /* The kernel unwinds: the user part of the chain is complete. */
  } else if (o->callgraph == CG_DWARF) {
    a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    if (o->user_regs) {
      a->sample_regs_user |= 1ull << PERF_REG_ALPHA_PC | 1ull << PERF_REG_ALPHA_SP;
      if (!o->quiet)
        fprintf(stderr, "WARNING: The use of --call-graph=dwarf may require all the user registers, "
                        "specifying a subset with --user-regs may render DWARF unwinding unreliable, "
                        "so the minimal registers set (IP, SP) is explicitly forced.\n");
    } else {
      a->sample_regs_user |= PERF_REG_ALPHA_MASK;
    }
    a->sample_stack_user = o->stack_size;
    a->exclude_callchain_user = 1;
  }
  if (o->user_regs) {
    a->sample_regs_user |= o->user_regs;
    a->sample_type |= PERF_SAMPLE_REGS_USER;
  }
  if (o->intr_regs) {
    a->sample_regs_intr = o->intr_regs;
    a->sample_type |= PERF_SAMPLE_REGS_INTR;
  }
  return 0;
}

/* Whether attr is for the trace PMU (pmu_sysfs "trace"). */
static bool is_trace_event(const struct perf_event_attr *a)
{
  const struct pmu_sysfs *t = pmu_sysfs_find("trace");
  return t && a->type == (uint32_t)strtoul(t->type, NULL, 10);
}

/* The attrs perf record builds for the events. Returns 0 or an exit status. */
static int build_attrs(struct rec *r, const struct rec_opts *o)
{
  for (int i = 0; i < o->nevents; i++) {
    struct perf_event_attr *a = &r->attr[i];
    char msg[1024];
    if (event_parse_msg(o->events[i], a, msg, sizeof msg)) {
      fprintf(stderr, "%sRun 'profileme list' for a list of valid events\n", msg);
      return 2;
    }
    a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                     PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                     PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;
    if (set_regs_attr(a, o)) return 2;
    a->sample_id_all = 1;
    /* perf 6.1 reads each event's lost count at the end (PERF_FORMAT_LOST). */
    a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
    a->inherit = !o->per_thread;
    if (is_trace_event(a)) {
      /* an AUX event samples nothing: its data goes to the AUX area */
      a->sample_period = 0;
      a->freq = 0;
    } else if (o->count) a->sample_period = a->sample_period ? a->sample_period : o->count;
    else if (!a->sample_period) { a->freq = 1; a->sample_freq = o->freq; }
    snprintf(r->names[i], sizeof r->names[i], "%s", o->events[i]);
  }
  r->attr[0].comm = r->attr[0].mmap = r->attr[0].mmap2 = r->attr[0].task = 1;
  r->attr[0].context_switch = o->switch_events;
  return 0;
}

/* perf_event_open of one event on one CPU (-1: the workload's, wherever it
 * runs), with perf's fallback (evsel__fallback): refused for the kernel at
 * paranoid > 1, the event is tried again excluding the kernel and the
 * hypervisor, renamed with perf's u modifier. The Alpha PMU refuses an
 * exclude on Aggregate events (EINVAL): that ends as perf's message. Returns
 * the fd, or -1 after a message. */
static int open_one(struct rec *r, const struct rec_opts *o, int i, int cpu)
{
  struct perf_event_attr *a = &r->attr[i];
  int pid = cpu < 0 ? machine_init_pid(r->m) : -1;
  int fd = machine_perf_open(r->m, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  char msg[512];
  if (fd < 0 && event_fallback(a, fd, o->mo.perf.paranoid, r->names[i], sizeof r->names[i], msg, sizeof msg)) {
    if (o->verbose) fprintf(stderr, "Warning:\n%s\n", msg);
    fd = machine_perf_open(r->m, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  }
  if (fd >= 0) return fd;
  if (fd == -EINVAL) {
    event_open_strerror(fd, r->names[i], cpu >= 0, msg, sizeof msg);
    fprintf(stderr, "Error:\n%s\n", msg);
    if (a->exclude_user || a->exclude_kernel || a->exclude_hv)
      fprintf(stderr, "  (the EV67 counts user and kernel together in Aggregate mode: only ProfileMe\n"
                      "  events such as cycles:p sample by mode; --privileged records the kernel too)\n");
    return -1;
  }
  fprintf(stderr, "profileme record: perf_event_open for '%s'%s failed: %s\n", r->names[i],
          cpu >= 0 ? " (system-wide)" : "", strerror(-fd));
  if (fd == -EACCES && pid < 0)
    fprintf(stderr, "  recording every process (-a, -C) needs --privileged or --paranoid 0 or lower, "
                    "as with kernel.perf_event_paranoid on Linux\n");
  if (fd == -EOPNOTSUPP && a->precise_ip > 2)
    fprintf(stderr, "  the EV67 supports precise_ip up to 2 (ProfileMe); use :p or :pp\n");
  return -1;
}

/* Opens the events on the workload (or on each CPU of -a/-C), maps one ring
 * per CPU for its first event and sends the others into it, and describes
 * them in the file. Returns 0 or 1. */
static int open_events(struct rec *r, const struct rec_opts *o)
{
  int first[MACHINE_MAX_CPUS];
  for (int i = 0; i < o->nevents; i++) {
    for (int k = 0; k < o->ncpus; k++) {
      int fd = open_one(r, o, i, o->cpus[k]);
      if (fd < 0) return 1;
      r->fd[r->nfd++] = fd;
      int e;
      if (is_trace_event(&r->attr[i])) {
        /* an AUX event maps its own ring, then its AUX area after it */
        void *map = NULL;
        e = machine_perf_mmap(r->m, fd, (1 + o->mmap_pages) * PAGE, &map);
        if (!e) r->up[r->nrings++] = map;
        if (!e) {
          struct aux_map *na = realloc(r->aux, (size_t)(r->naux + 1) * sizeof *na);
          if (!na) return 1;
          r->aux = na;
          struct aux_map *a = &r->aux[r->naux];
          e = aux_map_open(r->m, fd, map, o->mmap_pages, o->aux_pages, o->snapshot, r->attr[i].sample_type, a);
          if (!e) r->naux++;
          else fprintf(stderr, "profileme record: cannot map the AUX area of '%s' (%llu pages%s): %s\n", r->names[i],
                       (unsigned long long)o->aux_pages, o->snapshot ? ", snapshot" : "", strerror(-e));
        }
        if (i == 0) first[k] = fd;
      } else if (i == 0) {
        void *map = NULL;
        e = machine_perf_mmap(r->m, fd, (1 + o->mmap_pages) * PAGE, &map);
        if (!e) r->up[r->nrings++] = map;
        first[k] = fd;
      } else if (r->naux && i > 0 && is_trace_event(&r->attr[0])) {
        /* the trace event came first: this one gets the ring of its own */
        void *map = NULL;
        e = machine_perf_mmap(r->m, fd, (1 + o->mmap_pages) * PAGE, &map);
        if (!e) r->up[r->nrings++] = map;
      } else {
        e = machine_perf_ioctl(r->m, fd, PERF_EVENT_IOC_SET_OUTPUT, (uintptr_t)first[k]);
      }
      if (!e) e = machine_perf_ioctl(r->m, fd, PERF_EVENT_IOC_ID, (uintptr_t)&r->id[i][k]);
      if (e) {
        fprintf(stderr, "profileme record: cannot map the ring buffer: %s\n", strerror(-e));
        return 1;
      }
    }
    pd_writer_add_event(r->w, &r->attr[i], r->names[i], r->id[i], (size_t)o->ncpus);
  }
  return 0;
}

/* record__read_lost_samples: after the run, each event's count of samples
 * the kernel could not write (PERF_FORMAT_LOST, including those a LOST
 * record reported) goes into a PERF_RECORD_LOST_SAMPLES record, so that a
 * drop the kernel had no later chance to report is not silent. Returns the
 * total. */
static uint64_t write_lost_samples(struct rec *r, const struct rec_opts *o)
{
  uint64_t total = 0;
  for (int i = 0, f = 0; i < o->nevents; i++) {
    for (int k = 0; k < o->ncpus; k++, f++) {
      uint64_t v[3];   /* value, id, lost */
      if (machine_perf_read(r->m, r->fd[f], v, sizeof v) != (long)sizeof v || !v[2]) continue;
      total += v[2];
      uint8_t rec[64];
      struct pd_sample_id sid = { .id = r->id[i][k], .stream_id = r->id[i][k],
                                  .cpu = o->cpus[k] < 0 ? 0 : (uint32_t)o->cpus[k] };
      size_t n = pd_build_lost_samples(rec, sizeof rec, v[2]);
      n += pd_build_sample_id(rec + n, sizeof rec - n, r->attr[i].sample_type, &sid);
      struct perf_event_header *h = (struct perf_event_header *)rec;
      h->size = (uint16_t)n;
      pd_writer_record(r->w, h);
      r->bytes += n;
    }
  }
  return total;
}

static void set_env(struct rec *r, const struct rec_opts *o, int argc, char **argv)
{
  /* A what-if EV67 is stored whole (its every parameter), so that the file
   * says what machine it comes from whatever the defaults of the build that
   * reads it; the HRM's is not stored, as before --uarch existed. */
  char uarch[2048];
  if (o->mo.uarch) ev67_config_format(o->mo.uarch, true, uarch, sizeof uarch);
  int ncpus = o->mo.ncpus ? o->mo.ncpus : 1;
  struct pd_env penv = { .hostname = "profileme", .os_release = "6.1.0-profileme-alpha",
                         .version = "6.1 (profileme)", .arch = "alpha",
                         .cpudesc = "Alpha EV67 (21264A), simulated by profileme", .cpuid = "EV67",
                         .nr_cpus_avail = (uint32_t)ncpus, .nr_cpus_online = (uint32_t)ncpus,
                         .total_mem_kb = 4 << 20, .uarch = o->mo.uarch ? uarch : NULL,
                         .argc = argc, .argv = argv };
  pd_writer_set_env(r->w, &penv);
}

/* --callchain-truth: one line per sample. */
static void write_chain_truth(void *ctx, uint32_t pid, uint32_t tid, uint64_t time, const uint64_t *chain, int n)
{
  FILE *f = ctx;
  fprintf(f, "%u %u %" PRIu64 " %d", pid, tid, time, n);
  for (int i = 0; i < n; i++) fprintf(f, " %" PRIx64, chain[i]);
  fputc('\n', f);
}

/* --truth: the machine's exact counts per instruction into the file. */
static int write_truth(struct rec *r)
{
  struct pm_truth_entry *e;
  size_t n;
  int err = machine_truth_read(r->m, &e, &n);
  if (!err) err = pd_writer_set_truth(r->w, e, n) ? -ENOMEM : 0;
  free(e);
  if (err) fprintf(stderr, "profileme record: cannot store the ground truth: %s\n", strerror(-err));
  return err ? 1 : 0;
}

/* PERF_RECORD_AUXTRACE_INFO (auxtrace_record__info_fill): our type, the
 * trace PMU's type, the clock that turns trace cycles into perf time, and
 * whether it is a snapshot recording. */
static int write_auxtrace_info(struct rec *r, const struct rec_opts *o)
{
  uint64_t priv[ITRACE_PRIV_N] = { 0 };
  for (int i = 0; i < o->nevents; i++)
    if (is_trace_event(&r->attr[i])) priv[ITRACE_PRIV_PMU_TYPE] = r->attr[i].type;
  priv[ITRACE_PRIV_CLOCK_MHZ] = MACHINE_CLOCK_MHZ;
  priv[ITRACE_PRIV_SNAPSHOT] = o->snapshot;
  int e = pd_writer_auxtrace_info(r->w, ITRACE_AUXTRACE_TYPE, priv, ITRACE_PRIV_N);
  if (e) fprintf(stderr, "profileme record: writing the AUXTRACE_INFO failed: %s\n", pm_strerror(e));
  return e ? 1 : 0;
}

/* Before closing: each trace event is read until its count is 0 (the
 * driver dumps on each read), its AUX data copied as it comes, then the
 * rest (the AUX records the dumps wrote included). Returns 0 or 1. */
static int drain_traces(struct rec *r)
{
  int rc = 0;
  for (int i = 0; i < r->naux; i++) {
    struct aux_map *a = &r->aux[i];
    uint64_t v[4] = { 1 };
    long n = 0;
    for (unsigned k = 0; k < AUX_DRAIN_READS; k++) {
      n = machine_perf_read(r->m, a->fd, v, sizeof v);
      a->drain_reads++;
      drain_ring(r, a->up, a);      /* the AUX records this read's dump wrote */
      if (n >= 8 && v[0] == 0) break;
      if (n < 0 && n != -EAGAIN) break;
    }
    uint64_t before = a->bytes;
    int e = n < 0 && n != -EAGAIN ? (int)n : aux_finish(a, r->w);   /* -errno or PM_E* */
    r->bytes += a->bytes - before;
    if (e) {
      fprintf(stderr, "profileme record: draining the trace failed: %s\n", pm_strerror(e));
      rc = 1;
    }
  }
  drain(r);
  return rc;
}

/* Runs the workload with Ctrl-C ending it, not the tool. */
static int run_workload(struct rec *r, bool quiet)
{
  interrupted = 0;
  snapshot_asked = 0;
  struct sigaction sa = { 0 }, old, old2, su = { 0 };
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, &old);
  su.sa_handler = on_sigusr2;   /* perf record -S: SIGUSR2 takes a snapshot */
  sigaction(SIGUSR2, &su, &old2);
  progress_start(&r->progress, "record", !quiet);
  machine_set_poll(r->m, poll_rings, r);
  int status = machine_run(r->m);
  drain(r);
  progress_end(&r->progress);
  sigaction(SIGINT, &old, NULL);
  sigaction(SIGUSR2, &old2, NULL);
  return status;
}

int cmd_record(int argc, char **argv)
{
  struct rec_opts o = { .out = "perf.data", .mo = { .os = { .sysroot = "/usr/alpha-linux-gnu" },
                                                      .timed = true,
                                                      .perf = { .paranoid = 2,
                                                                .privileged = tool_privileged_default("record") } },
                          .uarch = ev67_default_config };
  int rc = parse_options(argc, argv, &o);
  if (rc >= 0) return rc;
  struct rec r;
  memset(&r, 0, sizeof r);
  if ((rc = build_attrs(&r, &o))) return rc;
  signal(SIGPIPE, SIG_IGN);
  r.m = tool_spawn("record", &o.mo, argc - optind, argv + optind, &rc);
  if (!r.m) return rc;
  rc = 1;
  int perr = 0;
  r.tmp = malloc(65536);
  if (!r.tmp) { fprintf(stderr, "profileme record: out of memory\n"); goto out; }
  r.w = pd_writer_create(o.out, &perr);
  if (!r.w) {
    fprintf(stderr, "profileme record: cannot create %s: %s\n", o.out, pm_strerror(perr));
    goto out;
  }
  if (open_events(&r, &o)) goto out;
  r.aux_snapshot = o.snapshot;
  if (r.naux && write_auxtrace_info(&r, &o)) goto out;
  if (o.unwind_at_record && (perr = machine_unwind_enable(r.m))) {
    fprintf(stderr, "profileme record: --unwind-at-record: %s\n", strerror(-perr));
    goto out;
  }
  if (o.chain_truth) {
    if (!(r.chain_truth = fopen(o.chain_truth, "w"))) {
      fprintf(stderr, "profileme record: cannot create %s: %s\n", o.chain_truth, strerror(errno));
      goto out;
    }
    if ((perr = machine_callchain_truth(r.m, write_chain_truth, r.chain_truth))) {
      fprintf(stderr, "profileme record: --callchain-truth: %s\n", strerror(-perr));
      goto out;
    }
  }
  if (o.truth && (perr = machine_truth_enable(r.m))) {
    fprintf(stderr, "profileme record: --truth: %s\n", strerror(-perr));
    goto out;
  }
  synth_kernel_mmap(&r);
  set_env(&r, &o, argc, argv);
  int status = run_workload(&r, o.quiet);
  if (r.naux && drain_traces(&r)) goto out;
  uint64_t kernel_lost = write_lost_samples(&r, &o);
  for (int i = 0; i < r.nfd; i++) machine_perf_close(r.m, r.fd[i]);
  r.nfd = 0;
  if (o.truth && write_truth(&r)) goto out;
  int werr = pd_writer_close(r.w);
  r.w = NULL;
  if (werr) fprintf(stderr, "profileme record: writing %s failed: %s\n", o.out, pm_strerror(werr));
  if (!o.quiet) {
    fprintf(stderr, "[ profileme record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
            (double)r.bytes / 1e6, o.out, (unsigned long long)r.samples);
    struct machine_sampled ms;
    if (machine_sampled_info(r.m, &ms) && ms.insns)
      fprintf(stderr, "[ profileme record: sampled: %llu units; %.2f%% of %llu instructions timed in detail "
                      "(units, their warm-ups and each ProfileMe sample's) ]\n",
              (unsigned long long)ms.units, 100.0 * (double)(ms.insns - ms.insns_warm) / (double)ms.insns,
              (unsigned long long)ms.insns);
    for (int i = 0; i < r.naux; i++) {
      const struct aux_map *a = &r.aux[i];
      fprintf(stderr, "[ profileme record: trace: %llu bytes in %llu AUXTRACE records from %llu AUX records, %llu drain reads ]\n",
              (unsigned long long)a->bytes, (unsigned long long)a->records, (unsigned long long)a->aux_records,
              (unsigned long long)a->drain_reads);
      if (a->truncated || a->partial)
        fprintf(stderr, "profileme record: AUX data lost %llu times (TRUNCATED) and had gaps %llu times (PARTIAL): "
                        "a larger AUX area (-m N,M) helps\n", (unsigned long long)a->truncated,
                (unsigned long long)a->partial);
    }
    if (kernel_lost)
      fprintf(stderr, "profileme record: %llu samples lost (%llu of them in %llu LOST records): the "
                      "ring was full (a larger period, a lower -F or more -m pages helps)\n",
              (unsigned long long)kernel_lost, (unsigned long long)r.lost_samples,
              (unsigned long long)r.lost_records);
  }
  rc = werr ? 1 : interrupted ? 130 : tool_exit_status(status);
out:
  for (int i = 0; i < r.nfd; i++) machine_perf_close(r.m, r.fd[i]);
  if (r.w) pd_writer_close(r.w);
  if (r.chain_truth && fclose(r.chain_truth)) {
    fprintf(stderr, "profileme record: writing %s failed\n", o.chain_truth);
    rc = 1;
  }
  free(r.tmp);
  free(r.aux);
  machine_destroy(r.m);
  return rc;
}
