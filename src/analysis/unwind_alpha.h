/* The Alpha DWARF unwinder (src/unwind) as a cc_unwinder (analysis/callchain.h). */
#ifndef ANALYSIS_UNWIND_ALPHA_H
#define ANALYSIS_UNWIND_ALPHA_H
#include "analysis/callchain.h"
#include <stdbool.h>

/* An unwinder reading DSOs under symfs (NULL for none); false on ENOMEM. */
bool unwind_alpha_unwinder(const char *symfs, struct cc_unwinder *uw);

#endif
