/* A small `perf stat` inside the guest: forks, opens instructions and
 * cycles on the child with enable_on_exec (the child waits on a pipe until
 * they exist), lets it exec argv[1..], waits and prints "insns N cycles N"
 * for the script to compare with `profileme stat -e instructions,cycles`
 * on the same program (the same PMU, the same window: exec to exit). Run
 * at paranoid 1, timed. */
#include "gp.h"
#include <sys/wait.h>

static int open_on(int pid, uint64_t config)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, config);
  a.disabled = 1;
  a.enable_on_exec = 1;
  a.inherit = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return (int)gp_open(&a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
  if (argc < 2) return 2;
  int go;
  pid_t pid = gp_spawn(argv + 1, &go);
  if (pid < 0) return 2;
  int ins = open_on(pid, PERF_COUNT_HW_INSTRUCTIONS), cyc = open_on(pid, PERF_COUNT_HW_CPU_CYCLES);
  CHECK("selfstat.open", ins >= 0 && cyc >= 0, "%s", strerror(errno));
  uint64_t v0[3] = { 0, 0, 0 };
  read(ins, v0, sizeof v0);
  CHECK("selfstat.off_before_exec", v0[0] == 0, "counted %llu before the exec", (unsigned long long)v0[0]);
  gp_go(go);
  int st;
  waitpid(pid, &st, 0);
  uint64_t vi[3] = { 0, 0, 0 }, vc[3] = { 0, 0, 0 };
  read(ins, vi, sizeof vi);
  read(cyc, vc, sizeof vc);
  CHECK("selfstat.ran", WIFEXITED(st) && WEXITSTATUS(st) == 0 && vi[0] > 0 && vi[1] == vi[2],
        "status %#x, insns %llu enabled %llu running %llu", st, (unsigned long long)vi[0], (unsigned long long)vi[1],
        (unsigned long long)vi[2]);
  printf("insns %llu cycles %llu\n", (unsigned long long)vi[0], (unsigned long long)vc[0]);
  return gp_done();
}
