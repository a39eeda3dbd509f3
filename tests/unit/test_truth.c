/* Ground truth per instruction: the Clopper-Pearson interval against
 * published values, the fate -> ProfileMe status mapping and the counting
 * table (kernel/truth.c), and the PROFILEME_TRUTH feature written and read
 * back, with each malformation the reader must refuse. */
#include "check.h"
#include "kernel/truth.h"
#include "perfdata/perfdata.h"
#include "uapi/pm_raw.h"
#include "uapi/pm_truth.h"
#include "util/err.h"
#include "util/stats.h"
#include "analysis/exact.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool near(double a, double b) { return fabs(a - b) <= 1e-4 * (fabs(b) + 1e-6); }

/* P(X <= k) for X ~ Binomial(n, p), summed term by term: an oracle
 * independent of the incomplete beta. */
static double binom_le(uint64_t k, uint64_t n, double p)
{
  double s = 0;
  for (uint64_t i = 0; i <= k; i++)
    s += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) + (double)i * log(p) +
             (double)(n - i) * log1p(-p));
  return s;
}

/* Values of R's binom.test (exact Clopper-Pearson, 95%), and for a larger n
 * the defining property: each binomial tail is 2.5% at the interval's ends. */
static void test_interval(void)
{
  static const struct { uint64_t k, n; double lo, hi; } v[] = {
    { 0, 10, 0, 0.3084971 }, { 5, 10, 0.1870860, 0.8129140 }, { 1, 100, 0.0002531460, 0.05445939 },
    { 10, 10, 0.6915029, 1 },
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    double lo, hi;
    stats_binom_interval(v[i].k, v[i].n, 0.95, &lo, &hi);
    CHECK(near(lo, v[i].lo) && near(hi, v[i].hi), "interval: %" PRIu64 " of %" PRIu64 " -> [%.7f, %.7f]",
          v[i].k, v[i].n, lo, hi);
  }
  double lo, hi;
  stats_binom_interval(50, 1000, 0.95, &lo, &hi);
  double t1 = 1 - binom_le(49, 1000, lo), t2 = binom_le(50, 1000, hi);
  CHECK(fabs(t1 - 0.025) < 1e-6 && fabs(t2 - 0.025) < 1e-6, "interval: 50 of 1000 -> [%.7f, %.7f], tails %.7f %.7f",
        lo, hi, t1, t2);
}

static struct uop_fate fate(uint64_t pc, uint32_t flags, uint8_t trap, bool kernel)
{
  struct uop_fate f;
  memset(&f, 0, sizeof f);
  f.pc = pc, f.flags = flags, f.trap = trap, f.kernel = kernel;
  return f;
}

static bool is_jump_at_300(void *ctx, uint64_t pc) { (void)ctx; return pc == 0x300; }

/* The statuses the driver decodes from the PMU's registers for each fate. */
static void test_status(void)
{
  struct uop_fate f = fate(0x100, FATE_RETIRED, EV67_TRAP_NONE, false);
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_RETIRED | PM_ST_VALID, "status: retired");
  f = fate(0x100, FATE_RETIRED | FATE_MISPREDICT | FATE_TAKEN, EV67_TRAP_NONE, false);
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_RETIRED | PM_ST_TRAP | PM_ST_MISPREDICT | PM_ST_TAKEN,
               "status: mispredicted taken branch");
  f = fate(0x100, FATE_TRAP | FATE_DTB_MISS, EV67_TRAP_DTB_MISS, false);
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_TRAP | PM_ST_DTB_MISS, "status: DTB miss (aborted)");
  f = fate(0x100, FATE_KILLED_BM | FATE_WRONG_PATH, EV67_TRAP_NONE, false);
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_EARLY_KILL, "status: killed before map");
  f = fate(0x100, FATE_KILLED_AM, EV67_TRAP_NONE, false);
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_LATE_KILL, "status: killed after map");
  f = fate(0x100, FATE_TRAP | FATE_LSO, EV67_TRAP_REPLAY, false);
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_TRAP | PM_ST_LDSTORDER | PM_ST_REPLAY, "status: load-store replay");
  f = fate(0x100, FATE_TRAP | FATE_UNALIGNED, EV67_TRAP_UNALIGNED, false);
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_TRAP | PM_ST_UNALIGNED, "status: unaligned");
  f = fate(0x300, FATE_RETIRED | FATE_JMP_MISPRED, EV67_TRAP_NONE, false);
  CHECK_EQ_U64(truth_status(&f, true), PM_ST_RETIRED | PM_ST_TRAP | PM_ST_JMP_MISPRED, "status: mispredicted return");
  f = fate(0x100, FATE_TRAP | FATE_ITB_MISS, EV67_TRAP_NONE, false);
  f.pmpc_redirect = EV67_PMPC_ITB_MISS;
  CHECK_EQ_U64(truth_status(&f, false), PM_ST_TRAP | PM_ST_ITB_MISS,
               "status: ITB-miss redirect");
}

/* Counting: per (pid, pc, mode), joint counts with retired, and a table that
 * grows past its first size without losing a count. */
static void test_counting(void)
{
  struct truth *t = truth_create(is_jump_at_300, NULL);
  CHECK(t != NULL, "table: created");
  if (!t) return;
  struct uop_fate r = fate(0x100, FATE_RETIRED | FATE_TAKEN, EV67_TRAP_NONE, false);
  struct uop_fate k = fate(0x100, FATE_KILLED_AM | FATE_TAKEN, EV67_TRAP_NONE, false);
  struct uop_fate kr = fate(0x100, FATE_RETIRED, EV67_TRAP_NONE, true);
  struct uop_fate j = fate(0x300, FATE_RETIRED | FATE_JMP_MISPRED, EV67_TRAP_NONE, false);
  for (int i = 0; i < 7; i++) truth_observe(t, &r, 42);
  for (int i = 0; i < 3; i++) truth_observe(t, &k, 42);
  truth_observe(t, &kr, 42);
  truth_observe(t, &r, 43);
  truth_observe(t, &j, 42);
  /* Seven distinct statuses at one PC: more than a slot holds inline. */
  static const uint32_t many[7] = { FATE_RETIRED, FATE_KILLED_AM, FATE_KILLED_BM, FATE_RETIRED | FATE_TAKEN,
                                    FATE_RETIRED | FATE_MAP_STALL, FATE_RETIRED | FATE_ICM, FATE_KILLED_AM | FATE_ICM };
  for (int rep = 0; rep < 3; rep++)
    for (int i = 0; i < 7; i++) {
      struct uop_fate f = fate(0x200, many[i], EV67_TRAP_NONE, false);
      truth_observe(t, &f, 42);
    }
  for (uint64_t pc = 0x10000; pc < 0x10000 + 4 * 20000; pc += 4) {
    struct uop_fate f = fate(pc, FATE_RETIRED, EV67_TRAP_NONE, false);
    truth_observe(t, &f, 7);
    truth_observe(t, &f, 7);
  }
  struct pm_truth_entry *e;
  size_t n;
  CHECK(truth_export(t, &e, &n) == 0 && n == 5 + 20000, "table: %zu entries after growing", n);
  bool sorted = true, twice = true;
  const struct pm_truth_entry *a = NULL, *b = NULL, *c = NULL, *jj = NULL, *m7 = NULL;
  for (size_t i = 0; i < n; i++) {
    if (i && (e[i - 1].pid > e[i].pid || (e[i - 1].pid == e[i].pid && e[i - 1].flags == e[i].flags && e[i - 1].pc >= e[i].pc)))
      sorted = false;
    if (e[i].pid == 7 && e[i].n[PM_TRUTH_FETCHED] != 2) twice = false;
    if (e[i].pid == 42 && e[i].pc == 0x100) { if (e[i].flags) b = &e[i]; else a = &e[i]; }
    if (e[i].pid == 43) c = &e[i];
    if (e[i].pid == 42 && e[i].pc == 0x300) jj = &e[i];
    if (e[i].pid == 42 && e[i].pc == 0x200) m7 = &e[i];
  }
  CHECK(sorted && twice, "table: sorted by pid, mode and pc; every count kept through the growth");
  int ret = __builtin_ctzll(PM_ST_RETIRED), tak = __builtin_ctzll(PM_ST_TAKEN), lk = __builtin_ctzll(PM_ST_LATE_KILL);
  CHECK(a && a->n[PM_TRUTH_FETCHED] == 10 && a->n[PM_TRUTH_ALL(ret)] == 7 && a->n[PM_TRUTH_ALL(tak)] == 10 &&
        a->n[PM_TRUTH_RET(tak)] == 7 && a->n[PM_TRUTH_ALL(lk)] == 3 && a->n[PM_TRUTH_RET(lk)] == 0,
        "table: fetched 10, retired 7, taken 10 of which 7 retired, late kills 3");
  CHECK(b && b->flags == PM_TRUTH_KERNEL && b->n[PM_TRUTH_FETCHED] == 1, "table: kernel mode apart");
  CHECK(c && c->n[PM_TRUTH_FETCHED] == 1, "table: another process apart");
  CHECK(jj && jj->n[PM_TRUTH_ALL(__builtin_ctzll(PM_ST_JMP_MISPRED))] == 1, "table: a jump's mispredict through is_jump");
  int nyp = __builtin_ctzll(PM_ST_NYP), ek = __builtin_ctzll(PM_ST_EARLY_KILL);
  CHECK(m7 && m7->n[PM_TRUTH_FETCHED] == 21 && m7->n[PM_TRUTH_ALL(ret)] == 12 && m7->n[PM_TRUTH_ALL(lk)] == 6 &&
        m7->n[PM_TRUTH_ALL(ek)] == 3 && m7->n[PM_TRUTH_ALL(nyp)] == 6 && m7->n[PM_TRUTH_RET(nyp)] == 3,
        "table: seven statuses at one PC (past the inline ones) all counted");
  free(e);
  truth_destroy(t);
}

/* ---- the feature in perf.data ---- */

static int write_file(const char *path, const struct pm_truth_entry *e, size_t n)
{
  int err;
  struct pd_writer *w = pd_writer_create(path, &err);
  if (!w) return err;
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = PERF_ATTR_SIZE_VER7;
  a.type = PERF_TYPE_HARDWARE;
  a.precise_ip = 1;
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
  a.sample_period = 1000;
  uint64_t rec[5] = { 0, 0x120000540, 1000 | (uint64_t)1000 << 32, 1000 };
  struct perf_event_header *h = (struct perf_event_header *)rec;
  h->type = PERF_RECORD_SAMPLE, h->misc = PERF_RECORD_MISC_USER, h->size = 32;
  if ((err = pd_writer_add_event(w, &a, "cycles:p", NULL, 0)) || (err = pd_writer_record(w, h)) ||
      (e && (err = pd_writer_set_truth(w, e, n)))) {
    pd_writer_close(w);
    return err;
  }
  return pd_writer_close(w);
}

struct blob { uint64_t *w; size_t len; };
static struct blob slurp(const char *path)
{
  struct blob b = { NULL, 0 };
  FILE *f = fopen(path, "rb");
  if (!f) return b;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.w = calloc((size_t)n / 8 + 2, 8);
  if (b.w && fread(b.w, 1, (size_t)n, f) == (size_t)n) b.len = (size_t)n;
  fclose(f);
  return b;
}

/* The byte offset of the truth payload and its section entry (the highest
 * feature bit: the last table entry). */
static size_t payload(const struct blob *b, size_t *sec)
{
  int nfeat = 0;
  for (int i = 0; i < 4; i++) nfeat += __builtin_popcountll(b->w[9 + i]);
  *sec = (size_t)(b->w[5] + b->w[6]) + 16 * (size_t)(nfeat - 1);
  uint64_t off;
  memcpy(&off, (const char *)b->w + *sec, 8);
  return (size_t)off;
}

static void expect_bad(const struct blob *good, const char *what, size_t at, uint64_t val, int bytes, long grow,
                       const char *want)
{
  struct blob b = { malloc(good->len + 16), good->len };
  memcpy(b.w, good->w, good->len);
  memcpy((char *)b.w + at, &val, (size_t)bytes);
  if (grow) {
    size_t sec;
    payload(&b, &sec);
    uint64_t size;
    memcpy(&size, (char *)b.w + sec + 8, 8);
    size = (uint64_t)((long)size + grow);
    memcpy((char *)b.w + sec + 8, &size, 8);
    if (grow > 0) { memset((char *)b.w + b.len, 0, (size_t)grow); b.len += (size_t)grow; }
  }
  char msg[256] = "";
  int err;
  struct pd_reader *r = pd_reader_open_mem(b.w, b.len, &err, msg, sizeof msg);
  CHECK(!r && err == PM_ECORRUPT && strstr(msg, want), "malformed truth: %s -> \"%s\"", what, msg);
  pd_reader_close(r);
  free(b.w);
}

static void test_feature(void)
{
  char path[] = "/tmp/test_truth.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "temporary file");
  if (fd < 0) return;
  close(fd);
  struct pm_truth_entry e[3];
  memset(e, 0, sizeof e);
  e[0] = (struct pm_truth_entry){ .pc = 0x120000540, .pid = 1000 };
  e[0].n[PM_TRUTH_FETCHED] = 1000005, e[0].n[PM_TRUTH_ALL(0)] = 1000000, e[0].n[PM_TRUTH_RET(0)] = 1000000;
  e[1] = (struct pm_truth_entry){ .pc = 0xfffffc0000310000ull, .pid = 1000, .flags = PM_TRUTH_KERNEL };
  e[1].n[PM_TRUTH_FETCHED] = 3;
  e[2] = (struct pm_truth_entry){ .pc = 0x120000544, .pid = -1 };
  for (int k = 0; k < PM_TRUTH_NCOUNTS; k++) e[2].n[k] = UINT64_MAX;
  CHECK(write_file(path, e, 3) == 0, "feature: written");
  char msg[256];
  int err;
  struct pd_reader *r = pd_reader_open(path, &err, msg, sizeof msg);
  CHECK(r != NULL, "feature: read back (%s)", r ? "ok" : msg);
  size_t n = 0;
  const struct pm_truth_entry *t = r ? pd_reader_truth(r, &n) : NULL;
  CHECK(t && n == 3 && !memcmp(t, e, sizeof e), "feature: the 3 entries come back equal");
  pd_reader_close(r);
  struct blob good = slurp(path);
  size_t sec, p = payload(&good, &sec);
  uint64_t size;
  memcpy(&size, (char *)good.w + sec + 8, 8);
  CHECK(size == 16 + (24 + 3 * 8) + (24 + 8) + (24 + PM_TRUTH_NCOUNTS * 8), "feature: compact, %" PRIu64 " bytes", size);
  expect_bad(&good, "version 2", p, 2, 4, 0, "version 2");
  expect_bad(&good, "too few counters", p + 4, 3, 4, 0, "3 counters");
  expect_bad(&good, "more entries than bytes", p + 8, 1u << 30, 8, 0, "cannot fit");
  expect_bad(&good, "retired above fetched", p + 16 + 24, 5, 8, 0, "more instances");
  expect_bad(&good, "unknown flags", p + 16 + 12, 6, 4, 0, "unknown flags");
  expect_bad(&good, "mask past the counters", p + 16 + 16, 1ull << 40, 8, 0, "past the");
  expect_bad(&good, "trailing bytes", p, PM_TRUTH_VERSION, 4, 8, "after the last entry");
  expect_bad(&good, "truncated", p, PM_TRUTH_VERSION, 4, -8, "runs past");
  free(good.w);
  CHECK(write_file(path, NULL, 0) == 0 && (r = pd_reader_open(path, &err, msg, sizeof msg)) &&
        !pd_reader_truth(r, &n) && n == 0, "feature: absent without --truth");
  pd_reader_close(r);
  unlink(path);
}

/* Which exact count each column compares with, per event kind: fetched
 * for all-fetched ProfileMe, retired for precise ones, the joint counts
 * with retired for a precise event's status columns, the filtered statuses
 * under config1, nothing for Aggregate events, and no estimate where the
 * filters leave the total unknowable. */
static void test_columns(void)
{
  struct pm_truth_entry t[2];
  memset(t, 0, sizeof t);
  int ret = __builtin_ctzll(PM_ST_RETIRED), mis = __builtin_ctzll(PM_ST_MISPREDICT),
      jmp = __builtin_ctzll(PM_ST_JMP_MISPRED), trp = __builtin_ctzll(PM_ST_TRAP), tak = __builtin_ctzll(PM_ST_TAKEN);
  t[0].n[PM_TRUTH_FETCHED] = 100, t[0].n[PM_TRUTH_ALL(ret)] = 80, t[0].n[PM_TRUTH_RET(ret)] = 80;
  t[0].n[PM_TRUTH_ALL(mis)] = 10, t[0].n[PM_TRUTH_RET(mis)] = 9, t[0].n[PM_TRUTH_ALL(jmp)] = 3;
  t[0].n[PM_TRUTH_ALL(trp)] = 20, t[0].n[PM_TRUTH_RET(trp)] = 12;
  t[0].n[PM_TRUTH_ALL(tak)] = 50, t[0].n[PM_TRUTH_RET(tak)] = 40;
  t[1] = t[0];
  t[1].flags = PM_TRUTH_KERNEL;
  struct exact_counts c;
  memset(&c, 0, sizeof c);
  exact_add(&c, &t[0]);
  exact_add(&c, &t[1]);
  struct pd_event e;
  memset(&e, 0, sizeof e);
  struct exact_event ev;
  uint64_t v = 0, w = 0;
  e.attr.type = PERF_TYPE_RAW, e.attr.config = 1 | PM_CFG_PROFILEME;
  exact_event_init(&ev, &e, t, 2);
  CHECK(ev.on && ev.total == 200 && exact_value(&ev, &c, 0, &v) && v == 200 &&
        exact_value(&ev, &c, PM_ST_TAKEN, &w) && w == 100, "columns: all fetched: samples 200, taken 100");
  exact_event_free(&ev);
  e.attr = (struct perf_event_attr){ .type = PERF_TYPE_HARDWARE, .precise_ip = 1, .exclude_kernel = 1 };
  exact_event_init(&ev, &e, t, 2);
  CHECK(ev.total == 80 && exact_value(&ev, &c, 0, &v) && v == 80 && exact_value(&ev, &c, PM_ST_TAKEN, &w) && w == 40 &&
        exact_value(&ev, &c, PM_ST_KERNEL, &v) && v == 0,
        "columns: cycles:p as a user: retired user instances 80, taken and retired 40, no kernel");
  exact_event_free(&ev);
  e.attr = (struct perf_event_attr){ .type = PERF_TYPE_RAW, .config = 1 | PM_CFG_PROFILEME, .config1 = PM_FILT_MISPREDICT };
  exact_event_init(&ev, &e, t, 2);
  CHECK(ev.total == 26 && exact_value(&ev, &c, PM_ST_MISPREDICT, &v) && v == 20 && !exact_value(&ev, &c, PM_ST_TAKEN, &w),
        "columns: mispredict filter: 26 kept (branches and jumps), mispredicts 20, taken unknowable");
  exact_event_free(&ev);
  e.attr.config1 = PM_FILT_RETIRED | PM_FILT_TRAP;
  exact_event_init(&ev, &e, t, 2);
  CHECK(ev.on && !ev.total_known && exact_value(&ev, &c, PM_ST_TRAP, &v) && v == 40,
        "columns: retired-or-trap filter: no total (no estimate), traps 40");
  exact_event_free(&ev);
  e.attr = (struct perf_event_attr){ .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES };
  exact_event_init(&ev, &e, t, 2);
  CHECK(!ev.on, "columns: none for an Aggregate event");
  /* The estimate: period share times the total; fixed period, CP interval. */
  e.attr = (struct perf_event_attr){ .type = PERF_TYPE_RAW, .config = 1 | PM_CFG_PROFILEME };
  exact_event_init(&ev, &e, t, 2);
  for (int i = 0; i < 20; i++) exact_sample(&ev, 10);
  double est, lo, hi, plo, phi;
  exact_estimate(&ev, 5, 50, 500, &est, &lo, &hi);
  stats_binom_interval(5, 20, 0.95, &plo, &phi);
  CHECK(near(est, 50) && near(lo, 200 * plo) && near(hi, 200 * phi), "columns: 5 of 20 samples of 200: estimate %.1f in [%.1f, %.1f]",
        est, lo, hi);
  exact_event_free(&ev);
}

/* `test_truth write FILE`: the small file with truth the fuzzer starts from
 * (tests/perfdata/alpha-truth.data). */
static int write_seed(const char *path)
{
  struct pm_truth_entry e[2];
  memset(e, 0, sizeof e);
  e[0] = (struct pm_truth_entry){ .pc = 0x120000540, .pid = 1000 };
  e[0].n[PM_TRUTH_FETCHED] = 1005, e[0].n[PM_TRUTH_ALL(0)] = 1000, e[0].n[PM_TRUTH_RET(0)] = 1000;
  e[1] = (struct pm_truth_entry){ .pc = 0xfffffc0000310000ull, .pid = 1000, .flags = PM_TRUTH_KERNEL };
  e[1].n[PM_TRUTH_FETCHED] = 3, e[1].n[PM_TRUTH_ALL(3)] = 3;
  return write_file(path, e, 2) ? 1 : 0;
}

int main(int argc, char **argv)
{
  if (argc == 3 && !strcmp(argv[1], "write")) return write_seed(argv[2]);
  test_interval();
  test_status();
  test_counting();
  test_columns();
  test_feature();
  return check_done();
}
