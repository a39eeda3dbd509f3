/* What perf 6.1 does when perf_event_open fails (tools/perf/util/evsel.c):
 * evsel__fallback's retry without the kernel at perf_event_paranoid > 1, and
 * evsel__open_strerror's message for an event the kernel refuses. Shared by
 * record and stat. */
#ifndef TOOLS_FALLBACK_H
#define TOOLS_FALLBACK_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

/* evsel__fallback for err (-errno): on EACCES for an event that does not
 * exclude the kernel (nor the user) at paranoid > 1, sets exclude_kernel and
 * exclude_hv, appends perf's "u" modifier to name (":u", or "u" after a
 * ':' or a PMU's '/'), writes perf's warning into msg and returns true: the
 * caller opens again. Otherwise returns false and changes nothing. */
bool event_fallback(struct perf_event_attr *a, int err, int paranoid, char *name, size_t name_len,
                    char *msg, size_t msg_len);

/* evsel__open_strerror's text for err (-errno) and the event named name, for
 * the errors the EV67 driver gives: EINVAL in per-thread mode (no -a/-C) or
 * system-wide, and the generic syscall message otherwise. */
void event_open_strerror(int err, const char *name, bool system_wide, char *msg, size_t msg_len);

#endif
