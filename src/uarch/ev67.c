/* The EV67 timing model: one pass per instruction over fixed-size structures.
 * Each correct-path instruction gets, in order: a fetch slot (4-wide aligned
 * blocks, Icache/ITB), a map cycle (in order, 4 per cycle, limited by the
 * 20-group/80-instruction window, rename registers, queue entries and LQ/SQ), an
 * issue cycle (the earliest cycle at or after its operands are ready, with the
 * cross-cluster delay, in which an allowed pipe is free), a completion cycle
 * (class latency, or the memory system's for loads) and an in-order retire
 * cycle. Mispredicts fetch the predicted path until the branch resolves; traps
 * kill the younger instructions fetched before the trap and refetch. Issue-
 * queue entries leave when they issue, out of order; docs/timing.md says
 * where the model differs from the chip. It runs for every instruction, so
 * the per-instruction paths avoid searches: classify() is cached, operand
 * readiness is kept per cluster, queue occupancy is counted per cycle. */
#include "uarch/ev67.h"
#include "uarch/bpred.h"
#include "uarch/memsys.h"
#include "util/assert.h"
#include <stdlib.h>
#include <string.h>

#define RING 4096        /* cycles of pipe reservations kept */
#define MAXQ 128         /* upper bound for any ring sized from the config */
#define STW_STORES 1024  /* recent stores by quadword (stw_near): direct mapped */
#define STW_VALID (UINT64_C(1) << 63)

enum { P_U0, P_U1, P_L0, P_L1, P_FA, P_FM, NPIPES };
#define PM(p) (1u << (p))
#define INT_ANY (PM(P_U0) | PM(P_U1) | PM(P_L0) | PM(P_L1))
#define UPPER (PM(P_U0) | PM(P_U1))
#define LOWER (PM(P_L0) | PM(P_L1))
#define NOREG 64        /* "no register": reads as ready at cycle 0 */
#define NREGS 65
#define FREG(r) ((uint8_t)(32 + (r)))

/* What the timing model needs to know about an instruction's kind. */
struct uop {
  uint8_t src[3], dst;   /* register ids 0-31 int, 32-63 FP; NOREG */
  uint8_t pipes;         /* allowed pipes */
  uint8_t lat;           /* result latency (loads: filled from the memory system) */
  uint8_t busy;          /* cycles the pipe stays busy (unpipelined divide/sqrt) */
  uint8_t size;          /* memory access size */
  bool load : 1, store : 1, cond_branch : 1, jump : 1, nop : 1, serial : 1;
  bool ctl : 1;          /* control flow the front end predicts (bpred_classify != NONE) */
  bool cmov : 1;         /* CMOV: two instructions on the chip */
  bool fp_dst : 1;
  bool aligned_only : 1; /* takes the unaligned trap when misaligned */
};

struct store_rec { uint64_t addr, issue, seq; uint8_t size; };

/* The instruction holding an integer pipe in a cycle: its fate seq, its
 * destination, and whether it could have used the sibling pipe in the other
 * cluster (allowed there, operands seen there by then). */
struct pipe_owner { uint64_t seq; uint8_t dst; bool movable; };

#define SLOTC 1024       /* fetch blocks whose slotting is remembered */

/* classify() results, checked against the instruction word: it runs for every
 * fetched instruction. Indexed by PC, so straight-line code shares host cache
 * lines. */
#define UCACHE_BITS 13
#define UCACHE (1u << UCACHE_BITS)
struct ucache_ent { uint32_t raw; uint16_t tag; struct uop u; };   /* tag: id + 1, 0 empty */

/* An issue queue: the issue cycles of its entries, which leave out of order
 * when they issue. Counted per cycle in a ring (map time only moves forward,
 * so dropping the issued ones costs one step per simulated cycle); an entry
 * further ahead than the ring reaches goes to a small min-heap. */
#define CQ_RING 4096
struct cq {
  uint16_t cnt[CQ_RING];
  uint64_t base;            /* every entry before this cycle has left */
  unsigned n_ring, n_over;
  uint64_t over[MAXQ];
};

struct ev67 {
  struct ev67_config cfg;
  ev67_fetch_fn fetch;
  ev67_fate_fn sink;
  void *ctx;
  struct bpred *bp;
  struct memsys *ms;
  struct ev67_stats stm[2];      /* ground truth: user mode, kernel mode */
  struct ev67_stats *st;         /* that of the instruction being stepped */
  uint64_t seq;
  /* fetch: aligned blocks of fetch_width instructions (block_mask = their
   * byte size - 1) */
  uint64_t fetch_cycle, block_pc, next_fetch_pc, redirect, block_mask;
  bool block_icm;
  /* map */
  uint64_t last_map;
  unsigned map_in_cycle;
  uint64_t group_retire[MAXQ];
  unsigned ngroups, group_idx;
  uint64_t cur_group_pc;
  uint64_t int_ren[MAXQ], fp_ren[MAXQ], lq[MAXQ], sq[MAXQ];
  unsigned int_ren_n, fp_ren_n, int_ren_i, fp_ren_i, lq_i, sq_i;
  struct cq iq, fq;
  uint64_t serial_after;   /* later instructions map after this cycle (trapb, PAL) */
  /* registers: the cycle a value can be used from cluster 0, cluster 1 and
   * the FP side (the integer cluster that did not produce it sees the
   * cross-cluster delay) */
  uint64_t rview[3][NREGS];
  /* the fate seq of the latest writer and of the latest reader of each
   * register: an older instruction may still move to the other cluster
   * (issue_at) while it is the writer and nothing has read its result */
  uint64_t wr_seq[NREGS], rd_seq[NREGS];
  /* issue_at's candidate pipes by allowed-pipe mask, in arbitration order,
   * ending in 0xFF */
  uint8_t cand[64][NPIPES + 1];
  struct ucache_ent ucache[UCACHE];
  /* pipes */
  uint64_t ring[RING];   /* cycle << 8 | the pipes busy in it (PM bits) */
  struct pipe_owner own[RING][4];   /* who holds each integer pipe in that cycle */
  /* Ebox slotting of recent fetch blocks (slotted_pipes) */
  struct slot_ent { uint64_t block; uint32_t raw; uint16_t asn; uint8_t upper, valid; } slotc[SLOTC];
  /* retire */
  uint64_t last_retire;
  unsigned retire_in_cycle;
  /* store ordering: the latest sq_entries stores */
  struct store_rec stores[MAXQ];
  unsigned store_i;
  uint64_t store_issue_max;     /* latest issue cycle among the recorded stores */
  struct uop_fate cur;
  /* functional warming (ev67_warm) */
  struct ev67_stats warm_st[2];
  uint8_t warm_kind[AXP_NUM_IDS], warm_size[AXP_NUM_IDS];   /* WK_* and access size by id */
  uint64_t warm_line;           /* the fetch line last warmed, | 1 when valid */
  unsigned warm_asn;
  /* The stWait table is trained by replays, which only the timing model
   * sees. Per table entry, the timing model counts the loads it ran with
   * the bit clear and a store to their quadword among the last sq_entries
   * stores (the only loads that can replay), and how many of them
   * replayed; warming sets a clear bit with that probability (a seeded
   * draw) for the loads that have such a store, as the replay would have. */
  uint32_t *stw_clear, *stw_replays;
  uint64_t stw_rng;
  uint64_t stw_quad[STW_STORES];   /* recent stores by quadword: ea >> 3 | 1 << 63 */
  uint64_t stw_seq[STW_STORES];    /* their number in nstores */
  uint64_t nstores;                /* stores seen, timed and warmed */
  uint64_t warm_dline;          /* the data line warming last accessed, | 1 when valid, | 2 when stored */
  unsigned warm_dasn;
};

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Arbitration (HRM 2.1.1.6, p. 2-7): an integer-queue entry requests each
 * pipe of its subcluster (upper U0/U1 or lower L0/L1, fixed at slotting)
 * whose cluster sees its operands; the arbiters serve the oldest requesters
 * first and give an instruction that requests both pipes L0 (lower) or U1
 * (upper). Which cluster last wrote a register plays no part once the value
 * has reached both clusters. Instructions are timed oldest first, so a pipe
 * already reserved in a cycle went to an older requester. */
static const uint8_t pipe_order[NPIPES] = { P_L0, P_L1, P_U1, P_U0, P_FA, P_FM };
static const uint8_t pipe_cluster[NPIPES] = { 0, 1, 0, 1, 2, 2 };
static const uint8_t cluster_pipes[3] = { PM(P_U0) | PM(P_L0), PM(P_U1) | PM(P_L1),
                                          PM(P_FA) | PM(P_FM) };

static void classify(const struct ev67_config *c, const struct axp_insn *d, struct uop *u);

/* What warming needs of an instruction, by id (classify on registers that
 * are not $31; only a BIS or CPYS may then still be a NOP). */
enum { WK_LOAD = 1, WK_STORE = 2, WK_CTL = 4, WK_COND = 8, WK_JUMP = 16, WK_CMOV = 32, WK_ALIGNED = 64,
       WK_MAYBE_NOP = 128 };
static void warm_kinds(struct ev67 *m)
{
  for (unsigned id = 0; id < AXP_NUM_IDS; id++) {
    struct axp_insn d = { .id = (uint16_t)id, .ra = 1, .rb = 2, .rc = 3 };
    struct uop u;
    classify(&m->cfg, &d, &u);
    m->warm_kind[id] = (uint8_t)((u.load ? WK_LOAD : 0) | (u.store ? WK_STORE : 0) | (u.ctl ? WK_CTL : 0) |
                                 (u.cond_branch ? WK_COND : 0) | (u.jump ? WK_JUMP : 0) | (u.cmov ? WK_CMOV : 0) |
                                 (u.aligned_only ? WK_ALIGNED : 0) |
                                 (id == AXP_BIS || id == AXP_CPYS ? WK_MAYBE_NOP : 0));
    m->warm_size[id] = u.size;
  }
}

struct ev67 *ev67_create(const struct ev67_config *cfg, ev67_fetch_fn fetch, ev67_fate_fn sink,
                         void *ctx)
{
  char why[1];
  if (ev67_config_check(cfg, why, sizeof why)) return NULL;   /* outside the ranges the model holds */
  struct ev67 *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->cfg = *cfg;
  m->fetch = fetch;
  m->sink = sink;
  m->ctx = ctx;
  m->st = &m->stm[0];
  m->bp = bpred_create(cfg);
  m->ms = memsys_create(cfg);
  m->stw_clear = calloc(cfg->stwait_entries, sizeof *m->stw_clear);
  m->stw_replays = calloc(cfg->stwait_entries, sizeof *m->stw_replays);
  m->stw_rng = 0x2545F4914F6CDD1Dull;
  if (!m->bp || !m->ms || !m->stw_clear || !m->stw_replays) { ev67_destroy(m); return NULL; }
  m->ngroups = cfg->inflight / cfg->inum_group;
  if (m->ngroups > MAXQ) m->ngroups = MAXQ;
  /* Rename registers: the physical file less the 32 architectural registers
   * and, for integers, the 8 PALshadow registers (HRM Fig. 2-1). */
  m->int_ren_n = cfg->int_phys_regs > 40 ? cfg->int_phys_regs - 40 : 1;
  m->fp_ren_n = cfg->fp_phys_regs > 32 ? cfg->fp_phys_regs - 32 : 1;
  if (m->int_ren_n > MAXQ) m->int_ren_n = MAXQ;
  if (m->fp_ren_n > MAXQ) m->fp_ren_n = MAXQ;
  /* The rings sized from the config fit in MAXQ (by default the window is
   * 20 groups of 4, the LQ and SQ 32 each, the queues 20 and 15; the
   * parameter table's ranges, checked above, keep any config within it). */
  PM_ASSERT(m->ngroups >= 1 && cfg->fetch_width >= 1 && !(cfg->fetch_width & (cfg->fetch_width - 1)) &&
            cfg->retire_width >= 1 && cfg->lq_entries >= 1 && cfg->lq_entries <= MAXQ &&
            cfg->sq_entries >= 1 && cfg->sq_entries <= MAXQ && cfg->iq_entries <= MAXQ &&
            cfg->fq_entries <= MAXQ && cfg->map_width >= 1);
  m->block_pc = ~0ull;
  m->block_mask = 4ull * cfg->fetch_width - 1;
  warm_kinds(m);
  for (unsigned mask = 0; mask < 64; mask++) {
    unsigned n = 0;
    for (unsigned k = 0; k < NPIPES; k++)
      if (mask & PM(pipe_order[k])) m->cand[mask][n++] = pipe_order[k];
    m->cand[mask][n] = 0xFF;
  }
  return m;
}

void ev67_set_xlate(struct ev67 *m, memsys_xlate_fn fn, void *ctx)
{
  memsys_set_xlate(m->ms, fn, ctx);
}

void ev67_destroy(struct ev67 *m)
{
  if (!m) return;
  bpred_destroy(m->bp);
  memsys_destroy(m->ms);
  free(m->stw_clear);
  free(m->stw_replays);
  free(m);
}

uint64_t ev67_now(const struct ev67 *m) { return m->last_retire; }
const struct ev67_stats *ev67_warm_stats(const struct ev67 *m, bool kernel) { return &m->warm_st[kernel]; }
const struct ev67_stats *ev67_stats(const struct ev67 *m, bool kernel) { return &m->stm[kernel]; }

static uint8_t ireg(uint8_t r) { return r >= 31 ? NOREG : r; }
static uint8_t freg(uint8_t r) { return r >= 31 ? NOREG : FREG(r); }

/* Classifies an instruction (HRM Tables 2-2..2-4: classes, pipes, latencies). */
static void classify(const struct ev67_config *c, const struct axp_insn *d, struct uop *u)
{
  memset(u, 0, sizeof *u);
  u->src[0] = u->src[1] = u->src[2] = u->dst = NOREG;
  u->pipes = INT_ANY;
  u->lat = (uint8_t)c->lat_iadd;
  u->busy = 1;
  if (d->id >= AXP_NUM_IDS) {   /* the executor's internal ids: unop and prefetches */
    uint32_t op = d->raw >> 26;
    if (op == 0x0B || op == 0x08 || op == 0x09) { u->nop = true; return; }
    u->load = true;            /* a load into $31: a prefetch that never faults */
    u->pipes = LOWER;
    u->size = 8;
    u->src[0] = ireg((d->raw >> 16) & 31);
    return;
  }
  const struct axp_info *ai = &axp_info[d->id];
  bool lit = d->flags & AXP_F_LIT;
  switch (ai->cls) {
  case AXP_CLS_LDA:
    u->src[0] = ireg(d->rb);
    u->dst = ireg(d->ra);
    break;
  case AXP_CLS_ILD: case AXP_CLS_FLD:
    u->load = true;
    u->pipes = LOWER;
    u->src[0] = ireg(d->rb);
    if (ai->cls == AXP_CLS_FLD) { u->dst = freg(d->ra); u->fp_dst = true; }
    else u->dst = ireg(d->ra);
    switch (d->id) {
    case AXP_LDBU: u->size = 1; break;
    case AXP_LDWU: u->size = 2; u->aligned_only = true; break;
    case AXP_LDL: case AXP_LDL_L: case AXP_LDS: u->size = 4; u->aligned_only = true; break;
    case AXP_LDQ_U: u->size = 8; break;
    default: u->size = 8; u->aligned_only = true; break;
    }
    break;
  case AXP_CLS_IST: case AXP_CLS_FST:
    u->store = true;
    u->pipes = LOWER;
    u->src[0] = ireg(d->rb);
    u->src[1] = ai->cls == AXP_CLS_FST ? freg(d->ra) : ireg(d->ra);
    if (d->id == AXP_STL_C || d->id == AXP_STQ_C) u->dst = ireg(d->ra);
    switch (d->id) {
    case AXP_STB: u->size = 1; break;
    case AXP_STW: u->size = 2; u->aligned_only = true; break;
    case AXP_STL: case AXP_STL_C: case AXP_STS: u->size = 4; u->aligned_only = true; break;
    case AXP_STQ_U: u->size = 8; break;
    default: u->size = 8; u->aligned_only = true; break;
    }
    break;
  case AXP_CLS_IBR:
    u->pipes = UPPER;
    u->ctl = true;
    if (d->id == AXP_BR || d->id == AXP_BSR) {
      u->dst = ireg(d->ra);
    } else {
      u->src[0] = ireg(d->ra);
      u->cond_branch = true;
    }
    break;
  case AXP_CLS_FBR:
    u->pipes = PM(P_FA);
    u->src[0] = freg(d->ra);
    u->cond_branch = true;
    u->ctl = true;
    break;
  case AXP_CLS_JSR:
    u->pipes = PM(P_L0);
    u->src[0] = ireg(d->rb);
    u->dst = ireg(d->ra);
    u->jump = true;
    u->ctl = true;
    u->lat = 3;
    break;
  case AXP_CLS_PAL: case AXP_CLS_MISC:
    u->serial = d->id == AXP_CALL_PAL || d->id == AXP_TRAPB || d->id == AXP_EXCB ||
                d->id == AXP_MB || d->id == AXP_WMB;
    u->pipes = PM(P_L1);
    break;
  case AXP_CLS_RPCC:
    u->dst = ireg(d->ra);
    u->pipes = PM(P_L1);
    break;
  case AXP_CLS_IADD: case AXP_CLS_ILOG: case AXP_CLS_ISHF: case AXP_CLS_CMOV:
  case AXP_CLS_IMUL: case AXP_CLS_IMISC:
    u->src[0] = ireg(d->ra);
    if (!lit) u->src[1] = ireg(d->rb);
    u->dst = ireg(d->rc);
    if (ai->cls == AXP_CLS_CMOV) { u->src[2] = ireg(d->rc); u->cmov = true; }
    if (ai->cls == AXP_CLS_ISHF) { u->pipes = UPPER; u->lat = (uint8_t)c->lat_ishf; }
    if (ai->cls == AXP_CLS_IMUL) { u->pipes = PM(P_U1); u->lat = (uint8_t)c->lat_imul; }
    if (ai->cls == AXP_CLS_IMISC) { u->pipes = UPPER; u->lat = (uint8_t)c->lat_imisc; }
    if (d->id == AXP_BIS && d->ra == 31 && d->rb == 31 && !lit && d->rc >= 31) u->nop = true;
    break;
  case AXP_CLS_FTOI:
    u->src[0] = freg(d->ra);
    u->dst = ireg(d->rc);
    u->pipes = LOWER;
    u->lat = (uint8_t)c->lat_ftoi;
    break;
  case AXP_CLS_ITOF:
    u->src[0] = ireg(d->ra);
    u->dst = freg(d->rc);
    u->fp_dst = true;
    u->pipes = LOWER;
    u->lat = (uint8_t)c->lat_itof;
    break;
  case AXP_CLS_MXFPCR:
    u->serial = true;
    u->pipes = PM(P_FA);
    u->lat = (uint8_t)c->lat_fadd;
    if (d->id == AXP_MF_FPCR) { u->dst = freg(d->ra); u->fp_dst = true; }
    else u->src[0] = freg(d->ra);
    break;
  default: {   /* FP operate */
    bool s_fmt = d->id == AXP_ADDS || d->id == AXP_SUBS || d->id == AXP_MULS ||
                 d->id == AXP_DIVS || d->id == AXP_SQRTS;
    u->src[0] = freg(d->ra);
    u->src[1] = freg(d->rb);
    u->dst = freg(d->rc);
    u->fp_dst = true;
    u->pipes = PM(P_FA);
    u->lat = (uint8_t)c->lat_fadd;
    if (ai->cls == AXP_CLS_FCMOV) u->src[2] = freg(d->rc);
    if (ai->cls == AXP_CLS_FMUL) { u->pipes = PM(P_FM); u->lat = (uint8_t)c->lat_fmul; }
    if (ai->cls == AXP_CLS_FDIV) u->lat = u->busy = (uint8_t)(s_fmt ? c->lat_fdiv_s : c->lat_fdiv_t);
    if (ai->cls == AXP_CLS_FSQRT) u->lat = u->busy = (uint8_t)(s_fmt ? c->lat_fsqrt_s : c->lat_fsqrt_t);
    if (d->id == AXP_CPYS && d->ra == 31 && d->rb == 31 && d->rc >= 31) u->nop = true;
    break;
  }
  }
}

/* classify() through the cache. */
static void classify_cached(struct ev67 *m, uint64_t pc, const struct axp_insn *d, struct uop *u)
{
  struct ucache_ent *e = &m->ucache[(pc >> 2) & (UCACHE - 1)];
  if (e->tag != d->id + 1u || e->raw != d->raw) {
    classify(&m->cfg, d, &e->u);
    e->raw = d->raw;
    e->tag = (uint16_t)(d->id + 1u);
  }
  *u = e->u;
}

static struct uop_fate *new_fate(struct ev67 *m, struct uop_fate *f, uint64_t pc, bool kernel)
{
  memset(f, 0, sizeof *f);
  f->pc = pc;
  f->seq = m->seq++;
  f->trap = EV67_TRAP_NONE;
  f->kernel = kernel;
  m->st->fetched++;
  return f;
}

static void emit(struct ev67 *m, const struct uop_fate *f)
{
  if (m->sink) m->sink(m->ctx, f);
}

/* Istream prefetch: an Icache miss at pc also requests the next lines
 * (ours: 3, the HRM says the Ibox prefetches but not how far), so
 * straight-line code streams instead of missing line by line. */
static void istream_prefetch(struct ev67 *m, unsigned asn, uint64_t pc, uint64_t cycle)
{
  struct mem_access pf;
  uint64_t line = pc & ~(uint64_t)(m->cfg.line_bytes - 1);
  for (unsigned k = 1; k <= 3; k++) memsys_fetch(m->ms, asn, line + k * m->cfg.line_bytes, cycle, &pf);
}

/* Starts a new aligned fetch block for pc no earlier than cycle c. Returns the
 * fetch cycle; sets *icm and *itb when the block missed the Icache or ITB. */
static uint64_t fetch_block(struct ev67 *m, uint64_t pc, uint64_t c, unsigned asn, bool *icm,
                            bool *itb)
{
  struct mem_access acc;
  memsys_fetch(m->ms, asn, pc & ~m->block_mask, c, &acc);
  *icm = acc.l1_miss;
  *itb = acc.tlb_miss;
  if (acc.tlb_miss) {
    m->st->itb_misses++;
    c += m->cfg.pen_itb_miss;
  }
  if (acc.l1_miss) {
    m->st->icache_misses++;
    istream_prefetch(m, asn, pc, c);
    c += acc.latency;
  }
  return c;
}

/* Gives the next correct-path instruction at pc its fetch cycle. */
static uint64_t fetch_at(struct ev67 *m, uint64_t pc, unsigned asn, uint32_t *flags)
{
  if ((pc & ~m->block_mask) == m->block_pc && pc == m->next_fetch_pc) {
    m->next_fetch_pc = pc + 4;
    if (m->block_icm) *flags |= FATE_ICM;
    return m->fetch_cycle;
  }
  /* A new block: one per cycle, after any redirect, and no more than two
   * blocks ahead of the map stage (the fetch stalls when map does). */
  uint64_t c = max64(m->fetch_cycle + 1, m->redirect);
  if (m->last_map > 2) c = max64(c, m->last_map - 2);
  bool icm, itb;
  c = fetch_block(m, pc, c, asn, &icm, &itb);
  if (icm) *flags |= FATE_ICM;
  if (itb) *flags |= FATE_ITB_MISS;
  m->block_icm = icm;
  m->fetch_cycle = c;
  m->block_pc = pc & ~m->block_mask;
  m->next_fetch_pc = pc + 4;
  return c;
}

/* Fetches down a path that will be killed at kill_cycle: the predicted path
 * after a mispredict (wrong_path), or the younger instructions behind a trap.
 * Emits their fates; touches nothing but the Icache and statistics. */
static void spec_run(struct ev67 *m, uint64_t pc, uint64_t cycle, bool same_block,
                     uint64_t kill, bool wrong_path, unsigned asn, bool kernel)
{
  if (!m->fetch) return;
  unsigned budget = m->cfg.inflight;
  uint64_t c = cycle;
  bool cont = same_block;
  while (budget) {
    if (!cont) {
      bool icm, itb;
      if (++c >= kill) return;
      c = fetch_block(m, pc, c, asn, &icm, &itb);
      if (itb || c >= kill) return;   /* a wrong-path ITB miss is not taken */
    }
    cont = false;
    for (;;) {
      const struct axp_insn *d = m->fetch(m->ctx, pc);
      if (!d || !budget) return;
      budget--;
      struct uop u;
      classify_cached(m, pc, d, &u);
      struct uop_fate spec;
      struct uop_fate *f = new_fate(m, &spec, pc, kernel);
      f->fetch = c;
      f->flags = wrong_path ? FATE_WRONG_PATH : 0;
      if (u.nop) {
        f->flags |= FATE_SQUASHED_NOP | FATE_KILLED_BM;
      } else {
        f->slot = c + 1 < kill ? c + 1 : 0;
        f->map = c + 2 < kill ? c + 2 : 0;
        f->flags |= f->map ? FATE_KILLED_AM : FATE_KILLED_BM;
      }
      f->end = kill;
      m->st->killed++;
      if (wrong_path) m->st->wrong_path++;
      emit(m, f);
      bool taken = false;
      uint64_t target = pc + 4;
      if (u.ctl && bpred_predict(m->bp, pc, d, &taken, &target) && taken) {
        pc = target;
        break;
      }
      pc += 4;
      if ((pc & m->block_mask) == 0) break;
    }
  }
}

/* Takes pipe p in cycle t (slot is that cycle's ring entry) for the
 * instruction seq writing dst; movable: it could use p's sibling as well. */
static void take_pipe(struct ev67 *m, uint64_t *slot, uint64_t t, unsigned busy_now, unsigned p,
                      uint64_t seq, uint8_t dst, bool movable)
{
  PM_ASSERT(p < NPIPES && slot == &m->ring[t % RING]);
  *slot = t << 8 | busy_now | PM(p);
  if (p < 4) m->own[t % RING][p] = (struct pipe_owner){ seq, dst, movable };
}

/* The arbiter picks two requesters per subcluster and cycle (HRM 2.1.1.6):
 * when an older instruction took the only pipe of the subcluster whose
 * cluster sees this one's operands, and could as well have used the free
 * other pipe, both issue, the older one in the other cluster. It moves only
 * while nothing has read its result (those readers were timed with its
 * cluster). Returns the pipe taken, or NPIPES. */
static unsigned pair_issue(struct ev67 *m, uint64_t *slot, uint64_t t, unsigned busy_now,
                           unsigned want, uint64_t seq, uint8_t dst, const uint64_t *rdy)
{
  for (const uint8_t *c = m->cand[want & INT_ANY]; *c != 0xFF; c++) {
    unsigned p = *c, q = p ^ 1;   /* q: p's sibling, in the other cluster */
    struct pipe_owner *o = &m->own[t % RING][p];
    if ((busy_now & PM(q)) || !o->movable) continue;
    uint8_t r = o->dst;
    if (r != NOREG && (m->wr_seq[r] != o->seq || m->rd_seq[r] > o->seq)) continue;
    if (r < 32) {
      uint64_t done = m->rview[2][r];
      m->rview[pipe_cluster[q]][r] = done;
      m->rview[pipe_cluster[p]][r] = done + m->cfg.cross_cluster;
    }
    m->own[t % RING][q] = (struct pipe_owner){ o->seq, r, false };
    take_pipe(m, slot, t, busy_now | PM(q), p, seq, dst, rdy[pipe_cluster[q]] <= t);
    return p;
  }
  return NPIPES;
}

/* Earliest cycle >= t at which one of `pipes` is free (for `busy` cycles) and
 * the operands are ready in that pipe's cluster; reserves it for instruction
 * seq. */
static uint64_t issue_at(struct ev67 *m, const struct uop *u, uint64_t t, uint64_t seq,
                         unsigned *pipe_out)
{
  const uint8_t s0 = u->src[0], s1 = u->src[1], s2 = u->src[2];
  uint64_t rdy[3];
  for (int cl = 0; cl < 3; cl++)
    rdy[cl] = max64(max64(m->rview[cl][s0], m->rview[cl][s1]), m->rview[cl][s2]);
  m->rd_seq[s0] = m->rd_seq[s1] = m->rd_seq[s2] = seq;
  uint64_t first = UINT64_MAX;
  for (int cl = 0; cl < 3; cl++)
    if ((u->pipes & cluster_pipes[cl]) && rdy[cl] < first) first = rdy[cl];
  if (first > t) t = first;   /* nothing can issue before its operands */
  for (unsigned tries = 0; tries < RING / 2; tries++, t++) {
    uint64_t *slot = &m->ring[t % RING];
    unsigned busy_now = *slot >> 8 == t ? (unsigned)(*slot & 0xFF) : 0;
    /* The allowed pipes whose cluster sees the operands, and those of them
     * that are free, as masks; the candidate lists give them in arbitration
     * order. */
    unsigned ready = u->pipes;
    for (int cl = 0; cl < 3; cl++)
      if (rdy[cl] > t) ready &= ~(unsigned)cluster_pipes[cl];
    unsigned avail = ready & ~busy_now;
    if (u->busy == 1) {
      unsigned p = avail ? m->cand[avail][0]
                         : pair_issue(m, slot, t, busy_now, ready, seq, u->dst, rdy);
      if (p == NPIPES) continue;
      if (avail)
        take_pipe(m, slot, t, busy_now, p, seq, u->dst,
                  (u->pipes & PM(p ^ 1)) && rdy[pipe_cluster[p ^ 1]] <= t);
      *pipe_out = p;
      return t;
    }
    for (const uint8_t *c = m->cand[avail]; *c != 0xFF; c++) {
      /* An unpipelined divide or square root holds its pipe for busy cycles. */
      unsigned p = *c;
      bool ok = true;
      for (unsigned b = 1; b < u->busy && ok; b++) {
        uint64_t e = m->ring[(t + b) % RING];
        if (e >> 8 == t + b && (e & PM(p))) ok = false;
      }
      if (!ok) continue;
      for (unsigned b = 0; b < u->busy; b++) {
        uint64_t *e = &m->ring[(t + b) % RING];
        if (*e >> 8 != t + b) *e = (t + b) << 8;
        *e |= PM(p);
      }
      *pipe_out = p;
      return t;
    }
  }
  *pipe_out = P_L0;
  return t;
}

/* A min-heap of cycles: the issue queues' entries beyond the ring. */
static void heap_push(uint64_t *h, unsigned *n, uint64_t v)
{
  PM_ASSERT(*n < MAXQ);
  unsigned i = (*n)++;
  while (i && h[(i - 1) / 2] > v) { h[i] = h[(i - 1) / 2]; i = (i - 1) / 2; }
  h[i] = v;
}

static void heap_pop(uint64_t *h, unsigned *n)
{
  PM_ASSERT(*n > 0);
  uint64_t v = h[--*n];
  unsigned i = 0;
  for (;;) {
    unsigned c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && h[c + 1] < h[c]) c++;
    if (h[c] >= v) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
}

/* Removes the entries that issued at or before t. */
static void cq_drop(struct cq *q, uint64_t t)
{
  if (t < q->base) return;
  if (q->n_ring) {
    if (t - q->base >= CQ_RING) {
      memset(q->cnt, 0, sizeof q->cnt);
      q->n_ring = 0;
    } else {
      for (uint64_t c = q->base; c <= t && q->n_ring; c++) {
        PM_ASSERT(q->cnt[c % CQ_RING] <= q->n_ring);   /* n_ring counts the ring's entries */
        q->n_ring -= q->cnt[c % CQ_RING];
        q->cnt[c % CQ_RING] = 0;
      }
    }
  }
  q->base = t + 1;
  while (q->n_over && q->over[0] <= t) heap_pop(q->over, &q->n_over);
}

static void cq_push(struct cq *q, uint64_t v)
{
  if (v < q->base) return;   /* already issued as far as the queue is concerned */
  if (v - q->base < CQ_RING) {
    q->cnt[v % CQ_RING]++;
    q->n_ring++;
  } else if (q->n_over < MAXQ) {
    heap_push(q->over, &q->n_over, v);
  }
}

/* The earliest issue cycle in the queue (which is not empty). */
static uint64_t cq_min(const struct cq *q)
{
  PM_ASSERT(q->n_ring + q->n_over > 0);
  uint64_t best = q->n_over ? q->over[0] : UINT64_MAX;
  if (q->n_ring)
    for (uint64_t c = q->base; c < best; c++) {
      /* The ring's entries lie in [base, base + CQ_RING): one is found. */
      PM_ASSERT(c - q->base < CQ_RING);
      if (q->cnt[c % CQ_RING]) return c;
    }
  PM_ASSERT(best != UINT64_MAX);
  return best;
}

/* The earliest cycle >= t at which queue q (capacity cap) has a free entry;
 * drops the entries that have issued by then. */
static uint64_t queue_slot(struct cq *q, unsigned cap, uint64_t t)
{
  cq_drop(q, t);
  while (q->n_ring + q->n_over >= cap) {
    uint64_t first = cq_min(q);        /* wait for the first to issue */
    PM_ASSERT(first >= t);             /* map time only moves forward */
    t = first;
    cq_drop(q, t);
  }
  return t;
}

/* Maps an instruction no earlier than slot+1, in order, under the resource
 * limits. Sets FATE_MAP_STALL when it had to wait. */
static uint64_t map_at(struct ev67 *m, const struct uop *u, uint64_t pc, uint64_t slot,
                       uint32_t *flags)
{
  uint64_t t = max64(slot + 1, m->serial_after);
  if (t < m->last_map) t = m->last_map;
  if (t == m->last_map && m->map_in_cycle >= m->cfg.map_width) t++;
  if ((pc & ~15ull) != m->cur_group_pc) {   /* a new group of four inums */
    PM_ASSERT(m->group_idx < m->ngroups);
    m->group_idx = (m->group_idx + 1) % m->ngroups;
    t = max64(t, m->group_retire[m->group_idx]);
    m->cur_group_pc = pc & ~15ull;
  }
  if (u->dst != NOREG && !u->fp_dst) t = max64(t, m->int_ren[m->int_ren_i]);
  if (u->dst != NOREG && u->fp_dst) t = max64(t, m->fp_ren[m->fp_ren_i]);
  bool fpq = u->pipes & (PM(P_FA) | PM(P_FM));
  t = queue_slot(fpq ? &m->fq : &m->iq, fpq ? m->cfg.fq_entries : m->cfg.iq_entries, t);
  if (u->load) t = max64(t, m->lq[m->lq_i]);
  if (u->store) t = max64(t, m->sq[m->sq_i]);
  if (t > slot + 1) { *flags |= FATE_MAP_STALL; m->st->map_stalls++; }
  /* In order, at most map_width per cycle. */
  PM_ASSERT(t >= m->last_map && (t > m->last_map || m->map_in_cycle < m->cfg.map_width));
  if (t != m->last_map) m->map_in_cycle = 0;
  m->last_map = t;
  m->map_in_cycle++;
  return t;
}

/* Records the resources an instruction holds until issue or retire. */
static void hold(struct ev67 *m, const struct uop *u, uint64_t issue, uint64_t retire)
{
  PM_ASSERT(m->int_ren_i < m->int_ren_n && m->fp_ren_i < m->fp_ren_n && m->lq_i < m->cfg.lq_entries &&
            m->sq_i < m->cfg.sq_entries && m->group_idx < m->ngroups && issue <= retire);
  if (u->dst != NOREG && !u->fp_dst) { m->int_ren[m->int_ren_i] = retire; m->int_ren_i = (m->int_ren_i + 1) % m->int_ren_n; }
  if (u->dst != NOREG && u->fp_dst) { m->fp_ren[m->fp_ren_i] = retire; m->fp_ren_i = (m->fp_ren_i + 1) % m->fp_ren_n; }
  cq_push(u->pipes & (PM(P_FA) | PM(P_FM)) ? &m->fq : &m->iq, issue);
  /* Queue occupancy: map_at's queue_slot left room for this entry. */
  PM_ASSERT(m->iq.n_ring + m->iq.n_over <= m->cfg.iq_entries && m->fq.n_ring + m->fq.n_over <= m->cfg.fq_entries);
  if (u->load) { m->lq[m->lq_i] = retire; m->lq_i = (m->lq_i + 1) % m->cfg.lq_entries; }
  if (u->store) { m->sq[m->sq_i] = retire; m->sq_i = (m->sq_i + 1) % m->cfg.sq_entries; }
  m->group_retire[m->group_idx] = max64(m->group_retire[m->group_idx], retire);
}

static uint64_t retire_at(struct ev67 *m, uint64_t ready, uint16_t *delay)
{
  uint64_t t = max64(ready, m->last_retire);
  if (t == m->last_retire && m->retire_in_cycle >= m->cfg.retire_width) t++;   /* HRM 6.10.2.3.2: 11 */
  uint64_t d = t - m->last_retire;
  *delay = (uint16_t)(d > 0xFFFF ? 0xFFFF : d);
  PM_ASSERT(t >= m->last_retire && (t > m->last_retire || m->retire_in_cycle < m->cfg.retire_width));   /* in order */
  if (t != m->last_retire) m->retire_in_cycle = 0;
  m->last_retire = t;
  m->retire_in_cycle++;
  return t;
}

/* A younger load that issued before an older store to overlapping bytes. */
static const struct store_rec *order_conflict(struct ev67 *m, uint64_t addr, unsigned size,
                                              uint64_t issue)
{
  if (m->store_issue_max <= issue) return NULL;   /* every recorded store issued earlier */
  for (unsigned i = 0; i < m->cfg.sq_entries; i++) {
    const struct store_rec *s = &m->stores[i];
    if (!s->size || s->issue <= issue) continue;
    if (addr < s->addr + s->size && s->addr < addr + size) return s;
  }
  return NULL;
}

/* The warm memory of loads that replayed (the stWait index). */
static uint32_t stw_index(const struct ev67 *m, uint64_t pc) { return (uint32_t)(pc >> 2) & (m->cfg.stwait_entries - 1); }

/* Stores by quadword, for stw_near: both modes note every store. */
static uint32_t stw_slot(uint64_t ea)
{
  uint64_t q = ea >> 3;
  return (uint32_t)((q ^ (q >> 10)) & (STW_STORES - 1));
}

static void stw_store(struct ev67 *m, uint64_t ea)
{
  uint32_t k = stw_slot(ea);
  m->stw_quad[k] = ea >> 3 | STW_VALID;
  m->stw_seq[k] = ++m->nstores;
}

/* Whether one of the last sq_entries stores wrote the load's quadword: a
 * load can replay only behind a store still in the queue, so the loads
 * without one neither count nor draw. Replays are rare (bzip2: 250,000 in
 * 734 M instructions) and come from the few loads that follow such a
 * store: their rate, not that of all loads at the entry, is what warming
 * needs. */
static bool stw_near(const struct ev67 *m, uint64_t ea)
{
  uint32_t k = stw_slot(ea);
  return m->stw_quad[k] == (ea >> 3 | STW_VALID) && m->nstores - m->stw_seq[k] < m->cfg.sq_entries;
}

/* What warming draws a load's stWait bit from: of the detailed executions
 * that found it clear, how many replayed. Recent ones only: both counts
 * halve when the clear ones reach STW_RECENT, so a load that replays in one
 * phase of the program and never in another gets the rate of its phase, not
 * the whole run's (which left the bit clear too often: too many replays). */
#define STW_RECENT 16u
static void stw_count(struct ev67 *m, uint64_t pc, bool replay)
{
  uint32_t i = stw_index(m, pc);
  if (replay) {
    m->stw_replays[i]++;
    return;
  }
  if (++m->stw_clear[i] >= STW_RECENT) {
    m->stw_clear[i] /= 2;
    m->stw_replays[i] /= 2;
  }
}

/* How an instance ended. */
enum inst_end { INST_OK, INST_REFETCH, INST_TRAPPED };

/* Times one instance; INST_REFETCH when it trapped and is fetched again,
 * INST_TRAPPED when it trapped and the kernel completed it (already emitted). */
static enum inst_end run_instance(struct ev67 *m, const struct uarch_insn *in, const struct uop *u,
                         bool second_half, struct uop_fate *out)
{
  uint32_t flags = 0;
  uint64_t fetch = fetch_at(m, in->pc, in->asn, &flags);
  if (second_half) fetch = m->fetch_cycle = fetch + 1;   /* CMOV2: the next cycle */
  struct uop_fate *f = new_fate(m, out, in->pc, in->kernel);
  f->fetch = fetch;
  f->slot = fetch + 1;
  f->flags = flags;
  if (flags & FATE_ITB_MISS) f->pmpc_redirect = EV67_PMPC_ITB_MISS;
  if (u->nop) {
    /* The fetcher squashes it: fetched, never mapped (HRM 6.10.3.1). */
    f->flags |= FATE_SQUASHED_NOP | FATE_RETIRED;
    f->end = max64(fetch + 2, m->last_retire);
    m->st->squashed_nops++;
    return INST_OK;
  }
  f->map = map_at(m, u, in->pc, f->slot, &f->flags);
  uint64_t t = f->map + 1;
  bool stw_cand = false;
  if (u->serial) t = max64(t, m->last_retire);
  if (u->load) {
    /* The stWait table clears every 16384 cycles (HRM 2.11.1.2); map time
     * never goes back, and the replay that may set the bit follows here. */
    bpred_stwait_tick(m->bp, f->map);
    if (bpred_stwait_get(m->bp, in->pc)) t = max64(t, m->store_issue_max + 1);
    else if ((stw_cand = stw_near(m, in->ea))) stw_count(m, in->pc, false);   /* (for warming) */
  }
  unsigned pipe;
  f->issue = issue_at(m, u, t, f->seq, &pipe);
  uint64_t lat = u->lat;
  bool trap = false;
  uint64_t kill = 0, redirect = 0;
  if (u->load || u->store) {
    struct mem_access acc;
    if (in->unaligned && u->aligned_only) {
      f->flags |= FATE_TRAP | FATE_UNALIGNED;
      f->trap = EV67_TRAP_UNALIGNED;
      m->st->unaligned++;
      kill = f->issue + 3;
      redirect = kill + m->cfg.unaligned_fixup;
      trap = true;
    } else {
      memsys_data_pa(m->ms, in->asn, in->ea, in->pa_valid ? in->pa : in->ea, u->size, u->store,
                     f->issue, &acc);
      if (acc.tlb_miss) {
        f->flags |= FATE_TRAP | FATE_DTB_MISS;
        f->trap = EV67_TRAP_DTB_MISS;
        m->st->dtb_misses++;
        kill = f->issue + 3;
        redirect = max64(f->fetch + 1 + m->cfg.pen_dtb_miss, kill) + m->cfg.tb_fill_cycles;
        trap = true;
      } else {
        if (u->load) {
          f->level = acc.level;
          lat = acc.latency + (u->fp_dst ? m->cfg.lat_ld_fp - m->cfg.lat_ld_int : 0);
          if (acc.l1_miss) m->st->dcache_misses++;
          if (acc.bc_miss) m->st->bcache_misses++;
          const struct store_rec *s = order_conflict(m, in->ea, u->size, f->issue);
          if (s) {
            /* Store-load order replay (HRM 2.11): the load is replayed when
             * the older store issues; it waits for stores from now on. */
            f->flags |= FATE_TRAP | FATE_LSO;
            f->trap = EV67_TRAP_REPLAY;
            m->st->replays++;
            bpred_stwait_set(m->bp, in->pc);
            if (stw_cand) stw_count(m, in->pc, true);
            kill = s->issue + 2;
            redirect = max64(f->fetch + 1 + m->cfg.pen_mbox_order, kill);
            trap = true;
          }
        } else {
          m->stores[m->store_i] = (struct store_rec){ in->ea, f->issue, f->seq, u->size };
          stw_store(m, in->ea);
          m->store_issue_max = max64(m->store_issue_max, f->issue);
          PM_ASSERT(m->store_i < m->cfg.sq_entries);
          m->store_i = (m->store_i + 1) % m->cfg.sq_entries;
        }
      }
    }
    if (u->load) m->st->loads++; else m->st->stores++;
  }
  if (trap) {
    f->end = kill;
    m->st->traps++;
    m->st->killed++;
    /* The younger instructions fetched meanwhile die with it. */
    emit(m, f);
    spec_run(m, in->pc + 4, fetch, ((in->pc + 4) & m->block_mask) != 0, kill, false, in->asn, in->kernel);
    m->redirect = redirect;
    m->block_pc = ~0ull;
    m->serial_after = max64(m->serial_after, kill);
    /* The kernel emulated an unaligned access; other traps re-execute. */
    return f->trap == EV67_TRAP_UNALIGNED ? INST_TRAPPED : INST_REFETCH;
  }
  f->complete = f->issue + lat;
  if (u->dst != NOREG) {
    uint8_t r = u->dst, cl = pipe_cluster[pipe];
    m->rview[0][r] = m->rview[1][r] = m->rview[2][r] = f->complete;
    m->wr_seq[r] = f->seq;
    if (r < 32 && cl < 2) m->rview[cl ^ 1][r] += m->cfg.cross_cluster;
  }
  f->end = retire_at(m, f->complete + 2, &f->retire_delay);
  /* A retired instruction's history is in pipeline order. */
  PM_ASSERT(f->fetch < f->slot && f->slot < f->map && f->map < f->issue && f->issue <= f->complete &&
            f->complete + 2 <= f->end);
  f->flags |= FATE_RETIRED;
  m->st->retired++;
  hold(m, u, f->issue, f->end);
  if (u->serial) m->serial_after = max64(m->serial_after, f->end);
  return INST_OK;
}

/* Ebox slotting (HRM 2.3.2): an instruction that may use any integer pipe
 * (E) goes to the upper or lower subcluster by the classes of all four
 * instructions of its aligned fetch block: U (upper only: branches, shifts,
 * byte ops, multiplies, MVI), L (lower only: loads, stores, jumps, IPR and
 * FP transfers) or E. Index: the sum of class(position) * 3^position with E
 * 0, U 1, L 2; entry: the positions slotted upper. Transcribed from the
 * HRM's slotting table as GMP's mpn/alpha/ev6/slot.pl gives it (the HRM
 * page itself was not retrieved); all-E blocks alternate L, U, L, U. */
static const uint8_t slot_upper[81] = {
  10, 9, 10, 10, 3, 10, 9, 9, 12, 5, 5, 6, 6, 7, 6, 5, 5, 12, 10, 9, 10,
  10, 3, 10, 9, 9, 8, 10, 9, 10, 10, 11, 10, 9, 9, 12, 12, 13, 12, 14, 15, 14,
  12, 13, 12, 10, 9, 10, 10, 11, 10, 9, 9, 8, 5, 5, 6, 6, 3, 6, 5, 5, 4,
  5, 5, 6, 6, 7, 6, 5, 5, 4, 3, 3, 2, 3, 3, 2, 1, 1, 0,
};

/* An instruction's slotting class: 0 E, 1 U, 2 L. Instructions that do not
 * go to the integer queue (FP operates, squashed NOPs) count as E (ours, as
 * GMP's table treats nop and unop). */
static unsigned slot_class(const struct uop *u)
{
  unsigned ip = u->pipes & INT_ANY;
  if (u->nop || !ip || ip == INT_ANY) return 0;
  return (ip & LOWER) ? 2 : 1;
}

/* The pipes of an E instruction after slotting its fetch block; remembered
 * per block (keyed by the block, address space and this instruction's word:
 * code rewritten elsewhere in the block keeps the old slotting until the
 * entry is replaced). */
static unsigned slotted_pipes(struct ev67 *m, const struct uarch_insn *in)
{
  uint64_t block = in->pc & ~15ull;
  unsigned pos = (unsigned)(in->pc >> 2) & 3;
  struct slot_ent *e = &m->slotc[(block >> 4) & (SLOTC - 1)];
  if (!e->valid || e->block != block || e->asn != in->asn || e->raw != in->d->raw) {
    unsigned idx = 0, w = 1;
    for (unsigned k = 0; k < 4; k++, w *= 3) {
      uint64_t pc = block + 4 * k;
      const struct axp_insn *d = k == pos ? in->d : m->fetch ? m->fetch(m->ctx, pc) : NULL;
      if (!d) continue;
      struct uop v;
      classify_cached(m, pc, d, &v);
      idx += slot_class(&v) * w;
    }
    *e = (struct slot_ent){ block, in->d->raw, (uint16_t)in->asn, slot_upper[idx], 1 };
  }
  return (e->upper >> pos) & 1 ? UPPER : LOWER;
}

const struct uop_fate *ev67_step(struct ev67 *m, const struct uarch_insn *in)
{
  struct uop u;
  m->warm_dline = 0;   /* the timing model's accesses: warming's last lines are not known resident */
  m->warm_line = 0;
  m->st = &m->stm[in->kernel];
  classify_cached(m, in->pc, in->d, &u);
  /* Slotting (HRM 2.2 stage 1) statically assigns instructions that may use
   * any integer pipe to the upper or lower subcluster. */
  if (u.pipes == INT_ANY) u.pipes = (uint8_t)slotted_pipes(m, in);
  const struct axp_insn *d = in->d;
  struct uop_fate *f = &m->cur;
  if (u.cmov) {
    /* CMOV is two instructions on the chip (HRM 6.10.3.1): cmov1 reads Ra and
     * the old Rc, cmov2 reads cmov1's result and Rb. */
    struct uop u1 = u, u2 = u;
    u1.src[1] = NOREG;
    u2.src[0] = u.dst;
    u2.src[2] = NOREG;
    if (run_instance(m, in, &u1, false, f) == INST_OK) emit(m, f);
    run_instance(m, in, &u2, true, f);
  } else {
    enum inst_end e;
    for (int tries = 0; (e = run_instance(m, in, &u, false, f)) == INST_REFETCH && tries < 4; tries++) {}
    if (e == INST_TRAPPED) return f;
  }
  /* Control flow: predict (the path fetched on a miss), then train with the
   * outcome; the update says whether the prediction missed. */
  if (u.ctl && !(f->flags & FATE_TRAP)) {
    bool ptaken = false;
    uint64_t ptarget = in->pc + 4;
    bpred_predict(m->bp, in->pc, d, &ptaken, &ptarget);
    bool taken = u.cond_branch ? in->taken : true;
    if (u.cond_branch) {
      m->st->cond_branches++;
      if (taken) f->flags |= FATE_TAKEN;
    } else if (u.jump) {
      m->st->jumps++;
    }
    if (bpred_update(m->bp, in->pc, d, taken, in->next_pc)) {
      f->flags |= FATE_TRAP | (u.cond_branch ? FATE_MISPREDICT : FATE_JMP_MISPRED);
      if (u.cond_branch) m->st->cond_mispredicts++; else m->st->jump_mispredicts++;
      uint64_t pen = u.cond_branch ? m->cfg.pen_branch : m->cfg.pen_jump;
      uint64_t kill = f->issue + 2;
      emit(m, f);
      uint64_t wpc = ptaken ? ptarget : in->pc + 4;
      spec_run(m, wpc, f->fetch, !ptaken && ((in->pc + 4) & m->block_mask) != 0, kill, true, in->asn, in->kernel);
      m->redirect = max64(f->fetch + 1 + pen, f->issue + pen - 2);
      m->block_pc = ~0ull;
      return f;
    }
    if (taken) m->block_pc = ~0ull;   /* a taken branch ends the fetch block */
  }
  emit(m, f);
  return f;
}

void ev67_stall(struct ev67 *m, uint64_t cycles)
{
  uint64_t t = max64(m->last_retire, m->fetch_cycle) + cycles;
  m->redirect = max64(m->redirect, t);
  m->serial_after = max64(m->serial_after, t);
  m->last_retire = max64(m->last_retire, t);
  m->block_pc = ~0ull;
}

/* The cycle at which an event with `left` instructions of its stretch's
 * budget left is presented (ev67.h). */
static inline uint64_t warm_cycle(const struct ev67_warm_clock *clk, uint64_t left)
{
  return ev67_warm_cycle(clk, clk->n0 - left);
}

/* Functional warming: what ev67_step does to the long-lived structures, in
 * the same order (fetch, data access, predictor), without the pipeline. The
 * Icache sees one access per line instead of one per aligned block, which
 * leaves the same lines resident. */
/* Lines of a conditional mispredict's wrong path that warming fetches. The
 * detailed model fetches down the predicted path until the branch resolves
 * (spec_run; some 10 fetch blocks, 2.5 lines, a path on speedtest1), or
 * until a miss holds the fetch up, and its fills stay: in the Icache,
 * where the path often runs later, and in the B-cache, whose evictions
 * take Dcache lines along. Without them speedtest1's units leaned -0.20%
 * (2 lines: -0.04% over 20 seeds, 4 lines: +0.25% over 6; docs/sampled.md,
 * "The wrong path"). */
#define WARM_WRONG_PATH_LINES 2

/* Warming's Icache access at pc, at cycle: false on a hit (nothing to
 * do); else memsys_fetch's outcome in *acc, a miss's Istream prefetch
 * requested as fetch_block does. The fill may take the B-cache block of
 * warming's last data line: that line is forgotten. */
static inline bool warm_fetch(struct ev67 *m, unsigned asn, uint64_t pc, uint64_t cycle, struct mem_access *acc)
{
  if (memsys_warm_fetch_hit(m->ms, asn, pc, cycle)) return false;
  memsys_fetch(m->ms, asn, pc, cycle, acc);
  if (acc->l1_miss) {
    m->warm_dline = 0;
    istream_prefetch(m, asn, pc, cycle);
  }
  return true;
}

/* The wrong path from wpc, as spec_run fetches it: sequential lines until
 * one misses (filled, with its Istream prefetch) or an ITB miss (not taken
 * on a wrong path). */
static void warm_wrong_path(struct ev67 *m, unsigned asn, uint64_t wpc, uint64_t cycle)
{
  uint64_t line = wpc & ~(uint64_t)(m->cfg.line_bytes - 1);
  for (unsigned k = 0; k < WARM_WRONG_PATH_LINES; k++, line += m->cfg.line_bytes) {
    struct mem_access acc;
    if (!warm_fetch(m, asn, k ? line : wpc & ~15ull, cycle, &acc)) continue;
    if (acc.tlb_miss) return;
    if (acc.l1_miss) {
      m->warm_line = 0;   /* the fill may have taken the correct path's line */
      return;
    }
  }
}

static inline bool warm_one(struct ev67 *m, bool kernel, unsigned asn, uint64_t pc,
                            const struct axp_insn *d, unsigned id, uint64_t ea, uint64_t pa,
                            bool unaligned, bool taken_, uint64_t next_pc,
                            const struct ev67_warm_clock *clk, uint64_t left)
{
  struct ev67_stats *st = &m->warm_st[kernel];
  struct mem_access acc;
  uint64_t line = (pc & ~(uint64_t)(m->cfg.line_bytes - 1)) | 1;
  if (line != m->warm_line || asn != m->warm_asn) {
    m->warm_line = line;
    m->warm_asn = asn;
    if (warm_fetch(m, asn, pc & ~15ull, warm_cycle(clk, left), &acc)) {
      if (acc.tlb_miss) st->itb_misses++;
      if (acc.l1_miss) st->icache_misses++;
    }
  }
  /* The kind by id; the executor's internal ids (unop, prefetches) and the
   * NOP forms of BIS and CPYS through classify. */
  struct uop u;
  unsigned kind, size;
  if (id >= AXP_NUM_IDS || (m->warm_kind[id] & WK_MAYBE_NOP)) {
    classify_cached(m, pc, d, &u);
    kind = (u.load ? WK_LOAD : 0) | (u.store ? WK_STORE : 0) | (u.nop ? WK_MAYBE_NOP : 0);
    size = u.size;
  } else {
    kind = m->warm_kind[id];
    size = m->warm_size[id];
  }
  if (kind & WK_MAYBE_NOP) {
    st->squashed_nops++;
    return false;
  }
  st->retired += kind & WK_CMOV ? 2 : 1;   /* CMOV is two instructions, as ev67_step counts it */
  if (kind & (WK_LOAD | WK_STORE)) {
    if (unaligned && (kind & WK_ALIGNED)) {
      st->unaligned++;
      return true;
    }
    uint64_t cycle = warm_cycle(clk, left);
    if (!(kind & WK_LOAD)) stw_store(m, ea);
    else {
      bpred_stwait_tick(m->bp, cycle);
      uint32_t i = stw_index(m, pc);
      if (m->stw_replays[i] && stw_near(m, ea) && !bpred_stwait_get(m->bp, pc)) {
        m->stw_rng ^= m->stw_rng << 13;
        m->stw_rng ^= m->stw_rng >> 7;
        m->stw_rng ^= m->stw_rng << 17;
        if ((double)(m->stw_rng >> 11) * 0x1p-53 * m->stw_clear[i] < m->stw_replays[i]) bpred_stwait_set(m->bp, pc);
      }
    }
    bool store = kind & WK_STORE;
    if (store) st->stores++; else st->loads++;
    /* Another access to the line the last one reached (and to its page) is
     * a hit that changes nothing (replacement is round robin, not by
     * recency), unless it is the first store to a line loaded. */
    uint64_t dline = (ea & ~(uint64_t)(m->cfg.line_bytes - 1)) | 1;
    bool crosses = ((ea + size - 1) ^ ea) & ~(uint64_t)(m->cfg.line_bytes - 1);
    if (!crosses && (m->warm_dline & ~2ull) == dline && asn == m->warm_dasn && (!store || (m->warm_dline & 2)))
      return false;
    m->warm_dline = dline | (store ? 2 : 0);
    m->warm_dasn = asn;
    if (memsys_warm_hit(m->ms, asn, ea, pa, size, store, cycle)) return false;
    memsys_data_pa(m->ms, asn, ea, pa, size, store, cycle, &acc);
    if (acc.tlb_miss) st->dtb_misses++;
    if (!store && acc.l1_miss) st->dcache_misses++;
    if (!store && acc.bc_miss) st->bcache_misses++;
  } else if (kind & WK_CTL) {
    bool cond = kind & WK_COND, taken = cond ? taken_ : true;
    if (cond) st->cond_branches++;
    else if (kind & WK_JUMP) st->jumps++;
    if (bpred_update_id(m->bp, pc, id, taken, next_pc)) {
      if (cond) st->cond_mispredicts++; else st->jump_mispredicts++;
      if (cond) warm_wrong_path(m, asn, taken ? pc + 4 : pc + 4 + (int64_t)d->imm, warm_cycle(clk, left));
    }
  }
  return false;
}

bool ev67_warm(struct ev67 *m, const struct uarch_insn *in, uint64_t cycle)
{
  struct ev67_warm_clock clk = { .base = cycle };
  memsys_set_functional(m->ms, true);
  bool r = warm_one(m, in->kernel, in->asn, in->pc, in->d, in->d->id, in->ea, in->pa_valid ? in->pa : in->ea,
                    in->unaligned, in->taken, in->next_pc, &clk, 0);
  memsys_set_functional(m->ms, false);
  return r;
}

/* Translated code's events (user mode, aligned: anything else leaves for
 * the interpreter). A control transfer's a is taken, b its target; an
 * access's a the address, b the physical one. */
void ev67_warm_events(struct ev67 *m, unsigned asn, const struct jit_warm_event *ev,
                      const struct ev67_warm_clock *clk, size_t n)
{
  memsys_set_functional(m->ms, true);
  for (size_t i = 0; i < n; i++)
    warm_one(m, false, asn, ev[i].pc, ev[i].in, ev[i].id, ev[i].a, ev[i].b, false, ev[i].a != 0,
             ev[i].a ? ev[i].b : ev[i].pc + 4, clk, ev[i].left);
  memsys_set_functional(m->ms, false);
}
