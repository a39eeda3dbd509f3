/* Statistics for judging sampled profiles against exact counts. */
#ifndef UTIL_STATS_H
#define UTIL_STATS_H
#include <stdint.h>

/* The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double stats_betai(double a, double b, double x);

/* The Clopper-Pearson ("exact") interval for the probability of success
 * after k successes in n trials, at confidence conf (0.95): the p whose
 * binomial tails reach (1 - conf) / 2 at k. *lo = 0 when k = 0, *hi = 1 when
 * k = n; n = 0 gives [0, 1]. */
void stats_binom_interval(uint64_t k, uint64_t n, double conf, double *lo, double *hi);
/* The same for real k and n (0 <= k <= n): effective sample sizes of
 * weighted samples (Kish's (sum w)^2 / sum w^2). */
void stats_binom_interval_real(double k, double n, double conf, double *lo, double *hi);

#endif
