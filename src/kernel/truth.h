/* Ground truth per instruction (uapi/pm_truth.h): a kernel-layer facility
 * like the sim/ PMU, which the machine feeds with every fate of its timing
 * models while a tool has it enabled, and which the tool reads at the end.
 * Counts are keyed by (pid, pc, mode) in an open-addressing table: no
 * allocation per instruction, only when the table doubles. Each fate's
 * ProfileMe status is the one the sampler and the Alpha PMU driver would
 * have reported for it (HRM I_STAT / PCTR_CTL, dcpiprofileme's attributes). */
#ifndef KERNEL_TRUTH_H
#define KERNEL_TRUTH_H
#include "uapi/pm_truth.h"
#include "uarch/uarch.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the instruction at pc is a jump (JMP, JSR, RET, JSR_COROUTINE):
 * the driver reports a trapping jump without MIS as a jump mispredict. */
typedef bool (*truth_is_jump_fn)(void *ctx, uint64_t pc);

struct truth;
/* Returns an empty table, or NULL on ENOMEM. */
struct truth *truth_create(truth_is_jump_fn is_jump, void *ctx);
void truth_destroy(struct truth *t);

/* The PM_ST_* status the ProfileMe sampler and driver would give fate f
 * (PM_ST_KERNEL excluded: the mode is part of the key). */
uint64_t truth_status(const struct uop_fate *f, bool is_jump);

/* Counts fate f, fetched while process pid ran. */
void truth_observe(struct truth *t, const struct uop_fate *f, int32_t pid);

/* A copy of the entries, sorted by pid, mode and pc, in *out (the caller
 * frees it). Returns 0, or -ENOMEM (also when the table could not grow
 * during the run, so counts were lost). */
int truth_export(const struct truth *t, struct pm_truth_entry **out, size_t *n);

#endif
