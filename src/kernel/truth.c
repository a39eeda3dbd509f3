/* Ground truth per instruction; see truth.h. The status mapping follows the
 * PMU's window close (pmu/ev67_pmu.c close_window: TRP, MIS, TRAP_TYPE, VAL,
 * TAK, PM_STALLED, PM_KILLED_BM, LSO, ICM) and then the driver's decoding of
 * those registers (kernel/alpha_pmu.c status_of), so that each dcpi status
 * column has its exact counterpart. */
#include "kernel/truth.h"
#include "perfdata/pm_raw.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_SLOTS 4096u      /* a power of two */

struct truth {
  struct pm_truth_entry *slot;   /* empty: n[PM_TRUTH_FETCHED] == 0 */
  size_t cap, used;
  bool failed;                   /* the table could not grow: counts lost */
  truth_is_jump_fn is_jump;
  void *ctx;
};

struct truth *truth_create(truth_is_jump_fn is_jump, void *ctx)
{
  struct truth *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->slot = calloc(INITIAL_SLOTS, sizeof *t->slot);
  if (!t->slot) { free(t); return NULL; }
  t->cap = INITIAL_SLOTS;
  t->is_jump = is_jump;
  t->ctx = ctx;
  return t;
}

void truth_destroy(struct truth *t)
{
  if (!t) return;
  free(t->slot);
  free(t);
}

/* I_STAT[TRAP_TYPE] of a redirect trap, as the PMU reports it. */
static unsigned redirect_tt(unsigned off)
{
  switch (off & 0x7FFF) {
  case EV67_PMPC_IACV: return 9;
  case EV67_PMPC_ITB_MISS: return 11;
  default: return 13;
  }
}

uint64_t truth_status(const struct uop_fate *f, bool is_jump)
{
  uint32_t fl = f->flags;
  bool redirect = f->pmpc_redirect != 0;
  bool trp = redirect || (fl & (FATE_TRAP | FATE_MISPREDICT | FATE_JMP_MISPRED));
  bool mis = trp && (fl & FATE_MISPREDICT), val = fl & FATE_RETIRED;
  unsigned tt = !trp ? 0 : redirect ? redirect_tt(f->pmpc_redirect)
              : f->trap != EV67_TRAP_NONE ? (f->trap & 15u) : 1;
  uint64_t st = 0;
  if (val) st |= PM_ST_RETIRED;
  if (val && !trp) st |= PM_ST_VALID;
  if (fl & FATE_KILLED_BM) st |= PM_ST_EARLY_KILL;
  else if (!val && !trp) st |= PM_ST_LATE_KILL;
  if (trp) st |= PM_ST_TRAP;
  if (mis) st |= PM_ST_MISPREDICT;
  if (fl & FATE_TAKEN) st |= PM_ST_TAKEN;
  if (fl & FATE_MAP_STALL) st |= PM_ST_MAP_STALL;
  if (fl & FATE_ICM) st |= PM_ST_NYP;
  if (trp && (fl & FATE_LSO)) st |= PM_ST_LDSTORDER;
  if (trp && (tt == 2 || tt == 3 || tt == 6)) st |= PM_ST_DTB_MISS;
  if (trp && tt == 5) st |= PM_ST_UNALIGNED;
  if (trp && tt == 0 && !mis) st |= PM_ST_REPLAY;
  if (trp && tt == 12) st |= PM_ST_ARITH;
  if (trp && (f->pmpc_redirect & 0x7FFF) == EV67_PMPC_ITB_MISS) st |= PM_ST_ITB_MISS;
  if (trp && !mis && is_jump) st |= PM_ST_JMP_MISPRED;
  return st;
}

static size_t slot_of(uint64_t pc, int32_t pid, uint32_t flags, size_t mask)
{
  uint64_t h = (pc >> 2) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(uint32_t)pid << 1 | flags) * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h ^ h >> 29) & mask;
}

/* Doubles the table. Returns false on ENOMEM (the old one stays). */
static bool grow(struct truth *t)
{
  size_t cap = t->cap * 2;
  struct pm_truth_entry *s = calloc(cap, sizeof *s);
  if (!s) return false;
  for (size_t i = 0; i < t->cap; i++) {
    const struct pm_truth_entry *e = &t->slot[i];
    if (!e->n[PM_TRUTH_FETCHED]) continue;
    size_t j = slot_of(e->pc, e->pid, e->flags, cap - 1);
    while (s[j].n[PM_TRUTH_FETCHED]) j = (j + 1) & (cap - 1);
    s[j] = *e;
  }
  free(t->slot);
  t->slot = s;
  t->cap = cap;
  return true;
}

void truth_observe(struct truth *t, const struct uop_fate *f, int32_t pid)
{
  uint32_t flags = f->kernel ? PM_TRUTH_KERNEL : 0;
  size_t mask = t->cap - 1, j = slot_of(f->pc, pid, flags, mask);
  struct pm_truth_entry *e;
  for (;; j = (j + 1) & mask) {
    e = &t->slot[j];
    if (!e->n[PM_TRUTH_FETCHED]) break;
    if (e->pc == f->pc && e->pid == pid && e->flags == flags) goto count;
  }
  /* A new entry; keep the load at most one half. */
  if (2 * (t->used + 1) > t->cap) {
    if (!grow(t)) { t->failed = true; return; }
    truth_observe(t, f, pid);
    return;
  }
  t->used++;
  e->pc = f->pc;
  e->pid = pid;
  e->flags = flags;
count:;
  bool trp = f->pmpc_redirect || (f->flags & (FATE_TRAP | FATE_MISPREDICT | FATE_JMP_MISPRED));
  bool jump = trp && !(f->flags & FATE_MISPREDICT) && t->is_jump && t->is_jump(t->ctx, f->pc);
  uint64_t st = truth_status(f, jump);
  e->n[PM_TRUTH_FETCHED]++;
  bool ret = st & PM_ST_RETIRED;
  for (uint64_t b = st & ((1ull << PM_TRUTH_NBITS) - 1); b; b &= b - 1) {
    int i = __builtin_ctzll(b);
    e->n[PM_TRUTH_ALL(i)]++;
    if (ret) e->n[PM_TRUTH_RET(i)]++;
  }
}

static int entry_cmp(const void *pa, const void *pb)
{
  const struct pm_truth_entry *a = pa, *b = pb;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->flags != b->flags) return a->flags < b->flags ? -1 : 1;
  return a->pc < b->pc ? -1 : a->pc > b->pc;
}

int truth_export(const struct truth *t, struct pm_truth_entry **out, size_t *n)
{
  *out = NULL;
  *n = 0;
  if (t->failed) return -ENOMEM;
  struct pm_truth_entry *v = malloc((t->used ? t->used : 1) * sizeof *v);
  if (!v) return -ENOMEM;
  size_t k = 0;
  for (size_t i = 0; i < t->cap; i++)
    if (t->slot[i].n[PM_TRUTH_FETCHED]) v[k++] = t->slot[i];
  qsort(v, k, sizeof *v, entry_cmp);
  *out = v;
  *n = k;
  return 0;
}
