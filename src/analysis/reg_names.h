/* The tool's Alpha register table (tools/perf/arch/<arch>/util/perf_regs.c):
 * the names of the uapi indices (uapi/perf_regs.h) as the seed names them,
 * r0..r28, gp, sp, pc, for --user-regs / --intr-regs and for printing
 * sampled registers. */
#ifndef ANALYSIS_REG_NAMES_H
#define ANALYSIS_REG_NAMES_H
#include <stdint.h>
#include <stdio.h>

/* The name of register index idx ("r0".."r28", "gp", "sp", "pc"), or
 * "unknown" (perf's answer) outside 0..31. */
const char *tool_reg_name(int idx);
/* Parses a comma-separated, case-insensitive list of names into a mask
 * (__parse_regs). An empty list means every register a mask may name.
 * "?" lists those names on f ("available registers: r0 r1 ... pc") and
 * returns 1; an unknown name returns -1 after a message naming option;
 * success returns 0. */
int tool_parse_regs(const char *list, const char *option, uint64_t *mask, FILE *f);

#endif
