/* Time system calls: clocks, gettimeofday, sleeps, the interval timer,
 * times, timerfds. Guest time is the model's (os_now, no real time unless
 * --real-time); the realtime clocks add the boot epoch. A sleep keeps its
 * deadline across the call's re-executions. timerfds are the exception:
 * host timers, expiring in host time. */
#include "guest/syscall.h"
#include <errno.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <time.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a

static void ns_to_ts(uint64_t ns, int64_t ts[2])
{
  ts[0] = (int64_t)(ns / 1000000000ull);
  ts[1] = (int64_t)(ns % 1000000000ull);
}

uint64_t sys_clock_now(struct os *m, uint64_t clk)
{
  uint64_t mono = os_now(m);
  switch (clk) {
  case 0: case 5: case 8: case 11:   /* REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI */
    return (uint64_t)m->epoch_ns + mono;
  default:
    return mono;
  }
}

int64_t sys_clock_gettime(ARGS)
{
  UNUSED;
  if (a[0] > 11) return -EINVAL;
  int64_t ts[2];
  ns_to_ts(sys_clock_now(m, a[0]), ts);
  return sys_put(t, a[1], ts, sizeof ts);
}

int64_t sys_clock_getres(ARGS)
{
  UNUSED;
  int64_t ts[2] = { 0, 1 };
  return a[1] ? sys_put(t, a[1], ts, sizeof ts) : 0;
}

int64_t sys_gettimeofday(ARGS)
{
  UNUSED;
  uint64_t ns = sys_clock_now(m, 0);
  int64_t tv[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull / 1000) };
  if (a[0] && sys_put(t, a[0], tv, sizeof tv)) return -EFAULT;
  if (a[1]) { int32_t tz[2] = { 0, 0 }; if (sys_put(t, a[1], tz, sizeof tz)) return -EFAULT; }
  return 0;
}

/* Sleeps until an absolute virtual deadline kept across re-execution. */
static int64_t sleep_until(struct os *m, struct task *t, uint64_t deadline)
{
  if (!t->sleep_deadline) t->sleep_deadline = deadline;
  if (os_now(m) >= t->sleep_deadline) return 0;
  t->wait_deadline = t->sleep_deadline;
  task_block(t, WAIT_TIME);
  return SYS_BLOCK;
}

int64_t sys_nanosleep(ARGS)
{
  int64_t ts[2];
  if (!t->sleep_deadline) {
    if (sys_get(t, a[0], ts, sizeof ts)) return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000) return -EINVAL;
    return sleep_until(m, t, os_now(m) + (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1]);
  }
  return sleep_until(m, t, 0);
}

int64_t sys_clock_nanosleep(ARGS)
{
  int64_t ts[2];
  if (!t->sleep_deadline) {
    if (sys_get(t, a[2], ts, sizeof ts)) return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000) return -EINVAL;
    uint64_t ns = (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1];
    if (a[1] & 1) {   /* TIMER_ABSTIME */
      uint64_t now = sys_clock_now(m, a[0]);
      ns = ns > now ? ns - now : 0;
    }
    return sleep_until(m, t, os_now(m) + ns);
  }
  return sleep_until(m, t, 0);
}

int64_t sys_setitimer(ARGS)
{
  UNUSED;
  if (a[0] != 0) return a[0] <= 2 ? 0 : -EINVAL;   /* only ITIMER_REAL is modelled */
  int64_t v[4];
  struct process *p = t->proc;
  uint64_t now = os_now(m);
  if (a[2]) {
    uint64_t left = p->itimer_deadline > now ? p->itimer_deadline - now : 0;
    int64_t old[4] = { (int64_t)(p->itimer_interval / 1000000000), (int64_t)(p->itimer_interval % 1000000000 / 1000),
                       (int64_t)(left / 1000000000), (int64_t)(left % 1000000000 / 1000) };
    if (sys_put(t, a[2], old, sizeof old)) return -EFAULT;
  }
  if (!a[1]) return 0;
  if (sys_get(t, a[1], v, sizeof v)) return -EFAULT;
  p->itimer_interval = (uint64_t)v[0] * 1000000000ull + (uint64_t)v[1] * 1000;
  uint64_t val = (uint64_t)v[2] * 1000000000ull + (uint64_t)v[3] * 1000;
  p->itimer_deadline = val ? now + val : 0;
  return 0;
}

int64_t sys_getitimer(ARGS)
{
  uint64_t b[3] = { a[0], 0, a[1] };
  return sys_setitimer(m, t, b);
}

int64_t sys_times(ARGS)
{
  UNUSED;
  uint64_t ticks = os_now(m) / 10000000ull;
  if (a[0]) {
    int64_t tms[4] = { (int64_t)ticks, 0, 0, 0 };
    if (sys_put(t, a[0], tms, sizeof tms)) return -EFAULT;
  }
  return (int64_t)ticks;
}

/* ---- timerfd ---- */
/* timerfds are host timerfds: they expire in host time, not guest time, and a
 * TFD_TIMER_ABSTIME value is turned into one relative to the guest clock. */
int64_t sys_timerfd_create(ARGS)
{
  UNUSED;
  if (a[1] & ~(uint64_t)(A_O_NONBLOCK | A_O_CLOEXEC)) return -EINVAL;
  int hf = TFD_CLOEXEC | (a[1] & A_O_NONBLOCK ? TFD_NONBLOCK : 0);
  return sys_install(t, timerfd_create((int)a[0], hf), a[1] & A_O_CLOEXEC);
}

/* The clock a host timerfd counts (its fdinfo says), CLOCK_MONOTONIC if unknown. */
static int timerfd_clock(int h)
{
  char path[64], line[128];
  int clk = CLOCK_MONOTONIC;
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", h);
  FILE *f = fopen(path, "re");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "clockid: %d", &clk) == 1) break;
  if (f) fclose(f);
  return clk;
}

int64_t sys_timerfd_settime(ARGS)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct itimerspec nv, ov;
  if (sys_get(t, a[2], &nv, sizeof nv)) return -EFAULT;
  int flags = (int)(a[1] & TFD_TIMER_CANCEL_ON_SET);
  if ((a[1] & TFD_TIMER_ABSTIME) && (nv.it_value.tv_sec || nv.it_value.tv_nsec)) {
    uint64_t at = (uint64_t)nv.it_value.tv_sec * 1000000000ull + (uint64_t)nv.it_value.tv_nsec;
    uint64_t now = sys_clock_now(m, (uint64_t)timerfd_clock(h));
    uint64_t rel = at > now ? at - now : 1;
    nv.it_value.tv_sec = (time_t)(rel / 1000000000ull);
    nv.it_value.tv_nsec = (long)(rel % 1000000000ull);
  }
  if (timerfd_settime(h, flags, &nv, &ov)) return -errno;
  return a[3] ? sys_put(t, a[3], &ov, sizeof ov) : 0;
}

int64_t sys_timerfd_gettime(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct itimerspec v;
  if (timerfd_gettime(h, &v)) return -errno;
  return sys_put(t, a[1], &v, sizeof v);
}
