/* perf.data, written as Linux perf 6.1 writes it and read as perf reads it
 * (file header, attribute section with id arrays, data section of records,
 * feature sections). The uapi record and attribute layouts are the kernel's
 * (<linux/perf_event.h>). Streaming reads through mmap; no per-record
 * allocation. Libraries never print: errors come back as PM_E* codes plus a
 * message describing what was read where. */
#ifndef PERFDATA_H
#define PERFDATA_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- writing ---- */
struct pd_writer;

/* Creates path (truncating). Returns NULL with *err set (PM_E*). */
struct pd_writer *pd_writer_create(const char *path, int *err);
/* Declares an event: its attr (copied), display name and sample ids. All
 * events must share sample_type's id position (use PERF_SAMPLE_IDENTIFIER)
 * and sample_id_all. Returns 0 or PM_E*. Call before the first record.
 * name NULL: the perf-style default (pd_event_name). With several events each
 * needs ids (perf matches samples and EVENT_DESC names by id; records are
 * refused otherwise); a single event may have none. The attr is written with
 * size PERF_ATTR_SIZE_VER7 (128), the most perf 6.1 reads. */
int pd_writer_add_event(struct pd_writer *w, const struct perf_event_attr *attr,
                        const char *name, const uint64_t *ids, size_t nids);
/* Appends one record (header included, size a multiple of 8) to the data
 * section. Returns 0 or PM_E*. */
int pd_writer_record(struct pd_writer *w, const struct perf_event_header *rec);
/* AUX area trace records (tool records, perf's util/auxtrace.c): an
 * AUXTRACE record is 48 bytes of header and fields followed by `size` bytes
 * of trace data that header.size does not count (size a multiple of 8).
 * `offset` is the data's position in the AUX buffer's stream, `idx` the
 * buffer (perf: the mmap index, per CPU), `reference` a free tag. */
#define PD_RECORD_AUXTRACE_INFO 70
#define PD_RECORD_AUXTRACE 71
#define PD_AUXTRACE_SIZE 48
#define PD_AUXTRACE_INFO_MAX 30          /* priv words we write at most */
struct pd_auxtrace { uint64_t size, offset, reference; uint32_t idx, tid, cpu; };
/* Appends an AUXTRACE record and its size bytes of data. Returns 0 or PM_E*. */
int pd_writer_auxtrace(struct pd_writer *w, const struct pd_auxtrace *a, const void *data);
/* Appends PERF_RECORD_AUXTRACE_INFO: u32 type, u32 reserved, u64 priv[npriv]. */
int pd_writer_auxtrace_info(struct pd_writer *w, uint32_t type, const uint64_t *priv, size_t npriv);

/* Header features (all optional; call any time before close). */
struct pd_env {
  const char *hostname, *os_release, *version, *arch, *cpudesc, *cpuid;
  uint32_t nr_cpus_avail, nr_cpus_online;
  uint64_t total_mem_kb;
  int argc;
  char *const *argv;             /* CMDLINE */
  const char *uarch;             /* PROFILEME_UARCH (ours, bit 251): the what-if EV67's
                                    --uarch list; NULL on the HRM's EV67 (no feature) */
};
int pd_writer_set_env(struct pd_writer *w, const struct pd_env *env);
/* Adds a BUILD_ID entry (cpumode PERF_RECORD_MISC_USER or _KERNEL). */
int pd_writer_add_build_id(struct pd_writer *w, int pid, uint16_t cpumode,
                           const uint8_t *id, size_t id_len, const char *filename);
/* Stores ground truth per instruction (pm_truth.h) as the PROFILEME_TRUTH
 * feature (copied, compacted). Returns 0 or PM_E*. */
struct pm_truth_entry;
int pd_writer_set_truth(struct pd_writer *w, const struct pm_truth_entry *e, size_t n);
/* Finishes the file (header, attrs, features) so perf reads it; frees w.
 * Returns 0 or PM_E*; the file is left valid up to the last record even on
 * error paths where possible. */
int pd_writer_close(struct pd_writer *w);

/* Reads the GNU build-id note of an ELF file into id (up to 20 bytes).
 * Returns its length, or 0 when it has none. */
size_t pd_elf_build_id(const char *path, uint8_t id[20]);

/* Writes perf's default name for an event without EVENT_DESC into buf
 * ("cycles", "cpu-clock", "raw 0x1234", "L1-dcache-load-misses", with perf's
 * modifier suffix such as ":u" or ":HG"), as evsel__name does. */
void pd_event_name(const struct perf_event_attr *attr, char *buf, size_t len);

/* ---- reading ---- */
struct pd_reader;

struct pd_event {
  struct perf_event_attr attr;   /* zero-extended to the current size */
  const char *name;              /* EVENT_DESC name, or a perf-style default */
  const uint64_t *ids;
  size_t nids;
};

/* Opens a perf.data file (either endianness is detected; only native is
 * decoded). Returns NULL with *err and a message in errbuf. */
struct pd_reader *pd_reader_open(const char *path, int *err, char *errbuf, size_t errlen);
/* The same over a caller's buffer (8-byte aligned, kept alive and unchanged
 * until close; not copied). */
struct pd_reader *pd_reader_open_mem(const void *buf, size_t len, int *err, char *errbuf, size_t errlen);
void pd_reader_close(struct pd_reader *r);
size_t pd_reader_nevents(const struct pd_reader *r);
const struct pd_event *pd_reader_event(const struct pd_reader *r, size_t i);
/* Header feature strings (NULL when absent): "hostname", "osrelease",
 * "version", "arch", "cpudesc", "cpuid", "uarch" (ours: the --uarch list of
 * a what-if EV67), "cmdline" (joined by spaces). */
const char *pd_reader_env(const struct pd_reader *r, const char *key);
/* Header feature numbers: "nr_cpus_avail", "nr_cpus_online", "total_mem"
 * (kB), "first_sample_time", "last_sample_time". Returns false when absent. */
bool pd_reader_env_u64(const struct pd_reader *r, const char *key, uint64_t *val);

/* BUILD_ID feature entries (owned by the reader). */
struct pd_build_id {
  int pid;                       /* machine pid: -1 the host */
  uint16_t cpumode;              /* PERF_RECORD_MISC_USER / _KERNEL ... */
  uint8_t id[20];
  size_t id_len;
  const char *filename;
};
size_t pd_reader_nbuild_ids(const struct pd_reader *r);
const struct pd_build_id *pd_reader_build_id(const struct pd_reader *r, size_t i);

/* The PROFILEME_TRUTH entries (owned by the reader), or NULL with *n 0 when
 * the file has none. Checked when the file was opened. */
const struct pm_truth_entry *pd_reader_truth(const struct pd_reader *r, size_t *n);

/* Iterates the data section: returns 1 with *rec pointing at the next record
 * (valid until close), 0 at the end, or PM_E* for a malformed record with a
 * message in errbuf saying at which offset and what was wrong (the error then
 * repeats on every later call). The whole record lies in the data section. */
int pd_reader_next(struct pd_reader *r, const struct perf_event_header **rec,
                   char *errbuf, size_t errlen);

/* A decoded PERF_RECORD_SAMPLE (the fields its event's sample_type has). */
struct pd_sample {
  const struct pd_event *event;
  uint64_t sample_type;
  uint64_t id, ip, time, addr, stream_id, period, weight, data_src;
  uint16_t ins_lat;              /* WEIGHT_STRUCT's var2_w (perf's ins_lat), else 0 */
  uint32_t pid, tid, cpu;
  uint16_t cpumode;              /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
  bool exact_ip;
  const uint64_t *callchain;
  uint64_t callchain_nr;
  const void *raw;
  uint32_t raw_size;
  /* REGS_USER and REGS_INTR: the abi (PERF_SAMPLE_REGS_ABI_*, 0 = none) and,
   * unless it is 0, popcount(mask) values in ascending bit order of mask
   * (the event's sample_regs_user / sample_regs_intr). */
  uint64_t user_abi, user_mask, intr_abi, intr_mask;
  const uint64_t *user_regs, *intr_regs;
  /* STACK_USER: stack_size bytes copied from the user SP, of which the
   * first stack_dyn_size are real (0/NULL without a dump). */
  const uint8_t *stack;
  uint64_t stack_size, stack_dyn_size;
  uint32_t stack_offset;         /* of the STACK_USER size word in the record (perf's ustack offset) */
};
/* Decodes a SAMPLE record (its event found by its id, or the single event).
 * weight is the full u64 for PERF_SAMPLE_WEIGHT, var1_dw for WEIGHT_STRUCT.
 * Returns 0 or PM_E* with a message (PM_EINVAL for a record of another type). */
int pd_parse_sample(const struct pd_reader *r, const struct perf_event_header *rec,
                    struct pd_sample *s, char *errbuf, size_t errlen);
/* The event a non-sample record belongs to (sample_id_all trailer), or NULL
 * (no trailer, a tool-synthesized record, an unknown id). For a SAMPLE, its
 * event. */
const struct pd_event *pd_record_event(const struct pd_reader *r, const struct perf_event_header *rec);

/* The AUX area records (each checks the record's type and size; 0 or
 * PM_E* with a message). AUXTRACE: *data points at a->size bytes of trace
 * data after the record (pd_reader_next checked they lie in the data
 * section). AUXTRACE_INFO: *priv the npriv words after type and reserved.
 * AUX (kernel record 11): the AUX buffer's offset and size of new data and
 * PERF_AUX_FLAG_* flags. ITRACE_START (12): pid and tid. */
int pd_parse_auxtrace(const struct perf_event_header *rec, struct pd_auxtrace *a, const uint8_t **data,
                      char *errbuf, size_t errlen);
int pd_parse_auxtrace_info(const struct perf_event_header *rec, uint32_t *type, const uint64_t **priv,
                           size_t *npriv, char *errbuf, size_t errlen);
int pd_parse_aux(const struct perf_event_header *rec, uint64_t *offset, uint64_t *size, uint64_t *flags,
                 char *errbuf, size_t errlen);
int pd_parse_itrace_start(const struct perf_event_header *rec, uint32_t *pid, uint32_t *tid, char *errbuf,
                          size_t errlen);

#endif
