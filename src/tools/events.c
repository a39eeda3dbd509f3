/* Event names in perf's syntax, shared by record and stat. */
#include "tools/events.h"
#include "perfdata/pm_raw.h"
#include "kernel/sim_pmu.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char event_help[] =
  "  events: cycles, instructions, cache-misses, bcache-misses, mbox-replays, rN,\n"
  "  cpu/event=N,profileme=1,random=1,sl1=N,config1=N/, cpu-clock, task-clock,\n"
  "  page-faults, context-switches, cpu-migrations, sim/NAME/ (counting only);\n"
  "  modifiers :u :k :p :pp ('profileme list')\n";

/* Parses perf's event syntax: cycles, instructions, cache-misses, rN,
 * cpu/event=N,profileme=1,random=1,sl1=N,config1=N/, cpu/cycles/, software
 * clocks, with :u :k :p :pp modifiers. */
int event_parse(const char *spec, struct perf_event_attr *a)
{
  char s[128];
  snprintf(s, sizeof s, "%s", spec);
  memset(a, 0, sizeof *a);
  a->size = sizeof *a;
  char *mods = NULL, modbuf[16];
  char *slash = strrchr(s, '/');
  char *colon = strchr(slash ? slash : s, ':');
  if (colon) { *colon = 0; mods = colon + 1; }
  else if (slash && slash != strchr(s, '/') && slash[1]) {
    /* PMU/terms/mods, as perf writes cpu/event=1/u */
    snprintf(modbuf, sizeof modbuf, "%s", slash + 1);
    slash[1] = 0;
    mods = modbuf;
  }
  if (!strncmp(s, "sim/", 4)) {
    /* sim/NAME/ (or sim/NAME): the ground-truth PMU, config = the row. */
    size_t l = strlen(s), n;
    if (s[l - 1] == '/') s[--l] = 0;
    const struct sim_event *ev = sim_pmu_events(&n);
    a->type = SIM_PMU_TYPE;
    for (a->config = 0; a->config < n && strcmp(s + 4, ev[a->config].name); a->config++) {}
    if (a->config == n) goto bad;
  } else if (!strncmp(s, "cpu/", 4)) {
    size_t l = strlen(s);
    if (l < 5 || s[l - 1] != '/') goto bad;
    s[l - 1] = 0;
    a->type = PERF_TYPE_RAW;
    char *save = NULL;
    for (char *tok = strtok_r(s + 4, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      char *eq = strchr(tok, '=');
      uint64_t v = eq ? strtoull(eq + 1, NULL, 0) : 1;
      if (eq) *eq = 0;
      if (!strcmp(tok, "event")) a->config = (a->config & ~PM_CFG_EVENT_MASK) | (v & PM_CFG_EVENT_MASK);
      else if (!strcmp(tok, "cycles")) a->config |= 1;
      else if (!strcmp(tok, "instructions")) a->config |= 2;
      else if (!strcmp(tok, "profileme")) a->config |= v ? PM_CFG_PROFILEME : 0;
      else if (!strcmp(tok, "random")) a->config |= v ? PM_CFG_RANDOM : 0;
      else if (!strcmp(tok, "sl1")) a->config |= (v & 3) << PM_CFG_SL1_SHIFT;
      else if (!strcmp(tok, "config1")) a->config1 = v;
      else if (!strcmp(tok, "period")) a->sample_period = v;
      else goto bad;
    }
  } else if (!strcmp(s, "cycles") || !strcmp(s, "cpu-cycles")) {
    a->type = PERF_TYPE_HARDWARE; a->config = PERF_COUNT_HW_CPU_CYCLES;
  } else if (!strcmp(s, "instructions")) {
    a->type = PERF_TYPE_HARDWARE; a->config = PERF_COUNT_HW_INSTRUCTIONS;
  } else if (!strcmp(s, "cache-misses")) {
    a->type = PERF_TYPE_HARDWARE; a->config = PERF_COUNT_HW_CACHE_MISSES;
  } else if (!strcmp(s, "bcache-misses")) {
    a->type = PERF_TYPE_RAW; a->config = 3;
  } else if (!strcmp(s, "mbox-replays")) {
    a->type = PERF_TYPE_RAW; a->config = 4;
  } else if (s[0] == 'r' && s[1]) {
    char *end;
    a->type = PERF_TYPE_RAW;
    a->config = strtoull(s + 1, &end, 16);
    if (*end) goto bad;
  } else if (!strcmp(s, "cpu-clock")) {
    a->type = PERF_TYPE_SOFTWARE; a->config = PERF_COUNT_SW_CPU_CLOCK;
  } else if (!strcmp(s, "task-clock")) {
    a->type = PERF_TYPE_SOFTWARE; a->config = PERF_COUNT_SW_TASK_CLOCK;
  } else if (!strcmp(s, "page-faults") || !strcmp(s, "faults")) {
    a->type = PERF_TYPE_SOFTWARE; a->config = PERF_COUNT_SW_PAGE_FAULTS;
  } else if (!strcmp(s, "context-switches") || !strcmp(s, "cs")) {
    a->type = PERF_TYPE_SOFTWARE; a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  } else if (!strcmp(s, "cpu-migrations") || !strcmp(s, "migrations")) {
    a->type = PERF_TYPE_SOFTWARE; a->config = PERF_COUNT_SW_CPU_MIGRATIONS;
  } else {
    goto bad;
  }
  for (char *m = mods; m && *m; m++) {
    switch (*m) {
    case 'u': a->exclude_kernel = 1; a->exclude_hv = 1; break;
    case 'k': a->exclude_user = 1; a->exclude_hv = 1; break;
    case 'p': a->precise_ip++; break;
    case 'P': a->precise_ip = 2; break;
    default: goto bad;
    }
  }
  return 0;
bad:
  return -1;
}

char *event_list_next(char **cursor)
{
  char *s = *cursor;
  if (!s || !*s) return NULL;
  bool in_terms = false;
  char *p = s;
  for (; *p && (in_terms || *p != ','); p++)
    if (*p == '/') in_terms = !in_terms;
  *cursor = *p ? p + 1 : p;
  *p = '\0';
  return s;
}
