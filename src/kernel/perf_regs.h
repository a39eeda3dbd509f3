/* Register sampling for Alpha: the uapi enum (arch/alpha/include/uapi/asm/
 * perf_regs.h as the seed adds it) and the kernel's perf_regs contract
 * (include/linux/perf_regs.h): perf_reg_validate, perf_reg_value,
 * perf_reg_abi. Indices equal the hardware and DWARF register numbers: R0..R28
 * are $0..$28, GP $29, SP $30, and PC takes the slot of $31 (always zero, so
 * never worth sampling). r9-r15 live in switch_stack, not in pt_regs, so a
 * mask naming them is refused and their slots read 0.
 *
 * The core's view of a frame (Linux's struct pt_regs plus what user_mode()
 * and user_stack_pointer() say of it) is struct perf_regs: the machine fills
 * one per sample. */
#ifndef KERNEL_PERF_REGS_H
#define KERNEL_PERF_REGS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum perf_event_alpha_regs {
  PERF_REG_ALPHA_R0 = 0,
  PERF_REG_ALPHA_R9 = 9,         /* r9..r15 (s0..s5, fp): switch_stack, refused */
  PERF_REG_ALPHA_R15 = 15,
  PERF_REG_ALPHA_R26 = 26,       /* ra */
  PERF_REG_ALPHA_R28 = 28,
  PERF_REG_ALPHA_GP = 29,
  PERF_REG_ALPHA_SP = 30,
  PERF_REG_ALPHA_PC = 31,
  PERF_REG_ALPHA_MAX = 32,
};

/* The bits of r9..r15, and every register a mask may name. */
#define PERF_REG_ALPHA_SWITCH_STACK_MASK (0x7full << PERF_REG_ALPHA_R9)
#define PERF_REG_ALPHA_MASK (((1ull << PERF_REG_ALPHA_MAX) - 1) & ~PERF_REG_ALPHA_SWITCH_STACK_MASK)

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
