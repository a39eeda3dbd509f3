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
#include "kernel/perf_aux.h"
#include "kernel/trace_pmu.h"
#include <errno.h>
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
    if (!d->code) { d->insns += n; return; }   /* packets only: count what they say */
    if (!code_word(d->code, d->pc, &w)) { dec_error(d); return; }
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
      rd_le(p, len, &at, 4, &ok);   /* pid */
      rd_le(p, len, &at, 4, &ok);   /* tid */
      rd_le(p, len, &at, 1, &ok);   /* mode */
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


/* ---- the AUX area and the trace driver (Linux's ring_buffer.c, the seed) ---- */

#define RAM_FRAMES 4096
#define GUARD 0xA5

static uint64_t zero_clock(void *ctx) { (void)ctx; return 0; }

struct rig {
  struct physmem *ph;
  struct perf_ctx *ctx;
  struct trace_fw fw;
  struct trace_unit unit;
  struct fake f;
  struct trace_pmu *drv;
  struct perf_event *e;
  struct perf_event_mmap_page *up;
  uint8_t *aux;
  size_t aux_pages;
  uint64_t pc;                 /* the synthetic program's next pc */
  uint64_t steps;              /* instructions fed */
  uint64_t consumed;           /* the tool's aux_tail */
  uint8_t *stream;             /* what the tool copied out of the AUX area, in record order */
  size_t len, cap;
  uint64_t rec_flags_or, rec_truncated, rec_collision, rec_partial, rec_overwrite, records, itrace_start;
};

/* Builds RAM (fragmented as asked), the perf core with the trace driver and
 * one CPU-wide trace event with a ring of 2 pages and an AUX area of
 * aux_pages; guard bytes everywhere else. Returns 0 or the mmap error. */
static int rig_open(struct rig *r, enum phys_frag frag, size_t aux_pages, uint32_t watermark, bool writable)
{
  memset(r, 0, sizeof *r);
  r->ph = phys_create((uint64_t)RAM_FRAMES * PHYS_PAGE);
  if (frag != PHYS_FRAG_NONE) phys_fragment(r->ph, frag, 7);
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true, .ncpus = 1 };
  r->ctx = perf_ctx_create(&sys, r->ph, zero_clock, NULL);
  trace_unit_init(&r->unit, &r->f.icount, fake_now, &r->f, 3);
  r->fw = (struct trace_fw){ .units = { &r->unit }, .nunits = 1, .phys = r->ph, .phys_bytes = (uint64_t)RAM_FRAMES * PHYS_PAGE };
  r->drv = trace_pmu_create(r->ctx, &r->fw);
  for (uint64_t f = 0; f < RAM_FRAMES; f++) memset(phys_frame(r->ph, f), GUARD, PHYS_PAGE);
  struct perf_event_attr a = { .size = sizeof a, .type = TRACE_PMU_TYPE, .disabled = 1, .exclude_kernel = 1,
                               .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU, .sample_id_all = 1,
                               .aux_watermark = watermark };
  int err = perf_event_open(r->ctx, &a, -1, 0, NULL, &r->e);
  if (err) return err;
  if ((err = perf_event_mmap(r->e, 2, PHYS_PAGE))) return err;
  r->up = perf_event_user_page(r->e);
  r->up->aux_offset = 3 * PHYS_PAGE;
  r->up->aux_size = aux_pages * PHYS_PAGE;
  r->aux_pages = aux_pages;
  void *addr = NULL;
  err = perf_aux_mmap(r->e, 3 * PHYS_PAGE, aux_pages * PHYS_PAGE, writable, &addr);
  r->aux = addr;
  r->pc = 0x10000;
  return err;
}

static void rig_close(struct rig *r)
{
  if (r->ctx) perf_ctx_destroy(r->ctx);
  trace_pmu_destroy(r->drv);
  trace_unit_fini(&r->unit);
  phys_destroy(r->ph);
  free(r->stream);
}

/* The executor returns: every instruction it fed so far retired (the
 * CPU's count, traced or not; the unit is told it only now, as by the
 * machine at the end of an executor run). */
static void rig_retire(struct rig *r) { r->f.icount = r->steps; }

/* n instructions of a loop: 5 adds and a taken br back, one run of the
 * executor (all retire); the unit's interrupt goes to the driver. */
static void rig_run(struct rig *r, uint64_t n)
{
  static struct axp_insn add, br;
  add = mk(W_ADDQ);
  br = mk(0xc3fffffau);   /* br -6 insns: back to the loop's first add */
  for (uint64_t i = 0; i < n; i++) {
    if (trace_unit_irq(&r->unit)) { rig_retire(r); trace_pmu_irq(r->drv, 0); }
    bool last = (r->pc & 0x1F) == 0x14;
    struct uarch_insn ui = { .pc = r->pc, .d = last ? &br : &add, .next_pc = last ? r->pc - 20 : r->pc + 4, .taken = last };
    r->f.cycle += 1;
    if (r->unit.on) trace_unit_step(&r->unit, &ui, r->f.cycle, 1, 1);
    r->pc = ui.next_pc;
    r->steps++;
  }
  rig_retire(r);   /* the run ends: all retired */
}

/* The tool: reads the ring's records; copies each AUX record's bytes out of
 * the AUX area and gives them back (aux_tail) unless `hold`. */
static void rig_consume(struct rig *r, bool hold)
{
  uint64_t size;
  const uint8_t *data = perf_event_data(r->e, &size);
  uint64_t head = r->up->data_head, tail = r->up->data_tail;
  while (tail < head) {
    struct perf_event_header h;
    uint8_t rec[256];
    for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) & (size - 1)];
    for (size_t i = 0; i < h.size && i < sizeof rec; i++) rec[i] = data[(tail + i) & (size - 1)];
    tail += h.size;
    if (h.type == PERF_RECORD_ITRACE_START) r->itrace_start++;
    if (h.type != PERF_RECORD_AUX) continue;
    uint64_t v[3];
    memcpy(v, rec + 8, sizeof v);
    r->records++;
    r->rec_flags_or |= v[2];
    if (v[2] & PERF_AUX_FLAG_TRUNCATED) r->rec_truncated++;
    if (v[2] & PERF_AUX_FLAG_COLLISION) r->rec_collision++;
    if (v[2] & PERF_AUX_FLAG_PARTIAL) r->rec_partial++;
    if (v[2] & PERF_AUX_FLAG_OVERWRITE) { r->rec_overwrite++; continue; }
    if (r->len + v[1] > r->cap) { r->cap = (r->len + v[1]) * 2; r->stream = realloc(r->stream, r->cap); }
    uint64_t asz = r->aux_pages * PHYS_PAGE;
    for (uint64_t i = 0; i < v[1]; i++) r->stream[r->len++] = r->aux[(v[0] + i) & (asz - 1)];
  }
  r->up->data_tail = tail;
  if (!hold) r->up->aux_tail = r->up->aux_head;
}

/* Every frame outside the AUX area and the ring still holds the guard. */
static bool rig_guards_intact(struct rig *r, uint64_t *bad)
{
  struct perf_aux *a = perf_event_aux(r->e);
  for (uint64_t f = 0; f < RAM_FRAMES; f++) {
    bool mine = false;
    for (size_t i = 0; i < a->nr_pages && !mine; i++) mine = a->pfns[i] == f;
    for (size_t i = 0; i < r->e->rb->nframes && !mine; i++) mine = r->e->rb->pfns[i] == f;
    if (mine) continue;
    const uint8_t *p = phys_frame(r->ph, f);
    for (size_t k = 0; k < PHYS_PAGE; k++) if (p[k] != GUARD) { *bad = f; return false; }
  }
  return true;
}

static uint64_t rig_read_count(struct rig *r, long *rc)
{
  uint64_t v = 0;
  *rc = perf_event_read(r->e, &v, sizeof v);
  return v;
}

static void test_aux_alloc(void)
{
  struct rig r;
  CHECK_EQ_U64(rig_open(&r, PHYS_FRAG_NONE, 64, 0, true), 0, "aux: mmap of 64 AUX pages");
  struct perf_aux *a = perf_event_aux(r.e);
  /* Default watermark: half the buffer, so blocks of order 5 (32 pages). */
  CHECK(a && a->nblocks == 2 && a->blocks[0].order == 5 && a->blocks[1].order == 5,
        "aux: rb_alloc_aux with NO_SG|PREFER_LARGE takes blocks of get_order(watermark) (%zu blocks, order %u)",
        a ? a->nblocks : 0, a && a->nblocks ? a->blocks[0].order : 0);
  CHECK(a && a->watermark == 32 * PHYS_PAGE, "aux: the watermark defaults to half the buffer");
  void *addr;
  CHECK_EQ_U64(perf_aux_mmap(r.e, 3 * PHYS_PAGE, 32 * PHYS_PAGE, true, &addr), (uint64_t)-EINVAL, "aux: a second mapping of another size is refused");
  r.up->aux_offset = PHYS_PAGE;
  CHECK_EQ_U64(perf_aux_mmap(r.e, PHYS_PAGE, 64 * PHYS_PAGE, true, &addr), (uint64_t)-EINVAL, "aux: aux_offset inside the data area is refused");
  rig_close(&r);
  CHECK_EQ_U64(rig_open(&r, PHYS_FRAG_NONE, 64, PHYS_PAGE, true), 0, "aux: mmap with aux_watermark one page");
  a = perf_event_aux(r.e);
  CHECK(a && a->nblocks == 64 && a->blocks[0].order == 0, "aux: a one-page watermark gives order-0 blocks");
  rig_close(&r);
  CHECK_EQ_U64(rig_open(&r, PHYS_FRAG_NONE, 64, 0, false), 0, "aux: read-only mmap (snapshot mode)");
  a = perf_event_aux(r.e);
  CHECK(a && a->overwrite && a->nblocks == 1 && a->blocks[0].order == 6, "aux: overwrite mode with NO_SG is one block of ilog2(pages)");
  rig_close(&r);
  CHECK_EQ_U64(rig_open(&r, PHYS_FRAG_EVERY_OTHER, 64, 0, false), (uint64_t)-ENOMEM,
               "aux: overwrite mode with NO_SG fails without one contiguous block (every other frame taken)");
  rig_close(&r);
  CHECK_EQ_U64(rig_open(&r, PHYS_FRAG_NONE, 48, 0, true), (uint64_t)-EINVAL, "aux: 48 pages (not a power of two) are refused");
  rig_close(&r);
  /* A PMU without setup_aux: the software PMU. */
  struct physmem *ph = phys_create(256 * PHYS_PAGE);
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true, .ncpus = 1 };
  struct perf_ctx *c = perf_ctx_create(&sys, ph, zero_clock, NULL);
  perf_pmu_register(c, perf_sw_pmu());
  struct perf_event_attr at = { .size = sizeof at, .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, .disabled = 1 };
  struct perf_event *e;
  perf_event_open(c, &at, -1, 0, NULL, &e);
  perf_event_mmap(e, 2, PHYS_PAGE);
  perf_event_user_page(e)->aux_offset = 3 * PHYS_PAGE;
  perf_event_user_page(e)->aux_size = 4 * PHYS_PAGE;
  CHECK_EQ_U64(perf_aux_mmap(e, 3 * PHYS_PAGE, 4 * PHYS_PAGE, true, &addr), (uint64_t)-EOPNOTSUPP, "aux: a PMU without setup_aux has no AUX area");
  perf_ctx_destroy(c);
  phys_destroy(ph);
}

/* Traces, dumps and drains with memory fragmented on purpose: no dump may
 * write outside the AUX area, and the tool gets the whole stream. */
static void test_aux_fragmented(enum phys_frag frag, const char *what)
{
  struct rig r;
  int err = rig_open(&r, frag, 32, 0, true);
  CHECK_EQ_U64(err, 0, "aux %s: mmap of 32 AUX pages", what);
  if (err) { rig_close(&r); return; }
  perf_event_enable(r.e);
  for (int round = 0; round < 20; round++) {
    rig_run(&r, 30000);
    rig_consume(&r, false);
  }
  /* The program's end finds the AUX area full: the stop cannot dump all,
   * the tool's drain must. */
  const struct trace_pmu_stats *st0 = trace_pmu_stats(r.drv);
  uint64_t full0 = st0->aux_full;
  for (int k = 0; k < 1000 && st0->aux_full == full0; k++) {
    rig_run(&r, 2000);
    rig_consume(&r, true);
  }
  perf_event_disable(r.e);
  long rc;
  uint64_t count = 1;
  int reads = 0;
  for (; reads < 100 && count; reads++) {
    count = rig_read_count(&r, &rc);
    rig_consume(&r, false);
  }
  struct perf_aux *a = perf_event_aux(r.e);
  size_t runs = 0;
  for (size_t i = 0; i < a->nr_pages; i++) runs += !i || a->pfns[i] != a->pfns[i - 1] + 1;
  const struct trace_pmu_stats *st = trace_pmu_stats(r.drv);
  uint64_t bad = 0;
  CHECK(rig_guards_intact(&r, &bad), "aux %s: no frame outside the AUX area and the ring was written (first at %" PRIu64 ")", what, bad);
  CHECK(frag == PHYS_FRAG_NONE || (runs > 16 && st->gap_bounded > 0),
        "aux %s: the buffer is in %zu pieces and %" PRIu64 " dumps ended at a gap", what, runs, st->gap_bounded);
  CHECK(count == 0 && reads > 1, "aux %s: the drain reads until the count is 0 (%d reads)", what, reads);
  struct dec d = { 0 };
  bool ok = dec_run(&d, r.stream, r.len);
  uint64_t pads = d.packets[TRACE_PAD];
  CHECK(ok && !d.errors, "aux %s: the stream from the AUX records parses", what);
  CHECK_EQ_U64(r.len - pads, r.unit.stats.bytes, "aux %s: every byte the unit wrote reached the tool (PAD aside)", what);
  CHECK_EQ_U64(d.insns, r.steps, "aux %s: the packets account for every instruction", what);
  CHECK(r.itrace_start == 1, "aux %s: one PERF_RECORD_ITRACE_START", what);
  CHECK(!d.lost && !r.unit.stats.lost_bytes, "aux %s: a consumer that keeps up loses nothing (a full buffer at the end only cuts records: %" PRIu64 " TRUNCATED)", what, r.rec_truncated);
  rig_close(&r);
}

/* A full AUX buffer: data is lost only with TRUNCATED set and counted. */
static void test_aux_full(void)
{
  struct rig r;
  rig_open(&r, PHYS_FRAG_NONE, 4, 0, true);
  perf_event_enable(r.e);
  rig_run(&r, 400000);              /* about 4 x what 4 AUX pages and 64 KB of unit hold */
  rig_consume(&r, true);            /* the tool looks but gives nothing back */
  const struct trace_pmu_stats *st = trace_pmu_stats(r.drv);
  CHECK(st->aux_full > 0, "aux full: dumps found no space (%" PRIu64 ")", st->aux_full);
  CHECK(r.rec_truncated > 0, "aux full: a record that filled the buffer has TRUNCATED (%" PRIu64 " of %" PRIu64 ")",
        r.rec_truncated, r.records);
  rig_consume(&r, false);
  perf_event_disable(r.e);
  long rc;
  for (int i = 0; i < 100 && rig_read_count(&r, &rc); i++) rig_consume(&r, false);
  rig_consume(&r, false);
  struct dec d = { 0 };
  dec_run(&d, r.stream, r.len);
  CHECK(d.lost > 0 && d.lost == r.unit.stats.lost_bytes && st->lost_bytes == d.lost,
        "aux full: the loss is counted: OVF %" PRIu64 " = unit %" PRIu64 " = driver %" PRIu64 " bytes",
        d.lost, r.unit.stats.lost_bytes, st->lost_bytes);
  CHECK_EQ_U64(r.len - d.packets[TRACE_PAD] + d.lost, r.unit.stats.bytes + r.unit.stats.lost_bytes,
               "aux full: bytes received plus bytes lost are every byte the unit made");
  rig_close(&r);
}

/* Busy answers: retried, then reported; a stop that stays busy: -EAGAIN. */
static void test_aux_busy(void)
{
  struct rig r;
  rig_open(&r, PHYS_FRAG_NONE, 16, 0, true);
  perf_event_enable(r.e);
  rig_run(&r, 20000);
  const struct trace_pmu_stats *st = trace_pmu_stats(r.drv);
  uint64_t retries = st->busy_retries, dumps = st->dumps;
  r.unit.busy_inject = 3;
  long rc;
  rig_read_count(&r, &rc);
  CHECK(st->busy_retries == retries + 3 && st->dumps > dumps && !st->busy_reported,
        "aux busy: 3 busy answers are retried and the dump goes through");
  r.unit.busy_inject = 1000;
  rig_run(&r, 100);
  rig_read_count(&r, &rc);
  rig_consume(&r, false);
  CHECK(st->busy_reported > 0 && r.rec_collision > 0, "aux busy: a firmware busy past %d retries is reported (COLLISION record)",
        TRACE_PMU_BUSY_RETRIES);
  r.unit.busy_inject = 0;
  r.unit.stop_stuck = true;
  perf_event_disable(r.e);
  uint64_t v;
  CHECK_EQ_U64(perf_event_read(r.e, &v, sizeof v), (uint64_t)-EAGAIN, "aux busy: read of a trace that cannot be stopped gives -EAGAIN");
  r.unit.stop_stuck = false;
  uint64_t count = 1;
  for (int i = 0; i < 100 && count; i++) {
    rc = 0;
    count = rig_read_count(&r, &rc);
    rig_consume(&r, false);
    if (rc < 0) break;
  }
  CHECK(rc == 8 && count == 0, "aux busy: once it stops, the drain ends with count 0");
  struct dec d = { 0 };
  CHECK(dec_run(&d, r.stream, r.len) && d.insns == r.steps && !d.lost, "aux busy: nothing was lost to the busy answers");
  rig_close(&r);
}

/* Snapshot mode: the AUX area is overwritten round and round. */
static void test_aux_snapshot(void)
{
  struct rig r;
  rig_open(&r, PHYS_FRAG_NONE, 8, 0, false);
  perf_event_enable(r.e);
  rig_run(&r, 300000);
  rig_consume(&r, true);
  struct perf_aux *a = perf_event_aux(r.e);
  CHECK(r.up->aux_head > a->size && r.rec_overwrite > 0 && !r.rec_truncated,
        "aux snapshot: the head wraps (%" PRIu64 " > %" PRIu64 "), records say OVERWRITE, never TRUNCATED",
        (uint64_t)r.up->aux_head, a->size);
  /* The last aux_size bytes before the head decode from their first PSB. */
  uint64_t head = r.up->aux_head, asz = a->size;
  uint8_t *snap = malloc(asz);
  for (uint64_t i = 0; i < asz; i++) snap[i] = r.aux[(head + i) & (asz - 1)];
  size_t at = 0;
  while (at < asz && snap[at] != TRACE_PSB) at++;
  struct dec d = { 0 };
  CHECK(at < asz && dec_run(&d, snap + at, asz - at), "aux snapshot: the snapshot parses from a PSB");
  free(snap);
  rig_close(&r);
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

/* The tool's side through the machine's perf system calls, as `record -e
 * trace//` does: a task event (inherited), its ring and AUX area mapped; at
 * every poll the AUX records are read and their bytes appended to the
 * stream of the record's CPU (sample_id), and aux_tail given back. */
struct tool {
  struct machine *m;
  int fd;
  struct perf_event_mmap_page *up;
  uint8_t *aux;
  uint64_t aux_size;
  uint8_t *buf[OS_MAX_CPUS];
  size_t len[OS_MAX_CPUS], cap[OS_MAX_CPUS];
  uint64_t records, truncated, collision, itrace_start;
};

static void tool_poll(void *ctx)
{
  struct tool *t = ctx;
  const uint8_t *data = (const uint8_t *)t->up + t->up->data_offset;
  uint64_t size = t->up->data_size, head = __atomic_load_n(&t->up->data_head, __ATOMIC_ACQUIRE), tail = t->up->data_tail;
  while (tail < head) {
    uint8_t rec[256];
    struct perf_event_header h;
    for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) & (size - 1)];
    for (size_t i = 0; i < h.size && i < sizeof rec; i++) rec[i] = data[(tail + i) & (size - 1)];
    tail += h.size;
    if (h.type == PERF_RECORD_ITRACE_START) t->itrace_start++;
    if (h.type != PERF_RECORD_AUX) continue;
    uint64_t v[3];
    uint32_t cpu;
    memcpy(v, rec + 8, sizeof v);
    memcpy(&cpu, rec + 8 + 24 + 8, 4);   /* sample_id: pid, tid, then cpu */
    t->records++;
    if (v[2] & PERF_AUX_FLAG_TRUNCATED) t->truncated++;
    if (v[2] & PERF_AUX_FLAG_COLLISION) t->collision++;
    if (cpu >= OS_MAX_CPUS) continue;
    if (t->len[cpu] + v[1] > t->cap[cpu]) {
      t->cap[cpu] = (t->len[cpu] + v[1]) * 2;
      t->buf[cpu] = realloc(t->buf[cpu], t->cap[cpu]);
    }
    for (uint64_t i = 0; i < v[1]; i++) t->buf[cpu][t->len[cpu]++] = t->aux[(v[0] + i) & (t->aux_size - 1)];
  }
  __atomic_store_n(&t->up->data_tail, tail, __ATOMIC_RELEASE);
  __atomic_store_n(&t->up->aux_tail, __atomic_load_n(&t->up->aux_head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
}

static int tool_open(struct tool *t, struct machine *m, int pid)
{
  memset(t, 0, sizeof *t);
  t->m = m;
  struct perf_event_attr a = { .size = sizeof a, .type = TRACE_PMU_TYPE, .exclude_kernel = 1, .inherit = 1,
                               .sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU, .sample_id_all = 1 };
  t->fd = machine_perf_open(m, &a, pid, -1, -1, 0);
  if (t->fd < 0) return t->fd;
  void *addr;
  int err = machine_perf_mmap(m, t->fd, 9 * PHYS_PAGE, &addr);
  if (err) return err;
  t->up = addr;
  t->aux_size = 128 * PHYS_PAGE;   /* 1 MB: a timed run polls only at ticks (651k cycles) */
  t->up->aux_offset = 9 * PHYS_PAGE;
  t->up->aux_size = t->aux_size;
  if ((err = machine_perf_mmap_aux(m, t->fd, 9 * PHYS_PAGE, t->aux_size, true, &addr))) return err;
  t->aux = addr;
  machine_set_poll(m, tool_poll, t);
  return 0;
}

/* After the program: read the event until its count is 0 (the seed's drain). */
static int tool_drain(struct tool *t)
{
  uint64_t v = 1;
  int reads = 0;
  for (; reads < 10000 && v; reads++) {
    if (machine_perf_read(t->m, t->fd, &v, sizeof v) != 8) return -1;
    tool_poll(t);
  }
  return reads;
}

static void test_program(const char *sysroot, const char *path, int ncpus, bool timed, bool via_perf)
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
    th[i] = (struct cpu_timing){ .before = oracle_before, .ctx = &hooks[i] };
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
  uint64_t ret[4];
  struct tool tl;
  if (via_perf) {
    int err = tool_open(&tl, m, machine_init_pid(m));
    CHECK_EQ_U64(err, 0, "trace %s: perf_event_open, mmap and AUX mmap of trace//", name);
  } else {
    phys_alloc(s.fw->phys, 8, true, pfns);
    s.pa = pfns[0] * PHYS_PAGE;
    machine_set_trace_irq(m, sink_irq, &s);
    for (int i = 0; i < ncpus; i++) {
      pal_trace(s.fw, TRACE_PAL_SETUP, i, 0, TRACE_MEM_DEFAULT, 0, ret);
      pal_trace(s.fw, TRACE_PAL_START, i, 0, 0, 1, ret);
    }
  }
  machine_run(m);
  if (via_perf) {
    int reads = tool_drain(&tl);
    CHECK(reads > 0 && tl.itrace_start >= 1, "trace %s: the drain ends with count 0 after %d reads; ITRACE_START seen", name, reads);
    CHECK_EQ_U64(tl.truncated + tl.collision, 0, "trace %s: no AUX record truncated or busy", name);
    for (int i = 0; i < ncpus; i++) { s.buf[i] = tl.buf[i]; s.len[i] = tl.len[i]; }
  }
  uint64_t total = 0, traced = 0, bytes = 0, lost = 0;
  bool same = true;
  uint64_t first_diff = 0;
  for (int i = 0; i < ncpus; i++) {
    if (!via_perf) {
      int st;
      for (st = 0; st < 10 && pal_trace(s.fw, TRACE_PAL_STOP, i, 0, 0, 0, ret) == TRACE_PAL_BUSY; st++) {}
      sink_dump(&s, i);
    }
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
  printf("trace %s (%d cpu%s, %s%s): %" PRIu64 " instructions, %" PRIu64 " trace bytes (%.3f bytes/insn), %" PRIu64 " interrupts\n",
         name, ncpus, ncpus > 1 ? "s" : "", timed ? "timed" : "functional", via_perf ? ", perf AUX" : "", total, bytes,
         total ? (double)bytes / total : 0.0, s.irqs);
  CHECK_EQ_U64(lost, 0, "trace %s: no byte lost with the half-full interrupt", name);
  CHECK_EQ_U64(traced, total, "trace %s: the decoded flow has every retired instruction", name);
  CHECK_EQ_U64(total, oracle_total, "trace %s: the traced machine retired what the bare OS did", name);
  CHECK(same, "trace %s: per-PC counts of the decoded flow equal the executor's (first difference at %#" PRIx64 ")",
        name, first_diff);
  if (!via_perf) phys_free(s.fw->phys, 8, pfns);
  else machine_perf_close(m, tl.fd);
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
    test_aux_alloc();
    test_aux_fragmented(PHYS_FRAG_NONE, "contiguous");
    test_aux_fragmented(PHYS_FRAG_EVERY_OTHER, "every other frame taken");
    test_aux_fragmented(PHYS_FRAG_ISLANDS, "single-frame islands");
    test_aux_fragmented(PHYS_FRAG_NO_CONTIG, "no contiguity");
    test_aux_full();
    test_aux_busy();
    test_aux_snapshot();
    return check_done();
  }
  int ncpus = 1;
  bool timed = false, via_perf = false;
  for (int i = 2; i < argc; i++) {
    if (!strncmp(argv[i], "--cpus=", 7)) ncpus = atoi(argv[i] + 7);
    else if (!strcmp(argv[i], "--timed")) timed = true;
    else if (!strcmp(argv[i], "--functional")) timed = false;
    else if (!strcmp(argv[i], "--perf")) via_perf = true;
    else if (!strcmp(argv[i], "--firmware")) via_perf = false;
    else test_program(argv[1], argv[i], ncpus, timed, via_perf);
  }
  return check_done();
}
