/* The user call chain of a sample recorded with --call-graph dwarf: its
 * user registers and stack dump unwound by the DWARF unwinder
 * (unwind/unwind.h), with the mappings the session's MMAP2 records gave. */
#ifndef ANALYSIS_DWARF_UNWIND_H
#define ANALYSIS_DWARF_UNWIND_H
#include "analysis/session.h"
#include "unwind/unwind.h"
#include <stdbool.h>

/* Unwinds at most max frames of sample smp into res (res->pc[0] is the
 * sampled user pc). Returns false when the sample has no user registers
 * with a pc and sp. */
bool sample_user_unwind(struct unw *u, struct session *s, const struct pd_sample *smp, unsigned max,
                        struct unw_result *res);

/* The user part of a sample's PERF_SAMPLE_CALLCHAIN (the entries after
 * PERF_CONTEXT_USER up to the next context marker): *n entries at the
 * returned pointer, NULL when there is none. *truncated: they are followed
 * by an empty PERF_CONTEXT_USER context, the mark of a chain the recording
 * unwinder stopped early (record --unwind-at-record, docs/callgraph.md). */
const uint64_t *sample_user_chain(const struct pd_sample *smp, size_t *n, bool *truncated);

#endif
