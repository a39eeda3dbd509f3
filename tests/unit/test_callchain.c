/* Call chains from hostile input: PERF_SAMPLE_CALLCHAIN with markers perf
 * does not know (the chain is dropped, as perf's add_callchain_ip does),
 * kernel/user markers switching the cpumode, a loop of 600 frames (capped at
 * perf's 127 when shown, recursion counted once in --children), a chain
 * count far beyond the record (a clear error from the reader), and call
 * trees deeper than the 64 bits of a depth mask; records out of time order
 * (a sample stored before the MMAP it needs). `test_callchain --write
 * FILE [--huge FILE2]` only writes the files (tests/scripts/callgraph.sh
 * gives them to our report and to perf's). */
#include "check.h"
#include "perfdata/perfdata.h"
#include "analysis/callchain.h"
#include "analysis/hist.h"
#include "analysis/session.h"
#include "util/err.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static int emit(struct pd_writer *w, uint64_t ip, const uint64_t *chain, uint64_t nr, uint64_t claimed_nr, uint16_t misc)
{
  size_t words = 1 + 4 + nr;
  uint64_t *b = calloc(words, 8);
  if (!b) return PM_ENOMEM;
  struct perf_event_header *h = (struct perf_event_header *)b;
  h->type = PERF_RECORD_SAMPLE;
  h->misc = misc;
  h->size = (uint16_t)(words * 8);
  b[1] = ip;
  b[2] = 42 | (uint64_t)42 << 32;
  b[3] = 1000;
  b[4] = claimed_nr;
  memcpy(b + 5, chain, nr * 8);
  int e = pd_writer_record(w, h);
  free(b);
  return e;
}

static struct pd_writer *open_file(const char *path)
{
  int err;
  struct pd_writer *w = pd_writer_create(path, &err);
  struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof a, .config = PERF_COUNT_SW_CPU_CLOCK,
                               .sample_period = 1000, .sample_type = ST };
  if (w && pd_writer_add_event(w, &a, "cpu-clock", NULL, 0)) return NULL;
  return w;
}

#define USER ((uint64_t)PERF_CONTEXT_USER)
#define KERNEL ((uint64_t)PERF_CONTEXT_KERNEL)

static int write_files(const char *path, const char *huge)
{
  struct pd_writer *w = open_file(path);
  if (!w) return 1;
  uint64_t good[] = { USER, 0x1010, 0x2010, 0x3010 };
  uint64_t mixed[] = { KERNEL, 0xffffffff81000010ull, USER, 0x1020, 0x2020 };
  uint64_t bogus[] = { USER, 0x1010, (uint64_t)-5, 0x2010 };
  uint64_t guest[] = { (uint64_t)PERF_CONTEXT_GUEST_USER, 0x1010 };
  /* A record-time chain marked truncated (an empty user context after it,
   * docs/callgraph.md), and a kernel chain with an empty user context: not
   * marked, no user frame precedes it. perf ignores both empty contexts. */
  uint64_t marked[] = { USER, 0x1010, 0x2010, USER };
  uint64_t kempty[] = { KERNEL, 0xffffffff81000010ull, USER };
  static uint64_t loop[601];
  loop[0] = USER;
  for (int i = 1; i <= 600; i++) loop[i] = i % 2 ? 0x4010 : 0x5010;
  int e = 0;
  for (int i = 0; i < 5 && !e; i++) e = emit(w, 0x1010, good, 4, 4, PERF_RECORD_MISC_USER);
  if (!e) e = emit(w, 0xffffffff81000010ull, mixed, 5, 5, PERF_RECORD_MISC_KERNEL);
  if (!e) e = emit(w, 0x1010, bogus, 4, 4, PERF_RECORD_MISC_USER);
  if (!e) e = emit(w, 0x1010, guest, 2, 2, PERF_RECORD_MISC_USER);
  for (int i = 0; i < 3 && !e; i++) e = emit(w, 0x4010, loop, 601, 601, PERF_RECORD_MISC_USER);
  if (!e) e = emit(w, 0x1010, good, 0, 0, PERF_RECORD_MISC_USER);   /* an empty chain */
  if (!e) e = emit(w, 0x1010, marked, 4, 4, PERF_RECORD_MISC_USER);
  if (!e) e = emit(w, 0xffffffff81000010ull, kempty, 3, 3, PERF_RECORD_MISC_KERNEL);
  if (pd_writer_close(w) || e) return 1;
  if (!huge) return 0;
  if (!(w = open_file(huge))) return 1;
  e = emit(w, 0x1010, good, 4, (uint64_t)1 << 60, PERF_RECORD_MISC_USER);   /* nr far beyond the record */
  return pd_writer_close(w) || e;
}

struct seen { int n; size_t frames[16]; bool bad[16], trunc[16]; uint16_t mode[16][8]; };

static int on_rec(void *ctx, struct session *s, const struct session_rec *r)
{
  struct seen *sn = ctx;
  if (!r->sample || sn->n >= 16) return 0;
  struct cc_frames fr = { 0 };
  if (cc_sample_frames(s, r->sample, NULL, &fr)) return PM_ENOMEM;
  sn->frames[sn->n] = fr.n;
  sn->bad[sn->n] = fr.bad;
  sn->trunc[sn->n] = fr.truncated;
  for (size_t i = 0; i < fr.n && i < 8; i++) sn->mode[sn->n][i] = fr.f[i].cpumode;
  sn->n++;
  cc_frames_free(&fr);
  return 0;
}

/* A tree 127 deep with a fork at every level: the graph printer's depth
 * mask has 64 bits; deeper levels print without it, never crash. */
static void deep_tree(void)
{
  struct cc_forest *t = cc_forest_create();
  uint32_t root = t ? cc_tree_new(t) : 0;
  struct cc_key keys[127];
  memset(keys, 0, sizeof keys);
  for (int i = 0; i < 127; i++) keys[i].ip = 0x1000 + (uint64_t)i;
  int e = 0;
  for (int d = 1; d <= 127 && root && !e; d++) e = cc_tree_add(t, root, keys, (size_t)d, 10);
  CHECK(root && !e, "callchain: 127 nested chains added");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  struct cc_param p = { .mode = CC_GRAPH_ABS, .min_percent = 0, .caller = true, .max_stack = 127 };
  cc_print(f, t, root, &p, 1270, 1270, false);
  fclose(f);
  size_t lines = 0;
  for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
  /* the first frame on the "---" line, 126 more runs each with a separator line, a blank end */
  CHECK(lines > 250 && strstr(buf, "---0x1000\n"), "callchain: 127-deep graph printed (%zu lines)", lines);
  CHECK(cc_tree_max_depth(t, root) == 127, "callchain: max_depth 127");
  free(buf);
  cc_forest_destroy(t);
}

/* Records out of time order, as a perf record of several CPU buffers
 * stores them: a sample at time 200 before the MMAP (time 100) of the map
 * it lies in. The session hands them over by time, so the sample resolves
 * in that map (perf's ordered events). */
static int first_dso(void *ctx, struct session *s, const struct session_rec *r)
{
  (void)s;
  if (r->sample) *(const struct sym_dso **)ctx = r->loc.dso ? r->loc.dso : (const struct sym_dso *)1;
  return 0;
}

static void ordered(void)
{
  char path[] = "/tmp/test_callchain_o.XXXXXX";
  int fd = mkstemp(path), err;
  if (fd < 0) return;
  close(fd);
  struct pd_writer *w = pd_writer_create(path, &err);
  struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof a, .config = PERF_COUNT_SW_CPU_CLOCK,
                               .sample_period = 1000, .sample_id_all = 1,
                               .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD };
  uint64_t smp[5] = { 0, 0x401000, 7 | (uint64_t)7 << 32, 200, 1000 };
  struct perf_event_header *h = (struct perf_event_header *)smp;
  *h = (struct perf_event_header){ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof smp };
  uint64_t mm[9] = { 0 };        /* header, pid/tid, addr, len, pgoff, "/bin/true" (16), trailer pid/tid, time */
  h = (struct perf_event_header *)mm;
  *h = (struct perf_event_header){ PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, sizeof mm };
  mm[1] = 7 | (uint64_t)7 << 32;
  mm[2] = 0x400000;
  mm[3] = 0x10000;
  memcpy(&mm[5], "/bin/true", 10);
  mm[7] = 7 | (uint64_t)7 << 32;
  mm[8] = 100;
  int e = !w || pd_writer_add_event(w, &a, "cpu-clock", NULL, 0) ||
          pd_writer_record(w, (struct perf_event_header *)smp) ||
          pd_writer_record(w, (struct perf_event_header *)mm) || pd_writer_close(w);
  CHECK(!e, "ordered: file with a sample before its MMAP written");
  struct session s;
  const struct sym_dso *dso = NULL;
  CHECK(!e && session_open(&s, path, NULL) == 0 && session_run(&s, first_dso, &dso) == 0, "ordered: read");
  CHECK(dso && dso != (const struct sym_dso *)1 && !strcmp(dso->path, "/bin/true"),
        "ordered: the sample (time 200) resolves in the MMAP stored after it (time 100)");
  session_close(&s);
  if (getenv("KEEP")) printf("kept %s\n", path); else unlink(path);
}

/* The aggregation table the reports are built on: hist_find answers from
 * what hist_get inserted and inserts nothing, before and after the index
 * grows (256 slots, kept at most half full). */
static void test_hist(void)
{
  struct hist *h = hist_create(sizeof(uint64_t), sizeof(uint64_t));
  uint64_t k = 7;
  CHECK(h && !hist_find(h, &k), "hist: an empty table finds nothing");
  bool ok = true;
  for (uint64_t i = 0; i < 1000; i++) {
    uint64_t *v = hist_get(h, &i);
    if (!v) { ok = false; break; }
    *v = i * 3;
  }
  CHECK(ok && hist_count(h) == 1000, "hist: 1000 keys inserted");
  size_t bad = 0;
  for (uint64_t i = 0; i < 2000; i++) {
    uint64_t *v = hist_find(h, &i);
    if (i < 1000 ? !v || *v != i * 3 || v != hist_get(h, &i) : v != NULL) bad++;
  }
  CHECK(bad == 0 && hist_count(h) == 1000, "hist: find gives each inserted value and NULL for 1000 absent keys, count unchanged");
  hist_destroy(h);
}

int main(int argc, char **argv)
{
  if (argc >= 3 && !strcmp(argv[1], "--write"))
    return write_files(argv[2], argc >= 5 && !strcmp(argv[3], "--huge") ? argv[4] : NULL);
  char path[] = "/tmp/test_callchain.XXXXXX", huge[] = "/tmp/test_callchain_h.XXXXXX";
  int fd1 = mkstemp(path), fd2 = mkstemp(huge);
  if (fd1 < 0 || fd2 < 0) return 1;
  close(fd1);
  close(fd2);
  test_hist();
  CHECK(write_files(path, huge) == 0, "callchain: files written");
  struct session s;
  struct seen sn = { 0 };
  CHECK(session_open(&s, path, NULL) == 0 && session_run(&s, on_rec, &sn) == 0, "callchain: file read");
  CHECK(sn.n == 14, "callchain: 14 samples (%d)", sn.n);
  CHECK(sn.frames[0] == 3 && !sn.bad[0] && sn.mode[0][0] == PERF_RECORD_MISC_USER, "callchain: user chain, 3 frames");
  CHECK(sn.frames[5] == 3 && sn.mode[5][0] == PERF_RECORD_MISC_KERNEL && sn.mode[5][1] == PERF_RECORD_MISC_USER,
        "callchain: KERNEL then USER markers switch the cpumode");
  CHECK(sn.frames[6] == 0 && sn.bad[6], "callchain: an unknown marker drops the chain (perf)");
  CHECK(sn.frames[7] == 0 && sn.bad[7], "callchain: GUEST markers too (perf's add_callchain_ip knows HV, KERNEL, USER)");
  CHECK(sn.frames[8] == 600 && !sn.bad[8], "callchain: 600-frame loop read whole (the report caps it)");
  CHECK(sn.frames[11] == 0 && !sn.bad[11], "callchain: empty chain");
  CHECK(sn.frames[12] == 2 && !sn.bad[12] && sn.trunc[12] && !sn.trunc[0] && !sn.trunc[5] && !sn.trunc[8],
        "callchain: a user chain followed by an empty user context is marked truncated, others not");
  CHECK(sn.frames[13] == 1 && !sn.bad[13] && !sn.trunc[13], "callchain: an empty user context after kernel frames is no mark");
  session_close(&s);
  int e = session_open(&s, huge, NULL);
  if (!e) e = session_run(&s, on_rec, &sn);
  CHECK(e == PM_ECORRUPT || e == PM_EINVAL, "callchain: nr 2^60 in a 72-byte record refused (%d: %s)", e, s.err);
  CHECK(strstr(s.err, "callchain") != NULL, "callchain: the message names the field");
  session_close(&s);
  deep_tree();
  ordered();
  unlink(path);
  unlink(huge);
  return check_done();
}
