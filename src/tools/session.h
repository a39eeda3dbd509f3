/* What the analysis commands (report, annotate, script, mem, dcpi) share: a
 * perf.data file opened with its machine model, one pass over its records
 * with every sample decoded and resolved, the ProfileMe raw payload and its
 * status names, and a small aggregation table. Errors come back as text in
 * the session; the commands print them. */
#ifndef TOOLS_SESSION_H
#define TOOLS_SESSION_H
#include "perfdata/perfdata.h"
#include "perfdata/pm_raw.h"
#include "tools/symbols.h"
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

/* Copies the ProfileMe payload of a sample into *raw. Returns false when the
 * sample has none (no RAW, too short, another version). */
bool session_pm_raw(const struct pd_sample *s, struct pm_raw_v1 *raw);

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

/* An aggregation table: fixed-size keys (compared as bytes; zero the
 * padding) mapped to zero-initialised values of a fixed size, kept in
 * insertion order. */
struct hist;
struct hist *hist_create(size_t key_size, size_t val_size);
void hist_destroy(struct hist *h);
/* The value of key, inserted when absent. Valid until the next insert;
 * NULL on ENOMEM. */
void *hist_get(struct hist *h, const void *key);
/* The value of key, or NULL when absent (nothing is inserted). */
void *hist_find(const struct hist *h, const void *key);
size_t hist_count(const struct hist *h);
/* Entry i (0..count-1): its key and value. */
const void *hist_key(const struct hist *h, size_t i);
void *hist_val(const struct hist *h, size_t i);

/* Splits a comma-separated option value in place; returns the count (at most max). */
size_t split_list(char *s, char **out, size_t max);
/* Whether name is in the list (or the list is empty). */
bool in_list(char *const *list, size_t n, const char *name);
/* Whether a pid or tid, as perf prints it (signed), is in the list (or the list is empty). */
bool in_num_list(char *const *list, size_t n, uint32_t v);

/* perf's text for the parts of a PERF_SAMPLE_DATA_SRC value (util/mem-events.c):
 * op "LOAD", level "L1 or L1 hit", snoop "None", TLB "L1 miss", lock "No",
 * blocked " N/A"; and the whole as perf script prints it
 * ("|OP LOAD|LVL L1 or L1 hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A"). Each
 * writes at most len bytes including the NUL. */
void mem_op_str(uint64_t ds, char *buf, size_t len);
void mem_lvl_str(uint64_t ds, char *buf, size_t len);
void mem_snoop_str(uint64_t ds, char *buf, size_t len);
void mem_tlb_str(uint64_t ds, char *buf, size_t len);
void mem_lock_str(uint64_t ds, char *buf, size_t len);
void mem_blk_str(uint64_t ds, char *buf, size_t len);
void mem_info_str(uint64_t ds, char *buf, size_t len);

/* perf's Symbol column for a sampled address: "[L] name", or "[L] 0x<16 hex
 * digits>" of the map-relative addr when sym is NULL (L: sym_loc's level). */
void sym_column(char level, const struct sym_symbol *sym, uint64_t addr, char *buf, size_t len);

/* perf's PERF_RECORD_* name of a record type ("MMAP2", "SAMPLE"...), or NULL. */
const char *session_record_name(uint32_t type);

#endif
