/* `profileme diff`: perf diff 6.1 (tools/perf/builtin-diff.c) over two or
 * more perf.data files; --dcpi is DCPI's dcpidiff (cmd_diff_dcpi.c).
 *
 * What perf diff does, and so what this does: each file's samples are summed
 * per entry of the sort keys (dso,symbol), then collapsed by name (perf's
 * SORT_MODE__DIFF: entries are matched across files by the DSO's short name
 * and the symbol's name, never by address; all unresolved addresses of one
 * DSO are one entry, shown by its lowest address). For each event of the
 * baseline (the first file) the event of the same type and config in each
 * other file is paired: its entries are matched to the baseline's, and the
 * ones without a match become "dummy" baseline entries (no Baseline figure).
 * The columns: Baseline (share of the baseline's period), then per other
 * file the computation -c chooses: delta (difference of shares, the default
 * being delta-abs, sorted by its absolute value), ratio (new period / old),
 * wdiff:w1,w2 (new x w2 - old x w1); -p adds the periods, -F the formula.
 * Rows sort by the computation of the file -o names (entries it has first;
 * for ratio and wdiff, dummies last), then by Baseline, by each file's
 * column, then by the keys. Percentages are of the event's total period
 * (perf's default --percentage absolute), taken when the deltas are
 * computed, except that -b (baseline only) drops the unmatched entries
 * first and Baseline is then a share of what is left, as perf prints it. */
#include "tools/commands.h"
#include "analysis/hist.h"
#include "analysis/session.h"
#include "util/err.h"
#include "util/strlist.h"
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum compute { C_DELTA, C_DELTA_ABS, C_RATIO, C_WDIFF };
static const char *const compute_names[] = { "delta", "delta-abs", "ratio", "wdiff" };
/* perf's header_column table: name and minimum width of each column */
static const struct { const char *name; int width; } compute_cols[] = {
  { "Delta", 7 }, { "Delta Abs", 7 }, { "Ratio", 14 }, { "Weighted diff", 14 },
};

enum key { K_DSO, K_SYM };
#define MAX_FILES 16
#define MAX_LIST 64

/* One entry of one file's event after the collapse by name (perf's
 * hist_entry). In the baseline, pair[i] is its match in file i. */
struct dent {
  const char *dso;               /* short name; NULL: no map ([unknown]) */
  const struct sym_symbol *sym;  /* NULL: unresolved */
  uint64_t addr;                 /* unresolved: what perf prints */
  char level;
  bool filtered;                 /* a filter (-d, -C, -S, --pid, --tid) hides it */
  bool dummy;                    /* baseline: made for another file's entry */
  bool paired;                   /* other files: matched */
  uint64_t period;
  struct dent *pair[MAX_FILES];
  double delta, ratio;           /* other files: computed against the baseline entry */
  int64_t wdiff;
};

/* The entries of one event of one file. */
struct dhists {
  struct dent *e;
  size_t n, cap;
  uint64_t total, total_nf;      /* period of all samples, of the unfiltered ones */
};

/* The first pass's table, per (dso, symbol, unresolved address). */
struct pkey { const struct sym_dso *dso; const struct sym_symbol *sym; uint64_t addr; };
struct pval { uint64_t period; char level; bool filtered; };

struct dfile {
  const char *path;
  struct session s;
  bool open;
  struct hist **raw;             /* per event of the file: pkey -> pval */
  struct dhists *h;              /* per event */
};

struct diff {
  enum compute compute;
  int64_t w1, w2;
  unsigned order;                /* -o: the file whose column sorts first (0: none) */
  bool period, formula, baseline_only, quiet, relative;
  enum key keys[2];
  size_t nkeys;
  char *dsos[MAX_LIST], *comms[MAX_LIST], *syms[MAX_LIST], *pids[MAX_LIST], *tids[MAX_LIST];
  size_t ndsos, ncomms, nsyms, npids, ntids;
  struct dfile f[MAX_FILES];
  size_t nfiles;
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme diff [OPTIONS] [OLD-FILE] [NEW-FILE...]\n"
    "Compares perf.data files like perf diff: per shared object and symbol, the\n"
    "baseline's share of the event's period and, for each other file, the\n"
    "computation chosen. Files default to perf.data.old and perf.data; one file\n"
    "is compared with perf.data.old.\n"
    "  -c, --compute delta|delta-abs|ratio|wdiff:W1,W2\n"
    "                        the column per file (default delta-abs): difference of\n"
    "                        shares, sorted by value or by absolute value; new/old\n"
    "                        period; new x W2 - old x W1\n"
    "  -o, --order N         sort by the column of file N first (default 1; 0: none)\n"
    "  -p, --period          show the periods\n"
    "  -F, --formula         show the formula of each figure\n"
    "  -b, --baseline-only   only the entries the baseline has\n"
    "  -s, --sort KEYS       dso, symbol (sym), in the order given (default dso,symbol)\n"
    "  -d, --dsos LIST       only these shared objects (short names)\n"
    "  -C, --comms LIST      only these command names\n"
    "  -S, --symbols LIST    only these symbols\n"
    "      --pid LIST, --tid LIST  only these processes or threads\n"
    "      --percentage relative|absolute  shares of the shown entries' period or\n"
    "                        of all (default absolute)\n"
    "      --symfs DIR       look for the recorded files under DIR\n"
    "  -q, --quiet           no headers\n"
    "      --dcpi            ProfileMe statuses compared per symbol, instruction or\n"
    "                        line, as DCPI's dcpidiff (profileme diff --dcpi --help)\n"
    "Exit status: 0 success, 1 unreadable or malformed input, 2 bad options.\n");
}

/* perf's setup_compute: "delta", "delta-abs", "ratio", "wdiff:w1,w2". */
static int parse_compute(struct diff *d, const char *arg)
{
  char name[50];
  const char *colon = strchr(arg, ':');
  size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
  if (len >= sizeof name) len = sizeof name - 1;
  memcpy(name, arg, len);
  name[len] = '\0';
  int c = -1;
  for (size_t i = 0; i < sizeof compute_names / sizeof compute_names[0]; i++)
    if (!strcmp(name, compute_names[i])) c = (int)i;
  if (c < 0) {
    fprintf(stderr, "profileme diff: '%s' is not a computation method (delta, delta-abs, ratio or wdiff:W1,W2)%s\n",
            arg, !strcmp(name, "cycles") ? "; cycles needs branch stacks, which Alpha has not" : "");
    return 2;
  }
  d->compute = (enum compute)c;
  if (c != C_WDIFF) {
    if (colon) {
      fprintf(stderr, "profileme diff: extra option specified '%s'\n", colon + 1);
      return 2;
    }
    return 0;
  }
  const char *comma = colon ? strchr(colon + 1, ',') : NULL;
  char *e1 = NULL, *e2 = NULL;
  if (comma && comma[1]) {
    d->w1 = strtoll(colon + 1, &e1, 10);
    d->w2 = strtoll(comma + 1, &e2, 10);
  }
  if (!comma || !comma[1] || e1 != comma || *e2 || !d->w1 || !d->w2) {
    fprintf(stderr, "profileme diff: wrong weight data in '%s', use 'wdiff:W1,W2' (non-zero integers)\n", arg);
    return 2;
  }
  return 0;
}

static int parse_sort(struct diff *d, char *arg)
{
  char *list[8];
  size_t n = split_list(arg, list, 8);
  d->nkeys = 0;
  for (size_t i = 0; i < n; i++) {
    enum key k;
    if (!strcmp(list[i], "dso")) k = K_DSO;
    else if (!strcmp(list[i], "symbol") || !strcmp(list[i], "sym")) k = K_SYM;
    else {
      fprintf(stderr, "profileme diff: unsupported --sort key '%s' (dso, symbol)\n", list[i]);
      return 2;
    }
    for (size_t j = 0; j < d->nkeys; j++)
      if (d->keys[j] == k) goto dup;
    d->keys[d->nkeys++] = k;
  dup:;
  }
  if (!d->nkeys) {
    fprintf(stderr, "profileme diff: --sort needs dso or symbol\n");
    return 2;
  }
  return 0;
}

static bool has_key(const struct diff *d, enum key k)
{
  for (size_t i = 0; i < d->nkeys; i++)
    if (d->keys[i] == k) return true;
  return false;
}

/* ---- reading: one pass per file ---- */

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  void **c = ctx;
  struct diff *d = c[0];
  struct dfile *f = c[1];
  const struct pd_sample *smp = r->sample;
  if (!smp) return 0;
  size_t ev = session_event_index(s, smp->event);
  const char *comm = sym_comm(s->m, smp->pid, smp->tid);
  const char *dso = r->loc.dso ? r->loc.dso->short_name : "[unknown]";
  bool filtered = !in_list(d->comms, d->ncomms, comm) || !in_list(d->dsos, d->ndsos, dso) ||
                  (d->nsyms && (!r->loc.sym || !in_list(d->syms, d->nsyms, r->loc.sym->name))) ||
                  !in_num_list(d->pids, d->npids, smp->pid) || !in_num_list(d->tids, d->ntids, smp->tid);
  struct pkey k;
  memset(&k, 0, sizeof k);
  if (has_key(d, K_DSO) || has_key(d, K_SYM)) k.dso = r->loc.dso;
  if (has_key(d, K_SYM)) {
    k.sym = r->loc.sym;
    if (!k.sym) k.addr = r->loc.addr;
  }
  struct pval *v = hist_get(f->raw[ev], &k);
  if (!v) return PM_ENOMEM;
  if (!v->period && !v->level) {   /* the first sample decides, as perf's hists__findnew_entry */
    v->level = r->loc.level;
    v->filtered = filtered;
  }
  v->period += smp->period;
  f->h[ev].total += smp->period;
  if (!filtered) f->h[ev].total_nf += smp->period;
  return 0;
}

static int null_last(const void *a, const void *b) { return a ? (b ? 0 : -1) : (b ? 1 : 0); }

static const char *sym_name(const struct dent *e) { return e->sym ? e->sym->name : NULL; }

/* The collapse key: dso's and symbol's names (perf's sort__sym_sort); 0
 * when the entries are one. */
static int collapse_cmp(const struct diff *d, const struct dent *a, const struct dent *b)
{
  int c;
  for (size_t i = 0; i < d->nkeys; i++) {
    const char *x = d->keys[i] == K_DSO ? a->dso : sym_name(a), *y = d->keys[i] == K_DSO ? b->dso : sym_name(b);
    if (!x || !y) {
      if ((c = null_last(x, y))) return c;
    } else if ((c = strcmp(x, y))) {
      return c;
    }
  }
  return 0;
}

/* perf's entries_in order within one collapsed entry: the symbol's start
 * address, or the unresolved address; the first one is kept. */
static int raw_cmp(const void *pa, const void *pb, void *ctx)
{
  const struct dent *a = pa, *b = pb;
  int c = collapse_cmp(ctx, a, b);
  if (c) return c;
  uint64_t x = a->sym ? a->sym->start : a->addr, y = b->sym ? b->sym->start : b->addr;
  return x < y ? -1 : x > y;
}

static int push(struct dhists *h, const struct dent *e)
{
  if (h->n == h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 64;
    struct dent *ne = realloc(h->e, cap * sizeof *ne);
    if (!ne) return PM_ENOMEM;
    h->e = ne;
    h->cap = cap;
  }
  h->e[h->n++] = *e;
  return 0;
}

/* Collapses one event's first-pass table into entries by name. */
static int collapse(const struct diff *d, struct hist *raw, struct dhists *h)
{
  size_t n = hist_count(raw);
  struct dent *all = calloc(n ? n : 1, sizeof *all);
  if (!all) return PM_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    const struct pkey *k = hist_key(raw, i);
    const struct pval *v = hist_val(raw, i);
    all[i].dso = k->dso ? k->dso->short_name : NULL;
    all[i].sym = k->sym;
    all[i].addr = k->addr;
    all[i].level = v->level;
    all[i].filtered = v->filtered;
    all[i].period = v->period;
  }
  qsort_r(all, n, sizeof *all, raw_cmp, (void *)d);
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    if (h->n && !collapse_cmp(d, &h->e[h->n - 1], &all[i])) h->e[h->n - 1].period += all[i].period;
    else rc = push(h, &all[i]);
  }
  free(all);
  return rc;
}

static int read_file(struct diff *d, struct dfile *f, const char *symfs)
{
  if (session_open(&f->s, f->path, symfs)) {
    fprintf(stderr, "profileme diff: %s\n", f->s.err);
    return 1;
  }
  f->open = true;
  size_t nev = pd_reader_nevents(f->s.r);
  f->raw = calloc(nev + 1, sizeof *f->raw);
  f->h = calloc(nev + 1, sizeof *f->h);
  bool ok = f->raw && f->h;
  for (size_t i = 0; ok && i < nev; i++) ok = (f->raw[i] = hist_create(sizeof(struct pkey), sizeof(struct pval)));
  if (!ok) {
    fprintf(stderr, "profileme diff: %s\n", pm_strerror(PM_ENOMEM));
    return 1;
  }
  void *ctx[2] = { d, f };
  if (session_run(&f->s, on_record, ctx)) {
    fprintf(stderr, "profileme diff: %s: %s\n", f->s.path, f->s.err);
    return 1;
  }
  char warn[512];
  session_lost_warnings(&f->s, warn, sizeof warn);
  if (!d->quiet) fputs(warn, stderr);
  for (size_t i = 0; i < nev; i++)
    if (collapse(d, f->raw[i], &f->h[i])) {
      fprintf(stderr, "profileme diff: %s\n", pm_strerror(PM_ENOMEM));
      return 1;
    }
  return 0;
}

/* ---- pairing and computing (perf's hists__match, hists__link, precompute) ---- */

/* perf's evsel__match2: the same type and config. */
static const struct pd_event *match_event(const struct pd_reader *r, const struct pd_event *base, size_t *idx)
{
  for (size_t i = 0; i < pd_reader_nevents(r); i++) {
    const struct pd_event *e = pd_reader_event(r, i);
    if (e->attr.type == base->attr.type && e->attr.config == base->attr.config) {
      *idx = i;
      return e;
    }
  }
  return NULL;
}

static uint64_t total_of(const struct diff *d, const struct dhists *h) { return d->relative ? h->total_nf : h->total; }

static double percent(uint64_t period, uint64_t total) { return ((double)period * 100.0) / (double)total; }

/* Pairs file i's entries with the baseline's; unmatched ones get dummies
 * (unless -b). */
static int link_file(const struct diff *d, struct dhists *base, struct dhists *h, size_t i)
{
  for (size_t j = 0; j < h->n; j++) {
    struct dent *p = &h->e[j];
    for (size_t k = 0; k < base->n && !p->paired; k++)
      if (!collapse_cmp(d, &base->e[k], p)) {
        base->e[k].pair[i] = p;
        p->paired = true;
      }
  }
  for (size_t j = 0; j < h->n && !d->baseline_only; j++) {
    struct dent *p = &h->e[j];
    if (p->paired) continue;
    struct dent dummy = *p;
    memset(dummy.pair, 0, sizeof dummy.pair);
    dummy.period = 0;
    dummy.dummy = true;
    dummy.pair[i] = p;
    p->paired = true;
    if (push(base, &dummy)) return PM_ENOMEM;
  }
  return 0;
}

static bool has_pairs(const struct diff *d, const struct dent *e)
{
  for (size_t i = 1; i < d->nfiles; i++)
    if (e->pair[i]) return true;
  return false;
}

static void precompute(const struct diff *d, struct dhists *base, struct dhists *const *hs)
{
  uint64_t t0 = total_of(d, base);
  for (size_t k = 0; k < base->n; k++) {
    struct dent *he = &base->e[k];
    for (size_t i = 1; i < d->nfiles; i++) {
      struct dent *p = he->pair[i];
      if (!p) continue;
      p->delta = percent(p->period, total_of(d, hs[i])) - percent(he->period, t0);
      p->ratio = (double)p->period / (double)(he->period ? he->period : 1);
      p->wdiff = (int64_t)(p->period * (uint64_t)d->w2 - he->period * (uint64_t)d->w1);
    }
  }
}

/* ---- sorting (perf's hists__output_resort with the diff formats) ---- */

/* perf's __hist_entry__cmp_compute, as "a first" < 0: larger first. */
static int cmp_value(const struct diff *d, const struct dent *a, const struct dent *b)
{
  double x = 0, y = 0;
  switch (d->compute) {
  case C_DELTA: x = a->delta, y = b->delta; break;
  case C_DELTA_ABS: x = fabs(a->delta), y = fabs(b->delta); break;
  case C_RATIO: x = a->ratio, y = b->ratio; break;
  case C_WDIFF: return a->wdiff > b->wdiff ? -1 : a->wdiff < b->wdiff;
  }
  return x > y ? -1 : x < y;
}

/* The -o column: entries with a pair in file i first, dummies last for
 * ratio and wdiff (which need the baseline). */
static int cmp_order(const struct diff *d, const struct dent *a, const struct dent *b, size_t i)
{
  const struct dent *pa = a->pair[i], *pb = b->pair[i];
  if (!pa || !pb) return pa ? -1 : pb ? 1 : 0;
  if (d->compute == C_RATIO || d->compute == C_WDIFF) {
    if (a->dummy != b->dummy) return a->dummy ? 1 : -1;
    if (a->dummy) return 0;
  }
  return cmp_value(d, pa, pb);
}

/* File i's column: entries with any pair first, then with one in file i. */
static int cmp_column(const struct diff *d, const struct dent *a, const struct dent *b, size_t i)
{
  bool x = has_pairs(d, a), y = has_pairs(d, b);
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  const struct dent *pa = a->pair[i], *pb = b->pair[i];
  if (!pa || !pb) return pa ? -1 : pb ? 1 : 0;
  return cmp_value(d, pa, pb);
}

static int out_cmp(const void *pa, const void *pb, void *ctx)
{
  const struct diff *d = ctx;
  const struct dent *a = pa, *b = pb;
  int c;
  if (d->order && (c = cmp_order(d, a, b, d->order))) return c;
  if (a->period != b->period) return a->period > b->period ? -1 : 1;
  for (size_t i = 1; i < d->nfiles; i++)
    if ((c = cmp_column(d, a, b, i))) return c;
  return collapse_cmp(d, a, b);
}

/* ---- printing ---- */

struct col { char head[128]; int width; };

/* perf's init_header: the name (with "/i" past two files), right-aligned to
 * the larger of its width and its length. */
static void col_init(const struct diff *d, struct col *c, const char *name, int width, size_t i)
{
  char buf[64];
  if (d->nfiles > 2) snprintf(buf, sizeof buf, "%s/%zu", name, i);
  else snprintf(buf, sizeof buf, "%s", name);
  c->width = (int)strlen(buf) > width ? (int)strlen(buf) : width;
  snprintf(c->head, sizeof c->head, "%*s", c->width, buf);
}

/* The diff columns in perf's order: Baseline [Base period], then per file
 * its computation [Formula] [Period]. */
enum ckind { CK_BASELINE, CK_BASE_PERIOD, CK_COMPUTE, CK_FORMULA, CK_PERIOD };
struct dcol { enum ckind kind; size_t file; struct col c; };

static size_t columns(const struct diff *d, struct dcol *cols)
{
  size_t n = 0;
  cols[n] = (struct dcol){ CK_BASELINE, 0, { "", 0 } };
  col_init(d, &cols[n++].c, "Baseline", 0, 0);
  if (d->period) {
    cols[n] = (struct dcol){ CK_BASE_PERIOD, 0, { "", 0 } };
    col_init(d, &cols[n++].c, "Base period", 14, 0);
  }
  for (size_t i = 1; i < d->nfiles; i++) {
    cols[n] = (struct dcol){ CK_COMPUTE, i, { "", 0 } };
    col_init(d, &cols[n++].c, compute_cols[d->compute].name, compute_cols[d->compute].width, i);
    if (d->formula) {
      cols[n] = (struct dcol){ CK_FORMULA, i, { "", 0 } };
      col_init(d, &cols[n++].c, "Formula", 70, i);
    }
    if (d->period) {
      cols[n] = (struct dcol){ CK_PERIOD, i, { "", 0 } };
      col_init(d, &cols[n++].c, "Period", 14, i);
    }
  }
  return n;
}

/* One cell as perf prints it on stdout: Baseline and the computations
 * through their color functions (perf_hpp__use_color() holds without a
 * field separator; no escapes off a terminal), which size some figures to
 * the column and others not (wdiff: 14), then pad on the right
 * (hist_entry__snprintf_alignment); periods and formulas right-aligned. */
static void cell(const struct diff *d, const struct dcol *c, const struct dent *he, uint64_t t0_now,
                 struct dhists *const *hs, char *out, size_t len)
{
  const struct dent *p = c->kind == CK_BASELINE || c->kind == CK_BASE_PERIOD ? NULL : he->pair[c->file];
  int w = c->c.width;
  char buf[512] = " ";
  switch (c->kind) {
  case CK_BASELINE:
    if (he->dummy) snprintf(out, len, "%*s", w, " ");
    else snprintf(out, len, "%*.2f%%", w - 1, 100.0 * (double)he->period / (double)t0_now);
    break;
  case CK_COMPUTE:
    if (!p) snprintf(out, len, "%*s", w, " ");
    else if (d->compute == C_DELTA || d->compute == C_DELTA_ABS) snprintf(out, len, "%+*.2f%%", w - 1, p->delta);
    else if (he->dummy) snprintf(out, len, "%*s", w, "N/A");
    else if (d->compute == C_RATIO) snprintf(out, len, "%*.6f", w, p->ratio);
    else snprintf(out, len, "%14" PRId64, p->wdiff);
    break;
  case CK_BASE_PERIOD:
    snprintf(buf, sizeof buf, "%" PRIu64, he->period);
    snprintf(out, len, "%*s", w, buf);
    break;
  case CK_PERIOD:
    if (p) snprintf(buf, sizeof buf, "%" PRIu64, p->period);
    snprintf(out, len, "%*s", w, buf);
    break;
  case CK_FORMULA:
    if (p && d->compute == C_RATIO)
      snprintf(buf, sizeof buf, "%.0F / %.0F", (double)p->period, (double)he->period);
    else if (p && d->compute == C_WDIFF)
      snprintf(buf, sizeof buf, "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64 " * %" PRId64 ")", p->period, d->w2,
               he->period, d->w1);
    else if (p)
      snprintf(buf, sizeof buf, "(%" PRIu64 " * 100 / %" PRIu64 ") - (%" PRIu64 " * 100 / %" PRIu64 ")", p->period,
               total_of(d, hs[c->file]), he->period, t0_now);
    snprintf(out, len, "%*s", w, buf);
    break;
  }
  size_t n = strlen(out);
  while ((int)n < w && n + 1 < len) out[n++] = ' ';
  out[n] = '\0';
}

/* perf's sort__setup_elide: a key filtered to one value is not shown,
 * unless that would leave no key. */
static void elide(const struct diff *d, bool show[2])
{
  show[K_DSO] = has_key(d, K_DSO) && d->ndsos != 1;
  show[K_SYM] = has_key(d, K_SYM) && d->nsyms != 1;
  if (!show[K_DSO] && !show[K_SYM]) show[K_DSO] = has_key(d, K_DSO), show[K_SYM] = has_key(d, K_SYM);
}

static void print_hists(const struct diff *d, struct dhists *base, struct dhists *const *hs)
{
  struct dcol cols[3 * MAX_FILES];
  size_t nc = columns(d, cols);
  bool show[2];
  elide(d, show);
  uint64_t t0_now = 0;           /* perf's output_resort recounts the baseline's total */
  int w[2] = { 13, 6 };
  char buf[1024];
  for (size_t k = 0; k < base->n; k++) {
    const struct dent *e = &base->e[k];
    if (!d->relative || !e->filtered) t0_now += e->period;
    if (e->filtered) continue;
    if (e->dso && (int)strlen(e->dso) > w[K_DSO]) w[K_DSO] = (int)strlen(e->dso);
    if (e->sym) {
      if ((int)strlen(e->sym->name) + 4 > w[K_SYM]) w[K_SYM] = (int)strlen(e->sym->name) + 4;
    } else {
      if (w[K_SYM] < 22) w[K_SYM] = 22;
      if (w[K_DSO] < 16) w[K_DSO] = 16;
    }
  }
  size_t nkeys = 0;
  enum key keys[2];
  for (size_t i = 0; i < d->nkeys; i++)
    if (show[d->keys[i]]) keys[nkeys++] = d->keys[i];
  if (!d->quiet) {
    static const char *const head[2] = { "Shared Object", "Symbol" };
    printf("# ");
    for (size_t c = 0; c < nc; c++) printf("%s%s", c ? "  " : "", cols[c].c.head);
    for (size_t i = 0; i < nkeys; i++) printf("  %-*s", w[keys[i]], head[keys[i]]);
    printf("\n# ");
    for (size_t c = 0; c < nc; c++) printf("%s%.*s", c ? "  " : "", cols[c].c.width, "................................................................................");
    for (size_t i = 0; i < nkeys; i++) {
      printf("  ");
      for (int j = 0; j < w[keys[i]]; j++) putchar('.');
    }
    printf("\n#\n");
  }
  qsort_r(base->e, base->n, sizeof *base->e, out_cmp, (void *)d);
  for (size_t k = 0; k < base->n; k++) {
    const struct dent *e = &base->e[k];
    if (e->filtered) continue;
    for (size_t c = 0; c < nc; c++) {
      cell(d, &cols[c], e, t0_now, hs, buf, sizeof buf);
      printf("  %s", buf);
    }
    for (size_t i = 0; i < nkeys; i++) {
      bool last = i + 1 == nkeys;
      if (keys[i] == K_DSO) {   /* perf pads it even when last; the symbol not */
        printf("  %-*.*s", w[K_DSO], w[K_DSO], e->dso ? e->dso : "[unknown]");
      } else {
        sym_column(e->level, e->sym, e->addr, buf, sizeof buf);
        printf("  %-*s", last ? 0 : w[K_SYM], buf);
      }
    }
    putchar('\n');
  }
}

static int run(struct diff *d, const char *symfs)
{
  for (size_t i = 0; i < d->nfiles; i++)
    if (read_file(d, &d->f[i], symfs)) return 1;
  const struct pd_reader *r0 = d->f[0].s.r;
  struct dhists none = { NULL, 0, 0, 0, 0 };   /* a file without the event pairs nothing */
  for (size_t ev = 0; ev < pd_reader_nevents(r0); ev++) {
    const struct pd_event *e = pd_reader_event(r0, ev);
    struct dhists *hs[MAX_FILES] = { &d->f[0].h[ev] };
    for (size_t i = 1; i < d->nfiles; i++) {
      size_t idx;
      hs[i] = match_event(d->f[i].s.r, e, &idx) ? &d->f[i].h[idx] : &none;
      for (size_t j = 0; j < hs[i]->n; j++) hs[i]->e[j].paired = false;
      if (link_file(d, hs[0], hs[i], i)) {
        fprintf(stderr, "profileme diff: %s\n", pm_strerror(PM_ENOMEM));
        return 1;
      }
    }
    if (d->baseline_only) {       /* perf's hists__baseline_only */
      size_t k = 0;
      for (size_t j = 0; j < hs[0]->n; j++)
        if (has_pairs(d, &hs[0]->e[j])) hs[0]->e[k++] = hs[0]->e[j];
      hs[0]->n = k;
    }
    precompute(d, hs[0], hs);
    if (!d->quiet) printf("%s# Event '%s'\n#\n", ev ? "\n" : "", e->name);
    if (!d->quiet && d->nfiles > 2) {
      printf("# Data files:\n");
      for (size_t i = 0; i < d->nfiles; i++) printf("#  [%zu] %s %s\n", i, d->f[i].path, i ? "" : "(Baseline)");
      printf("#\n");
    }
    print_hists(d, hs[0], hs);
  }
  return 0;
}

static void release(struct diff *d)
{
  for (size_t i = 0; i < d->nfiles; i++) {
    struct dfile *f = &d->f[i];
    if (!f->open) continue;
    size_t nev = pd_reader_nevents(f->s.r);
    for (size_t ev = 0; ev < nev; ev++) {
      if (f->raw) hist_destroy(f->raw[ev]);
      if (f->h) free(f->h[ev].e);
    }
    free(f->raw);
    free(f->h);
    session_close(&f->s);
  }
}

int cmd_diff(int argc, char **argv)
{
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "--dcpi")) return cmd_diff_dcpi(argc, argv);
  enum { O_SYMFS = 256, O_PID, O_TID, O_PERCENTAGE };
  static const struct option opts[] = {
    { "compute", required_argument, NULL, 'c' }, { "order", required_argument, NULL, 'o' },
    { "period", no_argument, NULL, 'p' }, { "formula", no_argument, NULL, 'F' },
    { "baseline-only", no_argument, NULL, 'b' }, { "sort", required_argument, NULL, 's' },
    { "dsos", required_argument, NULL, 'd' }, { "comms", required_argument, NULL, 'C' },
    { "symbols", required_argument, NULL, 'S' }, { "pid", required_argument, NULL, O_PID },
    { "tid", required_argument, NULL, O_TID }, { "percentage", required_argument, NULL, O_PERCENTAGE },
    { "symfs", required_argument, NULL, O_SYMFS }, { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  static struct diff zero;
  struct diff *d = malloc(sizeof *d);
  if (!d) {
    fprintf(stderr, "profileme diff: %s\n", pm_strerror(PM_ENOMEM));
    return 1;
  }
  *d = zero;
  d->compute = C_DELTA_ABS;
  d->order = 1;
  d->keys[0] = K_DSO, d->keys[1] = K_SYM, d->nkeys = 2;
  const char *symfs = NULL;
  int c, rc = 0;
  char *end;
  optind = 1;
  while (!rc && (c = getopt_long(argc, argv, "c:o:pFbs:d:C:S:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'c': rc = parse_compute(d, optarg); break;
    case 'o':
      d->order = (unsigned)strtoul(optarg, &end, 10);
      if (end == optarg || *end) {
        fprintf(stderr, "profileme diff: bad --order '%s'\n", optarg);
        rc = 2;
      }
      break;
    case 'p': d->period = true; break;
    case 'F': d->formula = true; break;
    case 'b': d->baseline_only = true; break;
    case 's': rc = parse_sort(d, optarg); break;
    case 'd': d->ndsos = split_list(optarg, d->dsos, MAX_LIST); break;
    case 'C': d->ncomms = split_list(optarg, d->comms, MAX_LIST); break;
    case 'S': d->nsyms = split_list(optarg, d->syms, MAX_LIST); break;
    case O_PID: d->npids = split_list(optarg, d->pids, MAX_LIST); break;
    case O_TID: d->ntids = split_list(optarg, d->tids, MAX_LIST); break;
    case O_PERCENTAGE:
      if (!strcmp(optarg, "relative")) d->relative = true;
      else if (!strcmp(optarg, "absolute")) d->relative = false;
      else {
        fprintf(stderr, "profileme diff: --percentage takes relative or absolute, not '%s'\n", optarg);
        rc = 2;
      }
      break;
    case O_SYMFS: symfs = optarg; break;
    case 'q': d->quiet = true; break;
    case 'h': usage(stdout); free(d); return 0;
    default: usage(stderr); rc = 2; break;
    }
  }
  int nargs = argc - optind;
  if (!rc && nargs > MAX_FILES) {
    fprintf(stderr, "profileme diff: at most %d files\n", MAX_FILES);
    rc = 2;
  }
  if (!rc) {   /* perf's data_init: perf.data.old and perf.data, or the one file against perf.data.old */
    d->nfiles = nargs > 2 ? (size_t)nargs : 2;
    d->f[0].path = nargs >= 2 ? argv[optind] : "perf.data.old";
    d->f[1].path = nargs == 1 ? argv[optind] : nargs >= 2 ? argv[optind + 1] : "perf.data";
    for (size_t i = 2; i < d->nfiles; i++) d->f[i].path = argv[optind + (int)i];
    if (d->order >= d->nfiles) {
      fprintf(stderr, "profileme diff: Order option out of limit (-o %u, %zu files).\n", d->order, d->nfiles);
      rc = 2;
    }
  }
  if (!rc) rc = run(d, symfs);
  release(d);
  free(d);
  return rc;
}
