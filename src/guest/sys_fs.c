/* File, directory, I/O-multiplexing and memory-mapping system calls. Guest fds
 * index the process's fd table of host fds; relative paths resolve against the
 * process's host cwd fd; absolute paths go through the sysroot (sys_path). */
#include "guest/syscall.h"
#include "guest/loader.h"
#include "guest/synthfs.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a
#define IOBUF (1u << 20)



/* ---- open flags (asm/fcntl.h on Alpha) ---- */
static const struct { int alpha, host; } oflags[] = {
  { 04, O_NONBLOCK }, { 010, O_APPEND }, { 01000, O_CREAT }, { 02000, O_TRUNC },
  { 04000, O_EXCL }, { 010000, O_NOCTTY }, { 020000, O_ASYNC }, { 040000, O_DSYNC }, { 0100000, O_DIRECTORY },
  { 0200000, O_NOFOLLOW }, { 02000000, O_DIRECT }, { 04000000, O_NOATIME },
  { 010000000, O_CLOEXEC }, { 020000000, O_SYNC & ~O_DSYNC }, { 040000000, O_PATH },
};

static int oflags_to_host(uint64_t f)
{
  int h = (int)(f & 3);
  for (size_t i = 0; i < sizeof oflags / sizeof oflags[0]; i++)
    if (f & (uint64_t)oflags[i].alpha) h |= oflags[i].host;
  if ((f & 0100000000) && (f & 0100000)) h = (h & ~O_DIRECTORY) | O_TMPFILE;
  return h;
}

static uint64_t oflags_from_host(int h)
{
  uint64_t f = (uint64_t)(h & 3);
  for (size_t i = 0; i < sizeof oflags / sizeof oflags[0]; i++)
    if (oflags[i].host && (h & oflags[i].host) == oflags[i].host) f |= (uint64_t)oflags[i].alpha;
  return f | 0400000;   /* O_LARGEFILE is always reported on 64-bit */
}

/* ---- read/write ---- */
/* Writes to a pipe, socket or tty go through the scheduler: the host fd is
 * made non-blocking for the call, and when the buffer is full the task blocks
 * (keeping what it wrote in io_done) until it drains, so a large write to a
 * pipe read by another guest thread never blocks the emulator. */
static int64_t stream_write(struct os *m, struct task *t, int h, uint64_t buf, uint64_t len)
{
  (void)m;
  int fl = fcntl(h, F_GETFL);
  bool was_blocking = fl >= 0 && !(fl & O_NONBLOCK);
  uint8_t *tmp = malloc(IOBUF);
  if (!tmp) return -ENOMEM;
  if (was_blocking) fcntl(h, F_SETFL, fl | O_NONBLOCK);
  int64_t ret = 0;
  for (;;) {
    uint64_t left = len - t->io_done;
    if (!left) { ret = (int64_t)t->io_done; break; }
    size_t n = left > IOBUF ? IOBUF : (size_t)left;
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
  size_t n = len > IOBUF ? IOBUF : (size_t)len;
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

/* ---- open, close, dup ---- */
/* The host path host fd h names (readlink of /proc/self/fd/h) into buf of
 * PATH_MAX bytes. Returns its length, or a negative errno. */
ssize_t sys_fd_path(int h, char *buf)
{
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", h);
  ssize_t n = readlink(link, buf, PATH_MAX - 1);
  if (n < 0) return -errno;
  buf[n] = 0;
  return n;
}

/* Whether (host dirfd d, host path p) is in the synthesized /proc and /sys
 * tree: the machine's settings, fixed for the run, which even root may not
 * write (or create files among). */
static bool in_synth(struct os *m, int d, const char *p)
{
  if (!m->synth) return false;
  if (p[0] == '/') return synthfs_owns(m->synth, p);
  char dir[PATH_MAX];
  return sys_fd_path(d, dir) > 0 && synthfs_owns(m->synth, dir);
}

static int64_t do_openat(struct os *m, struct task *t, int64_t dirfd, uint64_t path, uint64_t flags, uint64_t mode)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, dirfd, path, &d, p);
  if (e) return e;
  int hf = oflags_to_host(flags);
  if (((hf & O_ACCMODE) != O_RDONLY || (hf & (O_CREAT | O_TRUNC))) && in_synth(m, d, p))
    return -EACCES;
  return sys_install(t, openat(d, p, hf | O_CLOEXEC, (mode_t)(mode & 07777 & ~t->proc->umask)),
                     (flags & 010000000) != 0);
}
int64_t sys_open(ARGS) { return do_openat(m, t, -100, a[0], a[1], a[2]); }
int64_t sys_openat(ARGS) { return do_openat(m, t, (int64_t)(int32_t)a[0], a[1], a[2], a[3]); }

int64_t sys_close(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  fdt_close(t->proc->files, (int)a[0]);
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
  case 3: { int r = fcntl(h, F_GETFL); return r < 0 ? -errno : (int64_t)oflags_from_host(r); }
  case 4: { int r = fcntl(h, F_SETFL, oflags_to_host(a[2])); return r < 0 ? -errno : 0; }
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

/* ---- stat ---- */
/* struct stat64 on Alpha: 136 bytes (asm/stat.h). */
static int put_stat64(struct task *t, uint64_t addr, const struct stat *st)
{
  uint8_t b[136];
  memset(b, 0, sizeof b);
  uint64_t q[5] = { st->st_dev, st->st_ino, st->st_rdev, (uint64_t)st->st_size, (uint64_t)st->st_blocks };
  memcpy(b, q, sizeof q);
  uint32_t w[5] = { st->st_mode, st->st_uid, st->st_gid, (uint32_t)st->st_blksize, (uint32_t)st->st_nlink };
  memcpy(b + 40, w, sizeof w);
  int64_t ts[6] = { st->st_atim.tv_sec, st->st_atim.tv_nsec, st->st_mtim.tv_sec,
                    st->st_mtim.tv_nsec, st->st_ctim.tv_sec, st->st_ctim.tv_nsec };
  memcpy(b + 64, ts, sizeof ts);
  return sys_put(t, addr, b, sizeof b);
}

/* The old OSF struct stat (calls 67/68/91): 80 bytes of 32-bit fields. */
static int put_stat_old(struct task *t, uint64_t addr, const struct stat *st)
{
  uint8_t b[80];
  memset(b, 0, sizeof b);
  uint32_t w[6] = { (uint32_t)st->st_dev, (uint32_t)st->st_ino, st->st_mode, (uint32_t)st->st_nlink, st->st_uid, st->st_gid };
  memcpy(b, w, sizeof w);
  uint32_t rdev = (uint32_t)st->st_rdev;
  memcpy(b + 24, &rdev, 4);
  int64_t sz = st->st_size;
  memcpy(b + 32, &sz, 8);
  uint64_t tm[3] = { (uint64_t)st->st_atime, (uint64_t)st->st_mtime, (uint64_t)st->st_ctime };
  memcpy(b + 40, tm, sizeof tm);
  uint32_t bs[2] = { (uint32_t)st->st_blksize, (uint32_t)st->st_blocks };
  memcpy(b + 64, bs, sizeof bs);
  return sys_put(t, addr, b, sizeof b);
}

static int64_t do_fstatat(struct os *m, struct task *t, int64_t dirfd, uint64_t path,
                          uint64_t buf, uint64_t flags, bool old)
{
  char p[PATH_MAX];
  struct stat st;
  int e = sys_path(m, t, path, p, sizeof p);
  if (e) return e;
  int d = (flags & 0x1000) && !p[0] ? sys_hostfd(t, (uint64_t)dirfd) : sys_dirfd(t, dirfd);
  if (d < 0 && p[0] != '/') return d;
  int hf = 0;
  if (flags & 0x100) hf |= AT_SYMLINK_NOFOLLOW;
  if (flags & 0x1000) hf |= AT_EMPTY_PATH;
  if (fstatat(d, p, &st, hf)) return -errno;
  return old ? put_stat_old(t, buf, &st) : put_stat64(t, buf, &st);
}

int64_t sys_fstatat64(ARGS) { return do_fstatat(m, t, (int64_t)(int32_t)a[0], a[1], a[2], a[3], false); }
int64_t sys_stat64(ARGS) { return do_fstatat(m, t, -100, a[0], a[1], 0, false); }
int64_t sys_lstat64(ARGS) { return do_fstatat(m, t, -100, a[0], a[1], 0x100, false); }
int64_t sys_stat(ARGS) { return do_fstatat(m, t, -100, a[0], a[1], 0, true); }
int64_t sys_lstat(ARGS) { return do_fstatat(m, t, -100, a[0], a[1], 0x100, true); }

static int64_t do_fstat(struct task *t, uint64_t gfd, uint64_t buf, bool old)
{
  int h = sys_hostfd(t, gfd);
  if (h < 0) return h;
  struct stat st;
  if (fstat(h, &st)) return -errno;
  return old ? put_stat_old(t, buf, &st) : put_stat64(t, buf, &st);
}
int64_t sys_fstat64(ARGS) { UNUSED; return do_fstat(t, a[0], a[1], false); }
int64_t sys_fstat(ARGS) { UNUSED; return do_fstat(t, a[0], a[1], true); }

/* ---- path operations ---- */
#define AT1(name, call) \
  static int64_t name(struct os *m, struct task *t, int64_t dfd, uint64_t path, uint64_t x) \
  { char p[PATH_MAX]; int d; int e = sys_at_path(m, t, dfd, path, &d, p); (void)x; \
    return e ? e : ((call) ? -errno : 0); }

AT1(do_access, faccessat(d, p, (int)x, 0))
AT1(do_mkdir, mkdirat(d, p, (mode_t)(x & 07777 & ~t->proc->umask)))
AT1(do_chmod, fchmodat(d, p, (mode_t)(x & 07777), 0))

int64_t sys_access(ARGS) { return do_access(m, t, -100, a[0], a[1]); }
int64_t sys_faccessat(ARGS) { return do_access(m, t, (int64_t)(int32_t)a[0], a[1], a[2]); }
int64_t sys_mkdir(ARGS) { return do_mkdir(m, t, -100, a[0], a[1]); }
int64_t sys_mkdirat(ARGS) { return do_mkdir(m, t, (int64_t)(int32_t)a[0], a[1], a[2]); }
int64_t sys_chmod(ARGS) { return do_chmod(m, t, -100, a[0], a[1]); }
int64_t sys_fchmodat(ARGS) { return do_chmod(m, t, (int64_t)(int32_t)a[0], a[1], a[2]); }

static int64_t do_unlinkat(struct os *m, struct task *t, int64_t dfd, uint64_t path, int flags)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, dfd, path, &d, p);
  if (e) return e;
  return unlinkat(d, p, flags) ? -errno : 0;
}
int64_t sys_unlink(ARGS) { return do_unlinkat(m, t, -100, a[0], 0); }
int64_t sys_rmdir(ARGS) { return do_unlinkat(m, t, -100, a[0], AT_REMOVEDIR); }
int64_t sys_unlinkat(ARGS) { return do_unlinkat(m, t, (int64_t)(int32_t)a[0], a[1], a[2] & 0x200 ? AT_REMOVEDIR : 0); }

static int64_t do_rename(struct os *m, struct task *t, int64_t od, uint64_t op, int64_t nd, uint64_t np, unsigned flags)
{
  char p1[PATH_MAX], p2[PATH_MAX];
  int d1, d2, e = sys_at_path(m, t, od, op, &d1, p1);
  if (e || (e = sys_at_path(m, t, nd, np, &d2, p2))) return e;
  return renameat2(d1, p1, d2, p2, flags) ? -errno : 0;
}
int64_t sys_rename(ARGS) { return do_rename(m, t, -100, a[0], -100, a[1], 0); }
int64_t sys_renameat(ARGS) { return do_rename(m, t, (int32_t)a[0], a[1], (int32_t)a[2], a[3], 0); }
int64_t sys_renameat2(ARGS) { return do_rename(m, t, (int32_t)a[0], a[1], (int32_t)a[2], a[3], (unsigned)a[4]); }

static int64_t do_link(struct os *m, struct task *t, int64_t od, uint64_t op, int64_t nd, uint64_t np, bool sym)
{
  char p1[PATH_MAX], p2[PATH_MAX];
  int d1, d2, e;
  if (sym) {
    if (mm_read_str(t->mm, op, p1, sizeof p1) < 0) return -EFAULT;
    if ((e = sys_at_path(m, t, nd, np, &d2, p2))) return e;
    return symlinkat(p1, d2, p2) ? -errno : 0;
  }
  if ((e = sys_at_path(m, t, od, op, &d1, p1)) || (e = sys_at_path(m, t, nd, np, &d2, p2))) return e;
  return linkat(d1, p1, d2, p2, 0) ? -errno : 0;
}
int64_t sys_link(ARGS) { return do_link(m, t, -100, a[0], -100, a[1], false); }
int64_t sys_linkat(ARGS) { return do_link(m, t, (int32_t)a[0], a[1], (int32_t)a[2], a[3], false); }
int64_t sys_symlink(ARGS) { return do_link(m, t, 0, a[0], -100, a[1], true); }
int64_t sys_symlinkat(ARGS) { return do_link(m, t, 0, a[0], (int32_t)a[1], a[2], true); }

static int64_t do_readlink(struct os *m, struct task *t, int64_t dfd, uint64_t path, uint64_t buf, uint64_t len)
{
  char raw[PATH_MAX], p[PATH_MAX], out[PATH_MAX];
  if (mm_read_str(t->mm, path, raw, sizeof raw) < 0) return -EFAULT;
  ssize_t n;
  if (!strcmp(raw, "/proc/self/exe")) {
    n = (ssize_t)strlen(t->proc->exe);
    memcpy(out, t->proc->exe, (size_t)n);
  } else {
    int d, e = sys_at_path(m, t, dfd, path, &d, p);
    if (e) return e;
    n = readlinkat(d, p, out, sizeof out);
    if (n < 0) return -errno;
  }
  if ((uint64_t)n > len) n = (ssize_t)len;
  return sys_put(t, buf, out, (size_t)n) ? -EFAULT : n;
}
int64_t sys_readlink(ARGS) { return do_readlink(m, t, -100, a[0], a[1], a[2]); }
int64_t sys_readlinkat(ARGS) { return do_readlink(m, t, (int32_t)a[0], a[1], a[2], a[3]); }

int64_t sys_getcwd(ARGS)
{
  UNUSED;
  char cwd[PATH_MAX];
  ssize_t n = sys_fd_path(t->proc->cwd_fd, cwd);
  if (n < 0) return n;
  const char *g = synthfs_guest_path(m->synth, cwd);   /* inside /sys or /proc: the guest's name */
  if (g) memmove(cwd, g, strlen(g) + 1);
  n = (ssize_t)strlen(cwd) + 1;
  if ((uint64_t)n > a[1]) return -ERANGE;
  return sys_put(t, a[0], cwd, (size_t)n) ? -EFAULT : n;
}

int64_t sys_chdir(ARGS)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, -100, a[0], &d, p);
  if (e) return e;
  int n = openat(d, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (n < 0) return -errno;
  close(t->proc->cwd_fd);
  t->proc->cwd_fd = n;
  return 0;
}

int64_t sys_fchdir(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct stat st;
  if (fstat(h, &st)) return -errno;
  if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
  int n = fcntl(h, F_DUPFD_CLOEXEC, 10);
  if (n < 0) return -errno;
  close(t->proc->cwd_fd);
  t->proc->cwd_fd = n;
  return 0;
}

int64_t sys_getdents64(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  size_t n = a[2] > IOBUF ? IOBUF : (size_t)a[2];
  uint8_t *b = malloc(n ? n : 1);
  if (!b) return -ENOMEM;
  long r = syscall(SYS_getdents64, h, b, n);
  int e = errno;
  if (r > 0 && sys_put(t, a[1], b, (size_t)r)) r = -1, e = EFAULT;
  free(b);
  return r < 0 ? -e : r;
}

int64_t sys_ftruncate(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  return ftruncate(h, (off_t)a[1]) ? -errno : 0;
}

int64_t sys_truncate(ARGS)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, -100, a[0], &d, p);
  if (e) return e;
  int fd = openat(d, p, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  int r = ftruncate(fd, (off_t)a[1]) ? -errno : 0;
  close(fd);
  return r;
}

int64_t sys_fsync(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  return h < 0 ? h : (fsync(h) ? -errno : 0);
}

int64_t sys_fchmod(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  return h < 0 ? h : (fchmod(h, (mode_t)(a[1] & 07777)) ? -errno : 0);
}

int64_t sys_utimensat(ARGS)
{
  char p[PATH_MAX];
  struct timespec ts[2], *tp = NULL;
  int d;
  if (a[2]) {
    int64_t v[4];
    if (sys_get(t, a[2], v, sizeof v)) return -EFAULT;
    ts[0] = (struct timespec){ v[0], v[1] };
    ts[1] = (struct timespec){ v[2], v[3] };
    tp = ts;
  }
  if (!a[1]) {
    int h = sys_hostfd(t, a[0]);
    return h < 0 ? h : (futimens(h, tp) ? -errno : 0);
  }
  int e = sys_at_path(m, t, (int32_t)a[0], a[1], &d, p);
  if (e) return e;
  return utimensat(d, p, tp, a[3] & 0x100 ? AT_SYMLINK_NOFOLLOW : 0) ? -errno : 0;
}

int64_t sys_chown(ARGS) { UNUSED; return 0; }

/* ---- poll ---- */

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

/* ---- memory ---- */
static int prot_of(uint64_t p) { return (int)(p & 7); }

int64_t sys_brk(ARGS)
{
  UNUSED;
  struct guest_mm *mm = t->mm;
  uint64_t want = a[0];
  if (want < mm->brk_start) return (int64_t)mm->brk;
  uint64_t old_end = (mm->brk + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  uint64_t new_end = (want + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  if (new_end > old_end) {
    if (mm_find_free(mm, old_end, new_end, new_end - old_end) != old_end) return -ENOMEM;
    if (mm_map(mm, old_end, new_end - old_end, GUEST_PROT_READ | GUEST_PROT_WRITE)) return -ENOMEM;
  } else if (new_end < old_end) {
    mm_unmap(mm, new_end, old_end - new_end);
  }
  mm->brk = want;
  return (int64_t)want;
}

/* MAP_SHARED of a file: guest pages point into a host MAP_SHARED mapping, so
 * stores reach the file and other mappings. Only whole guest pages inside the
 * file's host-page-rounded size are backed; the rest stays private. */
static int64_t map_shared_file(struct guest_mm *mm, int h, uint64_t addr, uint64_t len,
                               uint64_t off, bool want_write)
{
  struct stat st;
  int fl = fcntl(h, F_GETFL);
  if (want_write && (fl & O_ACCMODE) != O_RDWR) return -EACCES;
  if (fstat(h, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= off) return 0;
  uint64_t hp = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t avail = (((uint64_t)st.st_size - off + hp - 1) / hp) * hp;
  uint64_t n = (avail < len ? avail : len) & ~GUEST_PAGE_MASK;
  if (!n) return 0;
  int prot = (fl & O_ACCMODE) == O_RDWR ? PROT_READ | PROT_WRITE : PROT_READ;
  void *base = mmap(NULL, n, prot, MAP_SHARED, h, (off_t)off);
  if (base == MAP_FAILED) return 0;
  struct guest_ext *ext = calloc(1, sizeof *ext);
  if (!ext) { munmap(base, n); return -ENOMEM; }
  ext->base = base;
  ext->len = n;
  ext->readonly = !(prot & PROT_WRITE);
  if (mm_back_ext(mm, addr, n, base, ext)) return -ENOMEM;
  return (int64_t)n;
}

/* do_mmap's choice of address: MAP_FIXED(_NOREPLACE) takes addr as given
 * (EEXIST if NOREPLACE alone finds it in use, EINVAL if replacing it would
 * split a no-split mapping), else the hint if free, else the lowest free
 * range from mmap_base. */
int64_t sys_mmap_addr(struct guest_mm *mm, uint64_t addr, uint64_t len, uint64_t flags)
{
  bool fixed = flags & 0x100, noreplace = flags & 0x200000;
  if (fixed || noreplace) {
    if (addr & GUEST_PAGE_MASK) return -EINVAL;
    if (addr + len > GUEST_TASK_SIZE || addr + len < addr) return -ENOMEM;
    if (noreplace && !fixed && mm_find_free(mm, addr, addr + len, len) != addr) return -EEXIST;
    if (fixed && mm_would_split(mm, addr, len)) return -EINVAL;
    return (int64_t)addr;
  }
  uint64_t hint = addr & ~GUEST_PAGE_MASK;
  if (!hint || mm_find_free(mm, hint, hint + len, len) != hint)
    hint = mm_find_free(mm, mm->mmap_base, GUEST_TASK_SIZE, len);
  return hint ? (int64_t)hint : -ENOMEM;
}

int64_t sys_mmap(ARGS)
{
  UNUSED;
  struct guest_mm *mm = t->mm;
  uint64_t addr = a[0], len = (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK, flags = a[3], off = a[5];
  if (!a[1] || len < a[1] || len > GUEST_TASK_SIZE) return -EINVAL;
  if (off & GUEST_PAGE_MASK) return -EINVAL;
  bool anon = flags & 0x10;
  int h = -1;
  if (!anon) {
    h = sys_hostfd(t, a[4]);
    if (h < 0) return h;
  }
  int64_t at = sys_mmap_addr(mm, addr, len, flags);
  if (at < 0) return at;
  addr = (uint64_t)at;
  if (mm_map(mm, addr, len, prot_of(a[2]))) return -ENOMEM;
  if ((flags & 3) == 1 && mm_share(mm, addr, len)) return -ENOMEM;   /* MAP_SHARED */
  if (!anon && (a[2] & 4) && m->hooks.task) {   /* an executable file mapping: perf's MMAP2 */
    char path[PATH_MAX];
    if (sys_fd_path(h, path) > 0) {
      struct task_event e = { .kind = TEV_MMAP, .t = t, .addr = addr, .len = len, .pgoff = off,
                              .prot = (uint32_t)a[2], .flags = (uint32_t)(flags & 3), .path = path };
      m->hooks.task(m->hooks.ctx, &e);
    }
  }
  uint64_t backed = 0;
  if (!anon && (flags & 3) == 1) {
    int64_t r = map_shared_file(mm, h, addr, len, off, (a[2] & 2) != 0);
    if (r < 0) { mm_unmap(mm, addr, len); return r; }
    backed = (uint64_t)r;
  }
  if (!anon && backed < len) {
    uint8_t *buf = malloc(IOBUF);
    if (!buf) return -ENOMEM;
    for (uint64_t done = backed; done < len;) {
      ssize_t r = pread(h, buf, len - done > IOBUF ? IOBUF : len - done, (off_t)(off + done));
      if (r <= 0) break;
      mm_write(mm, addr + done, buf, (size_t)r, false);
      done += (uint64_t)r;
    }
    free(buf);
  }
  return (int64_t)addr;
}

int64_t sys_munmap(ARGS)
{
  UNUSED;
  if (a[0] & GUEST_PAGE_MASK || !a[1]) return -EINVAL;
  if (mm_would_split(t->mm, a[0], (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK)) return -EINVAL;
  return mm_unmap(t->mm, a[0], (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK) ? -EINVAL : 0;
}

int64_t sys_mprotect(ARGS)
{
  UNUSED;
  if (a[0] & GUEST_PAGE_MASK) return -EINVAL;
  if (a[2] & 2)   /* a read-only shared file mapping cannot become writable */
    for (uint64_t p = a[0]; p < a[0] + a[1]; p += GUEST_PAGE_SIZE) {
      struct guest_page *pg = mm_page(t->mm, p);
      if (pg && pg->ext && pg->ext->readonly) return -EACCES;
    }
  if (a[1] && mm_would_split(t->mm, a[0], (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK)) return -EINVAL;
  int r = mm_protect(t->mm, a[0], (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK, prot_of(a[2]));
  return r ? -ENOMEM : 0;
}

int64_t sys_madvise(ARGS)
{
  UNUSED;
  if (a[2] == 6) {   /* MADV_DONTNEED on Alpha: private anonymous pages read back as zero */
    for (uint64_t p = a[0] & ~GUEST_PAGE_MASK; p < a[0] + a[1]; p += GUEST_PAGE_SIZE) {
      struct guest_page *pg = mm_page(t->mm, p);
      if (pg && pg->host) memset(pg->host, 0, GUEST_PAGE_SIZE);
      if (pg) mm_code_written(t->mm, p);
    }
  }
  return 0;
}

int64_t sys_mremap(ARGS)
{
  UNUSED;
  struct guest_mm *mm = t->mm;
  uint64_t old = a[0], olen = (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  uint64_t nlen = (a[2] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK, flags = a[3], fixed_to = a[4];
  bool maymove = flags & 1, fixed = flags & 2;
  if ((old & GUEST_PAGE_MASK) || !nlen || (flags & ~3ull) || (fixed && !maymove)) return -EINVAL;
  if (fixed && (fixed_to & GUEST_PAGE_MASK)) return -EINVAL;
  /* Shrinking in place unmaps the tail, found or not (Linux does this before
   * it looks the mapping up); it may not split a perf buffer. */
  if (!fixed && nlen <= olen) {
    if (nlen < olen) {
      if (mm_would_split(mm, old + nlen, olen - nlen)) return -EINVAL;
      mm_unmap(mm, old + nlen, olen - nlen);
    }
    return (int64_t)old;
  }
  if (!mm_is_mapped(mm, old, olen)) return -EFAULT;
  struct guest_page *first = mm_page(mm, old);
  if (first->ext && first->ext->nosplit) {
    /* A perf buffer: VM_DONTEXPAND (growing is EFAULT), and a move takes all
     * of it or nothing (moving a part would split it). */
    if (nlen > olen) return -EFAULT;
    if (nlen < olen || mm_would_split(mm, old, olen)) return -EINVAL;
  }
  if (!fixed && mm_find_free(mm, old + olen, old + nlen, nlen - olen) == old + olen) {
    if (mm_map(mm, old + olen, nlen - olen, first->prot & 7)) return -ENOMEM;
    return (int64_t)old;
  }
  if (!maymove) return -ENOMEM;
  uint64_t to;
  if (fixed) {
    /* MREMAP_FIXED: what lies at the target goes first (it may not overlap the source). */
    if (fixed_to < old + olen && old < fixed_to + nlen) return -EINVAL;
    if (fixed_to + nlen > GUEST_TASK_SIZE || fixed_to + nlen < fixed_to) return -EINVAL;
    if (mm_would_split(mm, fixed_to, nlen)) return -EINVAL;
    mm_unmap(mm, fixed_to, nlen);
    to = fixed_to;
  } else {
    to = mm_find_free(mm, mm->mmap_base, GUEST_TASK_SIZE, nlen);
    if (!to) return -ENOMEM;
  }
  if (mm_map(mm, to, nlen, first->prot & 7)) return -ENOMEM;
  /* Move the pages' memory over: host buffer, sharing and the file mapping
   * it may belong to (the new pages are fresh, with none of their own). */
  uint64_t moved = olen < nlen ? olen : nlen;
  for (uint64_t o = 0; o < moved; o += GUEST_PAGE_SIZE) {
    struct guest_page *s = mm_page(mm, old + o), *d = mm_page(mm, to + o);
    if (!s || !d) continue;
    d->host = s->host;
    d->shared = s->shared;
    d->ext = s->ext;
    d->prot = s->prot;
    s->host = NULL;
    s->shared = 0;
    s->ext = NULL;
  }
  mm_unmap(mm, old, olen);
  return (int64_t)to;
}

int64_t sys_msync(ARGS) { UNUSED; return 0; }
