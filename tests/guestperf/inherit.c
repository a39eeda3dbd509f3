/* attr.inherit from inside the guest: an inherited counter follows the
 * children and threads created after it was opened (their counts fold
 * into it), one without inherit does not; and prctl's
 * PR_TASK_PERF_EVENTS_DISABLE/ENABLE stop and restart the caller's events.
 * Run at paranoid 1, timed. Oracle: the loops' known counts. */
#include "gp.h"
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#define N 300000
#define SLACK 200000   /* fork, exit, wait and the thread's start in user and kernel */

static int open_insns(int inherit)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.inherit = inherit;
  return (int)gp_open(&a, 0, -1, -1, 0);
}

static void *thread(void *arg)
{
  gp_loop((uint64_t)(uintptr_t)arg);
  return NULL;
}

int main(void)
{
  int inh = open_insns(1), own = open_insns(0);
  CHECK("inherit.open", inh >= 0 && own >= 0, "%s", strerror(errno));
  uint64_t i0 = gp_value(inh), o0 = gp_value(own);
  pid_t pid = fork();
  if (pid == 0) {
    gp_loop(10 * N);
    _exit(0);
  }
  waitpid(pid, NULL, 0);
  uint64_t i1 = gp_value(inh), o1 = gp_value(own);
  CHECK("inherit.fork_child_counted", i1 - i0 >= 20 * N && i1 - i0 <= 20 * N + SLACK, "inherited counter grew %llu for a child's %d",
        (unsigned long long)(i1 - i0), 20 * N);
  CHECK("inherit.fork_child_not_counted", o1 - o0 < SLACK, "own counter grew %llu across the child's %d",
        (unsigned long long)(o1 - o0), 20 * N);
  pthread_t th;
  pthread_create(&th, NULL, thread, (void *)(uintptr_t)(10 * N));
  pthread_join(th, NULL);
  uint64_t i2 = gp_value(inh), o2 = gp_value(own);
  CHECK("inherit.thread_counted", i2 - i1 >= 20 * N && i2 - i1 <= 20 * N + SLACK, "inherited counter grew %llu for a thread's %d",
        (unsigned long long)(i2 - i1), 20 * N);
  CHECK("inherit.thread_not_counted", o2 - o1 < SLACK, "own counter grew %llu across the thread's %d",
        (unsigned long long)(o2 - o1), 20 * N);
  /* prctl: the caller's events stop, then count again */
  prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
  uint64_t d0 = gp_value(own);
  gp_loop(N);
  uint64_t d1 = gp_value(own);
  prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
  gp_loop(N);
  uint64_t d2 = gp_value(own);
  CHECK("inherit.prctl_disable", d1 == d0, "count %llu -> %llu while disabled", (unsigned long long)d0,
        (unsigned long long)d1);
  CHECK("inherit.prctl_enable", d2 - d1 >= 2 * N && d2 - d1 < 2 * N + 10000, "count grew %llu after enable",
        (unsigned long long)(d2 - d1));
  return gp_done();
}
