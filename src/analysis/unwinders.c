/* The one place that picks a user-stack unwinder by architecture; see
 * cc_unwinder_for in callchain.h. */
#include "analysis/callchain.h"
#include "analysis/unwind_alpha.h"
#include "analysis/unwind_x86.h"
#include <string.h>

static void x86_destroy(void *ctx) { unwind_x86_destroy(ctx); }

bool cc_unwinder_for(struct session *s, struct cc_unwinder *uw)
{
  memset(uw, 0, sizeof *uw);
  const char *arch = pd_reader_env(s->r, "arch");
  if (arch && !strcmp(arch, "x86_64")) {
    struct unwind_x86 *u = unwind_x86_create();
    if (!u) return false;
    *uw = unwind_x86_unwinder(u);
    uw->destroy = x86_destroy;
    return true;
  }
  /* Our files name DSOs by their host paths: no symfs needed. */
  if (arch && !strcmp(arch, "alpha")) return unwind_alpha_unwinder(NULL, uw);
  return false;
}

void cc_unwinder_release(struct cc_unwinder *uw)
{
  if (uw->destroy) uw->destroy(uw->ctx);
  memset(uw, 0, sizeof *uw);
}
