/* Counting from inside the guest: perf_event_open of the cpu PMU's
 * instructions and of software events, read(2) with each read_format,
 * the counting ioctls, and the fd across dup, fork and close-on-exec.
 * Run at perf_event_paranoid 1 (the Alpha driver cannot exclude the
 * kernel, so hardware counting needs kernel access), timed. The oracle is
 * the ABI (include/uapi/linux/perf_event.h, perf_event_open(2)) and the
 * loop's known instruction count: 2 per iteration, plus the few user and
 * kernel instructions of the ioctl calls around it. */
#include "gp.h"
#include <fcntl.h>
#include <sys/wait.h>

#define N 100000
#define SLACK 6000   /* the ioctls' own user and kernel instructions */

static int open_insns(uint64_t read_format)
{
  struct perf_event_attr a;
  gp_attr_all(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
  a.disabled = 1;
  a.read_format = read_format;
  return (int)gp_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t count_loop(int fd, uint64_t n)
{
  uint64_t v = 0;
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(n);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  if (read(fd, &v, sizeof v) != sizeof v) return 0;
  return v;
}

int main(void)
{
  int fd = open_insns(PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
                      PERF_FORMAT_LOST);
  CHECK("count.open", fd >= 0, "perf_event_open: %s", strerror(errno));
  if (fd < 0) return gp_done();
  CHECK("count.cloexec", fcntl(fd, F_GETFD) == FD_CLOEXEC, "F_GETFD %d", fcntl(fd, F_GETFD));

  /* disabled: nothing counted, no time enabled */
  uint64_t v[5] = { 1, 1, 1, 1, 1 };
  long n = read(fd, v, sizeof v);
  CHECK("count.read_size", n == 40, "read returned %ld, want 40 (value, enabled, running, id, lost)", n);
  CHECK("count.disabled_zero", v[0] == 0 && v[1] == 0 && v[2] == 0, "value %llu enabled %llu running %llu",
        (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
  uint64_t id = 0;
  CHECK("count.ioc_id", ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 && id == v[3] && id != 0,
        "IOC_ID %llu, read id %llu", (unsigned long long)id, (unsigned long long)v[3]);
  CHECK("count.lost_zero", v[4] == 0, "lost %llu", (unsigned long long)v[4]);
  CHECK_ERR("count.read_short", read(fd, v, 39), ENOSPC);

  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(N);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  n = read(fd, v, sizeof v);
  CHECK("count.insns", n == 40 && v[0] >= 2 * N && v[0] <= 2 * N + SLACK, "counted %llu for a loop of %d",
        (unsigned long long)v[0], 2 * N);
  CHECK("count.times", v[1] > 0 && v[1] == v[2], "enabled %llu running %llu (one event: never multiplexed)",
        (unsigned long long)v[1], (unsigned long long)v[2]);
  /* disabled: the count stays */
  uint64_t w[5];
  gp_loop(N);
  read(fd, w, sizeof w);
  CHECK("count.stays_disabled", w[0] == v[0] && w[1] == v[1], "count %llu -> %llu", (unsigned long long)v[0],
        (unsigned long long)w[0]);
  /* RESET zeroes the count, not the times */
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  read(fd, w, sizeof w);
  CHECK("count.reset", w[0] == 0 && w[1] == v[1], "after RESET count %llu enabled %llu", (unsigned long long)w[0],
        (unsigned long long)w[1]);

  /* twice the loop, twice the count (less the constant overhead) */
  int fd0 = open_insns(0);
  uint64_t c1 = count_loop(fd0, N), c2 = count_loop(fd0, 2 * N);
  long long d = (long long)(c2 - c1);
  CHECK("count.linear", d > 2 * N - SLACK && d < 2 * N + SLACK, "loop N %llu, 2N %llu", (unsigned long long)c1,
        (unsigned long long)c2);
  CHECK("count.read_format0", read(fd0, w, sizeof w) == 8, "a plain read is one u64");

  /* dup shares the event; the original's close leaves it open */
  int dfd = dup(fd0);
  uint64_t a1 = 0, a2 = 0;
  read(fd0, &a1, 8);
  close(fd0);
  CHECK("count.dup", read(dfd, &a2, 8) == 8 && a1 == a2, "through dup %llu, original %llu",
        (unsigned long long)a2, (unsigned long long)a1);
  CHECK("count.dup_ioctl", ioctl(dfd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE through the dup: %s", strerror(errno));
  ioctl(dfd, PERF_EVENT_IOC_DISABLE, 0);
  close(dfd);
  CHECK_ERR("count.closed", read(dfd, w, 8), EBADF);

  /* a forked child reads the parent's event through the inherited fd */
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
  gp_loop(N);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  read(fd, v, sizeof v);
  pid_t pid = fork();
  if (pid == 0) {
    uint64_t c[5];
    _exit(read(fd, c, sizeof c) == 40 && c[0] == v[0] && c[3] == v[3] ? 0 : 1);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK("count.fork_fd", WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);

  /* software events: task-clock counts ns while the task runs */
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED;
  int sfd = (int)gp_open(&a, 0, -1, -1, 0);
  gp_loop(20 * N);
  uint64_t s[2] = { 0, 0 };
  CHECK("count.task_clock", sfd >= 0 && read(sfd, s, sizeof s) == 16 && s[0] > 0 && s[1] > 0,
        "task-clock %llu enabled %llu (%s)", (unsigned long long)s[0], (unsigned long long)s[1], strerror(errno));
  close(sfd);
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
  sfd = (int)gp_open(&a, 0, -1, -1, 0);
  /* every software event below PERF_COUNT_SW_MAX opens (perf_swevent_init):
   * the minor faults are the faults, none is major; dummy, alignment and
   * emulation faults (Alpha Linux raises neither) count nothing */
  static const uint64_t others[] = { PERF_COUNT_SW_PAGE_FAULTS_MIN, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
                                     PERF_COUNT_SW_DUMMY, PERF_COUNT_SW_ALIGNMENT_FAULTS,
                                     PERF_COUNT_SW_EMULATION_FAULTS };
  int ofd[5];
  for (int i = 0; i < 5; i++) {
    gp_attr(&a, PERF_TYPE_SOFTWARE, others[i]);
    ofd[i] = (int)gp_open(&a, 0, -1, -1, 0);
  }
  char *p = malloc(64 * 8192);
  for (int i = 0; i < 64; i++) p[i * 8192] = 1;
  uint64_t faults = 0, ov[5] = { 0 };
  CHECK("count.page_faults", sfd >= 0 && read(sfd, &faults, 8) == 8 && faults >= 60,
        "page-faults %llu after touching 64 new pages", (unsigned long long)faults);
  int opened = 0;
  for (int i = 0; i < 5; i++) opened += ofd[i] >= 0 && read(ofd[i], &ov[i], 8) == 8;
  CHECK("count.sw_events", opened == 5 && ov[0] == faults && ov[1] == 0 && ov[2] == 0 && ov[3] == 0 && ov[4] == 0,
        "%d of 5 opened; minor %llu (faults %llu), major %llu, dummy %llu, alignment %llu, emulation %llu",
        opened, (unsigned long long)ov[0], (unsigned long long)faults, (unsigned long long)ov[1],
        (unsigned long long)ov[2], (unsigned long long)ov[3], (unsigned long long)ov[4]);
  for (int i = 0; i < 5; i++) if (ofd[i] >= 0) close(ofd[i]);
  free(p);
  close(sfd);
  close(fd);
  return gp_done();
}
