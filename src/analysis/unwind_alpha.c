/* The Alpha user-stack unwinder for the analysis commands: src/unwind's
 * DWARF CFI unwinder over a sample's user registers and stack dump
 * (tools/dwarf_unwind.h), behind the callchain interface (cc_unwinder). */
#include "analysis/unwind_alpha.h"
#include "analysis/dwarf_unwind.h"
#include "util/err.h"
#include <stdlib.h>

static int alpha_unwind(void *ctx, struct session *s, const struct pd_sample *smp, struct cc_frames *out)
{
  struct unw_result res;
  if (!sample_user_unwind(ctx, s, smp, UNW_MAX_DEPTH, &res)) return 0;
  for (unsigned i = 0; i < res.n; i++)
    /* A return address: the call is the instruction before it (perf and
     * the x86-64 unwinder subtract 1 too). */
    if (cc_frames_push(out, i ? res.pc[i] - 1 : res.pc[i], PERF_RECORD_MISC_USER)) return PM_ENOMEM;
  if (res.status != UNW_COMPLETE) out->truncated = true;
  return 0;
}

static void alpha_destroy(void *ctx) { unw_destroy(ctx); }

bool unwind_alpha_unwinder(const char *symfs, struct cc_unwinder *uw)
{
  struct unw *u = unw_create(symfs);
  if (!u) return false;
  *uw = (struct cc_unwinder){ alpha_unwind, alpha_destroy, u };
  return true;
}
