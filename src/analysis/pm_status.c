/* The ProfileMe payload and its status names; see pm_status.h. */
#include "analysis/pm_status.h"
#include <linux/perf_event.h>
#include <string.h>

const char *const pm_status_names[PM_NSTATUS + 1] = {
  "retired", "valid", "early_kill", "late_kill", "trap", "mispredict", "taken", "map_stall",
  "nyp", "ldstorder", "dtb_miss", "unaligned", "replay", "itb_miss", "arith", "jmp_mispredict",
  "kernel", NULL
};

bool session_pm_raw(const struct pd_sample *s, struct pm_raw_v1 *raw)
{
  if (!(s->sample_type & PERF_SAMPLE_RAW) || !s->raw || s->raw_size < sizeof *raw) return false;
  memcpy(raw, s->raw, sizeof *raw);
  return raw->version == PM_RAW_VERSION;
}

bool pm_event_is_profileme(const struct perf_event_attr *attr)
{
  if (!(attr->sample_type & PERF_SAMPLE_RAW)) return false;
  if (attr->type == PERF_TYPE_HARDWARE) return attr->precise_ip > 0;
  if (attr->type == PERF_TYPE_RAW) return attr->precise_ip > 0 || (attr->config & PM_CFG_PROFILEME);
  return false;
}

bool pm_counts_add(struct pm_counts *c, const struct pd_sample *s)
{
  struct pm_raw_v1 raw;
  if (!session_pm_raw(s, &raw)) return false;
  c->n++;
  for (int i = 0; i < PM_NSTATUS; i++)
    if (raw.status & (1ull << i)) c->st[i]++;
  return true;
}

uint64_t pm_counts_sum(const struct pm_counts *c, uint64_t bits)
{
  uint64_t n = 0;
  for (int i = 0; i < PM_NSTATUS; i++)
    if (bits & (1ull << i)) n += c->st[i];
  return n;
}
