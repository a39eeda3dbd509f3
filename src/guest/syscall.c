/* The system-call dispatcher, which finds each call's handler in
 * syscall.def, and the helpers the syscall files share. */
#include "guest/syscall.h"
#include "guest/procfs.h"
#include "guest/synthfs.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Host (generic Linux) errno -> Alpha (asm/errno.h); unlisted values are equal. */
static const unsigned char alpha_errno[] = {
  [EDEADLK] = 11, [EAGAIN] = 35, [EINPROGRESS] = 36, [EALREADY] = 37, [ENOTSOCK] = 38,
  [EDESTADDRREQ] = 39, [EMSGSIZE] = 40, [EPROTOTYPE] = 41, [ENOPROTOOPT] = 42,
  [EPROTONOSUPPORT] = 43, [ESOCKTNOSUPPORT] = 44, [EOPNOTSUPP] = 45, [EPFNOSUPPORT] = 46,
  [EAFNOSUPPORT] = 47, [EADDRINUSE] = 48, [EADDRNOTAVAIL] = 49, [ENETDOWN] = 50,
  [ENETUNREACH] = 51, [ENETRESET] = 52, [ECONNABORTED] = 53, [ECONNRESET] = 54,
  [ENOBUFS] = 55, [EISCONN] = 56, [ENOTCONN] = 57, [ESHUTDOWN] = 58, [ETOOMANYREFS] = 59,
  [ETIMEDOUT] = 60, [ECONNREFUSED] = 61, [ELOOP] = 62, [ENAMETOOLONG] = 63,
  [EHOSTDOWN] = 64, [EHOSTUNREACH] = 65, [ENOTEMPTY] = 66, [EUSERS] = 68, [EDQUOT] = 69,
  [ESTALE] = 70, [EREMOTE] = 71, [ENOLCK] = 77, [ENOSYS] = 78, [ENOMSG] = 80, [EIDRM] = 81,
  [ENOSR] = 82, [ETIME] = 83, [EBADMSG] = 84, [EPROTO] = 85, [ENODATA] = 86, [ENOSTR] = 87,
  [ENOPKG] = 92, [EILSEQ] = 116, [ECHRNG] = 88, [EL2NSYNC] = 89, [EL3HLT] = 90,
  [EL3RST] = 91, [ELNRNG] = 93, [EUNATCH] = 94, [ENOCSI] = 95, [EL2HLT] = 96, [EBADE] = 97,
  [EBADR] = 98, [EXFULL] = 99, [ENOANO] = 100, [EBADRQC] = 101, [EBADSLT] = 102,
  [EBFONT] = 104, [ENONET] = 105, [ENOLINK] = 106, [EADV] = 107, [ESRMNT] = 108,
  [ECOMM] = 109, [EMULTIHOP] = 110, [EDOTDOT] = 111, [EOVERFLOW] = 112, [ENOTUNIQ] = 113,
  [EBADFD] = 114, [EREMCHG] = 115, [EUCLEAN] = 117, [ENOTNAM] = 118, [ENAVAIL] = 119,
  [EISNAM] = 120, [EREMOTEIO] = 121, [ELIBACC] = 122, [ELIBBAD] = 123, [ELIBSCN] = 124,
  [ELIBMAX] = 125, [ELIBEXEC] = 126, [ERESTART] = 127, [ESTRPIPE] = 128,
  [ENOMEDIUM] = 129, [EMEDIUMTYPE] = 130, [ECANCELED] = 131, [ENOKEY] = 132,
  [EKEYEXPIRED] = 133, [EKEYREVOKED] = 134, [EKEYREJECTED] = 135, [EOWNERDEAD] = 136,
  [ENOTRECOVERABLE] = 137, [ERFKILL] = 138, [EHWPOISON] = 139,
};

int errno_to_alpha(int e)
{
  if (e > 0 && e < (int)sizeof alpha_errno && alpha_errno[e]) return alpha_errno[e];
  return e;
}

bool sys_restartable(uint64_t nr)
{
  return sys_flags(nr) & SYSF_RESTART;
}

/* The handler of each implemented row of syscall.def, by number. */
static const sys_fn handlers[] = {
#define SYSCALL(nr, name, handler, flags, ksym) [nr] = handler,
#define SYSCALL_NI(nr, name)
#include "guest/syscall.def"
#undef SYSCALL
#undef SYSCALL_NI
};

/* ENOSYS for a call the model lacks, with a warning the first time. */
static int64_t unimplemented(struct os *m, uint64_t nr)
{
  if (nr < 1024 && !(m->warned[nr / 8] & (1u << (nr % 8)))) {
    m->warned[nr / 8] |= (uint8_t)(1u << (nr % 8));
    const struct sysent *e = sys_entry(nr);
    fprintf(m->log, "profileme: warning: unimplemented system call %llu%s%s%s; returning ENOSYS\n",
            (unsigned long long)nr, e ? " (" : "", e ? e->name : "", e ? ")" : "");
  }
  return -ENOSYS;
}

/* One line per completed call, like qemu's -strace: the raw arguments,
 * since the table knows names but not argument types. */
static void strace_line(struct os *m, const struct task *t, uint64_t nr, const uint64_t *a,
                        int64_t ret)
{
  const struct sysent *e = sys_entry(nr);
  fprintf(m->log, "[%d] ", t->tid);
  if (e) fprintf(m->log, "%s(", e->name);
  else fprintf(m->log, "syscall_%llu(", (unsigned long long)nr);
  for (int i = 0; i < 6; i++)
    fprintf(m->log, "%s%#llx", i ? ", " : "", (unsigned long long)a[i]);
  if (ret == SYS_NORET)
    fprintf(m->log, ") = ?\n");
  else if (ret < 0 && ret > -4096)
    fprintf(m->log, ") = -1 (%s)\n", strerror((int)-ret));
  else
    fprintf(m->log, ") = %lld (%#llx)\n", (long long)ret, (unsigned long long)ret);
}

void sys_dispatch(struct os *m, struct task *t)
{
  struct axp_ctx *c = &t->ctx;
  uint64_t nr = c->r[0];
  uint64_t a[6] = { c->r[16], c->r[17], c->r[18], c->r[19], c->r[20], c->r[21] };
  sys_fn fn = nr < sizeof handlers / sizeof handlers[0] ? handlers[nr] : NULL;
  int64_t ret;
  t->in_syscall_wait = false;
  if ((sys_flags(nr) & SYSF_KFILE) && sys_kfile(m, t, nr, a, &ret)) {
    /* a call on a kernel file (guest/sys_perf.c) */
  } else if (!fn) {
    ret = unimplemented(m, nr);
  } else {
    ret = fn(m, t, a);
  }
  if (m->opt.strace && ret != SYS_BLOCK) strace_line(m, t, nr, a, ret);
  if (ret == SYS_NORET) return;
  if (ret == SYS_BLOCK) {
    /* Rewind so the call runs again on wake-up, with its original v0 and a3. */
    t->in_syscall_wait = true;
    t->restart_nr = nr;
    t->restart_a3 = a[3];
    c->pc -= 4;
    c->r[0] = nr;
    c->r[19] = a[3];
    return;
  }
  /* The call completed: the deadlines and signal set its re-executions shared
   * are spent, and a stale one would wake the task's next, unrelated wait. */
  t->sleep_deadline = 0;
  t->wait_deadline = 0;
  t->wait_sigset = 0;
  if (ret < 0 && ret > -4096) {
    c->r[0] = (uint64_t)errno_to_alpha((int)-ret);
    c->r[19] = 1;
  } else {
    c->r[0] = (uint64_t)ret;
    c->r[19] = 0;
  }
}

/* Where /dev/fd/..., and with follow /dev/fd, /dev/stdin, /dev/stdout and
 * /dev/stderr, lead (the host's links to its /proc/self/fd, which would
 * name the emulator's fds): the guest's /proc/self/fd, into out. */
static bool dev_fd(const char *n, bool follow, char *out)
{
  static const char *const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
  if (!strncmp(n, "/dev/fd/", 8) || (follow && !strcmp(n, "/dev/fd")))
    return (size_t)snprintf(out, PATH_MAX, "/proc/self/fd%s", n + 7) < PATH_MAX;
  for (int i = 0; follow && i < 3; i++)
    if (!strcmp(n, std[i])) return snprintf(out, PATH_MAX, "/proc/self/fd/%d", i) > 0;
  return false;
}

/* Maps guest path g to the host path to use (buf, len bytes): /proc from
 * the process table (guest/procfs.h), the synthesized /sys and /proc files,
 * absolute paths under the sysroot when they exist there, the rest as they
 * are. follow: see procfs_lookup. */
static int resolve(struct os *m, struct task *t, const char *g, bool follow, char *buf, size_t len, int depth)
{
  if (g[0] == '/' && (strstr(g, "/proc") || !strncmp(g, "/dev/", 5))) {
    char n[PATH_MAX], fd[PATH_MAX], host[PATH_MAX];
    if (synthfs_normalize(g, n)) {
      const char *q = dev_fd(n, follow, fd) ? fd : n;
      int r = procfs_lookup(m, t, q, follow, host);
      if (r < 0) return r;
      if (r == PROCFS_GUEST) return depth < 8 ? resolve(m, t, host, follow, buf, len, depth + 1) : -ELOOP;
      if (r == PROCFS_HOST) return (size_t)snprintf(buf, len, "%s", host) < len ? 0 : -ENAMETOOLONG;
    }
  }
  if (synthfs_map(m->synth, g, buf, len)) return 0;
  if (g[0] == '/' && m->opt.sysroot && *m->opt.sysroot && strncmp(g, "/proc/", 6) &&
      strncmp(g, "/dev/", 5) && strncmp(g, "/tmp/", 5)) {
    if ((size_t)snprintf(buf, len, "%s%s", m->opt.sysroot, g) < len && access(buf, F_OK) == 0)
      return 0;
  }
  if ((size_t)snprintf(buf, len, "%s", g) >= len) return -ENAMETOOLONG;
  return 0;
}

static int read_path(struct task *t, uint64_t gaddr, char *tmp)
{
  long n = mm_read_str(t->mm, gaddr, tmp, PATH_MAX);
  if (n < 0) return n == PM_EINVAL /* too long */ ? -ENAMETOOLONG : -EFAULT;
  return 0;
}

int sys_path(struct os *m, struct task *t, uint64_t gaddr, char *buf, size_t len)
{
  char tmp[PATH_MAX];
  int e = read_path(t, gaddr, tmp);
  return e ? e : resolve(m, t, tmp, true, buf, len, 0);
}

int sys_at_path_flags(struct os *m, struct task *t, int64_t dirfd, uint64_t path, bool follow, int *d, char *p)
{
  char tmp[PATH_MAX];
  int e = read_path(t, path, tmp);
  return e ? e : sys_resolve(m, t, dirfd, tmp, follow, d, p);
}

int sys_resolve(struct os *m, struct task *t, int64_t dirfd, const char *tmp, bool follow, int *d, char *p)
{
  int e;
  *d = sys_dirfd(t, dirfd);
  if (tmp[0] != '/' && tmp[0] && *d >= 0 && m->synth) {
    /* Relative to a directory of the synthesized tree: resolved as the
     * guest path it stands for, so /proc's entries are made (and ".."
     * leaves the tree as the guest's path would). */
    char dir[PATH_MAX], g[2 * PATH_MAX + 2];
    const char *gd = sys_fd_path(*d, dir) > 0 ? synthfs_guest_path(m->synth, dir) : NULL;
    if (gd) {
      if ((size_t)snprintf(g, sizeof g, "%s/%s", strcmp(gd, "/") ? gd : "", tmp) >= PATH_MAX) return -ENAMETOOLONG;
      return resolve(m, t, g, follow, p, PATH_MAX, 0);
    }
  }
  e = resolve(m, t, tmp, follow, p, PATH_MAX, 0);
  if (e) return e;
  if (*d < 0 && p[0] != '/') return *d;
  return 0;
}

int sys_at_path(struct os *m, struct task *t, int64_t dirfd, uint64_t path, int *d, char *p)
{
  return sys_at_path_flags(m, t, dirfd, path, true, d, p);
}

int sys_dirfd(struct task *t, int64_t gdirfd)
{
  if ((int)gdirfd == -100) return t->proc->cwd_fd;   /* AT_FDCWD */
  int h = fdt_host(t, (int)gdirfd);
  return h < 0 ? -EBADF : h;
}

int64_t sys_wait_ready(struct os *m, struct task *t, const struct pollfd *first,
                       int64_t timeout_ns)
{
  if (timeout_ns > 0) {
    if (!t->sleep_deadline) t->sleep_deadline = os_now(m) + (uint64_t)timeout_ns;
    if (os_now(m) >= t->sleep_deadline) return 0;
    t->wait_deadline = t->sleep_deadline;
  }
  if (first) {
    t->wait_fd = first->fd;
    t->wait_events = first->events;
    task_block(t, WAIT_FD);
  } else {
    task_block(t, timeout_ns > 0 ? WAIT_TIME : WAIT_SIGNAL);
  }
  return SYS_BLOCK;
}

int sys_wait_fd(struct os *m, struct task *t, int hostfd, int events)
{
  (void)m;
  int fl = fcntl(hostfd, F_GETFL);
  if (fl < 0 || (fl & O_NONBLOCK)) return 0;   /* the host call answers EAGAIN itself */
  struct pollfd p = { .fd = hostfd, .events = (short)events };
  if (poll(&p, 1, 0) != 0) return 0;
  /* Not ready: block in the scheduler, which polls every waited fd when no
   * task can run, so other tasks and timers keep going meanwhile. */
  t->wait_fd = hostfd;
  t->wait_events = events;
  task_block(t, WAIT_FD);
  return SYS_BLOCK;
}

int sys_nb_begin(int h)
{
  int fl = fcntl(h, F_GETFL);
  if (fl < 0 || (fl & O_NONBLOCK)) return -1;
  return fcntl(h, F_SETFL, fl | O_NONBLOCK) ? -1 : fl;
}

void sys_nb_end(int h, int fl)
{
  int e = errno;
  if (fl >= 0) fcntl(h, F_SETFL, fl);
  errno = e;
}

int64_t sys_install(struct task *t, int h, bool cloexec)
{
  if (h < 0) return -errno;
  if (h < 10) {
    int n = fcntl(h, F_DUPFD_CLOEXEC, 10);
    close(h);
    if (n < 0) return -errno;
    h = n;
  }
  int g = fdt_install(t->proc->files, h, cloexec, 0);
  if (g < 0) close(h);
  return g;
}

int sys_install_pair(struct task *t, const int h[2], bool cloexec, int g[2])
{
  int64_t g0 = sys_install(t, h[0], cloexec);
  if (g0 < 0) { close(h[1]); return (int)g0; }
  int64_t g1 = sys_install(t, h[1], cloexec);
  if (g1 < 0) { fdt_close(t->proc->files, (int)g0); return (int)g1; }
  g[0] = (int)g0;
  g[1] = (int)g1;
  return 0;
}
