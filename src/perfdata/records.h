/* The kernel's side-band records as perf's union perf_event views them
 * (tools/perf/util/event.h over <linux/perf_event.h>): MMAP and MMAP2, COMM,
 * FORK and EXIT, LOST and LOST_SAMPLES, read and built field by field here
 * so that no caller counts byte offsets. The sample_id trailer that follows
 * a record's own fields is the caller's (session_record_id reads it). */
#ifndef PERFDATA_RECORDS_H
#define PERFDATA_RECORDS_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* MMAP (prot and flags 0) and MMAP2 (the inode fields are not kept). */
struct pd_mmap_rec {
  uint32_t pid, tid;
  uint64_t start, len, pgoff;
  uint32_t prot, flags;
  const char *filename;          /* inside the record, NUL-terminated */
};
/* COMM. */
struct pd_comm_rec { uint32_t pid, tid; const char *comm; };
/* FORK and EXIT (time 0 when the record stops before it). */
struct pd_task_rec { uint32_t pid, ppid, tid, ptid; uint64_t time; };

/* Each reads rec's fields into *out. Returns false when rec is not of a type
 * it reads, is shorter than its fixed part, or (mmap, comm) its string has no
 * NUL inside the record. */
bool pd_read_mmap(const struct perf_event_header *rec, struct pd_mmap_rec *out);
bool pd_read_comm(const struct perf_event_header *rec, struct pd_comm_rec *out);
bool pd_read_task(const struct perf_event_header *rec, struct pd_task_rec *out);
/* LOST { u64 id, lost } and LOST_SAMPLES { u64 lost }. */
bool pd_read_lost(const struct perf_event_header *rec, uint64_t *id, uint64_t *lost);
bool pd_read_lost_samples(const struct perf_event_header *rec, uint64_t *lost);

/* Writes an MMAP2 record with misc and m's fields (inode fields 0, the name
 * NUL-padded to a multiple of 8) into buf. Returns its size, which
 * header.size holds (add the trailer's bytes to it), or 0 when cap is too
 * small. */
size_t pd_build_mmap2(void *buf, size_t cap, uint16_t misc, const struct pd_mmap_rec *m);
/* The sample_id trailer of a record (sample_id_all), in the kernel's order
 * (perf_event_header__init_id): TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER,
 * each when sample_type has it. Returns the bytes written at buf (at most
 * 48), or 0 when cap is too small. */
struct pd_sample_id { uint32_t pid, tid; uint64_t time, id, stream_id; uint32_t cpu; };
size_t pd_build_sample_id(void *buf, size_t cap, uint64_t sample_type, const struct pd_sample_id *s);
/* Writes LOST_SAMPLES { u64 lost } into buf as pd_build_mmap2 does. */
size_t pd_build_lost_samples(void *buf, size_t cap, uint64_t lost);

#endif
