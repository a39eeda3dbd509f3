/* Statistics; see stats.h. The incomplete beta by its continued fraction
 * (modified Lentz, as in Numerical Recipes' betacf), the interval's ends by
 * bisection on the binomial tail, which is monotonic in p. */
#include "util/stats.h"
#include <math.h>

/* The continued fraction of I_x(a, b), converging for x < (a + 1) / (a + b + 2). */
static double betacf(double a, double b, double x)
{
  const double tiny = 1e-300, eps = 1e-15;
  double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
  if (fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; m++) {
    double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1) < eps) break;
  }
  return h;
}

double stats_betai(double a, double b, double x)
{
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
  if (x < (a + 1) / (a + b + 2)) return exp(lbt) * betacf(a, b, x) / a;
  return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

/* The x in (0, 1) with I_x(a, b) = target, by bisection. */
static double betai_inv(double a, double b, double target)
{
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-11 * hi; i++) {
    double mid = 0.5 * (lo + hi);
    if (stats_betai(a, b, mid) < target) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

void stats_binom_interval_real(double k, double n, double conf, double *lo, double *hi)
{
  double alpha = 1 - conf;
  *lo = 0;
  *hi = 1;
  if (!(n > 0) || k > n || k < 0) return;
  /* P(X >= k | p_lo) = alpha/2 and P(X <= k | p_hi) = alpha/2, with
   * P(X >= k | p) = I_p(k, n - k + 1). */
  if (k > 0) *lo = betai_inv(k, n - k + 1, alpha / 2);
  if (k < n) *hi = betai_inv(k + 1, n - k, 1 - alpha / 2);
}

void stats_binom_interval(uint64_t k, uint64_t n, double conf, double *lo, double *hi)
{
  stats_binom_interval_real((double)k, (double)n, conf, lo, hi);
}
