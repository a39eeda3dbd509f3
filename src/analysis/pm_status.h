/* The ProfileMe payload of a sample (uapi/pm_raw.h) as the analysis
 * commands read it: the payload itself, the DCPI names of its status bits,
 * and samples counted by status. */
#ifndef ANALYSIS_PM_STATUS_H
#define ANALYSIS_PM_STATUS_H
#include "perfdata/perfdata.h"
#include "uapi/pm_raw.h"
#include <stdbool.h>
#include <stdint.h>

/* Copies the ProfileMe payload of a sample into *raw. Returns false when the
 * sample has none (no RAW, too short, another version). */
bool session_pm_raw(const struct pd_sample *s, struct pm_raw_v1 *raw);

/* Whether an event samples with ProfileMe, as the Alpha PMU driver takes
 * it (kernel/alpha_pmu.c): a precise event on the cpu PMU (PERF_TYPE_RAW) or
 * its generic hardware events, or the cpu PMU's profileme format bit, with
 * PERF_SAMPLE_RAW. perf's dump decodes the raw data of these events' samples
 * (the perf-tools series' util/alpha-sample-raw.c). */
bool pm_event_is_profileme(const struct perf_event_attr *attr);

/* The DCPI attribute names of the PM_ST_* bits, in bit order; NULL-terminated
 * at index PM_NSTATUS. */
#define PM_NSTATUS 17
extern const char *const pm_status_names[PM_NSTATUS + 1];

/* ProfileMe samples by status: how many had a payload, and how many of those
 * had each PM_ST_* bit. */
struct pm_counts { uint64_t n; uint64_t st[PM_NSTATUS]; };
/* Counts sample s if it has a ProfileMe payload; returns whether it had. */
bool pm_counts_add(struct pm_counts *c, const struct pd_sample *s);
/* The sum of the counts of the PM_ST_* bits in bits. */
uint64_t pm_counts_sum(const struct pm_counts *c, uint64_t bits);

#endif
