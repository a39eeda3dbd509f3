/* `profileme dcpi`: DCPI-style sums of ProfileMe samples (dcpiprof by
 * procedure, dcpilist/dcpitopcounts by instruction): for each symbol or
 * instruction, how many samples it got and how many of them carried each
 * ProfileMe status (dcpiprofileme(1)'s attributes: retired, valid, killed
 * early or late, trapped, mispredicted, DTB miss, unaligned, ...). Events
 * without ProfileMe data still get their sample counts. Rows are sorted by
 * samples, then address. -x SEP writes CSV (RFC 4180 quoting) with a header
 * row; instructions are named by their link-time address and shown as
 * objdump shows them, branch targets labelled (perf dcpi runs objdump). */
#include "tools/commands.h"
#include "analysis/session.h"
#include "analysis/exact.h"
#include "isa/disasm.h"
#include "util/err.h"
#include "analysis/hist.h"
#include "util/strlist.h"
#include "analysis/pm_status.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dkey { size_t ev; const struct sym_dso *dso; const struct sym_symbol *sym; uint64_t pc; };
struct dval {
  uint64_t samples, period;
  uint64_t wst[PM_NSTATUS];      /* period sums of the samples with each status */
  double period2, wst2[PM_NSTATUS];   /* the same of the squared periods */
  struct pm_counts pm;
  struct exact_counts ex;        /* record --truth: the exact counts of the row */
};

/* Output columns after samples: name and the status bits counted. */
static const struct { const char *name, *shortname; uint64_t bits; } cols[] = {
  { "retired", "retired", PM_ST_RETIRED }, { "killed", "killed", PM_ST_EARLY_KILL | PM_ST_LATE_KILL },
  { "mispredict", "mispred", PM_ST_MISPREDICT }, { "trap", "trap", PM_ST_TRAP },
  { "dtb_miss", "dtbmiss", PM_ST_DTB_MISS }, { "unaligned", "unalign", PM_ST_UNALIGNED },
  { "valid", "valid", PM_ST_VALID }, { "map_stall", "mapstall", PM_ST_MAP_STALL }, { "nyp", "nyp", PM_ST_NYP },
  { "ldstorder", "ldstord", PM_ST_LDSTORDER }, { "early_kill", "earlykil", PM_ST_EARLY_KILL },
  { "late_kill", "latekill", PM_ST_LATE_KILL }, { "taken", "taken", PM_ST_TAKEN },
  { "replay", "replay", PM_ST_REPLAY }, { "itb_miss", "itbmiss", PM_ST_ITB_MISS }, { "arith", "arith", PM_ST_ARITH },
  { "jmp_mispredict", "jmpmisp", PM_ST_JMP_MISPRED }, { "kernel", "kernel", PM_ST_KERNEL },
};
#define NCOLS (sizeof cols / sizeof cols[0])
#define TABLE_COLS 9             /* the readable table shows the first ones */
#define MAX_LIST 64

struct dcpi {
  bool by_insn;
  const char *sep;               /* CSV separator, or NULL for the table */
  char *syms[MAX_LIST], *events[MAX_LIST];
  size_t nsyms, nevents;
  int compare;                   /* the table's column compared with the truth: -1 samples */
  struct hist *h;
  uint64_t *total, *pm;          /* per event: samples, ProfileMe samples */
  struct exact_event *ex;        /* per event: the truth's view, when the file has it */
  bool truth;
  const char *symfs;
  struct dfile { const struct sym_dso *dso; struct disasm_file *f; } *files;   /* --by insn */
  size_t nfiles;
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme dcpi [-i FILE] [--by sym|insn] [-x SEP] [--symbols LIST] [-e EVENTS]\n"
    "       profileme dcpi --exec|--cpi [-i FILE] [--by insn|block|sym] [-x SEP]   (the trace)\n"
    "Sums ProfileMe samples by symbol or by instruction, DCPI style: samples and\n"
    "how many were retired, killed, mispredicted, trapped, DTB misses, unaligned...\n"
    "  -i, --input FILE     perf.data file (default: perf.data)\n"
    "      --by sym|insn    one row per symbol (default) or per instruction\n"
    "  -x, --field-separator SEP  CSV with a header row, fields separated by SEP\n"
    "      --symbols LIST   only these symbols\n"
    "  -e, --events LIST    only these events (by name)\n"
    "      --symfs DIR      look for the recorded files under DIR\n"
    "      --compare COL    with truth (record --truth): the status column the table\n"
    "                       compares with its exact count (default: the samples)\n"
    "With truth, every instruction executed is a row; estimate = exact total x the\n"
    "row's share of the event's period, with its 95%% Clopper-Pearson interval; '*'\n"
    "flags an exact count outside it (docs/profiling.md).\n"
    "CSV columns: event, pc (hex; the symbol's start with --by sym), symbol, dso,\n"
    "insn (disassembly, --by insn), samples, then per status: ");
  for (size_t i = 0; i < NCOLS; i++) fprintf(f, "%s%s", cols[i].name, i + 1 < NCOLS ? ", " : "\n");
  fprintf(f,
    "(empty for events without ProfileMe data); with truth, then for samples and\n"
    "each status: NAME_est, NAME_exact, NAME_lo, NAME_hi, NAME_out (1: outside).\n"
    "Exit status: 0 success, 1 unreadable input, 2 bad options.\n");
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct dcpi *d = ctx;
  const struct pd_sample *smp = r->sample;
  if (!smp || !in_list(d->events, d->nevents, smp->event->name)) return 0;
  size_t ev = session_event_index(s, smp->event);
  if (d->ex[ev].on) exact_sample(&d->ex[ev], smp->period);
  if (d->nsyms && (!r->loc.sym || !in_list(d->syms, d->nsyms, r->loc.sym->name))) return 0;
  struct dkey k;
  memset(&k, 0, sizeof k);
  k.ev = session_event_index(s, smp->event);
  k.dso = r->loc.dso;
  k.sym = r->loc.sym;
  if (d->by_insn) k.pc = r->loc.dso ? r->loc.vaddr : smp->ip;
  else if (k.sym) k.pc = k.sym->start;
  struct dval *v = hist_get(d->h, &k);
  if (!v) return PM_ENOMEM;
  v->samples++;
  v->period += smp->period;
  double p2 = (double)smp->period * (double)smp->period;
  v->period2 += p2;
  d->total[k.ev]++;
  struct pm_raw_v1 raw;
  if (session_pm_raw(smp, &raw))
    for (int i = 0; i < PM_NSTATUS; i++)
      if (raw.status >> i & 1) v->wst[i] += smp->period, v->wst2[i] += p2;
  if (pm_counts_add(&v->pm, smp)) d->pm[k.ev]++;
  return 0;
}

/* The row key of an address, as for a sample there. */
static void key_of(const struct dcpi *d, size_t ev, const struct sym_loc *loc, uint64_t ip, struct dkey *k)
{
  memset(k, 0, sizeof *k);
  k->ev = ev;
  k->dso = loc->dso;
  k->sym = loc->sym;
  if (d->by_insn) k->pc = loc->dso ? loc->vaddr : ip;
  else if (k->sym) k->pc = k->sym->start;
}

/* record --truth: every entry in an event's modes goes to its row, resolved
 * through the maps the records built (per process, by pid). */
static int add_truth(struct dcpi *d, struct session *s)
{
  size_t n;
  const struct pm_truth_entry *t = pd_reader_truth(s->r, &n);
  for (size_t ev = 0; ev < pd_reader_nevents(s->r); ev++) {
    if (!d->ex[ev].on || !in_list(d->events, d->nevents, pd_reader_event(s->r, ev)->name)) continue;
    for (size_t i = 0; i < n; i++) {
      if (!exact_in_modes(&d->ex[ev], &t[i])) continue;
      struct sym_loc loc;
      bool kernel = t[i].flags & PM_TRUTH_KERNEL;
      sym_resolve(s->m, (uint32_t)t[i].pid, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
                  t[i].pc, &loc);
      if (d->nsyms && (!loc.sym || !in_list(d->syms, d->nsyms, loc.sym->name))) continue;
      struct dkey k;
      key_of(d, ev, &loc, t[i].pc, &k);
      struct dval *v = hist_get(d->h, &k);
      if (!v) return PM_ENOMEM;
      exact_add(&v->ex, &t[i]);
    }
  }
  return 0;
}

/* A row's figures for one column (ci -1: the samples): estimate, exact,
 * interval. Returns false when the event has no truth or the exact count is
 * unknowable under its filters. */
struct cmp { double est, lo, hi; uint64_t exact; bool out; };
static bool compare_col(const struct dcpi *d, const struct dkey *k, const struct dval *v, int ci, struct cmp *c)
{
  struct exact_event *ev = &d->ex[k->ev];
  if (!ev->on || !ev->total_known) return false;
  uint64_t bits = ci < 0 ? 0 : cols[ci].bits, ks = 0, w = 0;
  double w2 = 0;
  if (!exact_value(ev, &v->ex, bits, &c->exact)) return false;
  if (ci < 0) {
    ks = v->samples, w = v->period, w2 = v->period2;
  } else {
    ks = pm_counts_sum(&v->pm, bits);
    for (int i = 0; i < PM_NSTATUS; i++)
      if (bits >> i & 1) w += v->wst[i], w2 += v->wst2[i];
  }
  exact_estimate(ev, ks, w, w2, &c->est, &c->lo, &c->hi);
  c->out = (double)c->exact < c->lo || (double)c->exact > c->hi;
  return true;
}

struct drow { const struct dkey *k; const struct dval *v; };

static int row_cmp(const void *pa, const void *pb)
{
  const struct drow *a = pa, *b = pb;
  if (a->k->ev != b->k->ev) return a->k->ev < b->k->ev ? -1 : 1;
  if (a->v->samples != b->v->samples) return a->v->samples > b->v->samples ? -1 : 1;
  uint64_t x0 = a->v->ex.n[0][0] + a->v->ex.n[1][0], y0 = b->v->ex.n[0][0] + b->v->ex.n[1][0];
  if (x0 != y0) return x0 > y0 ? -1 : 1;
  if (a->k->pc != b->k->pc) return a->k->pc < b->k->pc ? -1 : 1;
  const char *x = a->k->dso ? a->k->dso->path : "", *y = b->k->dso ? b->k->dso->path : "";
  return strcmp(x, y);
}

/* The objdump text of the instruction at k->pc, tabs as spaces; "" if
 * unknown. Targets are labelled from the file's symbols as objdump labels
 * them (what perf dcpi prints, running objdump), else, for what is not a
 * file (the kernel image), printed as addresses. */
static void insn_of(struct dcpi *d, const struct dkey *k, char *buf, size_t len)
{
  uint32_t w;
  buf[0] = '\0';
  if (!k->dso) return;
  struct disasm_file *f = NULL;
  size_t i = 0;
  while (i < d->nfiles && d->files[i].dso != k->dso) i++;
  if (i < d->nfiles) {
    f = d->files[i].f;
  } else if (!k->dso->kernel && k->dso->path[0] != '[') {
    char path[4096];
    snprintf(path, sizeof path, "%s%s", d->symfs ? d->symfs : "", k->dso->path);
    f = disasm_file_open(path);
    struct dfile *n = realloc(d->files, (d->nfiles + 1) * sizeof *n);
    if (n) {
      d->files = n;
      d->files[d->nfiles++] = (struct dfile){ k->dso, f };
    } else {
      disasm_file_close(f);
      f = NULL;
    }
  }
  if (!f || !disasm_file_insn(f, k->pc, buf, len)) {
    if (!sym_dso_insn((struct sym_dso *)k->dso, k->pc, &w)) return;
    struct axp_insn in = axp_decode(w);
    axp_disasm(&in, k->pc, buf, len);
  }
  for (char *p = buf; *p; p++)
    if (*p == '\t') *p = ' ';
  size_t n = strlen(buf);
  while (n && buf[n - 1] == ' ') buf[--n] = '\0';
}

/* Writes one CSV field, quoted when it holds the separator, a quote or a newline. */
static void csv_field(const char *sep, const char *s, bool first)
{
  if (!first) fputs(sep, stdout);
  if (!strstr(s, sep) && !strpbrk(s, "\"\n\r")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (const char *p = s; *p; p++) {
    if (*p == '"') putchar('"');
    putchar(*p);
  }
  putchar('"');
}

static void print_csv(struct dcpi *d, const struct session *s, const struct drow *rows, size_t n)
{
  static const char *const head[] = { "event", "pc", "symbol", "dso", "insn", "samples" };
  for (size_t i = 0; i < 6; i++) csv_field(d->sep, head[i], i == 0);
  for (size_t i = 0; i < NCOLS; i++) csv_field(d->sep, cols[i].name, false);
  static const char *const parts[] = { "est", "exact", "lo", "hi", "out" };
  char name[64];
  for (int ci = -1; d->truth && ci < (int)NCOLS; ci++)
    for (size_t p = 0; p < 5; p++) {
      snprintf(name, sizeof name, "%s_%s", ci < 0 ? "samples" : cols[ci].name, parts[p]);
      csv_field(d->sep, name, false);
    }
  putchar('\n');
  for (size_t r = 0; r < n; r++) {
    const struct dkey *k = rows[r].k;
    const struct dval *v = rows[r].v;
    char pc[32], insn[256], num[32];
    snprintf(pc, sizeof pc, "0x%" PRIx64, k->pc);
    if (d->by_insn) insn_of(d, k, insn, sizeof insn);
    else insn[0] = '\0';
    csv_field(d->sep, pd_reader_event(s->r, k->ev)->name, true);
    csv_field(d->sep, k->sym || d->by_insn ? pc : "", false);
    csv_field(d->sep, k->sym ? k->sym->name : "[unknown]", false);
    csv_field(d->sep, k->dso ? k->dso->short_name : "[unknown]", false);
    csv_field(d->sep, insn, false);
    snprintf(num, sizeof num, "%" PRIu64, v->samples);
    csv_field(d->sep, num, false);
    for (size_t i = 0; i < NCOLS; i++) {
      snprintf(num, sizeof num, "%" PRIu64, pm_counts_sum(&v->pm, cols[i].bits));
      csv_field(d->sep, d->pm[k->ev] || d->ex[k->ev].on ? num : "", false);
    }
    for (int ci = -1; d->truth && ci < (int)NCOLS; ci++) {
      struct cmp c;
      bool ok = compare_col(d, k, v, ci, &c);
      char f[5][32];
      snprintf(f[0], 32, "%.1f", ok ? c.est : 0.0);
      snprintf(f[1], 32, "%" PRIu64, ok ? c.exact : 0);
      snprintf(f[2], 32, "%.1f", ok ? c.lo : 0.0);
      snprintf(f[3], 32, "%.1f", ok ? c.hi : 0.0);
      snprintf(f[4], 32, "%d", ok && c.out);
      for (int p = 0; p < 5; p++) csv_field(d->sep, ok ? f[p] : "", false);
    }
    putchar('\n');
  }
}

/* "symbol+0xoff (dso)" for an instruction row. */
static void where_of(const struct dkey *k, char *buf, size_t len)
{
  const char *dso = k->dso ? k->dso->short_name : "[unknown]";
  if (k->sym) snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", k->sym->name, k->pc - k->sym->start, dso);
  else snprintf(buf, len, "[unknown] (%s)", dso);
}

/* Whether a row's exact count stands for at least one sample of its event
 * (exact x K / T >= 1): rows below that are inside their interval almost
 * whatever the sampling does, so they say nothing about it. */
static bool expected(const struct dcpi *d, const struct dkey *k, const struct cmp *c)
{
  const struct exact_event *ev = &d->ex[k->ev];
  return ev->total && (double)c->exact * (double)ev->samples >= (double)ev->total;
}

/* With truth: how many of an event's rows with at least one expected
 * sample have the exact count of the compared column inside the interval. */
static void coverage(const struct dcpi *d, const struct drow *rows, size_t n, size_t ev, size_t *in, size_t *all)
{
  *in = *all = 0;
  for (size_t r = 0; r < n; r++) {
    struct cmp c;
    if (rows[r].k->ev != ev || !compare_col(d, rows[r].k, rows[r].v, d->compare, &c)) continue;
    if (!expected(d, rows[r].k, &c)) continue;
    (*all)++;
    if (!c.out) (*in)++;
  }
}

static void print_head(const struct dcpi *d, const struct session *s, const struct drow *rows, size_t n,
                       size_t r, size_t ev, int wide)
{
  bool pm = d->pm[ev] > 0, ex = d->ex[ev].on;
  printf("%s# Event '%s': %" PRIu64 " samples%s\n", r ? "\n" : "", pd_reader_event(s->r, ev)->name, d->total[ev],
         pm || ex ? ", ProfileMe" : " (no ProfileMe data)");
  if (ex) {
    size_t in, all;
    coverage(d, rows, n, ev, &in, &all);
    printf("# Truth: %" PRIu64 " instances the event could keep; estimate = that x the row's share of "
           "the period.\n# Of the %zu rows with at least one expected sample, %zu (%.1f%%) have the exact %s "
           "inside the 95%% interval ('*': outside); rows without samples are shown only when outside.\n",
           d->ex[ev].total, all, in, all ? 100.0 * (double)in / (double)all : 0.0,
           d->compare < 0 ? "count" : cols[d->compare].name);
  }
  printf("#\n#  samples        %%");
  for (size_t i = 0; (pm || ex) && i < TABLE_COLS; i++) printf(" %8s", cols[i].shortname);
  if (ex) printf(" %12s %12s %27s  ", "estimate", "exact", "95% interval");
  if (d->by_insn) printf("  %-18s  %-*s  instruction\n", "pc", wide, "symbol+offset (dso)");
  else printf("  symbol (dso)\n");
}

static void print_table(struct dcpi *d, const struct session *s, const struct drow *rows, size_t n)
{
  size_t ev = SIZE_MAX;
  int wide = 19;
  char insn[256], where[512];
  for (size_t r = 0; d->by_insn && r < n; r++) {
    where_of(rows[r].k, where, sizeof where);
    if ((int)strlen(where) > wide) wide = (int)strlen(where);
  }
  for (size_t r = 0; r < n; r++) {
    const struct dkey *k = rows[r].k;
    const struct dval *v = rows[r].v;
    bool pm = d->pm[k->ev] > 0 || d->ex[k->ev].on;
    struct cmp c;
    bool have = d->ex[k->ev].on && compare_col(d, k, v, d->compare, &c);
    if (!v->samples && (!have || !c.out)) continue;   /* nothing sampled, nothing wrong: CSV has it */
    if (k->ev != ev) {
      ev = k->ev;
      print_head(d, s, rows, n, r, ev, wide);
    }
    printf("  %8" PRIu64 " %7.2f%%", v->samples, d->total[ev] ? 100.0 * (double)v->samples / (double)d->total[ev] : 0.0);
    for (size_t i = 0; pm && i < TABLE_COLS; i++) printf(" %8" PRIu64, pm_counts_sum(&v->pm, cols[i].bits));
    if (have)
      printf(" %12.0f %12" PRIu64 " [%12.0f, %12.0f]%s ", c.est, c.exact, c.lo, c.hi, c.out ? "*" : " ");
    else if (d->ex[ev].on)
      printf(" %12s %12s %27s  ", "-", "-", "-");
    if (!d->by_insn) {
      printf("  %s (%s)\n", k->sym ? k->sym->name : "[unknown]", k->dso ? k->dso->short_name : "[unknown]");
      continue;
    }
    insn_of(d, k, insn, sizeof insn);
    where_of(k, where, sizeof where);
    printf("  %#18" PRIx64 "  %-*s  %s\n", k->pc, wide, where, insn);
  }
}

static int run(struct dcpi *d, const char *input, const char *symfs)
{
  struct session s;
  if (session_open(&s, input, symfs)) {
    fprintf(stderr, "profileme dcpi: %s\n", s.err);
    return 1;
  }
  size_t nev = pd_reader_nevents(s.r);
  int rc = 1;
  d->h = hist_create(sizeof(struct dkey), sizeof(struct dval));
  d->total = calloc(nev + 1, 8);
  d->pm = calloc(nev + 1, 8);
  d->ex = calloc(nev + 1, sizeof *d->ex);
  size_t ntruth;
  const struct pm_truth_entry *truth = pd_reader_truth(s.r, &ntruth);
  int err = d->ex ? 0 : PM_ENOMEM;
  for (size_t i = 0; !err && i < nev; i++) {
    err = exact_event_init(&d->ex[i], pd_reader_event(s.r, i), truth, ntruth);
    if (d->ex[i].on) d->truth = true;
  }
  struct drow *rows = NULL;
  if (!d->h || !d->total || !d->pm || err) {
    fprintf(stderr, "profileme dcpi: %s\n", pm_strerror(PM_ENOMEM));
  } else if (session_run(&s, on_record, d)) {
    fprintf(stderr, "profileme dcpi: %s: %s\n", s.path, s.err);
  } else if (add_truth(d, &s)) {
    fprintf(stderr, "profileme dcpi: %s\n", pm_strerror(PM_ENOMEM));
  } else if (!(rows = calloc(hist_count(d->h) + 1, sizeof *rows))) {
    fprintf(stderr, "profileme dcpi: %s\n", pm_strerror(PM_ENOMEM));
  } else {
    size_t n = hist_count(d->h);
    for (size_t i = 0; i < n; i++) rows[i] = (struct drow){ hist_key(d->h, i), hist_val(d->h, i) };
    qsort(rows, n, sizeof *rows, row_cmp);
    if (d->sep) print_csv(d, &s, rows, n);
    else print_table(d, &s, rows, n);
    rc = 0;
  }
  free(rows);
  hist_destroy(d->h);
  free(d->total);
  free(d->pm);
  for (size_t i = 0; d->ex && i < nev; i++) exact_event_free(&d->ex[i]);
  free(d->ex);
  for (size_t i = 0; i < d->nfiles; i++) disasm_file_close(d->files[i].f);
  free(d->files);
  session_close(&s);
  return rc;
}

int cmd_dcpi(int argc, char **argv)
{
  for (int i = 1; i < argc; i++)    /* the trace's modes (cmd_cpi.c) */
    if (!strcmp(argv[i], "--exec") || !strcmp(argv[i], "--cpi")) return cmd_dcpi_cpi(argc, argv, !strcmp(argv[i], "--cpi"));
  enum { O_BY = 256, O_SYMS, O_SYMFS, O_COMPARE };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "by", required_argument, NULL, O_BY },
    { "field-separator", required_argument, NULL, 'x' }, { "symbols", required_argument, NULL, O_SYMS },
    { "events", required_argument, NULL, 'e' }, { "symfs", required_argument, NULL, O_SYMFS },
    { "compare", required_argument, NULL, O_COMPARE }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  struct dcpi d = { .by_insn = false, .compare = -1 };
  const char *input = NULL, *symfs = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:x:e:h", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case O_BY:
      if (!strcmp(optarg, "insn")) d.by_insn = true;
      else if (!strcmp(optarg, "sym") || !strcmp(optarg, "symbol")) d.by_insn = false;
      else {
        fprintf(stderr, "profileme dcpi: --by takes sym or insn, not '%s'\n", optarg);
        return 2;
      }
      break;
    case 'x':
      if (!*optarg) {
        fprintf(stderr, "profileme dcpi: -x needs a non-empty separator\n");
        return 2;
      }
      d.sep = optarg;
      break;
    case O_SYMS: d.nsyms = split_list(optarg, d.syms, MAX_LIST); break;
    case 'e': d.nevents = split_list(optarg, d.events, MAX_LIST); break;
    case O_SYMFS: symfs = optarg; break;
    case O_COMPARE:
      d.compare = -2;
      for (size_t i = 0; i < NCOLS; i++)
        if (!strcmp(optarg, cols[i].name)) d.compare = (int)i;
      if (!strcmp(optarg, "samples")) d.compare = -1;
      if (d.compare == -2) {
        fprintf(stderr, "profileme dcpi: --compare takes samples or a status column name, not '%s'\n", optarg);
        return 2;
      }
      break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "profileme dcpi: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  d.symfs = symfs;
  return run(&d, input, symfs);
}
