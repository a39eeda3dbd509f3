/* The exec flags from inside the guest: enable_on_exec (off until the task
 * execs, then counting), remove_on_exec (the event leaves the task at exec:
 * its count stays and ENABLE no longer revives it) and PERF_FLAG_FD_CLOEXEC
 * (the fd is gone in the new image), across execve of this program. Run at
 * paranoid 1, timed. */
#include "gp.h"
#include <fcntl.h>

#define N 300000

static int open_insns(int disabled, int enable_on_exec, int remove_on_exec, unsigned long flags)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.disabled = disabled;
  a.enable_on_exec = enable_on_exec;
  a.remove_on_exec = remove_on_exec;
  return (int)gp_open(&a, 0, -1, -1, flags);
}

static int after_exec(char **argv)
{
  int on = atoi(argv[2]), rm = atoi(argv[3]), cx = atoi(argv[4]);
  uint64_t on0 = gp_value(on), rm0 = gp_value(rm);
  gp_loop(N);
  uint64_t on1 = gp_value(on), rm1 = gp_value(rm);
  CHECK("exec.enable_on_exec", on0 > 0 && on1 - on0 >= 2 * N && on1 - on0 < 2 * N + 10000,
        "counted %llu by the new image's start, then %llu for the loop", (unsigned long long)on0,
        (unsigned long long)(on1 - on0));
  CHECK("exec.remove_on_exec", rm1 == rm0 && rm0 >= 2 * N, "count %llu -> %llu after exec", (unsigned long long)rm0,
        (unsigned long long)rm1);
  ioctl(rm, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(N);
  CHECK("exec.removed_stays_off", gp_value(rm) == rm0, "ENABLE revived a removed event: %llu",
        (unsigned long long)gp_value(rm));
  errno = 0;
  CHECK("exec.cloexec", fcntl(cx, F_GETFD) == -1 && errno == EBADF, "fd %d still open after exec", cx);
  return gp_done();
}

int main(int argc, char **argv)
{
  if (argc > 4 && !strcmp(argv[1], "child")) return after_exec(argv);
  int on = open_insns(1, 1, 0, 0), rm = open_insns(0, 0, 1, 0), cx = open_insns(0, 0, 0, PERF_FLAG_FD_CLOEXEC);
  CHECK("exec.open", on >= 0 && rm >= 0 && cx >= 0, "%s", strerror(errno));
  gp_loop(N);
  CHECK("exec.enable_on_exec_off", gp_value(on) == 0, "counted %llu before exec", (unsigned long long)gp_value(on));
  char a[3][16];
  snprintf(a[0], sizeof a[0], "%d", on);
  snprintf(a[1], sizeof a[1], "%d", rm);
  snprintf(a[2], sizeof a[2], "%d", cx);
  fflush(stdout);
  char *args[] = { argv[0], "child", a[0], a[1], a[2], NULL };
  execv("/proc/self/exe", args);
  CHECK("exec.execv", 0, "execv: %s", strerror(errno));
  return gp_done();
}
