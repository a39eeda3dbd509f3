/* perf.data writer and reader; see perfdata.h. The file, as perf 6.1 `record`
 * lays it out: 104-byte header | ids arrays | attribute section (attr + {offset,
 * size} of its ids, per event) | data section (records) | feature section table
 * ({offset, size} per set feature bit, ascending) | feature payloads.
 * Invariants: every offset the writer produces is 8-aligned and every record a
 * multiple of 8 bytes; the reader touches only bytes it has bounds-checked
 * against the mapped file, and hands out a record pointer only once the whole
 * record lies inside the data section (8-aligned, since the data section must
 * start 8-aligned and the map is page-aligned). Sources: tools/perf/util/header.c
 * (write_* / process_* of each feature, perf_file_header), util/evsel.c
 * (evsel__parse_sample, evsel__name), util/evlist.c (id_pos/is_pos). */
#include "perfdata/perfdata.h"
#include "uapi/pm_truth.h"
#include "util/assert.h"
#include "util/err.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PD_MAGIC         0x32454c4946524550ull   /* "PERFILE2" read as a native u64 */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ull   /* written on an opposite-endian host */
#define PD_HEADER_SIZE   104
#define PD_HEADER_NOFEAT 72      /* before the feature bitmap existed (perf accepts it) */
#define PD_PIPE_HEADER   16      /* pipe-mode header: magic + size */
#define PD_ATTR_SIZE     PERF_ATTR_SIZE_VER7     /* the largest attr perf 6.1 reads */
#define PD_NAME_ALIGN    64      /* feature strings are padded to this */
#define PD_BUILD_ID_REC  36      /* sizeof(struct perf_record_header_build_id) */
#define PD_MISC_BUILD_ID_SIZE (1u << 15)         /* build-id entry carries its size */
#define PD_RECORD_USER_START 64  /* records synthesized by the perf tool start here */

_Static_assert(sizeof(struct perf_event_attr) >= PD_ATTR_SIZE, "uapi perf_event_attr too old");

/* Feature bits (tools/perf/util/header.h, 6.1 numbering). */
enum {
  FEAT_BUILD_ID = 2, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH, FEAT_NRCPUS,
  FEAT_CPUDESC, FEAT_CPUID, FEAT_TOTAL_MEM, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_CPU_TOPOLOGY,
  FEAT_SAMPLE_TIME = 21, FEAT_TRUTH = PM_TRUTH_FEAT,
  FEAT_UARCH = PM_TRUTH_FEAT + 1,   /* ours: a what-if EV67's parameters (a string), skipped by perf */
  FEAT_BITS = 256
};

struct pd_section { uint64_t offset, size; };

struct pd_file_header {
  uint64_t magic, size, attr_size;
  struct pd_section attrs, data, event_types;
  uint64_t features[FEAT_BITS / 64];
};
_Static_assert(sizeof(struct pd_file_header) == PD_HEADER_SIZE, "perf_file_header layout");

/* The string features, in pd_reader_env key order; cmdline is a string list. */
enum { ENV_HOSTNAME, ENV_OSRELEASE, ENV_VERSION, ENV_ARCH, ENV_CPUDESC, ENV_CPUID, ENV_UARCH, ENV_CMDLINE, ENV_N };
static const char *const env_keys[ENV_N] = {
  "hostname", "osrelease", "version", "arch", "cpudesc", "cpuid", "uarch", "cmdline",
};
static const int env_feats[ENV_N] = {
  FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH, FEAT_CPUDESC, FEAT_CPUID, FEAT_UARCH, FEAT_CMDLINE,
};

/* Returns the perf name of feature bit f (for messages). */
static const char *feat_name(int f)
{
  static const char *const names[] = {
    [1] = "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH", "NRCPUS",
    "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY", "NUMA_TOPOLOGY",
    "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT", "CACHE", "SAMPLE_TIME",
    "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF", "COMPRESSED",
    "CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
  };
  if (f > 0 && f < (int)(sizeof names / sizeof names[0])) return names[f];
  if (f == FEAT_TRUTH) return "PROFILEME_TRUTH";
  if (f == FEAT_UARCH) return "PROFILEME_UARCH";
  return "unknown feature";
}

static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* Maps errno to a PM_E* code. */
static int errno_code(int e)
{
  switch (e) {
  case ENOENT: case ENOTDIR: return PM_ENOENT;
  case EACCES: case EPERM: case EROFS: return PM_EPERM;
  case ENOMEM: return PM_ENOMEM;
  default: return PM_EIO;
  }
}

/* Index, in u64 words after the header, of the id in a SAMPLE of this
 * sample_type, or -1 if it has none (evsel.c __evsel__calc_id_pos). */
static int sample_id_pos(uint64_t st)
{
  if (st & PERF_SAMPLE_IDENTIFIER) return 0;
  if (!(st & PERF_SAMPLE_ID)) return -1;
  return !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
         !!(st & PERF_SAMPLE_ADDR);
}

/* Position of the id in a sample_id_all trailer counted back from the end of
 * the record (1 = last word), or -1 (evsel.c __evsel__calc_is_pos). */
static int trailer_id_pos(uint64_t st)
{
  if (st & PERF_SAMPLE_IDENTIFIER) return 1;
  if (!(st & PERF_SAMPLE_ID)) return -1;
  return 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
}

/* ---- default event names (perf's evsel__name) ---- */

/* Appends perf's modifier suffix (":u", ":k", ":pp", ":HG" ...) for attr to
 * buf[at..len); returns the new length (evsel__add_modifiers). */
static size_t add_modifiers(const struct perf_event_attr *a, char *buf, size_t at, size_t len)
{
  char mod[16];
  size_t n = 0;
  bool guest_default = false;
  if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
    if (!a->exclude_kernel) mod[n++] = 'k';
    if (!a->exclude_user) mod[n++] = 'u';
    if (!a->exclude_hv) mod[n++] = 'h';
    guest_default = true;
  }
  for (unsigned i = 0; i < a->precise_ip && i < 3; i++) mod[n++] = 'p';
  if (a->precise_ip) guest_default = true;
  if (a->exclude_host || a->exclude_guest == guest_default) {
    if (!a->exclude_host) mod[n++] = 'H';
    if (!a->exclude_guest) mod[n++] = 'G';
  }
  if (n == 0 || at >= len) return at;
  int w = snprintf(buf + at, len - at, ":%.*s", (int)n, mod);
  return w < 0 ? at : at + (size_t)w;
}

/* Writes the generic-cache event name (L1-dcache-loads, LLC-load-misses...). */
static size_t cache_name(uint64_t config, char *buf, size_t len)
{
  static const char *const type[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node" };
  static const char *const op[][2] = { { "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" } };
  unsigned t = config & 0xff, o = (config >> 8) & 0xff, res = (config >> 16) & 0xff;
  int w;
  if (t >= 7 || o >= 3 || res >= 2) w = snprintf(buf, len, "invalid-cache");
  else if (res) w = snprintf(buf, len, "%s-%s-misses", type[t], op[o][0]);
  else w = snprintf(buf, len, "%s-%s", type[t], op[o][1]);
  return w < 0 ? 0 : (size_t)w;
}

void pd_event_name(const struct perf_event_attr *a, char *buf, size_t len)
{
  static const char *const hw[] = {
    "cycles", "instructions", "cache-references", "cache-misses", "branches", "branch-misses",
    "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
  };
  static const char *const sw[] = {
    "cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
    "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
    "bpf-output", "cgroup-switches",
  };
  if (!len) return;
  int w = 0;
  switch (a->type) {
  case PERF_TYPE_HARDWARE:
    w = snprintf(buf, len, "%s", a->config < 10 ? hw[a->config] : "unknown-hardware");
    break;
  case PERF_TYPE_SOFTWARE:
    w = snprintf(buf, len, "%s", a->config < 12 ? sw[a->config] : "unknown-software");
    break;
  case PERF_TYPE_HW_CACHE: w = (int)cache_name(a->config, buf, len); break;
  case PERF_TYPE_RAW: w = snprintf(buf, len, "raw 0x%" PRIx64, (uint64_t)a->config); break;
  case PERF_TYPE_BREAKPOINT:
    w = snprintf(buf, len, "mem:0x%" PRIx64 ":%s%s%s", (uint64_t)a->bp_addr,
                 a->bp_type & 1 ? "r" : "", a->bp_type & 2 ? "w" : "", a->bp_type & 4 ? "x" : "");
    break;
  case PERF_TYPE_TRACEPOINT: snprintf(buf, len, "unknown tracepoint"); return;
  default: snprintf(buf, len, "unknown attr type: %u", a->type); return;
  }
  add_modifiers(a, buf, w < 0 ? 0 : (size_t)w, len);
}

/* ======================================================================
 * Writer
 * ====================================================================== */

/* A growable byte buffer for feature payloads; failed is sticky. */
struct pd_buf { uint8_t *p; size_t len, cap; bool failed; };

static void buf_put(struct pd_buf *b, const void *src, size_t n)
{
  if (b->failed || n == 0) return;
  if (n > b->cap - b->len) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) { b->failed = true; return; }
    b->p = p, b->cap = cap;
  }
  if (src) memcpy(b->p + b->len, src, n);
  else memset(b->p + b->len, 0, n);
  b->len += n;
}
static void buf_u32(struct pd_buf *b, uint32_t v) { buf_put(b, &v, 4); }
static void buf_u64(struct pd_buf *b, uint64_t v) { buf_put(b, &v, 8); }

/* perf's do_write_string: u32 len (strlen + 1 rounded up to 64), then the
 * string NUL-padded to len. */
static void buf_string(struct pd_buf *b, const char *s)
{
  size_t n = strlen(s) + 1, len = align_up(n, PD_NAME_ALIGN);
  buf_u32(b, (uint32_t)len);
  buf_put(b, s, n);
  buf_put(b, NULL, len - n);
}

struct wevent {
  struct perf_event_attr attr;
  char *name;
  uint64_t *ids;
  size_t nids;
};

struct wbuild_id {
  int32_t pid;
  uint16_t cpumode;
  uint8_t id[20], len;
  char *filename;
};

struct pd_writer {
  FILE *f;
  struct wevent *ev;
  size_t nev;
  struct wbuild_id *bid;
  size_t nbid;
  char *env[ENV_CMDLINE];        /* the single-string features */
  char **argv;
  int argc;
  uint32_t cpus_avail, cpus_online;
  uint64_t total_mem_kb;
  bool started;                  /* ids and attrs written; records may follow */
  uint64_t data_off, data_size;
  bool have_time;
  uint64_t first_time, last_time;
  struct pd_buf truth;           /* the PROFILEME_TRUTH payload, when set */
  int err;                       /* first I/O error; sticky */
};

/* Writes n bytes at the current position; records the first error. */
static void w_put(struct pd_writer *w, const void *p, size_t n)
{
  if (w->err || n == 0) return;
  if (fwrite(p, 1, n, w->f) != n) w->err = errno_code(errno ? errno : EIO);
}

/* Rewrites the file header with the current layout and feature bitmap, then
 * returns to the end of the data section. */
static void w_header(struct pd_writer *w, const uint64_t features[FEAT_BITS / 64])
{
  struct pd_file_header h = {
    .magic = PD_MAGIC, .size = PD_HEADER_SIZE, .attr_size = PD_ATTR_SIZE + sizeof(struct pd_section),
  };
  if (w->started) {
    h.attrs.offset = w->data_off - w->nev * h.attr_size;
    h.attrs.size = w->nev * h.attr_size;
    h.data.offset = w->data_off;
    h.data.size = w->data_size;
  } else {
    h.data.offset = PD_HEADER_SIZE;
  }
  if (features) memcpy(h.features, features, sizeof h.features);
  /* Every offset the writer produces is 8-aligned, every record a multiple of 8. */
  PM_ASSERT(h.attrs.offset % 8 == 0 && h.attrs.size % 8 == 0 && h.data.offset % 8 == 0 &&
            h.data.size % 8 == 0);
  if (w->err) return;
  if (fflush(w->f) != 0 || fseeko(w->f, 0, SEEK_SET) != 0) { w->err = errno_code(errno); return; }
  w_put(w, &h, sizeof h);
  if (w->err) return;
  if (fflush(w->f) != 0 || fseeko(w->f, (off_t)(w->started ? w->data_off + w->data_size
                                                             : PD_HEADER_SIZE), SEEK_SET) != 0)
    w->err = errno_code(errno);
}

/* Lays out the ids arrays and attribute section after the header (as perf
 * record does) and marks the data section open. */
static void w_start(struct pd_writer *w)
{
  uint64_t off = PD_HEADER_SIZE;
  for (size_t i = 0; i < w->nev; i++) {
    w_put(w, w->ev[i].ids, w->ev[i].nids * 8);
  }
  for (size_t i = 0; i < w->nev; i++) {
    struct pd_section ids = { off, w->ev[i].nids * 8 };
    off += ids.size;
    w_put(w, &w->ev[i].attr, PD_ATTR_SIZE);
    w_put(w, &ids, sizeof ids);
  }
  w->started = true;
  w->data_off = off + w->nev * (PD_ATTR_SIZE + sizeof(struct pd_section));
  w->data_size = 0;
  PM_ASSERT(w->data_off % 8 == 0);
  w_header(w, NULL);    /* perf reads this as "data size 0: not properly terminated" */
}

struct pd_writer *pd_writer_create(const char *path, int *err)
{
  int dummy;
  if (!err) err = &dummy;
  if (!path) { *err = PM_EINVAL; return NULL; }
  struct pd_writer *w = calloc(1, sizeof *w);
  if (!w) { *err = PM_ENOMEM; return NULL; }
  w->f = fopen(path, "wb");
  if (!w->f) { *err = errno_code(errno); free(w); return NULL; }
  w_header(w, NULL);
  if (w->err) {
    *err = w->err;
    fclose(w->f);
    free(w);
    return NULL;
  }
  *err = 0;
  return w;
}

int pd_writer_add_event(struct pd_writer *w, const struct perf_event_attr *attr,
                        const char *name, const uint64_t *ids, size_t nids)
{
  if (!w || !attr || w->started || (nids && !ids) || nids > (1u << 20)) return PM_EINVAL;
  if (w->nev > 0) {
    const struct perf_event_attr *a0 = &w->ev[0].attr;
    int p0 = sample_id_pos(a0->sample_type), t0 = trailer_id_pos(a0->sample_type);
    if (attr->sample_id_all != a0->sample_id_all || p0 < 0 || t0 < 0 ||
        sample_id_pos(attr->sample_type) != p0 || trailer_id_pos(attr->sample_type) != t0)
      return PM_EINVAL;
  }
  struct wevent *ev = realloc(w->ev, (w->nev + 1) * sizeof *ev);
  if (!ev) return PM_ENOMEM;
  w->ev = ev;
  struct wevent *e = &ev[w->nev];
  memset(e, 0, sizeof *e);
  memcpy(&e->attr, attr, sizeof e->attr);
  memset((char *)&e->attr + PD_ATTR_SIZE, 0, sizeof e->attr - PD_ATTR_SIZE);
  e->attr.size = PD_ATTR_SIZE;
  char def[64];
  if (!name) pd_event_name(&e->attr, def, sizeof def);
  e->name = strdup(name ? name : def);
  e->ids = malloc(nids ? nids * 8 : 1);
  if (!e->name || !e->ids) {
    free(e->name);
    free(e->ids);
    return PM_ENOMEM;
  }
  if (nids) memcpy(e->ids, ids, nids * 8);
  e->nids = nids;
  w->nev++;
  return 0;
}

/* The event a SAMPLE being written belongs to, or NULL. */
static const struct wevent *w_sample_event(const struct pd_writer *w, const struct perf_event_header *rec)
{
  if (w->nev == 1) return &w->ev[0];
  if (w->nev == 0) return NULL;
  int pos = sample_id_pos(w->ev[0].attr.sample_type);
  if (pos < 0 || (size_t)(rec->size - 8) / 8 <= (size_t)pos) return NULL;
  uint64_t id = rd64((const uint8_t *)rec + 8 + 8 * (size_t)pos);
  for (size_t i = 0; i < w->nev; i++)
    for (size_t j = 0; j < w->ev[i].nids; j++)
      if (w->ev[i].ids[j] == id) return &w->ev[i];
  return NULL;
}

/* Keeps the first and last sample times for the SAMPLE_TIME feature. */
static void w_note_time(struct pd_writer *w, const struct perf_event_header *rec)
{
  const struct wevent *e = w_sample_event(w, rec);
  if (!e || !(e->attr.sample_type & PERF_SAMPLE_TIME)) return;
  uint64_t st = e->attr.sample_type;
  size_t pos = !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID);
  if ((size_t)(rec->size - 8) / 8 <= pos) return;
  uint64_t t = rd64((const uint8_t *)rec + 8 + 8 * pos);
  if (!w->have_time || t < w->first_time) w->first_time = t;
  if (!w->have_time || t > w->last_time) w->last_time = t;
  w->have_time = true;
}

/* True when the events can be told apart: with several, each needs ids. */
static bool w_events_ok(const struct pd_writer *w)
{
  for (size_t i = 0; w->nev > 1 && i < w->nev; i++)
    if (w->ev[i].nids == 0) return false;
  return true;
}

int pd_writer_record(struct pd_writer *w, const struct perf_event_header *rec)
{
  if (!w || !rec || rec->size < sizeof *rec || rec->size % 8) return PM_EINVAL;
  if (!w->started && !w_events_ok(w)) return PM_EINVAL;
  if (!w->started) w_start(w);
  if (w->err) return w->err;
  w_put(w, rec, rec->size);
  if (w->err) return w->err;
  w->data_size += rec->size;
  PM_ASSERT(w->data_size % 8 == 0);
  if (rec->type == PERF_RECORD_SAMPLE) w_note_time(w, rec);
  return 0;
}

int pd_writer_auxtrace(struct pd_writer *w, const struct pd_auxtrace *a, const void *data)
{
  if (!w || !a || a->size % 8 || (a->size && !data)) return PM_EINVAL;
  uint8_t rec[PD_AUXTRACE_SIZE];
  struct perf_event_header h = { .type = PD_RECORD_AUXTRACE, .size = PD_AUXTRACE_SIZE };
  memcpy(rec, &h, 8);
  memcpy(rec + 8, &a->size, 8);
  memcpy(rec + 16, &a->offset, 8);
  memcpy(rec + 24, &a->reference, 8);
  uint32_t v[4] = { a->idx, a->tid, a->cpu, 0 };
  memcpy(rec + 32, v, 16);
  int e = pd_writer_record(w, (const struct perf_event_header *)rec);
  if (e) return e;
  w_put(w, data, a->size);
  if (w->err) return w->err;
  w->data_size += a->size;
  PM_ASSERT(w->data_size % 8 == 0);
  return 0;
}

int pd_writer_auxtrace_info(struct pd_writer *w, uint32_t type, const uint64_t *priv, size_t npriv)
{
  uint8_t rec[16 + 8 * PD_AUXTRACE_INFO_MAX] = { 0 };
  if (npriv > PD_AUXTRACE_INFO_MAX) return PM_EINVAL;
  struct perf_event_header h = { .type = PD_RECORD_AUXTRACE_INFO, .size = (uint16_t)(16 + 8 * npriv) };
  memcpy(rec, &h, 8);
  memcpy(rec + 8, &type, 4);
  if (npriv) memcpy(rec + 16, priv, 8 * npriv);
  return pd_writer_record(w, (const struct perf_event_header *)rec);
}

/* Replaces *dst by a copy of src (NULL clears). Returns 0 or PM_ENOMEM. */
static int set_str(char **dst, const char *src)
{
  char *c = src ? strdup(src) : NULL;
  if (src && !c) return PM_ENOMEM;
  free(*dst);
  *dst = c;
  return 0;
}

static void free_argv(struct pd_writer *w)
{
  for (int i = 0; i < w->argc; i++) free(w->argv[i]);
  free(w->argv);
  w->argv = NULL;
  w->argc = 0;
}

int pd_writer_set_env(struct pd_writer *w, const struct pd_env *env)
{
  if (!w || !env || env->argc < 0 || (env->argc > 0 && !env->argv)) return PM_EINVAL;
  const char *s[ENV_CMDLINE] = { env->hostname, env->os_release, env->version, env->arch,
                                 env->cpudesc, env->cpuid, env->uarch };
  for (int i = 0; i < ENV_CMDLINE; i++)
    if (set_str(&w->env[i], s[i])) return PM_ENOMEM;
  free_argv(w);
  if (env->argc > 0) {
    w->argv = calloc((size_t)env->argc, sizeof *w->argv);
    if (!w->argv) return PM_ENOMEM;
    for (; w->argc < env->argc; w->argc++) {
      w->argv[w->argc] = strdup(env->argv[w->argc] ? env->argv[w->argc] : "");
      if (!w->argv[w->argc]) return PM_ENOMEM;
    }
  }
  w->cpus_avail = env->nr_cpus_avail;
  w->cpus_online = env->nr_cpus_online;
  w->total_mem_kb = env->total_mem_kb;
  return 0;
}

int pd_writer_add_build_id(struct pd_writer *w, int pid, uint16_t cpumode,
                           const uint8_t *id, size_t id_len, const char *filename)
{
  if (!w || !filename || id_len > 20 || (id_len && !id) ||
      cpumode > PERF_RECORD_MISC_CPUMODE_MASK)
    return PM_EINVAL;
  struct wbuild_id *b = realloc(w->bid, (w->nbid + 1) * sizeof *b);
  if (!b) return PM_ENOMEM;
  w->bid = b;
  b += w->nbid;
  memset(b, 0, sizeof *b);
  b->pid = pid;
  b->cpumode = cpumode;
  if (id_len) memcpy(b->id, id, id_len);
  b->len = (uint8_t)id_len;
  b->filename = strdup(filename);
  if (!b->filename) return PM_ENOMEM;
  w->nbid++;
  return 0;
}

int pd_writer_set_truth(struct pd_writer *w, const struct pm_truth_entry *e, size_t n)
{
  if (!w || (n && !e)) return PM_EINVAL;
  struct pd_buf *b = &w->truth;
  b->len = 0;
  b->failed = false;
  buf_u32(b, PM_TRUTH_VERSION);
  buf_u32(b, PM_TRUTH_NCOUNTS);
  buf_u64(b, n);
  for (size_t i = 0; i < n; i++) {
    uint64_t mask = 0;
    for (int k = 0; k < PM_TRUTH_NCOUNTS; k++)
      if (e[i].n[k]) mask |= 1ull << k;
    buf_u64(b, e[i].pc);
    buf_put(b, &e[i].pid, 4);
    buf_u32(b, e[i].flags);
    buf_u64(b, mask);
    for (int k = 0; k < PM_TRUTH_NCOUNTS; k++)
      if (e[i].n[k]) buf_u64(b, e[i].n[k]);
  }
  return b->failed ? PM_ENOMEM : 0;
}

/* Appends the payload of feature f to b; returns false when w has none. */
static bool w_feature(const struct pd_writer *w, int f, struct pd_buf *b)
{
  switch (f) {
  case FEAT_BUILD_ID:
    for (size_t i = 0; i < w->nbid; i++) {
      const struct wbuild_id *e = &w->bid[i];
      size_t n = strlen(e->filename) + 1, len = align_up(n, PD_NAME_ALIGN);
      struct perf_event_header h = { 0, (uint16_t)(e->cpumode | PD_MISC_BUILD_ID_SIZE),
                                     (uint16_t)(PD_BUILD_ID_REC + len) };
      if (PD_BUILD_ID_REC + len > UINT16_MAX) continue;   /* perf could not read it either */
      buf_put(b, &h, sizeof h);
      buf_put(b, &e->pid, 4);
      buf_put(b, e->id, 20);
      uint8_t tail[4] = { e->len, 0, 0, 0 };
      buf_put(b, tail, 4);
      buf_put(b, e->filename, n);
      buf_put(b, NULL, len - n);
    }
    return w->nbid > 0;
  case FEAT_NRCPUS:
    buf_u32(b, w->cpus_avail);
    buf_u32(b, w->cpus_online);
    return w->cpus_avail || w->cpus_online;
  case FEAT_CPU_TOPOLOGY: {
    /* write_cpu_topology as Alpha Linux's sysfs gives it (no topology.h:
     * every CPU its own package and core, core_id 0, physical_package_id
     * -1); no die lists, which perf writes only for x86 and s390. */
    char cpu[16];
    for (int list = 0; list < 2; list++) {   /* package lists, then core lists */
      buf_u32(b, w->cpus_avail);
      for (uint32_t i = 0; i < w->cpus_avail; i++) {
        snprintf(cpu, sizeof cpu, "%u", i);
        buf_string(b, cpu);
      }
    }
    for (uint32_t i = 0; i < w->cpus_avail; i++) {
      buf_u32(b, 0);                 /* core_id */
      buf_u32(b, UINT32_MAX);        /* socket_id: physical_package_id -1 */
    }
    return w->cpus_avail > 0;
  }
  case FEAT_TOTAL_MEM:
    buf_u64(b, w->total_mem_kb);
    return w->total_mem_kb != 0;
  case FEAT_CMDLINE:
    buf_u32(b, (uint32_t)w->argc);
    for (int i = 0; i < w->argc; i++) buf_string(b, w->argv[i]);
    return w->argc > 0;
  case FEAT_EVENT_DESC:
    buf_u32(b, (uint32_t)w->nev);
    buf_u32(b, PD_ATTR_SIZE);
    for (size_t i = 0; i < w->nev; i++) {
      buf_put(b, &w->ev[i].attr, PD_ATTR_SIZE);
      buf_u32(b, (uint32_t)w->ev[i].nids);
      buf_string(b, w->ev[i].name);
      buf_put(b, w->ev[i].ids, w->ev[i].nids * 8);
    }
    return w->nev > 0;
  case FEAT_SAMPLE_TIME:
    buf_u64(b, w->first_time);
    buf_u64(b, w->last_time);
    return w->have_time;
  case FEAT_TRUTH:
    buf_put(b, w->truth.p, w->truth.len);
    if (w->truth.failed) b->failed = true;
    return w->truth.len > 0 || w->truth.failed;
  default:
    for (int k = 0; k < ENV_CMDLINE; k++) {
      if (env_feats[k] == f && w->env[k]) {
        buf_string(b, w->env[k]);
        return true;
      }
    }
    return false;
  }
}

/* Writes the feature table and payloads after the data section; fills the
 * bitmap. Returns 0 or PM_E*. */
static int w_features(struct pd_writer *w, uint64_t features[FEAT_BITS / 64])
{
  static const int order[] = {
    FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH, FEAT_NRCPUS,
    FEAT_CPUDESC, FEAT_CPUID, FEAT_TOTAL_MEM, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_CPU_TOPOLOGY,
    FEAT_SAMPLE_TIME, FEAT_TRUTH, FEAT_UARCH,
  };
  enum { N = sizeof order / sizeof order[0] };
  struct pd_buf b[N];
  struct pd_section sec[N];
  int feat[N], n = 0, ret = 0;
  memset(b, 0, sizeof b);
  for (int i = 0; i < N; i++) {
    if (!w_feature(w, order[i], &b[n])) {
      b[n].len = 0;               /* nothing to say: reuse the buffer */
      b[n].failed = false;
      continue;
    }
    if (b[n].failed) ret = PM_ENOMEM;
    feat[n++] = order[i];
  }
  uint64_t off = w->data_off + w->data_size + (uint64_t)n * sizeof(struct pd_section);
  for (int i = 0; i < n; i++) {
    sec[i].offset = off;
    sec[i].size = b[i].len;
    PM_ASSERT(off % 8 == 0);
    off += align_up(b[i].len, 8);
  }
  if (!ret) {
    w_put(w, sec, (size_t)n * sizeof sec[0]);
    for (int i = 0; i < n; i++) {
      w_put(w, b[i].p, b[i].len);
      w_put(w, "\0\0\0\0\0\0\0", align_up(b[i].len, 8) - b[i].len);
    }
    for (int i = 0; i < n; i++) features[feat[i] / 64] |= 1ull << (feat[i] % 64);
  }
  for (int i = 0; i < N; i++) free(b[i].p);
  return ret;
}

static void w_free(struct pd_writer *w)
{
  for (size_t i = 0; i < w->nev; i++) {
    free(w->ev[i].name);
    free(w->ev[i].ids);
  }
  free(w->ev);
  for (size_t i = 0; i < w->nbid; i++) free(w->bid[i].filename);
  free(w->bid);
  for (int i = 0; i < ENV_CMDLINE; i++) free(w->env[i]);
  free_argv(w);
  free(w->truth.p);
  free(w);
}

int pd_writer_close(struct pd_writer *w)
{
  if (!w) return PM_EINVAL;
  int ret = PM_EINVAL;          /* events that cannot be told apart: leave the provisional header */
  if (w->started || w_events_ok(w)) {
    if (!w->started) w_start(w);
    uint64_t features[FEAT_BITS / 64] = { 0 };
    ret = w->err ? w->err : w_features(w, features);
    if (ret) memset(features, 0, sizeof features);
    /* The header last: without features on error, the records stay readable. */
    int io = w->err;
    w->err = 0;
    w_header(w, features);
    if (!ret) ret = io ? io : w->err;
  }
  if (fclose(w->f) != 0 && !ret) ret = errno_code(errno);
  w_free(w);
  return ret;
}

/* ---- ELF build-id ---- */

/* Copies the GNU build-id from the notes of one Elf_Data; returns its length. */
static size_t note_build_id(Elf_Data *d, uint8_t id[20])
{
  GElf_Nhdr nh;
  size_t off = 0, name_off, desc_off, next;
  while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
    if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
        memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz > 0) {
      size_t n = nh.n_descsz < 20 ? nh.n_descsz : 20;
      memcpy(id, (const char *)d->d_buf + desc_off, n);
      return n;
    }
    off = next;
  }
  return 0;
}

size_t pd_elf_build_id(const char *path, uint8_t id[20])
{
  if (!path || elf_version(EV_CURRENT) == EV_NONE) return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  size_t n = 0;
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if (elf && elf_kind(elf) == ELF_K_ELF) {
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while (!n && (scn = elf_nextscn(elf, scn)) != NULL) {
      Elf_Data *d;
      if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE && (d = elf_getdata(scn, NULL)))
        n = note_build_id(d, id);
    }
    size_t phnum = 0;
    if (!n && elf_getphdrnum(elf, &phnum) == 0) {
      for (size_t i = 0; !n && i < phnum; i++) {
        GElf_Phdr ph;
        Elf_Data *d;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_NOTE &&
            (d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR)))
          n = note_build_id(d, id);
      }
    }
  }
  elf_end(elf);
  close(fd);
  return n;
}

/* ======================================================================
 * Reader
 * ====================================================================== */

struct idmap { uint64_t id; size_t ev; };

struct pd_reader {
  const uint8_t *map;
  size_t size;
  bool mapped;                   /* map is ours to munmap */
  uint64_t data_off, data_size, pos;
  struct pd_event *ev;
  size_t nev;
  char **names;                  /* owned; ev[i].name points here */
  struct idmap *ids;             /* sorted by id */
  size_t nids;
  int id_pos, is_pos;            /* common id positions (-1: none) */
  char *env[ENV_N];
  bool have_num[5];
  uint64_t num[5];               /* nr_cpus_avail, nr_cpus_online, total_mem, first/last sample time */
  struct pd_build_id *bid;
  size_t nbid;
  struct pm_truth_entry *truth;  /* PROFILEME_TRUTH entries */
  size_t ntruth;
  bool have_truth;
  int err;                       /* sticky data-section error */
  char errmsg[256];
};

static const char *const num_keys[5] = {
  "nr_cpus_avail", "nr_cpus_online", "total_mem", "first_sample_time", "last_sample_time",
};

/* Formats a message into errbuf and returns code. */
__attribute__((format(printf, 4, 5)))
static int fail(char *errbuf, size_t errlen, int code, const char *fmt, ...)
{
  if (errbuf && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* True when [off, off + len) lies inside the file. */
static bool in_file(const struct pd_reader *r, uint64_t off, uint64_t len)
{
  return off <= r->size && len <= r->size - off;
}

/* Returns the index of the event with sample id `id`, or -1. */
static long find_id(const struct pd_reader *r, uint64_t id)
{
  size_t lo = 0, hi = r->nids;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->ids[mid].id == id) return (long)r->ids[mid].ev;
    if (r->ids[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

static int cmp_idmap(const void *a, const void *b)
{
  uint64_t x = ((const struct idmap *)a)->id, y = ((const struct idmap *)b)->id;
  return x < y ? -1 : x > y;
}

/* Reads the file header and checks the sections it names. */
static int r_header(struct pd_reader *r, struct pd_file_header *h, char *eb, size_t el)
{
  memset(h, 0, sizeof *h);
  if (r->size < 16)
    return fail(eb, el, PM_ECORRUPT, "not a perf.data file: %zu bytes, shorter than any header", r->size);
  memcpy(h, r->map, 16);
  if (h->magic == PD_MAGIC_SWAPPED)
    return fail(eb, el, PM_ECORRUPT, "perf.data written on an opposite-endian host: byte-swapped files are not decoded");
  if (memcmp(r->map, "PERFFILE", 8) == 0)
    return fail(eb, el, PM_ECORRUPT, "legacy perf.data version 1 (magic PERFFILE): not supported");
  if (h->magic != PD_MAGIC)
    return fail(eb, el, PM_ECORRUPT, "not a perf.data file: bad magic (want \"PERFILE2\")");
  if (h->size == PD_PIPE_HEADER)
    return fail(eb, el, PM_ECORRUPT, "pipe-mode perf.data (header size 16): not supported, convert it with perf inject");
  if (h->size != PD_HEADER_SIZE && h->size != PD_HEADER_NOFEAT)
    return fail(eb, el, PM_ECORRUPT, "bad file header size %" PRIu64 " (want %d)", h->size, PD_HEADER_SIZE);
  if (r->size < h->size)
    return fail(eb, el, PM_ECORRUPT, "file of %zu bytes truncated inside its %" PRIu64 "-byte header",
                r->size, h->size);
  memcpy(h, r->map, h->size);
  if (h->attr_size < PERF_ATTR_SIZE_VER0 + sizeof(struct pd_section) || h->attr_size > 4096)
    return fail(eb, el, PM_ECORRUPT, "bad attr_size %" PRIu64 " in the file header", h->attr_size);
  if (!in_file(r, h->attrs.offset, h->attrs.size))
    return fail(eb, el, PM_ECORRUPT, "attribute section (offset %" PRIu64 ", size %" PRIu64
                ") lies outside the file (%zu bytes)", h->attrs.offset, h->attrs.size, r->size);
  if (h->attrs.size == 0)
    return fail(eb, el, PM_ECORRUPT, "no events: the attribute section is empty (writer interrupted?)");
  if (!in_file(r, h->data.offset, h->data.size))
    return fail(eb, el, PM_ECORRUPT, "data section (offset %" PRIu64 ", size %" PRIu64
                ") lies outside the file (%zu bytes)", h->data.offset, h->data.size, r->size);
  if (h->data.offset % 8)
    return fail(eb, el, PM_ECORRUPT, "data section offset %" PRIu64 " is not 8-byte aligned", h->data.offset);
  if (h->data.size == 0)
    return fail(eb, el, PM_ECORRUPT, "data size is 0: the writer did not finish (was perf record properly terminated?)");
  r->data_off = h->data.offset;
  r->data_size = h->data.size;
  return 0;
}

/* Reads the attribute section: events, their ids, the id index. */
static int r_attrs(struct pd_reader *r, const struct pd_file_header *h, char *eb, size_t el)
{
  if (h->attrs.size >= PERF_ATTR_SIZE_VER0) {    /* the first attr says which attr_size is wrong */
    uint32_t asz = rd32(r->map + h->attrs.offset + offsetof(struct perf_event_attr, size));
    if (asz && (uint64_t)asz + sizeof(struct pd_section) != h->attr_size)
      return fail(eb, el, PM_ECORRUPT, "attr_size %" PRIu64 " in the file header does not match "
                  "attr.size %u + 16 of the first event", h->attr_size, asz);
  }
  if (h->attrs.size % h->attr_size)
    return fail(eb, el, PM_ECORRUPT, "attribute section size %" PRIu64 " is not a multiple of attr_size %" PRIu64,
                h->attrs.size, h->attr_size);
  size_t n = h->attrs.size / h->attr_size;
  r->ev = calloc(n, sizeof *r->ev);
  r->names = calloc(n, sizeof *r->names);
  if (!r->ev || !r->names) return PM_ENOMEM;
  r->nev = n;
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t at = h->attrs.offset + i * h->attr_size;
    PM_ASSERT(in_file(r, at, h->attr_size));   /* only bytes bounds-checked against the file */
    const uint8_t *p = r->map + at;
    uint32_t asz = rd32(p + offsetof(struct perf_event_attr, size));
    if (asz == 0) asz = PERF_ATTR_SIZE_VER0;
    if ((uint64_t)asz + sizeof(struct pd_section) != h->attr_size)
      return fail(eb, el, PM_ECORRUPT, "event %zu: attr.size %u at offset %" PRIu64
                  " does not match attr_size %" PRIu64 " (attr.size + 16) in the file header",
                  i, asz, at, h->attr_size);
    struct perf_event_attr *a = &r->ev[i].attr;
    memcpy(a, p, asz < sizeof *a ? asz : sizeof *a);
    a->size = asz;
    struct pd_section ids;
    memcpy(&ids, p + asz, sizeof ids);
    if (!in_file(r, ids.offset, ids.size) || ids.size % 8)
      return fail(eb, el, PM_ECORRUPT, "event %zu: ids array (offset %" PRIu64 ", size %" PRIu64
                  ") lies outside the file or is not a whole number of u64", i, ids.offset, ids.size);
    if (a->sample_type & ~(uint64_t)(PERF_SAMPLE_MAX - 1))
      return fail(eb, el, PM_ECORRUPT, "event %zu: sample_type 0x%" PRIx64 " has bits this reader does not know",
                  i, (uint64_t)a->sample_type);
    uint64_t *v = ids.size ? malloc(ids.size) : NULL;
    if (ids.size && !v) return PM_ENOMEM;
    if (v) memcpy(v, r->map + ids.offset, ids.size);
    r->ev[i].ids = v;
    r->ev[i].nids = ids.size / 8;
    total += ids.size / 8;
  }
  r->ids = calloc(total ? total : 1, sizeof *r->ids);
  if (!r->ids) return PM_ENOMEM;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < r->ev[i].nids; j++) r->ids[r->nids++] = (struct idmap){ r->ev[i].ids[j], i };
  qsort(r->ids, r->nids, sizeof *r->ids, cmp_idmap);
  for (size_t k = 1; k < r->nids; k++)
    if (r->ids[k].id == r->ids[k - 1].id && r->ids[k].ev != r->ids[k - 1].ev)
      return fail(eb, el, PM_ECORRUPT, "sample id %" PRIu64 " belongs to both event %zu and event %zu",
                  r->ids[k].id, r->ids[k - 1].ev, r->ids[k].ev);
  return 0;
}

/* Checks that several events agree on where ids are (as perf's
 * evlist__valid_sample_type / _sample_id_all do). */
static int r_check_ids(struct pd_reader *r, char *eb, size_t el)
{
  uint64_t st0 = r->ev[0].attr.sample_type;
  r->id_pos = sample_id_pos(st0);
  r->is_pos = trailer_id_pos(st0);
  if (r->nev == 1) return 0;
  if (r->id_pos < 0 || r->is_pos < 0)
    return fail(eb, el, PM_ECORRUPT, "%zu events but event 0 has no sample id (PERF_SAMPLE_ID or IDENTIFIER): "
                "samples cannot be told apart (perf: non matching sample_type)", r->nev);
  for (size_t i = 1; i < r->nev; i++) {
    const struct perf_event_attr *a = &r->ev[i].attr;
    if (sample_id_pos(a->sample_type) != r->id_pos || trailer_id_pos(a->sample_type) != r->is_pos)
      return fail(eb, el, PM_ECORRUPT, "event %zu keeps its sample id elsewhere than event 0 "
                  "(perf: non matching sample_type)", i);
    if (a->sample_id_all != r->ev[0].attr.sample_id_all)
      return fail(eb, el, PM_ECORRUPT, "event %zu: sample_id_all differs from event 0 "
                  "(perf: non matching sample_id_all)", i);
  }
  return 0;
}

/* A bounded cursor over one feature payload. */
struct fcur { const uint8_t *p, *end; int feat; };

/* Reads a perf string (u32 len; char[len]) into a new NUL-terminated copy. */
static int f_string(struct fcur *c, char **out, char *eb, size_t el)
{
  if (c->end - c->p < 4)
    return fail(eb, el, PM_ECORRUPT, "feature %s: string length runs past the section end", feat_name(c->feat));
  uint32_t len = rd32(c->p);
  if ((uint64_t)len > (uint64_t)(c->end - c->p - 4))
    return fail(eb, el, PM_ECORRUPT, "feature %s: string of %u bytes runs past the section end",
                feat_name(c->feat), len);
  *out = strndup((const char *)c->p + 4, len);
  if (!*out) return PM_ENOMEM;
  c->p += 4 + (size_t)len;
  return 0;
}

/* Checks that n more bytes are in the section. */
static int f_need(struct fcur *c, uint64_t n, const char *what, char *eb, size_t el)
{
  if (n > (uint64_t)(c->end - c->p))
    return fail(eb, el, PM_ECORRUPT, "feature %s: %s runs past the section end", feat_name(c->feat), what);
  return 0;
}

/* CMDLINE: u32 nr, then nr strings; joined by spaces. */
static int f_cmdline(struct pd_reader *r, struct fcur *c, char *eb, size_t el)
{
  int err = f_need(c, 4, "argument count", eb, el);
  if (err) return err;
  uint32_t nr = rd32(c->p);
  c->p += 4;
  size_t len = 0;
  char *all = calloc(1, 1);
  if (!all) return PM_ENOMEM;
  for (uint32_t i = 0; i < nr; i++) {
    char *s;
    if ((err = f_string(c, &s, eb, el))) { free(all); return err; }
    size_t n = strlen(s);
    char *t = realloc(all, len + n + 2);
    if (!t) { free(s); free(all); return PM_ENOMEM; }
    all = t;
    if (i) all[len++] = ' ';
    memcpy(all + len, s, n + 1);
    len += n;
    free(s);
  }
  r->env[ENV_CMDLINE] = all;
  return 0;
}

/* BUILD_ID: a sequence of perf_record_header_build_id entries. */
static int f_build_ids(struct pd_reader *r, struct fcur *c, char *eb, size_t el)
{
  while (c->p < c->end) {
    int err = f_need(c, PD_BUILD_ID_REC, "build-id entry", eb, el);
    if (err) return err;
    struct perf_event_header h;
    memcpy(&h, c->p, sizeof h);
    if (h.size < PD_BUILD_ID_REC)
      return fail(eb, el, PM_ECORRUPT, "feature BUILD_ID: entry size %u too small", h.size);
    if ((err = f_need(c, h.size, "build-id entry", eb, el))) return err;
    struct pd_build_id *b = realloc(r->bid, (r->nbid + 1) * sizeof *b);
    if (!b) return PM_ENOMEM;
    r->bid = b;
    b += r->nbid;
    memset(b, 0, sizeof *b);
    int32_t pid;
    memcpy(&pid, c->p + 8, 4);
    b->pid = pid;
    b->cpumode = h.misc & PERF_RECORD_MISC_CPUMODE_MASK;
    memcpy(b->id, c->p + 12, 20);
    b->id_len = 20;
    if ((h.misc & PD_MISC_BUILD_ID_SIZE) && c->p[32] <= 20) b->id_len = c->p[32];
    char *name = strndup((const char *)c->p + PD_BUILD_ID_REC, h.size - PD_BUILD_ID_REC);
    if (!name) return PM_ENOMEM;
    b->filename = name;
    r->nbid++;
    c->p += h.size;
  }
  return 0;
}

/* EVENT_DESC: names matched to events by their first id (or by position when
 * the entry has none). */
static int f_event_desc(struct pd_reader *r, struct fcur *c, char *eb, size_t el)
{
  int err = f_need(c, 8, "event count", eb, el);
  if (err) return err;
  uint32_t nr = rd32(c->p), sz = rd32(c->p + 4);
  c->p += 8;
  if (sz < PERF_ATTR_SIZE_VER0 && nr)
    return fail(eb, el, PM_ECORRUPT, "feature EVENT_DESC: attr size %u too small", sz);
  for (uint32_t i = 0; i < nr; i++) {
    if ((err = f_need(c, (uint64_t)sz + 4, "event attr", eb, el))) return err;
    c->p += sz;
    uint32_t nids = rd32(c->p);
    c->p += 4;
    char *name;
    if ((err = f_string(c, &name, eb, el))) return err;
    if ((err = f_need(c, (uint64_t)nids * 8, "event ids", eb, el))) { free(name); return err; }
    long ev = r->nev == 1 ? 0 : nids ? find_id(r, rd64(c->p)) : (i < r->nev ? (long)i : -1);
    c->p += (size_t)nids * 8;
    if (ev >= 0 && !r->names[ev]) r->names[ev] = name;
    else free(name);
  }
  return 0;
}

/* PROFILEME_TRUTH (pm_truth.h): checked entry by entry, so that a count
 * that cannot be (more instances with a status than fetched) is an error,
 * not a figure. */
static int f_truth(struct pd_reader *r, struct fcur *c, char *eb, size_t el)
{
  int err = f_need(c, 16, "header", eb, el);
  if (err) return err;
  uint32_t ver = rd32(c->p), ncnt = rd32(c->p + 4);
  uint64_t n = rd64(c->p + 8);
  c->p += 16;
  if (ver != PM_TRUTH_VERSION)
    return fail(eb, el, PM_ECORRUPT, "feature PROFILEME_TRUTH: version %u (this reader knows %d)", ver, PM_TRUTH_VERSION);
  if (ncnt < PM_TRUTH_NCOUNTS || ncnt > 64)
    return fail(eb, el, PM_ECORRUPT, "feature PROFILEME_TRUTH: %u counters per entry (want %d to 64)", ncnt, PM_TRUTH_NCOUNTS);
  if (n > (uint64_t)(c->end - c->p) / 24)
    return fail(eb, el, PM_ECORRUPT, "feature PROFILEME_TRUTH: %" PRIu64 " entries cannot fit in %zu bytes",
                n, (size_t)(c->end - c->p));
  r->truth = calloc(n ? n : 1, sizeof *r->truth);
  if (!r->truth) return PM_ENOMEM;
  r->have_truth = true;
  for (uint64_t i = 0; i < n; i++) {
    if ((err = f_need(c, 24, "entry", eb, el))) return err;
    struct pm_truth_entry *e = &r->truth[r->ntruth];
    e->pc = rd64(c->p);
    memcpy(&e->pid, c->p + 8, 4);
    e->flags = rd32(c->p + 12);
    uint64_t mask = rd64(c->p + 16);
    c->p += 24;
    if (e->flags & ~PM_TRUTH_KERNEL)
      return fail(eb, el, PM_ECORRUPT, "feature PROFILEME_TRUTH: entry %" PRIu64 " has unknown flags 0x%x", i, e->flags);
    if (ncnt < 64 && mask >> ncnt)
      return fail(eb, el, PM_ECORRUPT, "feature PROFILEME_TRUTH: entry %" PRIu64 " names counters past the %u declared", i, ncnt);
    if ((err = f_need(c, 8ull * (unsigned)__builtin_popcountll(mask), "entry counts", eb, el))) return err;
    for (unsigned k = 0; k < ncnt; k++) {
      if (!(mask >> k & 1)) continue;
      if (k < PM_TRUTH_NCOUNTS) e->n[k] = rd64(c->p);
      c->p += 8;
    }
    for (int b = 0; b < PM_TRUTH_NBITS; b++)
      if (e->n[PM_TRUTH_ALL(b)] > e->n[PM_TRUTH_FETCHED] || e->n[PM_TRUTH_RET(b)] > e->n[PM_TRUTH_ALL(b)])
        return fail(eb, el, PM_ECORRUPT, "feature PROFILEME_TRUTH: entry %" PRIu64 " (pc 0x%" PRIx64
                    ") counts more instances with status bit %d than it fetched", i, e->pc, b);
    r->ntruth++;
  }
  if (c->p != c->end)
    return fail(eb, el, PM_ECORRUPT, "feature PROFILEME_TRUTH: %zu bytes after the last entry", (size_t)(c->end - c->p));
  return 0;
}

/* Parses one feature section (those this reader uses; others are skipped). */
static int r_feature(struct pd_reader *r, int f, struct pd_section s, char *eb, size_t el)
{
  PM_ASSERT(in_file(r, s.offset, s.size));   /* r_features checked it */
  struct fcur c = { r->map + s.offset, r->map + s.offset + s.size, f };
  for (int k = 0; k < ENV_CMDLINE; k++)
    if (env_feats[k] == f) return r->env[k] ? 0 : f_string(&c, &r->env[k], eb, el);
  int err = 0;
  switch (f) {
  case FEAT_CMDLINE: return r->env[ENV_CMDLINE] ? 0 : f_cmdline(r, &c, eb, el);
  case FEAT_BUILD_ID: return f_build_ids(r, &c, eb, el);
  case FEAT_EVENT_DESC: return f_event_desc(r, &c, eb, el);
  case FEAT_TRUTH: return r->have_truth ? 0 : f_truth(r, &c, eb, el);
  case FEAT_NRCPUS:
    if ((err = f_need(&c, 8, "cpu counts", eb, el))) return err;
    r->num[0] = rd32(c.p), r->num[1] = rd32(c.p + 4);
    r->have_num[0] = r->have_num[1] = true;
    return 0;
  case FEAT_TOTAL_MEM:
    if ((err = f_need(&c, 8, "memory size", eb, el))) return err;
    r->num[2] = rd64(c.p);
    r->have_num[2] = true;
    return 0;
  case FEAT_SAMPLE_TIME:
    if ((err = f_need(&c, 16, "sample times", eb, el))) return err;
    r->num[3] = rd64(c.p), r->num[4] = rd64(c.p + 8);
    r->have_num[3] = r->have_num[4] = true;
    return 0;
  default:
    return 0;
  }
}

/* Reads the feature section table after the data section and each feature. */
static int r_features(struct pd_reader *r, const struct pd_file_header *h, char *eb, size_t el)
{
  if (h->size != PD_HEADER_SIZE) return 0;
  int nfeat = 0;
  for (int i = 0; i < FEAT_BITS / 64; i++) nfeat += __builtin_popcountll(h->features[i]);
  uint64_t table = r->data_off + r->data_size;
  if (!in_file(r, table, (uint64_t)nfeat * sizeof(struct pd_section)))
    return fail(eb, el, PM_ECORRUPT, "feature section table (%d entries at offset %" PRIu64
                ") runs past the end of the file (%zu bytes): truncated file?", nfeat, table, r->size);
  const uint8_t *t = r->map + table;
  for (int f = 0; f < FEAT_BITS; f++) {
    if (!(h->features[f / 64] >> (f % 64) & 1)) continue;
    struct pd_section s;
    memcpy(&s, t, sizeof s);
    t += sizeof s;
    if (!in_file(r, s.offset, s.size))
      return fail(eb, el, PM_ECORRUPT, "feature %s section (offset %" PRIu64 ", size %" PRIu64
                  ") lies outside the file (%zu bytes)", feat_name(f), s.offset, s.size, r->size);
    int err = r_feature(r, f, s, eb, el);
    if (err) return err;
  }
  return 0;
}

/* Gives every event without an EVENT_DESC name its perf-style default. */
static int r_names(struct pd_reader *r)
{
  for (size_t i = 0; i < r->nev; i++) {
    if (!r->names[i]) {
      char buf[96];
      pd_event_name(&r->ev[i].attr, buf, sizeof buf);
      if (!(r->names[i] = strdup(buf))) return PM_ENOMEM;
    }
    r->ev[i].name = r->names[i];
  }
  return 0;
}

/* Opens a reader over size bytes at map (owned when mapped). */
static struct pd_reader *r_open(const uint8_t *map, size_t size, bool mapped, int *err,
                                char *eb, size_t el)
{
  struct pd_reader *r = calloc(1, sizeof *r);
  if (!r) {
    if (mapped) munmap((void *)map, size);
    *err = fail(eb, el, PM_ENOMEM, "out of memory");
    return NULL;
  }
  r->map = map, r->size = size, r->mapped = mapped;
  struct pd_file_header h;
  int e = r_header(r, &h, eb, el);
  if (!e) e = r_attrs(r, &h, eb, el);
  if (!e) e = r_check_ids(r, eb, el);
  if (!e) e = r_features(r, &h, eb, el);
  if (!e) e = r_names(r);
  if (e == PM_ENOMEM) fail(eb, el, e, "out of memory");
  *err = e;
  if (e) {
    pd_reader_close(r);
    return NULL;
  }
  return r;
}

struct pd_reader *pd_reader_open(const char *path, int *err, char *errbuf, size_t errlen)
{
  int dummy;
  if (!err) err = &dummy;
  if (!path) { *err = fail(errbuf, errlen, PM_EINVAL, "no file name"); return NULL; }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    *err = fail(errbuf, errlen, errno_code(e), "%s: %s", path, strerror(e));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    *err = fail(errbuf, errlen, PM_EINVAL, "%s: not a regular file", path);
    return NULL;
  }
  if (st.st_size == 0) {
    close(fd);
    *err = fail(errbuf, errlen, PM_ECORRUPT, "%s: empty file", path);
    return NULL;
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (map == MAP_FAILED) {
    *err = fail(errbuf, errlen, errno_code(e), "%s: mmap: %s", path, strerror(e));
    return NULL;
  }
  return r_open(map, (size_t)st.st_size, true, err, errbuf, errlen);
}

struct pd_reader *pd_reader_open_mem(const void *buf, size_t len, int *err, char *errbuf, size_t errlen)
{
  int dummy;
  if (!err) err = &dummy;
  if (!buf || (uintptr_t)buf % 8) {
    *err = fail(errbuf, errlen, PM_EINVAL, "buffer missing or not 8-byte aligned");
    return NULL;
  }
  return r_open(buf, len, false, err, errbuf, errlen);
}

void pd_reader_close(struct pd_reader *r)
{
  if (!r) return;
  for (size_t i = 0; i < r->nev; i++) {
    free((void *)r->ev[i].ids);
    free(r->names[i]);
  }
  free(r->ev);
  free(r->names);
  free(r->ids);
  for (int i = 0; i < ENV_N; i++) free(r->env[i]);
  for (size_t i = 0; i < r->nbid; i++) free((void *)r->bid[i].filename);
  free(r->bid);
  free(r->truth);
  if (r->mapped) munmap((void *)r->map, r->size);
  free(r);
}

const struct pm_truth_entry *pd_reader_truth(const struct pd_reader *r, size_t *n)
{
  *n = r && r->have_truth ? r->ntruth : 0;
  return r && r->have_truth ? r->truth : NULL;
}

size_t pd_reader_nevents(const struct pd_reader *r) { return r ? r->nev : 0; }

const struct pd_event *pd_reader_event(const struct pd_reader *r, size_t i)
{
  return r && i < r->nev ? &r->ev[i] : NULL;
}

const char *pd_reader_env(const struct pd_reader *r, const char *key)
{
  if (!r || !key) return NULL;
  for (int i = 0; i < ENV_N; i++)
    if (strcmp(key, env_keys[i]) == 0) return r->env[i];
  return NULL;
}

bool pd_reader_env_u64(const struct pd_reader *r, const char *key, uint64_t *val)
{
  if (!r || !key) return false;
  for (int i = 0; i < 5; i++) {
    if (strcmp(key, num_keys[i]) == 0 && r->have_num[i]) {
      if (val) *val = r->num[i];
      return true;
    }
  }
  return false;
}

size_t pd_reader_nbuild_ids(const struct pd_reader *r) { return r ? r->nbid : 0; }

const struct pd_build_id *pd_reader_build_id(const struct pd_reader *r, size_t i)
{
  return r && i < r->nbid ? &r->bid[i] : NULL;
}

/* File offset of a record pointer inside the map (for messages). */
static uint64_t rec_offset(const struct pd_reader *r, const struct perf_event_header *rec)
{
  const uint8_t *p = (const uint8_t *)rec;
  return p >= r->map && p < r->map + r->size ? (uint64_t)(p - r->map) : 0;
}

int pd_reader_next(struct pd_reader *r, const struct perf_event_header **rec,
                   char *errbuf, size_t errlen)
{
  if (!r || !rec) return fail(errbuf, errlen, PM_EINVAL, "no reader");
  *rec = NULL;
  if (r->err) return fail(errbuf, errlen, r->err, "%s", r->errmsg);
  PM_ASSERT(r->pos <= r->data_size && r->pos % 8 == 0 && in_file(r, r->data_off, r->data_size));
  uint64_t left = r->data_size - r->pos, at = r->data_off + r->pos;
  if (left == 0) return 0;
  const uint8_t *p = r->map + at;
  struct perf_event_header h;
  int e = 0;
  if (left < sizeof h) {
    e = fail(r->errmsg, sizeof r->errmsg, PM_ECORRUPT, "record header at offset %" PRIu64
             " truncated: only %" PRIu64 " bytes left in the data section", at, left);
  } else {
    memcpy(&h, p, sizeof h);
    uint64_t extra = 0;
    if (h.size == 0)
      e = fail(r->errmsg, sizeof r->errmsg, PM_ECORRUPT, "record at offset %" PRIu64
               " (type %u) has size 0", at, h.type);
    else if (h.size < sizeof h || h.size % 8)
      e = fail(r->errmsg, sizeof r->errmsg, PM_ECORRUPT, "record at offset %" PRIu64
               " (type %u) has size %u: not a multiple of 8 of at least 8", at, h.type, h.size);
    else if (h.size > left)
      e = fail(r->errmsg, sizeof r->errmsg, PM_ECORRUPT, "record at offset %" PRIu64
               " (type %u, size %u) runs past the end of the data section (%" PRIu64 " bytes left)",
               at, h.type, h.size, left);
    else if (h.type == PD_RECORD_AUXTRACE && h.size >= 16) {
      extra = rd64(p + 8);
      if (extra % 8 || extra > left - h.size)
        e = fail(r->errmsg, sizeof r->errmsg, PM_ECORRUPT, "AUXTRACE record at offset %" PRIu64
                 ": %" PRIu64 " bytes of trace data run past the data section or are not 8-aligned",
                 at, extra);
    }
    if (!e) {
      /* The whole record lies inside the data section, 8-aligned. */
      PM_ASSERT(h.size + extra <= left && (uintptr_t)p % 8 == 0);
      *rec = (const struct perf_event_header *)p;
      r->pos += h.size + extra;
      return 1;
    }
  }
  r->err = e;
  return fail(errbuf, errlen, e, "%s", r->errmsg);
}

/* The event of a SAMPLE (through its id when there are several), or NULL with
 * a message. */
static const struct pd_event *sample_event(const struct pd_reader *r, const struct perf_event_header *rec,
                                           char *eb, size_t el)
{
  if (r->nev == 1) return &r->ev[0];
  size_t words = (rec->size - sizeof *rec) / 8;
  if (words <= (size_t)r->id_pos) {
    fail(eb, el, PM_ECORRUPT, "sample at offset %" PRIu64 " (size %u) too short to hold its id",
         rec_offset(r, rec), rec->size);
    return NULL;
  }
  uint64_t id = rd64((const uint8_t *)rec + 8 + 8 * (size_t)r->id_pos);
  long ev = id ? find_id(r, id) : 0;     /* perf: id 0 = synthesized, first event */
  if (ev < 0) {
    fail(eb, el, PM_ECORRUPT, "sample at offset %" PRIu64 ": id %" PRIu64 " matches no event",
         rec_offset(r, rec), id);
    return NULL;
  }
  return &r->ev[ev];
}

/* A bounded cursor over one sample's fields; bad names the field that did not fit. */
struct scur { const uint8_t *p, *end; const char *bad; const uint8_t *start; };

/* Returns the next n * elsize bytes and advances, or NULL when they do not fit. */
static const uint8_t *take(struct scur *c, uint64_t n, size_t elsize, const char *field)
{
  if (c->bad) return NULL;
  if (n > (uint64_t)(c->end - c->p) / elsize) { c->bad = field; return NULL; }
  const uint8_t *q = c->p;
  c->p += n * elsize;
  return q;
}

static uint64_t take64(struct scur *c, const char *field)
{
  const uint8_t *q = take(c, 1, 8, field);
  return q ? rd64(q) : 0;
}

/* Skips a read_format value block (PERF_SAMPLE_READ). */
static void skip_read(struct scur *c, uint64_t rf)
{
  uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
  uint64_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
  if (rf & PERF_FORMAT_GROUP) {
    uint64_t nr = take64(c, "read group count");
    take(c, times, 8, "read times");
    if (nr > (uint64_t)(c->end - c->p) / 8 / per) c->bad = c->bad ? c->bad : "read group values";
    else take(c, nr * per, 8, "read group values");
  } else {
    take(c, per + times, 8, "read values");
  }
}

/* Reads `u64 abi; u64 regs[popcount(mask)]` (REGS_USER, REGS_INTR); the
 * registers only when abi is not NONE. */
static void take_regs(struct scur *c, uint64_t mask, const char *field, uint64_t *abi, const uint64_t **regs)
{
  *abi = take64(c, field);
  *regs = NULL;
  if (*abi) *regs = (const uint64_t *)take(c, (uint64_t)__builtin_popcountll(mask), 8, field);
}

/* Decodes the fields after the id-bearing ones, in perf_output_sample order. */
static void parse_tail(struct scur *c, const struct perf_event_attr *a, struct pd_sample *s)
{
  uint64_t st = a->sample_type;
  if (st & PERF_SAMPLE_READ) skip_read(c, a->read_format);
  if (st & PERF_SAMPLE_CALLCHAIN) {
    s->callchain_nr = take64(c, "callchain count");
    s->callchain = (const uint64_t *)take(c, s->callchain_nr, 8, "callchain");
    if (!s->callchain) s->callchain_nr = 0;
  }
  if (st & PERF_SAMPLE_RAW) {
    const uint8_t *q = take(c, 1, 4, "raw size");
    if (q) {
      s->raw_size = rd32(q);
      s->raw = take(c, s->raw_size, 1, "raw data");
    }
  }
  if (st & PERF_SAMPLE_BRANCH_STACK) {
    uint64_t nr = take64(c, "branch stack count");
    if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) take64(c, "branch hw_idx");
    take(c, nr > UINT64_MAX / 3 ? UINT64_MAX : nr * 3, 8, "branch stack");
  }
  if (st & PERF_SAMPLE_REGS_USER) {
    s->user_mask = a->sample_regs_user;
    take_regs(c, a->sample_regs_user, "user regs", &s->user_abi, &s->user_regs);
  }
  if (st & PERF_SAMPLE_STACK_USER) {
    s->stack_offset = (uint32_t)(c->p - c->start);
    uint64_t size = take64(c, "user stack size");
    if (size) {
      s->stack = take(c, size, 1, "user stack");
      s->stack_size = s->stack ? size : 0;
      s->stack_dyn_size = take64(c, "user stack dyn_size");
      if (s->stack_dyn_size > s->stack_size) c->bad = c->bad ? c->bad : "user stack dyn_size";
    }
  }
  if (st & PERF_SAMPLE_WEIGHT) s->weight = take64(c, "weight");
  if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
    uint64_t w = take64(c, "weight");
    s->weight = (uint32_t)w;                          /* var1_dw */
    s->ins_lat = (uint16_t)(w >> 32);                 /* var2_w */
  }
  if (st & PERF_SAMPLE_DATA_SRC) s->data_src = take64(c, "data_src");
  if (st & PERF_SAMPLE_TRANSACTION) take64(c, "transaction");
  if (st & PERF_SAMPLE_REGS_INTR) {
    s->intr_mask = a->sample_regs_intr;
    take_regs(c, a->sample_regs_intr, "interrupt regs", &s->intr_abi, &s->intr_regs);
  }
  if (st & PERF_SAMPLE_PHYS_ADDR) take64(c, "phys_addr");
  if (st & PERF_SAMPLE_CGROUP) take64(c, "cgroup");
  if (st & PERF_SAMPLE_DATA_PAGE_SIZE) take64(c, "data_page_size");
  if (st & PERF_SAMPLE_CODE_PAGE_SIZE) take64(c, "code_page_size");
  if (st & PERF_SAMPLE_AUX) {
    uint64_t size = take64(c, "aux size");
    take(c, size, 1, "aux data");
  }
}

int pd_parse_sample(const struct pd_reader *r, const struct perf_event_header *rec,
                    struct pd_sample *s, char *errbuf, size_t errlen)
{
  if (!r || !rec || !s) return fail(errbuf, errlen, PM_EINVAL, "no reader, record or sample");
  memset(s, 0, sizeof *s);
  if (rec->type != PERF_RECORD_SAMPLE)
    return fail(errbuf, errlen, PM_EINVAL, "record type %u is not a SAMPLE", rec->type);
  if (rec->size < sizeof *rec)
    return fail(errbuf, errlen, PM_ECORRUPT, "sample of size %u", rec->size);
  const struct pd_event *ev = sample_event(r, rec, errbuf, errlen);
  if (!ev) return PM_ECORRUPT;
  const struct perf_event_attr *a = &ev->attr;
  uint64_t st = a->sample_type;
  s->event = ev;
  s->sample_type = st;
  s->cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  s->exact_ip = rec->misc & PERF_RECORD_MISC_EXACT_IP;
  struct scur c = { (const uint8_t *)rec + sizeof *rec, (const uint8_t *)rec + rec->size, NULL, (const uint8_t *)rec };
  const uint8_t *q;
  if (st & PERF_SAMPLE_IDENTIFIER) s->id = take64(&c, "identifier");
  if (st & PERF_SAMPLE_IP) s->ip = take64(&c, "ip");
  if ((st & PERF_SAMPLE_TID) && (q = take(&c, 1, 8, "pid/tid"))) s->pid = rd32(q), s->tid = rd32(q + 4);
  if (st & PERF_SAMPLE_TIME) s->time = take64(&c, "time");
  if (st & PERF_SAMPLE_ADDR) s->addr = take64(&c, "addr");
  if (st & PERF_SAMPLE_ID) s->id = take64(&c, "id");
  if (st & PERF_SAMPLE_STREAM_ID) s->stream_id = take64(&c, "stream_id");
  if ((st & PERF_SAMPLE_CPU) && (q = take(&c, 1, 8, "cpu"))) s->cpu = rd32(q);
  /* without PERIOD, the event's own (perf's evsel__parse_sample: a
   * fixed-period event, perf record -c N, samples none) */
  s->period = a->sample_period;
  if (st & PERF_SAMPLE_PERIOD) s->period = take64(&c, "period");
  parse_tail(&c, a, s);
  if (c.bad)
    return fail(errbuf, errlen, PM_ECORRUPT, "sample at offset %" PRIu64 " (event %s, size %u): "
                "field %s runs past the end of the record", rec_offset(r, rec), ev->name, rec->size, c.bad);
  return 0;
}

const struct pd_event *pd_record_event(const struct pd_reader *r, const struct perf_event_header *rec)
{
  if (!r || !rec || rec->size < sizeof *rec) return NULL;
  if (rec->type == PERF_RECORD_SAMPLE) return sample_event(r, rec, NULL, 0);
  if (rec->type >= PD_RECORD_USER_START || !r->ev[0].attr.sample_id_all) return NULL;
  if (r->nev == 1) return &r->ev[0];
  size_t words = (rec->size - sizeof *rec) / 8;
  if (words < (size_t)r->is_pos) return NULL;
  uint64_t id = rd64((const uint8_t *)rec + sizeof *rec + 8 * (words - (size_t)r->is_pos));
  long ev = id ? find_id(r, id) : 0;
  return ev < 0 ? NULL : &r->ev[ev];
}

/* ---- AUX area records (perf's util/auxtrace.c, uapi perf_event.h) ---- */

int pd_parse_auxtrace(const struct perf_event_header *rec, struct pd_auxtrace *a, const uint8_t **data,
                      char *errbuf, size_t errlen)
{
  if (rec->type != PD_RECORD_AUXTRACE) return fail(errbuf, errlen, PM_EINVAL, "not an AUXTRACE record");
  if (rec->size < PD_AUXTRACE_SIZE)
    return fail(errbuf, errlen, PM_ECORRUPT, "AUXTRACE record of %u bytes: it has %d", rec->size, PD_AUXTRACE_SIZE);
  const uint8_t *p = (const uint8_t *)rec;
  a->size = rd64(p + 8);
  a->offset = rd64(p + 16);
  a->reference = rd64(p + 24);
  a->idx = rd32(p + 32);
  a->tid = rd32(p + 36);
  a->cpu = rd32(p + 40);
  *data = p + rec->size;                 /* pd_reader_next checked the payload is in the data section */
  return 0;
}

int pd_parse_auxtrace_info(const struct perf_event_header *rec, uint32_t *type, const uint64_t **priv,
                           size_t *npriv, char *errbuf, size_t errlen)
{
  if (rec->type != PD_RECORD_AUXTRACE_INFO) return fail(errbuf, errlen, PM_EINVAL, "not an AUXTRACE_INFO record");
  if (rec->size < 16)
    return fail(errbuf, errlen, PM_ECORRUPT, "AUXTRACE_INFO record of %u bytes: it has at least 16", rec->size);
  const uint8_t *p = (const uint8_t *)rec;
  *type = rd32(p + 8);
  *priv = (const uint64_t *)(p + 16);    /* records are 8-aligned in the map */
  *npriv = (rec->size - 16u) / 8;
  return 0;
}

int pd_parse_aux(const struct perf_event_header *rec, uint64_t *offset, uint64_t *size, uint64_t *flags,
                 char *errbuf, size_t errlen)
{
  if (rec->type != PERF_RECORD_AUX) return fail(errbuf, errlen, PM_EINVAL, "not an AUX record");
  if (rec->size < 32) return fail(errbuf, errlen, PM_ECORRUPT, "AUX record of %u bytes: it has at least 32", rec->size);
  const uint8_t *p = (const uint8_t *)rec;
  *offset = rd64(p + 8);
  *size = rd64(p + 16);
  *flags = rd64(p + 24);
  return 0;
}

int pd_parse_itrace_start(const struct perf_event_header *rec, uint32_t *pid, uint32_t *tid, char *errbuf, size_t errlen)
{
  if (rec->type != PERF_RECORD_ITRACE_START) return fail(errbuf, errlen, PM_EINVAL, "not an ITRACE_START record");
  if (rec->size < 16)
    return fail(errbuf, errlen, PM_ECORRUPT, "ITRACE_START record of %u bytes: it has at least 16", rec->size);
  const uint8_t *p = (const uint8_t *)rec;
  *pid = rd32(p + 8);
  *tid = rd32(p + 12);
  return 0;
}
