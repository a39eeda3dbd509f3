/* perf.data writer and reader tests, and the driver tests/scripts/perfdata.sh
 * runs against Debian's perf:
 *   test_perfdata                       unit checks: round trip, malformed files
 *                                       (truncated, corrupted), x86 fixtures
 *                                       recorded by perf 6.1, default names
 *   test_perfdata write OUT ELF [N]     writes the demo file (COMM, MMAP2 of the
 *                                       ELF, N SAMPLEs of two events, one with
 *                                       ProfileMe raw payloads); prints "sym NAME".
 *                                       ELF "-": a made-up image
 *   test_perfdata verify FILE ELF [N]   reads the demo file back: PASS/FAIL lines
 *   test_perfdata partial OUT           a writer that stops without closing
 *   test_perfdata dump FILE             event and record summary of any perf.data
 * The demo content is a function of the ELF's symbols, so write and verify
 * regenerate the same records. Fixtures come from tests/perfdata/ (run from the
 * repository root, as tests/run-all.sh does). */
#include "check.h"
#include "perfdata/perfdata.h"
#include "uapi/pm_raw.h"
#include "util/err.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE_DIR "tests/perfdata/"
#define DEMO_PID 4242
#define DEMO_NSAMPLES 240
#define ALPHA_FIXTURE_SAMPLES 24   /* tests/perfdata/alpha-demo.data: write FILE - 24 */
#define DEMO_ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
                 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | \
                 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER)
#define PERF_MEM_NA_SRC 0x1e05080021ull   /* perf_mem_data_src "not available" */

/* ---- the demo program image: text mapping and a few function symbols ---- */

struct sym { char name[64]; uint64_t addr, size; };

struct image {
  char path[4096];
  uint64_t start, len, pgoff;     /* the executable mapping (MMAP2) */
  struct sym syms[4];
  int nsyms;
  uint8_t build_id[20];
  size_t build_id_len;
};

static int cmp_sym(const void *a, const void *b)
{
  uint64_t x = ((const struct sym *)a)->addr, y = ((const struct sym *)b)->addr;
  return x < y ? -1 : x > y;
}

/* Picks main and the three lowest other functions of at least 16 bytes from
 * the symbol table (names without a leading '_' first, one per address);
 * returns how many. */
static int pick_syms(Elf *elf, struct sym *out)
{
  Elf_Scn *scn = NULL;
  GElf_Shdr sh;
  struct sym all[512];
  int n = 0, k = 0;
  while ((scn = elf_nextscn(elf, scn)) != NULL) {
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB) continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize && n < 512; i++) {
      GElf_Sym s;
      const char *nm;
      if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_size < 16 ||
          !(nm = elf_strptr(elf, sh.sh_link, s.st_name)) || strlen(nm) >= sizeof all[0].name)
        continue;
      snprintf(all[n].name, sizeof all[n].name, "%s", nm);
      all[n].addr = s.st_value, all[n].size = s.st_size;
      n++;
    }
  }
  qsort(all, (size_t)n, sizeof all[0], cmp_sym);
  for (int i = 0; i < n && k == 0; i++)
    if (strcmp(all[i].name, "main") == 0) out[k++] = all[i];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n && k < 4; i++) {
      bool taken = false;
      for (int j = 0; j < k; j++) taken |= out[j].addr == all[i].addr;
      if (!taken && (all[i].name[0] == '_') == pass) out[k++] = all[i];
    }
  }
  return k;
}

/* Fills img from an ELF file (NULL: a made-up image for the unit checks). */
static int load_image(const char *path, struct image *img)
{
  memset(img, 0, sizeof *img);
  if (!path) {
    snprintf(img->path, sizeof img->path, "/usr/bin/demo");
    img->start = 0x120000000, img->len = 0x4000;
    static const char *const names[] = { "main", "loop", "helper", "leaf" };
    for (int i = 0; i < 4; i++) {
      snprintf(img->syms[i].name, sizeof img->syms[i].name, "%s", names[i]);
      img->syms[i].addr = 0x120000800 + 0x100 * (uint64_t)i, img->syms[i].size = 0x80;
    }
    img->nsyms = 4;
    memcpy(img->build_id, "0123456789abcdefghij", 20);
    img->build_id_len = 20;
    return 0;
  }
  if (!realpath(path, img->path) || elf_version(EV_CURRENT) == EV_NONE) return -1;
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  size_t phnum = 0;
  int ret = -1;
  if (elf && elf_getphdrnum(elf, &phnum) == 0) {
    for (size_t i = 0; i < phnum; i++) {
      GElf_Phdr ph;
      if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
      uint64_t page = 0x2000;            /* Alpha pages are 8 KB */
      img->start = ph.p_vaddr & ~(page - 1);
      img->pgoff = ph.p_offset - (ph.p_vaddr - img->start);
      img->len = (ph.p_vaddr + ph.p_memsz - img->start + page - 1) & ~(page - 1);
      ret = 0;
      break;
    }
    img->nsyms = pick_syms(elf, img->syms);
    if (img->nsyms == 0) ret = -1;
  }
  elf_end(elf);
  close(fd);
  img->build_id_len = pd_elf_build_id(path, img->build_id);
  return ret;
}

/* ---- the demo records ---- */

static const uint64_t cycles_ids[] = { 101, 102 }, pm_ids[] = { 201, 202 };

/* The two demo events: cycles, and ProfileMe in the raw `cpu` PMU. */
static void demo_attrs(struct perf_event_attr a[2])
{
  memset(a, 0, 2 * sizeof a[0]);
  for (int i = 0; i < 2; i++) {
    a[i].size = PERF_ATTR_SIZE_VER7;
    a[i].sample_type = DEMO_ST;
    a[i].read_format = PERF_FORMAT_ID;
    a[i].sample_id_all = 1;
    a[i].disabled = 1;
    a[i].enable_on_exec = 1;
    a[i].exclude_guest = 1;
  }
  a[0].type = PERF_TYPE_HARDWARE;
  a[0].config = PERF_COUNT_HW_CPU_CYCLES;
  a[0].sample_period = 10000;
  a[0].mmap = a[0].comm = a[0].mmap2 = a[0].comm_exec = a[0].task = 1;
  a[1].type = PERF_TYPE_RAW;
  a[1].config = PM_CFG_PROFILEME | 2;
  a[1].sample_period = 4096;
}

/* Sample i of the demo, as the reader should return it (event index in ev). */
struct demo_sample {
  int ev;
  uint64_t id, ip, time, addr, period, weight, data_src;
  uint32_t cpu;
  uint16_t misc;
  struct pm_raw_v1 raw;
};

static void demo_sample(const struct image *img, int i, struct demo_sample *d)
{
  memset(d, 0, sizeof *d);
  const struct sym *s = &img->syms[(i / 2) % img->nsyms];
  d->ev = i % 3 == 0;
  d->id = d->ev ? pm_ids[i % 2] : cycles_ids[i % 2];
  d->ip = s->addr + 4 * (uint64_t)(i % (int)(s->size / 4));
  d->time = 1000000000ull + 1000ull * (uint64_t)i;
  d->addr = 0x120020000ull + 8ull * (uint64_t)i;
  d->period = d->ev ? 4096 : 10000;
  d->weight = (uint64_t)(i % 7) + 1;
  d->data_src = PERF_MEM_NA_SRC;
  d->cpu = (uint32_t)(i % 2);
  d->misc = PERF_RECORD_MISC_USER | (d->ev ? PERF_RECORD_MISC_EXACT_IP : 0);
  if (d->ev) {
    d->raw.version = PM_RAW_VERSION;
    d->raw.pmpc = d->ip;
    d->raw.i_stat = (uint64_t)i << 8;
    d->raw.pctr_ctl = 0x1234;
    d->raw.status = PM_ST_RETIRED | PM_ST_VALID | (i % 2 ? PM_ST_TAKEN : 0);
    d->raw.pctr0 = 3ull * (uint64_t)i;
    d->raw.pctr1 = 5ull * (uint64_t)i;
  }
}

/* A record under construction: u64 words after the header. */
struct rec { uint64_t w[600]; size_t n; };

static void rec_u64(struct rec *r, uint64_t v) { r->w[r->n++] = v; }
static void rec_u32x2(struct rec *r, uint32_t a, uint32_t b) { rec_u64(r, (uint64_t)b << 32 | a); }
static void rec_bytes(struct rec *r, const void *p, size_t len)
{
  memset(&r->w[r->n], 0, (len + 7) / 8 * 8);
  memcpy(&r->w[r->n], p, len);
  r->n += (len + 7) / 8;
}
/* The sample_id_all trailer for DEMO_ST: tid, time, id, cpu, identifier. */
static void rec_trailer(struct rec *r, uint64_t time, uint64_t id)
{
  rec_u32x2(r, DEMO_PID, DEMO_PID);
  rec_u64(r, time);
  rec_u64(r, id);
  rec_u32x2(r, 0, 0);
  rec_u64(r, id);
}
static int rec_emit(struct pd_writer *w, struct rec *r, uint32_t type, uint16_t misc)
{
  r->w[0] = 0;
  struct perf_event_header h = { type, misc, (uint16_t)(8 * r->n) };
  memcpy(&r->w[0], &h, sizeof h);
  return pd_writer_record(w, (const struct perf_event_header *)r->w);
}
static void rec_start(struct rec *r) { r->n = 1; }

static int emit_sample(struct pd_writer *w, const struct demo_sample *d)
{
  struct rec r;
  rec_start(&r);
  rec_u64(&r, d->id);
  rec_u64(&r, d->ip);
  rec_u32x2(&r, DEMO_PID, DEMO_PID);
  rec_u64(&r, d->time);
  rec_u64(&r, d->addr);
  rec_u64(&r, d->id);
  rec_u32x2(&r, d->cpu, 0);
  rec_u64(&r, d->period);
  if (d->ev) {
    uint8_t raw[4 + sizeof d->raw];
    uint32_t size = sizeof d->raw;
    memcpy(raw, &size, 4);
    memcpy(raw + 4, &d->raw, sizeof d->raw);
    rec_bytes(&r, raw, sizeof raw);
  } else {
    rec_u32x2(&r, 4, 0);     /* RAW requested, no raw data: size 4, four zero bytes */
  }
  rec_u64(&r, d->weight);
  rec_u64(&r, d->data_src);
  return rec_emit(w, &r, PERF_RECORD_SAMPLE, d->misc);
}

static char *const demo_argv[] = { "profileme", "record", "-e", "profileme", "--", "int_arith" };

/* Writes the demo file; returns 0 or a PM_E* code. */
static int demo_write(const char *out, const struct image *img, int nsamples, bool close_it)
{
  int err;
  struct pd_writer *w = pd_writer_create(out, &err);
  if (!w) return err;
  struct perf_event_attr a[2];
  demo_attrs(a);
  struct pd_env env = {
    .hostname = "alpha-sim", .os_release = "6.1.0-profileme", .version = "profileme 0.1",
    .arch = "alpha", .cpudesc = "Alpha EV67 (21264A)", .cpuid = "EV67,21264A",
    .nr_cpus_avail = 2, .nr_cpus_online = 2, .total_mem_kb = 2097152,
    .argc = 6, .argv = demo_argv,
  };
  if ((err = pd_writer_add_event(w, &a[0], "cycles", cycles_ids, 2)) ||
      (err = pd_writer_add_event(w, &a[1], "profileme", pm_ids, 2)) ||
      (err = pd_writer_set_env(w, &env)) ||
      (img->build_id_len && (err = pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, img->build_id,
                                                          img->build_id_len, img->path))))
    goto out;
  struct rec r;
  rec_start(&r);
  rec_u32x2(&r, DEMO_PID, DEMO_PID);
  rec_bytes(&r, "int_arith", 10);
  rec_trailer(&r, 999000000, cycles_ids[0]);
  if ((err = rec_emit(w, &r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC))) goto out;
  rec_start(&r);
  rec_u32x2(&r, DEMO_PID, DEMO_PID);
  rec_u64(&r, img->start);
  rec_u64(&r, img->len);
  rec_u64(&r, img->pgoff);
  rec_u32x2(&r, 8, 1);                 /* maj, min */
  rec_u64(&r, 77);                     /* ino */
  rec_u64(&r, 0);                      /* ino_generation */
  rec_u32x2(&r, 5, 2);                 /* PROT_READ|PROT_EXEC, MAP_PRIVATE */
  rec_bytes(&r, img->path, strlen(img->path) + 1);
  rec_trailer(&r, 999500000, cycles_ids[0]);
  if ((err = rec_emit(w, &r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER))) goto out;
  for (int i = 0; i < nsamples; i++) {
    struct demo_sample d;
    demo_sample(img, i, &d);
    if ((err = emit_sample(w, &d))) goto out;
  }
  rec_start(&r);
  rec_u32x2(&r, DEMO_PID, 1);
  rec_u32x2(&r, DEMO_PID, 1);
  rec_u64(&r, 2000000000);
  rec_trailer(&r, 2000000000, pm_ids[1]);
  if ((err = rec_emit(w, &r, PERF_RECORD_EXIT, 0))) goto out;
  rec_start(&r);
  err = rec_emit(w, &r, 68 /* PERF_RECORD_FINISHED_ROUND */, 0);
out:
  if (!close_it) {
    fflush(NULL);
    _exit(0);                          /* as if the recorder was killed */
  }
  int cerr = pd_writer_close(w);
  return err ? err : cerr;
}

/* ---- verification ---- */

static bool streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* Checks the events, header features and every record of the demo file. */
static void demo_verify(const char *path, const struct image *img, int nsamples)
{
  char msg[256] = "";
  int err;
  struct pd_reader *r = pd_reader_open(path, &err, msg, sizeof msg);
  CHECK(r != NULL, "demo: open %s%s%s", path, r ? "" : ": ", r ? "" : msg);
  if (!r) return;
  struct perf_event_attr a[2];
  demo_attrs(a);
  CHECK_EQ_U64(pd_reader_nevents(r), 2, "demo: two events");
  static const char *const names[] = { "cycles", "profileme" };
  const uint64_t *ids[] = { cycles_ids, pm_ids };
  for (size_t i = 0; i < 2 && i < pd_reader_nevents(r); i++) {
    const struct pd_event *e = pd_reader_event(r, i);
    CHECK(streq(e->name, names[i]), "demo: event %zu named %s (got %s)", i, names[i], e->name);
    CHECK(memcmp(&e->attr, &a[i], PERF_ATTR_SIZE_VER7) == 0, "demo: event %zu attr round trip", i);
    CHECK(e->nids == 2 && e->ids[0] == ids[i][0] && e->ids[1] == ids[i][1], "demo: event %zu ids", i);
  }
  CHECK(streq(pd_reader_env(r, "arch"), "alpha"), "demo: arch alpha");
  CHECK(streq(pd_reader_env(r, "hostname"), "alpha-sim"), "demo: hostname");
  CHECK(streq(pd_reader_env(r, "cpuid"), "EV67,21264A"), "demo: cpuid");
  CHECK(streq(pd_reader_env(r, "cmdline"), "profileme record -e profileme -- int_arith"), "demo: cmdline");
  uint64_t v = 0, first = 0, last = 0;
  CHECK(pd_reader_env_u64(r, "nr_cpus_online", &v) && v == 2, "demo: nr_cpus_online");
  CHECK(pd_reader_env_u64(r, "total_mem", &v) && v == 2097152, "demo: total_mem");
  CHECK(pd_reader_env_u64(r, "first_sample_time", &first) && pd_reader_env_u64(r, "last_sample_time", &last) &&
        first == 1000000000ull && last == 1000000000ull + 1000ull * (uint64_t)(nsamples - 1), "demo: sample time");
  if (img->build_id_len) {
    const struct pd_build_id *b = pd_reader_build_id(r, 0);
    CHECK(pd_reader_nbuild_ids(r) == 1 && b->id_len == img->build_id_len &&
          memcmp(b->id, img->build_id, b->id_len) == 0 && streq(b->filename, img->path) &&
          b->pid == -1 && b->cpumode == PERF_RECORD_MISC_USER, "demo: build-id entry");
  }
  const struct perf_event_header *rec;
  int n = 0, seen = 0, bad = 0, rc;
  uint32_t types[4] = { 0, 0, 0, 0 };   /* first two, next to last, last */
  while ((rc = pd_reader_next(r, &rec, msg, sizeof msg)) == 1) {
    if (n < 2) types[n] = rec->type;
    types[2] = types[3], types[3] = rec->type;
    n++;
    if (rec->type == PERF_RECORD_COMM)
      CHECK(pd_record_event(r, rec) == pd_reader_event(r, 0) &&
            streq((const char *)rec + 16, "int_arith"), "demo: COMM record, event through its trailer");
    if (rec->type == PERF_RECORD_EXIT)
      CHECK(pd_record_event(r, rec) == pd_reader_event(r, 1), "demo: EXIT record, event through its trailer");
    if (rec->type != PERF_RECORD_SAMPLE) continue;
    struct demo_sample d;
    struct pd_sample s;
    demo_sample(img, seen++, &d);
    if (pd_parse_sample(r, rec, &s, msg, sizeof msg) != 0) {
      if (bad++ < 3) CHECK(0, "demo: sample %d parses (%s)", seen - 1, msg);
      continue;
    }
    bool ok = s.event == pd_reader_event(r, (size_t)d.ev) && s.sample_type == DEMO_ST && s.id == d.id &&
              s.ip == d.ip && s.pid == DEMO_PID && s.tid == DEMO_PID && s.time == d.time &&
              s.addr == d.addr && s.cpu == d.cpu && s.period == d.period && s.weight == d.weight &&
              s.data_src == d.data_src && s.cpumode == PERF_RECORD_MISC_USER &&
              s.exact_ip == (d.ev == 1) && pd_record_event(r, rec) == s.event;
    if (d.ev)
      ok = ok && s.raw_size == sizeof d.raw && memcmp(s.raw, &d.raw, sizeof d.raw) == 0;
    else
      ok = ok && s.raw_size == 4 && memcmp(s.raw, "\0\0\0\0", 4) == 0;
    if (!ok && bad++ < 3) CHECK(0, "demo: sample %d fields round trip", seen - 1);
  }
  CHECK(rc == 0, "demo: records iterate to the end (%s)", rc ? msg : "ok");
  CHECK(n == nsamples + 4 && types[0] == PERF_RECORD_COMM && types[1] == PERF_RECORD_MMAP2 &&
        types[2] == PERF_RECORD_EXIT && types[3] == 68, "demo: record sequence (%d records)", n);
  CHECK(seen == nsamples && bad == 0, "demo: %d samples round trip", seen);
  pd_reader_close(r);
}

/* ---- malformed files ---- */

/* A file image in an 8-aligned buffer. */
struct blob { uint64_t *w; size_t len; };

static struct blob slurp(const char *path)
{
  struct blob b = { NULL, 0 };
  FILE *f = fopen(path, "rb");
  if (!f) return b;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.w = calloc((size_t)n / 8 + 1, 8);
  if (b.w && fread(b.w, 1, (size_t)n, f) == (size_t)n) b.len = (size_t)n;
  fclose(f);
  return b;
}

/* Opens, iterates and parses everything in buf; returns the first error (0 if
 * none) with its message in msg. */
static int consume(const void *buf, size_t len, char *msg, size_t msglen)
{
  int err;
  msg[0] = '\0';
  struct pd_reader *r = pd_reader_open_mem(buf, len, &err, msg, msglen);
  if (!r) return err;
  const struct perf_event_header *rec;
  int rc;
  while ((rc = pd_reader_next(r, &rec, msg, msglen)) == 1) {
    pd_record_event(r, rec);
    struct pd_sample s;
    if (rec->type == PERF_RECORD_SAMPLE && (err = pd_parse_sample(r, rec, &s, msg, msglen))) {
      pd_reader_close(r);
      return err;
    }
  }
  pd_reader_close(r);
  return rc;
}

/* Header field access in the copy. */
enum { H_MAGIC, H_SIZE, H_ATTR_SIZE, H_ATTRS_OFF, H_ATTRS_SIZE, H_DATA_OFF, H_DATA_SIZE,
       H_FEAT = 9 };

/* Applies one corruption to a copy of the good file and expects an error
 * whose message contains want. */
static void expect_bad(const struct blob *good, const char *what, const char *want,
                       void (*mutate)(uint64_t *w, size_t *len, const void *arg), const void *arg)
{
  struct blob b = { malloc(good->len + 8), good->len };
  memcpy(b.w, good->w, good->len);
  mutate(b.w, &b.len, arg);
  char msg[256];
  int err = consume(b.w, b.len, msg, sizeof msg);
  CHECK(pm_is_err(err) && strstr(msg, want), "malformed: %s -> \"%s\"", what, msg);
  free(b.w);
}

struct setw { int word; uint64_t val; bool nofeat; };
static void m_setw(uint64_t *w, size_t *len, const void *arg)
{
  const struct setw *s = arg;
  (void)len;
  w[s->word] = s->val;
  if (s->nofeat) memset(&w[H_FEAT], 0, 32);
}
static void m_allfeat(uint64_t *w, size_t *len, const void *arg)
{
  (void)len, (void)arg;
  memset(&w[H_FEAT], 0xff, 32);
}
static void m_truncate(uint64_t *w, size_t *len, const void *arg)
{
  (void)w;
  *len = *(const size_t *)arg;
}

/* Offset of the first record of type t, in bytes (0 if none). */
static size_t find_record(const struct blob *b, uint32_t t, int nth)
{
  size_t off = b->w[H_DATA_OFF], end = off + b->w[H_DATA_SIZE];
  while (off + 8 <= end) {
    struct perf_event_header h;
    memcpy(&h, (const char *)b->w + off, 8);
    if (h.type == t && nth-- == 0) return off;
    if (h.size == 0) break;
    off += h.size;
  }
  return 0;
}

struct setrec { size_t off; int field; uint32_t val; };   /* field: byte offset in the record */
static void m_setrec(uint64_t *w, size_t *len, const void *arg)
{
  const struct setrec *s = arg;
  (void)len;
  char *p = (char *)w + s->off + (size_t)s->field;
  if (s->field == 6) { uint16_t v = (uint16_t)s->val; memcpy(p, &v, 2); }
  else memcpy(p, &s->val, 4);
}

static void test_malformed(const char *good_path)
{
  struct blob g = slurp(good_path);
  CHECK(g.len > 1000, "malformed: demo file read (%zu bytes)", g.len);
  if (g.len <= 1000) return;
  char msg[256];
  CHECK(consume(g.w, g.len, msg, sizeof msg) == 0, "malformed: the untouched file is fine (%s)", msg);

  /* Every truncation fails with a message, and none crashes. */
  int quiet = 0;
  for (size_t cut = 0; cut < g.len; cut++) {
    int err = consume(g.w, cut, msg, sizeof msg);
    if ((err >= 0 || msg[0] == '\0') && quiet++ < 3) CHECK(0, "malformed: truncated at %zu gives an error", cut);
  }
  CHECK(quiet == 0, "malformed: all %zu truncations give an error", g.len);
  static const struct { size_t cut; const char *want; } cuts[] = {
    { 0, "shorter than any header" }, { 12, "shorter than any header" }, { 60, "truncated inside" },
    { 200, "attribute section" }, { 500, "data section" },
  };
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
    expect_bad(&g, "truncated", cuts[i].want, m_truncate, &cuts[i].cut);
  size_t endcut = g.len - 8;
  expect_bad(&g, "truncated in the features", "outside the file", m_truncate, &endcut);
  size_t datacut = g.w[H_DATA_OFF] + g.w[H_DATA_SIZE] + 8;
  expect_bad(&g, "truncated in the feature table", "feature section table", m_truncate, &datacut);

  uint64_t dsize = g.w[H_DATA_SIZE];
  const struct { const char *what, *want; struct setw s; } hdr[] = {
    { "bad magic", "bad magic", { H_MAGIC, 0x4141414141414141ull, false } },
    { "byte-swapped magic", "opposite-endian", { H_MAGIC, 0x50455246494c4532ull, false } },
    { "header size 96", "header size", { H_SIZE, 96, false } },
    { "pipe header", "pipe-mode", { H_SIZE, 16, false } },
    { "attr_size 136", "does not match attr.size", { H_ATTR_SIZE, 136, false } },
    { "attr_size 0", "bad attr_size", { H_ATTR_SIZE, 0, false } },
    { "attrs past the end", "outside the file", { H_ATTRS_OFF, g.len, false } },
    { "attrs size not a multiple", "not a multiple of attr_size", { H_ATTRS_SIZE, 200, false } },
    { "no attrs", "no events", { H_ATTRS_SIZE, 0, false } },
    { "data past the end", "data section", { H_DATA_SIZE, g.len, false } },
    { "data offset unaligned", "not 8-byte aligned", { H_DATA_OFF, g.w[H_DATA_OFF] + 4, true } },
    { "data size 0", "properly terminated", { H_DATA_SIZE, 0, false } },
    { "data cut inside a record", "runs past the end of the data section", { H_DATA_SIZE, dsize - 16, true } },
    { "data cut inside a header", "truncated", { H_DATA_SIZE, dsize - 4, true } },
  };
  for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++)
    expect_bad(&g, hdr[i].what, hdr[i].want, m_setw, &hdr[i].s);

  static const int allbits = 0;
  expect_bad(&g, "every feature bit set", "feature section table", m_allfeat, &allbits);
  /* The first feature (BUILD_ID) section moved outside the file. */
  size_t table = (g.w[H_DATA_OFF] + dsize) / 8;
  struct setw fs = { (int)table, g.len + 64, false };
  expect_bad(&g, "feature section outside the file", "BUILD_ID section", m_setw, &fs);
  /* attr.size of the second event. */
  struct setrec as = { g.w[H_ATTRS_OFF] + g.w[H_ATTR_SIZE], 4, 120 };
  expect_bad(&g, "attr.size 120", "does not match attr_size", m_setrec, &as);

  size_t comm = find_record(&g, PERF_RECORD_COMM, 0), smp = find_record(&g, PERF_RECORD_SAMPLE, 0);
  size_t pmsmp = find_record(&g, PERF_RECORD_SAMPLE, 3), ex = find_record(&g, PERF_RECORD_EXIT, 0);
  const struct { const char *what, *want; struct setrec s; } recs[] = {
    { "record size 0", "has size 0", { comm, 6, 0 } },
    { "record size 12", "not a multiple of 8", { comm, 6, 12 } },
    { "record size 4", "not a multiple of 8", { comm, 6, 4 } },
    { "record past the end", "runs past the end of the data section", { ex, 6, 0xfff8 } },
    { "sample too short for its fields", "runs past the end of the record", { smp, 6, 48 } },
    { "sample too short for its id", "too short to hold its id", { smp, 6, 8 } },
    { "raw size past the record", "field raw data runs past", { pmsmp, 8 + 8 * 8, 4000 } },
    { "unknown sample id", "matches no event", { smp, 8, 999 } },
  };
  for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++)
    expect_bad(&g, recs[i].what, recs[i].want, m_setrec, &recs[i].s);

  /* An EVENT_DESC name length past its section (11th feature: EVENT_DESC). */
  uint64_t ed_off = g.w[table + 2 * 10];
  struct setrec ed = { ed_off + 8 + PERF_ATTR_SIZE_VER7 + 4, 0, 0x7fffffff };
  expect_bad(&g, "EVENT_DESC string length", "EVENT_DESC: string", m_setrec, &ed);
  free(g.w);

  int err;
  struct pd_reader *r = pd_reader_open("/nonexistent/perf.data", &err, msg, sizeof msg);
  CHECK(!r && err == PM_ENOENT && strstr(msg, "No such file"), "malformed: missing file -> \"%s\"", msg);
  uint64_t aligned[2] = { 0, 0 };
  r = pd_reader_open_mem((const char *)aligned + 1, 8, &err, msg, sizeof msg);
  CHECK(!r && err == PM_EINVAL, "malformed: unaligned buffer refused");
}

/* ---- x86 files recorded by perf 6.1 ---- */

struct summary { int records, samples, comms, mmaps, errors, per_event[4], trailer_events; char err[256]; };

static struct pd_reader *summarize(const char *path, struct summary *s)
{
  int err;
  memset(s, 0, sizeof *s);
  struct pd_reader *r = pd_reader_open(path, &err, s->err, sizeof s->err);
  if (!r) { s->errors = 1; return NULL; }
  const struct perf_event_header *rec;
  int rc;
  while ((rc = pd_reader_next(r, &rec, s->err, sizeof s->err)) == 1) {
    s->records++;
    s->comms += rec->type == PERF_RECORD_COMM;
    s->mmaps += rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2;
    if (rec->type != PERF_RECORD_SAMPLE) {
      s->trailer_events += rec->type < 64 && pd_record_event(r, rec) != NULL;
      continue;
    }
    struct pd_sample smp;
    if (pd_parse_sample(r, rec, &smp, s->err, sizeof s->err)) { s->errors++; continue; }
    s->samples++;
    size_t ev = (size_t)(smp.event - pd_reader_event(r, 0));
    if (ev < 4) s->per_event[ev]++;
    if ((smp.sample_type & PERF_SAMPLE_IP) && !smp.ip) {
      snprintf(s->err, sizeof s->err, "sample with ip 0");
      s->errors++;
    }
  }
  if (rc < 0) s->errors++;
  return r;
}

static void test_x86_fixtures(void)
{
  struct summary s;
  struct pd_reader *r = summarize(FIXTURE_DIR "x86-cpu-clock.data", &s);
  CHECK(r && s.errors == 0, "x86 cpu-clock: read (%s)", s.err);
  if (r) {
    const struct pd_event *e = pd_reader_event(r, 0);
    CHECK(pd_reader_nevents(r) == 1 && streq(e->name, "cpu-clock") && e->attr.type == PERF_TYPE_SOFTWARE &&
          e->attr.config == PERF_COUNT_SW_CPU_CLOCK && e->attr.size == 128 && e->nids == 2,
          "x86 cpu-clock: one event cpu-clock, attr size 128, 2 ids");
    CHECK(e->attr.sample_type == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD),
          "x86 cpu-clock: sample_type IP|TID|TIME|PERIOD");
    CHECK(streq(pd_reader_env(r, "arch"), "x86_64") && pd_reader_env(r, "osrelease") &&
          strstr(pd_reader_env(r, "cmdline"), "perf record"), "x86 cpu-clock: arch, osrelease, cmdline");
    CHECK(s.samples >= 1 && s.comms >= 1 && s.mmaps >= 1 && s.trailer_events >= s.comms + s.mmaps,
          "x86 cpu-clock: %d records, %d samples, COMM and MMAP with their event", s.records, s.samples);
    CHECK(pd_reader_nbuild_ids(r) >= 1, "x86 cpu-clock: build-ids");
    pd_reader_close(r);
  }
  r = summarize(FIXTURE_DIR "x86-cpu-task-clock.data", &s);
  CHECK(r && s.errors == 0, "x86 cpu-clock + task-clock: read (%s)", s.err);
  if (r) {
    CHECK(pd_reader_nevents(r) == 2 && streq(pd_reader_event(r, 0)->name, "cpu-clock") &&
          streq(pd_reader_event(r, 1)->name, "task-clock"), "x86 two events: names");
    CHECK(s.per_event[0] > 0 && s.per_event[1] > 0 && s.per_event[0] + s.per_event[1] == s.samples,
          "x86 two events: samples told apart by PERF_SAMPLE_ID (%d + %d)", s.per_event[0], s.per_event[1]);
    pd_reader_close(r);
  }
}

/* ---- names, writer argument checks, interrupted writer ---- */

static void test_names(void)
{
  static const struct { uint32_t type; uint64_t config; int excl; const char *want; } t[] = {
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, "cycles" },
    { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, "instructions" },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1, "cpu-clock" },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1, "task-clock" },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1, "page-faults" },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, "context-switches" },
    { PERF_TYPE_RAW, 0x1234, 0, "raw 0x1234:HG" },
    { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, "cpu-clock:HG" },
    { PERF_TYPE_HW_CACHE, 0 | 0 << 8 | 1 << 16, 1, "L1-dcache-load-misses" },
    { PERF_TYPE_HW_CACHE, 2 | 0 << 8 | 0 << 16, 1, "LLC-loads" },
    { 10, 1, 1, "unknown attr type: 10" },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    struct perf_event_attr a = { .type = t[i].type, .config = t[i].config, .exclude_guest = t[i].excl };
    char buf[64];
    pd_event_name(&a, buf, sizeof buf);
    CHECK(streq(buf, t[i].want), "names: %s (got %s)", t[i].want, buf);
  }
  struct perf_event_attr u = { .type = PERF_TYPE_HARDWARE, .exclude_kernel = 1, .exclude_hv = 1,
                               .exclude_guest = 1, .precise_ip = 2 };
  char buf[64];
  pd_event_name(&u, buf, sizeof buf);   /* both checked against perf 6.1 report */
  CHECK(streq(buf, "cycles:uppH"), "names: cycles:uppH with exclude_guest (got %s)", buf);
  u.exclude_guest = 0;
  pd_event_name(&u, buf, sizeof buf);
  CHECK(streq(buf, "cycles:upp"), "names: cycles:upp (got %s)", buf);
}

static void test_writer_args(const char *path)
{
  int err;
  struct pd_writer *w = pd_writer_create(path, &err);
  CHECK(w != NULL, "writer: create");
  if (!w) return;
  struct perf_event_attr a[2];
  demo_attrs(a);
  uint64_t id = 7;
  struct perf_event_attr b = a[1];
  b.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
  CHECK(pd_writer_add_event(w, &a[0], NULL, NULL, 0) == 0, "writer: first event, no ids");
  CHECK(pd_writer_add_event(w, &b, NULL, &id, 1) == PM_EINVAL, "writer: id position must match");
  CHECK(pd_writer_add_event(w, &a[1], NULL, &id, 1) == 0, "writer: second event");
  struct perf_event_header fin = { 68, 0, 8 };
  CHECK(pd_writer_record(w, &fin) == PM_EINVAL, "writer: with two events, each needs ids");
  CHECK(pd_writer_close(w) == PM_EINVAL, "writer: close reports it");
  w = pd_writer_create(path, &err);
  CHECK(w && pd_writer_add_event(w, &a[0], NULL, NULL, 0) == 0, "writer: one event without ids");
  if (!w) return;
  struct perf_event_header odd = { PERF_RECORD_SAMPLE, 0, 12 };
  CHECK(pd_writer_record(w, &odd) == PM_EINVAL, "writer: record size not a multiple of 8 refused");
  CHECK(pd_writer_record(w, &fin) == 0, "writer: record");
  CHECK(pd_writer_add_event(w, &b, NULL, &id, 1) == PM_EINVAL, "writer: no event after the first record");
  /* While open, the file already has a header perf and we can diagnose. */
  char msg[256];
  struct pd_reader *r = pd_reader_open(path, &err, msg, sizeof msg);
  CHECK(!r && strstr(msg, "properly terminated"), "writer: unfinished file diagnosed (\"%s\")", msg);
  CHECK(pd_writer_close(w) == 0, "writer: close");
  r = pd_reader_open(path, &err, msg, sizeof msg);
  CHECK(r && streq(pd_reader_event(r, 0)->name, "cycles"), "writer: default name written (%s)",
        r ? pd_reader_event(r, 0)->name : msg);
  pd_reader_close(r);
  CHECK(pd_writer_create("/nonexistent/dir/x.data", &err) == NULL && err == PM_ENOENT,
        "writer: create in a missing directory");
}

/* The AUX area records: AUXTRACE_INFO, AUXTRACE with its payload (not
 * counted in header.size), kernel AUX and ITRACE_START, written and read
 * back field by field; an AUXTRACE whose payload runs past the data section
 * or is not 8-aligned is refused with its offset; a short AUX record gets
 * PM_ECORRUPT from pd_parse_aux. */
static void test_aux_records(const char *path)
{
  int err;
  struct pd_writer *w = pd_writer_create(path, &err);
  struct perf_event_attr a[2];
  demo_attrs(a);
  CHECK(w && pd_writer_add_event(w, &a[0], NULL, NULL, 0) == 0, "aux: writer");
  if (!w) return;
  uint64_t priv[3] = { 11, 667, 0 };
  uint8_t data[24];
  for (int i = 0; i < 24; i++) data[i] = (uint8_t)(i * 7 + 1);
  struct pd_auxtrace at = { .size = 24, .offset = 4096, .reference = 3, .idx = 1, .tid = 77, .cpu = 1 };
  uint64_t aux[4] = { 0, 4096, 24, PERF_AUX_FLAG_TRUNCATED };
  struct perf_event_header ah = { PERF_RECORD_AUX, 0, 32 };
  memcpy(aux, &ah, 8);
  uint64_t its[2] = { 0, (uint64_t)78 << 32 | 77 };
  struct perf_event_header ih = { PERF_RECORD_ITRACE_START, 0, 16 };
  memcpy(its, &ih, 8);
  struct pd_auxtrace odd = at;
  odd.size = 5;
  CHECK(pd_writer_auxtrace(w, &odd, data) == PM_EINVAL, "aux: an AUXTRACE payload not a multiple of 8 is refused");
  CHECK(pd_writer_auxtrace_info(w, 0x4556, priv, 3) == 0 && pd_writer_auxtrace(w, &at, data) == 0 &&
        pd_writer_record(w, (const struct perf_event_header *)aux) == 0 &&
        pd_writer_record(w, (const struct perf_event_header *)its) == 0 && pd_writer_close(w) == 0,
        "aux: AUXTRACE_INFO, AUXTRACE + 24 bytes, AUX, ITRACE_START written");
  char msg[256];
  struct pd_reader *r = pd_reader_open(path, &err, msg, sizeof msg);
  CHECK(r != NULL, "aux: file reads (%s)", r ? "" : msg);
  if (!r) return;
  const struct perf_event_header *h;
  int n = 0;
  bool info_ok = false, at_ok = false, aux_ok = false, its_ok = false;
  while (pd_reader_next(r, &h, msg, sizeof msg) == 1) {
    n++;
    if (h->type == PD_RECORD_AUXTRACE_INFO) {
      uint32_t type = 0;
      const uint64_t *pv = NULL;
      size_t np = 0;
      info_ok = !pd_parse_auxtrace_info(h, &type, &pv, &np, msg, sizeof msg) && type == 0x4556 && np == 3 &&
                pv[0] == 11 && pv[1] == 667;
    } else if (h->type == PD_RECORD_AUXTRACE) {
      struct pd_auxtrace g = { 0 };
      const uint8_t *d = NULL;
      at_ok = !pd_parse_auxtrace(h, &g, &d, msg, sizeof msg) && h->size == 48 && g.size == 24 && g.offset == 4096 &&
              g.reference == 3 && g.idx == 1 && g.tid == 77 && g.cpu == 1 && !memcmp(d, data, 24);
    } else if (h->type == PERF_RECORD_AUX) {
      uint64_t o = 0, sz = 0, f = 0;
      aux_ok = !pd_parse_aux(h, &o, &sz, &f, msg, sizeof msg) && o == 4096 && sz == 24 && f == PERF_AUX_FLAG_TRUNCATED;
    } else if (h->type == PERF_RECORD_ITRACE_START) {
      uint32_t pid = 0, tid = 0;
      its_ok = !pd_parse_itrace_start(h, &pid, &tid, msg, sizeof msg) && pid == 77 && tid == 78;
    }
  }
  CHECK(n == 4 && info_ok && at_ok && aux_ok && its_ok,
        "aux: read back: 4 records (the payload skipped), every field (%d %d %d %d %d)", n, info_ok, at_ok, aux_ok, its_ok);
  pd_reader_close(r);
  struct perf_event_header shorth = { PERF_RECORD_AUX, 0, 16 };
  uint64_t o, sz, f;
  CHECK(pd_parse_aux(&shorth, &o, &sz, &f, msg, sizeof msg) == PM_ECORRUPT && strstr(msg, "16 bytes"),
        "aux: a 16-byte AUX record is refused (%s)", msg);
  /* an AUXTRACE claiming more data than the file has */
  struct blob b = slurp(path);
  size_t at_off = find_record(&b, PD_RECORD_AUXTRACE, 0);
  if (at_off) {
    uint64_t big = 1u << 20;
    memcpy((uint8_t *)b.w + at_off + 8, &big, 8);
    int e = consume(b.w, b.len, msg, sizeof msg);
    CHECK(e == PM_ECORRUPT && strstr(msg, "AUXTRACE record at offset") && strstr(msg, "run past"),
          "aux: an AUXTRACE payload past the data section is refused (%s)", msg);
  } else {
    CHECK(0, "aux: AUXTRACE record found in the file");
  }
  free(b.w);
}

static void test_build_id(void)
{
  uint8_t id[20];
  CHECK(pd_elf_build_id("/proc/self/exe", id) == 20, "build-id: this test binary has a GNU build-id");
  CHECK(pd_elf_build_id("/nonexistent", id) == 0, "build-id: none for a missing file");
  CHECK(pd_elf_build_id(FIXTURE_DIR "x86-cpu-clock.data", id) == 0, "build-id: none for a non-ELF file");
}

/* ---- driver modes ---- */

static int dump(const char *path)
{
  struct summary s;
  struct pd_reader *r = summarize(path, &s);
  if (!r) { printf("error: %s\n", s.err); return 1; }
  for (size_t i = 0; i < pd_reader_nevents(r); i++) {
    const struct pd_event *e = pd_reader_event(r, i);
    printf("event %zu %s type %u config 0x%llx sample_type 0x%llx ids %zu samples %d\n", i, e->name,
           e->attr.type, (unsigned long long)e->attr.config, (unsigned long long)e->attr.sample_type,
           e->nids, i < 4 ? s.per_event[i] : -1);
  }
  printf("arch %s\n", pd_reader_env(r, "arch") ? pd_reader_env(r, "arch") : "-");
  printf("records %d samples %d comm %d mmap %d errors %d\n", s.records, s.samples, s.comms, s.mmaps, s.errors);
  if (s.errors) printf("error: %s\n", s.err);
  pd_reader_close(r);
  return s.errors != 0;
}

/* The image named on the command line: an ELF file, or "-" for the made-up one. */
static int cli_image(const char *arg, struct image *img)
{
  if (strcmp(arg, "-") == 0) return load_image(NULL, img);
  if (load_image(arg, img) == 0) return 0;
  fprintf(stderr, "cannot read symbols and mappings of %s\n", arg);
  return -1;
}

int main(int argc, char **argv)
{
  struct image img;
  bool demo_mode = argc >= 4 && argc <= 5 && (strcmp(argv[1], "write") == 0 || strcmp(argv[1], "verify") == 0);
  int nsamples = argc == 5 ? atoi(argv[4]) : DEMO_NSAMPLES;
  if (demo_mode && (nsamples < 1 || nsamples > 100000)) demo_mode = false;
  if (demo_mode && argv[1][0] == 'w') {
    if (cli_image(argv[3], &img)) return 1;
    int err = demo_write(argv[2], &img, nsamples, true);
    if (err) { fprintf(stderr, "write %s: %s\n", argv[2], pm_strerror(err)); return 1; }
    for (int i = 0; i < img.nsyms; i++) printf("sym %s\n", img.syms[i].name);
    return 0;
  }
  if (demo_mode) {
    if (cli_image(argv[3], &img)) return 1;
    demo_verify(argv[2], &img, nsamples);
    return check_done();
  }
  if (argc == 3 && strcmp(argv[1], "partial") == 0) {
    load_image(NULL, &img);
    return demo_write(argv[2], &img, DEMO_NSAMPLES, false) ? 1 : 0;
  }
  if (argc == 3 && strcmp(argv[1], "dump") == 0) return dump(argv[2]);
  if (argc != 1) {
    fprintf(stderr, "usage: %s [write OUT ELF|- [N] | verify FILE ELF|- [N] | partial OUT | dump FILE]\n",
            argv[0]);
    return 2;
  }

  char path[] = "/tmp/test_perfdata.XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0, "temporary file");
  if (fd < 0) return check_done();
  close(fd);
  load_image(NULL, &img);
  CHECK(demo_write(path, &img, DEMO_NSAMPLES, true) == 0, "demo: written");
  demo_verify(path, &img, DEMO_NSAMPLES);
  /* A file this writer made earlier, committed: the format must stay readable. */
  demo_verify(FIXTURE_DIR "alpha-demo.data", &img, ALPHA_FIXTURE_SAMPLES);
  test_malformed(path);
  test_x86_fixtures();
  test_names();
  test_build_id();
  test_writer_args(path);
  test_aux_records(path);
  unlink(path);
  return check_done();
}
