/* Alpha's register indices for PERF_SAMPLE_REGS_USER/INTR, as the seed adds
 * arch/alpha/include/uapi/asm/perf_regs.h: what the kernel side writes into
 * samples and the tools name and unwind with. Indices equal the hardware and
 * DWARF register numbers: R0..R28 are $0..$28, GP $29, SP $30, and PC takes
 * the slot of $31 (always zero, so never worth sampling). r9-r15 live in
 * switch_stack, not in pt_regs, so a mask naming them is refused. */
#ifndef UAPI_PERF_REGS_H
#define UAPI_PERF_REGS_H

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

#endif
