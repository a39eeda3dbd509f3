/* `profileme mem record`: perf mem record (tools/perf/builtin-mem.c, 6.1).
 * It picks the memory events by tag, as perf_mem_events__* do, finds them
 * supported when the cpu PMU has their sysfs events/ file (here, the
 * kernel's sysfs description), and runs record with them in front of the
 * remaining arguments. ProfileMe is the EV67's memory sampler, as IBS Op is
 * AMD's: one ProfileMe event samples loads and stores alike (the data
 * source says which), so loads and stores together use the single load-store
 * event, as perf does where the PMU has one (PERF_MEM_EVENTS__LOAD_STORE),
 * and two ProfileMe events, which could only take turns, are never opened.
 * record always samples the weight, the data address and the data source
 * (perf mem's -W and -d). */
#include "tools/commands.h"
#include "kernel/alpha_sysfs.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OP_LOAD  1
#define OP_STORE 2

/* perf_mem_events[]: tag, the event record is given, its sysfs file. */
static const struct mem_event { const char *tag, *name, *sysfs; } mem_events[] = {
  { "mem-loads", "cpu/mem-loads/P", "mem-loads" },     /* PERF_MEM_EVENTS__LOAD */
  { "mem-stores", "cpu/mem-stores/P", "mem-stores" },  /* PERF_MEM_EVENTS__STORE */
  { "mem-ldst", "cpu/mem-ldst/P", "mem-ldst" },        /* PERF_MEM_EVENTS__LOAD_STORE */
};
enum { EV_LOAD, EV_STORE, EV_LDST, NEV };

/* perf_mem_event__supported: devices/cpu/events/<name> exists. */
static bool supported(const struct mem_event *e)
{
  const struct pmu_sysfs *cpu = pmu_sysfs_find("cpu");
  for (size_t i = 0; cpu && i < cpu->nevents; i++)
    if (!strcmp(cpu->events[i].name, e->sysfs)) return true;
  return false;
}

static void usage(FILE *f)
{
  fprintf(f,
    "usage: profileme mem [-t load|store] record [-e TAGS] [-U] [-K] [-v] [RECORD-OPTIONS] [--] PROG [ARGS...]\n"
    "Samples memory accesses like perf mem record: runs profileme record with the\n"
    "memory event (ProfileMe, retired instructions only, weight = cycles in the\n"
    "window) in front of the other options; 'profileme mem report' reads the file.\n"
    "  -t, --type TYPE    load, store or load,store (default: both, one event)\n"
    "  -e, --event TAGS   memory events by tag (mem-loads, mem-stores, mem-ldst);\n"
    "                     '-e list' lists them\n"
    "  -U, --all-user     user-level accesses only\n"
    "  -K, --all-kernel   kernel-level accesses only\n"
    "      --ldlat N      mem-loads only (-t load): keep loads whose ProfileMe window\n"
    "                     lasted at least N cycles (1-65535; default: every load)\n"
    "  -v, --verbose      print the record arguments\n"
    "Other options go to record (see 'profileme record --help'); put the program\n"
    "after -- when its arguments look like these options.\n");
}

/* perf_mem_events__list. */
static void list_events(bool verbose)
{
  for (int j = 0; j < NEV; j++)
    fprintf(stderr, "%-13s%-*s%s", mem_events[j].tag, verbose ? 25 : 0, verbose ? mem_events[j].name : "",
            supported(&mem_events[j]) ? ": available\n" : "");
}

/* perf_mem_events__parse: each comma-separated word selects the events whose
 * tag contains it. Returns 0, or -1 when none matched. */
static int parse_tags(const char *str, bool rec[NEV])
{
  char buf[128], *save = NULL;
  bool found = false;
  snprintf(buf, sizeof buf, "%s", str);
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
    for (int j = 0; j < NEV; j++)
      if (strstr(mem_events[j].tag, tok)) rec[j] = found = true;
  if (found) return 0;
  fprintf(stderr, "failed: event '%s' not found, use '-e list' to get list of available events\n", str);
  return -1;
}

/* -t's value: load, store, or both comma-separated. Returns the OP_* bits or 0. */
int mem_parse_type(const char *s)
{
  char buf[64], *save = NULL;
  int op = 0;
  snprintf(buf, sizeof buf, "%s", s);
  for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "load")) op |= OP_LOAD;
    else if (!strcmp(tok, "store")) op |= OP_STORE;
    else return 0;
  }
  return op;
}

/* mem record's options, and the arguments it leaves to record. */
struct mrec { int op; bool rec[NEV], all_user, all_kernel, verbose, tags; unsigned ldlat; char **rest; int nrest; };

/* Takes mem record's own options out of argv (up to a "--", which goes too)
 * and keeps the rest in order, as perf's PARSE_OPT_KEEP_UNKNOWN does.
 * Returns -1 to go on, else the exit status. */
static int take_options(int argc, char **argv, struct mrec *m)
{
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i], *val = NULL;
    if (!strcmp(a, "--")) { i++; break; }
    bool e = !strcmp(a, "-e") || !strcmp(a, "--event"), t = !strcmp(a, "-t") || !strcmp(a, "--type");
    if (!strncmp(a, "--event=", 8)) e = true, val = a + 8;
    else if (!strncmp(a, "--type=", 7)) t = true, val = a + 7;
    else if ((e || t) && i + 1 < argc) val = argv[++i];
    else if (e || t) { fprintf(stderr, "profileme mem record: %s needs a value\n", a); return 2; }
    if (e) {
      if (!strcmp(val, "list")) { list_events(m->verbose); return 0; }
      if (parse_tags(val, m->rec)) return 2;
      m->tags = true;
    } else if (t) {
      if (!(m->op = mem_parse_type(val))) {
        fprintf(stderr, "profileme mem: --type is load, store or load,store, not '%s'\n", val);
        return 2;
      }
    } else if (!strcmp(a, "-U") || !strcmp(a, "--all-user")) m->all_user = true;
    else if (!strcmp(a, "-K") || !strcmp(a, "--all-kernel")) m->all_kernel = true;
    else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) m->verbose = true;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
    else if (!strcmp(a, "--ldlat") || !strncmp(a, "--ldlat=", 8)) {
      /* the driver's ldlat term (config2:0-15), as perf's cpu/mem-loads,ldlat=N/P */
      const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
      char *end = NULL;
      unsigned long n = v ? strtoul(v, &end, 10) : 0;
      if (!v || !*v || *end || n < 1 || n > 65535) {
        fprintf(stderr, "profileme mem record: --ldlat takes a latency of 1 to 65535 cycles%s%s%s\n",
                v ? ", not '" : "", v ? v : "", v ? "'" : "");
        return 2;
      }
      m->ldlat = (unsigned)n;
    } else m->rest[m->nrest++] = argv[i];
  }
  for (; i < argc; i++) m->rest[m->nrest++] = argv[i];
  return -1;
}

int cmd_mem_record(int argc, char **argv, int type)
{
  struct mrec m = { .op = type ? type : OP_LOAD | OP_STORE };
  char **rec_argv = calloc((size_t)argc + 8, sizeof *rec_argv);
  m.rest = calloc((size_t)argc + 1, sizeof *m.rest);
  int rc = rec_argv && m.rest ? take_options(argc, argv, &m) : 1;
  if (rc >= 0) goto out;
  /* __cmd_record: -e chose the events (operation 0); else the operation does */
  if (!m.tags) {
    if ((m.op & OP_LOAD) && (m.op & OP_STORE) && supported(&mem_events[EV_LDST])) m.rec[EV_LDST] = true;
    else m.rec[EV_LOAD] = m.op & OP_LOAD, m.rec[EV_STORE] = m.op & OP_STORE;
  }
  /* perf 6.1 puts ldlat on mem-loads alone; on the load-store event it
   * would drop every store, so it asks for -t load */
  if (m.ldlat && !m.rec[EV_LOAD]) {
    fprintf(stderr, "profileme mem record: --ldlat filters the mem-loads event: add -t load\n");
    rc = 2;
    goto out;
  }
  char names[NEV][64];
  int n = 0;
  rec_argv[n++] = "record";
  for (int j = 0; j < NEV; j++) {
    if (!m.rec[j]) continue;
    if (!supported(&mem_events[j])) {
      fprintf(stderr, "failed: event '%s' not supported\n", mem_events[j].name);
      rc = 1;
      goto out;
    }
    /* perf passes --all-user/--all-kernel; record takes them as modifiers */
    if (j == EV_LOAD && m.ldlat)
      snprintf(names[j], sizeof names[j], "cpu/mem-loads,ldlat=%u/P%s%s", m.ldlat, m.all_user ? "u" : "",
               m.all_kernel ? "k" : "");
    else
      snprintf(names[j], sizeof names[j], "%s%s%s", mem_events[j].name, m.all_user ? "u" : "", m.all_kernel ? "k" : "");
    rec_argv[n++] = "-e";
    rec_argv[n++] = names[j];
  }
  if (m.verbose) {
    fprintf(stderr, "calling: record ");
    for (int j = 1; j < n; j++) fprintf(stderr, "%s ", rec_argv[j]);
    fprintf(stderr, "\n");
  }
  for (int j = 0; j < m.nrest; j++) rec_argv[n++] = m.rest[j];
  rc = cmd_record(n, rec_argv);
out:
  free(rec_argv);
  free(m.rest);
  return rc;
}
