/* The perf sysctls and sysfs files of the guest's view; see machine_sysfs.h.
 * The values are those the kernel layer runs with: perf_event_paranoid and
 * the sample rate from the machine's sysctls, the stack bounds the core's
 * callchain code applies, and the rest as Linux 6.1 sets them on Alpha. */
#include "machine/machine_sysfs.h"
#include "guest/mem.h"
#include "guest/procfs.h"
#include "guest/synthfs.h"
#include "kernel/alpha_sysfs.h"
#include "kernel/perf_regs.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* kernel/events/core.c: sysctl_perf_event_mlock = 512 + (PAGE_SIZE / 1024),
 * and DEFAULT_CPU_TIME_MAX_PERCENT. */
#define PERF_MLOCK_KB (512 + GUEST_PAGE_SIZE / 1024)
#define PERF_CPU_TIME_MAX_PERCENT 25

/* Adds one entry; a NULL content with link NULL makes a directory. */
static int add(struct os *os, const char *path, const char *content, const char *link, unsigned mode)
{
  const struct synth_file f = { .path = path, .content = content, .link = link, .mode = mode };
  return os_synth_files(os, &f, 1);
}

/* One /proc/sys/kernel file: 0644 root:root on Linux. */
static int add_sysctl(struct os *os, const char *name, long long v)
{
  char path[128], val[32];
  snprintf(path, sizeof path, "/proc/sys/kernel/%s", name);
  snprintf(val, sizeof val, "%lld\n", v);
  return add(os, path, val, NULL, 0644);
}

static int add_attrs(struct os *os, const char *dir, const struct pmu_sysfs_attr *a, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, a[i].name);
    int e = add(os, path, a[i].content, NULL, 0);
    if (e) return e;
  }
  return 0;
}

/* /sys/devices/<pmu>/ as perf_pmu_register's pmu_dev_alloc makes it, and
 * its link in /sys/bus/event_source/devices/. */
static int add_pmu(struct os *os, const struct pmu_sysfs *d, const struct perf_sysctl *sys)
{
  char dir[256], path[PATH_MAX], link[PATH_MAX], mux[32];   /* (PMU names are short) */
  snprintf(dir, sizeof dir, "/sys/devices/%s", d->name);
  snprintf(mux, sizeof mux, "%u\n", sys->mux_interval_ms);
  int e = add(os, dir, NULL, NULL, 0);
  snprintf(path, sizeof path, "%s/type", dir);
  if (!e) e = add(os, path, d->type, NULL, 0);
  snprintf(path, sizeof path, "%s/perf_event_mux_interval_ms", dir);
  if (!e) e = add(os, path, mux, NULL, 0644);
  snprintf(path, sizeof path, "%s/format", dir);
  if (!e && d->nformat) e = add_attrs(os, path, d->format, d->nformat);
  snprintf(path, sizeof path, "%s/events", dir);
  if (!e && d->nevents) e = add_attrs(os, path, d->events, d->nevents);
  snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s", d->name);
  snprintf(link, sizeof link, "../../../devices/%s", d->name);
  if (!e) e = add(os, path, NULL, link, 0);
  return e;
}

int machine_sysfs_publish(struct os *os, const struct perf_sysctl *sys, bool cpu_pmu)
{
  /* /proc/kallsyms shows addresses as kallsyms_show_value decides from these. */
  os_set_kptr_policy(os, sys->paranoid, sys->privileged);
  int e = add_sysctl(os, "perf_event_paranoid", sys->paranoid);
  if (!e) e = add_sysctl(os, "perf_event_max_sample_rate", sys->max_sample_rate);
  if (!e) e = add_sysctl(os, "perf_event_max_stack", PERF_MAX_STACK_DEFAULT);
  if (!e) e = add_sysctl(os, "perf_event_max_contexts_per_stack", PERF_MAX_CONTEXTS_PER_STACK);
  if (!e) e = add_sysctl(os, "perf_event_mlock_kb", PERF_MLOCK_KB);
  if (!e) e = add_sysctl(os, "perf_cpu_time_max_percent", PERF_CPU_TIME_MAX_PERCENT);
  /* The whole of event_source is the kernel's: no host PMU shows through. */
  if (!e) e = add(os, "/sys/bus/event_source", NULL, NULL, 0);
  size_t n;
  const struct pmu_sysfs *d = pmu_sysfs_devices(&n);
  for (size_t i = 0; i < n && !e; i++)
    if (cpu_pmu || strcmp(d[i].name, "cpu")) e = add_pmu(os, &d[i], sys);
  return e;
}
