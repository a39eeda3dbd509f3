/* The guest's counts against the sim/ PMU's ground truth, both opened from
 * inside the guest (sim/ is type 9, docs/pmu.md): over the same window the
 * EV67's instructions counter equals sim/instructions/, and the user-mode
 * ground truth of the loop is exact: sim/instructions/u is 2 per iteration
 * and sim/branches/u one, plus the few hundred of the ioctl calls around it. Run
 * at paranoid 1, timed. */
#include "gp.h"

#define SIM_TYPE 9
#define N 500000

static int open_ev(uint32_t type, uint64_t config, int user_only)
{
  struct perf_event_attr a;
  gp_attr(&a, type, config);
  a.exclude_kernel = a.exclude_hv = (uint64_t)user_only;
  a.disabled = 1;
  return (int)gp_open(&a, 0, -1, -1, 0);
}

int main(void)
{
  int hw = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);
  int si = open_ev(SIM_TYPE, 1, 0), siu = open_ev(SIM_TYPE, 1, 1), sbu = open_ev(SIM_TYPE, 3, 1),
      smu = open_ev(SIM_TYPE, 4, 1);
  CHECK("truth.open", hw >= 0 && si >= 0 && siu >= 0 && sbu >= 0 && smu >= 0, "%s", strerror(errno));
  int fds[] = { hw, si, siu, sbu, smu };
  for (int i = 0; i < 5; i++) ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(N);
  for (int i = 0; i < 5; i++) ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
  uint64_t h = gp_value(hw), s = gp_value(si), su = gp_value(siu), bu = gp_value(sbu), mu = gp_value(smu);
  long long d = (long long)h - (long long)s;
  CHECK("truth.hw_equals_sim", d > -200 && d < 200, "instructions %llu, sim/instructions/ %llu",
        (unsigned long long)h, (unsigned long long)s);
  CHECK("truth.sim_user_insns", su >= 2 * N && su <= 2 * N + 400, "sim/instructions/u %llu for a loop of %d",
        (unsigned long long)su, 2 * N);
  CHECK("truth.sim_user_branches", bu >= N && bu <= N + 20, "sim/branches/u %llu for %d iterations",
        (unsigned long long)bu, N);
  CHECK("truth.sim_user_mispredicts", mu <= 10, "sim/branch-misses/u %llu in a loop taken every time",
        (unsigned long long)mu);
  return gp_done();
}
