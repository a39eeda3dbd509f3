/* Unwinding the user stacks of x86-64 perf.data files (Linux perf's
 * `record --call-graph dwarf`) with elfutils' x86-64 backend, as perf's
 * tools/perf/util/unwind-libdw.c does: dwfl_attach_state with memory_read
 * over the sample's stack dump (and the mapped ELF files beyond it) and
 * set_initial_registers from its regs_user, one Dwfl per process kept for
 * the whole pass (perf builds one per sample). Files of other architectures
 * get no user frames from it. */
#ifndef ANALYSIS_UNWIND_X86_H
#define ANALYSIS_UNWIND_X86_H
#include "analysis/callchain.h"

struct unwind_x86;
/* NULL on ENOMEM. */
struct unwind_x86 *unwind_x86_create(void);
void unwind_x86_destroy(struct unwind_x86 *u);
/* The unwinder interface over u (u must outlive its use). */
struct cc_unwinder unwind_x86_unwinder(struct unwind_x86 *u);

#endif
