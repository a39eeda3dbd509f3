/* The trace in a perf.data file, for the tools (perf's util/auxtrace.c and
 * the session side of util/intel-pt.c): the --itrace options, and a pass over
 * a session that decodes every AUXTRACE buffer (one decoder per buffer index,
 * i.e. per CPU) as its record comes by in time order, reading code from the
 * files the MMAP2 records seen so far name, and hands every decoded block
 * and every error to the caller with its time in perf's clock. Nothing here
 * prints. */
#ifndef ANALYSIS_ITRACE_SESSION_H
#define ANALYSIS_ITRACE_SESSION_H
#include "analysis/itrace.h"
#include "analysis/session.h"
#include <stdbool.h>
#include <stdint.h>

/* perf's itrace_synth_opts, the letters we support: i[PERIOD] instructions,
 * b branches, c calls (branches that are calls, system calls included),
 * r returns, e errors. PERIOD: N with a unit i (instructions, the default
 * unit for a number as in perf's docs), t (cycles), ns, us, ms; "i" alone is
 * perf's default, every 100000 ns. */
enum { ITRACE_PERIOD_INSNS, ITRACE_PERIOD_CYCLES, ITRACE_PERIOD_NS };
struct itrace_opts {
  bool set, instructions, branches, calls, returns, errors;
  uint64_t period;
  int period_type;
};
#define ITRACE_DEFAULT_OPTS "ce"          /* perf script's default */
/* Parses an --itrace value (NULL or "": the default). Returns 0, or -1 with
 * a message. */
int itrace_parse_opts(const char *arg, struct itrace_opts *o, char *err, size_t errlen);

/* A block as the pass hands it over. */
struct itrace_sblock {
  const struct itrace_block *b;
  uint32_t cpu;                           /* the AUXTRACE buffer's cpu */
  uint64_t time;                          /* perf time (ns) of the block's end */
  uint64_t start_time;                    /* of its start (the previous block's end) */
  uint64_t start_cycle;                   /* the cycle the previous timed packet had */
  bool after_kernel;                      /* the block began at an ASYNC resume: its cycles include kernel time */
};
struct itrace_serror {
  const struct itrace_error *e;
  uint32_t cpu;
  uint64_t time;
};

struct itrace_pass_ops {
  /* Every record other than AUXTRACE/AUXTRACE_INFO (optional). */
  int (*record)(void *ctx, struct session *s, const struct session_rec *r);
  int (*block)(void *ctx, struct session *s, const struct itrace_sblock *b);
  void (*error)(void *ctx, struct session *s, const struct itrace_serror *e);
};

struct itrace_summary {
  bool has_trace;                         /* an AUXTRACE_INFO of ours */
  uint64_t clock_mhz, pmu_type;
  uint64_t auxtrace_records, aux_records, truncated, partial, itrace_starts, gaps;
  struct itrace_stats st;                 /* summed over the decoders */
};

/* Runs the pass. Returns 0, a callback's value, or PM_E* with a message in
 * s->err (an AUXTRACE_INFO of another type, AUXTRACE data before any
 * AUXTRACE_INFO, a malformed record). */
int itrace_pass(struct session *s, const struct itrace_pass_ops *ops, void *ctx, struct itrace_summary *sum);

/* perf time of a trace cycle count. */
uint64_t itrace_cycle_ns(const struct itrace_summary *sum, uint64_t cycle);

/* Exact execution counts per instruction from the trace: a table keyed by
 * (pid, pc) of run counts, filled from blocks. */
struct itrace_counts;
struct itrace_counts *itrace_counts_create(void);
void itrace_counts_destroy(struct itrace_counts *c);
/* Adds one block's instructions. Returns 0 or PM_ENOMEM. */
int itrace_counts_add(struct itrace_counts *c, const struct itrace_block *b);
/* The per-instruction counts, sorted by pid then pc (valid until destroy). */
struct itrace_pc_count { uint32_t pid; uint64_t pc, n; };
const struct itrace_pc_count *itrace_counts_get(struct itrace_counts *c, size_t *n);

#endif
