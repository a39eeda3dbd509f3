/* The sim/ PMU: exact ground truth from the EV67 timing model as a perf PMU,
 * so that `stat -e sim/branch-misses/` is opened, read and scaled like any
 * other event. A counting-only PMU (sampling is refused as Linux's uncore
 * PMUs refuse it) that counts what its CPU's core does while the event is
 * scheduled in (while the tasks it follows run there), kernel work included
 * unless the event excludes it (:u; :k for kernel work only). Cycles cannot
 * be split by mode: sim/cycles/ refuses a mode. config selects the event in
 * sim_pmu_events(). */
#ifndef KERNEL_SIM_PMU_H
#define KERNEL_SIM_PMU_H
#include "kernel/perf.h"
#include "uarch/ev67.h"
#include <stddef.h>

/* The PMU type sim/ answers (a dynamic PMU type, as Linux gives one after
 * PERF_TYPE_MAX to each PMU it registers). */
#define SIM_PMU_TYPE 9

struct sim_event {
  const char *name;               /* as in sim/NAME/ */
  const char *desc;
};
/* The events, indexed by attr.config, and their number. */
const struct sim_event *sim_pmu_events(size_t *n);

/* The struct ev67_stats field (in uint64_t units) event config counts, -1
 * for the cycles, -2 for no event. */
int sim_pmu_event_field(uint64_t config);

/* What the PMU reads: a CPU's ground truth in one mode, and its cycles. */
struct sim_pmu_env {
  void (*totals)(void *ctx, int cpu, bool kernel, struct ev67_stats *s, uint64_t *cycles);
  void *ctx;
};

struct sim_pmu;
/* Creates the PMU and registers it with c. Returns NULL on failure. */
struct sim_pmu *sim_pmu_create(struct perf_ctx *c, const struct sim_pmu_env *env);
void sim_pmu_destroy(struct sim_pmu *p);

#endif
