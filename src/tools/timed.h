/* A timed machine: the functional machine with the EV67 timing model and the
 * synthetic kernel's time attached through the CPU's timing hook. Used by the
 * commands that need cycles (stat, later record). */
#ifndef TOOLS_TIMED_H
#define TOOLS_TIMED_H
#include "guest/kernel.h"
#include "uarch/ev67.h"
#include "pmu/ev67_pmu.h"

struct timed;

/* What the user of a timed machine wants to hear about; any may be NULL. */
struct timed_ops {
  /* every fate, in fetch order (the PMU has already seen it) */
  void (*on_fate)(void *ctx, const struct uop_fate *f);
  /* the PMU's overflow interrupt was taken before the instruction at pc of
   * task t: the handler's work (Linux's perf irq handler) */
  void (*on_irq)(void *ctx, struct task *t, uint64_t pc);
  /* kernel work is about to run (enum kactivity), for the task at pc */
  void (*on_kernel)(void *ctx, int activity, uint64_t pc);
};

/* Wraps m (not owned) with the timing model for cfg and the PMU; PMU overflow
 * interrupts are taken at the first instruction retiring after they reach the
 * CPU (DESIGN.md) and handed to ops->on_irq. Returns NULL on failure. */
struct timed *timed_create(struct machine *m, const struct ev67_config *cfg,
                           const struct timed_ops *ops, void *ctx);
/* The CPU's PMU. */
struct ev67_pmu *timed_pmu(struct timed *s);
void timed_destroy(struct timed *s);

struct ev67 *timed_core(struct timed *s);
/* Runs a kernel activity (kimage.h) through the timing model now. */
void timed_kernel(struct timed *s, int activity, uint64_t nr, uint64_t bytes);

#endif
