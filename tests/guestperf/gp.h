/* Helpers of the guest perf test programs (tests/guestperf/README.md):
 * perf_event_open by its system call (493 on Alpha), PASS/FAIL lines, and
 * loops whose user instruction counts are known exactly. */
#ifndef GP_H
#define GP_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int gp_failed;

static inline long gp_open(struct perf_event_attr *a, int pid, int cpu, int group, unsigned long flags)
{
  return syscall(__NR_perf_event_open, a, pid, cpu, group, flags);
}

/* A counting attr a normal user may open at paranoid 2 (user mode only). */
static inline void gp_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
  memset(a, 0, sizeof *a);
  a->type = type;
  a->size = sizeof *a;
  a->config = config;
  a->exclude_kernel = 1;
  a->exclude_hv = 1;
}

/* The same, counting kernel mode too (paranoid 1 or below). */
static inline void gp_attr_all(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
  gp_attr(a, type, config);
  a->exclude_kernel = a->exclude_hv = 0;
}

/* The count of a plain read_format event (0 if the read fails). */
static inline uint64_t gp_value(int fd)
{
  uint64_t v = 0;
  if (read(fd, &v, 8) != 8) return 0;
  return v;
}

/* Forks a child that execs argv[0] once the parent writes a byte to the fd
 * left in *go (gp_go): the parent opens its events on the pid meanwhile.
 * Returns the pid, or -1. */
static inline pid_t gp_spawn(char **argv, int *go)
{
  int p[2];
  if (pipe(p)) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    char c;
    close(p[1]);
    if (read(p[0], &c, 1) != 1) _exit(126);
    execv(argv[0], argv);
    _exit(127);
  }
  close(p[0]);
  *go = p[1];
  return pid;
}

static inline void gp_go(int go)
{
  if (write(go, "x", 1) != 1) perror("gp_go");
}

#define CHECK(name, cond, ...)                                              \
  do {                                                                      \
    if (cond) printf("PASS %s\n", name);                                    \
    else { printf("FAIL %s: ", name); printf(__VA_ARGS__); printf("\n"); gp_failed = 1; } \
  } while (0)

/* open(attr) must fail with err. */
#define CHECK_ERR(name, call, err)                                          \
  do {                                                                      \
    errno = 0;                                                              \
    long r_ = (call);                                                       \
    int e_ = errno;                                                         \
    CHECK(name, r_ == -1 && e_ == (err), "got %ld errno %d (%s), want errno %d (%s)", r_, e_, \
          strerror(e_), (err), strerror(err));                              \
    if (r_ >= 0 && r_ < 1024) close((int)r_);                               \
  } while (0)

/* Exactly 2*n user instructions: subq, bne per iteration (n >= 1). */
static inline void gp_loop(uint64_t n)
{
  __asm__ volatile("1: subq %0, 1, %0\n\tbne %0, 1b" : "+r"(n));
}

static inline int gp_done(void)
{
  fflush(stdout);
  return gp_failed;
}
#endif
