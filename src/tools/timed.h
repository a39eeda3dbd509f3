/* A timed machine: the functional machine with the EV67 timing model and the
 * synthetic kernel's time attached through the CPU's timing hook. Used by the
 * commands that need cycles (stat, later record). */
#ifndef TOOLS_TIMED_H
#define TOOLS_TIMED_H
#include "guest/kernel.h"
#include "uarch/ev67.h"

struct timed;

/* Observes every fate (in fetch order); may be NULL. */
typedef void (*timed_fate_fn)(void *ctx, const struct uop_fate *f);
/* Decides, before each correct-path instruction commits (its own fate given),
 * whether to take an interrupt first; may be NULL. */
typedef bool (*timed_irq_fn)(void *ctx, const struct uop_fate *f);

/* Wraps m (not owned) with a timing model for cfg. Returns NULL on failure. */
struct timed *timed_create(struct machine *m, const struct ev67_config *cfg,
                           timed_fate_fn on_fate, timed_irq_fn want_irq, void *ctx);
void timed_destroy(struct timed *s);

struct ev67 *timed_core(struct timed *s);
/* Runs a kernel activity (kimage.h) through the timing model now. */
void timed_kernel(struct timed *s, int activity, uint64_t nr, uint64_t bytes);

#endif
