/* Ground truth per instruction; see truth.h. The status mapping follows the
 * PMU's window close (pmu/ev67_pmu.c close_window: TRP, MIS, TRAP_TYPE, VAL,
 * TAK, PM_STALLED, PM_KILLED_BM, LSO, ICM) and then the driver's decoding of
 * those registers (kernel/alpha_pmu.c status_of), so that each dcpi status
 * column has its exact counterpart. */
#include "kernel/truth.h"
#include "uapi/pm_raw.h"
#include "util/assert.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_SLOTS 4096u      /* a power of two */

/* A slot: one cache line holding the key and the counts of the first few
 * distinct statuses its fates had (a PC rarely has more than two or three:
 * retired, killed, mispredicted), so a fate costs a probe, a comparison and
 * an increment. Further statuses go to the slot's full counters in cnt,
 * which are touched (and their pages faulted in) only then. A status is
 * never 0 (every fate retired, was killed or trapped), so 0 marks a free
 * place. */
#define NSIG 4
struct tkey {
  uint64_t pc;
  int32_t pid;
  uint32_t flags;                /* PM_TRUTH_KERNEL, TK_USED */
  uint16_t sig[NSIG];
  uint64_t c[NSIG];
  uint64_t pad;
};
_Static_assert(sizeof(struct tkey) == 64, "a slot is a cache line");
#define TK_USED (1u << 31)

struct truth {
  struct tkey *key;
  uint64_t (*cnt)[PM_TRUTH_NCOUNTS];
  size_t cap, used;
  bool failed;                   /* the table could not grow: counts lost */
  truth_is_jump_fn is_jump;
  void *ctx;
};

struct truth *truth_create(truth_is_jump_fn is_jump, void *ctx)
{
  struct truth *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->key = calloc(INITIAL_SLOTS, sizeof *t->key);
  t->cnt = calloc(INITIAL_SLOTS, sizeof *t->cnt);
  if (!t->key || !t->cnt) { truth_destroy(t); return NULL; }
  t->cap = INITIAL_SLOTS;
  t->is_jump = is_jump;
  t->ctx = ctx;
  return t;
}

void truth_destroy(struct truth *t)
{
  if (!t) return;
  free(t->key);
  free(t->cnt);
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
  uint64_t common = (fl & FATE_TAKEN ? PM_ST_TAKEN : 0) | (fl & FATE_MAP_STALL ? PM_ST_MAP_STALL : 0) |
                    (fl & FATE_ICM ? PM_ST_NYP : 0);
  if (!redirect && !(fl & (FATE_TRAP | FATE_MISPREDICT | FATE_JMP_MISPRED)))   /* no trap: the usual case */
    return common | (fl & FATE_RETIRED ? PM_ST_RETIRED | PM_ST_VALID : 0) |
           (fl & FATE_KILLED_BM ? PM_ST_EARLY_KILL : fl & FATE_RETIRED ? 0 : PM_ST_LATE_KILL);
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

/* Adds n fates of status st to the full counters c. */
static void add_status(uint64_t *c, uint16_t st, uint64_t n)
{
  c[PM_TRUTH_FETCHED] += n;
  bool ret = st & PM_ST_RETIRED;
  for (unsigned b = st; b; b &= b - 1) {
    int i = __builtin_ctz(b);
    c[PM_TRUTH_ALL(i)] += n;
    if (ret) c[PM_TRUTH_RET(i)] += n;
  }
}

/* Consecutive PCs of one process and mode take consecutive slots: a loop's
 * counts stay together, and sequential keys never collide among themselves. */
static size_t slot_of(uint64_t pc, int32_t pid, uint32_t flags, size_t mask)
{
  return (size_t)((pc >> 2) + (uint64_t)(uint32_t)pid * 0x9E3779B97F4A7C15ull + flags * 0xC2B2AE3D27D4EB4Full) & mask;
}

/* Doubles the table. Returns false on ENOMEM (the old one stays). */
static bool grow(struct truth *t)
{
  size_t cap = t->cap * 2;
  struct tkey *k = calloc(cap, sizeof *k);
  uint64_t (*c)[PM_TRUTH_NCOUNTS] = calloc(cap, sizeof *c);
  if (!k || !c) { free(k); free(c); return false; }
  for (size_t i = 0; i < t->cap; i++) {
    const struct tkey *e = &t->key[i];
    if (!(e->flags & TK_USED)) continue;
    size_t j = slot_of(e->pc, e->pid, e->flags & ~TK_USED, cap - 1);
    while (k[j].flags & TK_USED) j = (j + 1) & (cap - 1);
    k[j] = *e;
    if (t->cnt[i][PM_TRUTH_FETCHED]) memcpy(c[j], t->cnt[i], sizeof c[j]);
  }
  free(t->key);
  free(t->cnt);
  t->key = k;
  t->cnt = c;
  t->cap = cap;
  return true;
}

void truth_observe(struct truth *t, const struct uop_fate *f, int32_t pid)
{
  uint32_t flags = (f->kernel ? PM_TRUTH_KERNEL : 0) | TK_USED;
  size_t mask = t->cap - 1, j = slot_of(f->pc, pid, flags & ~TK_USED, mask);
  for (;; j = (j + 1) & mask) {
    const struct tkey *k = &t->key[j];
    if (!(k->flags & TK_USED)) break;
    if (k->pc == f->pc && k->pid == pid && k->flags == flags) goto count;
  }
  /* A new entry; keep the load at most one half. */
  if (2 * (t->used + 1) > t->cap) {
    if (!grow(t)) { t->failed = true; return; }
    truth_observe(t, f, pid);
    return;
  }
  t->used++;
  t->key[j] = (struct tkey){ .pc = f->pc, .pid = pid, .flags = flags };
count:;
  bool trp = f->pmpc_redirect || (f->flags & (FATE_TRAP | FATE_MISPREDICT | FATE_JMP_MISPRED));
  bool jump = trp && !(f->flags & FATE_MISPREDICT) && t->is_jump && t->is_jump(t->ctx, f->pc);
  uint16_t st = (uint16_t)truth_status(f, jump);
  /* A status is never 0 (0 marks a free place); the load stays at most one
   * half of a power-of-two table. */
  PM_ASSERT(st != 0 && !(t->cap & (t->cap - 1)) && 2 * t->used <= t->cap);
  struct tkey *k = &t->key[j];
  for (int i = 0; i < NSIG; i++) {
    if (k->sig[i] == st) { k->c[i]++; return; }
    if (!k->sig[i]) { k->sig[i] = st; k->c[i] = 1; return; }
  }
  add_status(t->cnt[j], st, 1);
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
  for (size_t i = 0; i < t->cap; i++) {
    if (!(t->key[i].flags & TK_USED)) continue;
    const struct tkey *e = &t->key[i];
    v[k] = (struct pm_truth_entry){ e->pc, e->pid, e->flags & ~TK_USED, { 0 } };
    memcpy(v[k].n, t->cnt[i], sizeof v[k].n);
    for (int s = 0; s < NSIG && e->sig[s]; s++) add_status(v[k].n, e->sig[s], e->c[s]);
    k++;
  }
  qsort(v, k, sizeof *v, entry_cmp);
  *out = v;
  *n = k;
  return 0;
}
