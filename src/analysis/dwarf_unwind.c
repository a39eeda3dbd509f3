/* Unwinding recorded samples (tools/dwarf_unwind.h). */
#include "analysis/dwarf_unwind.h"
#include <string.h>

struct map_ctx { struct session *s; uint32_t pid; };

static bool session_map(void *ctx, uint64_t addr, struct unw_map *map)
{
  const struct map_ctx *c = ctx;
  struct sym_loc loc;
  sym_resolve(c->s->m, c->pid, PERF_RECORD_MISC_USER, addr, &loc);
  if (!loc.map || !loc.map->dso) return false;
  *map = (struct unw_map){ loc.map->dso->path, loc.map->start, loc.map->pgoff };
  return true;
}

bool sample_user_unwind(struct unw *u, struct session *s, const struct pd_sample *smp, unsigned max,
                        struct unw_result *res)
{
  const uint64_t need = 1ull << UNW_REG_PC | 1ull << UNW_REG_SP;
  if (!smp->user_abi || !smp->user_regs || (smp->user_mask & need) != need) return false;
  struct unw_regs regs = { .mask = smp->user_mask & ((1ull << UNW_NREGS) - 1) };
  const uint64_t *v = smp->user_regs;
  for (int i = 0; i < 64; i++)
    if ((smp->user_mask >> i) & 1) {
      uint64_t x = *v++;
      if (i < UNW_NREGS) regs.r[i] = x;
    }
  struct unw_stack st = { smp->stack, regs.r[UNW_REG_SP], smp->stack ? smp->stack_dyn_size : 0 };
  struct map_ctx c = { s, smp->pid };
  unw_unwind(u, &regs, &st, session_map, &c, max, res);
  return true;
}

const uint64_t *sample_user_chain(const struct pd_sample *smp, size_t *n, bool *truncated)
{
  *n = 0;
  *truncated = false;
  if (!smp->callchain) return NULL;
  for (uint64_t i = 0; i < smp->callchain_nr; i++) {
    if (smp->callchain[i] != PERF_CONTEXT_USER) continue;
    uint64_t j = i + 1;
    while (j < smp->callchain_nr && smp->callchain[j] < PERF_CONTEXT_MAX) j++;
    *n = (size_t)(j - i - 1);
    *truncated = *n > 0 && j < smp->callchain_nr && smp->callchain[j] == PERF_CONTEXT_USER &&
                 (j + 1 == smp->callchain_nr || smp->callchain[j + 1] >= PERF_CONTEXT_MAX);
    return smp->callchain + i + 1;
  }
  return NULL;
}
