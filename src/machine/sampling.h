/* Systematic sampling's bookkeeping for one CPU (docs/sampled.md): where
 * the detailed windows fall, what each measured unit measured, the rates a
 * functional stretch is charged at, and the estimates with their
 * confidence intervals. Pure arithmetic on counts; the machine drives it
 * (machine.c) and owns the mode switches.
 *
 * The schedule, in user-mode instructions run through the CPU's core
 * (detailed or warmed: "steps"; the kernel's work is always timed in
 * detail, so it is exact and not part of it): period k, [k * period, (k + 1) *
 * period), has one window at an offset drawn from the seed for that period
 * (stratified sampling: a fixed offset would alias with a loop whose length
 * divides the period), `warmup` detailed instructions whose counts are
 * dropped, then a unit of `unit` detailed instructions that is measured.
 * Everything else is warmed and charged, quantity by quantity, at the rate
 * per instruction of the last unit measured before it. A quantity is the
 * user instructions' cycles or one field of their struct ev67_stats.
 * Invariant: a stretch is only charged after a unit has been measured (the
 * machine stays detailed until then). */
#ifndef MACHINE_SAMPLING_H
#define MACHINE_SAMPLING_H
#include "uarch/ev67.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMP_NFIELDS (sizeof(struct ev67_stats) / sizeof(uint64_t))
/* Quantity indices: the cycles, then each user-mode ev67_stats field. */
#define SMP_Q_CYCLES 0
#define SMP_Q(field) (1 + offsetof(struct ev67_stats, field) / sizeof(uint64_t))
#define SMP_Q_FIELD(index) (1 + (index))
#define SMP_NQ (1 + SMP_NFIELDS)

struct smp_params {
  uint64_t unit;      /* measured instructions per unit (U) */
  uint64_t warmup;    /* detailed instructions before each unit and each ProfileMe sample (W) */
  uint64_t period;    /* instructions from one window's start to the next (P > W + U) */
};

/* The default parameters and the smallest period allowed for them. */
#define SMP_DEFAULT_UNIT 1000
#define SMP_DEFAULT_WARMUP 2000
#define SMP_DEFAULT_PERIOD 100000

/* The kernel's work, stratified by kind (machine: activity and system call
 * number): it comes in discrete, costly events that a unit measures badly
 * (a unit that holds a tick would charge it to a whole stretch). Each
 * kind's first SMP_KERNEL_FIRST events and then one in SMP_KERNEL_EVERY,
 * drawn from the seed, are timed in detail; the others are warmed and
 * charged at their kind's measured cycles and counts per instruction. */
#define SMP_KERNEL_FIRST 4
#define SMP_KERNEL_EVERY 32
/* The first events of a kind run on colder caches than the rest (the
 * program's start, the path's first use): they give the kind its rates
 * only until one drawn at random is timed. */
struct smp_kind {
  uint32_t key;            /* 0: free slot; else the kind + 1 */
  uint64_t seen, timed;    /* events, and how many were timed (the first SMP_KERNEL_FIRST, then drawn) */
  double insns;            /* instructions of the drawn events, else of the first */
  double v[SMP_NQ];        /* their cycles and counts (kernel mode) */
  double x2, x1;           /* sums of their cycles per instruction, squared and not */
  double warm_insns;       /* instructions of the warmed events */
};

struct smp {
  struct smp_params p;
  uint64_t next_start;     /* steps at which the next window starts */
  uint64_t period_start;   /* where its period starts */
  uint64_t rng;            /* the offsets' generator */
  bool measuring;          /* inside a unit */
  uint64_t unit_steps;     /* steps at the unit's start */
  uint64_t last_n;         /* the last unit's length in steps */
  double unit_base[SMP_NQ];/* the counts at the unit's start */
  bool have_rate;
  double rate[SMP_NQ];     /* per instruction, in the last unit */
  /* accumulators */
  uint64_t units, steps_unit, steps_warm;
  double sum[SMP_NQ], sumsq[SMP_NQ];   /* of the units' rates */
  double sumd2[SMP_NQ];    /* of the squared differences of successive units' rates */
  double est[SMP_NQ];      /* the warmed instructions' share of each quantity */
  double f_cur, f2;        /* instructions charged at the current rates; sum of squares of the closed stretches */
  /* the kernel's work */
  struct smp_kind *kinds;  /* open addressing, nkinds_cap slots */
  unsigned nkinds, nkinds_cap;
  uint64_t krng;
  double kest[SMP_NQ];     /* the warmed events' share of each kernel-mode quantity */
  uint64_t ktimed, kwarmed;/* events */
};

/* Checks p: returns 0, or -1 when a field is 0 or the period does not
 * exceed warmup + unit. */
int smp_params_check(const struct smp_params *p);
/* Starts the schedule; each period's window starts at an offset below
 * period - warmup - unit drawn from seed (a seed gives other unit places,
 * which is what the confidence interval is about). */
void smp_init(struct smp *s, const struct smp_params *p, uint64_t seed);

/* Whether steps lies in the current window (its warm-up or its unit). */
bool smp_in_window(const struct smp *s, uint64_t steps);
/* The steps at which the machine must next look at the schedule from
 * detailed mode (the unit's start or end), or UINT64_MAX. */
uint64_t smp_next_event(const struct smp *s);
/* Detailed mode reached `steps` with the counts `now` (SMP_NQ values):
 * starts or ends the unit when due. Returns true when a unit ended. */
bool smp_detailed(struct smp *s, uint64_t steps, const double *now);
/* Charges n warmed instructions at the current rates. */
void smp_charge(struct smp *s, uint64_t n);

/* Whether the next event of kernel kind `key` is to be timed in detail. */
bool smp_kernel_time(struct smp *s, uint32_t key);
/* A timed event of kind key: its instructions and its cycles and counts v
 * (SMP_NQ values, kernel mode). */
void smp_kernel_timed(struct smp *s, uint32_t key, double insns, const double *v);
/* A warmed event of kind key and its instructions: sets rate[] to its
 * kind's cycles and counts per instruction (SMP_NQ) and charges them.
 * False when the kind has no timed event yet (then time it). */
bool smp_kernel_charge(struct smp *s, uint32_t key, double insns, double *rate);
void smp_free(struct smp *s);

/* The 95% half-width of the estimate of quantity q's warmed share
 * (absolute), from the spread of the units' rates; 0 with fewer than two
 * units or nothing warmed. */
double smp_halfwidth(const struct smp *s, unsigned q);
/* The same as a variance, for sums over CPUs. For the cycles it includes
 * the warmed kernel events' (each kind's spread of cycles per instruction
 * over its timed events). */
double smp_variance(const struct smp *s, unsigned q);

#endif
