/* The trace unit and its firmware call; see trace_unit.h.
 *
 * Retired counts: the unit is told of an instruction before it commits, and
 * one of those may fault instead (it does not retire). The executor adds
 * what retired to the CPU's count when it returns, so at the first
 * instruction of the next run the unit compares what it traced in the last
 * run with what retired and takes the faulting one back. A run that ended
 * with a jump in flow (a kernel entry, a signal, another task) is then an
 * ASYNC packet whose resume PC is where flow went on. */
#include "pmu/trace_unit.h"
#include "isa/isa.h"
#include "util/assert.h"
#include <stdlib.h>
#include <string.h>

void trace_unit_init(struct trace_unit *u, const uint64_t *icount, uint64_t (*now)(void *ctx), void *now_ctx,
                     uint64_t seed)
{
  memset(u, 0, sizeof *u);
  u->icount = icount;
  u->now = now;
  u->now_ctx = now_ctx;
  u->rng = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (!u->rng) u->rng = 1;
}

void trace_unit_fini(struct trace_unit *u)
{
  free(u->mem);
  u->mem = NULL;
  u->size = 0;
}

/* A functional CPU's cycle, given its retired count icount: the executor
 * adds a run's retired instructions when it returns, so until the unit
 * settles that run they are counted from the unit's own. */
static inline uint64_t derived_cycle(const struct trace_unit *u, uint64_t icount)
{
  return icount == u->run_icount ? icount + (u->stats.insns - u->run_mark) : icount;
}

uint64_t trace_unit_derived_cycle(const struct trace_unit *u) { return derived_cycle(u, *u->icount); }

/* Instructions since the last flow packet (its n). */
static uint64_t pending(const struct trace_unit *u) { return u->stats.insns - u->flow_mark; }

/* ---- packets ---- */

static size_t uleb(uint8_t *p, uint64_t v)
{
  size_t n = 0;
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    p[n++] = b | (v ? 0x80 : 0);
  } while (v);
  return n;
}

static size_t le(uint8_t *p, uint64_t v, size_t bytes)
{
  for (size_t i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
  return bytes;
}

static bool room(const struct trace_unit *u, size_t len) { return u->size - (u->head - u->base) >= len; }

static void put(struct trace_unit *u, const uint8_t *p, size_t len)
{
  /* A power-of-two ring holding [base, head); the caller made room. */
  PM_ASSERT(u->size && !(u->size & (u->size - 1)) && u->head - u->base <= u->size && room(u, len));
  size_t at = (size_t)(u->head & (u->size - 1)), first = u->size - at < len ? u->size - at : len;
  memcpy(u->mem + at, p, first);
  memcpy(u->mem, p + first, len - first);
  u->head += len;
  u->since_psb += len;
  u->stats.bytes += len;
  u->stats.packets++;
}

static void put_psb(struct trace_unit *u, uint64_t pc, uint64_t cycle)
{
  uint8_t b[TRACE_PSB_LEN];
  b[0] = TRACE_PSB;
  le(b + 1, pc, 8);
  le(b + 9, cycle, 8);
  le(b + 17, u->pid, 4);
  le(b + 21, u->tid, 4);
  b[25] = 0;   /* user mode: the modelled kernel runs no traced code */
  put(u, b, sizeof b);
  u->since_psb = 0;
  u->tcyc = cycle;
}

/* Writes packet p (after which decoding goes on at next_pc at `cycle`):
 * when the memory is full it is dropped and counted; the first packet that
 * finds a quarter of the memory free after an overflow becomes OVF and PSB (the PSB
 * at next_pc stands for it). A PSB follows every TRACE_PSB_PERIOD bytes. */
static void packet(struct trace_unit *u, const uint8_t *p, size_t len, uint64_t next_pc, uint64_t cycle)
{
  if (u->overflow) {
    u->lost += len;
    u->stats.lost_bytes += len;
    /* Space has returned when a quarter of the memory is free (a dump
     * made it): not at the first bytes, or the unit would flap in and out. */
    if (!room(u, u->size / 4)) return;
    uint8_t o[TRACE_OVF_LEN];
    o[0] = TRACE_OVF;
    le(o + 1, cycle, 8);
    le(o + 9, u->lost, 8);
    put(u, o, sizeof o);
    put_psb(u, next_pc, cycle);
    u->overflow = false;
    u->lost = 0;
    u->stats.overflows++;
    return;
  }
  /* Keep room for the OVF and PSB an overflow will need. */
  if (!room(u, len + TRACE_OVF_LEN + TRACE_PSB_LEN)) {
    u->overflow = true;
    u->lost = len;
    u->stats.lost_bytes += len;
    return;
  }
  put(u, p, len);
  if (u->since_psb >= TRACE_PSB_PERIOD && room(u, TRACE_PSB_LEN + TRACE_OVF_LEN + TRACE_PSB_LEN))
    put_psb(u, next_pc, cycle);
}

/* A flow packet (TAKEN, TIP, STOP; ASYNC has its own) of n instructions. */
static void flow(struct trace_unit *u, int type, uint64_t cycle, const uint64_t *target, uint64_t next_pc)
{
  uint8_t b[32];
  size_t k = 0;
  b[k++] = (uint8_t)type;
  k += uleb(b + k, pending(u));
  k += uleb(b + k, cycle - u->tcyc);
  if (target) k += le(b + k, *target, 8);
  u->flow_mark = u->stats.insns;
  u->tcyc = cycle;
  packet(u, b, k, next_pc, cycle);
}

static void async(struct trace_unit *u, int kind, uint64_t resume)
{
  uint8_t b[32];
  size_t k = 0;
  b[k++] = TRACE_ASYNC;
  k += uleb(b + k, pending(u));
  k += uleb(b + k, u->last_cyc - u->tcyc);
  b[k++] = (uint8_t)kind;
  k += le(b + k, resume, 8);
  u->flow_mark = u->stats.insns;
  u->tcyc = u->last_cyc;
  packet(u, b, k, resume, u->last_cyc);
}

static void pid_packet(struct trace_unit *u, uint64_t pc, uint64_t cycle)
{
  uint8_t b[TRACE_PID_LEN];
  b[0] = TRACE_PID;
  le(b + 1, u->pid, 4);
  le(b + 5, u->tid, 4);
  packet(u, b, sizeof b, pc, cycle);
  if (!u->overflow && room(u, TRACE_PSB_LEN + TRACE_OVF_LEN + TRACE_PSB_LEN)) put_psb(u, pc, cycle);
}

/* Ends the executor's last run: takes back the traced instructions that did
 * not retire (a fault), and returns how many; the next run starts here. */
static uint64_t take_back(struct trace_unit *u)
{
  uint64_t retired = *u->icount - u->run_icount, hooked = u->stats.insns - u->run_mark;
  uint64_t unretired = hooked > retired ? hooked - retired : 0;
  if (unretired > pending(u)) unretired = pending(u);
  u->stats.insns -= unretired;
  u->run_icount = *u->icount;
  u->run_mark = u->stats.insns;
  return unretired;
}

/* Closes the executor's last run: takes back a traced instruction that did
 * not retire, and writes the ASYNC of a jump in flow to pc. */
static void settle(struct trace_unit *u, uint64_t pc, uint64_t cycle, uint32_t pid, uint32_t tid)
{
  uint64_t unretired = take_back(u);
  bool moved = pc != u->expect_pc || tid != u->tid;
  if (!moved && !u->hint && !unretired) return;   /* the executor's budget ran out, nothing else */
  int kind = u->hint ? u->hint : unretired ? TRACE_ASYNC_FAULT : TRACE_ASYNC_INTERRUPT;
  /* A system call or an interrupt after which the same task goes on
   * elsewhere delivered a signal on the way out. */
  bool same = tid == u->tid;
  if (kind == TRACE_ASYNC_SYSCALL && same && pc != u->hint_pc) kind = TRACE_ASYNC_SIGNAL;
  if (kind == TRACE_ASYNC_INTERRUPT && same && pc != u->expect_pc) kind = TRACE_ASYNC_INTR_SIGNAL;
  u->hint = 0;
  async(u, kind, pc);
  if (tid != u->tid || pid != u->pid) {
    u->pid = pid;
    u->tid = tid;
    pid_packet(u, pc, cycle);
  }
}

/* Starts the unit's stream at its first instruction: a PSB there. */
static void sync_start(struct trace_unit *u, uint64_t pc, uint64_t cycle, uint32_t pid, uint32_t tid)
{
  u->synced = true;
  u->pid = pid;
  u->tid = tid;
  u->flow_mark = u->run_mark = u->stats.insns;
  u->hint = 0;
  u->run_icount = *u->icount;
  u->expect_pc = pc;
  if (!u->overflow && room(u, TRACE_PSB_LEN + TRACE_OVF_LEN + TRACE_PSB_LEN)) put_psb(u, pc, cycle);
  else { u->overflow = true; u->lost += TRACE_PSB_LEN; u->stats.lost_bytes += TRACE_PSB_LEN; }
}

/* Before ui is traced: starts the stream, or settles the last run when
 * flow left it (a new run, a jump, another task, a kernel entry). cycle is
 * only used when derive is false; a functional CPU's is derived after. */
static inline __attribute__((always_inline)) void step(struct trace_unit *u, const struct uarch_insn *ui,
                                                       uint64_t cycle, bool derive, uint32_t pid, uint32_t tid)
{
  uint64_t icount = *u->icount;
  if (derive) cycle = derived_cycle(u, icount);
  if (!u->synced) sync_start(u, ui->pc, cycle, pid, tid);
  else if (icount != u->run_icount || ui->pc != u->expect_pc || tid != u->tid || u->hint)
    settle(u, ui->pc, cycle, pid, tid);
  u->stats.insns++;
  u->last_cyc = cycle;
  u->expect_pc = ui->next_pc;
  if (!ui->taken) return;
  if (axp_info[ui->d->id].format == AXP_FMT_JMP) flow(u, TRACE_TIP, cycle, &ui->next_pc, ui->next_pc);
  else flow(u, TRACE_TAKEN, cycle, NULL, ui->next_pc);
}

void trace_unit_step(struct trace_unit *u, const struct uarch_insn *ui, uint64_t cycle, uint32_t pid, uint32_t tid)
{
  step(u, ui, cycle, false, pid, tid);
}

void trace_unit_step_derived(struct trace_unit *u, const struct uarch_insn *ui, uint32_t pid, uint32_t tid)
{
  step(u, ui, 0, true, pid, tid);
}

void trace_unit_kernel_entry(struct trace_unit *u, int kind, uint64_t resume)
{
  if (!u->on || !u->synced) return;
  bool syscall = kind == TRACE_ASYNC_SYSCALL || kind == TRACE_ASYNC_EXEC || kind == TRACE_ASYNC_SIGRETURN;
  if (syscall) u->hint_pc = resume;
  if (!u->hint || syscall) u->hint = kind;
}

/* STOP: the executor is between runs (firmware calls come from the kernel),
 * so the last run is settled first; an entry with no resume yet ends as
 * ASYNC with resume 0. */
static void unit_stop(struct trace_unit *u)
{
  if (!u->on) return;
  if (u->synced) {
    uint64_t unretired = take_back(u);
    uint64_t cycle = u->now(u->now_ctx);
    if (u->hint || unretired) {
      async(u, u->hint ? u->hint : TRACE_ASYNC_FAULT, 0);
      u->hint = 0;
    }
    if (cycle < u->last_cyc) cycle = u->last_cyc;
    if (u->overflow) {
      /* The trace ends in the overflow: OVF is its last packet. */
      if (room(u, TRACE_OVF_LEN)) {
        uint8_t o[TRACE_OVF_LEN];
        o[0] = TRACE_OVF;
        le(o + 1, cycle, 8);
        le(o + 9, u->lost, 8);
        put(u, o, sizeof o);
        u->overflow = false;
        u->lost = 0;
        u->stats.overflows++;
      }
    } else {
      flow(u, TRACE_STOP, cycle, NULL, 0);
    }
  }
  u->on = false;
  u->synced = false;
}

/* ---- the firmware ---- */

static uint64_t fw_rand(struct trace_unit *u)
{
  u->rng ^= u->rng << 13;
  u->rng ^= u->rng >> 7;
  u->rng ^= u->rng << 17;
  return u->rng;
}

static int setup(struct trace_unit *u, uint64_t size)
{
  if (u->on) return TRACE_PAL_STATE;
  if (size < PHYS_PAGE || size > TRACE_MEM_MAX || (size & (size - 1))) return TRACE_PAL_PARAM;
  uint8_t *mem = calloc(1, size);
  if (!mem) return TRACE_PAL_STATE;
  free(u->mem);
  u->mem = mem;
  u->size = (uint32_t)size;
  u->head = u->base = 0;
  u->overflow = false;
  u->lost = 0;
  return TRACE_PAL_OK;
}

static void copy_out(struct trace_fw *fw, struct trace_unit *u, uint64_t pa, uint64_t from, uint64_t n)
{
  for (uint64_t done = 0; done < n;) {
    uint64_t at = pa + done, in_page = at % PHYS_PAGE, k = PHYS_PAGE - in_page;
    if (k > n - done) k = n - done;
    uint8_t *dst = phys_frame(fw->phys, at / PHYS_PAGE) + in_page;
    for (uint64_t i = 0; i < k; i++) dst[i] = u->mem[(from + done + i) & (u->size - 1)];
    done += k;
  }
  uint64_t end = pa + n, pad = (PHYS_PAGE - end % PHYS_PAGE) % PHYS_PAGE;
  if (pad) memset(phys_frame(fw->phys, end / PHYS_PAGE) + end % PHYS_PAGE, TRACE_PAD, pad);
}

static int dump(struct trace_fw *fw, struct trace_unit *u, uint64_t pa, uint64_t size, uint64_t offset, uint64_t *bytes)
{
  *bytes = 0;
  if (!u->mem) return TRACE_PAL_STATE;
  if (!size || pa % PHYS_PAGE || size % PHYS_PAGE || pa >= fw->phys_bytes || size > fw->phys_bytes - pa)
    return TRACE_PAL_PARAM;
  if (offset < u->base || offset > u->head) return TRACE_PAL_PARAM;
  if (u->flushing) { u->flushing--; return TRACE_PAL_BUSY; }
  u->base = offset;   /* what lies before the offset asked for is given up */
  uint64_t avail = u->head - offset;
  if (!avail) return u->on ? TRACE_PAL_OK : TRACE_PAL_NO_DATA;
  uint64_t n = avail < size ? avail : size;
  copy_out(fw, u, pa, offset, n);
  u->base = offset + n;
  if (u->head - u->base < u->size / 2) u->irq_armed = u->irq_enable;
  *bytes = n;
  return n < avail ? TRACE_PAL_PARTIAL : TRACE_PAL_OK;
}

int pal_trace(struct trace_fw *fw, int op, int cpu, uint64_t phys_addr, uint64_t size, uint64_t offset,
              uint64_t ret[4])
{
  memset(ret, 0, 4 * sizeof *ret);
  fw->calls++;
  if (cpu < 0 || cpu >= fw->nunits || !fw->units[cpu]) return TRACE_PAL_PARAM;
  struct trace_unit *u = fw->units[cpu];
  if (u->busy_inject && op != TRACE_PAL_STATUS && op != TRACE_PAL_RESET) {
    u->busy_inject--;
    fw->busy_answers++;
    return TRACE_PAL_BUSY;
  }
  switch (op) {
  case TRACE_PAL_SETUP: return setup(u, size);
  case TRACE_PAL_START:
    if (!u->mem) return TRACE_PAL_STATE;
    if (u->on) return TRACE_PAL_OK;
    u->on = true;
    u->synced = false;
    u->irq_enable = u->irq_armed = offset & 1;
    if (fw->power) fw->power(fw->ctx, cpu, true);
    return TRACE_PAL_OK;
  case TRACE_PAL_STOP:
    if (u->stop_stuck) { fw->busy_answers++; return TRACE_PAL_BUSY; }
    if (u->on) {
      unit_stop(u);
      u->flushing = (unsigned)(fw_rand(u) % 3);   /* the unit drains its pipeline: 0-2 busy answers */
      if (fw->power) fw->power(fw->ctx, cpu, false);
    }
    return TRACE_PAL_OK;
  case TRACE_PAL_DUMP: {
    int rc = dump(fw, u, phys_addr, size, offset, ret);
    if (rc == TRACE_PAL_BUSY) fw->busy_answers++;
    return rc;
  }
  case TRACE_PAL_STATUS:
    ret[0] = u->head;
    ret[1] = u->base;
    ret[2] = (u->on ? TRACE_STATUS_ON : 0) | (u->overflow ? TRACE_STATUS_OVERFLOW : 0);
    ret[3] = u->stats.lost_bytes;
    return TRACE_PAL_OK;
  case TRACE_PAL_RESET:
    if (u->on && fw->power) fw->power(fw->ctx, cpu, false);
    u->on = u->synced = u->overflow = false;
    u->flushing = 0;
    trace_unit_fini(u);
    u->head = u->base = 0;
    return TRACE_PAL_OK;
  default:
    return TRACE_PAL_PARAM;
  }
}
