/* The trace pass over a session; see itrace_session.h. As perf's auxtrace
 * queues: AUXTRACE buffers of one idx are one stream in offset order; a
 * buffer that starts past where the last one ended is a gap (data the tool
 * never copied, e.g. a TRUNCATED AUX buffer), one that starts before it a
 * new stream (snapshots overlap): both resync at the next PSB. */
#include "analysis/itrace_session.h"
#include "util/err.h"
#include "analysis/hist.h"
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_QUEUES 64                    /* AUXTRACE idx values (CPUs) */

int itrace_parse_opts(const char *arg, struct itrace_opts *o, char *err, size_t errlen)
{
  memset(o, 0, sizeof *o);
  o->set = true;
  o->period = 100000;
  o->period_type = ITRACE_PERIOD_NS;
  const char *p = arg && *arg ? arg : ITRACE_DEFAULT_OPTS;
  while (*p) {
    char c = *p++;
    switch (c) {
    case 'i': {
      o->instructions = true;
      if (!isdigit((unsigned char)*p)) break;
      char *end;
      o->period = strtoull(p, &end, 10);
      p = end;
      o->period_type = ITRACE_PERIOD_INSNS;
      if (*p == 'i') p++;
      else if (*p == 't') { o->period_type = ITRACE_PERIOD_CYCLES; p++; }
      else if (!strncmp(p, "ns", 2)) { o->period_type = ITRACE_PERIOD_NS; p += 2; }
      else if (!strncmp(p, "us", 2)) { o->period_type = ITRACE_PERIOD_NS; o->period *= 1000; p += 2; }
      else if (!strncmp(p, "ms", 2)) { o->period_type = ITRACE_PERIOD_NS; o->period *= 1000000; p += 2; }
      if (!o->period) { snprintf(err, errlen, "--itrace: a period of 0"); return -1; }
      break;
    }
    case 'b': o->branches = true; break;
    case 'c': o->calls = true; break;
    case 'r': o->returns = true; break;
    case 'e': o->errors = true; break;
    case ',': case ' ': break;
    default:
      snprintf(err, errlen, "--itrace: unknown option '%c' in '%s' (supported: i[PERIOD], b, c, r, e)", c, arg);
      return -1;
    }
  }
  return 0;
}

uint64_t itrace_cycle_ns(const struct itrace_summary *sum, uint64_t cycle)
{
  uint64_t mhz = sum->clock_mhz ? sum->clock_mhz : 1;
  return (uint64_t)((unsigned __int128)cycle * 1000 / mhz);
}

/* ---- the pass ---- */

struct queue {
  struct itrace_decoder *d;
  uint64_t next;                         /* stream offset the next buffer should start at */
  uint32_t cpu;
  bool started;
  uint64_t last_cycle;
  bool after_kernel;
};

struct pass {
  struct session *s;
  const struct itrace_pass_ops *ops;
  void *ctx;
  struct itrace_summary *sum;
  struct queue q[MAX_QUEUES];
  struct queue *cur;
  int rc;
};

static size_t read_code(void *ctx, uint32_t pid, uint8_t mode, uint64_t pc, uint32_t *words, size_t max)
{
  struct pass *p = ctx;
  struct sym_loc loc;
  sym_resolve(p->s->m, pid, mode ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, pc, &loc);
  if (!loc.dso || (!loc.map && !mode)) return 0;
  if (loc.map && (loc.map->end - pc) / 4 < max) max = (size_t)((loc.map->end - pc) / 4);
  return sym_dso_read(loc.dso, loc.vaddr, words, max * 4) / 4;
}

static int on_block(void *ctx, const struct itrace_block *b)
{
  struct pass *p = ctx;
  struct itrace_sblock sb = { b, p->cur->cpu, itrace_cycle_ns(p->sum, b->cycle),
                              itrace_cycle_ns(p->sum, p->cur->last_cycle), p->cur->last_cycle,
                              p->cur->after_kernel };
  p->cur->last_cycle = b->cycle;
  p->cur->after_kernel = b->end == ITRACE_END_ASYNC;
  return p->ops->block ? p->ops->block(p->ctx, p->s, &sb) : 0;
}

static void on_error(void *ctx, const struct itrace_error *e)
{
  struct pass *p = ctx;
  struct itrace_serror se = { e, p->cur->cpu, itrace_cycle_ns(p->sum, p->cur->last_cycle) };
  if (p->ops->error) p->ops->error(p->ctx, p->s, &se);
}

static void on_packet(void *ctx, uint64_t off, const uint8_t *bytes, size_t len, const struct itrace_packet *pk)
{
  struct pass *p = ctx;
  (void)off; (void)bytes; (void)len;
  if (pk->type == ITRACE_PSB || pk->type == ITRACE_OVF) p->cur->last_cycle = pk->cycle;
  if (pk->type == ITRACE_OVF) p->cur->after_kernel = true;   /* unknown time passed */
}

static int auxtrace_info(struct pass *p, const struct perf_event_header *h)
{
  uint32_t type;
  const uint64_t *priv;
  size_t n;
  int e = pd_parse_auxtrace_info(h, &type, &priv, &n, p->s->err, sizeof p->s->err);
  if (e) return e;
  if (type != ITRACE_AUXTRACE_TYPE) {
    snprintf(p->s->err, sizeof p->s->err, "AUXTRACE_INFO of type %u: only the EV67 trace unit's (%u) is known",
             type, ITRACE_AUXTRACE_TYPE);
    return PM_ECORRUPT;
  }
  if (n < ITRACE_PRIV_N || !priv[ITRACE_PRIV_CLOCK_MHZ]) {
    snprintf(p->s->err, sizeof p->s->err, "AUXTRACE_INFO with %zu words: it needs %d and a clock", n, ITRACE_PRIV_N);
    return PM_ECORRUPT;
  }
  p->sum->has_trace = true;
  p->sum->pmu_type = priv[ITRACE_PRIV_PMU_TYPE];
  p->sum->clock_mhz = priv[ITRACE_PRIV_CLOCK_MHZ];
  return 0;
}

static int auxtrace(struct pass *p, const struct perf_event_header *h)
{
  struct pd_auxtrace a;
  const uint8_t *data;
  int e = pd_parse_auxtrace(h, &a, &data, p->s->err, sizeof p->s->err);
  if (e) return e;
  if (!p->sum->has_trace) {
    snprintf(p->s->err, sizeof p->s->err, "AUXTRACE record before any AUXTRACE_INFO: the trace cannot be decoded");
    return PM_ECORRUPT;
  }
  if (a.idx >= MAX_QUEUES) {
    snprintf(p->s->err, sizeof p->s->err, "AUXTRACE record for buffer %u: at most %d are supported", a.idx, MAX_QUEUES);
    return PM_ECORRUPT;
  }
  struct queue *q = &p->q[a.idx];
  if (!q->d) {
    struct itrace_ops ops = { .read_code = read_code, .block = on_block, .error = on_error, .packet = on_packet };
    if (!(q->d = itrace_decoder_create(&ops, p))) return PM_ENOMEM;
  }
  p->cur = q;
  q->cpu = a.cpu;
  p->sum->auxtrace_records++;
  if (q->started && a.offset != q->next) {
    p->sum->gaps++;
    itrace_gap(q->d, a.offset > q->next ? a.offset - q->next : 0);
  }
  q->started = true;
  q->next = a.offset + a.size;
  return itrace_decode(q->d, data, a.size);
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct pass *p = ctx;
  (void)s;
  switch (r->h->type) {
  case PD_RECORD_AUXTRACE_INFO: return auxtrace_info(p, r->h);
  case PD_RECORD_AUXTRACE: return auxtrace(p, r->h);
  case PERF_RECORD_AUX: {
    uint64_t off, size, flags;
    if (!pd_parse_aux(r->h, &off, &size, &flags, s->err, sizeof s->err)) {
      p->sum->aux_records++;
      if (flags & PERF_AUX_FLAG_TRUNCATED) p->sum->truncated++;
      if (flags & PERF_AUX_FLAG_PARTIAL) p->sum->partial++;
    }
    break;
  }
  case PERF_RECORD_ITRACE_START: p->sum->itrace_starts++; break;
  default: break;
  }
  return p->ops->record ? p->ops->record(p->ctx, s, r) : 0;
}

static void add_stats(struct itrace_stats *t, const struct itrace_stats *s)
{
  t->bytes += s->bytes; t->packets += s->packets; t->blocks += s->blocks; t->insns += s->insns;
  t->errors += s->errors; t->psbs += s->psbs; t->overflows += s->overflows; t->lost_bytes += s->lost_bytes;
  t->skipped += s->skipped;
}

int itrace_pass(struct session *s, const struct itrace_pass_ops *ops, void *ctx, struct itrace_summary *sum)
{
  struct pass *p = calloc(1, sizeof *p);
  if (!p) return PM_ENOMEM;
  memset(sum, 0, sizeof *sum);
  *p = (struct pass){ .s = s, .ops = ops, .ctx = ctx, .sum = sum };
  int rc = session_run(s, on_record, p);
  for (int i = 0; i < MAX_QUEUES; i++) {
    if (!p->q[i].d) continue;
    p->cur = &p->q[i];
    if (!rc) itrace_finish(p->q[i].d);
    add_stats(&sum->st, itrace_stats(p->q[i].d));
    itrace_decoder_destroy(p->q[i].d);
  }
  free(p);
  return rc;
}

/* ---- exact counts ---- */

/* Blocks repeat (loops): count (pid, start, n) runs, expand once at the end. */
struct run_key { uint32_t pid, pad; uint64_t start, n; };
struct itrace_counts { struct hist *runs; struct itrace_pc_count *v; size_t nv; };

struct itrace_counts *itrace_counts_create(void)
{
  struct itrace_counts *c = calloc(1, sizeof *c);
  if (c && !(c->runs = hist_create(sizeof(struct run_key), sizeof(uint64_t)))) { free(c); return NULL; }
  return c;
}

void itrace_counts_destroy(struct itrace_counts *c)
{
  if (!c) return;
  hist_destroy(c->runs);
  free(c->v);
  free(c);
}

int itrace_counts_add(struct itrace_counts *c, const struct itrace_block *b)
{
  if (!b->n) return 0;
  struct run_key k = { .pid = b->pid, .start = b->start, .n = b->n };
  uint64_t *v = hist_get(c->runs, &k);
  if (!v) return PM_ENOMEM;
  ++*v;
  return 0;
}

static int by_pid_pc(const void *pa, const void *pb)
{
  const struct itrace_pc_count *a = pa, *b = pb;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  return a->pc < b->pc ? -1 : a->pc > b->pc;
}

const struct itrace_pc_count *itrace_counts_get(struct itrace_counts *c, size_t *n)
{
  size_t total = 0, nr = hist_count(c->runs);
  for (size_t i = 0; i < nr; i++) total += ((const struct run_key *)hist_key(c->runs, i))->n;
  free(c->v);
  c->v = malloc((total ? total : 1) * sizeof *c->v);
  c->nv = 0;
  if (!c->v) { *n = 0; return NULL; }
  for (size_t i = 0; i < nr; i++) {
    const struct run_key *k = hist_key(c->runs, i);
    uint64_t times = *(const uint64_t *)hist_val(c->runs, i);
    for (uint64_t j = 0; j < k->n; j++) c->v[c->nv++] = (struct itrace_pc_count){ k->pid, k->start + 4 * j, times };
  }
  qsort(c->v, c->nv, sizeof *c->v, by_pid_pc);
  size_t out = 0;                        /* merge equal (pid, pc) */
  for (size_t i = 0; i < c->nv; i++) {
    if (out && c->v[out - 1].pid == c->v[i].pid && c->v[out - 1].pc == c->v[i].pc) c->v[out - 1].n += c->v[i].n;
    else c->v[out++] = c->v[i];
  }
  c->nv = out;
  *n = out;
  return c->v;
}
