/* Systematic sampling's bookkeeping; see sampling.h. The estimator is the
 * one of SMARTS (Wunderlich et al., ISCA 2003) with each unit standing for
 * the stretch that follows it: a quantity's warmed share is the sum over
 * units i of F_i * x_i, where x_i is unit i's rate per instruction and F_i
 * the instructions charged at it. One unit at a random place in each
 * period (stratified sampling) makes the units' rates independent draws;
 * with their sample variance s^2 the estimate's variance is s^2 *
 * sum(F_i^2) and the 95% interval 1.96 standard errors (the normal
 * approximation, as SMARTS; with equal stretches this is the familiar
 * N * 1.96 s / sqrt(n)). */
#include "machine/sampling.h"
#include <math.h>
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
  for (unsigned q = 0; q < SMP_NQ; q++) {
    double x = (now[q] - s->unit_base[q]) / n;
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

double smp_variance(const struct smp *s, unsigned q)
{
  if (s->units < 2 || q >= SMP_NQ) return 0;
  double n = (double)s->units, mean = s->sum[q] / n;
  double var = (s->sumsq[q] - n * mean * mean) / (n - 1);
  if (var < 0) var = 0;   /* rounding */
  return var * (s->f2 + s->f_cur * s->f_cur);
}

double smp_halfwidth(const struct smp *s, unsigned q)
{
  return Z95 * sqrt(smp_variance(s, q));
}
