/* The trace PMU driver: the machine's trace units (pmu/trace_unit.h) as a
 * perf PMU with an AUX area, doing what the seed's POWER HTM driver does
 * (docs/trace.md compares them point by point): the units are programmed
 * only through the firmware call; the AUX buffer must be physically
 * contiguous where a dump lands, so the driver asks for
 * PERF_PMU_CAP_AUX_NO_SG | PERF_PMU_CAP_AUX_PREFER_LARGE and scans the
 * buffer page by page before every dump, ending the chunk at the first
 * physical gap; a dump starts on a page and is bounded by the space left in
 * the AUX buffer; a busy firmware is retried a bounded number of times and
 * then reported (a PERF_RECORD_AUX with COLLISION); a trace that cannot be
 * stopped makes read(2) fail with -EAGAIN; the event's count is 1 while
 * data was dumped and 0 once the stream is exhausted; read(2) drives a dump.
 * pmu_private keeps the target's identity; the AUX-private state (setup_aux)
 * only the buffer's frames and the dump progress. */
#ifndef KERNEL_TRACE_PMU_H
#define KERNEL_TRACE_PMU_H
#include "kernel/perf.h"
#include "pmu/trace_unit.h"

#define TRACE_PMU_TYPE 10           /* after sim/ (9) */
#define TRACE_PMU_BUSY_RETRIES 8    /* firmware BUSY answers retried per call */
/* config:0-4 "memsize": log2 of the unit's memory in bytes (0: 64 KB; 13..24). */
#define TRACE_CFG_MEMSIZE_MASK 0x1Fu

struct trace_pmu_stats {
  uint64_t dumps;            /* DUMP calls that copied data */
  uint64_t bytes;            /* trace bytes dumped */
  uint64_t aux_bytes;        /* AUX bytes written (dumps rounded up to pages) */
  uint64_t gap_bounded;      /* chunks ended early at a physical gap */
  uint64_t busy_retries;     /* BUSY answers retried */
  uint64_t busy_reported;    /* calls still BUSY after the retries */
  uint64_t aux_full;         /* dumps deferred: no space in the AUX buffer */
  uint64_t lost_bytes;       /* trace bytes the units dropped */
  uint64_t eagain;           /* reads that failed: the trace would not stop */
};

struct trace_pmu;

struct trace_pmu *trace_pmu_create(struct perf_ctx *ctx, struct trace_fw *fw);
void trace_pmu_destroy(struct trace_pmu *d);
/* The unit of cpu raised its half-full interrupt: dump into the AUX area. */
void trace_pmu_irq(struct trace_pmu *d, int cpu);
const struct trace_pmu_stats *trace_pmu_stats(const struct trace_pmu *d);

#endif
