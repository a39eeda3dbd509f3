/* Event groups from inside the guest: read_format GROUP (nr, the leader's
 * times, value/id per member), all-or-nothing scheduling, multiplexing with
 * time scaling when the groups need more counters than the EV67's two,
 * PERF_IOC_FLAG_GROUP, software events in a hardware group, and the group
 * rules of sys_perf_event_open. Run at paranoid 1, timed. Oracles: the
 * ABI's layout and the loop's known count (2 instructions per iteration):
 * a multiplexed count scaled by enabled/running estimates it. */
#include "gp.h"

#define N 200000
#define SLACK 6000

struct grp { uint64_t nr, enabled, running; struct { uint64_t value, id; } v[4]; };

static int open_hw(uint64_t config, int group, int disabled)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, config);
  a.disabled = disabled;
  a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return (int)gp_open(&a, 0, -1, group, 0);
}

static uint64_t id_of(int fd)
{
  uint64_t id = 0;
  ioctl(fd, PERF_EVENT_IOC_ID, &id);
  return id;
}

static void basic(void)
{
  int lead = open_hw(PERF_COUNT_HW_CPU_CYCLES, -1, 1);
  int sib = open_hw(PERF_COUNT_HW_INSTRUCTIONS, lead, 0);
  CHECK("group.open", lead >= 0 && sib >= 0, "leader %d sibling %d: %s", lead, sib, strerror(errno));
  struct grp g;
  memset(&g, 0, sizeof g);
  long n = read(lead, &g, sizeof g);
  CHECK("group.read_size", n == 8 * (3 + 2 * 2), "read %ld bytes, want 56", n);
  CHECK("group.layout", g.nr == 2 && g.v[0].id == id_of(lead) && g.v[1].id == id_of(sib),
        "nr %llu ids %llu %llu", (unsigned long long)g.nr, (unsigned long long)g.v[0].id,
        (unsigned long long)g.v[1].id);
  /* the leader is disabled: its enabled sibling does not count either */
  gp_loop(N);
  read(lead, &g, sizeof g);
  CHECK("group.leader_off", g.v[0].value == 0 && g.v[1].value == 0, "cycles %llu insns %llu with the leader off",
        (unsigned long long)g.v[0].value, (unsigned long long)g.v[1].value);
  ioctl(lead, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(N);
  ioctl(lead, PERF_EVENT_IOC_DISABLE, 0);
  read(sib, &g, sizeof g);   /* through the sibling: the same group */
  CHECK("group.counts", g.v[1].value >= 2 * N && g.v[1].value <= 2 * N + SLACK && g.v[0].value > N / 2,
        "insns %llu cycles %llu", (unsigned long long)g.v[1].value, (unsigned long long)g.v[0].value);
  CHECK("group.times", g.enabled > 0 && g.enabled == g.running, "enabled %llu running %llu",
        (unsigned long long)g.enabled, (unsigned long long)g.running);
  /* PERF_IOC_FLAG_GROUP through the sibling resets the whole group */
  ioctl(sib, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
  read(lead, &g, sizeof g);
  CHECK("group.reset_group", g.v[0].value == 0 && g.v[1].value == 0, "after RESET|GROUP %llu %llu",
        (unsigned long long)g.v[0].value, (unsigned long long)g.v[1].value);
  ioctl(sib, PERF_EVENT_IOC_DISABLE, 0);
  ioctl(sib, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
  gp_loop(N);
  ioctl(sib, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
  read(lead, &g, sizeof g);
  CHECK("group.enable_group", g.v[0].value > 0 && g.v[1].value >= 2 * N, "after ENABLE|GROUP %llu %llu",
        (unsigned long long)g.v[0].value, (unsigned long long)g.v[1].value);
  /* the rules: join a leader, not a sibling; same CPU; no pinned sibling */
  CHECK_ERR("group.join_sibling", open_hw(PERF_COUNT_HW_INSTRUCTIONS, sib, 0), EINVAL);
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.pinned = 1;
  CHECK_ERR("group.pinned_sibling", gp_open(&a, 0, -1, lead, 0), EINVAL);
  a.pinned = 0;
  CHECK_ERR("group.other_cpu", gp_open(&a, 0, 0, lead, 0), EINVAL);
  /* a software event joins a hardware group */
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  int sw = (int)gp_open(&a, 0, -1, lead, 0);
  CHECK("group.sw_sibling", sw >= 0 && read(lead, &g, sizeof g) == 8 * (3 + 2 * 3) && g.nr == 3, "task-clock in the group: %s",
        strerror(errno));
  close(sw);
  /* closing the leader leaves the sibling a group of one */
  close(lead);
  n = read(sib, &g, sizeof g);
  CHECK("group.leader_closed", n == 8 * (3 + 2) && g.nr == 1, "read %ld nr %llu", n, (unsigned long long)g.nr);
  close(sib);
}

/* Three groups of two hardware events on two counters: each runs a third
 * of the time; scaled, each estimates the loop's instructions. */
static void multiplex(void)
{
  int lead[3], sib[3];
  for (int i = 0; i < 3; i++) {
    lead[i] = open_hw(PERF_COUNT_HW_CPU_CYCLES, -1, 1);
    sib[i] = open_hw(PERF_COUNT_HW_INSTRUCTIONS, lead[i], 0);
  }
  for (int i = 0; i < 3; i++) ioctl(lead[i], PERF_EVENT_IOC_ENABLE, 0);
  uint64_t n = 40 * N;
  gp_loop(n);
  for (int i = 0; i < 3; i++) ioctl(lead[i], PERF_EVENT_IOC_DISABLE, 0);
  double share = 0;
  for (int i = 0; i < 3; i++) {
    struct grp g;
    read(lead[i], &g, sizeof g);
    char name[64];
    snprintf(name, sizeof name, "group.mux%d_scaled", i);
    double scaled = g.running ? (double)g.v[1].value * (double)g.enabled / (double)g.running : 0;
    CHECK(name, g.running > 0 && g.running < g.enabled && scaled > 0.9 * 2 * n && scaled < 1.1 * 2 * n,
          "insns %llu enabled %llu running %llu: scaled %.0f for %llu", (unsigned long long)g.v[1].value,
          (unsigned long long)g.enabled, (unsigned long long)g.running, scaled, (unsigned long long)(2 * n));
    share += (double)g.running / (double)g.enabled;
  }
  CHECK("group.mux_shares", share > 0.9 && share <= 1.0001, "running/enabled sums to %.3f over 3 groups", share);
  for (int i = 0; i < 3; i++) { close(sib[i]); close(lead[i]); }
}

int main(void)
{
  basic();
  multiplex();
  return gp_done();
}
