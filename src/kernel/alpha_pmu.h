/* The Alpha EV67 PMU driver: arch/alpha/kernel/perf_event.c with the
 * ProfileMe series on top of the EV67 hardware model. Registers the `cpu`
 * PMU (PERF_TYPE_RAW, and the generic hardware events): Aggregate counting
 * and sampling on PCTR0/PCTR1 with the EV67 pairing rules, and ProfileMe
 * (precise_ip or config bit 8) with PERF_SAMPLE_RAW status (pm_raw.h),
 * WEIGHT (the PCTR1 window count), DATA_SRC for loads and stores. */
#ifndef KERNEL_ALPHA_PMU_H
#define KERNEL_ALPHA_PMU_H
#include "kernel/perf.h"
#include "pmu/ev67_pmu.h"

/* What the driver needs from the machine it runs on. */
struct alpha_pmu_env {
  struct ev67_pmu *hw[PERF_MAX_CPUS];              /* each CPU's PMU */
  uint64_t (*now)(void *ctx, int cpu);             /* the CPU's current cycle */
  bool (*insn_at)(void *ctx, uint64_t pc, uint32_t *word);   /* instruction word at pc */
  uint64_t (*random)(void *ctx);                   /* seeded generator (random interval) */
  void *ctx;
};

struct alpha_pmu;

/* Creates the driver and registers it with c. Returns NULL on failure. */
struct alpha_pmu *alpha_pmu_create(struct perf_ctx *c, const struct alpha_pmu_env *env);
void alpha_pmu_destroy(struct alpha_pmu *p);
/* The PMU interrupt of cpu (Linux's alpha_perf_event_irq_handler): the task
 * and the interrupted PC (regs->pc), kernel mode or not. */
void alpha_pmu_irq(struct alpha_pmu *p, int cpu, uint32_t pid, uint32_t tid, uint64_t pc, bool kernel);
/* Samples kept and dropped by the filters (for tests and record's summary). */
void alpha_pmu_counts(const struct alpha_pmu *p, uint64_t *kept, uint64_t *dropped, uint64_t *spurious);

#endif
