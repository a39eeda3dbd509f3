/* profileme list: the events record and stat accept, like perf list. The
 * cpu PMU's events and format terms come from the kernel's sysfs
 * description (kernel/alpha_sysfs.h), what
 * /sys/bus/event_source/devices/cpu/ holds on a real machine; --sysfs
 * prints those files as `path: content` lines. */
#include "tools/commands.h"
#include "kernel/alpha_sysfs.h"
#include "uarch/uarch.h"
#include <stdio.h>
#include <string.h>

#define SYSFS_DEVICES "/sys/bus/event_source/devices"

/* A file's content without its newline. */
static int clen(const char *s) { return (int)strcspn(s, "\n"); }

static void print_file(const char *dev, const char *dir, const char *name, const char *content)
{
  printf("%s/%s/%s%s: %.*s\n", SYSFS_DEVICES, dev, dir, name, clen(content), content);
}

/* Every PMU directory's type, format/ and events/ files. */
static void print_sysfs(void)
{
  size_t n;
  const struct pmu_sysfs *d = pmu_sysfs_devices(&n);
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < d[i].nevents; j++) print_file(d[i].name, "events/", d[i].events[j].name, d[i].events[j].content);
    for (size_t j = 0; j < d[i].nformat; j++) print_file(d[i].name, "format/", d[i].format[j].name, d[i].format[j].content);
    print_file(d[i].name, "", "type", d[i].type);
  }
}

/* The EV67 model's parameters (uarch/config.c's table): each as KEY=DEFAULT
 * and what it is, then its range and the default's source, by group. */
static void print_uarch(void)
{
  size_t n;
  const struct ev67_param *p = ev67_params(&n);
  printf("The EV67 timing model's parameters: a what-if machine changes them with\n"
         "--uarch KEY=VALUE[,...] or --uarch @FILE (record, stat, run --timed).\n"
         "Shown as KEY=DEFAULT (the 21264/EV67 as its Hardware Reference Manual,\n"
         "HRM, describes it), what it is, its range and where the default comes from.\n");
  for (size_t i = 0; i < n; i++) {
    if (!i || strcmp(p[i].group, p[i - 1].group)) printf("\n%s:\n", p[i].group);
    char v[24], item[64], range[96];
    ev67_param_value(&p[i], ev67_param_get(&ev67_default_config, &p[i]), v, sizeof v);
    snprintf(item, sizeof item, "%s=%s", p[i].key, v);
    ev67_param_range(&p[i], range, sizeof range);
    printf("  %-24s %s\n  %-24s %s; %s\n", item, p[i].what, "", range, p[i].source);
  }
  printf("\nNot offered: the pipes, their classes and the clusters' arbitration (the\n"
         "chip's structure, not a size; cross_cluster gives the clusters' cost), the\n"
         "inum group of 4 (the aligned fetch quad) and the penalties the model does\n"
         "not charge. docs/timing.md gives each value's source.\n");
}

/* perf list's "Kernel PMU event" lines (each events/ file, bare and
 * PMU-qualified) and the format terms. */
static void print_pmu(const struct pmu_sysfs *d)
{
  for (size_t j = 0; j < d->nevents; j++) {
    char name[96];
    snprintf(name, sizeof name, "%s OR %s/%s/", d->events[j].name, d->name, d->events[j].name);
    printf("  %-50s [Kernel PMU event]\n", name);
  }
  printf("\n%s/ events (sysfs devices/%s/events):\n", d->name, d->name);
  for (size_t j = 0; j < d->nevents; j++)
    printf("  %-14s %.*s\n", d->events[j].name, clen(d->events[j].content), d->events[j].content);
  printf("\n%s/ format (sysfs devices/%s/format):\n", d->name, d->name);
  for (size_t j = 0; j < d->nformat; j++)
    printf("  %-14s %.*s\n", d->format[j].name, clen(d->format[j].content), d->format[j].content);
}

int cmd_list(int argc, char **argv)
{
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: profileme list [--sysfs | --uarch]\nLists the events profileme record and stat accept.\n"
           "  --sysfs   the PMUs' sysfs files (" SYSFS_DEVICES "/...) as `path: content` lines\n"
           "  --uarch   the EV67 model's parameters --uarch may change, with their\n"
           "            defaults, ranges and sources\n");
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "--sysfs")) {
    print_sysfs();
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "--uarch")) {
    print_uarch();
    return 0;
  }
  if (argc > 1) {
    fprintf(stderr, "profileme list: unknown argument '%s' (--sysfs or --uarch)\n", argv[1]);
    return 2;
  }
  printf("\nList of pre-defined events (to be used in -e):\n\n"
         "  cycles OR cpu-cycles                               [Hardware event]\n"
         "  instructions                                       [Hardware event]\n"
         "  cache-misses                                       [Hardware event: B-cache misses]\n"
         "  cpu-clock                                          [Software event]\n"
         "  task-clock                                         [Software event]\n"
         "  page-faults OR faults                              [Software event]\n"
         "  context-switches OR cs                             [Software event]\n"
         "  cpu-migrations OR migrations                       [Software event]\n"
         "  rNNN                                               [Raw hardware event descriptor]\n"
         "  cpu/t1=v1[,t2=v2,t3 ...]/modifier                  [Raw hardware event descriptor]\n\n");
  print_pmu(pmu_sysfs_find("cpu"));
  printf("\n  trace//                                            [Kernel PMU with an AUX area: the trace unit]\n");
  print_pmu(pmu_sysfs_find("trace"));
  printf("\n  event: 1 cycles, 2 instructions, 3 B-cache misses (PCTR1, with instructions),\n"
         "  4 Mbox replay traps (PCTR1, with cycles); profileme: ProfileMe sampling (also :p,\n"
         "  :pp); random: randomized interval; sl1: PCTR1 input in ProfileMe mode (the weight);\n"
         "  retired, mispredict, trap: keep only such samples (config1; 0 keeps all).\n"
         "  Also perf's terms config, config1, config2, period, freq. 'profileme list --sysfs'\n"
         "  prints the files.\n\n"
         "Modifiers: u (user only), k (kernel only), p/pp (precise: ProfileMe, retired only).\n"
         "stat also accepts sim/NAME/ ground-truth events: profileme stat --list.\n\n");
  return 0;
}
