/* `profileme data convert --to-callgrind FILE`: a perf.data file as a
 * callgrind profile (Valgrind's "callgrind format", version 1), which
 * KCachegrind and callgrind_annotate read: the DCPI view of ProfileMe data
 * in the viewers people use. perf names its converters `perf data convert
 * --to-json` / `--to-ctf`; this is the same command with one more format.
 *
 * One perf event (-e, default the first with samples) becomes the file's
 * event types, per instruction ("positions: instr line": link-time address
 * and DWARF source line): Samples, Period (what report's overhead sums),
 * Weight (the PCTR1 window count), then for ProfileMe events the samples
 * with each status (Retired, Killed, Mispredict, Trap, DTBMiss, Unaligned,
 * MapStall), with `record --truth` the exact counts (ExCount, the
 * instances the event could keep, then ExRetired ... ExMapStall), and when
 * the file has an instruction trace (`record -e trace//`, user code) the
 * exact executions it decodes (Exec, as `dcpi --exec` counts them); a
 * trace alone, without samples, gives a file of Exec only.
 * Functions are symbols (an unresolved address is a function named by it,
 * as report lists it), objects their DSOs, files their DWARF source files
 * (lines of another file inside a function are marked fi=/fe=).
 *
 * Call arcs come from the samples' call chains (recorded, or unwound from
 * user stacks as report does): a sample with frames F0 (sampled) .. Fk
 * (outermost) gives the arc Fi -> Fi-1 at Fi's call site (the return
 * address less one instruction) with the sample's costs as inclusive
 * costs, but only where Fi-1 does not appear again further out, so that
 * every function on a chain receives the sample once however deep it
 * recurses: callgrind_annotate --inclusive=yes then gives perf report's
 * Children figure for every function called at least once. A chain that
 * does not start in the sampled function (a DWARF chain is unwound from the
 * registers at the interrupt, which can be past the precise sample's
 * instruction: a ProfileMe sample in a function that has returned since)
 * gets the sampled function as its F0, as report counts it. */
#include "analysis/callchain.h"
#include "analysis/exact.h"
#include "analysis/hist.h"
#include "analysis/pm_status.h"
#include "analysis/session.h"
#include "analysis/itrace_session.h"
#include "tools/commands.h"
#include "tools/itrace_args.h"
#include "util/err.h"
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The event types: name, long name for KCachegrind, and what each sums. */
enum src { S_SAMPLES, S_PERIOD, S_WEIGHT, S_STATUS, S_EXACT, S_TRACE };
static const struct { const char *name, *desc; enum src src; uint64_t bits; } ctypes[] = {
  { "Samples", "samples", S_SAMPLES, 0 },
  { "Period", "sampled period (report's overhead)", S_PERIOD, 0 },
  { "Weight", "weight: PCTR1 window count", S_WEIGHT, 0 },
  { "Retired", "ProfileMe samples retired", S_STATUS, PM_ST_RETIRED },
  { "Killed", "ProfileMe samples killed", S_STATUS, PM_ST_EARLY_KILL | PM_ST_LATE_KILL },
  { "Mispredict", "ProfileMe samples mispredicted", S_STATUS, PM_ST_MISPREDICT },
  { "Trap", "ProfileMe samples trapped", S_STATUS, PM_ST_TRAP },
  { "DTBMiss", "ProfileMe samples with a DTB miss", S_STATUS, PM_ST_DTB_MISS },
  { "Unaligned", "ProfileMe samples unaligned", S_STATUS, PM_ST_UNALIGNED },
  { "MapStall", "ProfileMe samples stalled before map", S_STATUS, PM_ST_MAP_STALL },
  { "ExCount", "exact instances the event could keep (record --truth)", S_EXACT, 0 },
  { "ExRetired", "exact instances retired", S_EXACT, PM_ST_RETIRED },
  { "ExKilled", "exact instances killed", S_EXACT, PM_ST_EARLY_KILL | PM_ST_LATE_KILL },
  { "ExMispredict", "exact instances mispredicted", S_EXACT, PM_ST_MISPREDICT },
  { "ExTrap", "exact instances trapped", S_EXACT, PM_ST_TRAP },
  { "ExDTBMiss", "exact instances with a DTB miss", S_EXACT, PM_ST_DTB_MISS },
  { "ExUnaligned", "exact instances unaligned", S_EXACT, PM_ST_UNALIGNED },
  { "ExMapStall", "exact instances stalled before map", S_EXACT, PM_ST_MAP_STALL },
  { "Exec", "exact executions (the instruction trace, record -e trace//)", S_TRACE, 0 },
};
#define NCT (sizeof ctypes / sizeof ctypes[0])

/* A function: (dso, symbol), or (dso, NULL, address) when unresolved. */
struct fkey { const struct sym_dso *dso; const struct sym_symbol *sym; uint64_t addr; };
/* An instruction of a function. */
struct ikey { struct fkey f; uint64_t pc; };
struct ival { uint64_t c[NCT]; struct exact_counts ex; };
/* A call arc: caller at its call site to the callee. */
struct akey { struct fkey from, to; uint64_t site; };
struct aval { uint64_t calls; uint64_t c[NCT]; };

struct conv {
  const char *event;
  size_t ev;                     /* SIZE_MAX: none (a trace without samples) */
  bool pm, truth;                /* the event has ProfileMe payloads; the file truth for it */
  bool on[NCT];                  /* the event types written */
  struct exact_event ex;
  struct hist *insns, *arcs;
  struct cc_frames frames;
  struct cc_unwinder uw;
  bool chains;
  unsigned insn_size;            /* the call site is the return address less this */
  uint64_t bad_chains;
  bool trace;                    /* the file has an instruction trace */
  struct itrace_counts *exec;    /* its exact counts */
};

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme data convert --to-callgrind FILE [-i perf.data] [-e EVENT]\n"
    "Converts a perf.data file, like perf data convert (--to-json, --to-ctf):\n"
    "  --to-callgrind FILE   write a callgrind profile (KCachegrind,\n"
    "                        callgrind_annotate; '-' for stdout): per instruction\n"
    "                        and source line the samples, their period and PCTR1\n"
    "                        weight, the ProfileMe statuses (retired, killed,\n"
    "                        mispredict, trap, DTB miss, unaligned, map stall) and,\n"
    "                        with record --truth, the exact counts, with an\n"
    "                        instruction trace (record -e trace//) the exact\n"
    "                        executions; call arcs from the call chains\n"
    "  -i, --input FILE      perf.data file (default: perf.data)\n"
    "  -e, --event NAME      the event converted (default: the first with samples)\n"
    "      --symfs DIR       look for the recorded files under DIR\n"
    "  -f, --force           accepted for perf's sake (FILE is always overwritten)\n"
    "Exit status: 0 success, 1 unreadable input or output, neither samples nor a\n"
    "trace, or no such event, 2 bad options.\n");
}

static void fkey_of(const struct sym_loc *loc, uint64_t ip, struct fkey *k)
{
  memset(k, 0, sizeof *k);
  k->dso = loc->dso;
  k->sym = loc->sym;
  if (!loc->sym) k->addr = loc->dso ? loc->addr : ip;
}

/* The instruction's address in its DSO's link-time terms. */
static uint64_t pc_of(const struct sym_loc *loc, uint64_t ip) { return loc->dso ? loc->vaddr : ip; }

/* The costs of one sample, in event-type order. */
static void sample_costs(const struct conv *cv, const struct pd_sample *smp, uint64_t *c)
{
  struct pm_raw_v1 raw;
  bool pm = session_pm_raw(smp, &raw);
  memset(c, 0, NCT * sizeof *c);
  for (size_t i = 0; i < NCT; i++) {
    if (!cv->on[i]) continue;
    switch (ctypes[i].src) {
    case S_SAMPLES: c[i] = 1; break;
    case S_PERIOD: c[i] = smp->period; break;
    case S_WEIGHT: c[i] = smp->weight; break;
    case S_STATUS: c[i] = pm && (raw.status & ctypes[i].bits); break;
    case S_EXACT: case S_TRACE: break;
    }
  }
}

static bool same_fn(const struct fkey *a, const struct fkey *b) { return !memcmp(a, b, sizeof *a); }

/* The arcs of one sample's chain (see the file comment); sk and spc: the
 * sampled function and instruction. */
static int add_arcs(struct conv *cv, struct session *s, const struct pd_sample *smp, const uint64_t *c,
                    const struct fkey *sk, uint64_t spc)
{
  int e = cc_sample_frames(s, smp, cv->uw.unwind ? &cv->uw : NULL, &cv->frames);
  if (e) return e;
  if (cv->frames.bad) cv->bad_chains++;
  size_t nf = cv->frames.n, n = nf + 1;
  if (!nf) return 0;
  struct fkey *fk = calloc(n, sizeof *fk);
  uint64_t *site = calloc(n, sizeof *site);
  if (!fk || !site) {
    free(fk);
    free(site);
    return PM_ENOMEM;
  }
  fk[0] = *sk;
  site[0] = spc;
  for (size_t i = 0; i < nf; i++) {
    const struct cc_frame *f = &cv->frames.f[i];
    struct sym_loc loc;
    /* a caller's frame is its return address: look it up one instruction
     * back, where the call is (perf resolves callchain srclines so too) */
    uint64_t ip = i ? f->ip - cv->insn_size : f->ip;
    sym_resolve(s->m, smp->pid, f->cpumode, ip, &loc);
    fkey_of(&loc, ip, &fk[i + 1]);
    site[i + 1] = pc_of(&loc, ip);
  }
  /* The chain's first frame is normally the sampled instruction itself. */
  struct fkey *fkp = fk;
  uint64_t *sitep = site;
  if (same_fn(&fk[1], &fk[0])) {
    fkp++;
    sitep++;
    n--;
  }
  if (n < 2) {
    free(fk);
    free(site);
    return 0;
  }
  for (size_t i = 1; i < n && !e; i++) {
    bool further = false;
    for (size_t j = i; j < n && !further; j++) further = same_fn(&fkp[j], &fkp[i - 1]);
    if (further) continue;
    struct akey k;
    memset(&k, 0, sizeof k);
    k.from = fkp[i];
    k.to = fkp[i - 1];
    k.site = sitep[i];
    struct aval *v = hist_get(cv->arcs, &k);
    if (!v) { e = PM_ENOMEM; break; }
    v->calls++;
    for (size_t t = 0; t < NCT; t++) v->c[t] += c[t];
  }
  free(fk);
  free(site);
  return e;
}

static int on_record(void *ctx, struct session *s, const struct session_rec *r)
{
  struct conv *cv = ctx;
  const struct pd_sample *smp = r->sample;
  if (!smp || session_event_index(s, smp->event) != cv->ev) return 0;
  if (cv->ex.on) exact_sample(&cv->ex, smp->period);
  struct ikey k;
  memset(&k, 0, sizeof k);
  fkey_of(&r->loc, smp->ip, &k.f);
  k.pc = pc_of(&r->loc, smp->ip);
  struct ival *v = hist_get(cv->insns, &k);
  if (!v) return PM_ENOMEM;
  uint64_t c[NCT];
  sample_costs(cv, smp, c);
  for (size_t t = 0; t < NCT; t++) v->c[t] += c[t];
  return cv->chains ? add_arcs(cv, s, smp, c, &k.f, k.pc) : 0;
}

/* record --truth: every instruction the event could keep gets its exact
 * counts, sampled or not (a function never sampled still shows them). */
static int add_truth(struct conv *cv, struct session *s)
{
  size_t n;
  const struct pm_truth_entry *t = pd_reader_truth(s->r, &n);
  for (size_t i = 0; cv->truth && i < n; i++) {
    if (!exact_in_modes(&cv->ex, &t[i])) continue;
    struct sym_loc loc;
    bool kernel = t[i].flags & PM_TRUTH_KERNEL;
    sym_resolve(s->m, (uint32_t)t[i].pid, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, t[i].pc, &loc);
    struct ikey k;
    memset(&k, 0, sizeof k);
    fkey_of(&loc, t[i].pc, &k.f);
    k.pc = pc_of(&loc, t[i].pc);
    struct ival *v = hist_get(cv->insns, &k);
    if (!v) return PM_ENOMEM;
    exact_add(&v->ex, &t[i]);
  }
  for (size_t i = 0; cv->truth && i < hist_count(cv->insns); i++) {
    struct ival *v = hist_val(cv->insns, i);
    for (size_t c = 0; c < NCT; c++) {
      uint64_t x;
      if (ctypes[c].src == S_EXACT && exact_value(&cv->ex, &v->ex, ctypes[c].bits, &x)) v->c[c] = x;
    }
  }
  return 0;
}

/* The trace's blocks, counted per (pid, pc). */
static int on_block(void *ctx, struct session *s, const struct itrace_sblock *b)
{
  struct conv *cv = ctx;
  (void)s;
  return itrace_counts_add(cv->exec, b->b);
}

/* The trace's exact executions, resolved in the user maps of their process
 * (the trace follows user code). */
static int add_exec(struct conv *cv, struct session *s)
{
  size_t n, ex = 0;
  while (ctypes[ex].src != S_TRACE) ex++;
  const struct itrace_pc_count *c = itrace_counts_get(cv->exec, &n);
  for (size_t i = 0; i < n; i++) {
    struct sym_loc loc;
    sym_resolve(s->m, c[i].pid, PERF_RECORD_MISC_USER, c[i].pc, &loc);
    struct ikey k;
    memset(&k, 0, sizeof k);
    fkey_of(&loc, c[i].pc, &k.f);
    k.pc = pc_of(&loc, c[i].pc);
    struct ival *v = hist_get(cv->insns, &k);
    if (!v) return PM_ENOMEM;
    v->c[ex] += c[i].n;
  }
  return 0;
}

/* ---- writing ---- */

/* Name compression: "(id) name" the first time, "(id)" after. Names are
 * looked up by pointer (symbols, DSO and source paths are interned by the
 * session) in one table per kind. */
struct names { struct hist *ids; uint32_t next; };
struct nkey { const void *p; uint64_t addr; };

static void put_name(FILE *o, const char *tag, struct names *nm, const void *p, uint64_t addr, const char *text)
{
  struct nkey k = { p, addr };
  uint32_t *id = hist_get(nm->ids, &k);
  if (id && *id) {
    fprintf(o, "%s=(%u)\n", tag, *id);
    return;
  }
  if (id) *id = ++nm->next;
  fprintf(o, "%s=(%u) %s\n", tag, id ? *id : 0, text);
}

static void fn_text(const struct fkey *f, char *buf, size_t len)
{
  if (f->sym) snprintf(buf, len, "%s", f->sym->name);
  else snprintf(buf, len, "0x%016" PRIx64, f->addr);
}

/* The source file and line of an instruction ("???", 0 when unknown). */
static const char *src_of(const struct fkey *f, uint64_t pc, unsigned *line)
{
  const char *file;
  *line = 0;
  if (f->dso && sym_dso_srcline((struct sym_dso *)f->dso, pc, &file, line)) return file;   /* its line cache is the DSO's */
  *line = 0;
  return "???";
}

struct out {
  FILE *o;
  struct names ob, fl, fn;
  const struct conv *cv;
};

static void put_ob(struct out *w, const char *tag, const struct fkey *f)
{
  put_name(w->o, tag, &w->ob, f->dso, 0, f->dso ? f->dso->path : "[unknown]");
}

static void put_fn(struct out *w, const char *tag, const struct fkey *f)
{
  char name[1024];
  fn_text(f, name, sizeof name);
  /* a symbol by its pointer; an unresolved function by its DSO and address */
  put_name(w->o, tag, &w->fn, f->sym ? (const void *)f->sym : (const void *)f->dso, f->sym ? UINT64_MAX : f->addr, name);
}

static void put_costs(struct out *w, uint64_t pc, unsigned line, const uint64_t *c)
{
  fprintf(w->o, "0x%" PRIx64 " %u", pc, line);
  for (size_t t = 0; t < NCT; t++)
    if (w->cv->on[t]) fprintf(w->o, " %" PRIu64, c[t]);
  fputc('\n', w->o);
}

/* The entry of a function: its symbol's start, or its one address. */
static uint64_t fn_entry(const struct fkey *f) { return f->sym ? f->sym->start : f->addr; }

struct irow { const struct ikey *k; const struct ival *v; };
struct arow { const struct akey *k; const struct aval *v; };

static int fkey_cmp(const struct fkey *a, const struct fkey *b)
{
  const char *x = a->dso ? a->dso->path : "", *y = b->dso ? b->dso->path : "";
  int c = strcmp(x, y);
  if (c) return c;
  uint64_t p = fn_entry(a), q = fn_entry(b);
  if (p != q) return p < q ? -1 : 1;
  return (a->sym != NULL) - (b->sym != NULL);
}

static int irow_cmp(const void *pa, const void *pb)
{
  const struct irow *a = pa, *b = pb;
  int c = fkey_cmp(&a->k->f, &b->k->f);
  return c ? c : a->k->pc < b->k->pc ? -1 : a->k->pc > b->k->pc;
}

static int arow_cmp(const void *pa, const void *pb)
{
  const struct arow *a = pa, *b = pb;
  int c = fkey_cmp(&a->k->from, &b->k->from);
  if (c) return c;
  if (a->k->site != b->k->site) return a->k->site < b->k->site ? -1 : 1;
  return fkey_cmp(&a->k->to, &b->k->to);
}

/* A function's block header (ob, fl, fn); returns its file. */
static const char *put_fn_head(struct out *w, const struct fkey *f)
{
  unsigned line;
  const char *file = src_of(f, fn_entry(f), &line);
  put_ob(w, "ob", f);
  put_name(w->o, "fl", &w->fl, file, 0, file);
  put_fn(w, "fn", f);
  return file;
}

/* One function: ob, fl, fn, its instructions (fi/fe where the source file
 * changes), then its calls. */
static void write_fn(struct out *w, const struct irow *ins, size_t ni, const struct arow *arcs, size_t na)
{
  const struct fkey *f = ni ? &ins[0].k->f : &arcs[0].k->from;
  unsigned line;
  const char *ffile = put_fn_head(w, f), *cur = ffile;
  for (size_t i = 0; i < ni; i++) {
    const char *file = src_of(f, ins[i].k->pc, &line);
    if (strcmp(file, cur)) {
      put_name(w->o, strcmp(file, ffile) ? "fi" : "fe", &w->fl, file, 0, file);
      cur = file;
    }
    put_costs(w, ins[i].k->pc, line, ins[i].v->c);
  }
  for (size_t i = 0; i < na; i++) {
    const struct akey *k = arcs[i].k;
    const char *site_file = src_of(f, k->site, &line);
    if (strcmp(site_file, cur)) {
      put_name(w->o, strcmp(site_file, ffile) ? "fi" : "fe", &w->fl, site_file, 0, site_file);
      cur = site_file;
    }
    unsigned tline;
    const char *tfile = src_of(&k->to, fn_entry(&k->to), &tline);
    put_ob(w, "cob", &k->to);
    put_name(w->o, "cfi", &w->fl, tfile, 0, tfile);
    put_fn(w, "cfn", &k->to);
    fprintf(w->o, "calls=%" PRIu64 " 0x%" PRIx64 " %u\n", arcs[i].v->calls, fn_entry(&k->to), tline);
    put_costs(w, k->site, line, arcs[i].v->c);
  }
}

/* A function that is only ever called (a chain unwound at the interrupt,
 * past the sampled instruction, into a callee that has no sample of its
 * own) still gets its block, empty: readers learn its object from it
 * (callgrind_annotate otherwise lists its inclusive cost without one).
 * written: the functions with a block (keys struct fkey). */
static int write_callees(struct out *w, struct hist *written, const struct arow *arcs, size_t na)
{
  for (size_t i = 0; i < na; i++) {
    const struct fkey *f = &arcs[i].k->to;
    if (hist_find(written, f)) continue;
    if (!hist_get(written, f)) return PM_ENOMEM;
    put_fn_head(w, f);
    fputc('\n', w->o);
  }
  return 0;
}

static int write_callgrind(const struct conv *cv, const struct session *s, FILE *o)
{
  size_t ni = hist_count(cv->insns), na = hist_count(cv->arcs);
  struct irow *ins = calloc(ni + 1, sizeof *ins);
  struct arow *arcs = calloc(na + 1, sizeof *arcs);
  struct hist *written = hist_create(sizeof(struct fkey), 1);   /* the functions with a block */
  struct out w = { o, { hist_create(sizeof(struct nkey), 4), 0 }, { hist_create(sizeof(struct nkey), 4), 0 },
                   { hist_create(sizeof(struct nkey), 4), 0 }, cv };
  int rc = ins && arcs && written && w.ob.ids && w.fl.ids && w.fn.ids ? 0 : PM_ENOMEM;
  uint64_t tot[NCT] = { 0 };
  for (size_t i = 0; !rc && i < ni; i++) {
    ins[i] = (struct irow){ hist_key(cv->insns, i), hist_val(cv->insns, i) };
    for (size_t t = 0; t < NCT; t++) tot[t] += ins[i].v->c[t];
  }
  for (size_t i = 0; !rc && i < na; i++) arcs[i] = (struct arow){ hist_key(cv->arcs, i), hist_val(cv->arcs, i) };
  if (!rc) {
    qsort(ins, ni, sizeof *ins, irow_cmp);
    qsort(arcs, na, sizeof *arcs, arow_cmp);
    const char *cmd = pd_reader_env(s->r, "cmdline");
    fprintf(o, "# callgrind format\nversion: 1\ncreator: profileme data convert --to-callgrind\n");
    fprintf(o, "cmd: %s\npart: 1\n\n", cmd ? cmd : s->path);
    fprintf(o, "desc: Event: %s\ndesc: Source: %s\n",
            cv->ev == SIZE_MAX ? "(none: the trace)" : pd_reader_event(s->r, cv->ev)->name, s->path);
    fprintf(o, "\npositions: instr line\n");
    for (size_t t = 0; t < NCT; t++)
      if (cv->on[t]) fprintf(o, "event: %s : %s\n", ctypes[t].name, ctypes[t].desc);
    fprintf(o, "events:");
    for (size_t t = 0; t < NCT; t++)
      if (cv->on[t]) fprintf(o, " %s", ctypes[t].name);
    fprintf(o, "\nsummary:");
    for (size_t t = 0; t < NCT; t++)
      if (cv->on[t]) fprintf(o, " %" PRIu64, tot[t]);
    fprintf(o, "\n\n");
    /* functions in (object, entry) order, each with its instructions and
     * the arcs it calls from */
    for (size_t i = 0, j = 0; !rc && (i < ni || j < na);) {
      const struct fkey *f = i < ni ? &ins[i].k->f : &arcs[j].k->from;
      if (i < ni && j < na && fkey_cmp(&arcs[j].k->from, f) < 0) f = &arcs[j].k->from;
      size_t i2 = i, j2 = j;
      while (i2 < ni && same_fn(&ins[i2].k->f, f)) i2++;
      while (j2 < na && same_fn(&arcs[j2].k->from, f)) j2++;
      write_fn(&w, ins + i, i2 - i, arcs + j, j2 - j);
      fputc('\n', o);
      if (!hist_get(written, f)) rc = PM_ENOMEM;
      i = i2, j = j2;
    }
    if (!rc) rc = write_callees(&w, written, arcs, na);
  }
  if (!rc) {
    fprintf(o, "totals:");
    for (size_t t = 0; t < NCT; t++)
      if (cv->on[t]) fprintf(o, " %" PRIu64, tot[t]);
    fputc('\n', o);
  }
  hist_destroy(w.ob.ids);
  hist_destroy(w.fl.ids);
  hist_destroy(w.fn.ids);
  hist_destroy(written);
  free(ins);
  free(arcs);
  return rc;
}

/* ---- the command ---- */

/* Stops the pass at the first sample, noting its event. */
struct first { bool any; size_t ev; };
static int first_sample(void *ctx, struct session *s, const struct session_rec *r)
{
  struct first *f = ctx;
  if (!r->sample) return 0;
  f->any = true;
  f->ev = session_event_index(s, r->sample->event);
  return 1;
}

/* Whether the event's samples carry ProfileMe payloads (looks at the
 * first one). */
struct pmprobe { size_t ev; bool pm, seen; };
static int probe_pm(void *ctx, struct session *s, const struct session_rec *r)
{
  struct pmprobe *p = ctx;
  if (!r->sample || session_event_index(s, r->sample->event) != p->ev) return 0;
  struct pm_raw_v1 raw;
  p->pm = session_pm_raw(r->sample, &raw);
  p->seen = true;
  return 1;
}

/* Runs fn over a fresh session of path (a probing pass). Returns 0, or 1
 * after a message. */
static int probe(const char *path, const char *symfs, session_fn fn, void *ctx)
{
  struct session s;
  if (session_open(&s, path, symfs)) {
    fprintf(stderr, "profileme data: %s\n", s.err);
    return 1;
  }
  int e = session_run(&s, fn, ctx);
  if (e && e != 1) fprintf(stderr, "profileme data: %s: %s\n", s.path, s.err);
  session_close(&s);
  return e && e != 1;
}

static int convert(struct conv *cv, const char *input, const char *symfs, const char *out)
{
  const char *path = input ? input : "perf.data";
  struct first fs = { false, 0 };
  if (!cv->event && probe(path, symfs, first_sample, &fs)) return 1;
  cv->trace = itrace_file_has_trace(path);
  struct session s;
  if (session_open(&s, input, symfs)) {
    fprintf(stderr, "profileme data: %s\n", s.err);
    return 1;
  }
  int rc = 1;
  FILE *o = NULL;
  cv->ev = cv->event || fs.any ? fs.ev : SIZE_MAX;
  bool found = !cv->event;
  for (size_t i = 0; cv->event && i < pd_reader_nevents(s.r); i++)
    if (!strcmp(pd_reader_event(s.r, i)->name, cv->event)) cv->ev = i, found = true;
  struct pmprobe pp = { cv->ev, false, false };
  size_t ntruth;
  const struct pm_truth_entry *truth = pd_reader_truth(s.r, &ntruth);
  bool dwarf = false;
  if (!found) {
    fprintf(stderr, "profileme data: %s: no event named '%s'\n", s.path, cv->event);
  } else if (!cv->event && !fs.any && !cv->trace) {
    fprintf(stderr, "profileme data: %s: no samples and no instruction trace\n", s.path);
  } else if (cv->ev != SIZE_MAX && probe(path, symfs, probe_pm, &pp)) {
  } else if ((cv->ev != SIZE_MAX && exact_event_init(&cv->ex, pd_reader_event(s.r, cv->ev), truth, ntruth)) ||
             !(cv->insns = hist_create(sizeof(struct ikey), sizeof(struct ival))) ||
             !(cv->arcs = hist_create(sizeof(struct akey), sizeof(struct aval))) ||
             (cv->trace && !(cv->exec = itrace_counts_create()))) {
    fprintf(stderr, "profileme data: %s\n", pm_strerror(PM_ENOMEM));
  } else {
    cv->pm = pp.pm;
    cv->truth = cv->ex.on && cv->ex.total_known;
    bool smp = cv->ev != SIZE_MAX;
    for (size_t t = 0; t < NCT; t++)
      cv->on[t] = (smp && (ctypes[t].src == S_SAMPLES || ctypes[t].src == S_PERIOD)) ||
                  (ctypes[t].src == S_WEIGHT && cv->pm) || (ctypes[t].src == S_STATUS && cv->pm) ||
                  (ctypes[t].src == S_EXACT && cv->truth) || (ctypes[t].src == S_TRACE && cv->trace);
    cv->chains = cc_file_has_chains(&s, &dwarf);
    if (dwarf) cc_unwinder_for(&s, &cv->uw);
    const char *arch = pd_reader_env(s.r, "arch");
    cv->insn_size = arch && !strcmp(arch, "alpha") ? 4 : 1;
    struct itrace_pass_ops ops = { on_record, on_block, NULL };
    struct itrace_summary sum;
    memset(&sum, 0, sizeof sum);
    if (cv->trace ? itrace_pass(&s, &ops, cv, &sum) : session_run(&s, on_record, cv)) {
      fprintf(stderr, "profileme data: %s: %s\n", s.path, s.err);
    } else if (add_truth(cv, &s) || (cv->trace && add_exec(cv, &s))) {
      fprintf(stderr, "profileme data: %s\n", pm_strerror(PM_ENOMEM));
    } else if (!(o = strcmp(out, "-") ? fopen(out, "w") : stdout)) {
      fprintf(stderr, "profileme data: %s: cannot write: %s\n", out, strerror(errno));
    } else if (write_callgrind(cv, &s, o)) {
      fprintf(stderr, "profileme data: %s\n", pm_strerror(PM_ENOMEM));
    } else if (ferror(o) || (o != stdout && fclose(o))) {
      o = NULL;
      fprintf(stderr, "profileme data: %s: write error\n", out);
    } else {
      if (o != stdout) o = NULL;
      rc = 0;
    }
    if (cv->trace && sum.st.errors)   /* as dcpi --exec says it */
      fprintf(stderr, "profileme data: %" PRIu64 " trace decode errors (%" PRIu64 " bytes lost): Exec counts near them are low\n",
              sum.st.errors, sum.st.lost_bytes);
  }
  if (o && o != stdout) fclose(o);
  if (cv->bad_chains)
    fprintf(stderr, "profileme data: %" PRIu64 " callchains with an unknown context marker were dropped\n", cv->bad_chains);
  hist_destroy(cv->insns);
  hist_destroy(cv->arcs);
  itrace_counts_destroy(cv->exec);
  exact_event_free(&cv->ex);
  cc_frames_free(&cv->frames);
  cc_unwinder_release(&cv->uw);
  session_close(&s);
  return rc;
}

int cmd_data(int argc, char **argv)
{
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "convert")) {
    fprintf(stderr, "profileme data: %s (the subcommand is convert)\n",
            argc < 2 ? "missing subcommand" : "unknown subcommand");
    usage(stderr);
    return 2;
  }
  enum { O_TO_CALLGRIND = 256, O_SYMFS, O_TO_JSON, O_TO_CTF };
  static const struct option opts[] = {
    { "to-callgrind", required_argument, NULL, O_TO_CALLGRIND }, { "input", required_argument, NULL, 'i' },
    { "event", required_argument, NULL, 'e' }, { "symfs", required_argument, NULL, O_SYMFS },
    { "force", no_argument, NULL, 'f' }, { "to-json", required_argument, NULL, O_TO_JSON },
    { "to-ctf", required_argument, NULL, O_TO_CTF }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
  };
  struct conv cv;
  memset(&cv, 0, sizeof cv);
  const char *input = NULL, *symfs = NULL, *out = NULL;
  int c;
  optind = 1;
  argc--, argv++;                /* past "data": getopt sees "convert ..." */
  while ((c = getopt_long(argc, argv, "i:e:fh", opts, NULL)) != -1) {
    switch (c) {
    case O_TO_CALLGRIND: out = optarg; break;
    case 'i': input = optarg; break;
    case 'e': cv.event = optarg; break;
    case O_SYMFS: symfs = optarg; break;
    case 'f': break;
    case O_TO_JSON:
    case O_TO_CTF:
      fprintf(stderr, "profileme data: %s is perf's; this converter writes --to-callgrind only\n",
              c == O_TO_JSON ? "--to-json" : "--to-ctf");
      return 2;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "profileme data: unexpected argument '%s'\n", argv[optind]);
    return 2;
  }
  if (!out || !*out) {
    fprintf(stderr, "profileme data: convert needs --to-callgrind FILE\n");
    return 2;
  }
  return convert(&cv, input, symfs, out);
}
