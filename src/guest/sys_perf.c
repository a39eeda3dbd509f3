/* perf_event_open(2) for guests and the system calls on kernel files (perf
 * event fds): this layer copies the attr in with Linux's size rules
 * (perf_copy_attr, perf_attr.c) and routes the fd's read, ioctl, mmap, fcntl,
 * close and prctl to the machine through struct os_kfile_ops; the perf core
 * above does the rest. What the fd is not (no write, no seek) answers as
 * Linux's perf_fops does. */
#include "guest/syscall.h"
#include "guest/perf_attr.h"
#include "guest/procfs.h"
#include <errno.h>
#include <linux/perf_event.h>

#define PERF_FLAG_ALL (PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)

/* The attr in guest memory, as perf_copy_attr reads it. */
struct guest_uattr { struct task *t; uint64_t addr; };
static int uattr_get(void *ctx, uint64_t off, void *buf, size_t n)
{
  struct guest_uattr *g = ctx;
  return sys_get(g->t, g->addr + off, buf, n);
}
static void uattr_put_size(void *ctx, uint32_t size)
{
  struct guest_uattr *g = ctx;
  (void)sys_put(g->t, g->addr + offsetof(struct perf_event_attr, size), &size, 4);
}

int64_t sys_perf_event_open(struct os *m, struct task *t, const uint64_t *a)
{
  if (!m->kfile.is_kfile) return -ENOSYS;   /* a machine without kernel files */
  unsigned long flags = a[4];
  if (flags & ~(unsigned long)PERF_FLAG_ALL) return -EINVAL;
  struct perf_event_attr attr;
  struct guest_uattr g = { t, a[0] };
  int err = perf_copy_attr(&(struct perf_uattr){ uattr_get, uattr_put_size, &g }, &attr);
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
  int64_t r = m->kfile.mmap(m->kfile.ctx, t, h, (uint64_t)at, len, (int)a[2], (int)flags, off);
  if (r >= 0) {
    /* What maps shows: the perf event's file, an anon_inode one, shared,
     * a VM_DONTCOPY | VM_DONTEXPAND mapping that never merges. */
    struct guest_vma v = { .path = "anon_inode:[perf_event]", .pgoff = off, .prot = (uint8_t)(a[2] & 7),
                           .flags = VMA_SHARED | VMA_SPECIAL };
    procfs_anon_inode(m, &v.dev, &v.ino);
    (void)mm_vma_set(t->mm, (uint64_t)r, len, &v);
  }
  return r;
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
