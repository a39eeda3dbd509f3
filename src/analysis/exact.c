/* Estimates against exact counts; see exact.h. */
#include "analysis/exact.h"
#include "uapi/pm_raw.h"
#include "util/err.h"
#include "util/stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The statuses a config1 filter bit keeps every instance of. */
static uint64_t implied(uint64_t filt)
{
  uint64_t b = 0;
  if (filt & PM_FILT_RETIRED) b |= PM_ST_RETIRED | PM_ST_VALID;
  if (filt & PM_FILT_MISPREDICT) b |= PM_ST_MISPREDICT | PM_ST_JMP_MISPRED;
  if (filt & PM_FILT_TRAP)
    b |= PM_ST_TRAP | PM_ST_MISPREDICT | PM_ST_LDSTORDER | PM_ST_DTB_MISS | PM_ST_UNALIGNED | PM_ST_REPLAY |
         PM_ST_ARITH | PM_ST_ITB_MISS | PM_ST_JMP_MISPRED;
  return b;
}

#define BIT(st) __builtin_ctzll(st)

/* The count, among one mode's counts n, of the instances with status bit i
 * that the event keeps: with no filter, or for a status that the filters
 * keep all of, those with the bit (retired ones for a precise event); with
 * only the retired filter, the retired ones with the bit. False otherwise:
 * the joint counts are not stored. */
static bool kept_bit(const struct exact_event *ev, const uint64_t *n, int i, uint64_t *out)
{
  if (!ev->filt || (implied(ev->filt) >> i & 1)) {
    *out = ev->precise ? n[PM_TRUTH_RET(i)] : n[PM_TRUTH_ALL(i)];
    return true;
  }
  if (ev->filt == PM_FILT_RETIRED) {
    *out = n[PM_TRUTH_RET(i)];
    return true;
  }
  return false;
}

/* How many of one mode's instances the event keeps (what its samples
 * stand for). Mispredicts of branches and of jumps are disjoint, and both
 * are traps. */
static bool kept(const struct exact_event *ev, const uint64_t *n, uint64_t *out)
{
  uint64_t x = 0, y = 0;
  if (!ev->filt) {
    *out = ev->precise ? n[PM_TRUTH_ALL(BIT(PM_ST_RETIRED))] : n[PM_TRUTH_FETCHED];
    return true;
  }
  if (ev->filt & PM_FILT_RETIRED) {
    if (ev->filt != PM_FILT_RETIRED) return false;
    *out = n[PM_TRUTH_ALL(BIT(PM_ST_RETIRED))];
    return true;
  }
  if (ev->filt & PM_FILT_TRAP) return kept_bit(ev, n, BIT(PM_ST_TRAP), out);
  kept_bit(ev, n, BIT(PM_ST_MISPREDICT), &x);
  kept_bit(ev, n, BIT(PM_ST_JMP_MISPRED), &y);
  *out = x + y;
  return true;
}

bool exact_in_modes(const struct exact_event *ev, const struct pm_truth_entry *t)
{
  return (t->flags & PM_TRUTH_KERNEL) ? !ev->excl_kernel : !ev->excl_user;
}

int exact_event_init(struct exact_event *ev, const struct pd_event *e, const struct pm_truth_entry *t, size_t n)
{
  memset(ev, 0, sizeof *ev);
  const struct perf_event_attr *a = &e->attr;
  bool pm = a->precise_ip || (a->type == PERF_TYPE_RAW && (a->config & PM_CFG_PROFILEME));
  if (!t || !pm) return 0;
  ev->precise = a->precise_ip > 0;
  ev->filt = a->type == PERF_TYPE_RAW ? a->config1 & (PM_FILT_RETIRED | PM_FILT_MISPREDICT | PM_FILT_TRAP) : 0;
  ev->excl_user = a->exclude_user;
  ev->excl_kernel = a->exclude_kernel;
  struct exact_counts all;
  memset(&all, 0, sizeof all);
  for (size_t i = 0; i < n; i++)
    if (exact_in_modes(ev, &t[i])) exact_add(&all, &t[i]);
  uint64_t u = 0, k = 0;
  if (kept(ev, all.n[0], &u) && kept(ev, all.n[1], &k)) ev->total = u + k, ev->total_known = true;
  ev->lo = malloc(EXACT_CACHE * sizeof *ev->lo);
  ev->hi = malloc(EXACT_CACHE * sizeof *ev->hi);
  if (!ev->lo || !ev->hi) { exact_event_free(ev); return PM_ENOMEM; }
  for (int i = 0; i < EXACT_CACHE; i++) ev->lo[i] = NAN;
  ev->on = true;
  return 0;
}

void exact_event_free(struct exact_event *ev)
{
  free(ev->lo);
  free(ev->hi);
  ev->lo = ev->hi = NULL;
  ev->on = false;
}

void exact_sample(struct exact_event *ev, uint64_t period)
{
  ev->samples++;
  ev->wsum += period;
  ev->w2sum += (double)period * (double)period;
}

void exact_add(struct exact_counts *c, const struct pm_truth_entry *t)
{
  uint64_t *n = c->n[(t->flags & PM_TRUTH_KERNEL) ? 1 : 0];
  for (int i = 0; i < PM_TRUTH_NCOUNTS; i++) n[i] += t->n[i];
  c->any = true;
}

bool exact_value(const struct exact_event *ev, const struct exact_counts *c, uint64_t bits, uint64_t *out)
{
  uint64_t v = 0, x;
  *out = 0;
  for (int m = 0; m < 2; m++) {
    if (m ? ev->excl_kernel : ev->excl_user) continue;
    const uint64_t *n = c->n[m];
    if (!bits || bits == PM_ST_KERNEL) {
      if (!kept(ev, n, &x)) return false;
      if (!bits || m) v += x;
      continue;
    }
    for (int i = 0; i < PM_TRUTH_NBITS; i++) {
      if (!(bits >> i & 1)) continue;
      if (!kept_bit(ev, n, i, &x)) return false;
      v += x;
    }
  }
  *out = v;
  return true;
}

void exact_estimate(struct exact_event *ev, uint64_t k, uint64_t w, double w2, double *est, double *lo, double *hi)
{
  double T = (double)ev->total, K = (double)ev->samples, W = (double)ev->wsum;
  *est = W > 0 ? T * (double)w / W : 0;
  /* Effective sample sizes: equal to k and K when every period is the same. */
  double keff = k && w2 > 0 ? (double)w * (double)w / w2 : 0, Keff = ev->w2sum > 0 ? W * W / ev->w2sum : 0;
  bool fixed = fabs(Keff - K) < 1e-9 * K && fabs(keff - (double)k) < 1e-9 * (double)(k + 1);
  double plo, phi;
  if (fixed && k < EXACT_CACHE && !isnan(ev->lo[k])) {
    plo = ev->lo[k], phi = ev->hi[k];
  } else if (fixed) {
    stats_binom_interval(k, ev->samples, EXACT_CONF, &plo, &phi);
    if (k < EXACT_CACHE) ev->lo[k] = plo, ev->hi[k] = phi;
  } else {
    if (keff > Keff) keff = Keff;
    stats_binom_interval_real(keff, Keff, EXACT_CONF, &plo, &phi);
  }
  /* Around the estimate: the effective share keff / Keff stands for w / W. */
  double r = keff > 0 && W > 0 ? ((double)w / W) / (keff / Keff) : 1;
  *lo = plo * T * r;
  *hi = phi * T * r;
}
