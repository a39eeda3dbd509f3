/* perf 6.1's open-failure handling; see fallback.h. */
#include "tools/fallback.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>

bool event_fallback(struct perf_event_attr *a, int err, int paranoid, char *name, size_t name_len,
                    char *msg, size_t msg_len)
{
  if (err != -EACCES || a->exclude_kernel || paranoid <= 1 || a->exclude_user) return false;
  size_t l = strlen(name);
  const char *sep = strchr(name, '/') || strchr(name, ':') ? "" : ":";
  if (l + strlen(sep) + 2 > name_len) return false;
  snprintf(name + l, name_len - l, "%su", sep);
  /* the double space is perf's */
  snprintf(msg, msg_len, "kernel.perf_event_paranoid=%d, trying to fall back to excluding kernel "
                         "and hypervisor  samples", paranoid);
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
  return true;
}

void event_open_strerror(int err, const char *name, bool system_wide, char *msg, size_t msg_len)
{
  if (err == -EINVAL && !system_wide) {
    snprintf(msg, msg_len, "Invalid event (%s) in per-thread mode, enable system wide with '-a'.", name);
    return;
  }
  snprintf(msg, msg_len, "The sys_perf_event_open() syscall returned with %d (%s) for event (%s).\n"
                         "/bin/dmesg | grep -i perf may provide additional information.\n",
           -err, strerror(-err), name);
}
