/* What the analysis commands (report, annotate, script, mem, dcpi) share, as
 * perf's util/session.c: a perf.data file opened with its machine model, and
 * one pass over its records with every sample decoded and resolved. Errors
 * come back as text in the session; the commands print them. */
#ifndef ANALYSIS_SESSION_H
#define ANALYSIS_SESSION_H
#include "perfdata/perfdata.h"
#include "analysis/symbols.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session {
  const char *path;
  struct pd_reader *r;
  struct sym_machine *m;
  uint64_t data_offset;          /* file offset of the first record (for dumps) */
  uint64_t lost;                 /* perf's total_lost_samples: LOST_SAMPLES records summed */
  uint64_t lost_events;          /* perf's total_lost: LOST records summed */
  uint64_t nr_lost;              /* LOST records ("chunks") */
  uint64_t nr_events, nr_samples;/* records and SAMPLE records read */
  bool file_order;               /* hand records over as stored (dumps), not in time order */
  char err[512];
};

/* Opens path ("perf.data" when NULL) with DSO files under symfs (or NULL).
 * Returns 0, or PM_E* with the reader's message in s->err. */
int session_open(struct session *s, const char *path, const char *symfs);
void session_close(struct session *s);

/* perf_session__warn_about_errors for lost data, as ui__warning prints it
 * on a terminal-less run: the text for stderr after a pass (empty when
 * nothing was lost), in buf. */
void session_lost_warnings(const struct session *s, char *buf, size_t len);

/* One record, as the pass hands it over. */
struct session_rec {
  const struct perf_event_header *h;
  uint64_t offset;               /* in the file */
  const struct pd_sample *sample;/* decoded, for SAMPLE records; else NULL */
  struct sym_loc loc;            /* the sample's ip, resolved (samples only) */
};

/* Called for every record (side-band records after the machine has seen
 * them). Returns 0 to go on, anything else to stop the pass with it: a PM_E*
 * code, with a message in s->err or (when it writes none) pm_strerror's. */
typedef int (*session_fn)(void *ctx, struct session *s, const struct session_rec *r);

/* Reads every record once, in time order when every event samples TIME
 * with sample_id_all (as perf's ordered events; stable, so records of one
 * time keep their file order), else (or with file_order) as stored.
 * Returns 0, the callback's value, or PM_E* with a message in s->err. */
int session_run(struct session *s, session_fn fn, void *ctx);

/* Index of an event in the reader (0..nevents-1). */
size_t session_event_index(const struct session *s, const struct pd_event *e);
/* The longest event name (perf script pads names to it). */
size_t session_max_name(const struct session *s);

/* The sample_id trailer of a non-sample record (the fields its event's
 * sample_type selects; `has` holds those PERF_SAMPLE_* bits). Returns false
 * for samples, tool records and records without a trailer. */
struct session_id { uint64_t has, time, id; uint32_t pid, tid, cpu; };
bool session_record_id(const struct session *s, const struct perf_event_header *h, struct session_id *id);

/* perf's PERF_RECORD_* name of a record type ("MMAP2", "SAMPLE"...), or NULL. */
const char *session_record_name(uint32_t type);

#endif
