/* Hostile and malformed perf_event_open calls from inside the guest get
 * Linux's errors (kernel/events/core.c of 6.1: perf_copy_attr,
 * sys_perf_event_open, perf_event_alloc, perf_event_set_output), never a
 * crash. argv[1] is the run's perf_event_paranoid, argv[2] "priv" when
 * the user has CAP_PERFMON. */
#include "gp.h"
#include <fcntl.h>
#include <sys/mman.h>

static long open_raw(void *attr, int pid, int cpu, int group, unsigned long flags)
{
  return syscall(__NR_perf_event_open, attr, pid, cpu, group, flags);
}

static void sizes(void)
{
  struct { struct perf_event_attr a; uint8_t tail[64]; } big;
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.size = 0;   /* VER0 */
  long fd = gp_open(&a, 0, -1, -1, 0);
  CHECK("attr.size0_is_ver0", fd >= 0, "size 0: %s", strerror(errno));
  if (fd >= 0) close((int)fd);
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.size = 63;
  CHECK_ERR("attr.size63", gp_open(&a, 0, -1, -1, 0), E2BIG);
  CHECK("attr.size_written_back", a.size == sizeof a, "size %u after E2BIG, want %zu", a.size, sizeof a);
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.size = 8193;   /* more than a page */
  CHECK_ERR("attr.size_page", gp_open(&a, 0, -1, -1, 0), E2BIG);
  memset(&big, 0, sizeof big);
  gp_attr(&big.a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  big.a.size = sizeof big;
  fd = open_raw(&big, 0, -1, -1, 0);
  CHECK("attr.larger_zero_tail", fd >= 0, "size %zu with a zero tail: %s", sizeof big, strerror(errno));
  if (fd >= 0) close((int)fd);
  big.tail[9] = 1;
  CHECK_ERR("attr.larger_nonzero_tail", open_raw(&big, 0, -1, -1, 0), E2BIG);
  CHECK("attr.tail_size_written_back", big.a.size == sizeof big.a, "size %u", big.a.size);
  for (uint32_t s = 64; s <= 128; s += 8) {
    gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
    a.size = s;
    fd = gp_open(&a, 0, -1, -1, 0);
    if (fd < 0) { CHECK("attr.sizes_64_128", 0, "size %u: %s", s, strerror(errno)); return; }
    close((int)fd);
  }
  CHECK("attr.sizes_64_128", 1, "%s", "");
}

static void pointers(void)
{
  CHECK_ERR("attr.null", open_raw(NULL, 0, -1, -1, 0), EFAULT);
  CHECK_ERR("attr.wild", open_raw((void *)0x10, 0, -1, -1, 0), EFAULT);
  /* an attr whose declared size runs past the end of its mapping */
  char *page = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(page + 8192, 8192);
  struct perf_event_attr *a = (struct perf_event_attr *)(page + 8192 - 64);
  memset(a, 0, 64);
  a->type = PERF_TYPE_SOFTWARE;
  a->size = 128;
  a->exclude_kernel = 1;
  CHECK_ERR("attr.past_mapping", open_raw(a, 0, -1, -1, 0), EFAULT);
  a->size = 64;
  long fd = open_raw(a, 0, -1, -1, 0);
  CHECK("attr.ver0_at_mapping_end", fd >= 0, "64 bytes at the end of a mapping: %s", strerror(errno));
  if (fd >= 0) close((int)fd);
  munmap(page, 8192);
}

static void fields(void)
{
  struct perf_event_attr a;
#define BAD(name, stmt, err) \
  do { gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK); stmt; CHECK_ERR(name, gp_open(&a, 0, -1, -1, 0), err); } while (0)
  BAD("attr.reserved1", a.__reserved_1 = 1, EINVAL);
  BAD("attr.reserved2", a.__reserved_2 = 1, EINVAL);
  BAD("attr.sample_type_max", a.sample_type = PERF_SAMPLE_MAX, EINVAL);
  BAD("attr.read_format_max", a.read_format = PERF_FORMAT_MAX, EINVAL);
  BAD("attr.period_bit63", (a.sample_period = 1ull << 63), EINVAL);
  BAD("attr.freq_too_high", (a.freq = 1, a.sample_freq = 1000000), EINVAL);
  BAD("attr.inherit_thread", a.inherit_thread = 1, EINVAL);
  BAD("attr.remove_and_enable_on_exec", (a.remove_on_exec = 1, a.enable_on_exec = 1), EINVAL);
  BAD("attr.sigtrap_needs_remove", a.sigtrap = 1, EINVAL);
  BAD("attr.weight_and_struct", a.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, EINVAL);
  BAD("attr.stack_unaligned", (a.sample_type = PERF_SAMPLE_STACK_USER, a.sample_stack_user = 12), EINVAL);
  BAD("attr.bad_type", a.type = 77, ENOENT);
  BAD("attr.bad_sw_config", a.config = 999, ENOENT);
  BAD("attr.precise_sw", a.precise_ip = 1, EOPNOTSUPP);
  BAD("attr.max_stack", (a.sample_type = PERF_SAMPLE_CALLCHAIN, a.sample_period = 1000, a.sample_max_stack = 500),
      EOVERFLOW);
  /* the Alpha driver cannot exclude (PERF_PMU_CAP_NO_EXCLUDE) */
  gp_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  CHECK_ERR("attr.hw_exclude", gp_open(&a, 0, -1, -1, 0), EINVAL);
#undef BAD
}

static void args(int paranoid, int priv)
{
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  CHECK_ERR("attr.bad_flags", gp_open(&a, 0, -1, -1, 1ul << 4), EINVAL);
  CHECK_ERR("attr.cgroup_pid_minus1", gp_open(&a, -1, 0, -1, PERF_FLAG_PID_CGROUP), EINVAL);
  CHECK_ERR("attr.cgroup_cpu_minus1", gp_open(&a, 0, -1, -1, PERF_FLAG_PID_CGROUP), EINVAL);
  CHECK_ERR("attr.cgroup_not_cgroupfs", gp_open(&a, 1, 0, -1, PERF_FLAG_PID_CGROUP), EBADF);
  CHECK_ERR("attr.pid_cpu_minus1", gp_open(&a, -1, -1, -1, 0), EINVAL);
  CHECK_ERR("attr.cpu_range", gp_open(&a, 0, 99, -1, 0), EINVAL);
  CHECK_ERR("attr.cpu_negative", gp_open(&a, 0, -7, -1, 0), EINVAL);
  CHECK_ERR("attr.no_such_pid", gp_open(&a, 99999, -1, -1, 0), ESRCH);
  CHECK_ERR("attr.group_not_open", gp_open(&a, 0, -1, 777, 0), EBADF);
  CHECK_ERR("attr.group_not_perf", gp_open(&a, 0, -1, 1, 0), EBADF);
  /* FD_OUTPUT redirects to the group fd's ring, which must be mapped */
  int lead = (int)gp_open(&a, 0, -1, -1, 0);
  CHECK_ERR("attr.fd_output_unmapped", gp_open(&a, 0, -1, lead, PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP), EINVAL);
  /* a task event joining a leader with another inherit */
  a.inherit = 1;
  CHECK_ERR("attr.group_inherit_mismatch", gp_open(&a, 0, -1, lead, 0), EINVAL);
  a.inherit = 0;
  close(lead);
  /* perf_event_paranoid and CAP_PERFMON */
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.exclude_kernel = 0;
  long fd = gp_open(&a, 0, -1, -1, 0);
  int want_kernel = priv || paranoid <= 1;
  CHECK("attr.paranoid_kernel", want_kernel ? fd >= 0 : (fd < 0 && errno == EACCES),
        "kernel counting at paranoid %d%s: %s", paranoid, priv ? " (privileged)" : "", fd >= 0 ? "allowed" : strerror(errno));
  if (fd >= 0) close((int)fd);
  a.exclude_kernel = 1;
  fd = gp_open(&a, -1, 0, -1, 0);
  int want_cpu = priv || paranoid <= 0;
  CHECK("attr.paranoid_cpu_wide", want_cpu ? fd >= 0 : (fd < 0 && errno == EACCES), "CPU-wide at paranoid %d: %s",
        paranoid, fd >= 0 ? "allowed" : strerror(errno));
  if (fd >= 0) close((int)fd);
  fd = gp_open(&a, 0, -1, -1, 0);
  int want_any = priv || paranoid <= 2;
  CHECK("attr.paranoid_any", want_any ? fd >= 0 : (fd < 0 && errno == EACCES), "user counting at paranoid %d: %s",
        paranoid, fd >= 0 ? "allowed" : strerror(errno));
  if (fd >= 0) close((int)fd);
  /* sigtrap needs a task */
  a.sigtrap = a.remove_on_exec = 1;
  if (want_cpu) CHECK_ERR("attr.sigtrap_cpu_wide", gp_open(&a, -1, 0, -1, 0), EINVAL);
}

static void ioctls(void)
{
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  int fd = (int)gp_open(&a, 0, -1, -1, 0);
  uint64_t p = 1000;
  CHECK_ERR("ioctl.unknown", ioctl(fd, _IO('$', 99), 0), ENOTTY);
  CHECK_ERR("ioctl.refresh_counting", ioctl(fd, PERF_EVENT_IOC_REFRESH, 1), EINVAL);
  CHECK_ERR("ioctl.period_counting", ioctl(fd, PERF_EVENT_IOC_PERIOD, &p), EINVAL);
  CHECK_ERR("ioctl.period_fault", ioctl(fd, PERF_EVENT_IOC_PERIOD, (void *)8), EFAULT);
  CHECK_ERR("ioctl.id_fault", ioctl(fd, PERF_EVENT_IOC_ID, (void *)8), EFAULT);
  CHECK_ERR("ioctl.filter_fault", ioctl(fd, PERF_EVENT_IOC_SET_FILTER, (void *)8), EFAULT);
  CHECK_ERR("ioctl.filter", ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "ip > 0"), EINVAL);
  static char long_filter[9001];   /* longer than a page: strndup_user's EINVAL, not EFAULT */
  memset(long_filter, 'f', sizeof long_filter - 1);
  CHECK_ERR("ioctl.filter_long", ioctl(fd, PERF_EVENT_IOC_SET_FILTER, long_filter), EINVAL);
  CHECK_ERR("ioctl.bpf_badfd", ioctl(fd, PERF_EVENT_IOC_SET_BPF, 999), EBADF);
  CHECK_ERR("ioctl.bpf_notbpf", ioctl(fd, PERF_EVENT_IOC_SET_BPF, 1), EINVAL);
  CHECK_ERR("ioctl.pause_unmapped", ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1), EINVAL);
  CHECK_ERR("ioctl.query_bpf", ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, &p), EINVAL);
  CHECK_ERR("ioctl.set_output_self", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fd), EINVAL);
  CHECK_ERR("ioctl.set_output_badfd", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, 1), EBADF);
  CHECK("ioctl.set_output_none", ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, -1) == 0, "%s", strerror(errno));
  CHECK_ERR("ioctl.modify_attr", ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a), EOPNOTSUPP);
  CHECK_ERR("ioctl.not_perf_fd", ioctl(1, PERF_EVENT_IOC_ENABLE, 0), ENOTTY);
  char b[8];
  CHECK_ERR("fd.write", write(fd, b, 8), EINVAL);
  CHECK_ERR("fd.lseek", lseek(fd, 0, SEEK_SET), ESPIPE);
  void *volatile wild = (void *)8;
  CHECK_ERR("fd.read_fault", read(fd, wild, 8), EFAULT);
  CHECK_ERR("mmap.private", (long)mmap(NULL, 3 * 8192, PROT_READ, MAP_PRIVATE, fd, 0), EINVAL);
  CHECK_ERR("mmap.not_pow2", (long)mmap(NULL, 4 * 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EINVAL);
  CHECK_ERR("mmap.offset", (long)mmap(NULL, 3 * 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 8192), EINVAL);
  close(fd);
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  a.inherit = 1;
  fd = (int)gp_open(&a, 0, -1, -1, 0);
  CHECK_ERR("mmap.inherit_task", (long)mmap(NULL, 3 * 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EINVAL);
  close(fd);
}

/* Debian's level 3: everything refused without CAP_SYS_ADMIN, after the
 * flags and the attr's own checks. */
static void denied(void)
{
  struct perf_event_attr a;
  gp_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  CHECK_ERR("attr.level3_denied", gp_open(&a, 0, -1, -1, 0), EACCES);
  CHECK_ERR("attr.level3_flags_first", gp_open(&a, 0, -1, -1, 1ul << 4), EINVAL);
  a.__reserved_1 = 1;
  CHECK_ERR("attr.level3_attr_first", gp_open(&a, 0, -1, -1, 0), EINVAL);
  a.__reserved_1 = 0;
  a.size = 63;
  CHECK_ERR("attr.level3_size_first", gp_open(&a, 0, -1, -1, 0), E2BIG);
}

int main(int argc, char **argv)
{
  int paranoid = argc > 1 ? atoi(argv[1]) : 2, priv = argc > 2 && !strcmp(argv[2], "priv");
  if (paranoid > 2 && !priv) {
    denied();
    return gp_done();
  }
  sizes();
  pointers();
  args(paranoid, priv);
  fields();
  ioctls();
  return gp_done();
}
