/* The trace decoder (tools/itrace.c) on hand-made packet streams over a
 * small hand-assembled program: every packet kind parses and its truncations
 * ask for more bytes; the flow through a loop, a call, a return and a system
 * call comes out as the code says, whatever the split into pieces; and each
 * kind of bad stream (truncated packet, bad header, a TAKEN ending on no
 * branch, an unconditional branch inside a run, a TIP on no jump, a huge n,
 * no code, a gap, an overflow) is an error naming the offset and the pc,
 * after which decoding resumes at the next PSB.
 *
 * With `SYSROOT PROG...`: each static program runs traced on the machine
 * (the trace unit's firmware driven directly, as tests/unit/test_trace.c
 * does, no perf), and this decoder must decode every CPU's stream against
 * the program's code without an error and find exactly the instructions
 * the CPUs retired. With `-o DIR` the streams are also written there (fuzz
 * seeds). */
#include "check.h"
#include "guest/os.h"
#include "guest/phys.h"
#include "isa/isa.h"
#include "machine/machine.h"
#include "pmu/trace_unit.h"
#include "analysis/itrace.h"
#include "analysis/itrace_session.h"
#include "uapi/pm_truth.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BASE 0x120001000ull
#define PID 100

/* The program (word index: instruction):
 *  0 addq   1 beq r1,+2 (-> 4)   2 addq   3 br -> 0
 *  4 bsr -> 8   5 callsys   6 addq   7 addq
 *  8 addq   9 ret   10 addq (not a branch)   11 jmp */
static uint32_t br_fmt(unsigned op, unsigned ra, int disp) { return op << 26 | ra << 21 | ((uint32_t)disp & 0x1fffff); }
static const uint32_t ADDQ = 0x10u << 26 | 1u << 21 | 2u << 16 | 0x20u << 5 | 3u;
static uint32_t code[12];

static void build_code(void)
{
  code[0] = ADDQ; code[1] = br_fmt(0x39, 1, 2); code[2] = ADDQ; code[3] = br_fmt(0x30, 31, -4);
  code[4] = br_fmt(0x34, 26, 3); code[5] = 0x00000083; code[6] = ADDQ; code[7] = ADDQ;
  code[8] = ADDQ; code[9] = 0x1Au << 26 | 31u << 21 | 26u << 16 | 2u << 14 | 1u; code[10] = ADDQ;
  code[11] = 0x1Au << 26 | 31u << 21 | 27u << 16;
}

static uint64_t at(int i) { return BASE + 4 * (uint64_t)i; }

static size_t read_code(void *ctx, uint32_t pid, uint8_t mode, uint64_t pc, uint32_t *w, size_t max)
{
  (void)ctx; (void)mode;
  if (pid != PID || pc < BASE || pc >= at(12) || pc % 4) return 0;
  size_t i = (size_t)(pc - BASE) / 4, n = 0;
  for (; n < max && i + n < 12; n++) w[n] = code[i + n];
  return n;
}

/* ---- stream builder ---- */
struct buf { uint8_t b[1 << 16]; size_t n; };
static void put(struct buf *s, uint64_t v, int bytes) { for (int i = 0; i < bytes; i++) s->b[s->n++] = (uint8_t)(v >> 8 * i); }
static void uleb(struct buf *s, uint64_t v) { do { uint8_t c = v & 0x7f; v >>= 7; s->b[s->n++] = c | (v ? 0x80 : 0); } while (v); }
static void psb(struct buf *s, uint64_t pc, uint64_t cyc, uint32_t pid, uint32_t tid, uint8_t mode)
{ put(s, ITRACE_PSB, 1); put(s, pc, 8); put(s, cyc, 8); put(s, pid, 4); put(s, tid, 4); put(s, mode, 1); }
static void taken(struct buf *s, uint64_t n, uint64_t dc) { put(s, ITRACE_TAKEN, 1); uleb(s, n); uleb(s, dc); }
static void stop(struct buf *s, uint64_t n, uint64_t dc) { put(s, ITRACE_STOP, 1); uleb(s, n); uleb(s, dc); }
static void tip(struct buf *s, uint64_t n, uint64_t dc, uint64_t t) { put(s, ITRACE_TIP, 1); uleb(s, n); uleb(s, dc); put(s, t, 8); }
static void async(struct buf *s, uint64_t n, uint64_t dc, uint8_t k, uint64_t r)
{ put(s, ITRACE_ASYNC, 1); uleb(s, n); uleb(s, dc); put(s, k, 1); put(s, r, 8); }
static void pidp(struct buf *s, uint32_t pid, uint32_t tid) { put(s, ITRACE_PID, 1); put(s, pid, 4); put(s, tid, 4); }
static void ovf(struct buf *s, uint64_t cyc, uint64_t lost) { put(s, ITRACE_OVF, 1); put(s, cyc, 8); put(s, lost, 8); }

/* ---- a decoding run: blocks, errors, per-instruction counts ---- */
struct run {
  struct itrace_block blk[4096];
  size_t nblk;
  struct itrace_error err[64];
  size_t nerr;
  uint64_t count[12];
};
static int on_block(void *ctx, const struct itrace_block *b)
{
  struct run *r = ctx;
  if (r->nblk < 4096) r->blk[r->nblk++] = *b;
  for (uint64_t i = 0; i < b->n; i++) r->count[(b->start - BASE) / 4 + i]++;
  return 0;
}
static void on_error(void *ctx, const struct itrace_error *e)
{
  struct run *r = ctx;
  if (r->nerr < 64) r->err[r->nerr++] = *e;
}

/* Decodes s in pieces of `piece` bytes (0: whole). */
static struct itrace_stats decode(const struct buf *s, size_t piece, struct run *r)
{
  memset(r, 0, sizeof *r);
  struct itrace_ops ops = { .read_code = read_code, .block = on_block, .error = on_error };
  struct itrace_decoder *d = itrace_decoder_create(&ops, r);
  if (!piece) piece = s->n ? s->n : 1;
  for (size_t i = 0; i < s->n; i += piece) itrace_decode(d, s->b + i, s->n - i < piece ? s->n - i : piece);
  itrace_finish(d);
  struct itrace_stats st = *itrace_stats(d);
  itrace_decoder_destroy(d);
  return st;
}

static void test_packets(void)
{
  struct buf s = { .n = 0 };
  size_t start[10], k = 0;
  start[k++] = s.n; put(&s, ITRACE_PAD, 1);
  start[k++] = s.n; psb(&s, at(0), 123456789, PID, PID + 1, 0);
  start[k++] = s.n; taken(&s, 300, 70000);
  start[k++] = s.n; tip(&s, 2, 5, at(5));
  start[k++] = s.n; async(&s, 1, 9, ITRACE_A_SYSCALL, at(6));
  start[k++] = s.n; pidp(&s, 7, 8);
  start[k++] = s.n; put(&s, ITRACE_MODE, 1); put(&s, 2, 1);
  start[k++] = s.n; ovf(&s, 42, 4096);
  start[k++] = s.n; stop(&s, UINT64_MAX, 1);
  start[k] = s.n;
  static const uint8_t types[] = { ITRACE_PAD, ITRACE_PSB, ITRACE_TAKEN, ITRACE_TIP, ITRACE_ASYNC,
                                   ITRACE_PID, ITRACE_MODE, ITRACE_OVF, ITRACE_STOP };
  for (size_t i = 0; i < k; i++) {
    struct itrace_packet p;
    const char *why = "";
    size_t len = start[i + 1] - start[i];
    int n = itrace_pkt_parse(s.b + start[i], len, &p, &why);
    CHECK(n == (int)len && p.type == types[i], "itrace: %s packet parses to its %zu bytes", itrace_pkt_name(types[i]), len);
    bool cut_ok = true;
    for (size_t cut = 0; cut < len; cut++)
      if (itrace_pkt_parse(s.b + start[i], cut, &p, &why) != 0) cut_ok = false;
    CHECK(cut_ok, "itrace: %s packet cut anywhere asks for more bytes", itrace_pkt_name(types[i]));
  }
  struct itrace_packet p;
  const char *why = "";
  itrace_pkt_parse(s.b + start[1], 26, &p, &why);
  CHECK(p.pc == at(0) && p.cycle == 123456789 && p.pid == PID && p.tid == PID + 1, "itrace: PSB fields");
  itrace_pkt_parse(s.b + start[2], 10, &p, &why);
  CHECK(p.n == 300 && p.dcyc == 70000, "itrace: TAKEN's ulebs");
  itrace_pkt_parse(s.b + start[8], 20, &p, &why);
  CHECK(p.n == UINT64_MAX, "itrace: a 10-byte uleb holds 2^64-1");
  itrace_pkt_parse(s.b + start[7], 17, &p, &why);
  CHECK(p.cycle == 42 && p.lost == 4096, "itrace: OVF fields");
  uint8_t bad[] = { 0x09 }, badmode[] = { ITRACE_MODE, 3 }, badkind[] = { ITRACE_ASYNC, 1, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0 };
  uint8_t longuleb[] = { ITRACE_TAKEN, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0 };
  CHECK(itrace_pkt_parse(bad, 1, &p, &why) == -1, "itrace: header 0x09 is no packet (%s)", why);
  CHECK(itrace_pkt_parse(badmode, 2, &p, &why) == -1, "itrace: MODE 3 is refused (%s)", why);
  CHECK(itrace_pkt_parse(badkind, sizeof badkind, &p, &why) == -1, "itrace: ASYNC kind 9 is refused (%s)", why);
  CHECK(itrace_pkt_parse(longuleb, sizeof longuleb, &p, &why) == -1, "itrace: a uleb over 64 bits is refused (%s)", why);
}

/* The flow through everything the program has, in one stream. */
static void flow_stream(struct buf *s)
{
  psb(s, at(0), 1000, PID, PID, 0);
  taken(s, 2, 10);                              /* addq, beq taken -> 4 */
  taken(s, 1, 3);                               /* bsr -> 8 */
  tip(s, 2, 4, at(5));                          /* addq, ret -> 5 */
  async(s, 1, 2, ITRACE_A_SYSCALL, at(6));      /* callsys */
  pidp(s, PID, PID + 5);                        /* another thread of the process */
  stop(s, 2, 7);                                /* addq addq */
}

static void test_flow(void)
{
  struct buf s = { .n = 0 };
  flow_stream(&s);
  struct run *r = malloc(sizeof *r);
  struct itrace_stats st = decode(&s, 0, r);
  CHECK(r->nblk == 5 && r->nerr == 0, "itrace: the flow stream gives 5 blocks, no error (%zu, %zu)", r->nblk, r->nerr);
  const struct itrace_block *b = r->blk;
  CHECK(b[0].start == at(0) && b[0].n == 2 && b[0].to == at(4) && (b[0].flags & ITRACE_F_COND) && b[0].cycle == 1010,
        "itrace: beq taken: target from the code, cycle 1000+10");
  CHECK(b[1].start == at(4) && b[1].to == at(8) && (b[1].flags & ITRACE_F_CALL), "itrace: bsr is a call to its target");
  CHECK(b[2].start == at(8) && b[2].to == at(5) && (b[2].flags & ITRACE_F_RETURN) && b[2].end == ITRACE_END_TIP,
        "itrace: ret is a return to the TIP target");
  CHECK(b[3].end == ITRACE_END_ASYNC && (b[3].flags & ITRACE_F_SYSCALL) && b[3].to == at(6) && b[3].async == 1,
        "itrace: callsys ends an ASYNC syscall block resuming after it");
  CHECK(b[4].end == ITRACE_END_STOP && b[4].start == at(6) && b[4].n == 2 && b[4].tid == PID + 5 && b[4].cycle == 1026,
        "itrace: STOP after the PID packet belongs to the new thread; cycles add up");
  CHECK_EQ_U64(st.insns, 8, "itrace: 8 instructions decoded");
  uint64_t want[12] = { 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0 };
  CHECK(!memcmp(r->count, want, sizeof want), "itrace: per-instruction counts of the flow");
  /* the same stream in every piece size decodes the same */
  bool same = true;
  struct run *r2 = malloc(sizeof *r2);
  for (size_t piece = 1; piece <= 31; piece++) {
    decode(&s, piece, r2);
    if (r2->nblk != r->nblk || r2->nerr || memcmp(r2->blk, r->blk, r->nblk * sizeof r->blk[0])) same = false;
  }
  CHECK(same, "itrace: pieces of 1..31 bytes decode as the whole stream");
  free(r2);
  free(r);
}

/* A system call that delivers a signal is reported as a signal ASYNC ending
 * on the callsys (what the trace unit does): no error. */
static void test_syscall_signal(void)
{
  struct buf s = { .n = 0 };
  psb(&s, at(5), 0, PID, PID, 0);
  async(&s, 1, 3, ITRACE_A_SIGNAL, at(8));      /* callsys, then the handler at 8 */
  tip(&s, 2, 4, at(6));                         /* the handler returns (as sigreturn would lead) */
  struct run *r = malloc(sizeof *r);
  decode(&s, 0, r);
  CHECK(r->nerr == 0 && r->nblk == 2 && r->blk[0].async == ITRACE_A_SIGNAL && (r->blk[0].flags & ITRACE_F_ASYNC) &&
        r->blk[0].to == at(8), "itrace: a signal ASYNC may end on the callsys that led to it");
  free(r);
}

static void test_loop(void)
{
  struct buf s = { .n = 0 };
  psb(&s, at(0), 0, PID, PID, 0);
  for (int i = 0; i < 1000; i++) taken(&s, 4, 3);   /* addq, beq not taken, addq, br -> 0 */
  taken(&s, 2, 1);                                 /* leave through the beq */
  taken(&s, 1, 1);                                 /* bsr -> 8 */
  stop(&s, 1, 1);
  struct run *r = malloc(sizeof *r);
  decode(&s, 100, r);
  CHECK(r->nerr == 0 && r->count[0] == 1001 && r->count[1] == 1001 && r->count[2] == 1000 && r->count[3] == 1000 &&
        r->count[4] == 1 && r->count[8] == 1, "itrace: loop of 1000 iterations: exact per-instruction counts");
  free(r);
}

/* An error at the expected offset with the text, then sync again at the
 * next PSB (the blocks after it decoded). */
static void expect_error(const char *what, const struct buf *s, uint64_t off, const char *text, size_t blocks_after)
{
  struct run *r = malloc(sizeof *r);
  decode(s, 0, r);
  bool ok = r->nerr >= 1 && r->err[0].offset == off && strstr(r->err[0].msg, text);
  CHECK(ok, "itrace: %s: error at offset %llu '%s' (got %zu errors, first at %llu: %s)", what,
        (unsigned long long)off, text, r->nerr, r->nerr ? (unsigned long long)r->err[0].offset : 0ull,
        r->nerr ? r->err[0].msg : "-");
  CHECK(r->nerr == 1 && r->nblk == blocks_after, "itrace: %s: resynced at the next PSB (%zu blocks)", what, r->nblk);
  free(r);
}

/* A TAKEN of n instructions from at(0) that the code refutes with msg; the
 * decoder resyncs at the PSB after it and decodes its one block. */
static void taken_error(const char *what, uint64_t n, const char *msg)
{
  struct buf s = { .n = 0 };
  psb(&s, at(0), 0, PID, PID, 0);
  size_t off = s.n;
  taken(&s, n, 1);
  psb(&s, at(4), 0, PID, PID, 0);
  taken(&s, 1, 1);
  expect_error(what, &s, off, msg, 1);
}

static void test_errors(void)
{
  struct buf s = { .n = 0 };
  /* TAKEN whose n-th instruction is an addq */
  psb(&s, at(0), 0, PID, PID, 0);
  size_t off = s.n;
  taken(&s, 1, 1);
  taken(&s, 2, 1);                             /* ignored: no sync */
  psb(&s, at(0), 50, PID, PID, 0);
  taken(&s, 2, 1);
  expect_error("TAKEN on addq", &s, off, "does not match code at 0x120001000", 1);

  taken_error("br inside a run", 6, "br (instruction 4 of 6 of a TAKEN) cannot fall through");

  s.n = 0;                                     /* TIP on a branch */
  psb(&s, at(4), 0, PID, PID, 0);
  off = s.n;
  tip(&s, 1, 1, at(0));
  expect_error("TIP on bsr", &s, off, "a TIP must end on jmp/jsr/ret, not bsr", 0);

  s.n = 0;                                     /* syscall ASYNC on addq */
  psb(&s, at(6), 0, PID, PID, 0);
  off = s.n;
  async(&s, 1, 1, ITRACE_A_SYSCALL, at(7));
  expect_error("syscall on addq", &s, off, "must end on callsys", 0);

  taken_error("huge n", 1ull << 62, "longer than any code");

  s.n = 0;                                     /* run past the code */
  psb(&s, at(12), 0, PID, PID, 0);
  off = s.n;
  stop(&s, 1, 1);
  expect_error("no code", &s, off, "no code at 0x120001030", 0);

  s.n = 0;                                     /* truncated at the end */
  psb(&s, at(4), 0, PID, PID, 0);
  taken(&s, 1, 1);
  off = s.n;
  tip(&s, 2, 1, at(5));
  s.n -= 3;
  expect_error("truncated TIP", &s, off, "truncated TIP packet", 1);

  s.n = 0;                                     /* bad header while in sync */
  psb(&s, at(4), 0, PID, PID, 0);
  off = s.n;
  put(&s, 0xee, 1);
  taken(&s, 1, 1);
  psb(&s, at(4), 0, PID, PID, 0);
  taken(&s, 1, 1);
  expect_error("bad header", &s, off, "bad packet (header 0xee)", 1);

  s.n = 0;                                     /* overflow */
  psb(&s, at(4), 0, PID, PID, 0);
  taken(&s, 1, 1);
  off = s.n;
  ovf(&s, 9999, 8192);
  psb(&s, at(8), 10000, PID, PID, 0);
  tip(&s, 2, 1, at(5));
  struct run *r = malloc(sizeof *r);
  struct itrace_stats st = decode(&s, 0, r);
  CHECK(r->nerr == 1 && r->err[0].overflow && r->err[0].offset == off && st.lost_bytes == 8192 && r->nblk == 2 &&
        r->blk[1].cycle == 10001, "itrace: OVF: an overflow error, 8192 bytes lost, decoding goes on at the PSB");

  /* a gap between pieces */
  s.n = 0;
  psb(&s, at(4), 0, PID, PID, 0);
  taken(&s, 1, 1);
  size_t cut = s.n;
  taken(&s, 2, 1);                             /* in the lost part */
  size_t resume = s.n;
  psb(&s, at(4), 0, PID, PID, 0);
  taken(&s, 1, 1);
  memset(r, 0, sizeof *r);
  struct itrace_ops ops = { .read_code = read_code, .block = on_block, .error = on_error };
  struct itrace_decoder *d = itrace_decoder_create(&ops, r);
  itrace_decode(d, s.b, cut);
  itrace_gap(d, resume - cut);
  itrace_decode(d, s.b + resume, s.n - resume);
  itrace_finish(d);
  CHECK(r->nerr == 1 && strstr(r->err[0].msg, "data lost") && r->err[0].pc == at(8) && r->nblk == 2,
        "itrace: a gap is an error at the pc reached, then the next PSB resyncs (%s)", r->nerr ? r->err[0].msg : "-");
  itrace_decoder_destroy(d);
  free(r);
}

/* Garbage before the first PSB is skipped silently; a false PSB inside a
 * payload is not taken (its pc is unaligned). */
static void test_hunt(void)
{
  struct buf s = { .n = 0 };
  for (int i = 0; i < 100; i++) put(&s, (uint64_t)(i * 37 + 11) & 0xff, 1);
  s.b[5] = ITRACE_PSB;
  s.b[6] = 3;                                   /* pc ...03: unaligned */
  size_t first = s.n;
  flow_stream(&s);
  struct run *r = malloc(sizeof *r);
  struct itrace_stats st = decode(&s, 7, r);
  CHECK(r->nblk == 5 && r->nerr == 0 && st.skipped >= first - 30, "itrace: garbage before the PSB is skipped (%zu blocks, %zu errors)",
        r->nblk, r->nerr);
  free(r);
}

/* ---- real streams from the machine's trace unit ---- */

struct elfcode { uint64_t start[4], end[4]; uint8_t *bytes[4]; int n; };

static int elf_code(struct elfcode *k, const char *path)
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

struct real { const struct elfcode *code; uint64_t insns, blocks, errors; char first[320];   /* offset, pc and a message of up to 200 bytes */ struct itrace_counts *counts;
              struct itrace_counts *resumes; struct { uint32_t pid; uint64_t to; bool fault; } last[256]; int nlast;
              bool pending; uint64_t pending_to; };

static size_t elf_read(void *ctx, uint32_t pid, uint8_t mode, uint64_t pc, uint32_t *w, size_t max)
{
  const struct elfcode *k = ((struct real *)ctx)->code;
  (void)pid; (void)mode;
  for (int i = 0; i < k->n; i++) {
    if (pc < k->start[i] || pc >= k->end[i] || k->end[i] - pc < 4 || pc % 4) continue;
    size_t n = (size_t)((k->end[i] - pc) / 4);
    if (n > max) n = max;
    memcpy(w, k->bytes[i] + (pc - k->start[i]), 4 * n);
    return n;
  }
  return 0;
}

static int real_block(void *ctx, const struct itrace_block *b)
{
  struct real *r = ctx;
  r->insns += b->n;
  r->blocks++;
  /* an interrupt's resume belongs to the task that runs next (a PID packet
   * may come between): the next block, when it starts there */
  if (r->pending && b->start == r->pending_to) {
    struct itrace_block one = { .pid = b->pid, .start = b->start, .n = 1 };
    itrace_counts_add(r->resumes, &one);
  }
  r->pending = b->end == ITRACE_END_ASYNC && b->async == ITRACE_A_INTERRUPT;
  r->pending_to = b->to;
  if (b->end == ITRACE_END_ASYNC && b->async == ITRACE_A_INTR_SIGNAL) {   /* taken back at the interrupted pc */
    struct itrace_block one = { .pid = b->pid, .start = b->start + 4 * b->n, .n = 1 };
    itrace_counts_add(r->resumes, &one);
  }
  int k = 0;                                     /* each task's last block: a fatal fault? */
  while (k < r->nlast && r->last[k].pid != b->pid) k++;
  if (k == r->nlast && k < 256) r->nlast++;
  if (k < 256) {
    r->last[k].pid = b->pid;
    r->last[k].to = b->start + 4 * b->n;      /* a fault's pc: the instruction after the n */
    r->last[k].fault = b->end == ITRACE_END_ASYNC && (b->async == ITRACE_A_FAULT || b->async == ITRACE_A_SIGNAL);
  }
  return itrace_counts_add(r->counts, b);
}

static uint64_t lookup(const struct itrace_pc_count *v, size_t n, uint32_t pid, uint64_t pc)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (v[mid].pid < pid || (v[mid].pid == pid && v[mid].pc < pc)) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && v[lo].pid == pid && v[lo].pc == pc ? v[lo].n : 0;
}

/* The decoded per-(pid, pc) counts against the machine's ground truth of
 * retired user instructions (record --truth's, counted from the timing
 * model's fates): truth = (decoded + interrupted) x uops, where uops is 2
 * for an integer CMOV (the 21264 issues it as two instructions, both retire)
 * and interrupted counts the interrupts whose resume is that PC (the
 * instruction there had a retired fate before the interrupt took it back)
 * and the faults there that ended their task (a trapping instruction's
 * fate is a retired one; one that faults and runs again is counted once).
 * Exact at every PC, both ways. */
static unsigned uops_at(const struct elfcode *k, uint64_t pc)
{
  uint32_t w;
  struct real r = { .code = k };
  if (elf_read(&r, 0, 0, pc, &w, 1) != 1) return 1;
  return axp_info[axp_decode(w).id].cls == AXP_CLS_CMOV ? 2 : 1;
}
static void compare_truth(const char *name, struct machine *m, struct itrace_counts *c, struct itrace_counts *res,
                          const struct elfcode *code)
{
  size_t nres = 0;
  const struct itrace_pc_count *rv = itrace_counts_get(res, &nres);
  struct pm_truth_entry *t = NULL;
  size_t nt = 0, n = 0, bad = 0, truth_n = 0, matched = 0;
  if (machine_truth_read(m, &t, &nt)) { CHECK(0, "itrace real %s: truth read", name); return; }
  const struct itrace_pc_count *v = itrace_counts_get(c, &n);
  uint64_t first_bad = 0;
  for (size_t i = 0; i < nt; i++) {
    if ((t[i].flags & PM_TRUTH_KERNEL) || !t[i].n[PM_TRUTH_ALL(0)]) continue;
    truth_n++;
    uint64_t got = lookup(v, n, (uint32_t)t[i].pid, t[i].pc);
    uint64_t resumed = lookup(rv, nres, (uint32_t)t[i].pid, t[i].pc);
    matched += got > 0;
    if ((got + resumed) * uops_at(code, t[i].pc) != t[i].n[PM_TRUTH_ALL(0)]) {
      if (!bad++) first_bad = t[i].pc;
      if (getenv("ITRACE_DEBUG") && bad < 12)
        fprintf(stderr, "  pc %#llx pid %d: decoded %llu resumed %llu, truth retired %llu fetched %llu valid %llu trap %llu\n",
                (unsigned long long)t[i].pc, t[i].pid, (unsigned long long)got, (unsigned long long)resumed,
                (unsigned long long)t[i].n[PM_TRUTH_ALL(0)], (unsigned long long)t[i].n[PM_TRUTH_FETCHED],
                (unsigned long long)t[i].n[PM_TRUTH_ALL(1)], (unsigned long long)t[i].n[PM_TRUTH_ALL(4)]);
    }
  }
  CHECK(bad == 0 && matched == n, "itrace real %s: at every (pid, pc) the truth's retired count is decoded x uops + "
        "interrupted (%zu of %zu differ, first at %#llx; %zu decoded PCs)", name, bad, truth_n,
        (unsigned long long)first_bad, n);
  free(t);
}
static void real_error(void *ctx, const struct itrace_error *e)
{
  struct real *r = ctx;
  if (!r->errors++) snprintf(r->first, sizeof r->first, "offset %llu pc %#llx: %s", (unsigned long long)e->offset,
                             (unsigned long long)e->pc, e->msg);
}

/* The unit's stream of each CPU, through a contiguous buffer of frames. */
struct sink { struct trace_fw *fw; uint64_t pa; uint8_t *buf[OS_MAX_CPUS]; size_t len[OS_MAX_CPUS], cap[OS_MAX_CPUS];
              uint64_t off[OS_MAX_CPUS]; };

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
static void sink_irq(void *ctx, int cpu) { sink_dump(ctx, cpu); }

static void real_program(const char *sysroot, const char *path, int ncpus, const char *outdir)
{
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
  char detail[256] = "";
  struct elfcode code;
  if (elf_code(&code, path)) { CHECK(0, "itrace real %s: reads its code", name); return; }
  struct machine_opts mo = { .os = { .sysroot = sysroot, .seed = 1, .ncpus = ncpus }, .ncpus = ncpus, .timed = true };
  struct machine *m = machine_create(&mo);
  machine_os(m)->log = fopen("/dev/null", "w");
  if (machine_spawn(m, 1, argv, envp, detail, sizeof detail)) { CHECK(0, "itrace real %s: spawn (%s)", name, detail); return; }
  machine_truth_enable(m);
  struct itrace_counts *counts = itrace_counts_create(), *resumes = itrace_counts_create();
  struct sink s = { .fw = machine_trace_fw(m) };
  uint64_t pfns[8] = { 0 }, ret[4];
  phys_alloc(s.fw->phys, 8, true, pfns);
  s.pa = pfns[0] * PHYS_PAGE;
  machine_set_trace_irq(m, sink_irq, &s);
  for (int i = 0; i < ncpus; i++) {
    pal_trace(s.fw, TRACE_PAL_SETUP, i, 0, TRACE_MEM_DEFAULT, 0, ret);
    pal_trace(s.fw, TRACE_PAL_START, i, 0, 0, 1, ret);
  }
  machine_run(m);
  struct real *rr = calloc(1, sizeof *rr);    /* one for all CPUs: a task's last block may be on any */
  rr->code = &code;
  rr->counts = counts;
  rr->resumes = resumes;
  for (int i = 0; i < ncpus; i++) {
    for (int st = 0; st < 10 && pal_trace(s.fw, TRACE_PAL_STOP, i, 0, 0, 0, ret) == TRACE_PAL_BUSY; st++) {}
    sink_dump(&s, i);
    rr->insns = rr->errors = 0;
    rr->pending = false;
    struct itrace_ops ops = { .read_code = elf_read, .block = real_block, .error = real_error };
    struct itrace_decoder *d = itrace_decoder_create(&ops, rr);
    itrace_decode(d, s.buf[i], s.len[i]);
    itrace_finish(d);
    uint64_t retired = machine_os(m)->cpus[i].icount;
    CHECK(rr->errors == 0, "itrace real %s cpu %d: %zu bytes decode without error (%llu errors; %s)", name, i, s.len[i],
          (unsigned long long)rr->errors, rr->errors ? rr->first : "-");
    CHECK_EQ_U64(rr->insns, retired, "itrace real %s cpu %d: the decoded flow has the %llu instructions the CPU retired",
                 name, i, (unsigned long long)retired);
    if (outdir) {
      char f[4096];
      snprintf(f, sizeof f, "%s/%s-cpu%d.trace", outdir, name, i);
      FILE *o = fopen(f, "wb");
      if (o) { fwrite(s.buf[i], 1, s.len[i], o); fclose(o); }
    }
    itrace_decoder_destroy(d);
    free(s.buf[i]);
  }
  /* a task that died on a fault: its faulting instruction had a retired
   * fate and was never executed again */
  for (int k = 0; k < rr->nlast; k++) {
    if (!rr->last[k].fault) continue;
    struct itrace_block one = { .pid = rr->last[k].pid, .start = rr->last[k].to, .n = 1 };
    itrace_counts_add(resumes, &one);
  }
  free(rr);
  /* With several CPUs an interrupted task may resume on another CPU, whose
   * stream does not say it resumes there: the per-PC identity is checked
   * on one CPU, the totals on all. */
  if (ncpus == 1) compare_truth(name, m, counts, resumes, &code);
  itrace_counts_destroy(counts);
  itrace_counts_destroy(resumes);
  phys_free(s.fw->phys, 8, pfns);
  fclose(machine_os(m)->log);
  machine_os(m)->log = stderr;
  machine_destroy(m);
  for (int i = 0; i < code.n; i++) free(code.bytes[i]);
}

int main(int argc, char **argv)
{
  if (argc >= 3) {
    const char *outdir = NULL;
    int a = 1;
    if (!strcmp(argv[1], "-o") && argc >= 5) { outdir = argv[2]; a = 3; }
    for (int i = a + 1; i < argc; i++) real_program(argv[a], argv[i], strstr(argv[i], "thread") ? 2 : 1, outdir);
    return check_done();
  }
  build_code();
  CHECK(axp_decode(code[9]).id == AXP_RET && axp_decode(code[3]).id == AXP_BR && axp_decode(code[1]).id == AXP_BEQ &&
        axp_decode(code[4]).id == AXP_BSR && axp_decode(code[11]).id == AXP_JMP, "itrace: the test program decodes as intended");
  test_packets();
  test_flow();
  test_loop();
  test_syscall_signal();
  test_errors();
  test_hunt();
  return check_done();
}
