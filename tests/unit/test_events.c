/* The event parser against the cpu PMU's sysfs description and the driver:
 * every format file reads as Linux's PMU_FORMAT_ATTR would and places its
 * value in the config bits uapi/pm_raw.h gives; every events/ file and
 * every spelling the scripts and docs use parses to the expected attr and is
 * accepted by the Alpha driver's event_init (perf_event_open); unknown terms
 * and too-large values fail with perf's messages (util/pmu.c, 6.1). */
#include "check.h"
#include "guest/phys.h"
#include "kernel/alpha_pmu.h"
#include "kernel/alpha_sysfs.h"
#include "uapi/pm_raw.h"
#include "tools/events.h"
#include <errno.h>
#include <string.h>

static uint64_t now_fn(void *ctx, int cpu) { (void)ctx; (void)cpu; return 0; }
static uint64_t clock_fn(void *ctx) { (void)ctx; return 0; }
static bool insn_fn(void *ctx, uint64_t pc, uint32_t *w) { (void)ctx; (void)pc; *w = 0x47ff041f; return true; }
static uint64_t rnd_fn(void *ctx) { (void)ctx; return 12345; }

struct rig { struct physmem *ram; struct perf_ctx *c; struct ev67_pmu hw; struct alpha_pmu *drv; };

/* perf_event_open's answer for spec, parsed, as root at paranoid -1. */
static int open_rc(struct rig *r, const char *spec)
{
  struct perf_event_attr a;
  if (event_parse(spec, &a)) return -1000;
  a.sample_period = 1000;
  struct perf_event *e = NULL;
  int rc = perf_event_open(r->c, &a, 1000, -1, NULL, &e);
  if (!rc) perf_event_close(e);
  return rc;
}

struct want { const char *spec; uint32_t type; uint64_t config, config1; int precise; };

static void test_formats(struct rig *r)
{
  /* pm_raw.h's bits, per format term: the expected file and placement */
  static const struct { const char *name, *file; int field; uint64_t bits; } fmts[] = {
    { "event", "config:0-7\n", 0, PM_CFG_EVENT_MASK },
    { "profileme", "config:8\n", 0, PM_CFG_PROFILEME },
    { "random", "config:9\n", 0, PM_CFG_RANDOM },
    { "sl1", "config:10-11\n", 0, 3ull << PM_CFG_SL1_SHIFT },
    { "retired", "config1:0\n", 1, PM_FILT_RETIRED },
    { "mispredict", "config1:1\n", 1, PM_FILT_MISPREDICT },
    { "trap", "config1:2\n", 1, PM_FILT_TRAP },
    { "ldlat", "config2:0-15\n", 2, PM_LDLAT_MASK },
  };
  const struct pmu_sysfs *cpu = pmu_sysfs_find("cpu");
  CHECK(cpu && !strcmp(cpu->type, "4\n"), "sysfs: devices/cpu/type reads 4 (PERF_TYPE_RAW)");
  CHECK(cpu && cpu->nformat == sizeof fmts / sizeof fmts[0], "sysfs: cpu has %zu format files", sizeof fmts / sizeof fmts[0]);
  for (size_t i = 0; cpu && i < cpu->nformat && i < sizeof fmts / sizeof fmts[0]; i++) {
    CHECK(!strcmp(cpu->format[i].name, fmts[i].name) && !strcmp(cpu->format[i].content, fmts[i].file),
          "sysfs: format/%s reads %.*s", fmts[i].name, (int)strlen(fmts[i].file) - 1, fmts[i].file);
    /* the term's maximum fills exactly its bits; profileme keeps the event valid */
    char spec[64];
    unsigned n = (unsigned)__builtin_popcountll(fmts[i].bits);
    snprintf(spec, sizeof spec, "cpu/%s=%llu/", fmts[i].name, (unsigned long long)((1ull << n) - 1));
    struct perf_event_attr a;
    int rc = event_parse(spec, &a);
    const uint64_t cfg[3] = { a.config, a.config1, a.config2 };
    CHECK(!rc && a.type == PERF_TYPE_RAW && cfg[fmts[i].field] == fmts[i].bits &&
          cfg[0] + cfg[1] + cfg[2] == fmts[i].bits, "parse %s: bits %#llx of config%s", spec,
          (unsigned long long)fmts[i].bits, fmts[i].field == 1 ? "1" : fmts[i].field == 2 ? "2" : "");
    snprintf(spec, sizeof spec, "cpu/%s=%llu/", fmts[i].name, (unsigned long long)(1ull << n));
    char msg[512];
    char want[64];
    snprintf(want, sizeof want, "value too big for format, maximum is %llu", (unsigned long long)((1ull << n) - 1));
    CHECK(event_parse_msg(spec, &a, msg, sizeof msg) && strstr(msg, want), "parse %s: '%s'", spec, want);
    /* the driver accepts the term's bits on a ProfileMe cycles event */
    snprintf(spec, sizeof spec, "cpu/%sprofileme=1,%s=%llu/", i ? "event=1," : "", fmts[i].name,
             (unsigned long long)(i == 0 ? 4 : (1ull << n) - 1));
    CHECK_EQ_U64(open_rc(r, spec), 0, "perf_event_open accepts %s", spec);
  }
}

static void check_want(struct rig *r, const struct want *w)
{
  struct perf_event_attr a;
  int rc = event_parse(w->spec, &a);
  CHECK(!rc && a.type == w->type && a.config == w->config && a.config1 == w->config1 && a.precise_ip == w->precise,
        "parse %s: type %u config %#llx config1 %#llx precise %d (got %d: %u %#llx %#llx %d)", w->spec, w->type,
        (unsigned long long)w->config, (unsigned long long)w->config1, w->precise, rc, a.type,
        (unsigned long long)a.config, (unsigned long long)a.config1, a.precise_ip);
  if (w->type == PERF_TYPE_RAW || w->type == PERF_TYPE_HARDWARE)
    CHECK_EQ_U64(open_rc(r, w->spec), 0, "perf_event_open accepts %s", w->spec);
}

static void test_events(struct rig *r)
{
  const uint64_t PM = PM_CFG_PROFILEME;
  static const struct { const char *name; uint64_t config, config1; } evs[] = {
    { "cycles", EV67_EV_CYCLES, 0 }, { "instructions", EV67_EV_INSTRUCTIONS, 0 },
    { "bcache_misses", EV67_EV_BCACHE, 0 }, { "mbox-replays", EV67_EV_MBOX, 0 },
    { "mem-loads", EV67_EV_CYCLES | PM_CFG_PROFILEME, PM_FILT_RETIRED },
    { "mem-stores", EV67_EV_CYCLES | PM_CFG_PROFILEME, PM_FILT_RETIRED },
    { "mem-ldst", EV67_EV_CYCLES | PM_CFG_PROFILEME, PM_FILT_RETIRED },
  };
  const struct pmu_sysfs *cpu = pmu_sysfs_find("cpu");
  CHECK(cpu->nevents == sizeof evs / sizeof evs[0], "sysfs: cpu has %zu events", sizeof evs / sizeof evs[0]);
  for (size_t i = 0; i < cpu->nevents && i < sizeof evs / sizeof evs[0]; i++) {
    CHECK(!strcmp(cpu->events[i].name, evs[i].name), "sysfs: events/%s", evs[i].name);
    char spec[64];
    snprintf(spec, sizeof spec, "cpu/%s/", evs[i].name);
    check_want(r, &(struct want){ spec, PERF_TYPE_RAW, evs[i].config, evs[i].config1, 0 });
    /* bare, the alias is the cpu PMU's, unless a hardware event has the name (perf's order) */
    if (i > 1) check_want(r, &(struct want){ evs[i].name, PERF_TYPE_RAW, evs[i].config, evs[i].config1, 0 });
  }
  /* every spelling in tests/scripts, docs and fuzz/ci.sh that worked before */
  static const struct want old[] = {
    { "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0 },
    { "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0 },
    { "cycles:p", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1 },
    { "cycles:pp", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 2 },
    { "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0 },
    { "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0, 0 },
    { "r3", PERF_TYPE_RAW, 3, 0, 0 },
    { "cpu/cycles/", PERF_TYPE_RAW, 1, 0, 0 },
    { "cpu/instructions/", PERF_TYPE_RAW, 2, 0, 0 },
    { "cpu/event=1/", PERF_TYPE_RAW, 1, 0, 0 },
    { "cpu/event=0x4/", PERF_TYPE_RAW, 4, 0, 0 },
    { "cpu/event=1,sl1=0/", PERF_TYPE_RAW, 1, 0, 0 },
    { "cpu/cycles,profileme=1/", PERF_TYPE_RAW, 1 | PM, 0, 0 },
    { "cpu/event=1,profileme=1/", PERF_TYPE_RAW, 1 | PM, 0, 0 },
    { "cpu/event=2,profileme=1,random=1/", PERF_TYPE_RAW, 2 | PM | PM_CFG_RANDOM, 0, 0 },
    { "cpu/event=1,profileme=1,random=1/", PERF_TYPE_RAW, 1 | PM | PM_CFG_RANDOM, 0, 0 },
    { "cpu/event=1,profileme=1,config1=2/", PERF_TYPE_RAW, 1 | PM, 2, 0 },
    { "cpu/event=1,profileme=1,random=1,config1=4/", PERF_TYPE_RAW, 1 | PM | PM_CFG_RANDOM, 4, 0 },
    { "cpu/cycles,profileme=1,config1=7/", PERF_TYPE_RAW, 1 | PM, 7, 0 },
    { "cpu/event=3,profileme=1,sl1=2/", PERF_TYPE_RAW, 3 | PM | 2ull << PM_CFG_SL1_SHIFT, 0, 0 },
    { "cpu/event=1,profileme=1,trap=1,mispredict=1/", PERF_TYPE_RAW, 1 | PM, 6, 0 },
    /* perf applies config1= before the format terms, which OR their bits in */
    { "cpu/event=1,profileme=1,trap=1,config1=3/", PERF_TYPE_RAW, 1 | PM, 7, 0 },
    { "cpu/config=0x100,event=2/", PERF_TYPE_RAW, 2 | PM, 0, 0 },
    { "cpu/event=cycles,profileme=1/", PERF_TYPE_RAW, 1 | PM, 0, 0 },
    { "cpu/bcache_misses/p", PERF_TYPE_RAW, 3, 0, 1 },
    { "cpu/mem-loads/P", PERF_TYPE_RAW, 1 | PM, PM_FILT_RETIRED, 2 },
    { "cpu/event=1/:pp", PERF_TYPE_RAW, 1, 0, 2 },
  };
  for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) check_want(r, &old[i]);
  struct perf_event_attr a;
  CHECK(!event_parse("cpu/event=1/u", &a) && a.exclude_kernel && !a.exclude_user, "parse cpu/event=1/u: user only");
  CHECK(!event_parse("cpu/event=1,period=5000/", &a) && a.sample_period == 5000, "parse period=5000");
  CHECK(!event_parse("page-faults", &a) && a.type == PERF_TYPE_SOFTWARE && a.config == PERF_COUNT_SW_PAGE_FAULTS,
        "parse page-faults");
  CHECK(!event_parse("sim/cycles/", &a) && a.type == 9 && a.config == 0, "parse sim/cycles/");
  CHECK(!event_parse("sim/cycles", &a) && a.type == 9 && a.config == 0, "parse sim/cycles (no closing slash)");
  CHECK(!event_parse("sim/fetched/u", &a) && a.type == 9 && a.exclude_kernel, "parse sim/fetched/u");
  CHECK(event_parse("sim/nosuch/", &a) && event_parse("sim//", &a) && event_parse("sim/", &a),
        "unknown sim events are errors");
  char list[] = "instructions,cpu/event=1,sl1=0/,sim/cycles/", *cur = list;
  const char *e1 = event_list_next(&cur), *e2 = event_list_next(&cur), *e3 = event_list_next(&cur);
  CHECK(e1 && e2 && e3 && !strcmp(e2, "cpu/event=1,sl1=0/") && !strcmp(e3, "sim/cycles/") && !event_list_next(&cur),
        "event list keeps a PMU's commas");
}

static void test_errors(void)
{
  struct perf_event_attr a;
  char msg[512];
  CHECK(event_parse_msg("cpu/foo=1/", &a, msg, sizeof msg) == -1 &&
        !strcmp(msg, "event syntax error: 'cpu/foo=1/'\n"
                     "                         \\___ unknown term 'foo' for pmu 'cpu'\n\n"
                     "valid terms: event,profileme,random,sl1,retired,mispredict,trap,ldlat,"
                     "config,config1,config2,period,freq\n"), "unknown term: perf's message, pointing at it");
  CHECK(event_parse_msg("cpu/sl1/", &a, msg, sizeof msg) == -1 && strstr(msg, "no value assigned for term"),
        "a multi-bit term without a value is an error");
  CHECK(event_parse_msg("cpu/event=x/", &a, msg, sizeof msg) == -1 && strstr(msg, "expected numeric value"),
        "a non-numeric value is an error");
  CHECK(event_parse("cpu/event= 1/", &a) && event_parse("cpu/event=-1/", &a) && event_parse("cpu/event=0x/", &a) &&
        event_parse("cpu/event=1x/", &a) && !event_parse("cpu/event=0X4/", &a) && a.config == 4,
        "numbers are decimal or 0x hex, nothing else");
  CHECK(event_parse_msg("cpu/event=1,profileme=1,random=1,sl1=9/", &a, msg, sizeof msg) == -1 &&
        !strcmp(msg, "event syntax error: '..ndom=1,sl1=9/'\n"
                     "                                  \\___ value too big for format, maximum is 3\n"),
        "a value past a far term: the event cut at the front as perf cuts it");
  CHECK(event_parse_msg("xyz/a/", &a, msg, sizeof msg) == -1 && strstr(msg, "Cannot find PMU `xyz'"), "unknown PMU");
  CHECK(event_parse_msg("cycles:q", &a, msg, sizeof msg) == -1 &&
        !strcmp(msg, "event syntax error: 'cycles:q'\n                           \\___ parser error\n"),
        "a bad modifier: parser error at the ':'");
  CHECK(event_parse("bogus", &a) == -1 && event_parse("cpu/event=1", &a) == -1 && event_parse("cpu/,/", &a) == -1,
        "unknown names and unclosed terms are errors");
}

int main(void)
{
  struct rig r;
  r.ram = phys_create(16ull << 20);
  struct perf_sysctl sys = { .paranoid = -1, .privileged = true };
  r.c = perf_ctx_create(&sys, r.ram, clock_fn, NULL);
  ev67_pmu_init(&r.hw, 0x20000);
  const struct alpha_pmu_env env = { { &r.hw }, now_fn, insn_fn, rnd_fn, NULL };
  r.drv = alpha_pmu_create(r.c, &env);
  static const struct perf_task task = { .pid = 1000, .tid = 1000 };
  perf_sched_in(r.c, 0, &task);
  test_formats(&r);
  test_events(&r);
  test_errors();
  alpha_pmu_destroy(r.drv);
  perf_ctx_destroy(r.c);
  phys_destroy(r.ram);
  return check_done();
}
