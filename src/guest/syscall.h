/* System calls of the modelled Linux/Alpha kernel: Alpha numbers in v0, arguments
 * in a0-a5, the result in v0 with a3 = 0, or a positive Alpha errno in v0 with
 * a3 = 1 (arch/alpha/kernel/entry.S). Handlers return a value or a negative host
 * errno; the dispatcher translates. Values crossing the ABI that differ between
 * Alpha and the host (flags, structs, signal numbers) are converted here. */
#ifndef GUEST_SYSCALL_H
#define GUEST_SYSCALL_H
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include "guest/os.h"
#include "guest/systab.h"

#define SYS_BLOCK (-100000)   /* the task blocked; the call is re-executed on wake-up */
#define SYS_NORET (-100001)   /* the handler set the registers itself */

typedef int64_t (*sys_fn)(struct os *m, struct task *t, const uint64_t *a);
/* The handlers syscall.def names. */
#define SYSCALL(nr, name, handler, flags, ksym) int64_t handler(struct os *m, struct task *t, const uint64_t *a);
#define SYSCALL_NI(nr, name)
#include "guest/syscall.def"
#undef SYSCALL
#undef SYSCALL_NI

/* Returns true if SA_RESTART restarts call nr after a handler (ERESTARTSYS). */
bool sys_restartable(uint64_t nr);
/* Host errno -> Alpha errno. */
int errno_to_alpha(int e);

/* The calls a kernel file may take (SYSF_KFILE: its read, ioctl, mmap,
 * fcntl, close, prctl... through os.h struct os_kfile_ops): returns true
 * with *ret set when it handled call nr. */
bool sys_kfile(struct os *m, struct task *t, uint64_t nr, const uint64_t *a, int64_t *ret);

/* Helpers shared by the syscall files. */
#define SYS_IOBUF (1u << 20)   /* the most bytes one host call moves for a guest call */
/* Alpha's O_CLOEXEC and O_NONBLOCK (asm/fcntl.h), which SOCK_, EPOLL_, EFD_ and
 * TFD_ flags reuse; the host's differ. */
#define A_O_CLOEXEC  0x200000
#define A_O_NONBLOCK 0x4

/* Copies to or from guest memory as the guest (protections apply). Return 0
 * or -EFAULT. */
static inline int sys_put(struct task *t, uint64_t addr, const void *v, size_t n)
{
  return mm_write(t->mm, addr, v, n, true) ? -EFAULT : 0;
}
static inline int sys_get(struct task *t, uint64_t addr, void *v, size_t n)
{
  return mm_read(t->mm, addr, v, n, true) ? -EFAULT : 0;
}
/* A call that waits under a temporary signal mask (sigsuspend, ppoll, pselect6,
 * epoll_pwait) sets it with sys_mask_begin on its first execution (when
 * !t->has_saved_mask); signal delivery puts the saved mask back, or
 * sys_mask_end does once the call completes without blocking. */
static inline void sys_mask_begin(struct task *t, uint64_t set)
{
  t->saved_mask = t->blocked;
  t->has_saved_mask = true;
  t->blocked = set & ~GSIG_UNBLOCKABLE;
}
static inline int64_t sys_mask_end(struct task *t, int64_t r)
{
  if (r != SYS_BLOCK && t->has_saved_mask) {
    t->blocked = t->saved_mask;
    t->has_saved_mask = false;
  }
  return r;
}
/* The host fd behind guest fd gfd, or -EBADF. */
static inline int sys_hostfd(struct task *t, uint64_t gfd)
{
  int h = fdt_host(t, (int64_t)(int32_t)gfd);
  return h < 0 ? -EBADF : h;
}
/* The host path of host fd h into buf (PATH_MAX bytes): its length or a
 * negative errno (sys_fs.c). */
ssize_t sys_fd_path(int h, char *buf);
/* Open flags, Alpha <-> host (sys_fs.c); from the host, O_LARGEFILE is set. */
int sys_oflags_to_host(uint64_t f);
uint64_t sys_oflags_from_host(int h);
/* Sets O_NONBLOCK on host fd h for one host call: returns the flags for
 * sys_nb_end to restore, or -1 (nothing to restore). sys_nb_end keeps errno. */
int sys_nb_begin(int h);
void sys_nb_end(int h, int fl);
/* 0 if the caller may make its non-waiting host call on socket h now (it is
 * ready for events, non-blocking, or dontwait: MSG_DONTWAIT), else SYS_BLOCK
 * with t parked until it is, or -EAGAIN once SO_RCVTIMEO/SO_SNDTIMEO has
 * passed (sys_net.c). */
int64_t sys_sock_wait(struct os *m, struct task *t, int h, int events, bool dontwait);
/* The guest's clock clk (CLOCK_*) now, in ns: the realtime ones from the boot
 * epoch, the rest since boot (sys_time.c). */
uint64_t sys_clock_now(struct os *m, uint64_t clk);
/* Moves a new host fd h (the result of the host call that made it: h < 0 means
 * it failed and errno says why) to 10 or above, close-on-exec, and gives it the
 * lowest free guest fd. Returns the guest fd, or a negative errno after closing h. */
int64_t sys_install(struct task *t, int h, bool cloexec);
/* sys_install for both fds of a pipe or socketpair: all or nothing. Returns 0
 * with the guest fds in g, or a negative errno with h closed. */
int sys_install_pair(struct task *t, const int h[2], bool cloexec, int g[2]);
/* Copies a guest path into buf and maps it to a host path (guest/procfs.h's
 * /proc, the synthesized files, the sysroot). Returns 0 or a negative errno. */
int sys_path(struct os *m, struct task *t, uint64_t gaddr, char *buf, size_t len);
/* Host directory fd for a guest dirfd argument (AT_FDCWD -> the process cwd). */
int sys_dirfd(struct task *t, int64_t gdirfd);
/* Resolves (guest dirfd, guest path) to (host dirfd *d, host path p of PATH_MAX
 * bytes). Returns 0 or a negative errno. A path relative to a directory of
 * the synthesized tree resolves as the guest path it stands for (an
 * absolute p). */
int sys_at_path(struct os *m, struct task *t, int64_t dirfd, uint64_t path, int *d, char *p);
/* sys_at_path for calls that act on a last component that is a link
 * (readlink, lstat, AT_SYMLINK_NOFOLLOW, O_NOFOLLOW, unlink): follow false
 * keeps /proc's links (self, exe, cwd, fd/N...) links. */
int sys_at_path_flags(struct os *m, struct task *t, int64_t dirfd, uint64_t path, bool follow, int *d, char *p);
/* sys_at_path_flags of a path already copied in. */
int sys_resolve(struct os *m, struct task *t, int64_t dirfd, const char *path, bool follow, int *d, char *p);
/* The address for mmap(addr, len page-rounded, flags) as do_mmap chooses it
 * (sys_mm.c), or a negative errno. */
int64_t sys_mmap_addr(struct guest_mm *mm, uint64_t addr, uint64_t len, uint64_t flags);
/* Nothing was ready for poll/select/epoll_wait (timeout_ns: -1 none): returns 0
 * once the timeout (kept across re-execution in sleep_deadline) has passed,
 * else blocks the task on the first fd (or just a signal or the deadline) and
 * returns SYS_BLOCK. */
struct pollfd;
int64_t sys_wait_ready(struct os *m, struct task *t, const struct pollfd *first,
                       int64_t timeout_ns);
/* Blocks t until fd is ready for events, if other tasks could run meanwhile.
 * Returns 0 if the caller may proceed with the (possibly blocking) host call. */
int sys_wait_fd(struct os *m, struct task *t, int hostfd, int events);

#endif
