/* Data and descriptor system calls: read and write, sendfile, the fd table
 * (close, dup, pipes, fcntl, ioctl), poll, select, epoll and eventfd. Every
 * host fd made here is close-on-exec and at or above 10 (sys_install). A call
 * that would block never blocks the host: the task waits in the scheduler,
 * which polls the waited fds, and the call re-executes on wake-up. */
#include "guest/syscall.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a

/* ---- read and write ---- */
/* Writes to a pipe, socket or tty go through the scheduler: the host fd is
 * made non-blocking for the call, and when the buffer is full the task blocks
 * (keeping what it wrote in io_done) until it drains, so a large write to a
 * pipe read by another guest thread never blocks the emulator. */
static int64_t stream_write(struct os *m, struct task *t, int h, uint64_t buf, uint64_t len)
{
  (void)m;
  int fl = fcntl(h, F_GETFL);
  bool was_blocking = fl >= 0 && !(fl & O_NONBLOCK);
  uint8_t *tmp = malloc(SYS_IOBUF);
  if (!tmp) return -ENOMEM;
  if (was_blocking) fcntl(h, F_SETFL, fl | O_NONBLOCK);
  int64_t ret = 0;
  for (;;) {
    uint64_t left = len - t->io_done;
    if (!left) { ret = (int64_t)t->io_done; break; }
    size_t n = left > SYS_IOBUF ? SYS_IOBUF : (size_t)left;
    if (sys_get(t, buf + t->io_done, tmp, n)) { ret = t->io_done ? (int64_t)t->io_done : -EFAULT; break; }
    ssize_t r = write(h, tmp, n);
    if (r > 0) { t->io_done += (uint64_t)r; continue; }
    int e = errno;
    if (r < 0 && e == EAGAIN && was_blocking) {
      t->wait_fd = h;
      t->wait_events = POLLOUT;
      task_block(t, WAIT_FD);
      ret = SYS_BLOCK;
      break;
    }
    if (r < 0 && e == EPIPE) signal_send(m, t, NULL, GSIG_PIPE, 0, 0, t->proc->pid);
    ret = t->io_done ? (int64_t)t->io_done : (r < 0 ? -e : 0);
    break;
  }
  if (was_blocking) fcntl(h, F_SETFL, fl);
  free(tmp);
  if (ret != SYS_BLOCK) t->io_done = 0;
  return ret;
}

static int64_t do_io(struct os *m, struct task *t, uint64_t gfd, uint64_t buf, uint64_t len,
                     int64_t off, bool wr)
{
  int h = sys_hostfd(t, gfd);
  if (h < 0) return h;
  if (wr && off < 0) {
    struct stat st;
    if (fstat(h, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
      return stream_write(m, t, h, buf, len);
  }
  if (off < 0) {
    int w = sys_wait_fd(m, t, h, wr ? POLLOUT : POLLIN);
    if (w) return w;
  }
  size_t n = len > SYS_IOBUF ? SYS_IOBUF : (size_t)len;
  uint8_t *tmp = malloc(n ? n : 1);
  if (!tmp) return -ENOMEM;
  ssize_t r;
  if (wr) {
    if (sys_get(t, buf, tmp, n)) { free(tmp); return -EFAULT; }
    r = off >= 0 ? pwrite(h, tmp, n, off) : write(h, tmp, n);
    if (r < 0 && errno == EPIPE) signal_send(m, t, NULL, GSIG_PIPE, 0, 0, t->proc->pid);
  } else {
    r = off >= 0 ? pread(h, tmp, n, off) : read(h, tmp, n);
    if (r > 0 && sys_put(t, buf, tmp, (size_t)r)) { free(tmp); return -EFAULT; }
  }
  int e = errno;
  free(tmp);
  return r < 0 ? -e : r;
}

int64_t sys_read(ARGS) { return do_io(m, t, a[0], a[1], a[2], -1, false); }
int64_t sys_write(ARGS) { return do_io(m, t, a[0], a[1], a[2], -1, true); }
int64_t sys_pread(ARGS) { if ((int64_t)a[3] < 0) return -EINVAL; return do_io(m, t, a[0], a[1], a[2], (int64_t)a[3], false); }
int64_t sys_pwrite(ARGS) { if ((int64_t)a[3] < 0) return -EINVAL; return do_io(m, t, a[0], a[1], a[2], (int64_t)a[3], true); }

static int64_t do_iov(struct os *m, struct task *t, const uint64_t *a, bool wr)
{
  if (a[2] > 1024) return -EINVAL;
  int64_t total = 0;
  for (uint64_t i = 0; i < a[2]; i++) {
    uint64_t v[2];
    if (sys_get(t, a[1] + 16 * i, v, sizeof v)) return -EFAULT;
    if (!v[1]) continue;
    int64_t r = do_io(m, t, a[0], v[0], v[1], -1, wr);
    if (r < 0) return total ? total : r;   /* an error or SYS_BLOCK */
    total += r;
    if ((uint64_t)r < v[1]) break;
  }
  return total;
}
int64_t sys_readv(ARGS) { return do_iov(m, t, a, false); }
int64_t sys_writev(ARGS) { return do_iov(m, t, a, true); }

/* sendfile: at most SYS_IOBUF bytes per call; a full output waits in the scheduler. */
int64_t sys_sendfile(ARGS)
{
  int out = sys_hostfd(t, a[0]), in = sys_hostfd(t, a[1]);
  if (out < 0) return out;
  if (in < 0) return in;
  off_t off = 0;
  if (a[2] && sys_get(t, a[2], &off, 8)) return -EFAULT;
  int64_t w = sys_sock_wait(m, t, out, POLLOUT, false);
  if (w) return w;
  int fl = sys_nb_begin(out);
  ssize_t r = sendfile(out, in, a[2] ? &off : NULL, a[3] > SYS_IOBUF ? SYS_IOBUF : (size_t)a[3]);
  sys_nb_end(out, fl);
  if (r < 0 && errno == EAGAIN && fl >= 0) {
    t->wait_fd = out;
    t->wait_events = POLLOUT;
    task_block(t, WAIT_FD);
    return SYS_BLOCK;
  }
  if (r < 0 && errno == EPIPE) signal_send(m, t, NULL, GSIG_PIPE, 0, 0, t->proc->pid);
  if (r < 0) return -errno;
  return a[2] && sys_put(t, a[2], &off, 8) ? -EFAULT : r;
}

int64_t sys_copy_file_range(ARGS)
{
  UNUSED;
  int in = sys_hostfd(t, a[0]), out = sys_hostfd(t, a[2]);
  if (in < 0) return in;
  if (out < 0) return out;
  off_t oin = 0, oout = 0;
  if (a[1] && sys_get(t, a[1], &oin, 8)) return -EFAULT;
  if (a[3] && sys_get(t, a[3], &oout, 8)) return -EFAULT;
  ssize_t r = copy_file_range(in, a[1] ? &oin : NULL, out, a[3] ? &oout : NULL,
                              a[4] > SYS_IOBUF ? SYS_IOBUF : (size_t)a[4], (unsigned)a[5]);
  if (r < 0) return -errno;
  if ((a[1] && sys_put(t, a[1], &oin, 8)) || (a[3] && sys_put(t, a[3], &oout, 8))) return -EFAULT;
  return r;
}

/* ---- the fd table: close, dup, pipes, lseek, fcntl, ioctl ---- */
int64_t sys_close(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  fdt_close(t->proc->files, (int)a[0]);
  return 0;
}

/* close_range(first, last, flags): CLOSE_RANGE_UNSHARE 2, CLOSE_RANGE_CLOEXEC 4. */
int64_t sys_close_range(ARGS)
{
  UNUSED;
  uint32_t first = (uint32_t)a[0], last = (uint32_t)a[1];
  if (first > last || (a[2] & ~(uint64_t)6)) return -EINVAL;
  struct fdtable *f = t->proc->files;
  if ((a[2] & 2) && f->refs > 1) {
    struct fdtable *n = fdt_copy(f);
    if (!n) return -ENOMEM;
    fdt_put(f);
    t->proc->files = f = n;
  }
  for (int64_t i = first; i <= (int64_t)last && i < f->n; i++) {
    if (f->host[i] < 0) continue;
    if (a[2] & 4) f->cloexec[i] = true;
    else fdt_close(f, (int)i);
  }
  return 0;
}

static int64_t do_dup(struct task *t, int h, int min, bool cloexec)
{
  int n = fcntl(h, F_DUPFD_CLOEXEC, 10);
  if (n < 0) return -errno;
  int g = fdt_install(t->proc->files, n, cloexec, min);
  if (g < 0) close(n);
  return g;
}

int64_t sys_dup(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  return h < 0 ? h : do_dup(t, h, 0, false);
}

static int64_t do_dup3(struct task *t, uint64_t oldfd, uint64_t newfd, bool cloexec)
{
  int h = sys_hostfd(t, oldfd);
  if (h < 0) return h;
  if (newfd >= 65536) return -EBADF;
  struct fdtable *f = t->proc->files;
  int n = fcntl(h, F_DUPFD_CLOEXEC, 10);
  if (n < 0) return -errno;
  fdt_close(f, (int)newfd);
  int g = fdt_install(f, n, cloexec, (int)newfd);
  if (g != (int)newfd) { close(n); return g < 0 ? g : -EBADF; }
  return g;
}
int64_t sys_dup2(ARGS) { UNUSED; if (a[0] == a[1]) { int h = sys_hostfd(t, a[0]); return h < 0 ? h : (int64_t)a[1]; } return do_dup3(t, a[0], a[1], false); }
int64_t sys_dup3(ARGS) { UNUSED; if (a[0] == a[1]) return -EINVAL; return do_dup3(t, a[0], a[1], (a[2] & 010000000) != 0); }

static int64_t do_pipe(struct task *t, int fds[2], uint64_t flags)
{
  int p[2];
  if (pipe2(p, O_CLOEXEC | (flags & 04 ? O_NONBLOCK : 0))) return -errno;
  return sys_install_pair(t, p, (flags & 010000000) != 0, fds);
}

int64_t sys_pipe2(ARGS)
{
  UNUSED;
  int fds[2] = { -1, -1 };
  int64_t r = do_pipe(t, fds, a[1]);
  if (r) return r;
  return sys_put(t, a[0], fds, sizeof fds);
}

int64_t sys_pipe(ARGS)
{
  UNUSED;
  int fds[2] = { -1, -1 };
  int64_t r = do_pipe(t, fds, 0);
  if (r) return r;
  t->ctx.r[20] = (uint64_t)fds[1];
  return fds[0];
}

int64_t sys_lseek(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  off_t r = lseek(h, (off_t)a[1], (int)a[2]);
  return r < 0 ? -errno : r;
}

int64_t sys_fcntl(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct fdtable *f = t->proc->files;
  switch (a[1]) {
  case 0: return do_dup(t, h, (int)a[2], false);              /* F_DUPFD */
  case 1030: return do_dup(t, h, (int)a[2], true);            /* F_DUPFD_CLOEXEC */
  case 1: return f->cloexec[a[0]] ? 1 : 0;                    /* F_GETFD */
  case 2: f->cloexec[a[0]] = a[2] & 1; return 0;              /* F_SETFD */
  case 3: { int r = fcntl(h, F_GETFL); return r < 0 ? -errno : (int64_t)sys_oflags_from_host(r); }
  case 4: { int r = fcntl(h, F_SETFL, sys_oflags_to_host(a[2])); return r < 0 ? -errno : 0; }
  case 7: case 8: case 9: return 0;   /* locks: one host process holds them all */
  default: return -EINVAL;
  }
}

int64_t sys_ioctl(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  switch ((uint32_t)a[1]) {
  case 0x402c7413: {   /* TCGETS: struct termios is 44 bytes on Alpha */
    struct termios tio;
    if (tcgetattr(h, &tio)) return -errno;
    uint8_t b[44];
    memset(b, 0, sizeof b);
    uint32_t fl[4] = { tio.c_iflag, tio.c_oflag, tio.c_cflag, tio.c_lflag };
    memcpy(b, fl, sizeof fl);
    return sys_put(t, a[2], b, sizeof b);
  }
  case 0x802c7414: case 0x802c7415: case 0x802c7416: {   /* TCSETS* */
    struct termios tio;
    return tcgetattr(h, &tio) ? -errno : 0;
  }
  case 0x40087468: {   /* TIOCGWINSZ */
    struct winsize ws;
    if (ioctl(h, TIOCGWINSZ, &ws)) return -errno;
    return sys_put(t, a[2], &ws, sizeof ws);
  }
  case 0x4004667f: {   /* FIONREAD */
    int n;
    if (ioctl(h, FIONREAD, &n)) return -errno;
    return sys_put(t, a[2], &n, 4);
  }
  case 0x8004667e: {   /* FIONBIO */
    int on;
    if (sys_get(t, a[2], &on, 4)) return -EFAULT;
    return ioctl(h, FIONBIO, &on) ? -errno : 0;
  }
  case 0x40047477: {   /* TIOCGPGRP */
    int32_t pg = m->init_pid;
    if (!isatty(h)) return -ENOTTY;
    return sys_put(t, a[2], &pg, 4);
  }
  default:
    return -ENOTTY;
  }
}

/* ---- poll and select ---- */
static int64_t do_poll(struct os *m, struct task *t, uint64_t fds, uint64_t nfds, int64_t timeout_ns)
{
  if (nfds > 1024) return -EINVAL;
  struct pollfd p[nfds ? nfds : 1];
  for (uint64_t i = 0; i < nfds; i++) {
    int32_t v[2];
    if (sys_get(t, fds + 8 * i, v, sizeof v)) return -EFAULT;
    int h = fdt_host(t, v[0]);
    p[i] = (struct pollfd){ .fd = v[0] < 0 ? -1 : (h < 0 ? INT_MAX : h), .events = (short)v[1] };
  }
  int r = nfds ? poll(p, (nfds_t)nfds, 0) : 0;
  if (r < 0) return -errno;
  /* a kernel file whose task is gone hangs up (its pipe was made readable
   * then, so a blocked poll has woken) */
  for (uint64_t i = 0; i < nfds && m->kfile.hup; i++)
    if (p[i].fd >= 0 && p[i].fd != INT_MAX && m->kfile.hup(m->kfile.ctx, p[i].fd)) {
      if (!p[i].revents) r++;
      p[i].revents = POLLHUP;
    }
  if (r > 0 || timeout_ns == 0) {
    for (uint64_t i = 0; i < nfds; i++) {
      int16_t rev = p[i].fd == INT_MAX ? POLLNVAL : p[i].revents;
      if (sys_put(t, fds + 8 * i + 6, &rev, 2)) return -EFAULT;
    }
    return r;
  }
  return sys_wait_ready(m, t, nfds ? &p[0] : NULL, timeout_ns);
}

int64_t sys_poll(ARGS)
{
  int64_t ms = (int64_t)(int32_t)a[2];
  return do_poll(m, t, a[0], a[1], ms < 0 ? -1 : ms * 1000000);
}

int64_t sys_ppoll(ARGS)
{
  int64_t tns = -1;
  if (a[2]) {
    int64_t ts[2];
    if (sys_get(t, a[2], ts, sizeof ts)) return -EFAULT;
    tns = ts[0] * 1000000000 + ts[1];
  }
  if (a[3] && !t->has_saved_mask) {
    uint64_t set;
    if (sys_get(t, a[3], &set, 8)) return -EFAULT;
    sys_mask_begin(t, set);
  }
  return sys_mask_end(t, do_poll(m, t, a[0], a[1], tns));
}

/* select/pselect6 through poll: fd_set is an array of 64-bit words on Alpha. */
static int64_t do_select(struct os *m, struct task *t, uint64_t nfds, uint64_t rd, uint64_t wr,
                         uint64_t ex, int64_t timeout_ns)
{
  if (nfds > 1024) return -EINVAL;
  uint64_t sets[3][16] = { { 0 } }, addr[3] = { rd, wr, ex };
  size_t words = (nfds + 63) / 64;
  for (int k = 0; k < 3; k++)
    if (addr[k] && sys_get(t, addr[k], sets[k], words * 8)) return -EFAULT;
  struct pollfd p[1024];
  int np = 0;
  for (uint64_t fd = 0; fd < nfds; fd++) {
    short ev = 0;
    if (sets[0][fd / 64] >> (fd % 64) & 1) ev |= POLLIN;
    if (sets[1][fd / 64] >> (fd % 64) & 1) ev |= POLLOUT;
    if (sets[2][fd / 64] >> (fd % 64) & 1) ev |= POLLPRI;
    if (!ev) continue;
    int h = fdt_host(t, (int64_t)fd);
    if (h < 0) return -EBADF;
    p[np++] = (struct pollfd){ .fd = h, .events = ev };
  }
  int r = np ? poll(p, (nfds_t)np, 0) : 0;
  if (r < 0) return -errno;
  if (r > 0 || timeout_ns == 0) {
    uint64_t out[3][16] = { { 0 } };
    int n = 0, i = 0;
    for (uint64_t fd = 0; fd < nfds; fd++) {
      bool any = (sets[0][fd / 64] | sets[1][fd / 64] | sets[2][fd / 64]) >> (fd % 64) & 1;
      if (!any) continue;
      short rev = p[i++].revents;
      if ((rev & (POLLIN | POLLHUP | POLLERR)) && (sets[0][fd / 64] >> (fd % 64) & 1)) { out[0][fd / 64] |= 1ull << (fd % 64); n++; }
      if ((rev & (POLLOUT | POLLERR)) && (sets[1][fd / 64] >> (fd % 64) & 1)) { out[1][fd / 64] |= 1ull << (fd % 64); n++; }
      if ((rev & POLLPRI) && (sets[2][fd / 64] >> (fd % 64) & 1)) { out[2][fd / 64] |= 1ull << (fd % 64); n++; }
    }
    for (int k = 0; k < 3; k++)
      if (addr[k] && sys_put(t, addr[k], out[k], words * 8)) return -EFAULT;
    return n;
  }
  int64_t w = sys_wait_ready(m, t, np ? &p[0] : NULL, timeout_ns);
  if (w == 0) {   /* timed out: empty sets */
    uint64_t zero[16] = { 0 };
    for (int k = 0; k < 3; k++)
      if (addr[k] && sys_put(t, addr[k], zero, words * 8)) return -EFAULT;
  }
  return w;
}

int64_t sys_select(ARGS)
{
  int64_t tns = -1;
  if (a[4]) {
    int64_t tv[2];
    if (sys_get(t, a[4], tv, sizeof tv)) return -EFAULT;
    if (tv[0] < 0 || tv[1] < 0) return -EINVAL;
    tns = tv[0] * 1000000000 + tv[1] * 1000;
  }
  return do_select(m, t, a[0], a[1], a[2], a[3], tns);
}

int64_t sys_pselect6(ARGS)
{
  int64_t tns = -1;
  if (a[4]) {
    int64_t ts[2];
    if (sys_get(t, a[4], ts, sizeof ts)) return -EFAULT;
    tns = ts[0] * 1000000000 + ts[1];
  }
  uint64_t sm[2];
  if (a[5] && !t->has_saved_mask && !sys_get(t, a[5], sm, sizeof sm) && sm[0]) {
    uint64_t set;
    if (sys_get(t, sm[0], &set, 8)) return -EFAULT;
    sys_mask_begin(t, set);
  }
  return sys_mask_end(t, do_select(m, t, a[0], a[1], a[2], a[3], tns));
}

/* ---- epoll ---- */
/* struct epoll_event is 16 bytes on Alpha (data at offset 8); x86-64's is
 * packed into 12. Event bits are the same. */

int64_t sys_epoll_create(ARGS)
{
  UNUSED;
  if ((int32_t)a[0] <= 0) return -EINVAL;
  return sys_install(t, epoll_create1(EPOLL_CLOEXEC), false);
}

int64_t sys_epoll_create1(ARGS)
{
  UNUSED;
  if (a[0] & ~(uint64_t)A_O_CLOEXEC) return -EINVAL;
  return sys_install(t, epoll_create1(EPOLL_CLOEXEC), a[0] & A_O_CLOEXEC);
}

int64_t sys_epoll_ctl(ARGS)
{
  UNUSED;
  int ep = sys_hostfd(t, a[0]), h = sys_hostfd(t, a[2]);
  if (ep < 0) return ep;
  if (h < 0) return h;
  struct epoll_event ev = { 0 };
  if (a[1] != EPOLL_CTL_DEL) {
    uint8_t b[16];
    if (sys_get(t, a[3], b, sizeof b)) return -EFAULT;
    memcpy(&ev.events, b, 4);
    memcpy(&ev.data.u64, b + 8, 8);
  }
  return epoll_ctl(ep, (int)a[1], h, &ev) ? -errno : 0;
}

/* epoll_wait with a timeout in ns (-1: none): the host epoll fd is asked
 * without waiting; the task waits on it in the scheduler otherwise. */
static int64_t do_epoll_wait(struct os *m, struct task *t, uint64_t gep, uint64_t evs,
                             int64_t max, int64_t timeout_ns)
{
  int ep = sys_hostfd(t, gep);
  if (ep < 0) return ep;
  if (max <= 0 || max > INT_MAX / 16) return -EINVAL;
  struct epoll_event hev[256];
  int r = epoll_wait(ep, hev, max > 256 ? 256 : (int)max, 0);
  if (r < 0) return -errno;
  if (r > 0 || timeout_ns == 0) {
    for (int i = 0; i < r; i++) {
      uint8_t b[16] = { 0 };
      memcpy(b, &hev[i].events, 4);
      memcpy(b + 8, &hev[i].data.u64, 8);
      if (sys_put(t, evs + 16 * (uint64_t)i, b, sizeof b)) return -EFAULT;
    }
    return r;
  }
  return sys_wait_ready(m, t, &(struct pollfd){ .fd = ep, .events = POLLIN }, timeout_ns);
}

static int64_t ms_to_ns(uint64_t ms)
{
  int32_t v = (int32_t)ms;
  return v < 0 ? -1 : (int64_t)v * 1000000;
}

int64_t sys_epoll_wait(ARGS)
{
  return do_epoll_wait(m, t, a[0], a[1], (int32_t)a[2], ms_to_ns(a[3]));
}

/* epoll_pwait/epoll_pwait2: the signal mask applies for the wait, as in ppoll. */
static int64_t epoll_masked(struct os *m, struct task *t, const uint64_t *a, int64_t tns)
{
  if (a[4] && !t->has_saved_mask) {
    if (a[5] != 8) return -EINVAL;
    uint64_t set;
    if (sys_get(t, a[4], &set, 8)) return -EFAULT;
    sys_mask_begin(t, set);
  }
  return sys_mask_end(t, do_epoll_wait(m, t, a[0], a[1], (int32_t)a[2], tns));
}

int64_t sys_epoll_pwait(ARGS) { return epoll_masked(m, t, a, ms_to_ns(a[3])); }

int64_t sys_epoll_pwait2(ARGS)
{
  int64_t tns = -1;
  if (a[3]) {
    int64_t ts[2];
    if (sys_get(t, a[3], ts, sizeof ts)) return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000) return -EINVAL;
    tns = ts[0] * 1000000000 + ts[1];
  }
  return epoll_masked(m, t, a, tns);
}

/* ---- eventfd ---- */
static int64_t do_eventfd(struct task *t, uint64_t initval, uint64_t flags)
{
  if (flags & ~(uint64_t)(1 | A_O_NONBLOCK | A_O_CLOEXEC)) return -EINVAL;
  int hf = EFD_CLOEXEC | (flags & 1 ? EFD_SEMAPHORE : 0) | (flags & A_O_NONBLOCK ? EFD_NONBLOCK : 0);
  return sys_install(t, eventfd((unsigned)initval, hf), flags & A_O_CLOEXEC);
}
int64_t sys_eventfd(ARGS) { UNUSED; return do_eventfd(t, a[0], 0); }
int64_t sys_eventfd2(ARGS) { UNUSED; return do_eventfd(t, a[0], a[1]); }
