/* Systematic sampling's bookkeeping; see sampling.h. The estimator is the
 * one of SMARTS (Wunderlich et al., ISCA 2003) with each unit standing for
 * the stretch that follows it: a quantity's warmed share is the sum over
 * units i of F_i * x_i, where x_i is unit i's rate per instruction and F_i
 * the instructions charged at it. With one unit at a random place in each
 * period (stratified sampling) the variance of a unit's rate about its
 * period's own mean is what the estimate's error comes from, not the
 * spread over the whole run (phases): it is estimated from successive
 * differences, v = sum (x_i - x_{i-1})^2 / (2 (n - 1)) (Wolter,
 * "Introduction to Variance Estimation", 1985, the v2 estimator for
 * systematic samples), which the spread over the run, s^2, overstates by
 * far when the program has phases (tests/sampled/phases.c: s^2 gave an
 * interval of +-16% for errors of 0.5-3%). The estimate's variance is v *
 * sum(F_i^2), the 95% interval 1.96 standard errors (the normal
 * approximation, as SMARTS). */
#include "machine/sampling.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Z95 1.959963984540054

int smp_params_check(const struct smp_params *p)
{
  if (!p->unit || !p->warmup || !p->period || p->period <= p->warmup + p->unit) return -1;
  return 0;
}

static uint64_t mix(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The window's offset in its period. */
static uint64_t offset(struct smp *s)
{
  s->rng += 0x9E3779B97F4A7C15ull;
  return mix(s->rng) % (s->p.period - s->p.warmup - s->p.unit);
}

void smp_init(struct smp *s, const struct smp_params *p, uint64_t seed)
{
  memset(s, 0, sizeof *s);
  s->p = *p;
  s->rng = mix(seed ^ 0x5A17ED5A17EDull);
  s->krng = mix(seed ^ 0x6B3A11E7ull);
  s->next_start = offset(s);
}

bool smp_in_window(const struct smp *s, uint64_t steps)
{
  return s->measuring || steps >= s->next_start;
}

uint64_t smp_next_event(const struct smp *s)
{
  if (s->measuring) return s->unit_steps + s->p.unit;
  return s->next_start + s->p.warmup;
}

bool smp_detailed(struct smp *s, uint64_t steps, const double *now)
{
  if (!s->measuring) {
    if (steps < s->next_start + s->p.warmup) return false;
    s->measuring = true;
    s->unit_steps = steps;
    memcpy(s->unit_base, now, sizeof s->unit_base);
    return false;
  }
  if (steps < s->unit_steps + s->p.unit) return false;
  double n = (double)(steps - s->unit_steps);
  s->last_n = steps - s->unit_steps;
  for (unsigned q = 0; q < SMP_NQ; q++) {
    double x = (now[q] - s->unit_base[q]) / n;
    if (s->units) s->sumd2[q] += (x - s->rate[q]) * (x - s->rate[q]);
    s->rate[q] = x;
    s->sum[q] += x;
    s->sumsq[q] += x * x;
  }
  s->have_rate = true;
  s->units++;
  s->steps_unit += steps - s->unit_steps;
  s->f2 += s->f_cur * s->f_cur;
  s->f_cur = 0;
  s->measuring = false;
  /* The next period's window, or at once when kernel work or a long unit
   * already ran past it. */
  s->period_start += s->p.period;
  s->next_start = s->period_start + offset(s);
  if (s->next_start < steps) s->next_start = steps;
  return true;
}

void smp_charge(struct smp *s, uint64_t n)
{
  double f = (double)n;
  for (unsigned q = 0; q < SMP_NQ; q++) s->est[q] += f * s->rate[q];
  s->f_cur += f;
  s->steps_warm += n;
}

/* The kind's slot (inserted when absent), or NULL when out of memory. */
static struct smp_kind *kind_of(struct smp *s, uint32_t key)
{
  if (s->nkinds * 2 >= s->nkinds_cap) {
    unsigned cap = s->nkinds_cap ? 2 * s->nkinds_cap : 64;
    struct smp_kind *n = calloc(cap, sizeof *n);
    if (!n) return NULL;
    for (unsigned i = 0; i < s->nkinds_cap; i++) {
      if (!s->kinds[i].key) continue;
      unsigned j = (unsigned)mix(s->kinds[i].key) & (cap - 1);
      while (n[j].key) j = (j + 1) & (cap - 1);
      n[j] = s->kinds[i];
    }
    free(s->kinds);
    s->kinds = n;
    s->nkinds_cap = cap;
  }
  unsigned j = (unsigned)mix(key + 1) & (s->nkinds_cap - 1);
  while (s->kinds[j].key && s->kinds[j].key != key + 1) j = (j + 1) & (s->nkinds_cap - 1);
  if (!s->kinds[j].key) {
    s->kinds[j].key = key + 1;
    s->nkinds++;
  }
  return &s->kinds[j];
}

bool smp_kernel_time(struct smp *s, uint32_t key)
{
  struct smp_kind *k = kind_of(s, key);
  if (!k) return true;
  k->seen++;
  if (k->timed < SMP_KERNEL_FIRST) return true;
  s->krng += 0x9E3779B97F4A7C15ull;
  return mix(s->krng) % SMP_KERNEL_EVERY == 0;
}

void smp_kernel_timed(struct smp *s, uint32_t key, double insns, const double *v)
{
  struct smp_kind *k = kind_of(s, key);
  s->ktimed++;
  if (!k || insns <= 0) return;
  if (k->timed++ == SMP_KERNEL_FIRST) {
    /* the first drawn event: the first ones' counts leave the rates */
    k->insns = k->x1 = k->x2 = 0;
    memset(k->v, 0, sizeof k->v);
  }
  k->insns += insns;
  for (unsigned q = 0; q < SMP_NQ; q++) k->v[q] += v[q];
  double x = v[SMP_Q_CYCLES] / insns;
  k->x1 += x;
  k->x2 += x * x;
}

bool smp_kernel_charge(struct smp *s, uint32_t key, double insns, double *rate)
{
  struct smp_kind *k = kind_of(s, key);
  if (!k || !k->timed || k->insns <= 0) return false;
  for (unsigned q = 0; q < SMP_NQ; q++) {
    rate[q] = k->v[q] / k->insns;
    s->kest[q] += insns * rate[q];
  }
  k->warm_insns += insns;
  s->kwarmed++;
  return true;
}

void smp_free(struct smp *s)
{
  if (s) free(s->kinds);
}

double smp_variance(const struct smp *s, unsigned q)
{
  if (q >= SMP_NQ) return 0;
  double var = 0;
  if (s->units >= 2) var = s->sumd2[q] / (2.0 * (double)(s->units - 1)) * (s->f2 + s->f_cur * s->f_cur);
  if (q == SMP_Q_CYCLES)
    for (unsigned i = 0; i < s->nkinds_cap; i++) {
      const struct smp_kind *k = &s->kinds[i];
      /* the events in x1, x2: the drawn ones once there is one */
      uint64_t nt = k->timed > SMP_KERNEL_FIRST ? k->timed - SMP_KERNEL_FIRST : k->timed;
      if (!k->key || nt < 2 || k->warm_insns <= 0) continue;
      double n = (double)nt, m = k->x1 / n, v = (k->x2 - n * m * m) / (n - 1);
      if (v > 0) var += k->warm_insns * k->warm_insns * v / n;
    }
  return var;
}

double smp_halfwidth(const struct smp *s, unsigned q)
{
  return Z95 * sqrt(smp_variance(s, q));
}
