/* The sysfs description of the PMUs; see alpha_sysfs.h. The cpu PMU's
 * format/ files are the bits alpha_event_init reads (pm_raw.h: PM_CFG_* in
 * config, PM_FILT_* in config1), its events/ files the four events the
 * EV67 counts plus the memory events perf mem looks up by sysfs name
 * (cpu/events/mem-loads, mem-stores, and one event for both as on AMD IBS:
 * ProfileMe samples every instruction, so one event sees loads and stores
 * alike, and two ProfileMe events could only take turns). */
#include "kernel/alpha_sysfs.h"
#include "kernel/trace_pmu.h"
#include "uapi/pm_raw.h"
#include <string.h>

/* The format strings are written from the pm_raw.h masks at compile time
 * where C allows; the static asserts keep them in step. */
_Static_assert(PM_CFG_EVENT_MASK == 0xFF, "format/event is config:0-7");
_Static_assert(PM_CFG_PROFILEME == 1ull << 8, "format/profileme is config:8");
_Static_assert(PM_CFG_RANDOM == 1ull << 9, "format/random is config:9");
_Static_assert(PM_CFG_SL1_SHIFT == 10, "format/sl1 is config:10-11");
_Static_assert(TRACE_PMU_TYPE == 10 && TRACE_CFG_MEMSIZE_MASK == 0x1F, "trace/type is 10, format/memsize config:0-4");
_Static_assert(PM_FILT_RETIRED == 1 && PM_FILT_MISPREDICT == 2 && PM_FILT_TRAP == 4,
               "format/retired, mispredict, trap are config1:0, 1, 2");

static const struct pmu_sysfs_attr cpu_format[] = {
  { "event", "config:0-7\n" },        /* 1 cycles, 2 instructions, 3 B-cache misses, 4 Mbox replays */
  { "profileme", "config:8\n" },      /* ProfileMe mode (also set by precise_ip) */
  { "random", "config:9\n" },         /* randomized sampling interval */
  { "sl1", "config:10-11\n" },        /* PCTR1 input in ProfileMe mode: the sample weight */
  { "retired", "config1:0\n" },       /* keep samples of retired instructions */
  { "mispredict", "config1:1\n" },    /* keep samples of mispredicted branches */
  { "trap", "config1:2\n" },          /* keep samples of trapping instructions */
  { "ldlat", "config2:0-15\n" },      /* keep loads of at least this latency (perf mem) */
};

/* PMU_EVENT_ATTR_STRING contents: terms of the format above. The names are
 * ones perf 6.1's event lexer can take bare: it reads "misses" and "miss" as
 * a cache-op keyword (util/parse-events.l), so "bcache-misses" would parse
 * only as cpu/bcache-misses/ and fails perf test 6.3; hence the underscore,
 * as ARM's PMUs name theirs. */
static const struct pmu_sysfs_attr cpu_events[] = {
  { "cycles", "event=0x1\n" },
  { "instructions", "event=0x2\n" },
  { "bcache_misses", "event=0x3\n" },
  { "mbox-replays", "event=0x4\n" },
  { "mem-loads", "event=0x1,profileme=1,retired=1\n" },
  { "mem-stores", "event=0x1,profileme=1,retired=1\n" },
  { "mem-ldst", "event=0x1,profileme=1,retired=1\n" },
};

/* The trace PMU (kernel/trace_pmu.h): the unit's memory size. */
static const struct pmu_sysfs_attr trace_format[] = {
  { "memsize", "config:0-4\n" },     /* log2 of the trace memory in bytes (0: 64 KB) */
};

#define N(a) (sizeof (a) / sizeof (a)[0])

/* PERF_TYPE_RAW (4) for the cpu PMU, as Linux gives the first core PMU;
 * PERF_TYPE_SOFTWARE (1), with no format/ or events/ directory. */
static const struct pmu_sysfs devices[] = {
  { "cpu", "4\n", cpu_format, N(cpu_format), cpu_events, N(cpu_events) },
  { "software", "1\n", NULL, 0, NULL, 0 },
  { "trace", "10\n", trace_format, N(trace_format), NULL, 0 },   /* TRACE_PMU_TYPE */
};

const struct pmu_sysfs *pmu_sysfs_devices(size_t *n)
{
  *n = N(devices);
  return devices;
}

const struct pmu_sysfs *pmu_sysfs_find(const char *name)
{
  for (size_t i = 0; i < N(devices); i++)
    if (!strcmp(devices[i].name, name)) return &devices[i];
  return NULL;
}
