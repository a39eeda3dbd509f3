/* `profileme annotate`: perf annotate --stdio for Alpha code. For each event
 * with samples in the symbol: every instruction of the symbol with its share
 * of the symbol's period ("local period"), disassembled by axp_disasm, the
 * source line (DWARF) printed above the first instruction of each new line.
 * For ProfileMe events the lines also count samples by status (retired,
 * killed, mispredict, trap, DTB miss, unaligned, Icache miss), as DCPI's
 * dcpilist does. Without SYMBOL, every sampled symbol, hottest first. With
 * the exact counts of `record --truth`, each line and each symbol also get
 * the exact count, the sampled estimate and its 95% interval (analysis/exact.h). */
#include "tools/commands.h"
#include "analysis/session.h"
#include "analysis/itrace_session.h"
#include "tools/itrace_args.h"
#include "analysis/exact.h"
#include "isa/disasm.h"
#include "util/err.h"
#include "analysis/hist.h"
#include "analysis/pm_status.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct akey { size_t ev; const struct sym_dso *dso; const struct sym_symbol *sym; uint64_t vaddr; };
struct aval { uint64_t samples, period; double period2; struct pm_counts pm; struct exact_counts ex; };

/* The ProfileMe columns: header and the status bits each counts. */
static const struct { const char *name; uint64_t bits; } pm_cols[] = {
  { "samples", 0 }, { "retired", PM_ST_RETIRED }, { "killed", PM_ST_EARLY_KILL | PM_ST_LATE_KILL },
  { "mispred", PM_ST_MISPREDICT }, { "trap", PM_ST_TRAP }, { "dtbmiss", PM_ST_DTB_MISS },
  { "unalign", PM_ST_UNALIGNED }, { "nyp", PM_ST_NYP },
};
#define NPMCOLS (sizeof pm_cols / sizeof pm_cols[0])

/* A source file read once, split into lines. */
struct src_file { char *path, *text; char **lines; size_t n; };

struct annotate {
  const char *symbol;            /* NULL: all */
  bool show_nr, no_source;
  struct hist *h;                /* akey -> aval, counts per instruction */
  struct exact_event *ex;        /* per event: the truth's view (record --truth) */
  struct src_file *files;
  size_t nfiles;
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme annotate [-i FILE] [--stdio] [-n] [SYMBOL]\n"
    "Lists the instructions of SYMBOL (every sampled symbol when omitted) with\n"
    "their share of the symbol's samples, disassembly and source lines, like\n"
    "perf annotate --stdio; ProfileMe events add per-instruction status counts.\n"
    "  -i, --input FILE        perf.data file (default: perf.data)\n"
    "      --stdio             text output (the only interface)\n"
    "  -n, --show-nr-samples   sample counts instead of percentages\n"
    "      --no-source         disassembly only\n"
    "      --symfs DIR         look for the recorded files under DIR\n"
    "Exit status: 0 success, 1 unreadable input or no samples in SYMBOL, 2 bad options.\n");
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct annotate *a = ctx;
  if (r->sample && a->ex[session_event_index(s, r->sample->event)].on)
    exact_sample(&a->ex[session_event_index(s, r->sample->event)], r->sample->period);
  if (!r->sample || !r->loc.sym) return 0;
  if (a->symbol && strcmp(r->loc.sym->name, a->symbol)) return 0;
  struct akey k;
  memset(&k, 0, sizeof k);
  k.ev = session_event_index(s, r->sample->event);
  k.dso = r->loc.dso;
  k.sym = r->loc.sym;
  k.vaddr = r->loc.vaddr & ~3ull;
  struct aval *v = hist_get(a->h, &k);
  if (!v) return PM_ENOMEM;
  v->samples++;
  v->period += r->sample->period;
  v->period2 += (double)r->sample->period * (double)r->sample->period;
  pm_counts_add(&v->pm, r->sample);
  return 0;
}

/* record --truth: the exact counts of the instructions of every sampled
 * symbol, resolved through the maps the records built. */
static int add_truth(struct annotate *a, struct session *s)
{
  size_t n;
  const struct pm_truth_entry *t = pd_reader_truth(s->r, &n);
  if (!t) return 0;
  struct hist *sampled = hist_create(sizeof(struct akey), sizeof(bool));
  if (!sampled) return PM_ENOMEM;
  int rc = 0;
  for (size_t i = 0; i < hist_count(a->h) && !rc; i++) {
    struct akey k = *(const struct akey *)hist_key(a->h, i);
    k.vaddr = 0;
    bool *b = hist_get(sampled, &k);
    if (b) *b = true;
    else rc = PM_ENOMEM;
  }
  for (size_t ev = 0; ev < pd_reader_nevents(s->r) && !rc; ev++) {
    for (size_t i = 0; a->ex[ev].on && i < n && !rc; i++) {
      if (!exact_in_modes(&a->ex[ev], &t[i])) continue;
      struct sym_loc loc;
      bool kernel = t[i].flags & PM_TRUTH_KERNEL;
      sym_resolve(s->m, (uint32_t)t[i].pid, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, t[i].pc, &loc);
      if (!loc.sym) continue;
      struct akey k = { .ev = ev, .dso = loc.dso, .sym = loc.sym, .vaddr = 0 };
      bool *b = hist_get(sampled, &k);   /* inserted false when the symbol had no sample */
      if (!b) { rc = PM_ENOMEM; break; }
      if (!*b) continue;
      k.vaddr = loc.vaddr & ~3ull;
      struct aval *v = hist_get(a->h, &k);
      if (!v) { rc = PM_ENOMEM; break; }
      exact_add(&v->ex, &t[i]);
    }
  }
  hist_destroy(sampled);
  return rc;
}

/* ---- source text ---- */

static const struct src_file *src_get(struct annotate *a, const char *path)
{
  for (size_t i = 0; i < a->nfiles; i++)
    if (!strcmp(a->files[i].path, path)) return &a->files[i];
  struct src_file *nf = realloc(a->files, (a->nfiles + 1) * sizeof *nf);
  if (!nf) return NULL;
  a->files = nf;
  struct src_file *f = &a->files[a->nfiles++];
  memset(f, 0, sizeof *f);
  f->path = strdup(path);
  FILE *fp = fopen(path, "r");
  if (!fp) return f;
  size_t cap = 0, len = 0;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, fp)) > 0;) {
    if (len + n + 1 > cap) {
      cap = (len + n + 1) * 2;
      char *t = realloc(f->text, cap);
      if (!t) break;
      f->text = t;
    }
    memcpy(f->text + len, buf, n);
    len += n;
  }
  fclose(fp);
  if (!f->text) return f;
  f->text[len] = '\0';
  for (char *p = f->text; *p; p++)
    if (*p == '\n') f->n++;
  f->lines = calloc(f->n + 2, sizeof *f->lines);
  size_t i = 0;
  for (char *p = f->text; f->lines && *p && i <= f->n;) {
    f->lines[i++] = p;
    char *nl = strchr(p, '\n');
    if (!nl) break;
    *nl = '\0';
    p = nl + 1;
  }
  f->n = f->lines ? i : 0;
  return f;
}

static void src_free(struct annotate *a)
{
  for (size_t i = 0; i < a->nfiles; i++) {
    free(a->files[i].path);
    free(a->files[i].text);
    free(a->files[i].lines);
  }
  free(a->files);
}

/* ---- listing ---- */

static const char *symbolize(void *ctx, uint64_t addr, uint64_t *off)
{
  const struct sym_symbol *s = sym_dso_find(ctx, addr);
  if (!s) return NULL;
  *off = addr - s->start;
  return s->name;
}

/* The instruction text as perf shows objdump's: mnemonic padded to 6. */
static void insn_text(struct sym_dso *dso, uint64_t pc, char *out, size_t len)
{
  uint32_t w;
  if (!sym_dso_insn(dso, pc, &w)) {
    snprintf(out, len, "(not readable)");
    return;
  }
  struct axp_insn d = axp_decode(w);
  char text[512];
  axp_disasm_sym(&d, pc, text, sizeof text, symbolize, dso);
  char *tab = strchr(text, '\t');
  if (!tab) {
    snprintf(out, len, "%s", text);
    return;
  }
  *tab = '\0';
  if (tab[1]) snprintf(out, len, "%-6s %s", text, tab + 1);
  else snprintf(out, len, "%s", text);
}

struct listing {
  struct annotate *a;
  struct sym_dso *dso;
  struct exact_event *ex;        /* NULL without truth */
  bool pm;
  int prefix;                    /* width before " : " */
  uint64_t total;                /* symbol period */
  const char *last_file;
  unsigned last_line;
};

static void print_source(struct listing *l, uint64_t pc)
{
  const char *file;
  unsigned line;
  if (l->a->no_source || !sym_dso_srcline(l->dso, pc, &file, &line)) return;
  if (l->last_file == file && l->last_line == line) return;
  l->last_file = file;
  l->last_line = line;
  const struct src_file *f = src_get(l->a, file);
  if (f && line >= 1 && line <= f->n) printf("%*s : %-4u %s\n", l->prefix, "", line, f->lines[line - 1]);
  else printf("%*s : %-4u %s:%u\n", l->prefix, "", line, file, line);
}

static void print_insn(struct listing *l, uint64_t pc, const struct aval *v)
{
  static const struct aval zero;
  char text[600];
  if (!v) v = &zero;
  print_source(l, pc);
  if (l->a->show_nr) printf(" %7" PRIu64, v->samples);
  else printf(" %7.2f", l->total ? 100.0 * (double)v->period / (double)l->total : 0.0);
  for (size_t c = 0; l->pm && c < NPMCOLS; c++) {
    uint64_t n = pm_cols[c].bits ? pm_counts_sum(&v->pm, pm_cols[c].bits) : v->pm.n;
    printf(" %7" PRIu64, n);
  }
  uint64_t exact;
  if (l->ex && exact_value(l->ex, &v->ex, 0, &exact)) {
    double est, lo, hi;
    exact_estimate(l->ex, v->samples, v->period, v->period2, &est, &lo, &hi);
    bool out = (double)exact < lo || (double)exact > hi;
    printf(" %11" PRIu64 " %11.0f %11.0f %11.0f%s", exact, est, lo, hi, out ? "*" : " ");
  } else if (l->ex) {
    printf(" %11s %11s %11s %11s ", "-", "-", "-", "-");
  }
  insn_text(l->dso, pc, text, sizeof text);
  printf(" :   %" PRIx64 ":   %s\n", pc, text);
}

/* Entries of one (event, dso, symbol), found by scanning the table. */
static int annotate_one(struct annotate *a, struct session *s, const struct akey *key)
{
  struct sym_dso *dso = (struct sym_dso *)key->dso;
  const struct sym_symbol *sym = key->sym;
  uint64_t n = sym->end - sym->start, samples = 0, total = 0, pm = 0;
  double total2 = 0;
  struct exact_counts sum;
  memset(&sum, 0, sizeof sum);
  n = n / 4 > 65536 ? 65536 : n / 4;
  const struct aval **at = calloc(n ? n : 1, sizeof *at);
  if (!at) return PM_ENOMEM;
  for (size_t i = 0; i < hist_count(a->h); i++) {
    const struct akey *k = hist_key(a->h, i);
    if (k->ev != key->ev || k->dso != key->dso || k->sym != sym) continue;
    const struct aval *v = hist_val(a->h, i);
    samples += v->samples;
    total += v->period;
    total2 += v->period2;
    pm += v->pm.n;
    for (int m = 0; m < 2; m++)
      for (int c = 0; c < PM_TRUTH_NCOUNTS; c++) sum.n[m][c] += v->ex.n[m][c];
    uint64_t idx = (k->vaddr - sym->start) / 4;
    if (idx < n) at[idx] = v;
  }
  struct exact_event *ex = a->ex[key->ev].on && a->ex[key->ev].total_known ? &a->ex[key->ev] : NULL;
  struct listing l = { a, dso, ex, pm > 0, 8, total, NULL, 0 };
  if (l.pm) l.prefix += (int)(8 * NPMCOLS);
  if (ex) l.prefix += 4 * 12 + 1;
  char head[1024];
  int len = snprintf(head, sizeof head, " %-7s", a->show_nr ? "Samples" : "Percent");
  for (size_t c = 0; l.pm && c < NPMCOLS; c++) len += snprintf(head + len, sizeof head - (size_t)len, " %7s", pm_cols[c].name);
  if (ex) len += snprintf(head + len, sizeof head - (size_t)len, " %11s %11s %11s %11s ", "exact", "estimate", "95%lo", "95%hi");
  len += snprintf(head + len, sizeof head - (size_t)len, " |\tSource code & Disassembly of %s for %s (%" PRIu64
                  " samples, percent: local period)", dso->short_name, pd_reader_event(s->r, key->ev)->name, samples);
  printf("%s\n", head);
  uint64_t exact;
  if (ex && exact_value(ex, &sum, 0, &exact)) {
    double est, lo, hi;
    exact_estimate(ex, samples, total, total2, &est, &lo, &hi);
    printf(" Truth for %s: exact %" PRIu64 ", estimate %.0f, 95%% interval [%.0f, %.0f]%s\n", sym->name, exact, est,
           lo, hi, (double)exact < lo || (double)exact > hi ? " (outside)" : "");
  }
  for (int i = 0; i < len + 4; i++) putchar('-');
  printf("\n%*s :\n%*s :    %016" PRIx64 " <%s>:\n", l.prefix, "", l.prefix, "", sym->start, sym->name);
  for (uint64_t i = 0; i < n; i++) print_insn(&l, sym->start + 4 * i, at[i]);
  putchar('\n');
  free(at);
  return 0;
}

struct symtot { const struct akey *k; uint64_t period; };

static int tot_cmp(const void *pa, const void *pb)
{
  const struct symtot *a = pa, *b = pb;
  if (a->k->ev != b->k->ev) return a->k->ev < b->k->ev ? -1 : 1;
  if (a->period != b->period) return a->period > b->period ? -1 : 1;
  return strcmp(a->k->sym->name, b->k->sym->name);
}

/* Lists every (event, dso, symbol) with samples: per event, hottest first. */
static int annotate_all(struct annotate *a, struct session *s)
{
  struct hist *syms = hist_create(sizeof(struct akey), sizeof(uint64_t));
  if (!syms) return PM_ENOMEM;
  for (size_t i = 0; i < hist_count(a->h); i++) {
    struct akey k = *(const struct akey *)hist_key(a->h, i);
    k.vaddr = 0;
    uint64_t *p = hist_get(syms, &k);
    if (!p) { hist_destroy(syms); return PM_ENOMEM; }
    *p += ((const struct aval *)hist_val(a->h, i))->period;
  }
  size_t n = hist_count(syms);
  struct symtot *t = calloc(n ? n : 1, sizeof *t);
  int rc = t ? 0 : PM_ENOMEM;
  for (size_t i = 0; t && i < n; i++) t[i] = (struct symtot){ hist_key(syms, i), *(uint64_t *)hist_val(syms, i) };
  if (t) qsort(t, n, sizeof *t, tot_cmp);
  for (size_t i = 0; t && i < n && !rc; i++) rc = annotate_one(a, s, t[i].k);
  free(t);
  hist_destroy(syms);
  return rc;
}

static int annotate_main(int argc, char **argv);

/* A file with an instruction trace (or --itrace[=OPTS]) is decoded into
 * samples first, as perf annotate does (default "i": every 100 us; --itrace=i1
 * gives exact counts). */
int cmd_annotate(int argc, char **argv)
{
  char *tmp = NULL;
  int rc = itrace_args_inject("annotate", &argc, &argv, &tmp, "i");
  if (rc) return rc;
  rc = annotate_main(argc, argv);
  if (tmp) { unlink(tmp); free(tmp); free(argv); }
  return rc;
}

static int annotate_main(int argc, char **argv)
{
  enum { O_STDIO = 256, O_NO_SOURCE, O_SYMFS };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "stdio", no_argument, NULL, O_STDIO },
    { "show-nr-samples", no_argument, NULL, 'n' }, { "no-source", no_argument, NULL, O_NO_SOURCE },
    { "symfs", required_argument, NULL, O_SYMFS }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  struct annotate a = { .symbol = NULL };
  const char *input = NULL, *symfs = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:nh", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case O_STDIO: break;
    case 'n': a.show_nr = true; break;
    case O_NO_SOURCE: a.no_source = true; break;
    case O_SYMFS: symfs = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (argc - optind > 1) {
    fprintf(stderr, "profileme annotate: one symbol at a time\n");
    usage(stderr);
    return 2;
  }
  if (optind < argc) a.symbol = argv[optind];
  struct session s;
  if (session_open(&s, input, symfs)) {
    fprintf(stderr, "profileme annotate: %s\n", s.err);
    return 1;
  }
  int rc = 1, err = 0;
  size_t nev = pd_reader_nevents(s.r), ntruth;
  const struct pm_truth_entry *truth = pd_reader_truth(s.r, &ntruth);
  a.ex = calloc(nev + 1, sizeof *a.ex);
  for (size_t i = 0; a.ex && !err && i < nev; i++) err = exact_event_init(&a.ex[i], pd_reader_event(s.r, i), truth, ntruth);
  if (!a.ex || err || !(a.h = hist_create(sizeof(struct akey), sizeof(struct aval)))) {
    fprintf(stderr, "profileme annotate: %s\n", pm_strerror(PM_ENOMEM));
  } else if (session_run(&s, on_record, &a)) {
    fprintf(stderr, "profileme annotate: %s: %s\n", s.path, s.err);
  } else if (add_truth(&a, &s)) {
    fprintf(stderr, "profileme annotate: %s\n", pm_strerror(PM_ENOMEM));
  } else if (!hist_count(a.h)) {
    if (a.symbol) fprintf(stderr, "profileme annotate: %s: no samples in a symbol named '%s'\n", s.path, a.symbol);
    else fprintf(stderr, "profileme annotate: %s: no samples in resolved symbols\n", s.path);
  } else if (annotate_all(&a, &s)) {
    fprintf(stderr, "profileme annotate: %s\n", pm_strerror(PM_ENOMEM));
  } else {
    rc = 0;
  }
  hist_destroy(a.h);
  for (size_t i = 0; a.ex && i < nev; i++) exact_event_free(&a.ex[i]);
  free(a.ex);
  src_free(&a);
  session_close(&s);
  return rc;
}
