/* Overflow notification by signal from inside the guest: fasync (O_ASYNC
 * with F_SETOWN, F_SETSIG; fs/fcntl.c's send_sigio: plain SIGIO with
 * SI_KERNEL, an F_SETSIG signal with POLL_IN, si_band and si_fd), REFRESH's
 * POLL_HUP when the limit runs out, and attr.sigtrap (SIGTRAP, TRAP_PERF,
 * si_perf_data = sig_data, si_perf_type = the attr's type, as 6.1). Run at
 * paranoid 1, timed. */
#include "gp.h"
#include <fcntl.h>
#include <poll.h>
#include <signal.h>

#define PERIOD 100003
#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

static volatile int nsig, codes[64], fds[64];
static volatile long bands[64];
static volatile uint64_t perf_data;
static volatile uint32_t perf_type;
static volatile int trap_code, ntrap;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
  (void)sig; (void)uc;
  if (nsig < 64) { codes[nsig] = si->si_code; fds[nsig] = si->si_fd; bands[nsig] = si->si_band; }
  nsig++;
}

static void on_trap(int sig, siginfo_t *si, void *uc)
{
  (void)sig; (void)uc;
  ntrap++;
  trap_code = si->si_code;
  /* 6.1's _sigfault._perf: after si_addr, in the union with _trapno */
  memcpy((void *)&perf_data, (char *)si + 24, 8);
  memcpy((void *)&perf_type, (char *)si + 32, 4);
}

static int open_sampler(int disabled)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.disabled = disabled;
  a.sample_period = PERIOD;
  a.sample_type = PERF_SAMPLE_IP;
  return (int)gp_open(&a, 0, -1, -1, 0);
}

static void handler(int sig, void (*fn)(int, siginfo_t *, void *))
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(sig, &sa, NULL);
}

static void fasync(void)
{
  int rt = SIGRTMIN + 1;
  handler(rt, on_sig);
  handler(SIGIO, on_sig);
  /* an F_SETSIG real-time signal queues one per overflow */
  int fd = open_sampler(1);
  CHECK("sig.setown", fcntl(fd, F_SETOWN, getpid()) == 0 && fcntl(fd, F_GETOWN) == getpid(), "%s", strerror(errno));
  CHECK("sig.setsig", fcntl(fd, F_SETSIG, rt) == 0 && fcntl(fd, F_GETSIG) == rt, "%s", strerror(errno));
  CHECK_ERR("sig.setsig_bad", fcntl(fd, F_SETSIG, 99), EINVAL);
  CHECK("sig.async", fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) == 0 && (fcntl(fd, F_GETFL) & O_ASYNC),
        "F_GETFL %#x", fcntl(fd, F_GETFL));
  nsig = 0;
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(5 * PERIOD);   /* 10 overflows */
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  int n = nsig, ok = 1;
  for (int i = 0; i < n && i < 64; i++)
    if (codes[i] != POLL_IN || fds[i] != fd || bands[i] != (POLLIN | POLLRDNORM)) ok = 0;
  CHECK("sig.rt_per_overflow", n >= 9 && n <= 11, "%d signals for 10 overflows", n);
  CHECK("sig.rt_siginfo", n > 0 && ok, "si_code %d (POLL_IN %d) si_fd %d (fd %d) si_band %#lx", codes[0], POLL_IN,
        fds[0], fd, bands[0]);
  /* REFRESH: enabled for 2 overflows, the second says POLL_HUP */
  nsig = 0;
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  CHECK("sig.refresh", ioctl(fd, PERF_EVENT_IOC_REFRESH, 2) == 0, "%s", strerror(errno));
  gp_loop(5 * PERIOD);
  uint64_t c1 = 0, c2 = 0;
  read(fd, &c1, 8);
  gp_loop(PERIOD);
  read(fd, &c2, 8);
  CHECK("sig.refresh_hup", nsig == 2 && codes[0] == POLL_IN && codes[1] == POLL_HUP, "%d signals, codes %d %d", nsig,
        codes[0], codes[1]);
  /* (RESET zeroes the count, not what is left of the period) */
  CHECK("sig.refresh_disables", c1 > PERIOD && c1 < 2 * PERIOD + 6000 && c2 == c1, "count %llu then %llu",
        (unsigned long long)c1, (unsigned long long)c2);
  /* without F_SETSIG: plain SIGIO, SI_KERNEL */
  fcntl(fd, F_SETSIG, 0);
  nsig = 0;
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(PERIOD);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  CHECK("sig.sigio", nsig >= 1 && codes[0] == SI_KERNEL, "%d SIGIO, si_code %d (SI_KERNEL %d)", nsig, codes[0],
        SI_KERNEL);
  /* O_ASYNC off: no more */
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_ASYNC);
  nsig = 0;
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(PERIOD);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  CHECK("sig.async_off", nsig == 0, "%d signals with O_ASYNC off", nsig);
  close(fd);
}

static void sigtrap(void)
{
  handler(SIGTRAP, on_trap);
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.disabled = 1;
  a.sample_period = PERIOD;
  a.sigtrap = 1;
  a.remove_on_exec = 1;
  a.sig_data = 0xfeedfacecafeull;
  int fd = (int)gp_open(&a, 0, -1, -1, 0);
  CHECK("sig.sigtrap_open", fd >= 0, "%s", strerror(errno));
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(5 * PERIOD);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  CHECK("sig.sigtrap", ntrap >= 9 && ntrap <= 11 && trap_code == TRAP_PERF && perf_data == a.sig_data &&
        perf_type == PERF_TYPE_HARDWARE, "%d SIGTRAPs, si_code %d, si_perf_data %#llx, si_perf_type %u", ntrap,
        trap_code, (unsigned long long)perf_data, perf_type);
  close(fd);
}

int main(void)
{
  fasync();
  sigtrap();
  return gp_done();
}
