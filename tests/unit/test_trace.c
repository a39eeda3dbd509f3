/* The trace unit, its firmware call, the perf AUX area and the trace driver
 * (docs/trace.md).
 *
 * Without arguments: the unit on synthetic instruction streams (packets as
 * TRACE_FORMAT.md says, overflow, the firmware's answers), and the AUX core
 * and the trace driver against Linux's ring_buffer.c and the seed's rules.
 * With `SYSROOT PROG...` (tests/scripts/trace.sh): each static Alpha program
 * runs twice from the same seed, once on a bare OS whose per-instruction hook
 * records what the executor retired at every PC (the oracle), once traced on
 * the machine; a minimal decoder walks the program's code (from its ELF
 * file) through the packets, and its per-PC counts must equal the oracle's,
 * its total the CPUs' retired counts. */
#include "check.h"
#include "guest/os.h"
#include "guest/phys.h"
#include "isa/isa.h"
#include "machine/machine.h"
#include "pmu/trace_unit.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- per-PC counts (open addressing) ---- */

struct counts {
  uint64_t *pc, *n;
  size_t cap, used;
};

static void counts_add(struct counts *c, uint64_t pc, int64_t d)
{
  if (c->used * 2 >= c->cap) {
    struct counts g = { calloc(c->cap ? c->cap * 2 : 4096, 8), calloc(c->cap ? c->cap * 2 : 4096, 8),
                        c->cap ? c->cap * 2 : 4096, 0 };
    for (size_t i = 0; i < c->cap; i++) if (c->n[i] || c->pc[i]) counts_add(&g, c->pc[i], (int64_t)c->n[i]);
    free(c->pc);
    free(c->n);
    *c = g;
  }
  size_t i = (size_t)((pc >> 2) * 0x9E3779B97F4A7C15ull) & (c->cap - 1);
  while (c->pc[i] && c->pc[i] != pc) i = (i + 1) & (c->cap - 1);
  if (!c->pc[i]) { c->pc[i] = pc; c->used++; }
  c->n[i] += (uint64_t)d;
}

static uint64_t counts_get(const struct counts *c, uint64_t pc)
{
  if (!c->cap) return 0;
  size_t i = (size_t)((pc >> 2) * 0x9E3779B97F4A7C15ull) & (c->cap - 1);
  while (c->pc[i] && c->pc[i] != pc) i = (i + 1) & (c->cap - 1);
  return c->pc[i] == pc ? c->n[i] : 0;
}

static void counts_free(struct counts *c) { free(c->pc); free(c->n); memset(c, 0, sizeof *c); }

/* ---- the code a decoder walks: a static program's executable segments ---- */

struct code { uint64_t start[4], end[4]; uint8_t *bytes[4]; int n; };

static int code_load(struct code *k, const char *path)
{
  memset(k, 0, sizeof *k);
  elf_version(EV_CURRENT);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  size_t nph = 0;
  if (!e || elf_getphdrnum(e, &nph)) { close(fd); return -1; }
  for (size_t i = 0; i < nph && k->n < 4; i++) {
    GElf_Phdr ph;
    if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    k->bytes[k->n] = calloc(1, ph.p_memsz);
    if (pread(fd, k->bytes[k->n], ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz) break;
    k->start[k->n] = ph.p_vaddr;
    k->end[k->n] = ph.p_vaddr + ph.p_memsz;
    k->n++;
  }
  elf_end(e);
  close(fd);
  return k->n ? 0 : -1;
}

static bool code_word(const struct code *k, uint64_t pc, uint32_t *w)
{
  for (int i = 0; i < k->n; i++)
    if (pc >= k->start[i] && pc + 4 <= k->end[i]) { memcpy(w, k->bytes[i] + (pc - k->start[i]), 4); return true; }
  return false;
}

static void code_free(struct code *k) { for (int i = 0; i < k->n; i++) free(k->bytes[i]); }

/* ---- a minimal decoder (TRACE_FORMAT.md's rule) ---- */

struct dec {
  const struct code *code;
  struct counts *counts;        /* NULL: no walk, packets only */
  uint64_t pc;
  bool synced;
  uint64_t insns, packets[16], lost, errors;
  uint64_t first_error_pc;
  uint64_t last_cycle;          /* absolute cycle of the last timed packet */
  bool time_backwards;
};

static uint64_t rd_uleb(const uint8_t *p, size_t len, size_t *at, bool *ok)
{
  uint64_t v = 0;
  for (unsigned s = 0; s < 64; s += 7) {
    if (*at >= len) { *ok = false; return 0; }
    uint8_t b = p[(*at)++];
    v |= (uint64_t)(b & 0x7F) << s;
    if (!(b & 0x80)) return v;
  }
  *ok = false;
  return v;
}

static uint64_t rd_le(const uint8_t *p, size_t len, size_t *at, unsigned bytes, bool *ok)
{
  uint64_t v = 0;
  if (*at + bytes > len) { *ok = false; return 0; }
  for (unsigned i = 0; i < bytes; i++) v |= (uint64_t)p[*at + i] << (8 * i);
  *at += bytes;
  return v;
}

static void dec_error(struct dec *d)
{
  if (!d->errors) d->first_error_pc = d->pc;
  d->errors++;
  d->synced = false;
}

/* Executes n instructions from pc; the n-th decides: want is the format of
 * the n-th (AXP_FMT_BRA for TAKEN, AXP_FMT_JMP for TIP, -1 for none). */
static void dec_walk(struct dec *d, uint64_t n, int want, uint64_t target)
{
  if (!d->synced) return;
  for (uint64_t i = 1; i <= n; i++) {
    uint32_t w;
    if (!d->code || !code_word(d->code, d->pc, &w)) { dec_error(d); return; }
    struct axp_insn in = axp_decode(w);
    int fmt = in.id < AXP_NUM_IDS ? (int)axp_info[in.id].format : -1;
    bool br = fmt == AXP_FMT_BRA || fmt == AXP_FMT_FBRA;
    bool uncond = (br && (in.id == AXP_BR || in.id == AXP_BSR)) || fmt == AXP_FMT_JMP;
    if (d->counts) counts_add(d->counts, d->pc, 1);
    d->insns++;
    if (i < n) {
      if (uncond) { dec_error(d); return; }   /* sequential flow cannot pass a taken branch */
      d->pc += 4;
      continue;
    }
    if (want == AXP_FMT_BRA) {
      if (!br) { dec_error(d); return; }
      d->pc = d->pc + 4 + (uint64_t)(int64_t)in.imm;
    } else if (want == AXP_FMT_JMP) {
      if (fmt != AXP_FMT_JMP) { dec_error(d); return; }
      d->pc = target;
    } else {
      if (uncond) { dec_error(d); return; }
      d->pc += 4;
    }
  }
}

static void dec_time(struct dec *d, uint64_t dcyc)
{
  d->last_cycle += dcyc;
}

/* Decodes a stream; returns false on a malformed packet. */
static bool dec_run(struct dec *d, const uint8_t *p, size_t len)
{
  size_t at = 0;
  bool ok = true;
  while (at < len && ok) {
    uint8_t t = p[at++];
    if (t < 16) d->packets[t]++;
    switch (t) {
    case TRACE_PAD: break;
    case TRACE_PSB: {
      uint64_t pc = rd_le(p, len, &at, 8, &ok), cyc = rd_le(p, len, &at, 8, &ok);
      rd_le(p, len, &at, 9, &ok);
      if (cyc < d->last_cycle) d->time_backwards = true;
      d->last_cycle = cyc;
      if (d->synced && pc != d->pc) dec_error(d);   /* a PSB agrees with the flow */
      d->pc = pc;
      d->synced = true;
      break;
    }
    case TRACE_TAKEN: {
      uint64_t n = rd_uleb(p, len, &at, &ok), dc = rd_uleb(p, len, &at, &ok);
      dec_time(d, dc);
      dec_walk(d, n, AXP_FMT_BRA, 0);
      break;
    }
    case TRACE_TIP: {
      uint64_t n = rd_uleb(p, len, &at, &ok), dc = rd_uleb(p, len, &at, &ok), tg = rd_le(p, len, &at, 8, &ok);
      dec_time(d, dc);
      dec_walk(d, n, AXP_FMT_JMP, tg);
      break;
    }
    case TRACE_ASYNC: {
      uint64_t n = rd_uleb(p, len, &at, &ok), dc = rd_uleb(p, len, &at, &ok);
      rd_le(p, len, &at, 1, &ok);
      uint64_t resume = rd_le(p, len, &at, 8, &ok);
      dec_time(d, dc);
      dec_walk(d, n, -1, 0);
      d->pc = resume;
      if (!resume) d->synced = false;
      break;
    }
    case TRACE_PID: rd_le(p, len, &at, 8, &ok); break;
    case TRACE_MODE: rd_le(p, len, &at, 1, &ok); break;
    case TRACE_OVF: {
      uint64_t cyc = rd_le(p, len, &at, 8, &ok);
      d->lost += rd_le(p, len, &at, 8, &ok);
      d->last_cycle = cyc;
      d->synced = false;
      break;
    }
    case TRACE_STOP: {
      uint64_t n = rd_uleb(p, len, &at, &ok), dc = rd_uleb(p, len, &at, &ok);
      dec_time(d, dc);
      dec_walk(d, n, -1, 0);
      d->synced = false;
      break;
    }
    default: ok = false;
    }
  }
  return ok;
}

/* ---- the unit on synthetic streams ---- */

struct fake { uint64_t icount, cycle; };
static uint64_t fake_now(void *ctx) { return ((struct fake *)ctx)->cycle; }

static struct axp_insn mk(uint32_t w) { return axp_decode(w); }
#define W_ADDQ 0x40010400u   /* addq r0,r1,r0 */
#define W_BR   0xc3e00003u   /* br +3 */
#define W_JMP  0x6be10000u   /* jmp (r1) */

static void step(struct trace_unit *u, struct fake *f, const struct axp_insn *d, uint64_t pc, uint64_t next, bool taken)
{
  struct uarch_insn ui = { .pc = pc, .d = d, .next_pc = next, .taken = taken };
  f->cycle += 2;
  trace_unit_step(u, &ui, f->cycle, 7, 8);
}

/* What the firmware dumps of a unit into a buffer of frames. */
static size_t drain(struct trace_fw *fw, int cpu, uint8_t *out, size_t cap, uint64_t pa, size_t pages)
{
  uint64_t ret[4];
  pal_trace(fw, TRACE_PAL_STATUS, cpu, 0, 0, 0, ret);
  uint64_t off = ret[1];
  size_t n = 0;
  for (int guard = 0; guard < 1000; guard++) {
    int rc = pal_trace(fw, TRACE_PAL_DUMP, cpu, pa, pages * PHYS_PAGE, off, ret);
    if (rc == TRACE_PAL_BUSY) continue;
    if (rc == TRACE_PAL_NO_DATA || rc < 0) break;
    size_t take = ret[0] < cap - n ? ret[0] : cap - n;
    memcpy(out + n, phys_frame(fw->phys, pa / PHYS_PAGE), take);
    n += take;
    off += ret[0];
    if (rc == TRACE_PAL_OK && ret[0] == 0) break;
  }
  return n;
}

static void test_unit_packets(void)
{
  struct physmem *ph = phys_create(64 * PHYS_PAGE);
  struct fake f = { 0, 100 };
  struct trace_unit u;
  trace_unit_init(&u, &f.icount, fake_now, &f, 1);
  struct trace_fw fw = { .units = { &u }, .nunits = 1, .phys = ph, .phys_bytes = 64 * PHYS_PAGE };
  uint64_t ret[4];
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_START, 0, 0, 0, 0, ret), TRACE_PAL_STATE, "trace: START before SETUP is refused");
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_SETUP, 0, 0, 3000, 0, ret), TRACE_PAL_PARAM, "trace: SETUP of a size not a power of two is refused");
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_SETUP, 0, 0, 16384, 0, ret), TRACE_PAL_OK, "trace: SETUP 16 KB");
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_START, 0, 0, 0, 0, ret), TRACE_PAL_OK, "trace: START");
  struct axp_insn add = mk(W_ADDQ), br = mk(W_BR), jmp = mk(W_JMP);
  /* 3 adds, a br at 0x100c (to 0x101c), 2 adds, a jmp to 0x2000, 1 add. */
  uint64_t pc = 0x1000;
  for (int i = 0; i < 3; i++, pc += 4) step(&u, &f, &add, pc, pc + 4, false);
  step(&u, &f, &br, pc, pc + 4 + 12, true);
  pc = 0x101c;
  for (int i = 0; i < 2; i++, pc += 4) step(&u, &f, &add, pc, pc + 4, false);
  step(&u, &f, &jmp, pc, 0x2000, true);
  step(&u, &f, &add, 0x2000, 0x2004, false);
  f.icount = 8;   /* the executor retired all of them */
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_STOP, 0, 0, 0, 0, ret), TRACE_PAL_OK, "trace: STOP");
  uint8_t got[256];
  size_t n = drain(&fw, 0, got, sizeof got, 8 * PHYS_PAGE, 1);
  /* PSB(0x1000, 102, 7, 8, user) TAKEN(4, 6) TIP(3, 6, 0x2000) STOP(1, 2) */
  static const uint8_t want[] = {
    0x01, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 102, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 0,
    0x02, 4, 6,
    0x03, 3, 6, 0x00, 0x20, 0, 0, 0, 0, 0, 0,
    0x08, 1, 2,
  };
  CHECK(n == sizeof want && !memcmp(got, want, sizeof want), "trace: packets of a small flow are PSB TAKEN TIP STOP byte for byte (%zu bytes)", n);
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_DUMP, 0, 8 * PHYS_PAGE, PHYS_PAGE, n, ret), TRACE_PAL_NO_DATA, "trace: a stopped, drained unit answers NO_DATA");
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_DUMP, 0, 8 * PHYS_PAGE + 8, PHYS_PAGE, n, ret), TRACE_PAL_PARAM, "trace: DUMP to an address not page-aligned is refused");
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_DUMP, 0, 63 * PHYS_PAGE, 2 * PHYS_PAGE, n, ret), TRACE_PAL_PARAM, "trace: DUMP past the end of RAM is refused");
  CHECK_EQ_U64(pal_trace(&fw, TRACE_PAL_DUMP, 0, 8 * PHYS_PAGE, PHYS_PAGE, 0, ret), TRACE_PAL_PARAM, "trace: DUMP of bytes already dumped is refused");

  /* A fault: the 2nd instruction of a run does not retire; the executor
   * then resumes at a handler. */
  pal_trace(&fw, TRACE_PAL_START, 0, 0, 0, 0, ret);
  step(&u, &f, &add, 0x3000, 0x3004, false);
  step(&u, &f, &add, 0x3004, 0x3008, false);
  f.icount += 1;
  step(&u, &f, &add, 0x5000, 0x5004, false);
  f.icount += 1;
  pal_trace(&fw, TRACE_PAL_STOP, 0, 0, 0, 0, ret);
  n = drain(&fw, 0, got, sizeof got, 8 * PHYS_PAGE, 1);
  struct dec d = { 0 };
  CHECK(dec_run(&d, got, n), "trace: the fault's stream parses");
  CHECK(d.packets[TRACE_ASYNC] == 1 && got[26] == TRACE_ASYNC && got[27] == 1 && got[29] == TRACE_ASYNC_FAULT,
        "trace: a faulting instruction is taken back: ASYNC(n=1, fault) (n %u kind %u)", got[27], got[29]);

  /* Overflow: a full memory drops packets, counts their bytes, and writes
   * OVF then PSB when a dump made room. */
  pal_trace(&fw, TRACE_PAL_START, 0, 0, 0, 0, ret);
  uint64_t before = u.stats.bytes;
  for (int i = 0; i < 20000; i++) step(&u, &f, &br, 0x4000, 0x4000, true), f.icount++;
  CHECK(u.overflow && u.stats.lost_bytes > 0, "trace: 20000 taken branches overflow 16 KB (%" PRIu64 " bytes lost)", u.stats.lost_bytes);
  CHECK(u.stats.bytes - before <= 16384, "trace: the unit never holds more than its memory");
  uint64_t lost = u.stats.lost_bytes;
  pal_trace(&fw, TRACE_PAL_STATUS, 0, 0, 0, 0, ret);
  uint64_t off = ret[1];
  int drc = pal_trace(&fw, TRACE_PAL_DUMP, 0, 8 * PHYS_PAGE, 2 * PHYS_PAGE, off, ret);
  CHECK(drc == TRACE_PAL_OK && ret[0] > 16000, "trace: the full memory dumps in one call (rc %d, %" PRIu64 " bytes)", drc, ret[0]);
  step(&u, &f, &br, 0x4000, 0x4000, true);
  f.icount++;
  CHECK(!u.overflow && u.stats.overflows == 1, "trace: after a dump the unit leaves the overflow (%d %" PRIu64 ")", u.overflow, u.stats.overflows);
  pal_trace(&fw, TRACE_PAL_STATUS, 0, 0, 0, 0, ret);
  uint8_t tail[64];
  for (unsigned i = 0; i < 43; i++) tail[i] = u.mem[(ret[0] - 43 + i) & (u.size - 1)];
  uint64_t ovf_lost;
  memcpy(&ovf_lost, tail + 9, 8);
  CHECK(tail[0] == TRACE_OVF && tail[17] == TRACE_PSB, "trace: the overflow ends with OVF then PSB");
  CHECK(lost > 0 && ovf_lost == u.stats.lost_bytes, "trace: OVF counts every byte dropped (%" PRIu64 ")", ovf_lost);
  trace_unit_fini(&u);
  phys_destroy(ph);
}

/* The firmware's busy answers: STOP leaves 0-2 per seed, injected ones are
 * answered first. */
static void test_unit_busy(void)
{
  struct physmem *ph = phys_create(16 * PHYS_PAGE);
  struct fake f = { 0, 0 };
  unsigned seen[3] = { 0 };
  for (uint64_t seed = 1; seed <= 60; seed++) {
    struct trace_unit u;
    trace_unit_init(&u, &f.icount, fake_now, &f, seed);
    struct trace_fw fw = { .units = { &u }, .nunits = 1, .phys = ph, .phys_bytes = 16 * PHYS_PAGE };
    uint64_t ret[4];
    pal_trace(&fw, TRACE_PAL_SETUP, 0, 0, PHYS_PAGE, 0, ret);
    pal_trace(&fw, TRACE_PAL_START, 0, 0, 0, 0, ret);
    pal_trace(&fw, TRACE_PAL_STOP, 0, 0, 0, 0, ret);
    unsigned busy = 0;
    while (pal_trace(&fw, TRACE_PAL_DUMP, 0, 0, PHYS_PAGE, 0, ret) == TRACE_PAL_BUSY && busy < 10) busy++;
    if (busy < 3) seen[busy]++;
    trace_unit_fini(&u);
  }
  CHECK(seen[0] && seen[1] && seen[2] && seen[0] + seen[1] + seen[2] == 60,
        "trace: a STOP leaves 0, 1 or 2 busy answers, by seed (%u %u %u of 60)", seen[0], seen[1], seen[2]);
  phys_destroy(ph);
}

/* ---- real programs: the decoded flow against the executor ---- */

struct oracle { struct os *os; struct counts c[OS_MAX_CPUS]; uint64_t icount0[OS_MAX_CPUS], hooked[OS_MAX_CPUS]; uint64_t last[OS_MAX_CPUS]; };
struct ohook { struct oracle *o; int cpu; };

/* The executor's record: every instruction the hook saw, less the one a
 * run's retired count says did not retire. */
static void oracle_settle(struct oracle *o, int i)
{
  uint64_t retired = o->os->cpus[i].icount - o->icount0[i];
  if (o->hooked[i] > retired) counts_add(&o->c[i], o->last[i], -1);
  o->icount0[i] = o->os->cpus[i].icount;
  o->hooked[i] = 0;
}

static bool oracle_before(void *ctx, const struct uarch_insn *ui)
{
  struct ohook *h = ctx;
  struct oracle *o = h->o;
  if (o->os->cpus[h->cpu].icount != o->icount0[h->cpu]) oracle_settle(o, h->cpu);
  counts_add(&o->c[h->cpu], ui->pc, 1);
  o->hooked[h->cpu]++;
  o->last[h->cpu] = ui->pc;
  return false;
}

/* The machine's side: the unit's interrupt and the final drain write the
 * stream of each CPU into a growing host buffer, through a contiguous
 * physical buffer as the driver would. */
struct sink {
  struct machine *m;
  struct trace_fw *fw;
  uint64_t pa;
  uint8_t *buf[OS_MAX_CPUS];
  size_t len[OS_MAX_CPUS], cap[OS_MAX_CPUS];
  uint64_t off[OS_MAX_CPUS];
  uint64_t irqs;
};

static void sink_dump(struct sink *s, int cpu)
{
  uint64_t ret[4];
  for (int tries = 0; tries < 100; tries++) {
    int rc = pal_trace(s->fw, TRACE_PAL_DUMP, cpu, s->pa, 8 * PHYS_PAGE, s->off[cpu], ret);
    if (rc == TRACE_PAL_BUSY) continue;
    if (rc < 0 || rc == TRACE_PAL_NO_DATA || !ret[0]) return;
    if (s->len[cpu] + ret[0] > s->cap[cpu]) {
      s->cap[cpu] = (s->len[cpu] + ret[0]) * 2;
      s->buf[cpu] = realloc(s->buf[cpu], s->cap[cpu]);
    }
    memcpy(s->buf[cpu] + s->len[cpu], phys_frame(s->fw->phys, s->pa / PHYS_PAGE), ret[0]);
    s->len[cpu] += ret[0];
    s->off[cpu] += ret[0];
    if (rc == TRACE_PAL_OK) return;
  }
}

static void sink_irq(void *ctx, int cpu)
{
  struct sink *s = ctx;
  s->irqs++;
  sink_dump(s, cpu);
}

static void test_program(const char *sysroot, const char *path, int ncpus, bool timed)
{
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
  char detail[256] = "";
  struct code code;
  if (code_load(&code, path)) { CHECK(0, "trace %s: reads its code", name); return; }
  /* The oracle: the bare OS with the executor's hook. */
  struct oracle *o = calloc(1, sizeof *o);
  struct os_opts oo = { .sysroot = sysroot, .seed = 1, .ncpus = ncpus };
  o->os = os_create(&oo);
  o->os->log = fopen("/dev/null", "w");
  struct ohook hooks[OS_MAX_CPUS];
  struct cpu_timing th[OS_MAX_CPUS];
  for (int i = 0; i < ncpus; i++) {
    hooks[i] = (struct ohook){ o, i };
    th[i] = (struct cpu_timing){ oracle_before, &hooks[i] };
    o->os->cpus[i].timing = &th[i];
  }
  int rc = os_spawn(o->os, path, 1, argv, envp, detail, sizeof detail);
  if (rc) { CHECK(0, "trace %s: spawn (%s)", name, detail); return; }
  os_run(o->os);
  uint64_t oracle_total = 0;
  for (int i = 0; i < ncpus; i++) { oracle_settle(o, i); oracle_total += o->os->cpus[i].icount; }

  /* The traced machine. */
  struct machine_opts mo = { .os = oo, .ncpus = ncpus, .timed = timed };
  struct machine *m = machine_create(&mo);
  machine_os(m)->log = fopen("/dev/null", "w");
  rc = machine_spawn(m, 1, argv, envp, detail, sizeof detail);
  struct sink s = { .m = m, .fw = machine_trace_fw(m) };
  uint64_t pfns[8];
  phys_alloc(s.fw->phys, 8, true, pfns);
  s.pa = pfns[0] * PHYS_PAGE;
  machine_set_trace_irq(m, sink_irq, &s);
  uint64_t ret[4];
  for (int i = 0; i < ncpus; i++) {
    pal_trace(s.fw, TRACE_PAL_SETUP, i, 0, TRACE_MEM_DEFAULT, 0, ret);
    pal_trace(s.fw, TRACE_PAL_START, i, 0, 0, 1, ret);
  }
  machine_run(m);
  uint64_t total = 0, traced = 0, bytes = 0, lost = 0;
  bool same = true;
  uint64_t first_diff = 0;
  for (int i = 0; i < ncpus; i++) {
    int st;
    for (st = 0; st < 10 && pal_trace(s.fw, TRACE_PAL_STOP, i, 0, 0, 0, ret) == TRACE_PAL_BUSY; st++) {}
    sink_dump(&s, i);
    total += machine_os(m)->cpus[i].icount;
    struct counts c = { 0 };
    struct dec d = { .code = &code, .counts = &c };
    bool ok = dec_run(&d, s.buf[i], s.len[i]);
    CHECK(ok && !d.errors, "trace %s cpu %d: the stream decodes against the code (%" PRIu64 " errors, first at %#" PRIx64 ")",
          name, i, d.errors, d.first_error_pc);
    CHECK(!d.time_backwards, "trace %s cpu %d: PSB timestamps never go back", name, i);
    traced += d.insns;
    bytes += s.len[i];
    lost += d.lost;
    for (size_t k = 0; k < o->c[i].cap && same; k++)
      if (o->c[i].pc[k] && counts_get(&c, o->c[i].pc[k]) != o->c[i].n[k]) { same = false; first_diff = o->c[i].pc[k]; }
    for (size_t k = 0; k < c.cap && same; k++)
      if (c.pc[k] && counts_get(&o->c[i], c.pc[k]) != c.n[k]) { same = false; first_diff = c.pc[k]; }
    counts_free(&c);
    free(s.buf[i]);
  }
  printf("trace %s (%d cpu%s, %s): %" PRIu64 " instructions, %" PRIu64 " trace bytes (%.3f bytes/insn), %" PRIu64 " interrupts\n",
         name, ncpus, ncpus > 1 ? "s" : "", timed ? "timed" : "functional", total, bytes,
         total ? (double)bytes / total : 0.0, s.irqs);
  CHECK_EQ_U64(lost, 0, "trace %s: no byte lost with the half-full interrupt", name);
  CHECK_EQ_U64(traced, total, "trace %s: the decoded flow has every retired instruction", name);
  CHECK_EQ_U64(total, oracle_total, "trace %s: the traced machine retired what the bare OS did", name);
  CHECK(same, "trace %s: per-PC counts of the decoded flow equal the executor's (first difference at %#" PRIx64 ")",
        name, first_diff);
  phys_free(s.fw->phys, 8, pfns);
  fclose(machine_os(m)->log);
  machine_os(m)->log = stderr;
  machine_destroy(m);
  for (int i = 0; i < ncpus; i++) counts_free(&o->c[i]);
  fclose(o->os->log);
  o->os->log = stderr;
  os_destroy(o->os);
  free(o);
  code_free(&code);
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    test_unit_packets();
    test_unit_busy();
    return check_done();
  }
  int ncpus = 1;
  bool timed = false;
  for (int i = 2; i < argc; i++) {
    if (!strncmp(argv[i], "--cpus=", 7)) ncpus = atoi(argv[i] + 7);
    else if (!strcmp(argv[i], "--timed")) timed = true;
    else if (!strcmp(argv[i], "--functional")) timed = false;
    else test_program(argv[1], argv[i], ncpus, timed);
  }
  return check_done();
}
