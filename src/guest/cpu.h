/* The Alpha CPU as the functional core sees it: the architectural context of one
 * thread (struct axp_ctx), the per-CPU executor state (struct cpu), and the
 * interpreter entry point. The executor stops at system calls and exceptions;
 * the kernel layer handles them and resumes it. Invariants: r[31] and f[31] are
 * always 0; writes to them land in the sink slots r[32]/f[32]. */
#ifndef GUEST_CPU_H
#define GUEST_CPU_H
#include <stdint.h>
#include <stdbool.h>
#include "guest/jit.h"
#include "guest/mem.h"
#include "isa/isa.h"

/* What the functional core knows about an instruction before it commits. */
struct uarch_insn {
  uint64_t pc;
  const struct axp_insn *d;      /* decoded instruction */
  uint64_t ea;                   /* effective address of a load or store */
  uint64_t pa;                   /* its physical address, when pa_valid (else ea is used) */
  bool pa_valid;
  bool fault;                    /* the access's page got its frame now: a demand-zero fault */
  uint64_t next_pc;              /* the architecturally next PC */
  bool taken;                    /* conditional branch direction */
  bool unaligned;                /* the access takes the unaligned trap + fix-up */
  bool kernel;                   /* executed in kernel mode (modelled kernel code) */
  unsigned asn;                  /* address-space number (the process) for TLBs */
};


struct axp_ctx {
  uint64_t r[33];      /* integer registers; [32] is the $31 write sink */
  uint64_t f[33];      /* FP registers as raw bits; [32] is the $f31 sink */
  uint64_t pc;
  uint64_t fpcr;
  uint64_t swcr;       /* Linux ieee_state: the software FP control word */
  uint64_t unique;     /* PALcode per-thread value: the TLS pointer */
  uint64_t lock_addr;  /* LL/SC lock, valid when lock_valid */
  bool lock_valid;
  uint8_t lock_size;   /* 4 or 8: the size of the ld*_l */
  uint64_t lock_value; /* what the ld*_l read: st*_c fails if memory changed since */
  uint32_t uac;        /* UAC_* bits of osf_setsysinfo(SSI_NVPAIRS) */
};

/* Why the executor returned. */
enum axp_stop {
  AXP_STOP_BUDGET,     /* instruction budget used up; pc = next instruction */
  AXP_STOP_CALLSYS,    /* call_pal callsys; pc = the instruction after it */
  AXP_STOP_TRAP,       /* an exception; cpu->trap says which, pc as Linux sets it */
  AXP_STOP_INTERRUPT,  /* the timing hook asked for an interrupt before pc */
};

/* The timing side of a CPU, installed by whoever composes a timed machine (the
 * guest layer knows nothing of the timing model). `before` runs for every
 * instruction before it commits; it returns true to take an interrupt first. */
struct cpu_timing {
  bool (*before)(void *ctx, const struct uarch_insn *ui);
  void *ctx;
  /* Functional warming in translated code (axp_run_warm, optional): room
   * says how many instructions translated code may run before `before` must
   * see one (0: none); warm is told of the instructions translated code
   * describes, a batch of n at a time in program order (guest/jit.h; an
   * access's b is its physical address here; an event's left counts down
   * from cpu.warm_budget0, the room taken). Every instruction translated
   * code runs counts in cpu.warm_skipped once its run is over, those told
   * to warm included. */
  uint64_t (*room)(void *ctx);
  void (*warm)(void *ctx, const struct jit_warm_event *ev, size_t n);
};

/* A synchronous exception as the kernel would turn it into a signal. Signal
 * numbers are Alpha's (OSF) numbering; codes are Linux si_codes. */
struct axp_trap {
  int sig;
  int code;
  uint64_t addr;       /* si_addr */
  int64_t trapno;      /* si_trapno (gentrap's a0) */
};

#define AXP_UAC_NOPRINT 1
#define AXP_UAC_NOFIX   2
#define AXP_UAC_SIGBUS  4

/* Per-PC counts of fixed-up unaligned accesses (open addressing, grows). */
struct pc_counts {
  uint64_t *pc, *count;
  uint32_t used, cap;
};

struct task;

struct cpu {
  int id;
  struct task *task;           /* the task on this CPU, NULL when idle */
  bool need_resched;           /* its time slice is over */
  uint64_t slice_left;         /* instructions left in a functional time slice */
  uint64_t idle_ns;            /* time this CPU spent idle while others ran */
  uint64_t icount;             /* instructions retired */
  uint64_t unaligned_fixups;
  uint64_t unaligned_last_pc, unaligned_last_va;   /* the last fix-up's (traps.c unaligned[1]) */
  struct pc_counts unaligned;  /* per PC, for the trap model */
  struct axp_trap trap;        /* valid after AXP_STOP_TRAP */
  uint64_t (*rpcc)(void *ctx); /* cycle counter source for rpcc, and its ctx */
  void *rpcc_ctx;
  const struct cpu_timing *timing;   /* NULL: functional only */
  bool shadow_on;              /* keep the running task's shadow call stack (guest/shadow.h) */
  unsigned asn;                /* address-space number of the running task */
  /* Functional warming: run axp_run_warm instead of axp_run_timed; the
   * instructions it ran without the hook since the hook last took them (the
   * hook resets this), and the fetch line (pc >> 6) it last saw. */
  bool warm_build;
  uint64_t warm_skipped, warm_line;
  /* The budget translated code had when it started (the `done` of
   * cpu_timing.warm). */
  uint64_t warm_budget0;
  /* The translator (guest/jit.h): a block is translated once its first
   * instruction has been reached this many times by a taken branch or a page
   * change; 0 interprets everything. axp_run and axp_run_warm translate. */
  uint8_t jit_hot;
  /* Fetch cache: the last code page entered. */
  struct guest_mm *fc_mm;
  uint64_t fc_gen, fc_page;
  struct guest_code *fc_code;
};

/* The default of cpu.jit_hot: blocks reached fewer times (most of ld.so's
 * start-up) are cheaper to interpret than to translate (docs/performance.md). */
#define AXP_JIT_HOT 8

/* EV67 identification (Alpha Architecture Handbook 4.11; ref alpha-linux-abi 0). */
#define AXP_IMPLVER_EV6 2
#define AXP_AMASK_EV67  0x1307u   /* BWX FIX CIX MVI precise-trap + bit 12 */

/* Runs ctx in mm for at most budget instructions. Returns an enum axp_stop. */
int axp_run(struct cpu *cpu, struct axp_ctx *c, struct guest_mm *mm, uint64_t budget);

/* The same with the timing hook called before every instruction (cpu->timing
 * must be set). */
int axp_run_timed(struct cpu *cpu, struct axp_ctx *c, struct guest_mm *mm, uint64_t budget);

/* The same for functional warming (cpu->warm_build): the hook runs only
 * for loads and stores, control transfers, CMOV, BIS and CPYS, and the
 * first instruction of each 64-byte line; the others count in
 * cpu->warm_skipped. */
int axp_run_warm(struct cpu *cpu, struct axp_ctx *c, struct guest_mm *mm, uint64_t budget);

/* Returns the decoded instruction at pc for a speculative (wrong-path) fetch,
 * decoding it if needed, or NULL when pc is not executable. The pointer stays
 * valid until the page's code is reset or unmapped. */
const struct axp_insn *axp_fetch_decoded(struct cpu *cpu, struct guest_mm *mm, uint64_t pc);

/* Installs the executor's code-cache hooks in a new address space. */
void axp_mm_init(struct guest_mm *mm);

/* Returns how often pc took the unaligned fix-up. */
uint64_t pc_counts_get(const struct pc_counts *pcs, uint64_t pc);
void pc_counts_free(struct pc_counts *pcs);

#endif
