/* `profileme dcpi --exec` and `dcpi --cpi`: exact execution counts from the
 * instruction trace, and cycles per instruction for the out-of-order EV67
 * joining them with ProfileMe samples of the same run.
 *
 * --exec: every instruction's (or basic block's, or symbol's) exact number
 * of executions, decoded from the trace. Basic blocks are static: one starts
 * after a branch, jump or call_pal and at every entry point seen (where a
 * run of the trace started: branch targets, kernel resumes, PSBs); all
 * the instructions of a block must have its count (checked: a block whose
 * instructions disagree is flagged "!"). With `record --truth` the machine's
 * own count of retired instances is printed beside it; per instruction the
 * CSV adds uops (2 for an integer CMOV, which the 21264 issues as two
 * instructions that both retire) and interrupted (interrupts whose resume
 * was this PC: the instruction there had a retired fate the interrupt took
 * back), so that on one CPU truth_retired = (exec + interrupted) x uops.
 *
 * --cpi: DCPI's dcpicalc divided sampled cycles by an estimated execution
 * count on the in-order EV4/EV5; on an out-of-order core a sample's
 * instruction shares the cycles with others in flight, so cycles cannot be
 * counted per instruction. The estimator here: C, the user cycles the trace
 * measured (its cycle timestamps, blocks after a kernel entry left out), is
 * shared out over instructions in proportion to L_i, the sum over i's
 * ProfileMe samples of period x window latency (the sample's weight: cycles
 * from fetch to retire, HRM 5-16); cycles_i = C L_i / L and CPI_i = cycles_i /
 * exec_i with exec_i exact from the trace. So the cycles add up to C, the
 * instruction-weighted mean of CPI_i is the measured C / N, and an
 * instruction that stays long in flight (a cache-missing load, the branch
 * after it) gets the cycles it holds up; "lat" is its mean latency per
 * sample. docs/trace-tools.md states it. */
#include "tools/commands.h"
#include "analysis/itrace_session.h"
#include "isa/disasm.h"
#include "isa/isa.h"
#include "uapi/pm_truth.h"
#include "util/err.h"
#include "analysis/hist.h"
#include "analysis/pm_status.h"
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BY_INSN, BY_BLOCK, BY_SYM };
#define MAX_TASKS 4096
struct pckey { uint32_t pid, pad; uint64_t pc; };
struct pmval { uint64_t samples; double lat, lw; };    /* lat: sum of weights; lw: sum of period x weight */

struct cpi {
  bool cpi;
  int by;
  const char *sep;
  struct itrace_counts *counts;
  struct hist *targets;          /* pckey -> (unused): entry points (run starts) */
  struct hist *pm;               /* pckey -> pmval: ProfileMe samples (user, exact ip) */
  struct hist *intr;             /* pckey -> u64: interrupts that resumed at the pc */
  bool pending[64];              /* per CPU: the last block ended in an interrupt */
  struct { uint32_t pid; uint64_t pc; bool fault; } last[MAX_TASKS];
  int nlast;
  uint64_t pending_to[64];
  uint64_t cycles, cycles_all;   /* C, and all the trace's cycles */
  uint64_t pm_samples, pm_other;
  int err;
};

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct cpi *c = ctx;
  (void)s;
  const struct pd_sample *smp = r->sample;
  if (!c->cpi || !smp || !smp->raw || smp->cpumode != PERF_RECORD_MISC_USER) return 0;
  struct pm_raw_v1 raw;
  if (!session_pm_raw(smp, &raw)) return 0;
  struct pckey k = { .pid = smp->pid, .pc = smp->ip };
  struct pmval *v = hist_get(c->pm, &k);
  if (!v) return PM_ENOMEM;
  v->samples++;
  v->lat += (double)smp->weight;
  v->lw += (double)smp->weight * (double)(smp->period ? smp->period : 1);
  c->pm_samples++;
  return 0;
}

/* Each task's last block: one that ends in a fault (or a signal) ended the
 * task at the instruction after its n, which then had an execution the
 * kernel took back. Counted with the interrupts at the end. */
static void note_last(struct cpi *c, const struct itrace_block *b)
{
  if (b->end == ITRACE_END_STOP && !b->n) return;   /* tracing stopped: says nothing of the task */
  int k = 0;
  while (k < c->nlast && c->last[k].pid != b->pid) k++;
  if (k == c->nlast) {
    if (k == MAX_TASKS) return;
    c->nlast++;
  }
  c->last[k].pid = b->pid;
  c->last[k].pc = b->start + 4 * b->n;
  c->last[k].fault = b->end == ITRACE_END_ASYNC && (b->async == ITRACE_A_FAULT || b->async == ITRACE_A_SIGNAL);
}

static int fatal_faults(struct cpi *c)
{
  for (int k = 0; k < c->nlast; k++) {
    if (!c->last[k].fault) continue;
    struct pckey key = { .pid = c->last[k].pid, .pc = c->last[k].pc };
    uint64_t *v = hist_get(c->intr, &key);
    if (!v) return PM_ENOMEM;
    ++*v;
  }
  return 0;
}

static int on_block(void *ctx, struct session *s, const struct itrace_sblock *sb)
{
  struct cpi *c = ctx;
  (void)s;
  const struct itrace_block *b = sb->b;
  uint64_t dc = b->cycle >= sb->start_cycle ? b->cycle - sb->start_cycle : 0;
  c->cycles_all += dc;
  /* an interrupt's resume: the next block of that CPU, when it starts there
   * (a PID packet may put it in another task) */
  unsigned q = sb->cpu % 64;
  if (c->pending[q] && b->start == c->pending_to[q]) {
    struct pckey k = { .pid = b->pid, .pc = b->start };
    uint64_t *v = hist_get(c->intr, &k);
    if (!v) return PM_ENOMEM;
    ++*v;
  }
  c->pending[q] = b->end == ITRACE_END_ASYNC && b->async == ITRACE_A_INTERRUPT;
  if (b->end == ITRACE_END_ASYNC && b->async == ITRACE_A_INTR_SIGNAL) {
    /* the task went on in a signal handler: the interrupted instruction,
     * after the n, had the retired fate the interrupt took back */
    struct pckey k = { .pid = b->pid, .pc = b->start + 4 * b->n };
    uint64_t *v = hist_get(c->intr, &k);
    if (!v) return PM_ENOMEM;
    ++*v;
  }
  c->pending_to[q] = b->to;
  if (!sb->after_kernel) c->cycles += dc;
  note_last(c, b);
  /* entry points: where every run started (branch targets, resumes after
   * the kernel, PSBs: a restarted system call enters at its callsys) */
  struct pckey k = { .pid = b->pid, .pc = b->start };
  if (b->n && !hist_get(c->targets, &k)) return PM_ENOMEM;
  return itrace_counts_add(c->counts, b);
}

/* The instruction word at pc of pid, through the session's maps. */
static bool insn_at(struct session *s, uint32_t pid, uint64_t pc, struct sym_loc *loc, uint32_t *w)
{
  sym_resolve(s->m, pid, PERF_RECORD_MISC_USER, pc, loc);
  return loc->dso && sym_dso_insn(loc->dso, loc->vaddr, w);
}

static bool ends_block(uint32_t w)
{
  struct axp_insn in = axp_decode(w);
  uint8_t f = axp_info[in.id].format;
  return f == AXP_FMT_BRA || f == AXP_FMT_FBRA || f == AXP_FMT_JMP || f == AXP_FMT_PAL;
}

/* The truth's retired counts of user instructions (record --truth), by (pid, pc). */
static struct hist *truth_table(const struct pm_truth_entry *t, size_t nt)
{
  struct hist *h = hist_create(sizeof(struct pckey), sizeof(uint64_t));
  for (size_t i = 0; h && i < nt; i++) {
    if (t[i].flags & PM_TRUTH_KERNEL) continue;
    struct pckey k = { .pid = (uint32_t)t[i].pid, .pc = t[i].pc };
    uint64_t *v = hist_get(h, &k);
    if (!v) { hist_destroy(h); return NULL; }
    *v += t[i].n[PM_TRUTH_ALL(0)];
  }
  return h;
}

static void print_sym(const struct sym_loc *loc, char *buf, size_t len)
{
  if (loc->sym) snprintf(buf, len, "%s+0x%" PRIx64, loc->sym->name, loc->vaddr - loc->sym->start);
  else snprintf(buf, len, "[unknown]");
}

struct row { uint32_t pid; uint64_t pc, vaddr, n, ninsns, intr; unsigned uops; const struct sym_dso *dso; const struct sym_symbol *sym;
             char name[160]; bool consistent, have_truth; uint64_t truth; struct pmval pm; };

static void print_header(const struct cpi *c, bool truth)
{
  if (c->sep) {
    const char *S = c->sep;
    printf("pid%saddress%svaddr%sdso%ssymbol%s%s", S, S, S, S, S, c->by == BY_BLOCK ? "insns" : "");
    if (c->by == BY_BLOCK) printf("%s", S);
    printf("exec");
    if (c->by == BY_INSN) printf("%suops%sinterrupted", S, S);
    if (truth) printf("%struth_retired", S);
    if (c->cpi) printf("%ssamples%slat%scycles%scpi", S, S, S, S);
    printf("\n");
    return;
  }
  printf("%7s %18s %-32s %12s", "pid", "address", "symbol", "exec");
  if (c->by == BY_BLOCK) printf(" %6s", "insns");
  if (truth) printf(" %12s", "truth");
  if (c->cpi) printf(" %8s %8s %12s %7s", "samples", "lat", "cycles", "cpi");
  printf("\n");
}

static void print_row(const struct cpi *c, const struct row *r, bool truth, double scale)
{
  double cyc = r->pm.lw * scale, cpi = r->n ? cyc / (double)r->n : 0;
  double lat = r->pm.samples ? r->pm.lat / (double)r->pm.samples : 0;
  if (c->sep) {
    const char *S = c->sep;
    printf("%u%s%#" PRIx64 "%s%#" PRIx64 "%s%s%s%s%s", r->pid, S, r->pc, S, r->vaddr, S,
           r->dso ? r->dso->short_name : "[unknown]", S, r->name, S);
    if (c->by == BY_BLOCK) printf("%" PRIu64 "%s", r->ninsns, S);
    printf("%" PRIu64 "%s", r->n, r->consistent ? "" : "!");
    if (c->by == BY_INSN) printf("%s%u%s%" PRIu64, S, r->uops, S, r->intr);
    if (truth) { if (r->have_truth) printf("%s%" PRIu64, S, r->truth); else printf("%s", S); }
    if (c->cpi) printf("%s%" PRIu64 "%s%.2f%s%.0f%s%.3f", S, r->pm.samples, S, lat, S, cyc, S, cpi);
    printf("\n");
    return;
  }
  printf("%7u %#18" PRIx64 " %-32.32s %12" PRIu64 "%s", r->pid, r->pc, r->name, r->n, r->consistent ? "" : "!");
  if (c->by == BY_BLOCK) printf(" %6" PRIu64, r->ninsns);
  if (truth) { if (r->have_truth) printf(" %12" PRIu64, r->truth); else printf(" %12s", "-"); }
  if (c->cpi) printf(" %8" PRIu64 " %8.2f %12.0f %7.3f", r->pm.samples, lat, cyc, cpi);
  printf("\n");
}

/* Adds instruction i's figures to a row. */
static void row_add(struct cpi *c, struct row *r, const struct itrace_pc_count *v, struct hist *truth)
{
  struct pckey k = { .pid = v->pid, .pc = v->pc };
  struct pmval *pm = c->cpi ? hist_find(c->pm, &k) : NULL;
  if (pm) { r->pm.samples += pm->samples; r->pm.lat += pm->lat; r->pm.lw += pm->lw; }
  uint64_t *iv = hist_find(c->intr, &k);
  if (iv) r->intr += *iv;
  uint64_t *tr = truth ? hist_find(truth, &k) : NULL;
  if (tr) { r->truth += *tr; r->have_truth = true; }
  r->ninsns++;
}

/* Instructions the machine retired in a traced process that the trace never
 * showed: rows with exec 0 (a complete trace has none). */
static void missing_truth(struct cpi *c, struct hist *truth, const struct itrace_pc_count *v, size_t n)
{
  size_t nk = hist_count(truth);
  for (size_t i = 0; i < nk; i++) {
    const struct pckey *k = hist_key(truth, i);
    uint64_t cnt = *(const uint64_t *)hist_val(truth, i);
    bool traced_pid = false, seen = false;
    size_t lo = 0, hi = n;                    /* v is sorted by (pid, pc) */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (v[mid].pid < k->pid || (v[mid].pid == k->pid && v[mid].pc < k->pc)) lo = mid + 1; else hi = mid;
    }
    seen = lo < n && v[lo].pid == k->pid && v[lo].pc == k->pc;
    traced_pid = (lo < n && v[lo].pid == k->pid) || (lo > 0 && v[lo - 1].pid == k->pid);
    if (seen || !traced_pid || !cnt) continue;
    uint64_t *iv = hist_find(c->intr, k), intr = iv ? *iv : 0;
    const char *S = c->sep;
    if (S && c->by == BY_INSN)
      printf("%u%s%#" PRIx64 "%s%s%s%s0%s1%s%" PRIu64 "%s%" PRIu64 "\n", k->pid, S, k->pc, S, S, S, S, S, S, intr, S, cnt);
    else if (S)
      printf("%u%s%#" PRIx64 "%s%s%s%s%s0%s%" PRIu64 "\n", k->pid, S, k->pc, S, S, S, S, c->by == BY_BLOCK ? S : "", S, cnt);
    else printf("%7u %#18" PRIx64 " %-32s %12d %12" PRIu64 "   (retired, never in the trace)\n", k->pid, k->pc, "", 0, cnt);
  }
}

static int report(struct cpi *c, struct session *s)
{
  size_t n, nt = 0;
  const struct itrace_pc_count *v = itrace_counts_get(c->counts, &n);
  const struct pm_truth_entry *t = pd_reader_truth(s->r, &nt);
  if (!v && n) return PM_ENOMEM;
  struct hist *truth = t ? truth_table(t, nt) : NULL;
  uint64_t total = 0;
  double L = 0;
  for (size_t i = 0; i < n; i++) {
    total += v[i].n;
    struct pckey k = { .pid = v[i].pid, .pc = v[i].pc };
    struct pmval *pm = c->cpi ? hist_find(c->pm, &k) : NULL;
    if (pm) L += pm->lw;
  }
  double scale = L > 0 ? (double)c->cycles / L : 0;
  print_header(c, t != NULL);
  struct row r = { 0 };
  bool open = false;
  for (size_t i = 0; i < n; i++) {
    struct sym_loc loc;
    uint32_t w = 0;
    bool code = insn_at(s, v[i].pid, v[i].pc, &loc, &w);
    bool cont = open && r.pid == v[i].pid;
    if (cont && c->by == BY_SYM) cont = loc.sym == r.sym && loc.dso == r.dso;
    if (cont && c->by == BY_BLOCK) {
      struct pckey k = { .pid = v[i].pid, .pc = v[i].pc };
      uint32_t pw = 0;
      struct sym_loc pl;
      bool prev_ends = insn_at(s, v[i].pid, v[i].pc - 4, &pl, &pw) && ends_block(pw);
      bool target = hist_find(c->targets, &k) != NULL;
      cont = v[i - 1].pc + 4 == v[i].pc && !prev_ends && !target;
      if (cont && v[i].n != r.n) r.consistent = false;
    }
    if (c->by == BY_INSN) cont = false;
    if (!cont) {
      if (open) print_row(c, &r, t != NULL, scale);
      memset(&r, 0, sizeof r);
      r = (struct row){ .pid = v[i].pid, .pc = v[i].pc, .vaddr = loc.vaddr, .n = v[i].n, .dso = loc.dso,
                        .sym = loc.sym, .consistent = true,
                        .uops = code && axp_info[axp_decode(w).id].cls == AXP_CLS_CMOV ? 2 : 1 };
      if (c->by == BY_SYM) {
        snprintf(r.name, sizeof r.name, "%s", loc.sym ? loc.sym->name : "[unknown]");
        r.n = 0;
      } else {
        print_sym(&loc, r.name, sizeof r.name);
      }
      if (c->by == BY_INSN && code && !c->sep) {
        char d[96];
        struct axp_insn in = axp_decode(w);
        axp_disasm(&in, v[i].pc, d, sizeof d);
        for (char *p = d; *p; p++) if (*p == '\t') *p = ' ';
        size_t l = strlen(r.name);
        snprintf(r.name + l, sizeof r.name - l, " %s", d);
      }
      open = true;
    }
    if (c->by == BY_SYM) r.n += v[i].n;
    row_add(c, &r, &v[i], truth);
  }
  if (open) print_row(c, &r, t != NULL, scale);
  if (truth) missing_truth(c, truth, v, n);
  hist_destroy(truth);
  if (!c->sep) {
    printf("\n# %" PRIu64 " instructions executed (exact, from the trace) in %zu distinct instructions\n", total, n);
    if (c->cpi) {
      printf("# user cycles C = %" PRIu64 " (of %" PRIu64 " in the trace); C / instructions = %.3f\n", c->cycles,
             c->cycles_all, total ? (double)c->cycles / (double)total : 0);
      printf("# %" PRIu64 " ProfileMe samples (user, with a latency); cycles_i = C x L_i / L, cpi_i = cycles_i / exec_i\n",
             c->pm_samples);
    }
  }
  return 0;
}

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme dcpi --exec|--cpi [-i FILE] [--by insn|block|sym] [-x SEP]\n"
    "  --exec   exact execution counts from the instruction trace (record -e trace//),\n"
    "           with the machine's retired counts beside them when recorded --truth\n"
    "  --cpi    cycles per instruction: the trace's exact counts joined with the\n"
    "           ProfileMe samples of the same file (record -e cycles:p -e trace//)\n"
    "  --by     rows per instruction (default), basic block or symbol\n"
    "  -x SEP   CSV with a header row\n");
}

int cmd_dcpi_cpi(int argc, char **argv, bool cpi)
{
  enum { O_BY = 256, O_EXEC, O_CPI, O_SYMFS };
  static const struct option opts[] = {
    { "input", required_argument, NULL, 'i' }, { "by", required_argument, NULL, O_BY },
    { "field-separator", required_argument, NULL, 'x' }, { "exec", no_argument, NULL, O_EXEC },
    { "cpi", no_argument, NULL, O_CPI }, { "symfs", required_argument, NULL, O_SYMFS },
    { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  struct cpi c = { .cpi = cpi, .by = BY_INSN };
  const char *input = NULL, *symfs = NULL;
  int o;
  optind = 1;
  while ((o = getopt_long(argc, argv, "i:x:h", opts, NULL)) != -1) {
    switch (o) {
    case 'i': input = optarg; break;
    case 'x': if (!*optarg) { fprintf(stderr, "profileme dcpi: -x needs a separator\n"); return 2; } c.sep = optarg; break;
    case O_BY:
      if (!strcmp(optarg, "insn")) c.by = BY_INSN;
      else if (!strcmp(optarg, "block")) c.by = BY_BLOCK;
      else if (!strcmp(optarg, "sym") || !strcmp(optarg, "symbol")) c.by = BY_SYM;
      else { fprintf(stderr, "profileme dcpi: --by takes insn, block or sym, not '%s'\n", optarg); return 2; }
      break;
    case O_EXEC: case O_CPI: break;
    case O_SYMFS: symfs = optarg; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  struct session s;
  if (session_open(&s, input, symfs)) { fprintf(stderr, "profileme dcpi: %s\n", s.err); return 1; }
  c.counts = itrace_counts_create();
  c.targets = hist_create(sizeof(struct pckey), 1);
  c.pm = hist_create(sizeof(struct pckey), sizeof(struct pmval));
  c.intr = hist_create(sizeof(struct pckey), sizeof(uint64_t));
  int rc = 1;
  if (!c.counts || !c.targets || !c.pm || !c.intr) { fprintf(stderr, "profileme dcpi: out of memory\n"); goto out; }
  struct itrace_pass_ops ops = { on_record, on_block, NULL };
  struct itrace_summary sum;
  int e = itrace_pass(&s, &ops, &c, &sum);
  if (e) { fprintf(stderr, "profileme dcpi: %s: %s\n", s.path, s.err[0] ? s.err : pm_strerror(e)); goto out; }
  if (!sum.has_trace) {
    fprintf(stderr, "profileme dcpi: %s has no instruction trace (record -e trace//)\n", s.path);
    goto out;
  }
  if (cpi && !c.pm_samples)
    fprintf(stderr, "profileme dcpi: %s has no user ProfileMe samples: no cycles to share (record -e cycles:p -e trace//)\n",
            s.path);
  if (sum.st.errors)
    fprintf(stderr, "profileme dcpi: %" PRIu64 " trace decode errors (%" PRIu64 " bytes lost): counts near them are low\n",
            sum.st.errors, sum.st.lost_bytes);
  rc = fatal_faults(&c) || report(&c, &s) ? 1 : 0;
out:
  itrace_counts_destroy(c.counts);
  hist_destroy(c.targets);
  hist_destroy(c.pm);
  hist_destroy(c.intr);
  session_close(&s);
  return rc;
}
