/* perf_poll's POLLHUP (kernel/events/core.c is_event_hup): an event on a
 * task hangs up once the task has exited and, with inherit, once every
 * task it was inherited into has too; perf record ends its workload's
 * session on it. A CPU-wide event never hangs up. The count stays
 * readable after the hang-up. */
#include "gp.h"
#include <poll.h>
#include <sys/wait.h>

/* A child that waits for a byte on its pipe, then runs; with grandchild, it
 * first forks one that outlives it by waiting for a second byte. */
static pid_t child(int *go, int *go2, int grandchild)
{
  int p[2], q[2];
  if (pipe(p) || pipe(q)) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    close(p[1]);
    close(q[1]);
    if (read(p[0], &c, 1) != 1) _exit(126);
    if (grandchild && fork() == 0) {
      if (read(q[0], &c, 1) != 1) _exit(126);
      gp_loop(10000);
      _exit(0);
    }
    gp_loop(10000);
    _exit(0);
  }
  close(p[0]);
  close(q[0]);
  *go = p[1];
  *go2 = q[1];
  return pid;
}

static short revents(int fd, int timeout_ms)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };
  return poll(&p, 1, timeout_ms) == 1 ? p.revents : 0;
}

int main(void)
{
  struct perf_event_attr a;
  int go, go2;
  /* a task event: no hang-up while the task lives, POLLHUP alone once it is gone */
  pid_t pid = child(&go, &go2, 0);
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  int fd = (int)gp_open(&a, pid, -1, -1, 0);
  CHECK("hup.open", fd >= 0, "perf_event_open on the child: %s", strerror(errno));
  CHECK("hup.alive", revents(fd, 0) == 0, "revents %#x while the child waits", revents(fd, 0));
  gp_go(go);
  waitpid(pid, NULL, 0);
  short r = revents(fd, -1);
  CHECK("hup.task_gone", r == POLLHUP, "revents %#x after the child exited (want POLLHUP)", r);
  CHECK("hup.count_readable", gp_value(fd) > 0, "the count after the hang-up");
  close(fd);

  /* inherited: the grandchild keeps it open after the child exits */
  pid = child(&go, &go2, 1);
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.inherit = 1;
  fd = (int)gp_open(&a, pid, -1, -1, 0);
  gp_go(go);
  waitpid(pid, NULL, 0);
  r = revents(fd, 0);
  CHECK("hup.inherited_lives", r == 0, "revents %#x while the grandchild lives", r);
  gp_go(go2);
  r = revents(fd, -1);
  CHECK("hup.inherited_gone", r == POLLHUP, "revents %#x after the grandchild exited", r);
  close(fd);

  /* a CPU-wide event (paranoid 0 or below, or CAP_PERFMON) never hangs up */
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
  fd = (int)gp_open(&a, -1, 0, -1, 0);
  if (fd >= 0) {
    CHECK("hup.cpu_never", revents(fd, 0) == 0, "revents %#x of a CPU-wide event", revents(fd, 0));
    close(fd);
  }
  return gp_done();
}
