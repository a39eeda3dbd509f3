/* `profileme mem report`: perf mem report --stdio. Samples of events that
 * carry PERF_SAMPLE_DATA_SRC are grouped by perf's memory-mode sort keys
 * (default local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,
 * blocked,local_ins_lat,local_p_stage_cyc, perf 6.1's; the last is POWER's
 * and shows no column, as in perf elsewhere) and weighted as perf mem weighs
 * them: each sample costs its weight (1 when 0). Only memory operations count
 * (data_src op LOAD, STORE, PFETCH or EXEC; --all keeps the rest), since
 * ProfileMe samples every kind of instruction. A breakdown by memory level,
 * TLB and operation comes first as comment lines (both as the perf-tools
 * series' patch has perf mem report do). Data addresses resolve to object symbols ("buf+0x18")
 * through sym_resolve_data. Column minimum widths are perf's. */
#include "tools/commands.h"
#include "analysis/session.h"
#include "util/err.h"
#include "analysis/hist.h"
#include "util/strlist.h"
#include "analysis/datasrc.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mkey_id {
  M_WEIGHT, M_MEM, M_SYM, M_DSO, M_DSYM, M_DDSO, M_SNOOP, M_TLB, M_LOCKED, M_BLOCKED, M_INS_LAT, M_OP, M_COMM, M_PID,
  NMKEYS
};
static const struct {
  const char *name, *alias, *header;
  int min;                       /* perf's minimum width */
  uint64_t ds_mask;              /* data_src bits the key tells entries apart by: perf's
                                    sort__*_cmp compare one field (mem: mem_lvl alone) */
} mkeys[NMKEYS] = {
  [M_WEIGHT] = { "local_weight", "weight", "Local Weight", 12, 0 },
  [M_MEM] = { "mem", NULL, "Memory access", 24, 0x3FFFull << 5 },
  [M_SYM] = { "symbol", "sym", "Symbol", 6, 0 },
  [M_DSO] = { "dso", NULL, "Shared Object", 13, 0 },
  [M_DSYM] = { "symbol_daddr", NULL, "Data Symbol", 11, 0 },
  [M_DDSO] = { "dso_daddr", NULL, "Data Object", 11, 0 },
  [M_SNOOP] = { "snoop", NULL, "Snoop", 12, 0x1Full << 19 },
  [M_TLB] = { "tlb", NULL, "TLB access", 22, 0x7Full << 26 },
  [M_LOCKED] = { "locked", NULL, "Locked", 6, 0x3ull << 24 },
  [M_BLOCKED] = { "blocked", NULL, "Blocked", 10, 0x7ull << 40 },
  [M_INS_LAT] = { "local_ins_lat", NULL, "Local INSTR Latency", 0, 0 },
  [M_OP] = { "op", NULL, "Operation", 9, 0x1F },
  [M_COMM] = { "comm", NULL, "Command", 7, 0 },
  [M_PID] = { "pid", NULL, "    Pid:Command", 15, 0 },
};

struct mkey {
  uint64_t weight, ds, addr, daddr;
  uint32_t ins_lat;
  const char *comm;
  const struct sym_dso *dso, *ddso;
  const struct sym_symbol *sym, *dsym;
  uint32_t tid, level;
};
/* An entry's cost and samples, and the data source of its first sample,
 * which perf prints for the entry (the others merge into its hist_entry). */
struct mval { uint64_t cost, samples, ds; };

/* Breakdown rows: a data_src part and its counts. */
struct bkey { int kind; uint64_t ds; };

#define MAX_KEYS 16

struct mem {
  enum mkey_id keys[MAX_KEYS];
  size_t nkeys;
  uint64_t ds_mask;
  bool all, show_nr;
  const char *sort_order;        /* as given to -s, for the header */
  unsigned types;                /* PERF_MEM_OP_* kept (0: all memory operations) */
  struct hist **hists, **breakdown;
  uint64_t *total, *nsamples;
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme mem report [-i FILE] [--stdio] [-s KEYS] [-t load|store] [--all]\n"
    "       profileme mem record [-t load|store] [-e TAGS] [RECORD-OPTIONS] PROG ('mem record -h')\n"
    "Summarizes samples by data source like perf mem report --stdio: memory level\n"
    "(L1, L2 = the B-cache, RAM), TLB hit or miss, operation, with the symbol and\n"
    "the data address. Overhead is the share of the samples' weight.\n"
    "  -i, --input FILE   perf.data file (default: perf.data)\n"
    "      --stdio        text output (the only interface)\n"
    "  -s, --sort KEYS    comma list of local_weight, mem, op, tlb, snoop, locked,\n"
    "                     blocked, local_ins_lat, symbol, dso, symbol_daddr,\n"
    "                     dso_daddr, comm, pid\n"
    "  -t, --type TYPE    load or store (default: both)\n"
    "      --all          keep samples that are not memory operations\n"
    "      --symfs DIR    look for the recorded files under DIR\n"
    "Exit status: 0 success, 1 unreadable input or no data source, 2 bad options.\n");
}

static int parse_sort(struct mem *m, char *arg)
{
  char *list[MAX_KEYS];
  size_t n = split_list(arg, list, MAX_KEYS);
  m->nkeys = 0;
  for (size_t i = 0; i < n; i++) {
    int k = -1;
    for (int j = 0; j < NMKEYS; j++)
      if (!strcmp(list[i], mkeys[j].name) || (mkeys[j].alias && !strcmp(list[i], mkeys[j].alias))) k = j;
    /* perf shows no column for these: overhead and samples always come
     * first, and the pipeline stage cycles are POWER's (arch_support_sort_key) */
    if (!strcmp(list[i], "overhead") || !strcmp(list[i], "sample") || !strcmp(list[i], "local_p_stage_cyc") ||
        !strcmp(list[i], "p_stage_cyc"))
      continue;
    if (k < 0) {
      fprintf(stderr, "profileme mem: unknown --sort key '%s'\n", list[i]);
      return 2;
    }
    m->keys[m->nkeys++] = (enum mkey_id)k;
  }
  return 0;
}

static bool has(const struct mem *m, enum mkey_id k)
{
  for (size_t i = 0; i < m->nkeys; i++)
    if (m->keys[i] == k) return true;
  return false;
}

enum { B_MEM, B_TLB, B_OP, NB };

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct mem *m = ctx;
  const struct pd_sample *smp = r->sample;
  if (!smp || !(smp->sample_type & PERF_SAMPLE_DATA_SRC)) return 0;
  union perf_mem_data_src ds = { .val = smp->data_src };
  unsigned ops = PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE | PERF_MEM_OP_PFETCH | PERF_MEM_OP_EXEC;
  if (!m->all && ((ds.mem_op & PERF_MEM_OP_NA) || !(ds.mem_op & (m->types ? m->types : ops)))) return 0;
  size_t ev = session_event_index(s, smp->event);
  uint64_t cost = smp->weight ? smp->weight : 1;
  struct mkey k;
  memset(&k, 0, sizeof k);
  if (has(m, M_WEIGHT)) k.weight = smp->weight;
  if (has(m, M_INS_LAT)) k.ins_lat = smp->ins_lat;
  k.ds = smp->data_src & m->ds_mask;
  if (has(m, M_COMM) || has(m, M_PID)) k.comm = sym_comm(s->m, smp->pid, smp->tid);
  if (has(m, M_PID)) k.tid = smp->tid;
  if (has(m, M_DSO)) k.dso = r->loc.dso;
  if (has(m, M_SYM)) {
    k.sym = r->loc.sym;
    k.level = (uint32_t)r->loc.level;
    if (!k.sym) k.addr = r->loc.addr;
  }
  if (has(m, M_DSYM) || has(m, M_DDSO)) {
    struct sym_loc dl;
    sym_resolve_data(s->m, smp->pid, smp->cpumode, smp->addr, &dl);
    if (has(m, M_DDSO)) k.ddso = dl.dso;
    if (has(m, M_DSYM)) k.dsym = dl.sym, k.daddr = smp->addr;
  }
  struct mval *v = hist_get(m->hists[ev], &k);
  if (!v) return PM_ENOMEM;
  if (!v->samples) v->ds = smp->data_src;
  v->cost += cost;
  v->samples++;
  m->total[ev] += cost;
  m->nsamples[ev]++;
  for (int b = 0; b < NB; b++) {
    /* the bits each part prints: level with its number, remote and hops */
    static const uint64_t part[NB] = { 0x3FFFull << 5 | 0x1Full << 33 | 0x7ull << 43, 0x7Full << 26, 0x1F };
    struct bkey bk;
    memset(&bk, 0, sizeof bk);   /* the padding is part of the key */
    bk.kind = b;
    bk.ds = smp->data_src & part[b];
    struct mval *bv = hist_get(m->breakdown[ev], &bk);
    if (!bv) return PM_ENOMEM;
    bv->cost += cost;
    bv->samples++;
  }
  return 0;
}

/* ---- output ---- */

/* The text of column k for entry e (v: its values). */
static void cell(const struct mkey *e, const struct mval *v, enum mkey_id k, char *buf, size_t len)
{
  switch (k) {
  case M_WEIGHT: snprintf(buf, len, "%" PRIu64, e->weight); break;
  case M_INS_LAT: snprintf(buf, len, "%" PRIu32, e->ins_lat); break;
  case M_MEM: mem_lvl_str(v->ds, buf, len); break;
  case M_SNOOP: mem_snoop_str(v->ds, buf, len); break;
  case M_TLB: mem_tlb_str(v->ds, buf, len); break;
  case M_LOCKED: mem_lock_str(v->ds, buf, len); break;
  case M_BLOCKED: mem_blk_str(v->ds, buf, len); break;
  case M_OP: mem_op_str(v->ds, buf, len); break;
  case M_COMM: snprintf(buf, len, "%s", e->comm); break;
  case M_PID: snprintf(buf, len, "%7d:%s", (int32_t)e->tid, e->comm); break;
  case M_DSO: snprintf(buf, len, "%s", e->dso ? e->dso->short_name : "[unknown]"); break;
  case M_DDSO: snprintf(buf, len, "%s", e->ddso ? e->ddso->short_name : "[unknown]"); break;
  case M_SYM: sym_column((char)e->level, e->sym, e->addr, buf, len); break;
  case M_DSYM:
    if (e->dsym) snprintf(buf, len, "[.] %s+0x%" PRIx64, e->dsym->name, e->daddr - e->dsym->start);
    else sym_column('.', NULL, e->daddr, buf, len);
    break;
  default: buf[0] = '\0'; break;
  }
}

struct mrow { const struct mkey *k; const struct mval *v; };
static const struct mem *sort_m;

/* perf's output order of two entries by key k (hist_entry__sort: each
 * key's se_sort, else its se_cmp): < 0 when a comes first. */
static int cmp_key(const struct mrow *ra, const struct mrow *rb, enum mkey_id k)
{
  const struct mkey *a = ra->k, *b = rb->k;
  char x[256], y[256];
  switch (k) {
  case M_MEM: case M_SNOOP: case M_TLB: case M_LOCKED: case M_BLOCKED: case M_OP:
    /* the field's value, ascending */
    return (a->ds & mkeys[k].ds_mask) < (b->ds & mkeys[k].ds_mask) ? -1 :
           (a->ds & mkeys[k].ds_mask) > (b->ds & mkeys[k].ds_mask);
  case M_WEIGHT: return a->weight > b->weight ? -1 : a->weight < b->weight;
  case M_INS_LAT: return a->ins_lat < b->ins_lat ? -1 : a->ins_lat > b->ins_lat;
  case M_PID: return a->tid < b->tid ? -1 : a->tid > b->tid;
  case M_DSYM: return a->daddr < b->daddr ? -1 : a->daddr > b->daddr;
  case M_SYM:
    if (!a->sym || !b->sym) {
      if (a->sym || b->sym) return a->sym ? -1 : 1;
      return a->addr < b->addr ? -1 : a->addr > b->addr;
    }
    return strcmp(a->sym->name, b->sym->name);
  default:
    cell(a, ra->v, k, x, sizeof x);
    cell(b, rb->v, k, y, sizeof y);
    return strcmp(x, y);
  }
}

static int row_cmp(const void *pa, const void *pb)
{
  const struct mrow *a = pa, *b = pb;
  if (a->v->cost != b->v->cost) return a->v->cost > b->v->cost ? -1 : 1;
  for (size_t i = 0; i < sort_m->nkeys; i++) {
    int c = cmp_key(a, b, sort_m->keys[i]);
    if (c) return c;
  }
  return 0;
}

static double pct(uint64_t part, uint64_t total) { return total ? 100.0 * (double)part / (double)total : 0.0; }

static int bk_cmp(const void *pa, const void *pb)
{
  const struct mrow *a = pa, *b = pb;
  const struct bkey *x = (const void *)a->k, *y = (const void *)b->k;
  if (x->kind != y->kind) return x->kind - y->kind;
  if (a->v->cost != b->v->cost) return a->v->cost > b->v->cost ? -1 : 1;
  return x->ds < y->ds ? -1 : x->ds > y->ds;
}

/* The breakdown by level, TLB and operation, as comment lines. */
static int print_breakdown(const struct mem *m, size_t ev)
{
  static const char *const title[NB] = { "Memory access", "TLB access", "Operation" };
  struct hist *h = m->breakdown[ev];
  size_t n = hist_count(h);
  struct mrow *rows = calloc(n ? n : 1, sizeof *rows);
  if (!rows) return PM_ENOMEM;
  for (size_t i = 0; i < n; i++) rows[i] = (struct mrow){ hist_key(h, i), hist_val(h, i) };
  qsort(rows, n, sizeof *rows, bk_cmp);
  printf("# Breakdown by data source (share of weight, samples):\n");
  int last = -1;
  for (size_t i = 0; i < n; i++) {
    const struct bkey *k = (const void *)rows[i].k;
    char text[256];
    if (k->kind != last) printf("#   %s\n", title[k->kind]);
    last = k->kind;
    if (k->kind == B_MEM) mem_lvl_str(k->ds, text, sizeof text);
    else if (k->kind == B_TLB) mem_tlb_str(k->ds, text, sizeof text);
    else mem_op_str(k->ds, text, sizeof text);
    printf("#     %-24s %7.2f%%  %8" PRIu64 "\n", text, pct(rows[i].v->cost, m->total[ev]), rows[i].v->samples);
  }
  printf("#\n");
  free(rows);
  return 0;
}

static int print_event(const struct mem *m, const struct session *s, size_t ev)
{
  struct hist *h = m->hists[ev];
  size_t n = hist_count(h);
  struct mrow *rows = calloc(n ? n : 1, sizeof *rows);
  if (!rows) return PM_ENOMEM;
  for (size_t i = 0; i < n; i++) rows[i] = (struct mrow){ hist_key(h, i), hist_val(h, i) };
  sort_m = m;
  qsort(rows, n, sizeof *rows, row_cmp);
  int w[NMKEYS];
  char buf[512];
  for (int k = 0; k < NMKEYS; k++) {
    w[k] = (int)strlen(mkeys[k].header);
    if (w[k] < mkeys[k].min) w[k] = mkeys[k].min;
  }
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m->nkeys; j++) {
      enum mkey_id k = m->keys[j];
      cell(rows[i].k, rows[i].v, k, buf, sizeof buf);
      if ((int)strlen(buf) > w[k]) w[k] = (int)strlen(buf);
      if ((k == M_DSYM && !rows[i].k->dsym) || (k == M_SYM && !rows[i].k->sym)) {
        if (w[k] < 22) w[k] = 22;
        enum mkey_id d = k == M_DSYM ? M_DDSO : M_DSO;
        if (w[d] < 16) w[d] = 16;
      }
    }
  printf("# Samples: %" PRIu64 "  of event '%s'\n# Total weight : %" PRIu64 "\n# Sort order   : ", m->nsamples[ev],
         pd_reader_event(s->r, ev)->name, m->total[ev]);
  printf("%s\n#\n", m->sort_order);
  int rc = print_breakdown(m, ev);
  printf("# Overhead       Samples");
  for (size_t j = 0; j < m->nkeys; j++) printf("  %-*s", w[m->keys[j]], mkeys[m->keys[j]].header);
  printf("\n# ........  ............");
  for (size_t j = 0; j < m->nkeys; j++) {
    printf("  ");
    for (int d = 0; d < w[m->keys[j]]; d++) putchar('.');
  }
  printf("\n#\n");
  for (size_t i = 0; i < n; i++) {
    printf("  %7.2f%%  %12" PRIu64, pct(rows[i].v->cost, m->total[ev]), rows[i].v->samples);
    for (size_t j = 0; j < m->nkeys; j++) {
      cell(rows[i].k, rows[i].v, m->keys[j], buf, sizeof buf);
      printf("  %-*s", j + 1 == m->nkeys && m->keys[j] == M_SYM ? 0 : w[m->keys[j]], buf);
    }
    putchar('\n');
  }
  printf("\n\n");
  free(rows);
  return rc;
}

static int run(struct mem *m, const char *input, const char *symfs)
{
  struct session s;
  if (session_open(&s, input, symfs)) {
    fprintf(stderr, "profileme mem: %s\n", s.err);
    return 1;
  }
  size_t nev = pd_reader_nevents(s.r), with_ds = 0;
  for (size_t i = 0; i < nev; i++)
    if (pd_reader_event(s.r, i)->attr.sample_type & PERF_SAMPLE_DATA_SRC) with_ds++;
  int rc = 1;
  m->hists = calloc(nev + 1, sizeof *m->hists);
  m->breakdown = calloc(nev + 1, sizeof *m->breakdown);
  m->total = calloc(nev + 1, 8);
  m->nsamples = calloc(nev + 1, 8);
  bool ok = m->hists && m->breakdown && m->total && m->nsamples;
  for (size_t i = 0; ok && i < nev; i++)
    ok = (m->hists[i] = hist_create(sizeof(struct mkey), sizeof(struct mval))) &&
         (m->breakdown[i] = hist_create(sizeof(struct bkey), sizeof(struct mval)));
  if (!ok) {
    fprintf(stderr, "profileme mem: %s\n", pm_strerror(PM_ENOMEM));
  } else if (!with_ds) {
    fprintf(stderr, "profileme mem: %s: no event samples data sources (PERF_SAMPLE_DATA_SRC)\n", s.path);
  } else if (session_run(&s, on_record, m)) {
    fprintf(stderr, "profileme mem: %s: %s\n", s.path, s.err);
  } else {
    printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n");
    printf("# Total Lost Samples: %" PRIu64 "\n#\n", s.lost);
    rc = 0;
    for (size_t i = 0; i < nev && !rc; i++)
      if (m->nsamples[i]) rc = print_event(m, &s, i) ? 1 : 0;
  }
  for (size_t i = 0; i < nev && m->hists; i++) hist_destroy(m->hists[i]);
  for (size_t i = 0; i < nev && m->breakdown; i++) hist_destroy(m->breakdown[i]);
  free(m->hists);
  free(m->breakdown);
  free(m->total);
  free(m->nsamples);
  session_close(&s);
  return rc;
}

int cmd_mem(int argc, char **argv)
{
  enum { O_STDIO = 256, O_ALL, O_SYMFS };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "stdio", no_argument, NULL, O_STDIO },
    { "sort", required_argument, NULL, 's' }, { "type", required_argument, NULL, 't' },
    { "all", no_argument, NULL, O_ALL }, { "symfs", required_argument, NULL, O_SYMFS },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return 0;
  }
  /* perf mem's own -t may come before the subcommand */
  int type = 0;
  if (argc >= 3 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "--type"))) {
    if (!(type = mem_parse_type(argv[2]))) {
      fprintf(stderr, "profileme mem: --type is load, store or load,store, not '%s'\n", argv[2]);
      return 2;
    }
    argc -= 2, argv += 2;
  }
  if (argc >= 2 && !strcmp(argv[1], "record")) return cmd_mem_record(argc - 1, argv + 1, type);
  if (argc < 2 || strcmp(argv[1], "report")) {
    fprintf(stderr, "profileme mem: 'profileme mem record' or 'profileme mem report'\n");
    usage(stderr);
    return 2;
  }
  argc--, argv++;
  /* perf 6.1's default_mem_sort_order (util/sort.c) */
  static const enum mkey_id def[] = { M_WEIGHT, M_MEM, M_SYM, M_DSO, M_DSYM, M_DDSO, M_SNOOP, M_TLB, M_LOCKED, M_BLOCKED,
                                      M_INS_LAT };
  struct mem m = { .nkeys = sizeof def / sizeof def[0],
                   .sort_order = "local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,"
                                 "local_ins_lat,local_p_stage_cyc" };
  memcpy(m.keys, def, sizeof def);
  const char *input = NULL, *symfs = NULL;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "i:s:t:h", opts, NULL)) != -1) {
    switch (c) {
    case 'i': input = optarg; break;
    case O_STDIO: break;
    case 's':
      m.sort_order = optarg;
      if (parse_sort(&m, optarg)) return 2;
      break;
    case 't': {
      int t = mem_parse_type(optarg);
      if (!t) {
        fprintf(stderr, "profileme mem: --type is load, store or load,store, not '%s'\n", optarg);
        return 2;
      }
      type |= t;
      break;
    }
    case O_ALL: m.all = true; break;
    case O_SYMFS: symfs = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "profileme mem: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  if (type & 1) m.types |= PERF_MEM_OP_LOAD | PERF_MEM_OP_PFETCH;
  if (type & 2) m.types |= PERF_MEM_OP_STORE;
  if (!m.nkeys) m.keys[m.nkeys++] = M_MEM;
  for (size_t i = 0; i < m.nkeys; i++) m.ds_mask |= mkeys[m.keys[i]].ds_mask;
  return run(&m, input, symfs);
}
