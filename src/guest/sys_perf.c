/* perf_event_open(2) for guests and the system calls on
 * kernel files (perf event fds): this layer copies the attr in with Linux's
 * size rules (perf_copy_attr) and routes the fd's read, ioctl, mmap, fcntl,
 * close and prctl to the machine through struct os_kfile_ops; the perf core
 * above does the rest. What the fd is not (no write, no seek) answers as
 * Linux's perf_fops does. */
#include "guest/syscall.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#define ALPHA_PAGE_SIZE 8192          /* perf_copy_attr's limit is PAGE_SIZE */
#define PERF_FLAG_ALL (PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)

/* perf_copy_attr's size handling: size 0 is PERF_ATTR_SIZE_VER0; below that
 * or above a page, or a longer struct whose bytes past ours are not all
 * zero (copy_struct_from_user), is E2BIG with our size written back. The
 * copy's size is clamped to ours: the core sees only what it knows. */
static int copy_attr(struct task *t, uint64_t uattr, struct perf_event_attr *attr)
{
  uint32_t size;
  memset(attr, 0, sizeof *attr);
  if (sys_get(t, uattr + offsetof(struct perf_event_attr, size), &size, 4)) return -EFAULT;
  if (!size) size = PERF_ATTR_SIZE_VER0;
  if (size < PERF_ATTR_SIZE_VER0 || size > ALPHA_PAGE_SIZE) goto err_size;
  if (size > sizeof *attr) {
    uint8_t tail[ALPHA_PAGE_SIZE];
    size_t n = size - sizeof *attr;
    if (sys_get(t, uattr + sizeof *attr, tail, n)) return -EFAULT;
    for (size_t i = 0; i < n; i++) if (tail[i]) goto err_size;
  }
  if (sys_get(t, uattr, attr, size < sizeof *attr ? size : sizeof *attr)) return -EFAULT;
  attr->size = size < sizeof *attr ? size : (uint32_t)sizeof *attr;
  return 0;
err_size:;
  uint32_t ours = sizeof *attr;
  (void)sys_put(t, uattr + offsetof(struct perf_event_attr, size), &ours, 4);   /* put_user, unchecked */
  return -E2BIG;
}

int64_t sys_perf_event_open(struct os *m, struct task *t, const uint64_t *a)
{
  if (!m->kfile.is_kfile) return -ENOSYS;   /* a machine without kernel files */
  unsigned long flags = a[4];
  if (flags & ~(unsigned long)PERF_FLAG_ALL) return -EINVAL;
  struct perf_event_attr attr;
  int err = copy_attr(t, a[0], &attr);
  if (err) return err;
  int group_fd = (int)a[3], group_h = -1;
  if (group_fd != -1) {
    group_h = fdt_host(t, group_fd);
    if (group_h < 0) group_h = -EBADF;
  }
  int h = m->kfile.perf_open(m->kfile.ctx, t, &attr, (int)a[1], (int)a[2], group_h, group_fd, flags);
  if (h < 0) return h;
  return sys_install(t, h, (flags & PERF_FLAG_FD_CLOEXEC) != 0);
}

/* The host fd of guest fd gfd when it is a kernel file, else -1. */
static int kfile_of(struct os *m, struct task *t, uint64_t gfd)
{
  int h = fdt_host(t, (int64_t)(int32_t)gfd);
  return h >= 0 && m->kfile.is_kfile(m->kfile.ctx, h) ? h : -1;
}

/* mmap(2) of a kernel file: the address is chosen as for any mapping, the
 * machine maps its frames there. */
static int64_t kfile_mmap(struct os *m, struct task *t, int h, const uint64_t *a)
{
  uint64_t len = (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK, flags = a[3], off = a[5];
  if (!a[1] || len < a[1] || len > GUEST_TASK_SIZE) return -EINVAL;
  if (off & GUEST_PAGE_MASK) return -EINVAL;
  int64_t at = sys_mmap_addr(t->mm, a[0], len, flags);
  if (at < 0) return at;
  return m->kfile.mmap(m->kfile.ctx, t, h, (uint64_t)at, len, (int)a[2], (int)flags, off);
}

bool sys_kfile(struct os *m, struct task *t, uint64_t nr, const uint64_t *a, int64_t *ret)
{
  if (!m->kfile.is_kfile) return false;
  if (nr == NR_prctl) {
    if (a[0] != 31 && a[0] != 32) return false;   /* PR_TASK_PERF_EVENTS_DISABLE / ENABLE */
    *ret = m->kfile.prctl(m->kfile.ctx, t, (int)a[0]);
    return true;
  }
  int h = nr == NR_mmap ? (a[3] & 0x10 ? -1 : kfile_of(m, t, a[4]))   /* not MAP_ANONYMOUS */
                        : kfile_of(m, t, a[0]);
  if (h < 0) return false;
  switch (nr) {
  case NR_read: *ret = m->kfile.read(m->kfile.ctx, t, h, a[1], a[2]); return true;
  case NR_ioctl:   /* perf's ioctls ('$') and FIOASYNC; FIONBIO, FIOCLEX... are generic */
    if (((a[1] >> 8) & 0xff) != '$' && a[1] != 0x8004667dull) return false;
    *ret = m->kfile.ioctl(m->kfile.ctx, t, h, a[1], a[2]);
    return true;
  case NR_mmap: *ret = kfile_mmap(m, t, h, a); return true;
  case NR_fcntl: {
    bool handled = false;
    int64_t r = m->kfile.fcntl(m->kfile.ctx, t, (int)a[0], h, (int)a[1], a[2], &handled);
    if (handled) *ret = r;
    return handled;
  }
  case NR_close:
    fdt_close(t->proc->files, (int)a[0]);
    m->kfile.closed(m->kfile.ctx);
    *ret = 0;
    return true;
  case NR_lseek: case NR_pread64: case NR_pwrite64:
    *ret = -ESPIPE;   /* no_llseek, no FMODE_PREAD */
    return true;
  default:            /* write, readv, writev: perf_fops has no write; readv: no iter */
    *ret = -EINVAL;
    return true;
  }
}
