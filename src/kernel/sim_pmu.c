/* The sim/ PMU; see sim_pmu.h. A counter's value is the difference of the
 * ground-truth total between start and stop, folded into event->count. */
#include "kernel/sim_pmu.h"
#include <errno.h>
#include <stdlib.h>

#define SIM_CYCLES SIZE_MAX      /* the cores' clock, not a struct ev67_stats field */
#define SIM(f) offsetof(struct ev67_stats, f)

struct sim_row { struct sim_event ev; size_t off; };
/* Each event, what it counts (exactly, from the timing model) and where in
 * struct ev67_stats. */
static const struct sim_row rows[] = {
  { { "cycles", "CPU cycles" }, SIM_CYCLES },
  { { "instructions", "retired instructions (squashed NOPs excluded)" }, SIM(retired) },
  { { "fetched", "fetched instructions, wrong path and killed included" }, SIM(fetched) },
  { { "branches", "retired conditional branches" }, SIM(cond_branches) },
  { { "branch-misses", "mispredicted conditional branches" }, SIM(cond_mispredicts) },
  { { "jump-misses", "mispredicted jumps and returns" }, SIM(jump_mispredicts) },
  { { "dtb-misses", "DTB misses" }, SIM(dtb_misses) },
  { { "itb-misses", "ITB misses" }, SIM(itb_misses) },
  { { "icache-misses", "Icache misses (fetch blocks)" }, SIM(icache_misses) },
  { { "dcache-misses", "Dcache misses (loads)" }, SIM(dcache_misses) },
  { { "bcache-misses", "B-cache misses (loads)" }, SIM(bcache_misses) },
  { { "killed", "instructions killed (wrong path or behind a trap)" }, SIM(killed) },
  { { "wrong-path", "instructions fetched on a mispredicted path" }, SIM(wrong_path) },
  { { "unaligned", "unaligned-access traps" }, SIM(unaligned) },
  { { "replays", "load-store order replay traps" }, SIM(replays) },
  { { "map-stalls", "instructions stalled between fetch and map" }, SIM(map_stalls) },
  { { "loads", "loads executed" }, SIM(loads) },
  { { "stores", "stores executed" }, SIM(stores) },
  { { "traps", "traps of any kind" }, SIM(traps) },
};
#define NROWS (sizeof rows / sizeof rows[0])

const struct sim_event *sim_pmu_events(size_t *n)
{
  static struct sim_event evs[NROWS];
  for (size_t i = 0; i < NROWS; i++) evs[i] = rows[i].ev;
  *n = NROWS;
  return evs;
}

int sim_pmu_event_field(uint64_t config)
{
  if (config >= NROWS) return -2;
  return rows[config].off == SIM_CYCLES ? -1 : (int)(rows[config].off / sizeof(uint64_t));
}

struct sim_pmu {
  struct pmu pmu;
  struct sim_pmu_env env;
};

static uint64_t value(const struct perf_event *e)
{
  const struct sim_pmu *p = e->pmu->priv;
  size_t off = rows[e->hw.config].off;
  uint64_t v = 0;
  for (int kernel = 0; kernel < 2; kernel++) {
    if (kernel ? e->attr.exclude_kernel : e->attr.exclude_user) continue;
    struct ev67_stats s;
    uint64_t cycles;
    p->env.totals(p->env.ctx, e->cpu > 0 ? e->cpu : 0, kernel, &s, &cycles);
    if (off == SIM_CYCLES) return cycles;
    v += *(const uint64_t *)((const char *)&s + off);
  }
  return v;
}

static int sim_init(struct perf_event *e)
{
  if (e->attr.type != SIM_PMU_TYPE) return -ENOENT;
  if (e->attr.config >= NROWS) return -EINVAL;
  /* A counting PMU: no sampling; a mode filter for everything but cycles. */
  if (e->attr.sample_period || e->attr.freq || e->attr.precise_ip) return -EINVAL;
  if ((e->attr.exclude_user || e->attr.exclude_kernel) && rows[e->attr.config].off == SIM_CYCLES) return -EINVAL;
  e->hw.config = e->attr.config;
  return 0;
}

static void sim_read(struct perf_event *e)
{
  if (e->hw.state & PERF_HES_STOPPED) return;
  uint64_t now = value(e);
  e->count += now - e->hw.prev_count;
  e->hw.prev_count = now;
}

static void sim_start(struct perf_event *e, int flags)
{
  (void)flags;
  e->hw.prev_count = value(e);
  e->hw.state = 0;
}

static void sim_stop(struct perf_event *e, int flags)
{
  if (!(e->hw.state & PERF_HES_STOPPED) && (flags & PERF_EF_UPDATE)) sim_read(e);
  e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int sim_add(struct perf_event *e, int flags)
{
  e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
  if (flags & PERF_EF_START) sim_start(e, PERF_EF_RELOAD);
  return 0;
}

static void sim_del(struct perf_event *e, int flags) { sim_stop(e, flags | PERF_EF_UPDATE); }

struct sim_pmu *sim_pmu_create(struct perf_ctx *c, const struct sim_pmu_env *env)
{
  struct sim_pmu *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->env = *env;
  p->pmu = (struct pmu){ .name = "sim", .type = SIM_PMU_TYPE, .priv = p, .event_init = sim_init,
                         .add = sim_add, .del = sim_del, .start = sim_start, .stop = sim_stop,
                         .read = sim_read };
  perf_pmu_register(c, &p->pmu);
  return p;
}

void sim_pmu_destroy(struct sim_pmu *p) { free(p); }
