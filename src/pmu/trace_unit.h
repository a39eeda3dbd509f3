/* The trace unit: a per-CPU instruction-flow tracer in the style of POWER's
 * HTM (hardware trace macro). No Alpha ever had one; the machine models it so
 * that the perf AUX path can be built and tested as Linux has it (docs/trace.md).
 *
 * The unit watches every user instruction that commits on its CPU and writes
 * packets (TRACE_FORMAT.md, docs/trace.md) into its own trace memory: taken
 * branches (direct: only a count, the decoder computes the target; indirect:
 * the target), kernel entries as asynchronous events with their resume PC,
 * task changes, periodic sync points with cycle timestamps, and an overflow
 * marker when the memory was full. It is programmed only through the firmware
 * call (trace_pal, below), as the seed's driver programs HTM only through the
 * H_HTM hypervisor call. Knows nothing of perf. */
#ifndef PMU_TRACE_UNIT_H
#define PMU_TRACE_UNIT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "guest/cpu.h"
#include "guest/phys.h"

#define TRACE_MEM_DEFAULT (64u * 1024)   /* internal trace memory per CPU */
#define TRACE_MEM_MAX (16u * 1024 * 1024)
#define TRACE_PSB_PERIOD 4096u           /* a PSB after this many bytes of packets */

/* Packet bytes (TRACE_FORMAT.md). */
enum trace_packet {
  TRACE_PAD = 0x00, TRACE_PSB = 0x01, TRACE_TAKEN = 0x02, TRACE_TIP = 0x03, TRACE_ASYNC = 0x04,
  TRACE_PID = 0x05, TRACE_MODE = 0x06, TRACE_OVF = 0x07, TRACE_STOP = 0x08,
};
#define TRACE_PSB_LEN 26
#define TRACE_OVF_LEN 17
#define TRACE_PID_LEN 9

/* ASYNC kinds: why control left user code. */
enum trace_async {
  TRACE_ASYNC_SYSCALL = 1, TRACE_ASYNC_INTERRUPT = 2, TRACE_ASYNC_FAULT = 3, TRACE_ASYNC_SIGNAL = 4,
  TRACE_ASYNC_SIGRETURN = 5, TRACE_ASYNC_EXEC = 6,
  /* an interrupt after which the task resumed in a signal handler: the
   * instruction it interrupted (after the n) had a retired fate taken back */
  TRACE_ASYNC_INTR_SIGNAL = 7,
};

/* What the unit counts, for make bench and the tests. */
struct trace_unit_stats {
  uint64_t bytes;          /* packet bytes written into trace memory */
  uint64_t packets;
  uint64_t insns;          /* instructions traced (retired while on) */
  uint64_t lost_bytes;     /* bytes of packets dropped while full */
  uint64_t overflows;      /* OVF packets */
  uint64_t irqs;           /* half-full interrupts raised */
};

struct trace_unit {
  uint8_t *mem;            /* the trace memory: a ring of `size` bytes */
  uint32_t size;           /* a power of two */
  uint64_t head, base;     /* stream offsets: bytes [base, head) are held */
  bool on;
  bool synced;             /* a PSB was written since START */
  bool overflow;           /* packets are being dropped */
  bool irq_enable, irq_armed;
  uint64_t lost;           /* bytes dropped in this overflow */
  uint64_t since_psb;
  uint64_t flow_mark;      /* stats.insns at the last flow packet: the next one's n is the difference */
  uint64_t tcyc;           /* cycle of the last timed packet */
  uint64_t last_cyc;       /* cycle of the last instruction traced */
  uint64_t expect_pc;      /* the next PC of sequential flow */
  uint32_t pid, tid;
  int hint;                /* the kernel entry the machine announced (enum trace_async), 0 none */
  uint64_t hint_pc;        /* a system call's return PC */
  uint64_t run_icount;     /* the CPU's retired count when this run of the executor began */
  uint64_t run_mark;       /* stats.insns when this run began: the difference were traced in it
                            * (one may not retire: a fault) */
  /* Where the unit takes the retired count and the cycle count from. */
  const uint64_t *icount;
  uint64_t (*now)(void *ctx);
  void *now_ctx;
  /* Firmware state: the busy model. */
  uint64_t rng;
  unsigned flushing;       /* firmware calls left that answer BUSY after a STOP */
  unsigned busy_inject;    /* tests: the next N calls answer BUSY */
  bool stop_stuck;         /* tests: STOP answers BUSY forever */
  struct trace_unit_stats stats;
};

/* A unit with no memory yet (SETUP gives it). icount: the CPU's retired
 * count; now: its cycle clock. seed: the busy model's. */
void trace_unit_init(struct trace_unit *u, const uint64_t *icount, uint64_t (*now)(void *ctx), void *now_ctx,
                     uint64_t seed);
void trace_unit_fini(struct trace_unit *u);

/* One instruction about to commit on the unit's CPU (call only when it
 * will commit at this boundary: not when an interrupt is taken first) in
 * task pid/tid at `cycle`. The caller tests u->on first (the cost when off).
 * One counter moves per instruction (stats.insns); the rest is derived. */
void trace_unit_step(struct trace_unit *u, const struct uarch_insn *ui, uint64_t cycle, uint32_t pid, uint32_t tid);
/* The same on a functional CPU: at trace_unit_derived_cycle, found after the
 * run is settled (the executor's count is then read once). */
void trace_unit_step_derived(struct trace_unit *u, const struct uarch_insn *ui, uint32_t pid, uint32_t tid);

/* The kernel is entered for kind: an interrupt, or a system call (SYSCALL,
 * or EXEC and SIGRETURN for the calls that do not return where they were
 * made; the caller knows which) that returns to resume. */
void trace_unit_kernel_entry(struct trace_unit *u, int kind, uint64_t resume);

/* True when the unit asks for its half-full interrupt before the next
 * instruction (it disarms until a dump brings it below half again). */
static inline bool trace_unit_irq(struct trace_unit *u)
{
  if (!u->irq_armed || u->head - u->base < u->size / 2) return false;
  u->irq_armed = false;
  u->stats.irqs++;
  return true;
}

/* The cycle count of a functional CPU: one cycle per retired instruction
 * (667 MHz at 1.5 ns per instruction, docs/machine.md). */
uint64_t trace_unit_derived_cycle(const struct trace_unit *u);

/* ---- the firmware call (PALcode), as H_HTM is the hypervisor's ----
 * pal_trace(op, cpu, phys_addr, size, offset): returns a TRACE_PAL_* code,
 * and *ret what the op answers (DUMP: bytes; STATUS: see below). */
enum trace_pal_op {
  TRACE_PAL_SETUP = 1,   /* size: trace memory bytes (power of two, 8 KB..16 MB) */
  TRACE_PAL_START = 2,   /* offset bit 0: raise the half-full interrupt */
  TRACE_PAL_STOP = 3,
  TRACE_PAL_DUMP = 4,    /* copy stream bytes from `offset` to phys_addr, at most size */
  TRACE_PAL_STATUS = 5,  /* ret[0] head, ret[1] base, ret[2] flags, ret[3] lost bytes */
  TRACE_PAL_RESET = 6,   /* stop, free the memory, forget the stream */
};
enum trace_pal_rc {
  TRACE_PAL_OK = 0,        /* done; DUMP: ret[0] bytes, all that was there */
  TRACE_PAL_PARTIAL = 1,   /* DUMP: ret[0] bytes copied, more remain */
  TRACE_PAL_BUSY = 2,      /* retry later (the unit is flushing) */
  TRACE_PAL_NO_DATA = 3,   /* DUMP: stopped and nothing left */
  TRACE_PAL_PARAM = -1,    /* bad argument (alignment, range, offset) */
  TRACE_PAL_STATE = -2,    /* not set up, or running when it must not be */
};
#define TRACE_STATUS_ON 1u
#define TRACE_STATUS_OVERFLOW 2u

/* The machine's firmware: its units and its RAM. */
struct trace_fw {
  struct trace_unit *units[8];
  int nunits;
  struct physmem *phys;
  uint64_t phys_bytes;
  uint64_t calls, busy_answers;
  /* Told when a unit starts or stops (a functional CPU then installs or
   * removes the per-instruction hook the unit needs); may be NULL. */
  void (*power)(void *ctx, int cpu, bool on);
  void *ctx;
};

/* DUMP writes whole pages: phys_addr and size are multiples of PHYS_PAGE, and
 * the end of the copied data is padded with PAD bytes to the page's end (an
 * OK answer's end is a packet boundary; a PARTIAL one fills every page).
 * The writes are raw physical writes: frame after frame from phys_addr,
 * whatever those frames belong to. */
int pal_trace(struct trace_fw *fw, int op, int cpu, uint64_t phys_addr, uint64_t size, uint64_t offset,
              uint64_t ret[4]);

#endif
