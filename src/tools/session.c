/* The shared pass over a perf.data file; see session.h. Records are handed
 * over in time order when every event has timestamps (perf's ordered
 * events; our recorder writes them in time order already), else in file
 * order. */
#include "tools/session.h"
#include "util/err.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pm_status_names[PM_NSTATUS + 1] = {
  "retired", "valid", "early_kill", "late_kill", "trap", "mispredict", "taken", "map_stall",
  "nyp", "ldstorder", "dtb_miss", "unaligned", "replay", "itb_miss", "arith", "jmp_mispredict",
  "kernel", NULL
};

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
    if (h->type == PERF_RECORD_LOST && h->size >= 24) { s->lost_events += rd64((const char *)h + 16); s->nr_lost++; }
    if (h->type == PERF_RECORD_LOST_SAMPLES && h->size >= 16) s->lost += rd64((const char *)h + 8);
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

bool session_pm_raw(const struct pd_sample *s, struct pm_raw_v1 *raw)
{
  if (!(s->sample_type & PERF_SAMPLE_RAW) || !s->raw || s->raw_size < sizeof *raw) return false;
  memcpy(raw, s->raw, sizeof *raw);
  return raw->version == PM_RAW_VERSION;
}

bool pm_counts_add(struct pm_counts *c, const struct pd_sample *s)
{
  struct pm_raw_v1 raw;
  if (!session_pm_raw(s, &raw)) return false;
  c->n++;
  for (int i = 0; i < PM_NSTATUS; i++)
    if (raw.status & (1ull << i)) c->st[i]++;
  return true;
}

uint64_t pm_counts_sum(const struct pm_counts *c, uint64_t bits)
{
  uint64_t n = 0;
  for (int i = 0; i < PM_NSTATUS; i++)
    if (bits & (1ull << i)) n += c->st[i];
  return n;
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

void sym_column(char level, const struct sym_symbol *sym, uint64_t addr, char *buf, size_t len)
{
  if (sym) snprintf(buf, len, "[%c] %s", level, sym->name);
  else if (!addr) snprintf(buf, len, "[%c] %016" PRIx64, level, addr);   /* perf's "%-#.*llx": no 0x for 0 */
  else snprintf(buf, len, "[%c] 0x%016" PRIx64, level, addr);
}

/* ---- data source text ---- */

/* Appends to buf (length kept in *l) like scnprintf. */
static void add(char *buf, size_t len, size_t *l, const char *s)
{
  if (*l + 1 >= len) return;
  int n = snprintf(buf + *l, len - *l, "%s", s);
  *l += n < 0 ? 0 : (size_t)n < len - *l ? (size_t)n : len - *l - 1;
}

/* Appends the names of the set bits of m (bit i names[i]) joined by " or ";
 * *any says whether a name is already there. */
static void add_bits(char *buf, size_t len, size_t *l, uint64_t m, const char *const *names, size_t n, bool *any)
{
  for (size_t i = 0; m && i < n; i++, m >>= 1) {
    if (!(m & 1)) continue;
    if (*any) add(buf, len, l, " or ");
    add(buf, len, l, names[i]);
    *any = true;
  }
}

void mem_op_str(uint64_t ds, char *buf, size_t len)
{
  union perf_mem_data_src d = { .val = ds };
  unsigned op = d.mem_op;
  snprintf(buf, len, "%s", op & PERF_MEM_OP_NA ? "N/A" : op & PERF_MEM_OP_LOAD ? "LOAD" :
           op & PERF_MEM_OP_STORE ? "STORE" : op & PERF_MEM_OP_PFETCH ? "PFETCH" :
           op & PERF_MEM_OP_EXEC ? "EXEC" : "No");
}

void mem_lvl_str(uint64_t ds, char *buf, size_t len)
{
  static const char *const lvl[] = { "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
    "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached" };
  static const char *const hops[] = { NULL, "core, same node", "node, same socket", "socket, same board", "board" };
  union perf_mem_data_src d = { .val = ds };
  uint64_t m = d.mem_lvl;
  bool hit = m & PERF_MEM_LVL_HIT, miss = m & PERF_MEM_LVL_MISS;
  size_t l = 0;
  bool any = false;
  buf[0] = '\0';
  m &= ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
  if (d.mem_remote) add(buf, len, &l, "Remote ");
  if (d.mem_hops && d.mem_hops < 5) {
    add(buf, len, &l, hops[d.mem_hops]);
    add(buf, len, &l, " ");
  } else {
    add_bits(buf, len, &l, m, lvl, sizeof lvl / sizeof lvl[0], &any);
  }
  if (d.mem_lvl_num) {
    static const char *const num[16] = { [9] = "CXL", [10] = "I/O", [11] = "Any cache", [12] = "LFB/MAB",
                                         [13] = "RAM", [14] = "PMEM", [15] = "N/A" };
    char tmp[8];
    if (any) add(buf, len, &l, " or ");
    snprintf(tmp, sizeof tmp, "L%u", (unsigned)d.mem_lvl_num);
    add(buf, len, &l, num[d.mem_lvl_num] ? num[d.mem_lvl_num] : tmp);
  }
  if (!l) add(buf, len, &l, "N/A");
  if (hit) add(buf, len, &l, " hit");
  if (miss) add(buf, len, &l, " miss");
}

void mem_snoop_str(uint64_t ds, char *buf, size_t len)
{
  static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
  static const char *const snoopx[] = { "Fwd", "Peer" };
  union perf_mem_data_src d = { .val = ds };
  size_t l = 0;
  bool any = false;
  buf[0] = '\0';
  add_bits(buf, len, &l, d.mem_snoop, snoop, 5, &any);
  add_bits(buf, len, &l, d.mem_snoopx, snoopx, 2, &any);
  if (!l) add(buf, len, &l, "N/A");
}

void mem_tlb_str(uint64_t ds, char *buf, size_t len)
{
  static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
  union perf_mem_data_src d = { .val = ds };
  uint64_t m = d.mem_dtlb;
  bool hit = m & PERF_MEM_TLB_HIT, miss = m & PERF_MEM_TLB_MISS;
  size_t l = 0;
  bool any = false;
  buf[0] = '\0';
  add_bits(buf, len, &l, m & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb, 7, &any);
  if (!l) add(buf, len, &l, "N/A");
  if (hit) add(buf, len, &l, " hit");
  if (miss) add(buf, len, &l, " miss");
}

void mem_lock_str(uint64_t ds, char *buf, size_t len)
{
  union perf_mem_data_src d = { .val = ds };
  snprintf(buf, len, "%s", d.mem_lock & PERF_MEM_LOCK_NA ? "N/A" : d.mem_lock & PERF_MEM_LOCK_LOCKED ? "Yes" : "No");
}

void mem_blk_str(uint64_t ds, char *buf, size_t len)
{
  union perf_mem_data_src d = { .val = ds };
  if (!d.mem_blk || (d.mem_blk & PERF_MEM_BLK_NA)) {
    snprintf(buf, len, " N/A");
    return;
  }
  snprintf(buf, len, "%s%s", d.mem_blk & PERF_MEM_BLK_DATA ? " Data" : "", d.mem_blk & PERF_MEM_BLK_ADDR ? " Addr" : "");
}

void mem_info_str(uint64_t ds, char *buf, size_t len)
{
  char op[16], lvl[128], snp[64], tlb[64], lck[8], blk[16];
  mem_op_str(ds, op, sizeof op);
  mem_lvl_str(ds, lvl, sizeof lvl);
  mem_snoop_str(ds, snp, sizeof snp);
  mem_tlb_str(ds, tlb, sizeof tlb);
  mem_lock_str(ds, lck, sizeof lck);
  mem_blk_str(ds, blk, sizeof blk);
  snprintf(buf, len, "|OP %s|LVL %s|SNP %s|TLB %s|LCK %s|BLK %s", op, lvl, snp, tlb, lck, blk);
}

/* ---- aggregation table ---- */

struct hist {
  size_t key_size, stride, n, cap;   /* stride: key rounded to 8, then the value */
  unsigned char *data;
  uint32_t *index;                   /* open addressing: entry+1, 0 empty */
  size_t index_cap;
};

struct hist *hist_create(size_t key_size, size_t val_size)
{
  struct hist *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->key_size = key_size;
  h->stride = ((key_size + 7) & ~(size_t)7) + ((val_size + 7) & ~(size_t)7);
  return h;
}

void hist_destroy(struct hist *h)
{
  if (!h) return;
  free(h->data);
  free(h->index);
  free(h);
}

/* Eight bytes at a time (call-graph keys are 40 bytes, hashed once per
 * frame per entry: bytewise FNV was a sixth of report -g's time). */
static uint64_t hash_bytes(const void *p, size_t n)
{
  const unsigned char *b = p;
  uint64_t x = 14695981039346656037ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    x = (x ^ w) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 32;
  }
  for (; i < n; i++) x = (x ^ b[i]) * 1099511628211ull;
  x *= 0xff51afd7ed558ccdull;
  return x ^ (x >> 33);
}

static int hist_grow_index(struct hist *h)
{
  size_t cap = h->index_cap ? h->index_cap * 2 : 256;
  uint32_t *ix = calloc(cap, sizeof *ix);
  if (!ix) return PM_ENOMEM;
  for (size_t i = 0; i < h->n; i++) {
    size_t j = hash_bytes(h->data + i * h->stride, h->key_size) & (cap - 1);
    while (ix[j]) j = (j + 1) & (cap - 1);
    ix[j] = (uint32_t)(i + 1);
  }
  free(h->index);
  h->index = ix;
  h->index_cap = cap;
  return 0;
}

/* The index slot of key: its entry's, or the empty one where it would go. */
static size_t hist_slot(const struct hist *h, const void *key)
{
  size_t j = hash_bytes(key, h->key_size) & (h->index_cap - 1);
  while (h->index[j] && memcmp(h->data + (h->index[j] - 1) * h->stride, key, h->key_size))
    j = (j + 1) & (h->index_cap - 1);
  return j;
}

void *hist_find(const struct hist *h, const void *key)
{
  if (!h->index_cap) return NULL;
  size_t j = hist_slot(h, key);
  return h->index[j] ? h->data + (h->index[j] - 1) * h->stride + ((h->key_size + 7) & ~(size_t)7) : NULL;
}

void *hist_get(struct hist *h, const void *key)
{
  if ((h->n + 1) * 2 > h->index_cap && hist_grow_index(h)) return NULL;
  size_t j = hist_slot(h, key);
  if (h->index[j]) return h->data + (h->index[j] - 1) * h->stride + ((h->key_size + 7) & ~(size_t)7);
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 64;
    unsigned char *d = realloc(h->data, cap * h->stride);
    if (!d) return NULL;
    h->data = d;
    h->cap = cap;
  }
  unsigned char *e = h->data + h->n * h->stride;
  memset(e, 0, h->stride);
  memcpy(e, key, h->key_size);
  h->index[j] = (uint32_t)(++h->n);
  return e + ((h->key_size + 7) & ~(size_t)7);
}

size_t hist_count(const struct hist *h) { return h->n; }
const void *hist_key(const struct hist *h, size_t i) { return h->data + i * h->stride; }
void *hist_val(const struct hist *h, size_t i) { return h->data + i * h->stride + ((h->key_size + 7) & ~(size_t)7); }

size_t split_list(char *s, char **out, size_t max)
{
  size_t n = 0;
  for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
  return n;
}

bool in_list(char *const *list, size_t n, const char *name)
{
  if (!n) return true;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(list[i], name)) return true;
  return false;
}

bool in_num_list(char *const *list, size_t n, uint32_t v)
{
  char buf[16];
  snprintf(buf, sizeof buf, "%d", (int32_t)v);
  return in_list(list, n, buf);
}
