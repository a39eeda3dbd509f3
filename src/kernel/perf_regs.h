/* Register sampling for Alpha: the kernel's perf_regs contract
 * (include/linux/perf_regs.h): perf_reg_validate, perf_reg_value,
 * perf_reg_abi, over the uapi indices of uapi/perf_regs.h. r9-r15 live in
 * switch_stack, not in pt_regs, so a mask naming them is refused and their
 * slots read 0.
 *
 * The core's view of a frame (Linux's struct pt_regs plus what user_mode()
 * and user_stack_pointer() say of it) is struct perf_regs: the machine fills
 * one per sample. */
#ifndef KERNEL_PERF_REGS_H
#define KERNEL_PERF_REGS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "uapi/perf_regs.h"

/* One frame as the core samples it. abi is PERF_SAMPLE_REGS_ABI_64, or
 * PERF_SAMPLE_REGS_ABI_NONE when there is no frame (a kernel thread, or a
 * sample in the kernel's entry code before the user registers are saved). */
struct perf_regs {
  uint64_t abi;
  bool user;                     /* user_mode(regs) */
  uint64_t r[PERF_REG_ALPHA_MAX];/* by index; r[SP] is the stack pointer, r[PC] the pc */
};

/* 0 when mask is non-zero and names only registers of pt_regs, else -EINVAL. */
int perf_reg_validate(uint64_t mask);
/* The value of register idx of a frame; 0 for r9-r15 and indices >= MAX. */
uint64_t perf_reg_value(const struct perf_regs *regs, int idx);
/* Writes `u64 abi; u64 regs[popcount(mask)]` (only abi when it is NONE) at
 * p, in ascending bit order (perf_output_sample_regs). Returns the bytes. */
size_t perf_output_regs(uint8_t *p, const struct perf_regs *regs, uint64_t mask);
/* The bytes of a regs field: 8, plus 8 per register when abi is not NONE. */
size_t perf_regs_size(const struct perf_regs *regs, uint64_t mask);

/* perf_sample_ustack_size: the static size of a user stack dump of at most
 * stack_size bytes from the user SP of regs_user, in a sample whose other
 * fields take header_size bytes: 0 without user regs; at most TASK_SIZE - sp;
 * shrunk so that the record (with the size and dyn_size words) still fits a
 * u16 header.size; rounded up to a multiple of 8. */
uint16_t perf_sample_ustack_size(uint16_t stack_size, uint16_t header_size, const struct perf_regs *regs_user);

/* The default of attr.sample_max_stack (sysctl kernel.perf_event_max_stack)
 * and of perf_event_max_contexts_per_stack. */
#define PERF_MAX_STACK_DEFAULT 127
#define PERF_MAX_CONTEXTS_PER_STACK 8

#endif
