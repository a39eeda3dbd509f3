/* EV67 performance-monitoring hardware (HRM 5.2.22, 6.10, D.28). Fates arrive in
 * fetch order; ProfileMe selection is done then (fetch counting is in order).
 * Retires go to an ordered ring, B-cache misses and replays to a min-heap, and
 * advance() counts them cycle by cycle, in spans with no event and no window
 * boundary inside, so cycle counting costs nothing per cycle. Each event stream
 * has a per-cycle cap (8 retires, 1 for PCTR1 inputs); the excess is carried
 * into later cycles (HRM 6.10.2.3.2). Choices where the HRM is silent are
 * marked "choice" and explained in docs/pmu.md. */
#include "pmu/ev67_pmu.h"
#include "util/assert.h"
#include <stdlib.h>
#include <string.h>

enum { ST_RET, ST_BC, ST_RP, ST_N };                 /* event streams */
static const unsigned stream_cap[ST_N] = { 8, 1, 1 };

/* Counter inputs (HRM Table 5-16). */
enum { IN_NONE, IN_CYCLES, IN_RET, IN_BC, IN_RP, IN_INUM };

/* ProfileMe sampler state. */
enum { PM_OFF, PM_WAIT, PM_RESID, PM_WINDOW, PM_DONE };

#define CTR_WRAP (1ull << 20)

static const uint32_t write_max[2] = { EV67_PCTR0_WRITE_MAX, EV67_PCTR1_WRITE_MAX };

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Counter k's input under the current SL0/SL1 (Table 5-16). Aggregate PCTR1 with
 * SL1=01 is "not defined": it counts nothing (choice). */
static int ctr_input(const struct ev67_pmu *p, int k)
{
  static const uint8_t in0[4] = { IN_RET, IN_CYCLES, IN_RET, IN_CYCLES };
  static const uint8_t in1[2][4] = { { IN_CYCLES, IN_NONE, IN_BC, IN_RP },
                                     { IN_CYCLES, IN_INUM, IN_BC, IN_RP } };
  return k == 0 ? in0[p->sl1] : in1[p->sl0][p->sl1];
}

/* Whether counter k is enabled: PCTk_EN and (SPCE or PPCE) (Table 5-15). */
static bool ctr_enabled(const struct ev67_pmu *p, int k)
{
  return p->pct_en[k] && (p->spce || p->ppce);
}

static bool pm_sampling(const struct ev67_pmu *p)
{
  return p->pm == PM_RESID || p->pm == PM_WINDOW;
}

/* Sets counter k's interrupt request at `cycle`; an earlier one stays. */
static void raise_req(struct ev67_pmu *p, int k, uint64_t cycle)
{
  p->irq_memo_ok = false;
  if (!p->req[k]) {
    p->req[k] = true;
    p->req_cycle[k] = cycle;
  }
}

/* Counter k wrapped at `cycle`. Returns true once the wrap has been signalled
 * (or is silent by mode), false if it was the missed wrap of an illegal write. */
static bool on_wrap(struct ev67_pmu *p, int k, uint64_t cycle)
{
  p->irq_memo_ok = false;
  p->latch[k] = true;
  p->writes[k] = 0;
  if (p->suppress[k]) {
    p->suppress[k] = false;
    return false;
  }
  if (!p->sl0)
    raise_req(p, k, cycle);   /* ProfileMe: window counts wrap silently (choice) */
  return true;
}

/* Adds `amount` to counter k, arriving at `rate` per cycle from cycle `a`;
 * detects each wrap at its exact cycle. */
static void ctr_add(struct ev67_pmu *p, int k, uint64_t amount, unsigned rate, uint64_t a)
{
  PM_ASSERT(p->ctr[k] <= EV67_PCTR_MASK && rate >= 1);   /* 20-bit counters */
  if (amount == 0)
    return;
  uint64_t need = CTR_WRAP - p->ctr[k], used = 0;
  while (amount - used >= need) {
    used += need;
    if (on_wrap(p, k, a + (used + rate - 1) / rate - 1))
      break;
    need = CTR_WRAP;
  }
  p->ctr[k] = (uint32_t)((p->ctr[k] + amount) & EV67_PCTR_MASK);
}

/* ---- event queues ---- */

static void heap_swap(struct ev67_pmu *p, unsigned i, unsigned j)
{
  struct ev67_pmu_event t = p->heap[i];
  p->heap[i] = p->heap[j];
  p->heap[j] = t;
}

static void heap_pop(struct ev67_pmu *p)
{
  PM_ASSERT(p->heap_n > 0);
  p->heap[0] = p->heap[--p->heap_n];
  for (unsigned i = 0;;) {
    unsigned l = 2 * i + 1, r = l + 1, m = i;
    if (l < p->heap_n && p->heap[l].cycle < p->heap[m].cycle) m = l;
    if (r < p->heap_n && p->heap[r].cycle < p->heap[m].cycle) m = r;
    if (m == i)
      break;
    heap_swap(p, i, m);
    i = m;
  }
}

/* The earliest queued event cycle, or UINT64_MAX. */
static uint64_t next_event(const struct ev67_pmu *p)
{
  uint64_t c = p->ring_count ? p->ring[p->ring_head].cycle : UINT64_MAX;
  return p->heap_n ? min64(c, p->heap[0].cycle) : c;
}

static void note_events(struct ev67_pmu *p, int s, uint64_t cycle, uint64_t n)
{
  p->carry[s] += n;
  if (p->last_cycle[s] == cycle) {
    p->last_n[s] += (uint32_t)n;
  } else {
    p->last_cycle[s] = cycle;
    p->last_n[s] = (uint32_t)n;
  }
}

/* Moves every queued event at or before `cur` into its stream's carry. */
static void absorb(struct ev67_pmu *p, uint64_t cur)
{
  PM_ASSERT(p->ring_head < EV67_PMU_RING && p->ring_count <= EV67_PMU_RING && p->heap_n <= EV67_PMU_HEAP);
  while (p->ring_count && p->ring[p->ring_head].cycle <= cur) {
    uint32_t n = p->ring[p->ring_head].n;
    PM_ASSERT(n <= p->ring_total);   /* ring_total sums the ring */
    p->ring_total -= n;
    note_events(p, ST_RET, cur, n);
    p->ring_head = (p->ring_head + 1) % EV67_PMU_RING;
    p->ring_count--;
  }
  while (p->heap_n && p->heap[0].cycle <= cur) {
    struct ev67_pmu_event e = p->heap[0];
    PM_ASSERT(e.stream < ST_N && e.stream != ST_RET && e.count <= p->heap_total[e.stream]);
    p->heap_total[e.stream] -= e.count;
    note_events(p, (int)e.stream, cur, e.count);
    heap_pop(p);
  }
}

/* ---- ProfileMe window ---- */

/* Whether counter k counts during cycle c of a sample. B-cache misses are
 * phase-shifted three cycles early (HRM 6.10.2.3.3, 6.10.3.3.4). */
static bool pm_gate(const struct ev67_pmu *p, int k, uint64_t c)
{
  switch (ctr_input(p, k)) {
  case IN_BC:   return c + 3 >= p->w0 && c + 3 <= p->w1;
  case IN_INUM: return c >= p->inum_lo && c <= p->inum_hi;
  case IN_NONE: return false;
  default:      return c >= p->w0 && c <= p->w1;
  }
}

/* The first cycle after `cur` at which a sample's gating changes. */
static uint64_t next_boundary(const struct ev67_pmu *p, uint64_t cur)
{
  if (!pm_sampling(p))
    return UINT64_MAX;
  const uint64_t b[6] = { p->w0 - 3, p->w1 - 2, p->w0, p->w1 + 1, p->inum_lo, p->inum_hi + 1 };
  uint64_t best = UINT64_MAX;
  for (int i = 0; i < 6; i++)
    if (b[i] > cur && b[i] < best)
      best = b[i];
  return best;
}

/* TRAP_TYPE for redirect traps: the HRM says "invalid, use PMPC" for 9, 11 and
 * 13 without saying which is which; we give them in PAL-offset order (choice). */
static unsigned redirect_trap_type(unsigned off)
{
  switch (off & 0x7FFF) {
  case EV67_PMPC_IACV:     return 9;
  case EV67_PMPC_ITB_MISS: return 11;
  default:                 return 13;
  }
}

/* The window's last cycle has been counted: latch the profiled instruction's
 * PC and status (HRM Table 6-13) and raise the counter-0 request. */
static void close_window(struct ev67_pmu *p)
{
  const struct uop_fate *f = &p->prof;
  uint32_t fl = f->flags;
  bool redirect = f->pmpc_redirect != 0;
  bool trp = redirect || (fl & (FATE_TRAP | FATE_MISPREDICT | FATE_JMP_MISPRED));
  unsigned tt = 0;
  if (trp)   /* mispredicts have no TRAP_TYPE code: we report 1, "unused" (choice) */
    tt = redirect ? redirect_trap_type(f->pmpc_redirect)
         : f->trap != EV67_TRAP_NONE ? (f->trap & 15u) : 1;
  p->pmpc = redirect ? (p->pal_base & ~0x7FFFull) | (f->pmpc_redirect & 0x7FFFu)
                     : f->pc & ~3ull;
  p->i_stat = (trp && (fl & FATE_MISPREDICT) ? EV67_I_STAT_MIS : 0)
            | (trp ? EV67_I_STAT_TRP : 0)
            | (fl & FATE_LSO ? EV67_I_STAT_LSO : 0)
            | (uint64_t)tt << EV67_I_STAT_TT_SHIFT
            | (fl & FATE_ICM ? EV67_I_STAT_ICM : 0)
            | (uint64_t)(p->ovr & 7) << EV67_I_STAT_OVR_SHIFT;
  p->val = fl & FATE_RETIRED;
  p->tak = fl & FATE_TAKEN;
  p->pm_stalled = fl & FATE_MAP_STALL;
  p->pm_killed_bm = fl & FATE_KILLED_BM;
  p->pm = PM_DONE;            /* PCTR0 stops until PCTR_CTL is written (6.10.3.2) */
  raise_req(p, 0, p->w1);
}

/* The valid fetched instruction that wrapped PCTR0 becomes the profiled one. The
 * window opens the 5th cycle after its fetch and closes the 2nd cycle after it
 * retires, aborts or traps (6.10.3.2); at least one cycle long (choice). */
static void pm_select(struct ev67_pmu *p, const struct uop_fate *f)
{
  p->irq_memo_ok = false;
  p->prof = *f;
  uint64_t end = max64(f->end, f->fetch);
  p->ovr = 0;
  p->pm = PM_RESID;
  p->w0 = f->fetch + 5;
  p->w1 = max64(end + 2, p->w0);
  /* Inum retire delay: the d cycles up to its retire, inside the window; the
   * window runs 2 cycles past the retire, hence the HRM's bound of length - 2. */
  uint64_t d = f->retire_delay;
  p->inum_hi = min64(end, p->w1);
  p->inum_lo = max64(end + 1 - min64(d, end + 1), p->w0);
  if (d == 0 || p->inum_lo > p->inum_hi) {
    p->inum_lo = 1;
    p->inum_hi = 0;
  }
  PM_ASSERT(p->w0 <= p->w1);   /* at least one cycle long */
}

/* PCTR0 while waiting: +1 per valid fetched instruction, at most 4 per cycle;
 * then the residual of up to 7 fetched in the overflow cycle and the next
 * (I_STAT[OVR], HRM 6.10.3.2 step 2). */
static void pm_fetch(struct ev67_pmu *p, const struct uop_fate *f)
{
  if (!ctr_enabled(p, 0))
    return;
  if (f->fetch == p->pm_fetch_cycle) {
    if (p->pm_fetch_n >= 4)
      return;
    p->pm_fetch_n++;
  } else {
    p->pm_fetch_cycle = f->fetch;
    p->pm_fetch_n = 1;
  }
  PM_ASSERT(p->pm_fetch_n <= 4 && p->ovr <= 7);
  if (p->pm == PM_RESID) {
    if (f->fetch > p->prof.fetch + 1) {
      p->pm = PM_WINDOW;
    } else if (p->ovr < 7) {
      p->ovr++;
      p->ctr[0] = (p->ctr[0] + 1) & EV67_PCTR_MASK;
    }
    return;
  }
  p->ctr[0] = (p->ctr[0] + 1) & EV67_PCTR_MASK;
  if (p->ctr[0] == 0 && on_wrap(p, 0, f->fetch))
    pm_select(p, f);
}

/* ---- counting ---- */

/* Counts cycles [a, b]: no queued event and no gating change inside. Streams
 * drain their carry at their cap whether or not a counter takes them. */
static void count_span(struct ev67_pmu *p, uint64_t a, uint64_t b)
{
  PM_ASSERT(a <= b && a == p->next);
  uint64_t len = b - a + 1, drained[ST_N];
  for (int s = 0; s < ST_N; s++) {
    drained[s] = len >= p->carry[s] ? p->carry[s] : min64(p->carry[s], stream_cap[s] * len);
    p->carry[s] -= drained[s];
  }
  for (int k = 0; k < 2; k++) {
    if (!ctr_enabled(p, k))
      continue;
    if (p->sl0 && !(pm_sampling(p) && pm_gate(p, k, a)))
      continue;
    switch (ctr_input(p, k)) {
    case IN_CYCLES:
    case IN_INUM: ctr_add(p, k, len, 1, a); break;
    case IN_RET:  ctr_add(p, k, drained[ST_RET], stream_cap[ST_RET], a); break;
    case IN_BC:   ctr_add(p, k, drained[ST_BC], 1, a); break;
    case IN_RP:   ctr_add(p, k, drained[ST_RP], 1, a); break;
    default: break;
    }
  }
}

/* Counts every cycle up to and including T. */
static void advance(struct ev67_pmu *p, uint64_t T)
{
  while (p->next <= T) {
    uint64_t cur = p->next;
    if (p->pm == PM_RESID && cur > p->prof.fetch + 1)
      p->pm = PM_WINDOW;
    absorb(p, cur);
    uint64_t end = min64(T, next_event(p) - 1);
    end = min64(end, next_boundary(p, cur) - 1);
    PM_ASSERT(end >= cur);   /* absorb took the events at cur; boundaries lie after it */
    count_span(p, cur, end);
    p->next = end + 1;
    if (pm_sampling(p) && p->next > p->w1)
      close_window(p);
  }
  if (pm_sampling(p) && p->next > p->w1)
    close_window(p);
  /* The header's invariant: counts are final for cycles < next, queued
   * events are >= next. */
  PM_ASSERT(next_event(p) >= p->next);
}

/* Counts up to the latest fetch cycle less one (see ev67_pmu_observe). */
static void catch_up(struct ev67_pmu *p)
{
  if (p->max_fetch)
    advance(p, p->max_fetch - 1);
}

/* The first cycle not yet counted once caught up: events are never queued
 * before it. */
static uint64_t horizon(const struct ev67_pmu *p)
{
  return max64(p->next, p->max_fetch);
}

static void ring_push(struct ev67_pmu *p, uint64_t c)
{
  p->ret_pushes++;
  c = max64(c, horizon(p));
  if (p->ring_count) {
    unsigned t = (p->ring_head + p->ring_count - 1) % EV67_PMU_RING;
    if (p->ring[t].cycle >= c) {   /* same cycle (or out of order: clamped) */
      p->ring[t].n++;
      p->ring_total++;
      return;
    }
  }
  if (p->ring_count == EV67_PMU_RING)
    catch_up(p);
  if (PM_NEVER(p->ring_count == EV67_PMU_RING)) {   /* never with an 80-entry window */
    advance(p, p->ring[p->ring_head].cycle);
    c = max64(c, p->next);
  }
  PM_ASSERT(p->ring_count < EV67_PMU_RING && c >= p->next);
  unsigned t = (p->ring_head + p->ring_count++) % EV67_PMU_RING;
  p->ring[t].cycle = c;
  p->ring[t].n = 1;
  p->ring_total++;
}

static void heap_push(struct ev67_pmu *p, uint64_t c, int s)
{
  if (p->heap_n == EV67_PMU_HEAP)
    catch_up(p);
  if (p->heap_n == EV67_PMU_HEAP)
    advance(p, p->heap[0].cycle);
  c = max64(c, horizon(p));
  PM_ASSERT(p->heap_n < EV67_PMU_HEAP && c >= p->next);
  unsigned i = p->heap_n++;
  p->heap[i] = (struct ev67_pmu_event){ c, 1, (uint32_t)s };
  while (i && p->heap[(i - 1) / 2].cycle > p->heap[i].cycle) {
    heap_swap(p, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
  p->heap_total[s]++;
}

/* Fates arrive in fetch order and no event lands before its fetch, so
 * counting may run up to the latest fetch cycle less one. Outside a ProfileMe
 * sample it is deferred: the public entry points and the interrupt projection call
 * catch_up() first, which leaves exactly the state counting after every fate
 * would have, at a fraction of the cost (one pass over many events). */
static bool deferred(const struct ev67_pmu *p)
{
  return !pm_sampling(p) && !p->eager;
}

void ev67_pmu_observe(struct ev67_pmu *p, const struct uop_fate *f)
{
  if (p->sl0 && (p->pm == PM_WAIT || p->pm == PM_RESID)) {
    /* Outside a sample only fetches move PCTR0; the one that wraps it opens
     * a sample, which needs the counting done up to here. */
    if (p->pm != PM_WAIT || p->ctr[0] == EV67_PCTR_MASK)
      catch_up(p);
    pm_fetch(p, f);
  }
  /* A squashed instruction does not count as a retire (6.10.2.3.2). */
  if ((f->flags & FATE_RETIRED) && !(f->flags & FATE_SQUASHED_NOP))
    ring_push(p, f->end);
  /* A B-cache miss is known at the B-cache lookup, just after issue (choice). */
  if (f->level == LVL_MEM && f->issue)
    heap_push(p, f->issue, ST_BC);
  if (f->trap == EV67_TRAP_REPLAY)
    heap_push(p, f->end, ST_RP);
  p->max_fetch = max64(p->max_fetch, f->fetch);
  if (!deferred(p))
    catch_up(p);
}

void ev67_pmu_sync(struct ev67_pmu *p, uint64_t cycle)
{
  catch_up(p);
  advance(p, cycle);
}

/* ---- interrupt look-ahead ---- */

static int cmp_event(const void *a, const void *b)
{
  uint64_t x = ((const struct ev67_pmu_event *)a)->cycle;
  uint64_t y = ((const struct ev67_pmu_event *)b)->cycle;
  return x < y ? -1 : x > y;
}

/* The cycle at which stream s's queued events and carry add `need` to a counter,
 * or UINT64_MAX if they never do. */
static uint64_t project_stream(const struct ev67_pmu *p, int s, uint64_t need)
{
  uint64_t carry = p->carry[s];
  uint64_t pending = s == ST_RET ? p->ring_total : p->heap_total[s];
  if (carry + pending < need)
    return UINT64_MAX;
  struct ev67_pmu_event ev[EV67_PMU_RING > EV67_PMU_HEAP ? EV67_PMU_RING : EV67_PMU_HEAP];
  unsigned n = 0;
  if (s == ST_RET) {
    for (unsigned i = 0; i < p->ring_count; i++) {
      unsigned j = (p->ring_head + i) % EV67_PMU_RING;
      ev[n++] = (struct ev67_pmu_event){ p->ring[j].cycle, p->ring[j].n, ST_RET };
    }
  } else {
    for (unsigned i = 0; i < p->heap_n; i++)
      if (p->heap[i].stream == (uint32_t)s)
        ev[n++] = p->heap[i];
    qsort(ev, n, sizeof ev[0], cmp_event);
  }
  uint64_t cap = stream_cap[s], cur = p->next;
  for (unsigned i = 0; i < n; i++) {
    if (ev[i].cycle > cur) {
      uint64_t d = min64(carry, cap * (ev[i].cycle - cur));
      if (d >= need)
        break;
      need -= d;
      carry -= d;
      cur = ev[i].cycle;
    }
    carry += ev[i].count;
  }
  return cur + (need + cap - 1) / cap - 1;
}

/* Counter k's increments until its next signalled wrap (an illegal write
 * makes it miss one). */
static uint64_t to_signalled_wrap(const struct ev67_pmu *p, int k)
{
  return CTR_WRAP - p->ctr[k] + (p->suppress[k] ? CTR_WRAP : 0);
}

/* When counter k's next overflow request will be raised, from what is known. */
static uint64_t project_overflow(const struct ev67_pmu *p, int k)
{
  if (p->sl0)
    return k == 0 && pm_sampling(p) ? p->w1 : UINT64_MAX;
  if (!ctr_enabled(p, k))
    return UINT64_MAX;
  uint64_t need = to_signalled_wrap(p, k);
  switch (ctr_input(p, k)) {
  case IN_CYCLES: return p->next + need - 1;
  case IN_RET:    return project_stream(p, ST_RET, need);
  case IN_BC:     return project_stream(p, ST_BC, need);
  case IN_RP:     return project_stream(p, ST_RP, need);
  default:        return UINT64_MAX;
  }
}

/* The answer is asked after every instruction, so it is remembered while it
 * cannot change: in Aggregate mode, with no request pending, a cycle counter's
 * overflow cycle stays put as it counts, and a retire counter's stays "never"
 * until enough retires have been queued to reach it. Wraps, requests and
 * register accesses forget it. */
uint64_t ev67_pmu_irq_cycle(struct ev67_pmu *p)
{
  if (p->irq_memo_ok && !p->eager && p->ret_pushes < p->irq_memo_until &&
      p->max_fetch <= p->irq_memo_wrap)
    return p->irq_memo;
  catch_up(p);
  uint64_t best = UINT64_MAX, until = UINT64_MAX, wrap = UINT64_MAX;
  bool memo = !p->sl0 || !pm_sampling(p);   /* ProfileMe: nothing counts between samples */
  for (int k = 0; k < 2; k++) {
    if (!p->pcen[k])
      continue;
    uint64_t t = p->req[k] ? p->req_cycle[k] : project_overflow(p, k);
    if (!p->sl0 && !p->req[k] && ctr_enabled(p, k)) {
      int in = ctr_input(p, k);
      uint64_t need = to_signalled_wrap(p, k);
      uint64_t have = p->carry[ST_RET] + p->ring_total;
      if (in == IN_RET && have < need)
        until = min64(until, p->ret_pushes + (need - have));
      else if (in == IN_CYCLES)
        wrap = min64(wrap, t);   /* counting past it (catch_up) raises the request */
      else if (in != IN_NONE)
        memo = false;
    }
    if (t == UINT64_MAX)
      continue;
    best = min64(best, max64(t, p->pcen_since[k]) + p->irq_latency);
  }
  p->irq_memo_ok = memo;
  p->irq_memo = best;
  p->irq_memo_until = until;
  p->irq_memo_wrap = wrap;
  return best;
}

/* ---- registers ---- */

void ev67_pmu_init(struct ev67_pmu *p, uint64_t pal_base)
{
  memset(p, 0, sizeof *p);
  p->pal_base = pal_base;
  p->irq_latency = EV67_PMU_IRQ_LATENCY;
  p->latch[0] = p->latch[1] = true;
  p->pm_fetch_cycle = UINT64_MAX;
  for (int s = 0; s < ST_N; s++)
    p->last_cycle[s] = UINT64_MAX;
}

bool ev67_pmu_owns_ipr(unsigned ipr)
{
  switch (ipr) {
  case EV67_IPR_PMPC: case EV67_IPR_IER: case EV67_IPR_IER_CM: case EV67_IPR_ISUM:
  case EV67_IPR_HW_INT_CLR: case EV67_IPR_I_CTL: case EV67_IPR_PCTR_CTL: case EV67_IPR_I_STAT:
    return true;
  default:
    return (ipr & 0xE0) == EV67_IPR_PCTX;
  }
}

/* PCTR_CTL as stored, with bit 47 sign-extended into [63:48]. */
static uint64_t pctr_ctl_raw(const struct ev67_pmu *p, uint32_t c0, uint32_t c1)
{
  uint64_t v = (uint64_t)(c0 & EV67_PCTR_MASK) << EV67_PCTR0_SHIFT
             | (uint64_t)(c1 & EV67_PCTR_MASK) << EV67_PCTR1_SHIFT
             | (p->pm_stalled ? EV67_PCTR_PM_STALLED : 0)
             | (p->pm_killed_bm ? EV67_PCTR_PM_KILLED_BM : 0)
             | (p->sl0 ? EV67_PCTR_SL0 : 0)
             | (uint64_t)p->sl1 << EV67_PCTR_SL1_SHIFT
             | (p->val ? EV67_PCTR_VAL : 0)
             | (p->tak ? EV67_PCTR_TAK : 0);
  return (v & (1ull << 47)) ? v | 0xFFFF000000000000ull : v;
}

/* Events of stream s in cycle c. */
static uint64_t events_at(const struct ev67_pmu *p, int s, uint64_t c)
{
  return p->last_cycle[s] == c ? p->last_n[s] : 0;
}

/* A read while counting is disabled shows value + that cycle's increment:
 * 0..4 retires for PCTR0, per SL1 for PCTR1 (HRM 6.10.1). */
static uint64_t pctr_ctl_read(struct ev67_pmu *p, uint64_t cycle)
{
  advance(p, cycle);
  uint32_t c0 = p->ctr[0], c1 = p->ctr[1];
  if (!ctr_enabled(p, 0))
    c0 += (uint32_t)min64(4, events_at(p, ST_RET, cycle));
  if (!ctr_enabled(p, 1)) {
    switch (ctr_input(p, 1)) {
    case IN_CYCLES: c1 += 1; break;
    case IN_BC:     c1 += (uint32_t)min64(1, events_at(p, ST_BC, cycle)); break;
    case IN_RP:     c1 += (uint32_t)min64(1, events_at(p, ST_RP, cycle)); break;
    default: break;
    }
  }
  return pctr_ctl_raw(p, c0, c1);
}

/* One write of counter k (value already 20 bits), with its quirks (6.10.1). */
static void counter_write(struct ev67_pmu *p, int k, uint32_t v)
{
  PM_ASSERT(v <= EV67_PCTR_MASK);   /* value already 20 bits */
  if (p->ctr[k] == EV67_PCTR_MASK)
    p->exit_ovf[k] = true;          /* at the threshold: overflow at PAL exit */
  if (p->latch[k] && ++p->writes[k] >= 2) {
    p->latch[k] = false;            /* the second write clears the latch */
    p->writes[k] = 0;
  }
  p->suppress[k] = v > write_max[k];
  p->ctr[k] = v;
}

/* A PCTR_CTL write that replaces the counters in `written` (bit k: PCTRk)
 * and leaves the others counting, untouched by the write quirks. */
static void pctr_ctl_write(struct ev67_pmu *p, uint64_t v, unsigned written, uint64_t cycle)
{
  advance(p, cycle);
  if (written & 1)
    counter_write(p, 0, (uint32_t)(v >> EV67_PCTR0_SHIFT) & EV67_PCTR_MASK);
  if (written & 2)
    counter_write(p, 1, (uint32_t)(v >> EV67_PCTR1_SHIFT) & EV67_PCTR_MASK);
  p->sl0 = (v & EV67_PCTR_SL0) != 0;
  p->sl1 = (uint8_t)((v >> EV67_PCTR_SL1_SHIFT) & 3);
  p->pm = p->sl0 ? PM_WAIT : PM_OFF;    /* (re)arms ProfileMe; drops an open window */
  p->pm_fetch_cycle = UINT64_MAX;
  p->pm_fetch_n = 0;
}

static void set_pcen(struct ev67_pmu *p, uint64_t v, uint64_t cycle)
{
  const uint64_t bit[2] = { EV67_PC0, EV67_PC1 };
  for (int k = 0; k < 2; k++) {
    bool on = (v & bit[k]) != 0;
    if (on && !p->pcen[k])
      p->pcen_since[k] = cycle + 1;
    p->pcen[k] = on;
  }
}

/* A register access or PALcode event: count what observe() deferred, and
 * forget the remembered interrupt cycle. */
static void enter(struct ev67_pmu *p)
{
  p->irq_memo_ok = false;
  catch_up(p);
}

uint64_t ev67_pmu_mfpr(struct ev67_pmu *p, unsigned ipr, uint64_t cycle)
{
  enter(p);
  switch (ipr) {
  case EV67_IPR_PCTR_CTL:
    return pctr_ctl_read(p, cycle);
  case EV67_IPR_I_STAT:
    advance(p, cycle);
    return p->i_stat;
  case EV67_IPR_PMPC:
    advance(p, cycle);
    return p->pmpc;
  case EV67_IPR_ISUM:    /* pending requests that are enabled (HRM 5.2.11) */
    advance(p, cycle);
    return (p->req[0] && p->pcen[0] ? EV67_PC0 : 0) | (p->req[1] && p->pcen[1] ? EV67_PC1 : 0);
  case EV67_IPR_IER:
  case EV67_IPR_IER_CM:
    return (p->pcen[0] ? EV67_PC0 : 0) | (p->pcen[1] ? EV67_PC1 : 0);
  case EV67_IPR_I_CTL:
    return (p->spce ? EV67_I_CTL_SPCE : 0) | (p->pct_en[0] ? EV67_I_CTL_PCT0_EN : 0)
         | (p->pct_en[1] ? EV67_I_CTL_PCT1_EN : 0);
  default:
    if ((ipr & 0xE0) == EV67_IPR_PCTX)
      return p->ppce ? EV67_PCTX_PPCE : 0;
    return 0;    /* HW_INT_CLR is write-only */
  }
}

bool ev67_pmu_mtpr(struct ev67_pmu *p, unsigned ipr, uint64_t v, uint64_t cycle)
{
  enter(p);
  switch (ipr) {
  case EV67_IPR_PCTR_CTL:
    pctr_ctl_write(p, v, 3, cycle);
    return true;
  case EV67_IPR_IER:
  case EV67_IPR_IER_CM:
    set_pcen(p, v, cycle);
    return true;
  case EV67_IPR_HW_INT_CLR:
    advance(p, cycle);
    if (v & EV67_PC0) p->req[0] = false;
    if (v & EV67_PC1) p->req[1] = false;
    return true;
  case EV67_IPR_I_CTL:
    advance(p, cycle);
    p->spce = (v & EV67_I_CTL_SPCE) != 0;
    p->pct_en[0] = (v & EV67_I_CTL_PCT0_EN) != 0;
    p->pct_en[1] = (v & EV67_I_CTL_PCT1_EN) != 0;
    return true;
  case EV67_IPR_PMPC:
  case EV67_IPR_ISUM:
  case EV67_IPR_I_STAT:
    return true;       /* read-only: writes ignored */
  default:
    if ((ipr & 0xE0) != EV67_IPR_PCTX)
      return false;
    if (ipr & EV67_PCTX_SEL_PPCE) {
      advance(p, cycle);
      p->ppce = (v & EV67_PCTX_PPCE) != 0;
    }
    return true;
  }
}

void ev67_pmu_leave_pal(struct ev67_pmu *p, uint64_t cycle)
{
  enter(p);
  advance(p, cycle);
  for (int k = 0; k < 2; k++) {
    bool fire = false;
    if (p->exit_ovf[k]) {            /* written at the threshold (6.10.1) */
      fire = true;
      p->exit_ovf[k] = false;
    }
    if (p->latch[k] && p->writes[k] == 1) {   /* written once: stale overflow */
      fire = true;
      p->latch[k] = false;
      p->writes[k] = 0;
    }
    /* Restriction 32: a disabled counter left within one cycle's increment of
     * overflow signals again at every PAL exit (choice of what "multiple
     * overflow signals" does). */
    unsigned step = k == 0 ? (p->sl0 ? 4 : ctr_input(p, 0) == IN_RET ? 8 : 1) : 1;
    if (!ctr_enabled(p, k) && p->ctr[k] >= CTR_WRAP - step)
      fire = true;
    if (fire)
      raise_req(p, k, cycle);
  }
}

/* wrperfmon WRITE: replaces the counters selected by arg[1:0], written twice
 * (HRM 6.10.1 / D.28), and keeps the rest of PCTR_CTL. An unselected counter
 * is not rewritten: rewritten with the value read, it would lose the counts
 * in between and, within 16 of overflow, its next wrap (an out-of-range
 * write), which a driver using both counters cannot see. */
static void perfmon_write(struct ev67_pmu *p, uint64_t arg, uint64_t cycle)
{
  advance(p, cycle);
  uint64_t v = pctr_ctl_raw(p, p->ctr[0], p->ctr[1]);
  const uint64_t field[2] = { (uint64_t)EV67_PCTR_MASK << EV67_PCTR0_SHIFT,
                              (uint64_t)EV67_PCTR_MASK << EV67_PCTR1_SHIFT };
  for (int k = 0; k < 2; k++)
    if (arg & (1u << k))
      v = (v & ~field[k]) | (arg & field[k]);
  pctr_ctl_write(p, v, (unsigned)arg & 3, cycle);
  pctr_ctl_write(p, v, (unsigned)arg & 3, cycle);
}

static void perfmon_enable(struct ev67_pmu *p, uint64_t mask, bool on, uint64_t cycle)
{
  advance(p, cycle);
  for (int k = 0; k < 2; k++)
    if (mask & (1u << k))
      p->pct_en[k] = on;
}

uint64_t ev67_pmu_wrperfmon(struct ev67_pmu *p, uint64_t cmd, uint64_t arg, uint64_t cycle)
{
  enter(p);
  uint64_t v0 = 1;
  switch (cmd) {
  case EV67_PERFMON_DISABLE:
    perfmon_enable(p, arg, false, cycle);
    break;
  case EV67_PERFMON_ENABLE:
    perfmon_enable(p, arg, true, cycle);
    break;
  case EV67_PERFMON_DESIRED_EVENTS: {
    advance(p, cycle);
    uint64_t sel = EV67_PCTR_SL0 | 3ull << EV67_PCTR_SL1_SHIFT;
    uint64_t v = (pctr_ctl_raw(p, p->ctr[0], p->ctr[1]) & ~sel) | (arg & sel);
    pctr_ctl_write(p, v, 0, cycle);   /* the counters count on */
    break;
  }
  case EV67_PERFMON_LOGGING_OPTIONS:
    advance(p, cycle);
    p->spce = !(arg & 1);     /* bit 0: only selected (PPCE) processes */
    break;
  case EV67_PERFMON_READ:
    v0 = pctr_ctl_read(p, cycle);
    break;
  case EV67_PERFMON_WRITE:
    perfmon_write(p, arg, cycle);
    break;
  case EV67_PERFMON_ENABLE_WRITE:
    perfmon_write(p, arg, cycle);
    perfmon_enable(p, arg, true, cycle);
    break;
  case EV67_PERFMON_I_STAT:
    v0 = ev67_pmu_mfpr(p, EV67_IPR_I_STAT, cycle);
    break;
  case EV67_PERFMON_PMPC:
    v0 = ev67_pmu_mfpr(p, EV67_IPR_PMPC, cycle);
    break;
  default:                     /* INT_FREQ is EV5-only; unknown commands fail */
    v0 = 0;
    break;
  }
  ev67_pmu_leave_pal(p, cycle);
  return v0;
}

/* ---- placement (HRM Table 5-16, SL0 = 0; SL1 = 01 leaves PCTR1 undefined) ---- */

int ev67_place(unsigned ev, const unsigned on[2], unsigned *sl1)
{
  static const uint8_t input[4][2] = {
    { EV67_EV_INSTRUCTIONS, EV67_EV_CYCLES }, { EV67_EV_CYCLES, EV67_EV_NONE },
    { EV67_EV_INSTRUCTIONS, EV67_EV_BCACHE }, { EV67_EV_CYCLES, EV67_EV_MBOX },
  };
  for (unsigned s = 0; s < 4; s++)
    for (int k = 0; k < 2; k++)
      if (input[s][k] == ev && on[k] == EV67_EV_NONE &&
          (on[k ^ 1] == EV67_EV_NONE || on[k ^ 1] == input[s][k ^ 1])) {
        *sl1 = s;
        return k;
      }
  return -1;
}

/* ---- functional spans ---- */

/* Stream s's events queued or carried but not yet counted. */
static uint64_t pending(const struct ev67_pmu *p, int s)
{
  return p->carry[s] + (s == ST_RET ? p->ring_total : p->heap_total[s]);
}

void ev67_pmu_headroom(struct ev67_pmu *p, struct ev67_pmu_span *h)
{
  for (int s = 0; s < EV67_STREAMS; s++)
    h->n[s] = UINT64_MAX;
  for (int k = 0; k < 2; k++) {
    if (!ctr_enabled(p, k))
      continue;
    if (p->sl0) {
      if (k == 0 && p->pm == PM_WAIT)
        h->n[EV67_STREAM_FETCHED] = CTR_WRAP - p->ctr[0];
      continue;
    }
    static const int stream[] = { [IN_RET] = ST_RET, [IN_BC] = ST_BC, [IN_RP] = ST_RP };
    static const int pub[] = { [ST_RET] = EV67_STREAM_RETIRED, [ST_BC] = EV67_STREAM_BCACHE,
                               [ST_RP] = EV67_STREAM_REPLAYS };
    int in = ctr_input(p, k);
    if (in != IN_RET && in != IN_BC && in != IN_RP)
      continue;
    int s = stream[in];
    uint64_t need = to_signalled_wrap(p, k), have = pending(p, s);
    uint64_t left = need > have ? need - have : 0;
    h->n[pub[s]] = min64(h->n[pub[s]], left);
  }
}

void ev67_pmu_functional(struct ev67_pmu *p, uint64_t end, const struct ev67_pmu_span *s)
{
  enter(p);
  advance(p, end);
  p->max_fetch = max64(p->max_fetch, end);   /* later fates are fetched after the span */
  for (int k = 0; k < 2; k++) {
    if (!ctr_enabled(p, k))
      continue;
    if (p->sl0) {
      if (k == 0 && p->pm == PM_WAIT) {
        uint64_t stop = EV67_PCTR_MASK - 1;   /* the wrap is left to a fate */
        uint64_t v = p->ctr[0] >= stop ? p->ctr[0] : min64(stop, p->ctr[0] + s->n[EV67_STREAM_FETCHED]);
        p->ctr[0] = (uint32_t)v;
      }
      continue;
    }
    /* Every wrap at `end`: a rate this large puts them all there. */
    switch (ctr_input(p, k)) {
    case IN_RET: ctr_add(p, k, s->n[EV67_STREAM_RETIRED], UINT32_MAX, end); break;
    case IN_BC:  ctr_add(p, k, s->n[EV67_STREAM_BCACHE], UINT32_MAX, end); break;
    case IN_RP:  ctr_add(p, k, s->n[EV67_STREAM_REPLAYS], UINT32_MAX, end); break;
    default: break;
    }
  }
}

bool ev67_pmu_quiet(const struct ev67_pmu *p)
{
  return !pm_sampling(p);
}
