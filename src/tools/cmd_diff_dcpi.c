/* `profileme diff --dcpi`: two profiles compared per symbol, instruction or
 * source line in the manner of DCPI's dcpidiff(1), which for each basic
 * block or source line printed "the normalized range (the difference
 * between the values over the sum of the values, expressed as a
 * percentage), the two values and the ratio of the values", sorted by the
 * normalized range "so that the focus is on the entries that differ the
 * most". The values here are ProfileMe's: per row, the instances fetched
 * (count) and those with each status (retired, killed, mispredict, ...),
 * estimated from the samples as the sum of their periods, or exact when
 * both files have `record --truth` counts (analysis/exact.h). Rows are
 * matched by name (dso, symbol, offset in the symbol or source line), so
 * two builds of a program compare where their code lines up. One section
 * per compared quantity; -x SEP writes CSV. */
#include "tools/commands.h"
#include "analysis/exact.h"
#include "analysis/hist.h"
#include "analysis/pm_status.h"
#include "analysis/session.h"
#include "util/err.h"
#include "util/strlist.h"
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The quantities compared: name and the status bits (0: every instance). */
static const struct { const char *name; uint64_t bits; } quants[] = {
  { "count", 0 }, { "retired", PM_ST_RETIRED }, { "killed", PM_ST_EARLY_KILL | PM_ST_LATE_KILL },
  { "mispredict", PM_ST_MISPREDICT }, { "trap", PM_ST_TRAP }, { "dtb_miss", PM_ST_DTB_MISS },
  { "unaligned", PM_ST_UNALIGNED }, { "map_stall", PM_ST_MAP_STALL }, { "replay", PM_ST_REPLAY },
  { "nyp", PM_ST_NYP },
};
#define NQ (sizeof quants / sizeof quants[0])
#define MAX_LIST 64

enum by { BY_SYM, BY_INSN, BY_LINE };

struct ukey { const struct sym_dso *dso; const struct sym_symbol *sym; uint64_t at; const char *file; };
struct uval { double est[NQ]; struct exact_counts ex; };

/* One profile: its file, the event compared and the rows by name. */
struct prof {
  const char *path;
  struct session s;
  bool open;
  size_t ev;
  struct exact_event ex;
  struct hist *h;                /* ukey -> uval */
  struct row *rows;
  size_t n;
  double total[NQ];
};
struct row { char *label; double v[NQ]; };

struct ddiff {
  enum by by;
  const char *sep, *event;
  char *syms[MAX_LIST];
  size_t nsyms;
  bool q[NQ];
  bool exact;                    /* both files have truth for the event */
  struct prof p[2];
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme diff --dcpi [--by sym|insn|line] [--compare LIST] [-e EVENT]\n"
    "                      [--symbols LIST] [-x SEP] [OLD-FILE] NEW-FILE\n"
    "Compares the ProfileMe statuses of two profiles per symbol, instruction or\n"
    "source line, as DCPI's dcpidiff: per row the normalized range (new - old) /\n"
    "(new + old) in percent, the two values and their ratio, sorted by the range.\n"
    "Values are instances (count) and instances with a status, estimated as the\n"
    "period of the samples, or exact when both files have record --truth counts.\n"
    "  --by sym|insn|line   rows per symbol (default), per instruction (symbol+offset)\n"
    "                       or per source line; matched by name across the files\n"
    "  --compare LIST       quantities, one section each (default all the file has):\n"
    "                       ");
  for (size_t i = 0; i < NQ; i++) fprintf(f, "%s%s", quants[i].name, i + 1 < NQ ? "," : "\n");
  fprintf(f,
    "  -e, --event NAME     the event of OLD-FILE (default its first with samples),\n"
    "                       paired with NEW-FILE's of the same type and config\n"
    "      --symbols LIST   only these symbols\n"
    "  -x, --field-separator SEP  CSV: event,quantity,row,old,new,range,ratio\n"
    "      --symfs DIR      look for the recorded files under DIR\n"
    "OLD-FILE defaults to perf.data.old. Exit status: 0 success, 1 unreadable\n"
    "input or no such event, 2 bad options.\n");
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  void **c = ctx;
  struct ddiff *d = c[0];
  struct prof *p = c[1];
  const struct pd_sample *smp = r->sample;
  if (!smp || session_event_index(s, smp->event) != p->ev) return 0;
  if (p->ex.on) exact_sample(&p->ex, smp->period);
  if (!r->loc.sym || (d->nsyms && !in_list(d->syms, d->nsyms, r->loc.sym->name))) return 0;
  struct ukey k = { r->loc.dso, r->loc.sym, 0, NULL };
  if (d->by == BY_INSN) k.at = r->loc.vaddr - r->loc.sym->start;
  unsigned line;
  if (d->by == BY_LINE && r->loc.dso && sym_dso_srcline(r->loc.dso, r->loc.vaddr, &k.file, &line)) k.at = line;
  struct uval *v = hist_get(p->h, &k);
  if (!v) return PM_ENOMEM;
  struct pm_raw_v1 raw;
  bool pm = session_pm_raw(smp, &raw);
  for (size_t q = 0; q < NQ; q++)
    if (!quants[q].bits || (pm && (raw.status & quants[q].bits))) v->est[q] += (double)smp->period;
  return 0;
}

/* record --truth: each entry of the event's modes goes to its row. */
static int add_truth(struct ddiff *d, struct prof *p)
{
  size_t n;
  const struct pm_truth_entry *t = pd_reader_truth(p->s.r, &n);
  for (size_t i = 0; p->ex.on && i < n; i++) {
    if (!exact_in_modes(&p->ex, &t[i])) continue;
    struct sym_loc loc;
    bool kernel = t[i].flags & PM_TRUTH_KERNEL;
    sym_resolve(p->s.m, (uint32_t)t[i].pid, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, t[i].pc, &loc);
    if (!loc.sym || (d->nsyms && !in_list(d->syms, d->nsyms, loc.sym->name))) continue;
    struct ukey k = { loc.dso, loc.sym, 0, NULL };
    if (d->by == BY_INSN) k.at = loc.vaddr - loc.sym->start;
    unsigned line;
    if (d->by == BY_LINE && loc.dso && sym_dso_srcline(loc.dso, loc.vaddr, &k.file, &line)) k.at = line;
    struct uval *v = hist_get(p->h, &k);
    if (!v) return PM_ENOMEM;
    exact_add(&v->ex, &t[i]);
  }
  return 0;
}

static int row_cmp_label(const void *a, const void *b)
{
  return strcmp(((const struct row *)a)->label, ((const struct row *)b)->label);
}

/* The rows of a profile, named and sorted by name. */
static int make_rows(struct ddiff *d, struct prof *p)
{
  size_t n = hist_count(p->h);
  p->rows = calloc(n ? n : 1, sizeof *p->rows);
  if (!p->rows) return PM_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    const struct ukey *k = hist_key(p->h, i);
    const struct uval *v = hist_val(p->h, i);
    char label[1024];
    const char *dso = k->dso ? k->dso->short_name : "[unknown]";
    if (d->by == BY_SYM) snprintf(label, sizeof label, "%s (%s)", k->sym->name, dso);
    else if (d->by == BY_INSN) snprintf(label, sizeof label, "%s+0x%" PRIx64 " (%s)", k->sym->name, k->at, dso);
    else if (k->file) {
      const char *base = strrchr(k->file, '/');
      snprintf(label, sizeof label, "%s:%" PRIu64 " %s (%s)", base ? base + 1 : k->file, k->at, k->sym->name, dso);
    } else snprintf(label, sizeof label, "??:0 %s (%s)", k->sym->name, dso);
    struct row *r = &p->rows[p->n++];
    if (!(r->label = strdup(label))) return PM_ENOMEM;
    for (size_t q = 0; q < NQ; q++) {
      uint64_t x;
      if (!d->exact) r->v[q] = v->est[q];
      else r->v[q] = exact_value(&p->ex, &v->ex, quants[q].bits, &x) ? (double)x : NAN;
    }
  }
  qsort(p->rows, p->n, sizeof *p->rows, row_cmp_label);
  /* rows of one name (two symbols named alike) are summed */
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    if (k && !strcmp(p->rows[k - 1].label, p->rows[i].label)) {
      for (size_t q = 0; q < NQ; q++) p->rows[k - 1].v[q] += p->rows[i].v[q];
      free(p->rows[i].label);
    } else {
      p->rows[k++] = p->rows[i];
    }
  }
  p->n = k;
  for (size_t i = 0; i < p->n; i++)
    for (size_t q = 0; q < NQ; q++) p->total[q] += p->rows[i].v[q];
  return 0;
}

/* Opens p and picks its event: like match when given, else named -e, else
 * number def. */
static int open_prof(struct ddiff *d, struct prof *p, const char *symfs, const struct pd_event *match, size_t def)
{
  if (session_open(&p->s, p->path, symfs)) {
    fprintf(stderr, "profileme diff: %s\n", p->s.err);
    return 1;
  }
  p->open = true;
  size_t nev = pd_reader_nevents(p->s.r);
  bool found = false;
  for (size_t i = 0; i < nev && !found; i++) {
    const struct pd_event *e = pd_reader_event(p->s.r, i);
    if (match) found = e->attr.type == match->attr.type && e->attr.config == match->attr.config;
    else if (d->event) found = !strcmp(e->name, d->event);
    else found = i == def;
    if (found) p->ev = i;
  }
  if (!found) {
    fprintf(stderr, "profileme diff: %s: no event %s%s\n", p->path, match ? "like " : "",
            match ? match->name : d->event);
    return 1;
  }
  size_t ntruth;
  const struct pm_truth_entry *t = pd_reader_truth(p->s.r, &ntruth);
  if (exact_event_init(&p->ex, pd_reader_event(p->s.r, p->ev), t, ntruth) ||
      !(p->h = hist_create(sizeof(struct ukey), sizeof(struct uval)))) {
    fprintf(stderr, "profileme diff: %s\n", pm_strerror(PM_ENOMEM));
    return 1;
  }
  return 0;
}

/* Stops the pass at the first sample, with its event's index in ctx. */
static int first_sampled(void *ctx, struct session *s, const struct session_rec *r)
{
  if (!r->sample) return 0;
  *(size_t *)ctx = session_event_index(s, r->sample->event);
  return 1;
}

static int read_prof(struct ddiff *d, struct prof *p)
{
  void *ctx[2] = { d, p };
  if (session_run(&p->s, on_record, ctx)) {
    fprintf(stderr, "profileme diff: %s: %s\n", p->path, p->s.err);
    return 1;
  }
  return 0;
}

struct pair { const char *label; double v[2]; };

static double range(double a, double b) { return a + b > 0 ? 100.0 * (b - a) / (a + b) : 0.0; }

/* Rows (indices into the pairs in ctx) by the normalized range's size,
 * then the values' sum, then the name. */
static int pair_cmp(const void *pa, const void *pb, void *ctx)
{
  const struct pair *pairs = ctx;
  const struct pair *a = &pairs[*(const size_t *)pa], *b = &pairs[*(const size_t *)pb];
  double x = fabs(range(a->v[0], a->v[1])), y = fabs(range(b->v[0], b->v[1]));
  if (x != y) return x > y ? -1 : 1;
  double sx = a->v[0] + a->v[1], sy = b->v[0] + b->v[1];
  if (sx != sy) return sx > sy ? -1 : 1;
  return strcmp(a->label, b->label);
}

/* A value: whole instances (estimates are sums of whole periods), '-' when
 * the truth cannot tell it. */
static void print_num(double v)
{
  if (isnan(v)) printf(" %14s", "-");
  else printf(" %14.0f", v);
}

static int compare(struct ddiff *d)
{
  struct prof *o = &d->p[0], *n = &d->p[1];
  size_t cap = o->n + n->n + 1, np = 0;
  struct pair *pairs = calloc(cap, sizeof *pairs);
  size_t *idx = calloc(cap, sizeof *idx);
  if (!pairs || !idx) {
    free(pairs);
    free(idx);
    fprintf(stderr, "profileme diff: %s\n", pm_strerror(PM_ENOMEM));
    return 1;
  }
  for (size_t q = 0; q < NQ; q++) {
    if (!d->q[q]) continue;
    bool any = false;
    for (size_t i = 0; i < 2; i++) any |= d->p[i].total[q] > 0;
    np = 0;
    for (size_t i = 0, j = 0; i < o->n || j < n->n;) {   /* merge of the two sorted lists */
      int c = i == o->n ? 1 : j == n->n ? -1 : strcmp(o->rows[i].label, n->rows[j].label);
      struct pair *p = &pairs[np];
      p->label = c <= 0 ? o->rows[i].label : n->rows[j].label;
      p->v[0] = c <= 0 ? o->rows[i].v[q] : 0;
      p->v[1] = c >= 0 ? n->rows[j].v[q] : 0;
      if (c <= 0) i++;
      if (c >= 0) j++;
      if (p->v[0] != 0 || p->v[1] != 0) idx[np] = np, np++;
    }
    qsort_r(idx, np, sizeof *idx, pair_cmp, pairs);
    const char *evname = pd_reader_event(o->s.r, o->ev)->name;
    if (d->sep) {
      for (size_t r = 0; r < np; r++) {
        const struct pair *p = &pairs[idx[r]];
        printf("%s%s%s%s\"%s\"%s%.0f%s%.0f%s%.1f%s", evname, d->sep, quants[q].name, d->sep, p->label, d->sep,
               p->v[0], d->sep, p->v[1], d->sep, range(p->v[0], p->v[1]), d->sep);
        if (p->v[0] > 0) printf("%.4f\n", p->v[1] / p->v[0]);
        else printf("inf\n");
      }
      continue;
    }
    if (!any) continue;
    printf("\n# %s of '%s': %s%s\n", quants[q].name, evname,
           d->exact ? "exact (record --truth)" : "estimated (the samples' period)",
           q ? "" : ", the instances the event could keep");
    printf("#  range%%            old            new      ratio  %s\n",
           d->by == BY_SYM ? "symbol (dso)" : d->by == BY_INSN ? "symbol+offset (dso)" : "file:line symbol (dso)");
    printf("  %7s", "total");
    print_num(o->total[q]);
    print_num(n->total[q]);
    if (o->total[q] > 0) printf(" %10.4f", n->total[q] / o->total[q]);
    else printf(" %10s", "inf");
    printf("  (%+.1f%%)\n", range(o->total[q], n->total[q]));
    for (size_t r = 0; r < np; r++) {
      const struct pair *p = &pairs[idx[r]];
      printf("  %+6.1f%%", range(p->v[0], p->v[1]));
      print_num(p->v[0]);
      print_num(p->v[1]);
      if (p->v[0] > 0) printf(" %10.4f", p->v[1] / p->v[0]);
      else printf(" %10s", "inf");
      printf("  %s\n", p->label);
    }
  }
  free(pairs);
  free(idx);
  return 0;
}

/* The default event of the old file: the first with samples (0 when none). */
static int default_event(const char *path, const char *symfs, size_t *ev)
{
  struct session s;
  *ev = 0;
  if (session_open(&s, path, symfs)) {
    fprintf(stderr, "profileme diff: %s\n", s.err);
    return 1;
  }
  int e = session_run(&s, first_sampled, ev);
  if (e && e != 1) fprintf(stderr, "profileme diff: %s: %s\n", path, s.err);
  session_close(&s);
  return e && e != 1;
}

static int run(struct ddiff *d, const char *symfs)
{
  struct prof *o = &d->p[0], *n = &d->p[1];
  size_t ev = 0;
  if (!d->event && default_event(o->path, symfs, &ev)) return 1;
  if (open_prof(d, o, symfs, NULL, ev)) return 1;
  if (open_prof(d, n, symfs, pd_reader_event(o->s.r, o->ev), 0)) return 1;
  d->exact = o->ex.on && n->ex.on && o->ex.total_known && n->ex.total_known;
  if (read_prof(d, o) || read_prof(d, n)) return 1;
  for (size_t i = 0; i < 2; i++)
    if ((d->exact && add_truth(d, &d->p[i])) || make_rows(d, &d->p[i])) {
      fprintf(stderr, "profileme diff: %s\n", pm_strerror(PM_ENOMEM));
      return 1;
    }
  if (d->sep) printf("event%squantity%srow%sold%snew%srange%sratio\n", d->sep, d->sep, d->sep, d->sep, d->sep, d->sep);
  else
    printf("# dcpidiff: '%s' of %s (old) against '%s' of %s (new), by %s\n", pd_reader_event(o->s.r, o->ev)->name,
           o->path, pd_reader_event(n->s.r, n->ev)->name, n->path,
           d->by == BY_SYM ? "symbol" : d->by == BY_INSN ? "instruction" : "source line");
  return compare(d);
}

static void release(struct ddiff *d)
{
  for (size_t i = 0; i < 2; i++) {
    struct prof *p = &d->p[i];
    for (size_t r = 0; r < p->n; r++) free(p->rows[r].label);
    free(p->rows);
    hist_destroy(p->h);
    exact_event_free(&p->ex);
    if (p->open) session_close(&p->s);
  }
}

int cmd_diff_dcpi(int argc, char **argv)
{
  enum { O_DCPI = 256, O_BY, O_COMPARE, O_SYMS, O_SYMFS };
  static const struct option opts[] = {
    { "dcpi", no_argument, NULL, O_DCPI }, { "by", required_argument, NULL, O_BY },
    { "compare", required_argument, NULL, O_COMPARE }, { "event", required_argument, NULL, 'e' },
    { "symbols", required_argument, NULL, O_SYMS }, { "field-separator", required_argument, NULL, 'x' },
    { "symfs", required_argument, NULL, O_SYMFS }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  static struct ddiff zero;
  struct ddiff *d = malloc(sizeof *d);
  if (!d) return 1;
  *d = zero;
  const char *symfs = NULL;
  bool qset = false;
  int c, rc = 0;
  optind = 1;
  while (!rc && (c = getopt_long(argc, argv, "e:x:h", opts, NULL)) != -1) {
    switch (c) {
    case O_DCPI: break;
    case O_BY:
      if (!strcmp(optarg, "sym") || !strcmp(optarg, "symbol")) d->by = BY_SYM;
      else if (!strcmp(optarg, "insn")) d->by = BY_INSN;
      else if (!strcmp(optarg, "line")) d->by = BY_LINE;
      else {
        fprintf(stderr, "profileme diff: --by takes sym, insn or line, not '%s'\n", optarg);
        rc = 2;
      }
      break;
    case O_COMPARE: {
      char *list[NQ + 1];
      size_t n = split_list(optarg, list, NQ + 1);
      qset = true;
      for (size_t i = 0; i < n && !rc; i++) {
        size_t q = 0;
        while (q < NQ && strcmp(list[i], quants[q].name)) q++;
        if (q == NQ && !strcmp(list[i], "all")) {
          for (q = 0; q < NQ; q++) d->q[q] = true;
          continue;
        }
        if (q == NQ) {
          fprintf(stderr, "profileme diff: --compare: unknown quantity '%s' (see --dcpi --help)\n", list[i]);
          rc = 2;
        } else {
          d->q[q] = true;
        }
      }
      break;
    }
    case 'e': d->event = optarg; break;
    case O_SYMS: d->nsyms = split_list(optarg, d->syms, MAX_LIST); break;
    case 'x':
      if (!*optarg) {
        fprintf(stderr, "profileme diff: -x needs a non-empty separator\n");
        rc = 2;
      }
      d->sep = optarg;
      break;
    case O_SYMFS: symfs = optarg; break;
    case 'h': usage(stdout); free(d); return 0;
    default: usage(stderr); rc = 2; break;
    }
  }
  if (!qset)
    for (size_t q = 0; q < NQ; q++) d->q[q] = true;
  int nargs = argc - optind;
  if (!rc && nargs > 2) {
    fprintf(stderr, "profileme diff: --dcpi compares two files\n");
    rc = 2;
  }
  if (!rc) {
    d->p[0].path = nargs == 2 ? argv[optind] : "perf.data.old";
    d->p[1].path = nargs == 2 ? argv[optind + 1] : nargs == 1 ? argv[optind] : "perf.data";
    rc = run(d, symfs);
  }
  release(d);
  free(d);
  return rc;
}
