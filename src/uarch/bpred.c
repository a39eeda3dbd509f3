/* The 21264 branch-prediction front end (see bpred.h). Invariants: every table
 * size is a power of two, so indices are masks; histories hold only their low
 * *_bits; counters stay in [0, max]. Structural facts, from the HRM
 * (DS-0028B-TE) unless marked:
 *  - local: 1K x 10-bit histories indexed by VPC[11:2], each indexing 1K x 3-bit
 *    saturating counters; prediction = counter MSB (HRM 2.1.1.2, Fig. 2-3);
 *  - global: the taken/not-taken states of the 12 most recent branches index
 *    4K x 2-bit counters (HRM 2.1.1.2, Fig. 2-4); we shift in conditional
 *    branches only (the HRM says "branches"; BR/BSR would add constant 1s);
 *  - choice: the same path history indexes 4K x 2-bit counters choosing local
 *    or global (HRM 2.1.1.2, p. 2-5), trained toward the correct one only
 *    when the two disagree (the tournament rule of Kessler, IEEE Micro 1999,
 *    whose body we could not retrieve; gem5's TournamentBP does the same);
 *  - JMP/JSR/RET/JSR_COROUTINE differ only in the disp<15:14> hint that says
 *    what the prediction stack does: none / push / pop / pop then push (Alpha
 *    Architecture Handbook Table 4-4; HRM Table 6-5 for HW_RET); BSR pushes;
 *  - JMP/JSR targets: the line predictor, initialised to the next sequential
 *    line and retrained (HRM 2.2 stage 0); ours: a direct-mapped per-PC table
 *    of the last target, pc + 4 when untrained;
 *  - stWait: 1K x 1 bit, VPC indexed, set on a store-load order replay, all
 *    cleared every 16384 cycles (HRM 2.11.1.2; read on the EV68A HRM's
 *    identical p.2-32). Index VPC[11:2] is ours.
 * Reset state (HRM silent, ours): histories 0, direction counters weakly taken,
 * choice weakly local, return stack and jump table zero. */
#include <stdlib.h>
#include <string.h>
#include "uarch/bpred.h"
#include "util/assert.h"

struct bpred {
  /* tournament predictor */
  uint16_t *lhist;            /* local histories, [lhist_mask + 1] */
  uint8_t *lctr;              /* local counters, [lctr_mask + 1] */
  uint8_t *gctr;              /* global counters, [gctr_mask + 1] */
  uint8_t *choice;            /* choice counters, [choice_mask + 1]; >= 2: global */
  uint32_t lhist_mask, lctr_mask, gctr_mask, choice_mask;
  uint32_t ghist, ghist_mask; /* global path history, newest outcome in bit 0 */
  uint8_t lctr_max;
  /* return stack: ras[top] is the newest entry; circular, a push past the end
   * overwrites the oldest and a pop past the bottom reads stale entries */
  uint64_t *ras;
  uint32_t ras_n, ras_top;
  /* jump-target table, [jump_mask + 1], 0 = untrained */
  uint64_t *jump;
  uint32_t jump_mask;
  /* stWait bits, [stwait_mask / 64 + 1] words */
  uint64_t *stwait;
  uint32_t stwait_mask;
  uint64_t stwait_epoch;      /* now / BPRED_STWAIT_CLEAR_CYCLES at the last clear */
  struct bpred_stats stats;
};

/* True if n is a nonzero power of two. */
static bool pow2(uint64_t n)
{
  return n && !(n & (n - 1));
}

/* Fills n bytes at p with v and returns p (NULL stays NULL). */
static void *fill(void *p, int v, size_t n)
{
  return p ? memset(p, v, n) : p;
}

struct bpred *bpred_create(const struct ev67_config *cfg)
{
  if (!pow2(cfg->local_hist_entries) || cfg->local_hist_bits < 1 || cfg->local_hist_bits > 16 ||
      cfg->local_ctr_bits < 1 || cfg->local_ctr_bits > 8 || cfg->global_hist_bits < 1 ||
      cfg->global_hist_bits > 31 || !pow2(cfg->global_entries) || !pow2(cfg->choice_entries) ||
      cfg->ras_entries < 1 || !pow2(cfg->jump_entries) || !pow2(cfg->stwait_entries))
    return NULL;
  struct bpred *bp = calloc(1, sizeof *bp);
  if (!bp)
    return NULL;
  size_t nlctr = (size_t)1 << cfg->local_hist_bits;
  bp->lhist_mask = cfg->local_hist_entries - 1;
  bp->lctr_mask = (uint32_t)nlctr - 1;
  bp->gctr_mask = cfg->global_entries - 1;
  bp->choice_mask = cfg->choice_entries - 1;
  bp->ghist_mask = (UINT32_C(1) << cfg->global_hist_bits) - 1;
  bp->lctr_max = (uint8_t)((1u << cfg->local_ctr_bits) - 1);
  bp->ras_n = cfg->ras_entries;
  bp->jump_mask = cfg->jump_entries - 1;
  bp->stwait_mask = cfg->stwait_entries - 1;
  /* Every table size is a power of two, so indices are masks. */
  PM_ASSERT(pow2(bp->lhist_mask + 1ull) && pow2(bp->lctr_mask + 1ull) && pow2(bp->gctr_mask + 1ull) &&
            pow2(bp->choice_mask + 1ull) && pow2(bp->ghist_mask + 1ull) && pow2(bp->jump_mask + 1ull) &&
            pow2(bp->stwait_mask + 1ull));
  bp->lhist = calloc(cfg->local_hist_entries, sizeof *bp->lhist);
  bp->lctr = fill(malloc(nlctr), (bp->lctr_max + 1) / 2, nlctr);
  bp->gctr = fill(malloc(cfg->global_entries), 2, cfg->global_entries);
  bp->choice = fill(malloc(cfg->choice_entries), 1, cfg->choice_entries);
  bp->ras = calloc(cfg->ras_entries, sizeof *bp->ras);
  bp->jump = calloc(cfg->jump_entries, sizeof *bp->jump);
  bp->stwait = calloc(cfg->stwait_entries / 64 + 1, sizeof *bp->stwait);
  if (!bp->lhist || !bp->lctr || !bp->gctr || !bp->choice || !bp->ras || !bp->jump ||
      !bp->stwait) {
    bpred_destroy(bp);
    return NULL;
  }
  return bp;
}

void bpred_destroy(struct bpred *bp)
{
  if (!bp)
    return;
  free(bp->lhist);
  free(bp->lctr);
  free(bp->gctr);
  free(bp->choice);
  free(bp->ras);
  free(bp->jump);
  free(bp->stwait);
  free(bp);
}

static enum bpred_kind classify_id(unsigned id)
{
  switch (id) {
  case AXP_BR: case AXP_BSR:
    return BPRED_UNCOND;
  case AXP_JMP: case AXP_JSR:
    return BPRED_JUMP;
  case AXP_RET: case AXP_JSR_COROUTINE:
    return BPRED_RETURN;
  default:
    break;
  }
  uint8_t cls = id < AXP_NUM_IDS ? axp_info[id].cls : 0;
  return cls == AXP_CLS_IBR || cls == AXP_CLS_FBR ? BPRED_COND : BPRED_NONE;
}

enum bpred_kind bpred_classify(const struct axp_insn *d) { return classify_id(d->id); }

/* The three component predictions of the conditional branch at pc. */
struct tourney {
  uint32_t lh_idx, lctr_idx, g_idx, c_idx;
  bool local, global, use_global;
};

/* Looks up the local, global and choice tables for the branch at pc. */
static struct tourney tourney_lookup(const struct bpred *bp, uint64_t pc)
{
  PM_ASSERT(bp->ghist <= bp->ghist_mask);   /* histories hold only their low bits */
  struct tourney t;
  t.lh_idx = (uint32_t)(pc >> 2) & bp->lhist_mask;
  PM_ASSERT(bp->lhist[t.lh_idx] <= bp->lctr_mask);
  t.lctr_idx = bp->lhist[t.lh_idx] & bp->lctr_mask;
  t.g_idx = bp->ghist & bp->gctr_mask;
  t.c_idx = bp->ghist & bp->choice_mask;
  t.local = bp->lctr[t.lctr_idx] > bp->lctr_max / 2;
  t.global = bp->gctr[t.g_idx] >= 2;
  t.use_global = bp->choice[t.c_idx] >= 2;
  return t;
}

/* Moves the saturating counter *c one step up (true) or down, within [0, max].
 * Written without branches: outcomes are data the host cannot predict. */
static void sat(uint8_t *c, bool up, uint8_t max)
{
  PM_ASSERT(*c <= max);
  int v = *c + (up ? 1 : -1);
  v = v < 0 ? 0 : v;
  *c = (uint8_t)(v > max ? max : v);
}

/* The return-stack top: the predicted return address. */
static uint64_t ras_peek(const struct bpred *bp)
{
  PM_ASSERT(bp->ras_top < bp->ras_n);
  return bp->ras[bp->ras_top];
}

/* Pushes a return address, overwriting the oldest entry when full. */
static void ras_push(struct bpred *bp, uint64_t ret)
{
  PM_ASSERT(bp->ras_top < bp->ras_n);
  bp->ras_top = bp->ras_top + 1 == bp->ras_n ? 0 : bp->ras_top + 1;
  bp->ras[bp->ras_top] = ret;
}

/* Drops the top entry (the slot stays, stale, for a later wrapped pop). */
static void ras_pop(struct bpred *bp)
{
  PM_ASSERT(bp->ras_top < bp->ras_n);
  bp->ras_top = bp->ras_top ? bp->ras_top - 1 : bp->ras_n - 1;
}

/* The jump-table prediction for the JMP/JSR at pc. */
static uint64_t jump_lookup(const struct bpred *bp, uint64_t pc)
{
  uint64_t t = bp->jump[(pc >> 2) & bp->jump_mask];
  return t ? t : pc + 4;
}

bool bpred_predict(const struct bpred *bp, uint64_t pc, const struct axp_insn *d,
                   bool *taken, uint64_t *target)
{
  switch (bpred_classify(d)) {
  case BPRED_COND: {
    struct tourney t = tourney_lookup(bp, pc);
    *taken = t.use_global ? t.global : t.local;
    *target = *taken ? pc + 4 + (uint64_t)(int64_t)d->imm : pc + 4;
    return true;
  }
  case BPRED_UNCOND:
    *taken = true;
    *target = pc + 4 + (uint64_t)(int64_t)d->imm;
    return true;
  case BPRED_JUMP:
    *taken = true;
    *target = jump_lookup(bp, pc);
    return true;
  case BPRED_RETURN:
    *taken = true;
    *target = ras_peek(bp);
    return true;
  default:
    return false;
  }
}

/* Trains the tournament predictor with the outcome of the branch at pc;
 * returns true if its direction was mispredicted. */
static bool cond_update(struct bpred *bp, uint64_t pc, bool taken)
{
  struct tourney t = tourney_lookup(bp, pc);
  bool pred = t.use_global ? t.global : t.local;
  if (t.local != t.global)
    sat(&bp->choice[t.c_idx], t.global == taken, 3);
  sat(&bp->lctr[t.lctr_idx], taken, bp->lctr_max);
  sat(&bp->gctr[t.g_idx], taken, 3);
  bp->lhist[t.lh_idx] = (uint16_t)(((bp->lhist[t.lh_idx] << 1) | taken) & bp->lctr_mask);
  bp->ghist = ((bp->ghist << 1) | taken) & bp->ghist_mask;
  bp->stats.cond++;
  bp->stats.cond_global += t.use_global;
  bp->stats.cond_mispred += pred != taken;
  return pred != taken;
}

bool bpred_update(struct bpred *bp, uint64_t pc, const struct axp_insn *d, bool taken,
                  uint64_t next_pc)
{
  return bpred_update_id(bp, pc, d->id, taken, next_pc);
}

bool bpred_update_id(struct bpred *bp, uint64_t pc, unsigned id, bool taken, uint64_t next_pc)
{
  bool miss;
  switch (classify_id(id)) {
  case BPRED_COND:
    return cond_update(bp, pc, taken);
  case BPRED_UNCOND:
    if (id == AXP_BSR)
      ras_push(bp, pc + 4);
    bp->stats.uncond++;
    return false;
  case BPRED_JUMP:
    miss = jump_lookup(bp, pc) != next_pc;
    bp->jump[(pc >> 2) & bp->jump_mask] = next_pc;
    if (id == AXP_JSR)
      ras_push(bp, pc + 4);
    bp->stats.jump++;
    bp->stats.jump_mispred += miss;
    return miss;
  case BPRED_RETURN:
    miss = ras_peek(bp) != next_pc;
    ras_pop(bp);
    if (id == AXP_JSR_COROUTINE)
      ras_push(bp, pc + 4);
    bp->stats.ret++;
    bp->stats.ret_mispred += miss;
    return miss;
  default:
    return false;
  }
}

const struct bpred_stats *bpred_stats(const struct bpred *bp)
{
  return &bp->stats;
}

bool bpred_stwait_get(const struct bpred *bp, uint64_t pc)
{
  uint32_t i = (uint32_t)(pc >> 2) & bp->stwait_mask;
  return (bp->stwait[i / 64] >> (i % 64)) & 1;
}

void bpred_stwait_set(struct bpred *bp, uint64_t pc)
{
  uint32_t i = (uint32_t)(pc >> 2) & bp->stwait_mask;
  bp->stwait[i / 64] |= UINT64_C(1) << (i % 64);
}

void bpred_stwait_tick(struct bpred *bp, uint64_t now)
{
  uint64_t epoch = now / BPRED_STWAIT_CLEAR_CYCLES;
  if (epoch != bp->stwait_epoch) {
    memset(bp->stwait, 0, (bp->stwait_mask / 64 + 1) * sizeof *bp->stwait);
    bp->stwait_epoch = epoch;
  }
}
