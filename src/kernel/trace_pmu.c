/* The trace PMU driver; see trace_pmu.h. One event owns a CPU's unit from
 * its first add until it is freed: the unit's stream is that event's alone
 * (another event's add on that CPU gets -EAGAIN, as a busy PMU answers). */
#include "kernel/trace_pmu.h"
#include "kernel/perf_aux.h"
#include "util/assert.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* pmu_private: who is traced. */
struct trace_target {
  int tid;                     /* the task followed, -1: the CPU */
  int cpu;                     /* the instance's CPU, -1 for the parent */
  bool stop_pending;           /* STOP stayed busy: read(2) retries it */
};

/* The AUX-private state: the buffer and how far each unit's stream has been
 * dumped into it. */
struct trace_buf {
  uint64_t *pfns;
  size_t nr_pages;
  bool overwrite;
  uint64_t dump_off[PERF_MAX_CPUS];   /* stream offset of the next dump, per unit */
};

/* Per CPU: whose stream the unit holds, and the loss seen so far. */
struct trace_cpu {
  struct perf_event *owner;
  uint64_t lost_seen;
  bool blocked;                /* a dump found the AUX buffer full */
};

struct trace_pmu {
  struct pmu pmu;
  struct trace_fw *fw;
  struct trace_cpu cpu[PERF_MAX_CPUS];
  struct trace_pmu_stats stats;
};

static struct trace_pmu *drv(const struct perf_event *e) { return e->pmu->priv; }
static struct trace_target *tgt(const struct perf_event *e) { return e->pmu_private; }

/* A firmware call with BUSY retried TRACE_PMU_BUSY_RETRIES times. */
static int pal(struct trace_pmu *d, int op, int cpu, uint64_t pa, uint64_t size, uint64_t off, uint64_t ret[4])
{
  int rc = TRACE_PAL_BUSY;
  for (int i = 0; i <= TRACE_PMU_BUSY_RETRIES; i++) {
    rc = pal_trace(d->fw, op, cpu, pa, size, off, ret);
    if (rc != TRACE_PAL_BUSY) return rc;
    if (i < TRACE_PMU_BUSY_RETRIES) d->stats.busy_retries++;
  }
  d->stats.busy_reported++;
  return rc;
}

static int trace_event_init(struct perf_event *e)
{
  if (e->attr.type != TRACE_PMU_TYPE) return -ENOENT;
  if (e->attr.config & ~(uint64_t)TRACE_CFG_MEMSIZE_MASK || e->attr.config1 || e->attr.config2) return -EINVAL;
  unsigned ms = e->attr.config & TRACE_CFG_MEMSIZE_MASK;
  if (ms && (ms < 13 || ms > 24)) return -EINVAL;
  /* The unit sees user instructions only (the modelled kernel runs none). */
  if (e->attr.exclude_user) return -EINVAL;
  /* The parent is only a handle; each CPU's instance is traced (its
   * target and CPU are known once the core made it). */
  e->pmu_private = NULL;
  if (!e->parent) return 0;
  if (e->cpu < 0 || e->cpu >= drv(e)->fw->nunits) return -EINVAL;
  struct trace_target *t = calloc(1, sizeof *t);
  if (!t) return -ENOMEM;
  t->tid = e->target;
  t->cpu = e->cpu;
  e->pmu_private = t;
  return 0;
}

/* ---- dumping into the AUX area ---- */

enum dump_result { DUMP_DONE, DUMP_MORE, DUMP_EMPTY, DUMP_EXHAUSTED, DUMP_NOSPACE, DUMP_BUSY, DUMP_ERROR };

/* The flags of a record after a dump: bytes the unit dropped since the last
 * look are TRUNCATED when the AUX buffer was full (the data did not fit),
 * PARTIAL (the record has a gap) otherwise. */
static uint64_t loss_flags(struct trace_pmu *d, struct trace_cpu *tc, uint64_t lost)
{
  if (lost <= tc->lost_seen) return 0;
  d->stats.lost_bytes += lost - tc->lost_seen;
  tc->lost_seen = lost;
  return tc->blocked ? PERF_AUX_FLAG_TRUNCATED : PERF_AUX_FLAG_PARTIAL;
}

/* One dump of cpu's unit into e's AUX buffer: from the head's page, as many
 * pages as are physically contiguous from there (scanned page by page: a
 * dump across a gap would write frames that are not the buffer's), as the
 * space left allows and not past the buffer's end. */
static enum dump_result dump_chunk(struct trace_pmu *d, struct perf_event *e, int cpu)
{
  struct trace_cpu *tc = &d->cpu[cpu];
  struct perf_output_handle h;
  struct trace_buf *buf = perf_aux_output_begin(&h, e);
  if (!buf) {
    if (!perf_event_aux(e)) return DUMP_ERROR;
    tc->blocked = true;
    d->stats.aux_full++;
    return DUMP_NOSPACE;
  }
  uint64_t size = buf->nr_pages * PHYS_PAGE, off = h.head & (size - 1);
  if (PM_NEVER(off % PHYS_PAGE)) {
    /* Heads move by whole pages; a head inside one (never) goes to the next. */
    uint64_t skip = PHYS_PAGE - off % PHYS_PAGE;
    if (perf_aux_output_skip(&h, skip)) { tc->blocked = true; perf_aux_output_end(&h, 0); return DUMP_NOSPACE; }
    off = (off + skip) & (size - 1);
  }
  uint64_t space = size - off;
  if (!buf->overwrite && h.size < space) space = h.size;
  space -= space % PHYS_PAGE;
  if (!space) {
    tc->blocked = true;
    d->stats.aux_full++;
    perf_aux_output_end(&h, 0);
    return DUMP_NOSPACE;
  }
  size_t first = (size_t)(off / PHYS_PAGE), pages = 1;
  while ((pages + 1) * PHYS_PAGE <= space && buf->pfns[first + pages] == buf->pfns[first] + pages) pages++;
  if (pages * PHYS_PAGE < space) d->stats.gap_bounded++;
  uint64_t ret[4];
  if (pal(d, TRACE_PAL_STATUS, cpu, 0, 0, 0, ret) == TRACE_PAL_OK && buf->dump_off[cpu] < ret[1])
    buf->dump_off[cpu] = ret[1];   /* what the unit gave up before this buffer took over */
  uint64_t lost = ret[3];
  int rc = pal(d, TRACE_PAL_DUMP, cpu, buf->pfns[first] * PHYS_PAGE, pages * PHYS_PAGE, buf->dump_off[cpu], ret);
  uint64_t flags = loss_flags(d, tc, lost);
  if (rc == TRACE_PAL_BUSY) {
    perf_aux_output_flag(&h, flags | PERF_AUX_FLAG_COLLISION);
    perf_aux_output_end(&h, 0);
    return DUMP_BUSY;
  }
  if (rc < 0 || rc == TRACE_PAL_NO_DATA || !ret[0]) {
    perf_aux_output_flag(&h, flags);
    perf_aux_output_end(&h, 0);
    return rc < 0 ? DUMP_ERROR : rc == TRACE_PAL_NO_DATA ? DUMP_EXHAUSTED : DUMP_EMPTY;
  }
  uint64_t bytes = ret[0], adv = (bytes + PHYS_PAGE - 1) / PHYS_PAGE * PHYS_PAGE;
  buf->dump_off[cpu] += bytes;
  d->stats.dumps++;
  d->stats.bytes += bytes;
  d->stats.aux_bytes += adv;
  /* A chunk that filled the space left while the unit has more: the data
   * was cut to fit (Linux's TRUNCATED at the end of the buffer). */
  if (rc == TRACE_PAL_PARTIAL && !buf->overwrite && adv == (h.size - h.size % PHYS_PAGE) && adv == space)
    flags |= PERF_AUX_FLAG_TRUNCATED;
  tc->blocked = false;
  if (buf->overwrite) h.head += adv;   /* snapshot mode: the driver moves the head */
  perf_aux_output_flag(&h, flags);
  perf_aux_output_end(&h, adv);
  return rc == TRACE_PAL_PARTIAL ? DUMP_MORE : DUMP_DONE;
}

/* Dumps while the unit has more and the buffer takes it. */
static enum dump_result dump_all(struct trace_pmu *d, struct perf_event *e, int cpu, bool *dumped)
{
  enum dump_result r;
  for (int guard = 0; guard < 4096; guard++) {
    uint64_t before = d->stats.bytes;
    r = dump_chunk(d, e, cpu);
    if (d->stats.bytes != before) *dumped = true;
    if (r != DUMP_MORE) return r;
  }
  return DUMP_MORE;
}

void trace_pmu_irq(struct trace_pmu *d, int cpu)
{
  if (cpu < 0 || cpu >= PERF_MAX_CPUS || !d->cpu[cpu].owner) return;
  bool dumped = false;
  dump_all(d, d->cpu[cpu].owner, cpu, &dumped);
}

/* ---- the PMU callbacks ---- */

static void trace_start(struct perf_event *e, int flags)
{
  (void)flags;
  uint64_t ret[4];
  if (pal(drv(e), TRACE_PAL_START, e->cpu, 0, 0, 1 /* the half-full interrupt */, ret) == TRACE_PAL_OK)
    e->hw.state = 0;
}

static void trace_stop(struct perf_event *e, int flags)
{
  struct trace_pmu *d = drv(e);
  uint64_t ret[4];
  if (e->hw.state & PERF_HES_STOPPED) return;
  e->hw.state |= PERF_HES_STOPPED;
  tgt(e)->stop_pending = pal(d, TRACE_PAL_STOP, e->cpu, 0, 0, 0, ret) == TRACE_PAL_BUSY;
  if (flags & PERF_EF_UPDATE) {
    bool dumped = false;
    dump_all(d, e, e->cpu, &dumped);
  }
}

/* The event takes its CPU's unit (a fresh stream when it was another's). */
static int trace_add(struct perf_event *e, int flags)
{
  struct trace_pmu *d = drv(e);
  struct trace_cpu *tc = &d->cpu[e->cpu];
  if (tc->owner && tc->owner != e) return -EAGAIN;
  if (!tc->owner) {
    uint64_t ret[4];
    unsigned ms = e->attr.config & TRACE_CFG_MEMSIZE_MASK;
    pal(d, TRACE_PAL_RESET, e->cpu, 0, 0, 0, ret);
    if (pal(d, TRACE_PAL_SETUP, e->cpu, 0, ms ? 1ull << ms : TRACE_MEM_DEFAULT, 0, ret) != TRACE_PAL_OK) return -EAGAIN;
    tc->owner = e;
    tc->lost_seen = 0;
    tc->blocked = false;
    struct perf_aux *a = perf_event_aux(e);
    if (a && a->priv) ((struct trace_buf *)a->priv)->dump_off[e->cpu] = 0;
  }
  e->hw.idx = e->cpu;
  e->hw.state = PERF_HES_STOPPED;
  if (flags & PERF_EF_START) trace_start(e, 0);
  return 0;
}

/* Off the CPU (a context switch, disable, close): the unit stops and keeps
 * its data for the event, which owns it still; the half-full interrupt or
 * the tool's read dumps it (a dump at every switch would pad a page each). */
static void trace_del(struct perf_event *e, int flags)
{
  (void)flags;
  trace_stop(e, 0);
  e->hw.idx = -1;
}

/* While tracing, data keeps coming: the count stays 1. */
static void trace_read(struct perf_event *e)
{
  bool dumped = false;
  if (drv(e)->cpu[e->cpu].owner == e) dump_all(drv(e), e, e->cpu, &dumped);
  e->count = 1;
}

/* read(2): finish a stop that was busy (-EAGAIN if it still is), then dump;
 * the count is 0 once the stopped stream is exhausted. */
static int trace_aux_read(struct perf_event *e)
{
  struct trace_pmu *d = drv(e);
  struct trace_target *t = tgt(e);
  if (!t || d->cpu[e->cpu].owner != e) { e->count = 0; return 0; }
  uint64_t ret[4];
  if (t->stop_pending) {
    if (pal(d, TRACE_PAL_STOP, e->cpu, 0, 0, 0, ret) == TRACE_PAL_BUSY) {
      d->stats.eagain++;
      return -EAGAIN;
    }
    t->stop_pending = false;
  }
  bool dumped = false;
  enum dump_result r = dump_all(d, e, e->cpu, &dumped);
  bool running = pal(d, TRACE_PAL_STATUS, e->cpu, 0, 0, 0, ret) == TRACE_PAL_OK && (ret[2] & TRACE_STATUS_ON);
  e->count = running || dumped || (r != DUMP_EXHAUSTED && r != DUMP_ERROR) ? 1 : 0;
  return 0;
}

static void trace_destroy(struct perf_event *e)
{
  struct trace_target *t = tgt(e);
  if (t) {
    struct trace_pmu *d = drv(e);
    if (d->cpu[e->cpu].owner == e) {
      uint64_t ret[4];
      pal_trace(d->fw, TRACE_PAL_RESET, e->cpu, 0, 0, 0, ret);
      d->cpu[e->cpu].owner = NULL;
    }
  }
  free(t);
  e->pmu_private = NULL;
}

static void *trace_setup_aux(struct perf_event *e, const uint64_t *pfns, int nr_pages, bool overwrite)
{
  (void)e;
  struct trace_buf *b = calloc(1, sizeof *b);
  if (!b || !(b->pfns = malloc((size_t)nr_pages * sizeof *pfns))) { free(b); return NULL; }
  memcpy(b->pfns, pfns, (size_t)nr_pages * sizeof *pfns);
  b->nr_pages = (size_t)nr_pages;
  b->overwrite = overwrite;
  return b;
}

static void trace_free_aux(void *aux)
{
  struct trace_buf *b = aux;
  free(b->pfns);
  free(b);
}

struct trace_pmu *trace_pmu_create(struct perf_ctx *ctx, struct trace_fw *fw)
{
  struct trace_pmu *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->fw = fw;
  d->pmu = (struct pmu){
    .name = "trace", .type = TRACE_PMU_TYPE, .priv = d,
    .capabilities = PERF_PMU_CAP_ITRACE | PERF_PMU_CAP_AUX_NO_SG | PERF_PMU_CAP_AUX_PREFER_LARGE,
    .event_init = trace_event_init, .add = trace_add, .del = trace_del, .start = trace_start,
    .stop = trace_stop, .read = trace_read, .destroy = trace_destroy, .setup_aux = trace_setup_aux,
    .free_aux = trace_free_aux, .aux_read = trace_aux_read,
  };
  perf_pmu_register(ctx, &d->pmu);
  return d;
}

void trace_pmu_destroy(struct trace_pmu *d) { free(d); }

const struct trace_pmu_stats *trace_pmu_stats(const struct trace_pmu *d) { return &d->stats; }
