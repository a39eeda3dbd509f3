/* The guest's view of the machine's perf: the sysctls under
 * /proc/sys/kernel/ and the PMUs' sysfs directories, synthesized into the
 * OS's file tree (guest/synthfs.h). Internal to the machine layer. */
#ifndef MACHINE_MACHINE_SYSFS_H
#define MACHINE_MACHINE_SYSFS_H
#include "guest/os.h"
#include "kernel/perf.h"
#include <stdbool.h>

/* Adds /proc/sys/kernel/perf_* with the values of sys, and for every PMU of
 * the kernel's sysfs description (kernel/alpha_sysfs.h)
 * /sys/devices/<pmu>/{type,perf_event_mux_interval_ms,format/,events/} with
 * /sys/bus/event_source/devices/<pmu> linking to it, as Linux lays them
 * out; the cpu PMU only when cpu_pmu (a timed machine, whose driver
 * registers it). Returns 0 or a negative errno. */
int machine_sysfs_publish(struct os *os, const struct perf_sysctl *sys, bool cpu_pmu);

#endif
