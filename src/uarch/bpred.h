/* The 21264 branch-prediction front end: the tournament direction predictor
 * (local + global + choice), the return-address stack, a per-PC jump-target
 * table standing in for the line predictor on JMP/JSR, and the stWait table.
 * All state lives in one struct sized from the config and allocated once;
 * predicting and training never allocate. Histories are trained at resolve, in
 * program order (the timing model is driven in program order), so there is no
 * speculative history update to repair. Sources: docs/timing.md "Branch
 * prediction". */
#ifndef UARCH_BPRED_H
#define UARCH_BPRED_H
#include <stdbool.h>
#include <stdint.h>
#include "isa/isa.h"
#include "uarch/uarch.h"

/* stWait bits are all cleared every this many cycles (HRM 2.11.1.2; 65536 with
 * I_CTL[ST_WAIT_64K] set, which we do not model). */
#define BPRED_STWAIT_CLEAR_CYCLES 16384u

/* How the front end treats a control-flow instruction. */
enum bpred_kind {
  BPRED_NONE,     /* not control flow (CALL_PAL included: modelled kernel) */
  BPRED_COND,     /* conditional branch: tournament predictor, PC-relative target */
  BPRED_UNCOND,   /* BR, BSR: always taken, target computed at slot, never missed */
  BPRED_JUMP,     /* JMP, JSR: target from the jump-target table */
  BPRED_RETURN    /* RET, JSR_COROUTINE: target from the return stack */
};

/* Counts since bpred_create, kept by bpred_update (correct-path instructions only). */
struct bpred_stats {
  uint64_t cond, cond_mispred;     /* conditional branches; direction misses */
  uint64_t cond_global;            /* ... of which the choice picked the global predictor */
  uint64_t uncond;                 /* BR/BSR (never mispredicted) */
  uint64_t jump, jump_mispred;     /* JMP/JSR; target misses */
  uint64_t ret, ret_mispred;       /* RET/JSR_COROUTINE; target misses */
};

struct bpred;

/* A predictor sized from cfg (cfg is read only here, not kept), with cleared
 * histories and stacks. NULL on allocation failure or when a table size is zero
 * or not a power of two. The caller owns it and frees it with bpred_destroy. */
struct bpred *bpred_create(const struct ev67_config *cfg);
/* Frees bp and its tables; NULL is allowed. */
void bpred_destroy(struct bpred *bp);

/* The front-end class of decoded instruction d. */
enum bpred_kind bpred_classify(const struct axp_insn *d);

/* Pure lookup, no state change (so wrong-path fetches may call it freely).
 * For a control-flow instruction d at pc, sets *taken (always true except for a
 * conditional branch predicted not taken) and *target (the predicted next fetch
 * PC) and returns true; returns false, setting nothing, for anything else. */
bool bpred_predict(const struct bpred *bp, uint64_t pc, const struct axp_insn *d,
                   bool *taken, uint64_t *target);

/* Trains with the actual outcome of a correct-path instruction, in program
 * order, before any later correct-path instruction is predicted: taken is the
 * conditional-branch direction (ignored otherwise), next_pc the architecturally
 * next PC. Returns true if bpred_predict would have mispredicted it (direction
 * for a conditional branch, target for a jump or return). False for
 * non-control-flow instructions, which leave the state alone. */
bool bpred_update(struct bpred *bp, uint64_t pc, const struct axp_insn *d, bool taken,
                  uint64_t next_pc);
/* The same by instruction id (functional warming's events carry it). */
bool bpred_update_id(struct bpred *bp, uint64_t pc, unsigned id, bool taken, uint64_t next_pc);

/* The counters since bpred_create. */
const struct bpred_stats *bpred_stats(const struct bpred *bp);

/* The stWait bit of the instruction at pc (HRM 2.11.1.2): a load with it set
 * waits for all older stores to issue. */
bool bpred_stwait_get(const struct bpred *bp, uint64_t pc);
/* Sets the stWait bit of the load at pc after it took a store-load order replay. */
void bpred_stwait_set(struct bpred *bp, uint64_t pc);
/* Advances to absolute cycle `now` (non-decreasing): clears the whole table
 * each time now crosses a multiple of BPRED_STWAIT_CLEAR_CYCLES. */
void bpred_stwait_tick(struct bpred *bp, uint64_t now);

#endif
