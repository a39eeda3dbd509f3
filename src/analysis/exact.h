/* Sampled estimates against the exact counts of `record --truth`
 * (uapi/pm_truth.h), for dcpi and annotate. For a ProfileMe event, the
 * samples of a row (an instruction or a symbol) with a status estimate the
 * instances with that status there: estimate = T x W_row / W, where W is the
 * sum of the periods of all the event's samples, W_row that of the row's,
 * and T the exact number of instances the event could keep over the whole
 * run (fetched, or retired for precise events; in the modes it samples). So
 * the estimate needs no knowledge of when the counter was stopped
 * (throttling, the PMU handler, multiplexing), only that those stops do not
 * prefer some instructions. The interval is the Clopper-Pearson interval of
 * the row's k samples out of the event's K, times T, when the period is
 * fixed. With varying periods (frequency mode) samples weigh their period:
 * k and K become effective sample sizes (sum p)^2 / sum p^2 (Kish), and the
 * interval is scaled so that it surrounds the estimate. docs/profiling.md
 * states it. */
#ifndef ANALYSIS_EXACT_H
#define ANALYSIS_EXACT_H
#include "perfdata/perfdata.h"
#include "uapi/pm_truth.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EXACT_CONF 0.95
#define EXACT_CACHE 1024          /* intervals remembered per sample count */

/* One event's view of the truth. */
struct exact_event {
  bool on;                       /* a ProfileMe event and the file has truth */
  bool precise, excl_user, excl_kernel;
  uint64_t filt;                 /* config1 filters (PM_FILT_*) */
  uint64_t total;                /* T */
  bool total_known;              /* false: the filters make T unknowable, so no estimate */
  uint64_t samples, wsum;        /* K and W, summed by exact_sample */
  double w2sum;                  /* the sum of the squared periods */
  double *lo, *hi;               /* interval cache by k (NaN: not yet) */
};

/* The exact counts summed over a row's entries, by mode (0 user, 1 kernel). */
struct exact_counts { uint64_t n[2][PM_TRUTH_NCOUNTS]; bool any; };

/* Sets up ev for event e of a file with the given truth (n may be 0: off).
 * Returns 0 or PM_ENOMEM. */
int exact_event_init(struct exact_event *ev, const struct pd_event *e,
                     const struct pm_truth_entry *t, size_t n);
void exact_event_free(struct exact_event *ev);
/* Whether entry t is in a mode the event samples. */
bool exact_in_modes(const struct exact_event *ev, const struct pm_truth_entry *t);
/* Counts one kept sample of the event. */
void exact_sample(struct exact_event *ev, uint64_t period);
void exact_add(struct exact_counts *c, const struct pm_truth_entry *t);

/* The exact count behind a column: bits 0 for the samples themselves, else
 * the PM_ST_* bits it sums (disjoint ones). Returns false when the event's
 * filters make it unknowable from the stored counts. */
bool exact_value(const struct exact_event *ev, const struct exact_counts *c, uint64_t bits, uint64_t *out);

/* The estimate and its interval for a row with k samples of period sum w
 * and squared-period sum w2. */
void exact_estimate(struct exact_event *ev, uint64_t k, uint64_t w, double w2, double *est, double *lo, double *hi);

#endif
