/* The shared pass over a perf.data file; see session.h. Records are handed
 * over in time order when every event has timestamps (perf's ordered
 * events; our recorder writes them in time order already), else in file
 * order. */
#include "analysis/session.h"
#include "perfdata/records.h"
#include "util/err.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the data section's offset from the file header (PERFILE2, either
 * header size); 0 when it cannot. */
static uint64_t read_data_offset(const char *path)
{
  uint64_t hdr[6] = { 0 };
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t n = fread(hdr, 8, 6, f);
  fclose(f);
  if (n < 2 || memcmp(hdr, "PERFILE2", 8)) return 0;
  return hdr[1] == 16 ? 16 : n == 6 ? hdr[5] : 0;
}

int session_open(struct session *s, const char *path, const char *symfs)
{
  int err = 0;
  memset(s, 0, sizeof *s);
  s->path = path ? path : "perf.data";
  s->r = pd_reader_open(s->path, &err, s->err, sizeof s->err);
  if (!s->r) {
    size_t n = strlen(s->path);
    if (strncmp(s->err, s->path, n) || s->err[n] != ':') {   /* name the file once */
      char msg[sizeof s->err];
      snprintf(msg, sizeof msg, "%.200s: %.300s", s->path, s->err[0] ? s->err : pm_strerror(err));
      memcpy(s->err, msg, sizeof msg);
    }
    return err ? err : PM_EIO;
  }
  s->m = sym_machine_create(symfs);
  if (!s->m) {
    pd_reader_close(s->r);
    s->r = NULL;
    snprintf(s->err, sizeof s->err, "%s", pm_strerror(PM_ENOMEM));
    return PM_ENOMEM;
  }
  s->data_offset = read_data_offset(s->path);
  return 0;
}

void session_close(struct session *s)
{
  if (s->r) pd_reader_close(s->r);
  sym_machine_destroy(s->m);
  s->r = NULL;
  s->m = NULL;
}

static uint64_t rd64(const void *p)
{
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

void session_lost_warnings(const struct session *s, char *buf, size_t len)
{
  int n = 0;
  buf[0] = '\0';
  if (s->nr_lost)
    n = snprintf(buf, len, "Warning:\nProcessed %" PRIu64 " events and lost %" PRIu64 " chunks!\n\n"
                 "Check IO/CPU overload!\n\n", s->nr_events, s->nr_lost);
  if (n < 0 || (size_t)n >= len) return;
  uint64_t all = s->nr_samples + s->lost;
  /* perf warns from a drop rate above 5% of the samples (LOST_SAMPLES). */
  if (all && (double)s->lost / (double)all > 0.05)
    snprintf(buf + n, len - (size_t)n, "Warning:\nProcessed %" PRIu64 " samples and lost %3.2f%%!\n\n",
             all, 100.0 * (double)s->lost / (double)all);
}


/* Hands one record over (samples decoded and resolved, side-band records
 * applied to the machine first). */
static int one_record(struct session *s, const struct perf_event_header *h, uint64_t offset, session_fn fn,
                      void *ctx)
{
  char eb[256];
  int rc;
  struct session_rec rec = { h, offset, NULL, { 0 } };
  struct pd_sample smp;
  s->nr_events++;
  if (h->type == PERF_RECORD_SAMPLE) {
    s->nr_samples++;
    int e = pd_parse_sample(s->r, h, &smp, eb, sizeof eb);
    if (e) {
      snprintf(s->err, sizeof s->err, "%s", eb);
      return e;
    }
    rec.sample = &smp;
    sym_resolve(s->m, smp.pid, smp.cpumode, smp.ip, &rec.loc);
  } else {
    uint64_t id, n;
    if (pd_read_lost(h, &id, &n)) { s->lost_events += n; s->nr_lost++; }
    if (pd_read_lost_samples(h, &n)) s->lost += n;
    int e = sym_machine_record(s->m, h);
    if (e) {
      snprintf(s->err, sizeof s->err, "%s record at offset %#" PRIx64 " (size %u): %s",
               session_record_name(h->type), offset, h->size,
               e == PM_ECORRUPT ? "too short for its contents" : pm_strerror(e));
      return e;
    }
  }
  if (fn && (rc = fn(ctx, s, &rec)) != 0) {
    if (!s->err[0]) snprintf(s->err, sizeof s->err, "%s", pm_strerror(rc));
    return rc;
  }
  return 0;
}

/* Whether every event samples TIME and carries it on side-band records:
 * then the records can be put in time order. */
static bool timed(const struct session *s)
{
  size_t n = pd_reader_nevents(s->r);
  for (size_t i = 0; i < n; i++) {
    const struct perf_event_attr *a = &pd_reader_event(s->r, i)->attr;
    if (!(a->sample_type & PERF_SAMPLE_TIME) || !a->sample_id_all) return false;
  }
  return n > 0;
}

struct trec { const struct perf_event_header *h; uint64_t offset, time, seq; };
static int by_time(const void *pa, const void *pb)
{
  const struct trec *a = pa, *b = pb;
  if (a->time != b->time) return a->time < b->time ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* perf's ordered events: a file of several CPU buffers holds records out of
 * time order (a process's MMAP after its first samples on another CPU);
 * perf sorts them by time before use, and so do we. Records without a time
 * keep the time of the one before them (they stay where they are). */
static int run_ordered(struct session *s, session_fn fn, void *ctx)
{
  const struct perf_event_header *h = NULL, *first = NULL;
  struct trec *v = NULL;
  size_t n = 0, cap = 0;
  uint64_t last = 0;
  int rc;
  while ((rc = pd_reader_next(s->r, &h, s->err, sizeof s->err)) == 1) {
    if (!first) first = h;
    if (n == cap) {
      size_t c = cap ? cap * 2 : 4096;
      struct trec *nv = realloc(v, c * sizeof *nv);
      if (!nv) { free(v); return PM_ENOMEM; }
      v = nv;
      cap = c;
    }
    uint64_t t = last;
    struct session_id id;
    struct pd_sample smp;
    char eb[256];
    if (h->type == PERF_RECORD_SAMPLE) {
      if (!pd_parse_sample(s->r, h, &smp, eb, sizeof eb)) t = smp.time;
    } else if (session_record_id(s, h, &id) && (id.has & PERF_SAMPLE_TIME) && id.time) {
      t = id.time;
    }
    last = t;
    v[n] = (struct trec){ h, s->data_offset + (uint64_t)((const char *)h - (const char *)first), t, n };
    n++;
  }
  if (rc == 0) {
    qsort(v, n, sizeof *v, by_time);
    for (size_t i = 0; i < n && !rc; i++) rc = one_record(s, v[i].h, v[i].offset, fn, ctx);
  }
  free(v);
  return rc;
}

int session_run(struct session *s, session_fn fn, void *ctx)
{
  const struct perf_event_header *h = NULL, *first = NULL;   /* NULL: LTO sees no write through pd_reader_next */
  int rc;
  s->err[0] = '\0';
  if (!s->file_order && timed(s)) return run_ordered(s, fn, ctx);
  while ((rc = pd_reader_next(s->r, &h, s->err, sizeof s->err)) == 1) {
    if (!first) first = h;
    if ((rc = one_record(s, h, s->data_offset + (uint64_t)((const char *)h - (const char *)first), fn, ctx)))
      return rc;
  }
  return rc;
}

size_t session_event_index(const struct session *s, const struct pd_event *e)
{
  size_t n = pd_reader_nevents(s->r);
  for (size_t i = 0; i < n; i++)
    if (pd_reader_event(s->r, i) == e) return i;
  return 0;
}

size_t session_max_name(const struct session *s)
{
  size_t max = 0, n = pd_reader_nevents(s->r);
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(pd_reader_event(s->r, i)->name);
    if (l > max) max = l;
  }
  return max;
}

bool session_record_id(const struct session *s, const struct perf_event_header *h, struct session_id *id)
{
  memset(id, 0, sizeof *id);
  if (h->type == PERF_RECORD_SAMPLE || h->type >= 64) return false;
  const struct pd_event *e = pd_record_event(s->r, h);
  if (!e || !e->attr.sample_id_all) return false;
  static const uint64_t order[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
                                    PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
  size_t n = 0;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if (e->attr.sample_type & order[i]) n++;
  if (h->size < 8 + 8 * n) return false;
  const char *p = (const char *)h + h->size - 8 * n;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    if (!(e->attr.sample_type & order[i])) continue;
    uint64_t v = rd64(p);
    p += 8;
    id->has |= order[i];
    if (order[i] == PERF_SAMPLE_TID) id->pid = (uint32_t)v, id->tid = (uint32_t)(v >> 32);
    else if (order[i] == PERF_SAMPLE_TIME) id->time = v;
    else if (order[i] == PERF_SAMPLE_CPU) id->cpu = (uint32_t)v;
    else if (order[i] == PERF_SAMPLE_IDENTIFIER || order[i] == PERF_SAMPLE_ID) id->id = v;
  }
  return true;
}

const char *session_record_name(uint32_t type)
{
  static const char *const kernel[] = {
    NULL, "MMAP", "LOST", "COMM", "EXIT", "THROTTLE", "UNTHROTTLE", "FORK", "READ", "SAMPLE", "MMAP2",
    "AUX", "ITRACE_START", "LOST_SAMPLES", "SWITCH", "SWITCH_CPU_WIDE", "NAMESPACES", "KSYMBOL",
    "BPF_EVENT", "CGROUP", "TEXT_POKE", "AUX_OUTPUT_HW_ID",
  };
  static const char *const user[] = {
    "ATTR", "EVENT_TYPE", "TRACING_DATA", "BUILD_ID", "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO",
    "AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND",
    "EVENT_UPDATE", "TIME_CONV", "FEATURE", "COMPRESSED", "FINISHED_INIT",
  };
  if (type < sizeof kernel / sizeof kernel[0]) return kernel[type];
  if (type >= 64 && type - 64 < sizeof user / sizeof user[0]) return user[type - 64];
  return NULL;
}
