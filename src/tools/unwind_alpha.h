/* The Alpha DWARF unwinder (src/unwind) as a cc_unwinder (tools/callchain.h). */
#ifndef TOOLS_UNWIND_ALPHA_H
#define TOOLS_UNWIND_ALPHA_H
#include "tools/callchain.h"
#include <stdbool.h>

/* An unwinder reading DSOs under symfs (NULL for none); false on ENOMEM. */
bool unwind_alpha_unwinder(const char *symfs, struct cc_unwinder *uw);

#endif
