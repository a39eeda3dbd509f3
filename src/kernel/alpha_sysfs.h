/* The sysfs view of the PMUs the modelled kernel registers, as data: what
 * /sys/bus/event_source/devices/<pmu>/ holds on Linux (the `type` file, the
 * format/ attributes PMU_FORMAT_ATTR writes and the events/ attributes
 * PMU_EVENT_ATTR_STRING writes), file by file with each file's exact content.
 * The Alpha `cpu` PMU's description follows the driver's config bits
 * (uapi/pm_raw.h); tools parse cpu/.../ events from it as perf's pmu.c
 * parses the files, and a guest view of /sys can serve the same bytes. */
#ifndef KERNEL_ALPHA_SYSFS_H
#define KERNEL_ALPHA_SYSFS_H
#include <stddef.h>
#include <stdint.h>

/* One attribute file: its name inside format/ or events/, and its content
 * as read(2) returns it (newline-terminated, as sysfs show() writes). */
struct pmu_sysfs_attr {
  const char *name;
  const char *content;
};

/* One PMU directory, devices/<name>/. */
struct pmu_sysfs {
  const char *name;                     /* "cpu", "software" */
  const char *type;                     /* content of devices/<name>/type ("4\n") */
  const struct pmu_sysfs_attr *format;  /* format/<term>: "config:0-7\n" */
  size_t nformat;
  const struct pmu_sysfs_attr *events;  /* events/<name>: "event=0x1\n" */
  size_t nevents;
};

/* The PMU directories, in registration order; *n gets their number. The
 * tables are static and constant. */
const struct pmu_sysfs *pmu_sysfs_devices(size_t *n);
/* The directory of PMU name, or NULL. */
const struct pmu_sysfs *pmu_sysfs_find(const char *name);

#endif
