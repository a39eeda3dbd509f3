/* perf's dump mode (-D, --dump-raw-trace) for script and report: every
 * record as perf prints it (util/session.c dump_event, dump_sample and the
 * record types' fprintf functions), to stdout. */
#ifndef ANALYSIS_DUMP_H
#define ANALYSIS_DUMP_H
#include "analysis/session.h"

/* Called after a sample's dump (perf script adds its line there). */
typedef void (*dump_fn)(void *ctx, struct session *s, const struct session_rec *r);

/* Which tool dumps: the records a tool has no handler for are "unhandled!"
 * in perf (report has none for THROTTLE and UNTHROTTLE, script has). */
enum dump_tool { DUMP_REPORT, DUMP_SCRIPT };

/* Prints record r of s as tool does; after (may be NULL) runs after a
 * sample's fields. */
void dump_record(struct session *s, const struct session_rec *r, enum dump_tool tool, dump_fn after, void *ctx);

/* perf report -D's trailer: "Aggregated stats:" with the records of each
 * type counted in counts[type] (PERF_RECORD_HEADER_MAX entries, [0] the
 * total), then each event's samples (nsamples[i], event i of s). */
#define DUMP_NTYPES 83   /* PERF_RECORD_HEADER_MAX */
void dump_stats(const struct session *s, const uint32_t *counts, const uint64_t *nsamples);

#endif
