/* The machine: the modelled Linux/Alpha OS (guest/os.h) on its CPUs, each an
 * EV67 core with its PMU when the machine is timed, and the kernel's
 * perf_events (the core, the Alpha PMU driver, the software and sim/ PMUs).
 * The machine does the kernel's work: the timer interrupt at HZ 1024 on cycle
 * times (perf's tick, the scheduler's time slices), PMU interrupts, software
 * events (page faults, context switches) and the side-band records (COMM,
 * MMAP2, FORK, EXIT) that the attrs ask for. The tools are its user space:
 * they open, map, read, ioctl and close perf events by file descriptor, as
 * perf does on Linux, and are called back between scheduling rounds (where
 * perf polls its rings). Nothing is global: one struct machine owns it all. */
#ifndef MACHINE_MACHINE_H
#define MACHINE_MACHINE_H
#include "guest/os.h"
#include "kernel/perf.h"
#include "uarch/ev67.h"
#include "machine/sampling.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MACHINE_MAX_CPUS OS_MAX_CPUS
#define MACHINE_HZ 1024           /* Alpha Linux's HZ (arch/alpha/include/asm/param.h) */
#define MACHINE_CLOCK_MHZ 667     /* the modelled EV67 (docs/timing.md) */

struct machine_opts {
  struct os_opts os;
  int ncpus;                      /* 1..MACHINE_MAX_CPUS (0 means 1) */
  bool timed;                     /* EV67 cores and PMUs; else the functional core only */
  const struct ev67_config *uarch; /* the timed cores' model (copied); NULL: ev67_default_config */
  struct perf_sysctl perf;        /* perf_event_paranoid, privileges, sample rate */
  uint64_t dump_from, dump_count; /* print fates FROM..FROM+COUNT on stderr (debugging) */
  /* Sampled mode (docs/sampled.md) when sampled.unit is not 0 (a timed
   * machine only): detailed windows on a systematic schedule and before
   * every ProfileMe sample, functional warming in between. */
  struct smp_params sampled;
};

struct machine;

/* Creates a machine. Returns NULL on allocation failure or a uarch config
 * that ev67_config_check refuses (the tools check it first, to say why). */
struct machine *machine_create(const struct machine_opts *o);
void machine_destroy(struct machine *m);
/* Loads the first program (a host path) with argv and envp. Returns 0 or
 * PM_E*; *detail gets a short description of what failed. */
int machine_spawn(struct machine *m, int argc, char *const *argv, char *const *envp,
                  char *detail, size_t detail_len);
/* The pid of the first program (valid after machine_spawn). */
int machine_init_pid(const struct machine *m);
/* Runs until every guest task has exited. Returns the first process's wait
 * status (Linux encoding). */
int machine_run(struct machine *m);
/* Ends the workload as SIGINT ends perf's (at the next scheduling point). */
void machine_stop(struct machine *m);
/* The OS, for what the tools report of it (instruction counts, the fatal signal). */
struct os *machine_os(struct machine *m);

/* Calls fn(ctx) between scheduling rounds and on every timer tick: where a
 * tool reads its rings, as perf polls them. */
void machine_set_poll(struct machine *m, void (*fn)(void *ctx), void *ctx);

/* Progress of a run so far, summed over the CPUs. */
struct machine_progress {
  uint64_t insns;                 /* retired guest instructions */
  uint64_t cycles;                /* cycles of the timed cores (0 when functional) */
  uint64_t ns;                    /* guest time */
};
void machine_progress(const struct machine *m, struct machine_progress *p);
/* What sampled mode measured, summed over the CPUs; false when the machine
 * is not sampled. */
struct machine_sampled {
  uint64_t units;                 /* units measured */
  uint64_t insns_unit;            /* instructions in them */
  uint64_t insns_warm;            /* instructions warmed and estimated */
  uint64_t insns;                 /* user instructions through the cores (the kernel's are all timed) */
};
bool machine_sampled_info(const struct machine *m, struct machine_sampled *s);
/* The 95% half-width of the estimate of quantity q (SMP_Q_CYCLES or
 * SMP_Q(field), sampling.h) on CPU cpu, or summed over the CPUs
 * (cpu -1), as an absolute count; 0 when not sampled or nothing was
 * estimated. */
double machine_sampled_halfwidth(const struct machine *m, int cpu, unsigned q);

/* Exact ground truth, summed over the CPUs; false when not timed. In
 * sampled mode: the detailed windows' counts and the warmed stretches'
 * estimates. */
bool machine_sim_stats(const struct machine *m, struct ev67_stats *s, uint64_t *cycles);

/* Ground truth per instruction (kernel/truth.h, uapi/pm_truth.h): from
 * the call on, every fate of every CPU is counted by (pid, pc, mode), with
 * the ProfileMe status the sampler would have reported for it. Returns 0,
 * -EOPNOTSUPP when not timed, or -ENOMEM. */
int machine_truth_enable(struct machine *m);
/* A sorted copy of the counts in *out (the caller frees it). Returns 0,
 * -EINVAL when not enabled, or -ENOMEM. */
struct pm_truth_entry;
int machine_truth_read(const struct machine *m, struct pm_truth_entry **out, size_t *n);

/* Record-time unwinding (docs/callgraph.md): from the call on, the user
 * part of every PERF_SAMPLE_CALLCHAIN is the chain the DWARF unwinder
 * (unwind/unwind.h) finds from the task's registers (all of them) and its
 * stack in guest memory at the sample, instead of the user pc alone.
 * Returns 0 or -ENOMEM. */
int machine_unwind_enable(struct machine *m);

/* The trace units' firmware (pmu/trace_unit.h): what the trace driver calls
 * as PALcode, and tests (busy injection, direct dumps). */
struct trace_fw;
struct trace_fw *machine_trace_fw(struct machine *m);
/* Who handles a unit's half-full interrupt (the trace driver by default;
 * tests may take it). */
void machine_set_trace_irq(struct machine *m, void (*fn)(void *ctx, int cpu), void *ctx);
/* The trace driver's counters (kernel/trace_pmu.h) and the units' summed
 * (trace bytes, packets, traced instructions, losses), for record and bench. */
struct trace_pmu_stats;
struct trace_unit_stats;
const struct trace_pmu_stats *machine_trace_stats(const struct machine *m);
void machine_trace_totals(const struct machine *m, struct trace_unit_stats *s);

/* The true call stack of every sample written (guest/shadow.h): fn gets the
 * sample's pid, tid, time, and chain[0..n) = its user pc then the return
 * addresses, innermost first; n is -1 when the stack is not known (its
 * shadow overflowed). Enable before the workload starts. Returns 0 or
 * -EOPNOTSUPP when not timed (the shadow is kept by the timed core). */
typedef void (*machine_chain_fn)(void *ctx, uint32_t pid, uint32_t tid, uint64_t time, const uint64_t *chain, int n);
int machine_callchain_truth(struct machine *m, machine_chain_fn fn, void *ctx);

/* ---- the perf system calls of the host tools (Linux's ABI and errors) ---- */
/* perf_event_open(2): returns a file descriptor (>= 0) or -errno. */
int machine_perf_open(struct machine *m, const struct perf_event_attr *attr, int pid, int cpu,
                      int group_fd, unsigned long flags);
/* mmap(2) of len bytes (1 + 2^n pages of 8 KB): *addr gets the mapping, the
 * perf_event_mmap_page then the data. Returns 0 or -errno. */
int machine_perf_mmap(struct machine *m, int fd, size_t len, void **addr);
/* read(2) with the event's read_format. Returns bytes or -errno. */
/* mmap(2) of the AUX area (kernel/perf_aux.h): the tool first writes
 * aux_offset and aux_size into the user page, then maps len bytes at offset
 * (read-write; read-only gives snapshot mode). 0 or -errno as Linux. */
int machine_perf_mmap_aux(struct machine *m, int fd, uint64_t offset, size_t len, bool writable, void **addr);
long machine_perf_read(struct machine *m, int fd, void *buf, size_t len);
/* ioctl(2): PERF_EVENT_IOC_ENABLE, DISABLE, RESET, REFRESH, PERIOD (arg
 * points to the u64), ID (arg points to the u64 it fills), SET_OUTPUT (arg
 * is the fd, or -1). Returns 0 or -errno. */
int machine_perf_ioctl(struct machine *m, int fd, unsigned long req, uintptr_t arg);
/* close(2). Returns 0 or -EBADF. */
int machine_perf_close(struct machine *m, int fd);

#endif
