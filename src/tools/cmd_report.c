/* `profileme report`: perf report --stdio. Samples are grouped per event by
 * the sort keys (default comm,dso,symbol) and listed by overhead (share of
 * the event's total period), ties broken by the keys in order, with perf's
 * column layout: a column is as wide as its header or its widest value,
 * unresolved symbols print as "[.] 0x<16 hex digits>" of the map-relative
 * address (and widen Symbol to 22, Shared Object to 16), the last column is
 * not padded when it is the symbol. Events without samples are skipped. */
#include "analysis/callchain.h"
#include "tools/commands.h"
#include "uarch/uarch.h"
#include "analysis/dump.h"
#include "analysis/session.h"
#include "analysis/itrace_session.h"
#include "tools/itrace_args.h"
#include "util/err.h"
#include "analysis/hist.h"
#include "util/strlist.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum key { K_COMM, K_DSO, K_SYM, K_PID, K_CPU, NKEYS };
static const char *const key_names[NKEYS] = { "comm", "dso", "symbol", "pid", "cpu" };

#define MAX_LIST 64

struct rkey {                  /* one histogram entry's identity; unused keys stay 0 */
  const char *comm;
  const struct sym_dso *dso;
  const struct sym_symbol *sym;
  uint64_t addr;               /* unresolved symbol: the address perf prints */
  uint32_t tid;
  uint32_t cpu;
  uint32_t level;
};
struct rval {
  uint64_t period, samples;
  uint64_t acc;                /* children mode: the period of samples with it on their chain */
  uint32_t root;               /* its call tree (0: none) */
  uint32_t tid;                /* the thread of its first sample (perf's he->thread) */
};

struct report {
  enum key keys[8];
  size_t nkeys;
  bool show_nr, header, header_only;
  double percent_limit;
  char *comms[MAX_LIST], *dsos[MAX_LIST], *syms[MAX_LIST], *pids[MAX_LIST], *tids[MAX_LIST];
  size_t ncomms, ndsos, nsyms, npids, ntids;
  struct hist **hists;         /* per event */
  uint64_t *total, *nsamples;  /* per event, filters not applied (as perf) */
  bool dump;                   /* -D: dump every record, then the counts */
  uint32_t types[DUMP_NTYPES]; /* -D: records per type, [0] all */
  /* call graphs (perf report -g): on when asked or when the file has chains */
  int graph;                   /* -1 unset, 0 off (-g none), 1 on */
  int children;                /* -1 unset: on with graphs, as perf's default */
  bool sort_set;
  struct cc_param cc;
  struct cc_forest *forest;
  struct cc_unwinder uw;       /* x86-64 DWARF unwinding (REGS_USER + STACK_USER) */
  struct cc_frames frames;
  struct sym_loc *locs;        /* the frames resolved, in display order */
  uint64_t ips[128];           /* and their addresses */
  size_t nlocs;
  uint64_t bad_chains;
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme report [-i FILE] [--stdio] [-s KEYS] [-n] [-D] [FILTERS]\n"
    "Summarizes the samples of a perf.data file like perf report --stdio: one\n"
    "section per event, entries sorted by overhead (share of the event's period).\n"
    "  -i, --input FILE        perf.data file (default: perf.data)\n"
    "      --stdio             text output (the only interface)\n"
    "  -s, --sort KEYS         comma list of overhead, comm, dso, symbol (sym), pid, cpu\n"
    "                          (default: comm,dso,symbol)\n"
    "  -n, --show-nr-samples   add a Samples column\n"
    "      --comms LIST        only these command names (also --comm)\n"
    "      --dsos LIST         only these shared objects (short names)\n"
    "      --symbols LIST      only these symbols\n"
    "      --pid LIST, --tid LIST  only these processes or threads\n"
    "      --percent-limit N   hide entries under N percent\n"
    "      --symfs DIR         look for the recorded files under DIR\n"
    "      --header, --header-only  print the file's header information\n"
    "  -D, --dump-raw-trace    dump every record as script -D does (without the\n"
    "                          script lines), then the counts of records and samples\n"
    "  -g, --call-graph[=ARGS] call graphs, perf's print_type,threshold,print_limit,order,\n"
    "                          value: graph|fractal|flat|folded|none, 0.5, caller|callee,\n"
    "                          percent|period|count (default graph,0.5,caller; on when\n"
    "                          the file has callchains or user stacks)\n"
    "  -G, --inverted          caller order\n"
    "      --children, --no-children  accumulate callees' periods into callers\n"
    "      --max-stack N       frames per chain (127)\n"
    "Exit status: 0 success, 1 unreadable or malformed input, 2 bad options.\n");
}

static int parse_sort(struct report *rp, char *arg)
{
  char *list[16];
  size_t n = split_list(arg, list, 16);
  rp->nkeys = 0;
  for (size_t i = 0; i < n; i++) {
    if (!strcmp(list[i], "overhead")) continue;
    if (!strcmp(list[i], "sample")) { rp->show_nr = true; continue; }
    int k = -1;
    for (int j = 0; j < NKEYS; j++)
      if (!strcmp(list[i], key_names[j])) k = j;
    if (!strcmp(list[i], "sym")) k = K_SYM;
    if (k < 0 || rp->nkeys == 8) {
      fprintf(stderr, "profileme report: unknown --sort key '%s' (overhead, comm, dso, symbol, sym, pid, cpu)\n", list[i]);
      return 2;
    }
    rp->keys[rp->nkeys++] = (enum key)k;
  }
  return 0;
}

static bool has_key(const struct report *rp, enum key k)
{
  for (size_t i = 0; i < rp->nkeys; i++)
    if (rp->keys[i] == k) return true;
  return false;
}

static const char *dso_name(const struct sym_dso *d) { return d ? d->short_name : "[unknown]"; }

/* The key an entry for frame loc would have (the sort keys in use). */
static void frame_rkey(const struct report *rp, const struct rkey *self, const struct sym_loc *loc, struct rkey *k)
{
  *k = *self;
  if (has_key(rp, K_DSO)) k->dso = loc->dso;
  if (has_key(rp, K_SYM)) {
    k->sym = loc->sym;
    /* perf's fill_callchain_info sets the level only for a frame with a
     * map: one without keeps the sample's */
    if (loc->dso) k->level = (uint32_t)loc->level;
    k->addr = loc->sym ? 0 : loc->addr;
  }
}

/* Adds a chain (display order, from locs[from]) to entry v's tree. */
static int add_tree(struct report *rp, struct rval *v, struct hist *h, const struct rkey *k, size_t from,
                    uint64_t period)
{
  if (!v->root) {
    uint32_t root = cc_tree_new(rp->forest);
    if (!root) return PM_ENOMEM;
    v = hist_get(h, k);        /* still there: no insert since */
    v->root = root;
  }
  struct cc_key keys[128];
  size_t n = 0;
  for (size_t i = from; i < rp->nlocs && n < 128; i++) {
    memset(&keys[n], 0, sizeof keys[n]);
    keys[n].dso = rp->locs[i].dso;
    keys[n].sym = rp->locs[i].sym;
    if (!rp->locs[i].sym) keys[n].ip = rp->ips[i];
    n++;
  }
  return cc_tree_add(rp->forest, v->root, keys, n, period);
}

/* perf's hist_entry_iter cumulative callbacks: the sample's own entry gets
 * the whole chain; with --children every other frame's entry (once per
 * sample, recursion counted once) gets the period as Children and the chain
 * from that frame on. */
static int add_chains(struct report *rp, struct session *s, const struct pd_sample *smp, size_t ev,
                      const struct rkey *self)
{
  int e = cc_sample_frames(s, smp, rp->uw.unwind ? &rp->uw : NULL, &rp->frames);
  if (e) return e;
  if (rp->frames.bad) rp->bad_chains++;
  size_t n = rp->frames.n < rp->cc.max_stack ? rp->frames.n : rp->cc.max_stack;
  if (n > 128) n = 128;
  rp->nlocs = n;
  for (size_t i = 0; i < n; i++) {   /* caller order keeps the outermost frames, as perf */
    const struct cc_frame *f = &rp->frames.f[rp->cc.caller ? rp->frames.n - 1 - i : i];
    sym_resolve(s->m, smp->pid, f->cpumode, f->ip, &rp->locs[i]);
    rp->ips[i] = f->ip;
  }
  struct hist *h = rp->hists[ev];
  struct rval *v = hist_get(h, self);
  if (!v) return PM_ENOMEM;
  if (n && (e = add_tree(rp, v, h, self, 0, smp->period))) return e;
  if (!rp->children) return 0;
  struct rkey seen[129];
  size_t nseen = 0;
  seen[nseen++] = *self;
  for (size_t i = 0; i < n; i++) {
    struct rkey k;
    frame_rkey(rp, self, &rp->locs[i], &k);
    bool dup = false;
    for (size_t j = 0; j < nseen && !dup; j++) dup = !memcmp(&seen[j], &k, sizeof k);
    if (dup) continue;
    seen[nseen++] = k;
    if (!(v = hist_get(h, &k))) return PM_ENOMEM;
    if (!v->acc && !v->samples) v->tid = smp->tid;
    v->acc += smp->period;
    if ((e = add_tree(rp, v, h, &k, i, smp->period))) return e;
  }
  return 0;
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct report *rp = ctx;
  if (rp->dump) {
    /* perf report -D: the dump perf script -D prints, without script lines */
    dump_record(s, r, DUMP_REPORT, NULL, NULL);
    rp->types[0]++;
    if (r->h->type < DUMP_NTYPES) rp->types[r->h->type]++;
  }
  if (!r->sample) return 0;
  const struct pd_sample *smp = r->sample;
  size_t ev = session_event_index(s, smp->event);
  rp->nsamples[ev]++;
  rp->total[ev] += smp->period;
  if (rp->dump) return 0;
  const char *comm = sym_comm(s->m, smp->pid, smp->tid);
  if (!in_list(rp->comms, rp->ncomms, comm) || !in_list(rp->dsos, rp->ndsos, dso_name(r->loc.dso)) ||
      (rp->nsyms && (!r->loc.sym || !in_list(rp->syms, rp->nsyms, r->loc.sym->name))) ||
      !in_num_list(rp->pids, rp->npids, smp->pid) || !in_num_list(rp->tids, rp->ntids, smp->tid))
    return 0;
  struct rkey k;
  memset(&k, 0, sizeof k);
  if (has_key(rp, K_COMM) || has_key(rp, K_PID)) k.comm = comm;
  if (has_key(rp, K_PID)) k.tid = smp->tid;
  if (has_key(rp, K_CPU)) k.cpu = smp->cpu;
  if (has_key(rp, K_DSO)) k.dso = r->loc.dso;
  if (has_key(rp, K_SYM)) {
    k.sym = r->loc.sym;
    k.level = (uint32_t)r->loc.level;
    if (!k.sym) k.addr = r->loc.addr;
  }
  struct rval *v = hist_get(rp->hists[ev], &k);
  if (!v) return PM_ENOMEM;
  if (!v->samples) v->tid = smp->tid;
  v->period += smp->period;
  v->samples++;
  if (rp->graph != 1) return 0;
  v->acc += smp->period;
  return add_chains(rp, s, smp, ev, &k);
}

/* ---- output ---- */

struct row { const struct rkey *k; const struct rval *v; };
static const struct report *sort_rp;   /* qsort has no context argument */

static int null_last(const void *a, const void *b) { return a ? -1 : b ? 1 : 0; }

static int cmp_key(const struct rkey *a, const struct rkey *b, enum key k)
{
  int c;
  switch (k) {
  case K_COMM: return strcmp(a->comm, b->comm);
  case K_PID: return a->tid < b->tid ? -1 : a->tid > b->tid;
  case K_CPU: return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
  case K_DSO:
    if (!a->dso || !b->dso) return null_last(a->dso, b->dso);
    return strcmp(a->dso->short_name, b->dso->short_name);
  case K_SYM:
    if (a->sym && b->sym && (c = strcmp(a->sym->name, b->sym->name))) return c;
    if (!a->sym || !b->sym) {
      if ((c = null_last(a->sym, b->sym))) return c;
      return a->addr < b->addr ? -1 : a->addr > b->addr;
    }
    return 0;
  default: return 0;
  }
}

static int row_cmp(const void *pa, const void *pb)
{
  const struct row *a = pa, *b = pb;
  if (sort_rp->children == 1) {
    if (a->v->acc != b->v->acc) return a->v->acc > b->v->acc ? -1 : 1;
    /* perf's __hpp__sort_acc: "put caller above callee when they have
     * equal period", by the depth of their chains */
    uint32_t da = cc_tree_max_depth(sort_rp->forest, a->v->root), db = cc_tree_max_depth(sort_rp->forest, b->v->root);
    if (a->v->tid == b->v->tid && a->v->root && b->v->root && da != db)
      return (da > db) == sort_rp->cc.caller ? -1 : 1;
  }
  if (a->v->period != b->v->period) return a->v->period > b->v->period ? -1 : 1;
  for (size_t i = 0; i < sort_rp->nkeys; i++) {
    int c = cmp_key(a->k, b->k, sort_rp->keys[i]);
    if (c) return c;
  }
  return 0;
}

/* Writes the symbol column text of k. */
static void sym_text(const struct rkey *k, char *buf, size_t len)
{
  sym_column((char)k->level, k->sym, k->addr, buf, len);
}

/* Column widths over the rows shown, perf's hists__calc_col_len. */
static void widths(const struct report *rp, const struct row *rows, size_t n, int w[NKEYS])
{
  w[K_COMM] = 7;
  w[K_DSO] = 13;
  w[K_SYM] = 6;
  w[K_PID] = 15;
  w[K_CPU] = 3;
  int maxcomm = 7;
  char buf[1024];
  for (size_t i = 0; i < n; i++) {
    const struct rkey *k = rows[i].k;
    int l;
    if (k->comm && (l = (int)strlen(k->comm)) > maxcomm) maxcomm = l;
    if (has_key(rp, K_DSO) && (l = (int)strlen(dso_name(k->dso))) > w[K_DSO]) w[K_DSO] = l;
    if (has_key(rp, K_SYM)) {
      sym_text(k, buf, sizeof buf);
      if ((l = (int)strlen(buf)) > w[K_SYM]) w[K_SYM] = l;
      if (!k->sym) {
        if (w[K_SYM] < 22) w[K_SYM] = 22;
        if (w[K_DSO] < 16) w[K_DSO] = 16;
      }
    }
  }
  w[K_COMM] = maxcomm;
  if (maxcomm + 8 > w[K_PID]) w[K_PID] = maxcomm + 8;
}

/* Two blanks, then the dots under a column n wide. */
static void print_dots(int n)
{
  printf("  ");
  for (int i = 0; i < n; i++) putchar('.');
}

static void print_headers(const struct report *rp, const int w[NKEYS])
{
  static const char *const head[NKEYS] = { "Command", "Shared Object", "Symbol", "    Pid:Command", "CPU" };
  if (rp->children == 1) printf("# Children      Self");
  else printf("# Overhead");
  if (rp->show_nr) printf("  %12s", "Samples");
  for (size_t i = 0; i < rp->nkeys; i++) printf("  %-*s", w[rp->keys[i]], head[rp->keys[i]]);
  printf(rp->children == 1 ? "\n# ........  ........" : "\n# ........");
  if (rp->show_nr) print_dots(12);
  for (size_t i = 0; i < rp->nkeys; i++) print_dots(w[rp->keys[i]]);
  printf("\n#\n");
}

static void print_row(const struct report *rp, const struct row *r, const int w[NKEYS], uint64_t total)
{
  char buf[1024];
  if (rp->children == 1) printf("  %7.2f%%", total ? 100.0 * (double)r->v->acc / (double)total : 0.0);
  printf("  %7.2f%%", total ? 100.0 * (double)r->v->period / (double)total : 0.0);
  if (rp->show_nr) printf("  %12" PRIu64, r->v->samples);
  for (size_t i = 0; i < rp->nkeys; i++) {
    enum key k = rp->keys[i];
    bool last = i + 1 == rp->nkeys;
    switch (k) {
    case K_COMM: printf("  %-*s", w[k], r->k->comm); break;
    case K_DSO: printf("  %-*s", w[k], dso_name(r->k->dso)); break;
    case K_PID: printf("  %7d:%-*s", (int32_t)r->k->tid, w[k] - 8, r->k->comm); break;
    case K_CPU: printf("  %*.*d", w[k], w[k], (int)r->k->cpu); break;   /* perf's hist_entry__cpu_snprintf */
    case K_SYM:
      sym_text(r->k, buf, sizeof buf);
      printf("  %-*s", last ? 0 : w[k], buf);
      break;
    default: break;
    }
  }
  putchar('\n');
}

/* perf's convert_unit: the sample count in K, M, G above 1000. */
static void print_samples_line(uint64_t n, const char *name)
{
  char unit = ' ';
  if (n > 1000) n /= 1000, unit = 'K';
  if (n > 1000) n /= 1000, unit = 'M';
  if (n > 1000) n /= 1000, unit = 'G';
  printf("# Samples: %" PRIu64 "%c of event '%s'\n", n, unit, name);
}

static int print_event(const struct report *rp, const struct session *s, size_t ev)
{
  struct hist *h = rp->hists[ev];
  size_t n = hist_count(h), k = 0;
  struct row *rows = calloc(n ? n : 1, sizeof *rows);
  if (!rows) return PM_ENOMEM;
  for (size_t i = 0; i < n; i++) rows[i] = (struct row){ hist_key(h, i), hist_val(h, i) };
  int w[NKEYS];
  widths(rp, rows, n, w);   /* entries under --percent-limit count, as in perf */
  for (size_t i = 0; i < n; i++) {
    uint64_t p = rp->children == 1 ? rows[i].v->acc : rows[i].v->period;
    double pct = rp->total[ev] ? 100.0 * (double)p / (double)rp->total[ev] : 0.0;
    if (pct >= rp->percent_limit) rows[k++] = rows[i];
  }
  sort_rp = rp;
  qsort(rows, k, sizeof *rows, row_cmp);
  print_samples_line(rp->nsamples[ev], pd_reader_event(s->r, ev)->name);
  printf("# Event count (approx.): %" PRIu64 "\n#\n", rp->total[ev]);
  print_headers(rp, w);
  /* perf skips a lone root's first entry when the first sort key is the symbol */
  bool skip_first = rp->sort_set && rp->nkeys && rp->keys[0] == K_SYM;
  for (size_t i = 0; i < k; i++) {
    print_row(rp, &rows[i], w, rp->total[ev]);
    if (rp->graph == 1)
      cc_print(stdout, rp->forest, rows[i].v->root, &rp->cc, rp->total[ev],
               rp->children == 1 ? rows[i].v->acc : rows[i].v->period, skip_first);
  }
  printf("\n\n");
  free(rows);
  return 0;
}

/* Our PROFILEME_UARCH feature, when the file comes from a what-if EV67:
 * the parameters that differ from this build's HRM defaults, then the
 * whole stored list (what `--uarch` takes to run it again). */
static void print_uarch(const char *stored)
{
  if (!stored) return;
  struct ev67_config c = ev67_default_config;
  char why[256], diff[2048];
  if (!ev67_config_parse(&c, stored, why, sizeof why)) {
    ev67_config_format(&c, false, diff, sizeof diff);
    printf("# uarch : %s (a what-if EV67; the rest as the HRM's: profileme list --uarch)\n",
           *diff ? diff : "the HRM's EV67");
  }
  printf("# uarch params : %s\n", stored);
}

static void print_header_info(const struct session *s)
{
  static const char *const keys[][2] = {
    { "hostname", "hostname" }, { "osrelease", "os release" }, { "version", "perf version" },
    { "arch", "arch" }, { "cpudesc", "cpudesc" }, { "cpuid", "cpuid" }, { "cmdline", "cmdline" },
  };
  uint64_t v;
  printf("# ========\n");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const char *val = pd_reader_env(s->r, keys[i][0]);
    if (val) printf("# %s : %s\n", keys[i][1], val);
    if (i == 3 && pd_reader_env_u64(s->r, "nr_cpus_online", &v)) printf("# nrcpus online : %" PRIu64 "\n", v);
    if (i == 3 && pd_reader_env_u64(s->r, "nr_cpus_avail", &v)) printf("# nrcpus avail : %" PRIu64 "\n", v);
    if (i == 5 && pd_reader_env_u64(s->r, "total_mem", &v)) printf("# total memory : %" PRIu64 " kB\n", v);
  }
  print_uarch(pd_reader_env(s->r, "uarch"));
  for (size_t i = 0; i < pd_reader_nevents(s->r); i++) {
    const struct pd_event *e = pd_reader_event(s->r, i);
    printf("# event : name = %s, , id = {", e->name);
    for (size_t j = 0; j < e->nids; j++) printf("%s %" PRIu64, j ? "," : "", e->ids[j]);
    printf(" }, type = %u, size = %u, config = %#" PRIx64 ", sample_type = %#" PRIx64 "\n",
           e->attr.type, e->attr.size, (uint64_t)e->attr.config, (uint64_t)e->attr.sample_type);
  }
  printf("# ========\n#\n");
}

/* perf elides a sort column filtered to one value and names the value. */
static void print_elided(struct report *rp)
{
  static const struct { enum key k; const char *name; } el[] = { { K_COMM, "comm" }, { K_DSO, "dso" }, { K_SYM, "symbol" } };
  for (size_t i = 0; i < 3; i++) {
    size_t n = el[i].k == K_COMM ? rp->ncomms : el[i].k == K_DSO ? rp->ndsos : rp->nsyms;
    char *v = el[i].k == K_COMM ? rp->comms[0] : el[i].k == K_DSO ? rp->dsos[0] : rp->syms[0];
    if (n != 1 || !has_key(rp, el[i].k)) continue;
    printf("# %s: %s\n", el[i].name, v);
    size_t k = 0;
    for (size_t j = 0; j < rp->nkeys; j++)
      if (rp->keys[j] != el[i].k) rp->keys[k++] = rp->keys[j];
    rp->nkeys = k;
  }
}

/* perf's defaults: graphs when the file has chains; children with them;
 * caller order unless given (or with -g alone); x86-64 files with user
 * stacks unwound through elfutils. */
static int setup_graph(struct report *rp, struct session *s)
{
  bool dwarf;
  bool has = cc_file_has_chains(s, &dwarf);
  if (rp->graph == 1 && !has) {           /* asked for: perf's report__setup_sample_type refuses */
    fprintf(stderr, "profileme report: Selected -g or --branch-history.\nBut no callchain or branch data.\n"
                    "Did you call 'perf record' without -g or -b?\n");
    return PM_EINVAL;
  }
  if (rp->graph < 0) rp->graph = has;
  if (rp->graph && rp->cc.mode == CC_NONE) rp->graph = 0;
  if (rp->children < 0) rp->children = rp->graph;
  if (!rp->graph) rp->children = 0;
  if (rp->children && !rp->cc.order_set) rp->cc.caller = true;
  if (rp->graph != 1) return 0;
  if (!(rp->forest = cc_forest_create())) return PM_ENOMEM;
  if (!(rp->locs = calloc(128, sizeof *rp->locs))) return PM_ENOMEM;
  if (dwarf) cc_unwinder_for(s, &rp->uw);
  return 0;
}

static int run(struct report *rp, const char *input, const char *symfs)
{
  struct session s;
  int e = session_open(&s, input, symfs);
  if (e) {
    fprintf(stderr, "profileme report: %s\n", s.err);
    return 1;
  }
  size_t nev = pd_reader_nevents(s.r);
  int rc = 1;
  if ((e = setup_graph(rp, &s)) != 0) {
    if (e != PM_EINVAL) fprintf(stderr, "profileme report: %s\n", pm_strerror(e));
    session_close(&s);
    return 1;
  }
  rp->hists = calloc(nev ? nev : 1, sizeof *rp->hists);
  rp->total = calloc(nev ? nev : 1, 8);
  rp->nsamples = calloc(nev ? nev : 1, 8);
  bool ok = rp->hists && rp->total && rp->nsamples;
  for (size_t i = 0; ok && i < nev; i++) ok = (rp->hists[i] = hist_create(sizeof(struct rkey), sizeof(struct rval)));
  if (!ok) {
    fprintf(stderr, "profileme report: %s\n", pm_strerror(PM_ENOMEM));
  } else if (rp->header_only) {
    print_header_info(&s);
    rc = 0;
  } else if (rp->dump) {
    printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
    s.file_order = true;         /* perf report -D dumps records as they are stored */
    if ((e = session_run(&s, on_record, rp)) != 0) {
      fflush(stdout);
      fprintf(stderr, "profileme report: %s: %s\n", s.path, s.err);
    } else {
      dump_stats(&s, rp->types, rp->nsamples);
      rc = 0;
    }
  } else if ((e = session_run(&s, on_record, rp)) != 0) {
    fprintf(stderr, "profileme report: %s: %s\n", s.path, s.err);
  } else {
    char warn[512];
    session_lost_warnings(&s, warn, sizeof warn);
    fputs(warn, stderr);
    if (rp->header) print_header_info(&s);
    else printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
    print_elided(rp);
    printf("#\n# Total Lost Samples: %" PRIu64 "\n#\n", s.lost);
    rc = 0;
    for (size_t i = 0; i < nev && !rc; i++)
      if (rp->nsamples[i]) rc = print_event(rp, &s, i) ? 1 : 0;
  }
  for (size_t i = 0; rp->hists && i < nev; i++) hist_destroy(rp->hists[i]);
  free(rp->hists);
  free(rp->total);
  free(rp->nsamples);
  if (rp->bad_chains) fprintf(stderr, "profileme report: %" PRIu64 " callchains with an unknown context marker were dropped (as perf does)\n", rp->bad_chains);
  cc_forest_destroy(rp->forest);
  cc_frames_free(&rp->frames);
  free(rp->locs);
  cc_unwinder_release(&rp->uw);
  session_close(&s);
  return rc;
}

static int report_main(int argc, char **argv);

/* A file with an instruction trace (or --itrace[=OPTS]) is decoded into
 * samples first, as perf report does (default "i": every 100 us; --itrace=i1
 * gives exact counts). */
int cmd_report(int argc, char **argv)
{
  char *tmp = NULL;
  bool dump = false;              /* -D dumps the trace raw */
  for (int i = 1; i < argc; i++) dump |= !strcmp(argv[i], "-D") || !strcmp(argv[i], "--dump-raw-trace");
  int rc = itrace_args_inject("report", &argc, &argv, &tmp, dump ? NULL : "i");
  if (rc) return rc;
  rc = report_main(argc, argv);
  if (tmp) { unlink(tmp); free(tmp); free(argv); }
  return rc;
}

static int report_main(int argc, char **argv)
{
  enum { O_STDIO = 256, O_COMMS, O_DSOS, O_SYMS, O_PID, O_TID, O_LIMIT, O_SYMFS, O_HEADER, O_HEADER_ONLY,
         O_CHILDREN, O_NO_CHILDREN, O_MAX_STACK };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "stdio", no_argument, NULL, O_STDIO },
    { "sort", required_argument, NULL, 's' }, { "show-nr-samples", no_argument, NULL, 'n' },
    { "comms", required_argument, NULL, O_COMMS }, { "comm", required_argument, NULL, O_COMMS },
    { "dsos", required_argument, NULL, O_DSOS }, { "symbols", required_argument, NULL, O_SYMS },
    { "pid", required_argument, NULL, O_PID }, { "tid", required_argument, NULL, O_TID },
    { "percent-limit", required_argument, NULL, O_LIMIT }, { "symfs", required_argument, NULL, O_SYMFS },
    { "header", no_argument, NULL, O_HEADER }, { "header-only", no_argument, NULL, O_HEADER_ONLY },
    { "dump-raw-trace", no_argument, NULL, 'D' },
    { "call-graph", optional_argument, NULL, 'g' }, { "inverted", no_argument, NULL, 'G' },
    { "children", no_argument, NULL, O_CHILDREN }, { "no-children", no_argument, NULL, O_NO_CHILDREN },
    { "max-stack", required_argument, NULL, O_MAX_STACK },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  struct report rp = { .keys = { K_COMM, K_DSO, K_SYM }, .nkeys = 3, .graph = -1, .children = -1,
                       .cc = { .mode = CC_GRAPH_ABS, .min_percent = 0.5, .max_stack = 127 } };
  const char *input = NULL, *symfs = NULL;
  int c;
  char *end;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:s:nDhg::G", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case 'D': rp.dump = true; break;
    case O_STDIO: break;
    case 's': if (parse_sort(&rp, optarg)) return 2; rp.sort_set = true; break;
    case 'g': {
      /* perf takes "-g folded" as well as "-g=folded"; -g alone is
       * perf's callchain_default_opt */
      char def[] = "graph,0.5,caller,function,percent";
      char *arg = optarg;
      if (!arg && optind < argc && argv[optind][0] != '-') {
        struct cc_param probe = rp.cc;
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s", argv[optind]);
        if (!cc_param_parse(&probe, tmp)) arg = argv[optind++];
      }
      if (cc_param_parse(&rp.cc, arg ? arg : def)) {
        fprintf(stderr, "profileme report: bad --call-graph '%s'\n", arg);
        return 2;
      }
      rp.graph = rp.cc.mode != CC_NONE;
      break;
    }
    case 'G': rp.cc.caller = rp.cc.order_set = true; if (rp.graph < 0) rp.graph = 1; break;
    case O_CHILDREN: rp.children = 1; break;
    case O_NO_CHILDREN: rp.children = 0; break;
    case O_MAX_STACK: rp.cc.max_stack = (unsigned)strtoul(optarg, NULL, 0); break;
    case 'n': rp.show_nr = true; break;
    case O_COMMS: rp.ncomms = split_list(optarg, rp.comms, MAX_LIST); break;
    case O_DSOS: rp.ndsos = split_list(optarg, rp.dsos, MAX_LIST); break;
    case O_SYMS: rp.nsyms = split_list(optarg, rp.syms, MAX_LIST); break;
    case O_PID: rp.npids = split_list(optarg, rp.pids, MAX_LIST); break;
    case O_TID: rp.ntids = split_list(optarg, rp.tids, MAX_LIST); break;
    case O_LIMIT:
      rp.percent_limit = strtod(optarg, &end);
      if (end == optarg || (*end && strcmp(end, "%"))) {
        fprintf(stderr, "profileme report: bad --percent-limit '%s'\n", optarg);
        return 2;
      }
      break;
    case O_SYMFS: symfs = optarg; break;
    case O_HEADER: rp.header = true; break;
    case O_HEADER_ONLY: rp.header_only = true; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "profileme report: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return 2;
  }
  if (!rp.nkeys) rp.keys[rp.nkeys++] = K_COMM;
  return run(&rp, input, symfs);
}
