/* The functional core's translator: hot blocks of predecoded Alpha
 * instructions become x86-64 code, so that `axp_run` (the functional build of
 * the executor, never the timed one) pays a few host instructions per guest
 * instruction instead of an interpreter dispatch (docs/performance.md).
 *
 * A block starts at a branch target and runs on through conditional branches
 * (side exits) to the first unconditional one, to an instruction it does not
 * translate, to the end of its 8 KB page, or to JIT_MAX_INSNS instructions.
 * The contract that keeps the translated code exactly the interpreter:
 *  - A block takes its length from the budget when it starts and gives back
 *    what it did not run at any exit, so the budget is exact at every exit;
 *    a block that does not fit in the budget is not entered.
 *  - Anything but the common case leaves for the interpreter at the
 *    instruction concerned (JIT_EXIT_INTERP): a TLB miss (first touch, a
 *    misaligned access, a store to a page with code, a fault), an
 *    instruction it does not translate (system calls, LL/SC, traps, IEEE
 *    operate...). The interpreter runs that instruction as it always does.
 *  - Translated code never writes a page that has code (such a page has no
 *    write-TLB entry), so no page's code changes while its blocks run; the
 *    executor drops a page's blocks when its code is reset.
 *  - Direct jumps from block to block (jit_link) stay within one page, so
 *    that dropping a page's blocks leaves no jump into them. Branches to
 *    other pages and indirect ones go through the jump cache, a table from
 *    pc to block that the executor fills (jit_remember) and empties
 *    whenever a block may have gone (jit_forget): a page's code reset, a
 *    change of the mappings, a reset of the cache.
 * A warming cache (jit_create with a table of hooked ids) serves
 * axp_run_warm (functional warming, docs/sampled.md): its blocks also
 * append an event to the frame's buffer, in program order, for every
 * instruction the warming build would describe to its hook: the ids the
 * table names (loads and stores after their TLB hit, control transfers,
 * CMOV...; BIS and CPYS only in the NOP forms the timing model squashes),
 * and the first instruction of a block and of each 64-byte fetch line. An
 * instruction is described only once it can no longer leave for the
 * interpreter, so none is described twice. Appending costs a few stores;
 * a C call per event (with the registers it clobbers) cost more than the
 * warming it fed (docs/sampled.md, "Speed").
 * Host-specific: on a host other than x86-64, jit_create returns NULL and
 * everything is interpreted. */
#ifndef GUEST_JIT_H
#define GUEST_JIT_H
#include <stdbool.h>
#include <stdint.h>
#include "isa/isa.h"

/* The executor's ids beyond the instruction table, in its decoded slots. */
enum {
  XID_PAGE_END = AXP_NUM_IDS,  /* sentinel after the last slot of a page */
  XID_ILLEGAL,                 /* reserved opcode, VAX FP, privileged PALcode */
  XID_NOP,                     /* loads into $31/$f31 (prefetch hints), unop */
  XID_COUNT
};

/* The longest block, in guest instructions. */
#define JIT_MAX_INSNS 128

/* Why translated code returned. */
enum jit_exit {
  JIT_EXIT_NEXT = 1,    /* pc is the start of the next block (a branch target, a new page) */
  JIT_EXIT_INTERP = 2,  /* the instruction at pc is the interpreter's to run */
};

/* An event of a warming cache's code: for a load or store a = the effective
 * address and b = its physical address (the host address less frame.ram,
 * when below frame.ram_bytes), else JIT_WARM_UNKNOWN; for a prefetch or
 * unop (XID_NOP) a = the effective address, b = JIT_WARM_UNKNOWN; for a
 * conditional branch a = taken (0 or 1) and b = the target; for br, bsr
 * and the jumps a = 1, b = the target; for the others a = b = 0. left is
 * the budget left (the current block's length already taken from it). */
#define JIT_WARM_UNKNOWN (~(uint64_t)0)
struct jit_warm_event {
  const struct axp_insn *in;
  uint64_t pc, a, b, left;
  uint32_t id;          /* in->id, so that the model need not read *in for it */
};

/* What translated code runs on; its offsets are built into the code. */
struct jit_frame {
  uint64_t left;        /* instructions left in the budget */
  uint64_t pc;          /* at an exit: the next instruction */
  uint64_t kind;        /* at an exit: enum jit_exit */
  uint8_t *link;        /* at a NEXT exit through a direct branch within the page: the
                           jump to point at the next block (jit_link), else left alone */
  uint64_t *r;          /* axp_ctx.r (the FP registers follow it, axp_ctx.f) */
  const void *tlb_r;    /* guest_mm.tlb_r (tlb_w follows it) */
  const void *jump;     /* the jump cache (filled in by jit_run) */
  const uint8_t *ram;   /* a warming cache's: guest_mm.ram and ram_bytes */
  uint64_t ram_bytes;
  /* A warming cache's events go to warm_pos, which moves on; when it reaches
   * warm_end, translated code calls warm_flush(warm_ctx), which takes the
   * events from the buffer's start and sets warm_pos back to it. The caller
   * of jit_run takes what is left there when it returns. */
  struct jit_warm_event *warm_pos, *warm_end;
  void (*warm_flush)(void *ctx);
  void *warm_ctx;
};

/* One address space's translated code (guest_mm.jit). */
struct jit_cache;

/* Returns an empty cache, or NULL when this host cannot run translated code.
 * hooked: NULL for the functional build's cache, else a warming cache's
 * table by id (XID_COUNT entries) of the instructions its blocks describe
 * as warm events. */
struct jit_cache *jit_create(const bool *hooked);
void jit_destroy(struct jit_cache *jc);

/* Gives the decoded instruction in slot i (0..GUEST_PAGE_INSNS-1) of the
 * page being translated, decoding it if need be. */
typedef const struct axp_insn *(*jit_slot_fn)(void *ctx, unsigned i);

/* Translates the block that starts at slot `first` of the code page at
 * `page`. Returns its entry, or NULL when its first instruction is not one
 * the translator handles, or when the cache is full (*full set: drop every
 * block, jit_reset, and translate again). */
const void *jit_translate(struct jit_cache *jc, uint64_t page, unsigned first,
                          jit_slot_fn slot, void *ctx, bool *full);
/* Forgets every block (the caller has dropped every pointer to them). */
void jit_reset(struct jit_cache *jc);
/* Counts the resets: a link site from before a reset is gone. */
uint64_t jit_generation(const struct jit_cache *jc);

/* Runs translated code from entry until it exits; f->kind and f->pc say
 * where the interpreter goes on. f->link must be NULL on entry. */
void jit_run(struct jit_cache *jc, struct jit_frame *f, const void *entry);
/* Points the direct jump at site (from a NEXT exit's f->link) at entry, a
 * block of the same page, so the next pass goes straight there. */
void jit_link(uint8_t *site, const void *entry);

/* The jump cache: translated code that branches to pc goes straight to
 * entry, the block starting there, until jit_forget. */
void jit_remember(struct jit_cache *jc, uint64_t pc, const void *entry);
void jit_forget(struct jit_cache *jc);

/* Blocks translated and bytes of code, for --stats and tests. */
void jit_counts(const struct jit_cache *jc, uint64_t *blocks, uint64_t *bytes);

#endif
