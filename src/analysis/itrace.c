/* The trace packet decoder; see itrace.h. The flow rule (docs/trace-tools.md):
 * from a PSB's pc, each TAKEN/TIP/ASYNC/STOP packet says n instructions ran
 * in sequence; the n-th decides the next pc. The decoder checks that the code
 * agrees: no instruction before the n-th may be one that always leaves the
 * sequence (br, bsr, jmp, jsr, ret, jsr_coroutine, callsys), and the n-th
 * must be a direct branch for TAKEN, an indirect jump for TIP and callsys
 * for a syscall ASYNC (another ASYNC may end on callsys too: the unit
 * reports a system call by what it led to, e.g. a signal's delivery). A mismatch means the trace and the code disagree
 * (wrong binary, lost bytes, corrupt data): an error, and sync is dropped. */
#include "analysis/itrace.h"
#include "isa/isa.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODE_CHUNK 256                          /* words read from the code at once */

struct itrace_decoder {
  struct itrace_ops ops;
  void *ctx;
  bool synced;
  uint64_t pc, cycle;
  uint32_t pid, tid;
  uint8_t mode;
  uint64_t pos;                                 /* stream offset of the next byte */
  uint8_t carry[ITRACE_MAX_PKT];                /* a packet cut by the end of a piece */
  size_t ncarry;
  bool skipping;                                /* unsynced: counting bytes skipped */
  struct itrace_stats st;
  uint32_t code[CODE_CHUNK];
};

/* ---- packets ---- */

static const char *const pkt_names[ITRACE_NPKT] = {
  "PAD", "PSB", "TAKEN", "TIP", "ASYNC", "PID", "MODE", "OVF", "STOP",
};

const char *itrace_pkt_name(unsigned type) { return type < ITRACE_NPKT ? pkt_names[type] : "?"; }

static uint64_t le(const uint8_t *p, int n)
{
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* Reads a uleb at buf[*at..len). Returns 1, 0 (truncated) or -1 (too long). */
static int uleb(const uint8_t *buf, size_t len, size_t *at, uint64_t *v)
{
  uint64_t r = 0;
  for (int i = 0; i < 10; i++) {
    if (*at >= len) return 0;
    uint8_t b = buf[(*at)++];
    if (i == 9 && b > 1) return -1;             /* more than 64 bits */
    r |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) { *v = r; return 1; }
  }
  return -1;
}

/* Fixed-size fields after the header and the ulebs: bytes needed, or 0. */
static size_t fixed_size(uint8_t type)
{
  switch (type) {
  case ITRACE_PSB: return 8 + 8 + 4 + 4 + 1;
  case ITRACE_TIP: return 8;
  case ITRACE_ASYNC: return 1 + 8;
  case ITRACE_PID: return 8;
  case ITRACE_MODE: return 1;
  case ITRACE_OVF: return 16;
  default: return 0;
  }
}

static int nulebs(uint8_t type)
{
  return type == ITRACE_TAKEN || type == ITRACE_TIP || type == ITRACE_ASYNC || type == ITRACE_STOP ? 2 : 0;
}

int itrace_pkt_parse(const uint8_t *buf, size_t len, struct itrace_packet *p, const char **why)
{
  memset(p, 0, sizeof *p);
  if (!len) return 0;
  p->type = buf[0];
  if (p->type >= ITRACE_NPKT) { *why = "unknown packet header"; return -1; }
  size_t at = 1;
  uint64_t v[2] = { 0, 0 };
  for (int i = 0; i < nulebs(p->type); i++) {
    int r = uleb(buf, len, &at, &v[i]);
    if (r <= 0) { *why = "uleb longer than 64 bits"; return r; }
  }
  p->n = v[0];
  p->dcyc = v[1];
  size_t fx = fixed_size(p->type);
  if (len - at < fx) return 0;
  const uint8_t *f = buf + at;
  switch (p->type) {
  case ITRACE_PSB:
    p->pc = le(f, 8); p->cycle = le(f + 8, 8); p->pid = (uint32_t)le(f + 16, 4);
    p->tid = (uint32_t)le(f + 20, 4); p->mode = f[24];
    break;
  case ITRACE_TIP: p->pc = le(f, 8); break;
  case ITRACE_ASYNC: p->kind = f[0]; p->pc = le(f + 1, 8); break;
  case ITRACE_PID: p->pid = (uint32_t)le(f, 4); p->tid = (uint32_t)le(f + 4, 4); break;
  case ITRACE_MODE: p->mode = f[0]; break;
  case ITRACE_OVF: p->cycle = le(f, 8); p->lost = le(f + 8, 8); break;
  default: break;
  }
  if ((p->type == ITRACE_PSB || p->type == ITRACE_MODE) && p->mode > ITRACE_MODE_MAX) {
    *why = "mode out of range (0 user, 1 kernel, 2 PAL)";
    return -1;
  }
  if (p->type == ITRACE_ASYNC && (p->kind < 1 || p->kind > ITRACE_A_MAX)) {
    *why = "ASYNC kind out of range (1..6)";
    return -1;
  }
  return (int)(at + fx);
}

void itrace_pkt_desc(const struct itrace_packet *p, char *buf, size_t len)
{
  const char *name = itrace_pkt_name(p->type);
  switch (p->type) {
  case ITRACE_PSB:
    snprintf(buf, len, "PSB pc 0x%" PRIx64 " cycle %" PRIu64 " pid %u tid %u mode %u", p->pc, p->cycle,
             p->pid, p->tid, p->mode);
    break;
  case ITRACE_TAKEN: case ITRACE_STOP:
    snprintf(buf, len, "%s n %" PRIu64 " dcyc %" PRIu64, name, p->n, p->dcyc);
    break;
  case ITRACE_TIP:
    snprintf(buf, len, "TIP n %" PRIu64 " dcyc %" PRIu64 " target 0x%" PRIx64, p->n, p->dcyc, p->pc);
    break;
  case ITRACE_ASYNC:
    snprintf(buf, len, "ASYNC n %" PRIu64 " dcyc %" PRIu64 " kind %u resume 0x%" PRIx64, p->n, p->dcyc,
             p->kind, p->pc);
    break;
  case ITRACE_PID: snprintf(buf, len, "PID pid %u tid %u", p->pid, p->tid); break;
  case ITRACE_MODE: snprintf(buf, len, "MODE %u", p->mode); break;
  case ITRACE_OVF: snprintf(buf, len, "OVF cycle %" PRIu64 " lost %" PRIu64, p->cycle, p->lost); break;
  default: snprintf(buf, len, "%s", name); break;
  }
}

/* ---- flow ---- */

struct itrace_decoder *itrace_decoder_create(const struct itrace_ops *ops, void *ctx)
{
  struct itrace_decoder *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->ops = *ops;
  d->ctx = ctx;
  return d;
}

void itrace_decoder_destroy(struct itrace_decoder *d) { free(d); }

const struct itrace_stats *itrace_stats(const struct itrace_decoder *d) { return &d->st; }

/* Reports an error at offset and drops sync. */
static void fail(struct itrace_decoder *d, uint64_t offset, bool ovf, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
static void fail(struct itrace_decoder *d, uint64_t offset, bool ovf, const char *fmt, ...)
{
  struct itrace_error e = { .offset = offset, .pc = d->synced ? d->pc : 0, .pid = d->pid, .tid = d->tid,
                            .overflow = ovf };
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e.msg, sizeof e.msg, fmt, ap);
  va_end(ap);
  d->st.errors++;
  d->synced = false;
  if (d->ops.error) d->ops.error(d->ctx, &e);
}

/* Whether an instruction always leaves the sequence (never falls through). */
static bool always_leaves(const struct axp_insn *in)
{
  if (in->id == AXP_BR || in->id == AXP_BSR) return true;
  if (axp_info[in->id].format == AXP_FMT_JMP) return true;
  return in->id == AXP_CALL_PAL && (uint32_t)in->imm == AXP_PAL_CALLSYS;
}

static bool is_direct(const struct axp_insn *in)
{
  uint8_t f = axp_info[in->id].format;
  return in->id != AXP_INVALID && (f == AXP_FMT_BRA || f == AXP_FMT_FBRA);
}

/* The ITRACE_F_* flags of a block's last instruction. */
static uint8_t last_flags(const struct axp_insn *in, uint8_t end, uint8_t async)
{
  uint8_t f = 0;
  if (end == ITRACE_END_TAKEN || end == ITRACE_END_TIP) f |= ITRACE_F_BRANCH;
  if (end == ITRACE_END_ASYNC) f |= async == ITRACE_A_SYSCALL ? ITRACE_F_SYSCALL : ITRACE_F_ASYNC;
  if (!in) return f;
  if (in->id == AXP_BSR || in->id == AXP_JSR || in->id == AXP_JSR_COROUTINE) f |= ITRACE_F_CALL;
  if (in->id == AXP_RET) f |= ITRACE_F_RETURN;
  if (is_direct(in) && in->id != AXP_BR && in->id != AXP_BSR) f |= ITRACE_F_COND;
  return f;
}

/* Walks the n instructions of a run from d->pc, checking the code agrees
 * with how the packet says the run ended; *last gets the n-th. Returns
 * false after reporting a mismatch. */
static bool walk(struct itrace_decoder *d, const struct itrace_packet *p, uint64_t off, struct axp_insn *last)
{
  uint64_t n = p->n, pc = d->pc;
  if (n > ITRACE_MAX_RUN) {
    fail(d, off, false, "%s n %" PRIu64 " at 0x%" PRIx64 ": longer than any code (%llu instructions at most)",
         itrace_pkt_name(p->type), n, pc, ITRACE_MAX_RUN);
    return false;
  }
  if (n == 0 && (p->type == ITRACE_TAKEN || p->type == ITRACE_TIP ||
                 (p->type == ITRACE_ASYNC && p->kind == ITRACE_A_SYSCALL))) {
    fail(d, off, false, "%s with n 0 at 0x%" PRIx64 ": it needs an instruction to end on",
         itrace_pkt_name(p->type), pc);
    return false;
  }
  for (uint64_t i = 0; i < n;) {
    size_t want = n - i < CODE_CHUNK ? (size_t)(n - i) : CODE_CHUNK;
    size_t got = d->ops.read_code(d->ctx, d->pid, d->mode, pc, d->code, want);
    if (!got) {
      fail(d, off, false, "no code at 0x%" PRIx64 " (pid %u, instruction %" PRIu64 " of %" PRIu64
           " of a %s): not in any mapped file", pc, d->pid, i + 1, n, itrace_pkt_name(p->type));
      return false;
    }
    for (size_t k = 0; k < got; k++, i++, pc += 4) {
      struct axp_insn in = axp_decode(d->code[k]);
      bool nth = i + 1 == n;
      if (nth) { *last = in; return true; }
      if (always_leaves(&in)) {
        fail(d, off, false, "trace does not match code at 0x%" PRIx64 ": %s (instruction %" PRIu64 " of %"
             PRIu64 " of a %s) cannot fall through", pc, axp_info[in.id].mnemonic, i + 1, n,
             itrace_pkt_name(p->type));
        return false;
      }
    }
  }
  return true;
}

/* Checks the n-th instruction against the packet and sets the next pc. */
static bool end_run(struct itrace_decoder *d, const struct itrace_packet *p, uint64_t off,
                    const struct axp_insn *last, uint64_t last_pc, uint64_t *to)
{
  const char *bad = NULL;
  switch (p->type) {
  case ITRACE_TAKEN:
    if (!is_direct(last)) bad = "a TAKEN must end on a direct branch";
    *to = last_pc + 4 + (uint64_t)(int64_t)last->imm;
    break;
  case ITRACE_TIP:
    if (axp_info[last->id].format != AXP_FMT_JMP || last->id == AXP_INVALID) bad = "a TIP must end on jmp/jsr/ret";
    *to = p->pc;
    break;
  case ITRACE_ASYNC:
    if (p->n && p->kind == ITRACE_A_SYSCALL && !(last->id == AXP_CALL_PAL && (uint32_t)last->imm == AXP_PAL_CALLSYS))
      bad = "a syscall ASYNC must end on callsys";
    else if (p->n && p->kind != ITRACE_A_SYSCALL && always_leaves(last) &&
             !(last->id == AXP_CALL_PAL && (uint32_t)last->imm == AXP_PAL_CALLSYS))
      bad = "an ASYNC's instructions must all fall through";   /* a callsys may end one: the system call
                                                                  led to a signal, an exec, a switch */
    *to = p->pc;
    break;
  default: *to = 0; break;
  }
  if (p->type == ITRACE_STOP && p->n && always_leaves(last)) bad = "a STOP's instructions must all fall through";
  if (bad) {
    fail(d, off, false, "trace does not match code at 0x%" PRIx64 ": %s, not %s", last_pc, bad,
         last->id == AXP_INVALID ? "an invalid word" : axp_info[last->id].mnemonic);
    return false;
  }
  return true;
}

/* A TAKEN/TIP/ASYNC/STOP packet: one block. */
static int run_packet(struct itrace_decoder *d, const struct itrace_packet *p, uint64_t off)
{
  struct axp_insn last = { 0 };
  if (!walk(d, p, off, &last)) return 0;
  uint64_t last_pc = d->pc + 4 * (p->n ? p->n - 1 : 0), to;
  if (!end_run(d, p, off, p->n ? &last : NULL, last_pc, &to)) return 0;
  d->cycle += p->dcyc;
  static const uint8_t ends[ITRACE_NPKT] = { [ITRACE_TAKEN] = ITRACE_END_TAKEN, [ITRACE_TIP] = ITRACE_END_TIP,
                                             [ITRACE_ASYNC] = ITRACE_END_ASYNC, [ITRACE_STOP] = ITRACE_END_STOP };
  struct itrace_block b = { .pid = d->pid, .tid = d->tid, .mode = d->mode, .end = ends[p->type],
                            .async = p->kind, .start = d->pc, .n = p->n, .to = to, .cycle = d->cycle,
                            .offset = off };
  b.flags = last_flags(p->n ? &last : NULL, b.end, p->kind);
  d->st.blocks++;
  d->st.insns += p->n;
  d->pc = to;
  if (p->type == ITRACE_ASYNC) d->mode = 0;     /* the resume is in user code */
  if (p->type == ITRACE_STOP) d->synced = false;
  return d->ops.block(d->ctx, &b);
}

/* One packet while in sync (or a PSB/OVF at any time). */
static int packet(struct itrace_decoder *d, const struct itrace_packet *p, uint64_t off)
{
  switch (p->type) {
  case ITRACE_PAD: return 0;
  case ITRACE_PSB:
    d->synced = true;
    d->pc = p->pc; d->cycle = p->cycle; d->pid = p->pid; d->tid = p->tid; d->mode = p->mode;
    d->st.psbs++;
    return 0;
  case ITRACE_OVF:
    d->st.overflows++;
    d->st.lost_bytes += p->lost;
    d->cycle = p->cycle;
    fail(d, off, true, "overflow: the trace unit lost %" PRIu64 " bytes", p->lost);
    return 0;
  case ITRACE_PID: d->pid = p->pid; d->tid = p->tid; return 0;
  case ITRACE_MODE: d->mode = p->mode; return 0;
  default: return run_packet(d, p, off);
  }
}

/* Handles the packet at buf (len bytes available, stream offset off):
 * returns the bytes consumed (0: need more), with *rc the callback's value. */
static size_t step(struct itrace_decoder *d, const uint8_t *buf, size_t len, uint64_t off, int *rc)
{
  struct itrace_packet p;
  const char *why = "";
  int n = itrace_pkt_parse(buf, len, &p, &why);
  if (n == 0) return 0;
  if (n < 0) {
    if (d->synced) fail(d, off, false, "bad packet (header 0x%02x): %s", buf[0], why);
    d->st.skipped++;
    return 1;
  }
  /* Unsynced, only a PSB with an aligned pc ends the hunt (a 0x01 byte
   * inside another packet's payload rarely passes for one). */
  if (!d->synced && (p.type != ITRACE_PSB || p.pc % 4)) {
    d->st.skipped++;                            /* hunting for a PSB byte by byte */
    return 1;
  }
  d->st.packets++;
  if (d->ops.packet) d->ops.packet(d->ctx, off, buf, (size_t)n, &p);
  *rc = packet(d, &p, off);
  return (size_t)n;
}

int itrace_decode(struct itrace_decoder *d, const uint8_t *buf, size_t len)
{
  int rc = 0;
  d->st.bytes += len;
  /* First finish a packet cut at the end of the last piece. */
  while (d->ncarry && len && !rc) {
    uint8_t tmp[2 * ITRACE_MAX_PKT];
    size_t take = len < ITRACE_MAX_PKT ? len : ITRACE_MAX_PKT;
    memcpy(tmp, d->carry, d->ncarry);
    memcpy(tmp + d->ncarry, buf, take);
    size_t used = step(d, tmp, d->ncarry + take, d->pos, &rc);
    if (!used) {                                /* still incomplete: keep all */
      memcpy(d->carry + d->ncarry, buf, take);
      d->ncarry += take;
      return rc;
    }
    d->pos += used;
    if (used >= d->ncarry) {
      buf += used - d->ncarry;
      len -= used - d->ncarry;
      d->ncarry = 0;
    } else {                                    /* skipped a byte of the carry */
      memmove(d->carry, d->carry + used, d->ncarry - used);
      d->ncarry -= used;
    }
  }
  size_t at = 0;
  while (at < len && !rc) {
    size_t used = step(d, buf + at, len - at, d->pos, &rc);
    if (!used) break;
    at += used;
    d->pos += used;
  }
  if (at < len && !rc) {                        /* a packet cut by the piece's end */
    memcpy(d->carry, buf + at, len - at);
    d->ncarry = len - at;
  }
  return rc;
}

void itrace_gap(struct itrace_decoder *d, uint64_t lost)
{
  d->ncarry = 0;
  d->st.lost_bytes += lost;
  bool was = d->synced;
  d->synced = true;                             /* so that the error names the pc */
  if (!was) d->pc = 0;
  fail(d, d->pos, false, "data lost: %" PRIu64 " bytes missing from the stream", lost);
  d->pos += lost;
}

void itrace_finish(struct itrace_decoder *d)
{
  if (d->ncarry && d->synced)
    fail(d, d->pos, false, "truncated %s packet at the end of the trace (%zu bytes)",
         itrace_pkt_name(d->carry[0]), d->ncarry);
  d->pos += d->ncarry;
  d->ncarry = 0;
}
