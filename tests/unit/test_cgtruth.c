/* Call chains against the machine's true call stacks.
 *
 * Without arguments: the shadow call stack (guest/shadow.h) on hand-made
 * instruction sequences (calls, returns, a tail jump, a longjmp, a signal
 * frame and its sigreturn, fork and thread creation, exec).
 *
 * With arguments (tests/scripts/callchain_truth.sh): NAME PERF.DATA TRUTH
 * compares every sample of a file recorded with --callchain-truth TRUTH
 * with the true stack at that sample: a file with user registers and stacks
 * (--call-graph dwarf) is unwound here with src/unwind; one recorded with
 * --unwind-at-record has the chain in PERF_SAMPLE_CALLCHAIN. Each chain must
 * be the true stack exactly, or a prefix of it ending in a truncation; never
 * a wrong frame. Prints the shares; fails below MIN (default 99) percent
 * exact. */
#include "check.h"
#include "guest/os.h"
#include "guest/shadow.h"
#include "analysis/callchain.h"
#include "analysis/dwarf_unwind.h"
#include "util/err.h"
#include <stdlib.h>
#include <string.h>

/* ---- the shadow on synthetic instructions ---- */

#define BSR(ra)    (0x34u << 26 | (uint32_t)(ra) << 21)
#define JSR(ra, rb) (0x1au << 26 | (uint32_t)(ra) << 21 | (uint32_t)(rb) << 16 | 1u << 14)
#define RET(rb)    (0x1au << 26 | 31u << 21 | (uint32_t)(rb) << 16 | 2u << 14)
#define JMP(rb)    (0x1au << 26 | 31u << 21 | (uint32_t)(rb) << 16)

static int depth(const struct task *t, uint64_t *ret)
{
  return shadow_read(t, ret, 16);
}

static void test_shadow(void)
{
  struct os m = { 0 };
  struct task t = { .tid = 1 }, child = { .tid = 2 }, thread = { .tid = 3 };
  uint64_t r[32] = { 0 }, ret[16];
  CHECK(shadow_read(&t, ret, 16) == -1, "shadow: unknown before it is enabled");
  os_shadow_enable(&m);
  CHECK(m.cpus[0].shadow_on && m.cpus[OS_MAX_CPUS - 1].shadow_on, "shadow: enabled on every CPU");
  r[30] = 0x1000;
  shadow_step(&t, 0x100, BSR(26), r);                   /* main calls f */
  r[30] = 0xf00;
  r[27] = 0x300;
  shadow_step(&t, 0x200, JSR(26, 27), r);               /* f calls g */
  shadow_step(&t, 0x300, JMP(27), r);                   /* g tail-jumps: no frame change */
  shadow_step(&t, 0x304, BSR(31), r);                   /* a branch that does not link */
  CHECK(depth(&t, ret) == 2 && ret[0] == 0x204 && ret[1] == 0x104, "shadow: two calls, innermost first");
  r[26] = 0x204;
  shadow_step(&t, 0x308, RET(26), r);                   /* back to f */
  CHECK(depth(&t, ret) == 1 && ret[0] == 0x104, "shadow: ret pops to its caller");
  /* longjmp: f (sp 0xf00) called g, g called h; a ret to setjmp's return
   * address (no frame has it) with sp back at 0xf00 drops g and h. */
  shadow_step(&t, 0x200, JSR(26, 27), r);
  r[30] = 0xe00;
  shadow_step(&t, 0x400, BSR(26), r);
  r[30] = 0xf00;
  r[26] = 0x250;
  shadow_step(&t, 0x500, RET(26), r);
  CHECK(depth(&t, ret) == 1 && ret[0] == 0x104, "shadow: a longjmp drops the frames below its sp (%d)",
        depth(&t, ret));
  /* A signal at pc 0x260: handler -> restorer -> 0x260; its ret goes to
   * the restorer, sigreturn back to 0x260. */
  shadow_signal(&t, 0x260, 0xf00, 0x9000, 0xd00);
  CHECK(depth(&t, ret) == 3 && ret[0] == 0x9000 && ret[1] == 0x260, "shadow: signal frame");
  r[30] = 0xd00;
  shadow_step(&t, 0x700, BSR(26), r);
  shadow_signal(&t, 0x704, 0xc00, 0x9000, 0xb00);        /* nested, in the handler's callee */
  r[26] = 0x9000;
  shadow_step(&t, 0x800, RET(26), r);
  shadow_sigreturn(&t, 0x704);
  CHECK(depth(&t, ret) == 4 && ret[0] == 0x704 && ret[1] == 0x9000, "shadow: nested signal returns (%d)",
        depth(&t, ret));
  /* fork copies, a thread on a new stack starts empty, exec empties. */
  shadow_clone(&m, &child, &t, false);
  shadow_clone(&m, &thread, &t, true);
  CHECK(depth(&child, ret) == 4 && ret[0] == 0x704, "shadow: a fork child has the parent's frames");
  CHECK(depth(&thread, ret) == 0, "shadow: a new thread has none");
  shadow_exec(&child);
  CHECK(depth(&child, ret) == 0, "shadow: exec empties it");
  /* Overflow: unknown, not wrong. */
  for (int i = 0; i <= SHADOW_MAX; i++) shadow_step(&thread, 0x100, BSR(26), r);
  CHECK(shadow_read(&thread, ret, 16) == -1, "shadow: overflowed is unknown");
  shadow_free(&t);
  shadow_free(&child);
  shadow_free(&thread);
}

/* ---- recorded files against the truth ---- */

struct truth { uint32_t tid; uint64_t time; int n; uint64_t *chain; };

struct cmp {
  const char *name;
  struct truth *t;
  size_t nt;
  struct unw *u;
  uint64_t samples, exact, trunc, wrong, unknown, nomatch, frames;
  uint64_t trunc_st[UNW_NSTATUS + 2];  /* [UNW_NSTATUS]: a recorded chain marked truncated;
                                          [UNW_NSTATUS + 1]: one shorter than the truth, unmarked */
  bool dwarf, chain;
  char first_wrong[512];
  /* The same samples through the commands' frames (cc_sample_frames with
   * the file's unwinder: what report -g, script and flamegraph show). */
  struct cc_unwinder uw;
  bool have_uw;
  uint64_t fr_samples, fr_same;
  /* Where the truncated chains stopped: "status@function" and how often. */
  struct { char what[96]; unsigned n; } at[32];
  unsigned nat;
};

static const char *status_name(int st)
{
  return st == UNW_NSTATUS ? "marked" : st == UNW_NSTATUS + 1 ? "unmarked" : unw_status_str(st);
}

/* Counts a truncation at the function holding pc (the chain's last frame). */
static void note_stop(struct cmp *c, struct session *s, uint32_t pid, uint64_t pc, bool ret_addr, int status)
{
  struct sym_loc loc;
  sym_resolve(s->m, pid, PERF_RECORD_MISC_USER, ret_addr ? pc - 4 : pc, &loc);
  char what[96], fn[64];
  const char *dso = loc.dso && strrchr(loc.dso->path, '/') ? strrchr(loc.dso->path, '/') + 1 : "?";
  if (loc.sym) snprintf(fn, sizeof fn, "%s+%#" PRIx64, loc.sym->name, loc.vaddr - loc.sym->start);
  else snprintf(fn, sizeof fn, "%s+%#" PRIx64, dso, loc.vaddr);
  snprintf(what, sizeof what, "%s@%s%s", status_name(status), fn,
           ret_addr ? "" : "(frame0)");
  for (char *p = what; *p; p++) if (*p == ' ') *p = '_';
  for (unsigned i = 0; i < c->nat; i++)
    if (!strcmp(c->at[i].what, what)) { c->at[i].n++; return; }
  if (c->nat < 32) { snprintf(c->at[c->nat].what, sizeof c->at[0].what, "%s", what); c->at[c->nat++].n = 1; }
}

static int truth_cmp(const void *a, const void *b)
{
  const struct truth *x = a, *y = b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  return x->time < y->time ? -1 : x->time > y->time;
}

static int load_truth(struct cmp *c, const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t cap = 0;
  unsigned pid, tid;
  uint64_t time;
  int n;
  while (fscanf(f, "%u %u %" SCNu64 " %d", &pid, &tid, &time, &n) == 4) {
    if (c->nt == cap) {
      cap = cap ? 2 * cap : 1024;
      c->t = realloc(c->t, cap * sizeof *c->t);
    }
    struct truth *t = &c->t[c->nt++];
    *t = (struct truth){ tid, time, n, NULL };
    if (n > 0) t->chain = malloc((size_t)n * sizeof *t->chain);
    for (int i = 0; i < n; i++)
      if (fscanf(f, "%" SCNx64, &t->chain[i]) != 1) { fclose(f); return -1; }
  }
  fclose(f);
  qsort(c->t, c->nt, sizeof *c->t, truth_cmp);
  return 0;
}

/* Compares chain[0..n) with the truth; complete: the unwinder says it is
 * the whole stack (a recorded chain claims so when it is not cut at the
 * kernel's max_stack). */
static void judge(struct cmp *c, const struct truth *t, const uint64_t *chain, size_t n, bool complete,
                  int status)
{
  c->samples++;
  c->frames += n;
  bool prefix = n >= 1 && n <= (size_t)t->n;
  for (size_t i = 0; prefix && i < n; i++) prefix = chain[i] == t->chain[i];
  if (prefix && n == (size_t)t->n) c->exact++;
  else if (prefix && !complete) { c->trunc++; c->trunc_st[status]++; }
  else {
    if (!c->wrong) {
      int k = snprintf(c->first_wrong, sizeof c->first_wrong, "tid %u time %" PRIu64 ": got", t->tid, t->time);
      for (size_t i = 0; i < n && i < 8 && k < 400; i++)
        k += snprintf(c->first_wrong + k, sizeof c->first_wrong - (size_t)k, " %" PRIx64, chain[i]);
      k += snprintf(c->first_wrong + k, sizeof c->first_wrong - (size_t)k, " | true");
      for (int i = 0; i < t->n && i < 8 && k < 480; i++)
        k += snprintf(c->first_wrong + k, sizeof c->first_wrong - (size_t)k, " %" PRIx64, t->chain[i]);
    }
    c->wrong++;
  }
}

static int on_rec(void *ctx, struct session *s, const struct session_rec *r)
{
  struct cmp *c = ctx;
  const struct pd_sample *smp = r->sample;
  if (!smp) return 0;
  struct truth key = { .tid = smp->tid, .time = smp->time };
  const struct truth *t = bsearch(&key, c->t, c->nt, sizeof *c->t, truth_cmp);
  if (!t) { c->nomatch++; return 0; }
  if (t->n < 1) { c->unknown++; return 0; }
  struct unw_result res;
  if (sample_user_unwind(c->u, s, smp, UNW_MAX_DEPTH, &res)) {
    c->dwarf = true;
    judge(c, t, res.pc, res.n, res.status == UNW_COMPLETE, res.status);
    if (res.status != UNW_COMPLETE && res.n)
      note_stop(c, s, smp->pid, res.pc[res.n - 1], res.n > 1, res.status);
    /* The commands' user frames: the unwinder's, return addresses less 1. */
    struct cc_frames fr = { 0 };
    if (c->have_uw && cc_sample_frames(s, smp, &c->uw, &fr) == 0) {
      uint64_t got[UNW_MAX_DEPTH];
      unsigned n = 0;
      for (size_t i = 0; i < fr.n && n < UNW_MAX_DEPTH; i++)
        if (fr.f[i].cpumode == PERF_RECORD_MISC_USER) got[n] = fr.f[i].ip + (n ? 1 : 0), n++;
      c->fr_samples++;
      c->fr_same += n == res.n && !memcmp(got, res.pc, n * sizeof got[0]) &&
                    fr.truncated == (res.status != UNW_COMPLETE);
    }
    cc_frames_free(&fr);
    return 0;
  }
  size_t n;
  bool marked;
  const uint64_t *u = sample_user_chain(smp, &n, &marked);
  if (!u) { c->nomatch++; return 0; }
  c->chain = true;
  /* The kernel cuts the chain at max_stack entries (markers excluded), as
   * Linux does; a chain the recording unwinder stopped early is marked by
   * an empty PERF_CONTEXT_USER context after it. Any other chain claims to
   * be the whole stack: shorter than the truth, it is wrong. */
  size_t entries = 0;
  for (uint64_t i = 0; i < smp->callchain_nr; i++) entries += smp->callchain[i] < PERF_CONTEXT_MAX;
  bool cut = entries >= smp->event->attr.sample_max_stack;
  int st = cut ? UNW_TRUNC_DEPTH : marked ? UNW_NSTATUS : UNW_NSTATUS + 1;
  judge(c, t, u, n, !cut && !marked, st);
  if (n && n < (size_t)t->n) note_stop(c, s, smp->pid, u[n - 1], n > 1, st);
  /* The commands see the same chain and the same mark. */
  struct cc_frames fr = { 0 };
  if (cc_sample_frames(s, smp, NULL, &fr) == 0) {
    size_t k = 0;
    bool same = true;
    for (size_t i = 0; i < fr.n; i++)
      if (fr.f[i].cpumode == PERF_RECORD_MISC_USER) same = same && k < n && fr.f[i].ip == u[k], k++;
    c->fr_samples++;
    c->fr_same += same && k == n && fr.truncated == marked;
  }
  cc_frames_free(&fr);
  return 0;
}

static void test_file(const char *name, const char *data, const char *truth, unsigned min)
{
  struct cmp c = { .name = name };
  CHECK(load_truth(&c, truth) == 0 && c.nt > 0, "%s: truth %s read (%zu samples)", name, truth, c.nt);
  struct session s;
  int err = session_open(&s, data, NULL);
  CHECK(err == 0, "%s: %s opens (%s)", name, data, err ? s.err : "");
  if (err) return;
  c.u = unw_create(NULL);
  c.have_uw = cc_unwinder_for(&s, &c.uw);
  err = session_run(&s, on_rec, &c);
  CHECK(err == 0, "%s: read (%s)", name, err ? s.err : "");
  const char *mode = c.dwarf ? "dwarf, unwound from regs+stack" : "unwound at record";
  uint64_t n = c.samples;
  printf("callchain_truth %s (%s): %" PRIu64 " samples, %" PRIu64 " exact (%.2f%%), %" PRIu64
         " truncated (%.2f%%), %" PRIu64 " wrong, %.1f frames/sample; %" PRIu64 " with no known truth, %" PRIu64
         " unmatched;", name, mode, n, c.exact, n ? 100.0 * c.exact / n : 0, c.trunc, n ? 100.0 * c.trunc / n : 0,
         c.wrong, n ? (double)c.frames / n : 0, c.unknown, c.nomatch);
  for (int i = 1; i <= UNW_NSTATUS + 1; i++)
    if (c.trunc_st[i]) printf(" %s %" PRIu64, status_name(i), c.trunc_st[i]);
  printf("\n");
  if (c.nat) {
    printf("callchain_truth stops %s (%s), status@function:", name, mode);
    for (unsigned i = 0; i < c.nat; i++) printf(" %s %u", c.at[i].what, c.at[i].n);
    printf("\n");
  }
  CHECK(n >= 50, "%s (%s): samples compared (%" PRIu64 ")", name, mode, n);
  CHECK(c.wrong == 0, "%s (%s): no wrong frame (%s)", name, mode, c.first_wrong);
  CHECK(n && c.exact * 100 >= n * min, "%s (%s): at least %u%% exactly the true stack", name, mode, min);
  CHECK(c.nomatch == 0, "%s (%s): every sample has its truth", name, mode);
  CHECK((c.have_uw || !c.dwarf) && c.fr_samples == c.samples && c.fr_same == c.samples,
        "%s (%s): report/script frames are the %s chains, truncations marked (%" PRIu64 " of %" PRIu64 ")",
        name, mode, c.dwarf ? "unwound" : "recorded", c.fr_same, c.samples);
  cc_unwinder_release(&c.uw);
  unw_destroy(c.u);
  session_close(&s);
  for (size_t i = 0; i < c.nt; i++) free(c.t[i].chain);
  free(c.t);
}

int main(int argc, char **argv)
{
  if (argc < 4) {
    test_shadow();
    return check_done();
  }
  test_file(argv[1], argv[2], argv[3], argc > 4 ? (unsigned)atoi(argv[4]) : 99);
  return check_done();
}
