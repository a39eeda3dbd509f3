/* File and directory system calls: open, the stat family, paths, directories,
 * owners and modes, sizes and sync. Guest paths resolve as the guest sees them
 * (sys_path: the sysroot, /proc/self/exe, the synthesized /proc and /sys,
 * which no one may write); relative ones against the process's host cwd fd.
 * Alpha's layouts (stat64, the old OSF stat, statfs, linux_dirent) are
 * written field by field; statx is the same on both. */
#include "guest/syscall.h"
#include "guest/procfs.h"
#include "guest/synthfs.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a

/* ---- open flags (asm/fcntl.h on Alpha) ---- */
static const struct { int alpha, host; } oflags[] = {
  { 04, O_NONBLOCK }, { 010, O_APPEND }, { 01000, O_CREAT }, { 02000, O_TRUNC },
  { 04000, O_EXCL }, { 010000, O_NOCTTY }, { 020000, O_ASYNC }, { 040000, O_DSYNC }, { 0100000, O_DIRECTORY },
  { 0200000, O_NOFOLLOW }, { 02000000, O_DIRECT }, { 04000000, O_NOATIME },
  { 010000000, O_CLOEXEC }, { 020000000, O_SYNC & ~O_DSYNC }, { 040000000, O_PATH },
};

int sys_oflags_to_host(uint64_t f)
{
  int h = (int)(f & 3);
  for (size_t i = 0; i < sizeof oflags / sizeof oflags[0]; i++)
    if (f & (uint64_t)oflags[i].alpha) h |= oflags[i].host;
  if ((f & 0100000000) && (f & 0100000)) h = (h & ~O_DIRECTORY) | O_TMPFILE;
  return h;
}

uint64_t sys_oflags_from_host(int h)
{
  uint64_t f = (uint64_t)(h & 3);
  for (size_t i = 0; i < sizeof oflags / sizeof oflags[0]; i++)
    if (oflags[i].host && (h & oflags[i].host) == oflags[i].host) f |= (uint64_t)oflags[i].alpha;
  return f | 0400000;   /* O_LARGEFILE is always reported on 64-bit */
}

/* ---- open ---- */
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

/* A change to an entry of the synthesized tree (unlink, mkdir, rename,
 * chmod...): refused, as procfs and sysfs refuse them: EACCES for a user
 * (their directories are not writable), EPERM for root, whom the
 * permissions let through to an operation the filesystem lacks. */
static int synth_denied(struct os *m, int d, const char *p)
{
  if (!in_synth(m, d, p)) return 0;
  return geteuid() == 0 ? -EPERM : -EACCES;
}

/* A call that makes an entry found none there (-ENOENT): in a directory of
 * the synthesized tree that is the refusal of synth_denied, or with
 * exclusive EACCES (lookup_open: procfs's directories have no create). */
static int create_denied(struct os *m, struct task *t, int64_t dirfd, uint64_t path, int e, bool eacces)
{
  char raw[PATH_MAX], p[PATH_MAX];
  if (e != -ENOENT || !m->synth || mm_read_str(t->mm, path, raw, sizeof raw) < 0) return e;
  char *slash = strrchr(raw, '/');
  if (slash == raw) raw[1] = 0;
  else if (slash) *slash = 0;
  else snprintf(raw, sizeof raw, ".");
  int d;
  if (sys_resolve(m, t, dirfd, raw, true, &d, p) || !in_synth(m, d, p)) return e;
  return eacces || geteuid() ? -EACCES : -EPERM;
}

static int64_t do_openat(struct os *m, struct task *t, int64_t dirfd, uint64_t path, uint64_t flags, uint64_t mode)
{
  char p[PATH_MAX];
  int d, e = sys_at_path_flags(m, t, dirfd, path, !(flags & 0200000) /* O_NOFOLLOW */, &d, p);
  if (e && (flags & 01000 /* O_CREAT */)) e = create_denied(m, t, dirfd, path, e, true);
  if (e) return e;
  int hf = sys_oflags_to_host(flags);
  if (((hf & O_ACCMODE) != O_RDONLY || (hf & (O_CREAT | O_TRUNC))) && in_synth(m, d, p))
    return -EACCES;
  return sys_install(t, openat(d, p, hf | O_CLOEXEC, (mode_t)(mode & 07777 & ~t->proc->umask)),
                     (flags & 010000000) != 0);
}
int64_t sys_open(ARGS) { return do_openat(m, t, -100, a[0], a[1], a[2]); }
int64_t sys_openat(ARGS) { return do_openat(m, t, (int64_t)(int32_t)a[0], a[1], a[2], a[3]); }

/* ---- the stat family ---- */
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

/* The old OSF struct stat (stat, lstat, fstat): 80 bytes of 32-bit fields. */
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
  int d, e = sys_at_path_flags(m, t, dirfd, path, !(flags & 0x100), &d, p);
  if (e && !((flags & 0x1000) && e == -EBADF)) return e;
  if ((flags & 0x1000) && !p[0]) d = sys_hostfd(t, (uint64_t)dirfd);
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

int64_t sys_statx(ARGS)
{
  char p[PATH_MAX];
  int d, e = sys_at_path_flags(m, t, (int32_t)a[0], a[1], !(a[2] & 0x100), &d, p);
  if (e) return e;
  /* AT_SYMLINK_NOFOLLOW, AT_NO_AUTOMOUNT, AT_EMPTY_PATH, AT_STATX_*: same values */
  if (a[2] & ~(uint64_t)0x7900) return -EINVAL;
  struct statx sx;
  if (statx(d, p, (int)a[2], (unsigned)a[3], &sx)) return -errno;
  return sys_put(t, a[4], &sx, sizeof sx);
}

/* struct statfs on Alpha: 32-bit words (asm/statfs.h), 64 bytes; like the
 * kernel's do_statfs_native, values that do not fit give EOVERFLOW. */
static int put_statfs(struct task *t, uint64_t addr, const struct statfs *s)
{
  uint64_t big = (uint64_t)s->f_blocks | (uint64_t)s->f_bfree | (uint64_t)s->f_bavail |
                 (uint64_t)s->f_bsize | (uint64_t)s->f_frsize;
  if (big >> 32) return -EOVERFLOW;
  if ((s->f_files != (fsfilcnt_t)-1 && s->f_files >> 32) ||
      (s->f_ffree != (fsfilcnt_t)-1 && s->f_ffree >> 32))
    return -EOVERFLOW;
  uint32_t w[16] = { (uint32_t)s->f_type, (uint32_t)s->f_bsize, (uint32_t)s->f_blocks,
                     (uint32_t)s->f_bfree, (uint32_t)s->f_bavail, (uint32_t)s->f_files,
                     (uint32_t)s->f_ffree, 0, 0, (uint32_t)s->f_namelen,
                     (uint32_t)s->f_frsize, (uint32_t)s->f_flags, 0, 0, 0, 0 };
  memcpy(&w[7], &s->f_fsid, 8);
  return sys_put(t, addr, w, sizeof w);
}

/* struct statfs64 on Alpha: two 32-bit words, five u64 counts, fsid, then
 * 32-bit words again; 88 bytes with the tail padding. */
#define STATFS64_SIZE 88
static int put_statfs64(struct task *t, uint64_t addr, const struct statfs *s)
{
  uint8_t b[STATFS64_SIZE];
  memset(b, 0, sizeof b);
  uint32_t w0[2] = { (uint32_t)s->f_type, (uint32_t)s->f_bsize };
  uint64_t q[5] = { s->f_blocks, s->f_bfree, s->f_bavail, s->f_files, s->f_ffree };
  uint32_t w1[3] = { (uint32_t)s->f_namelen, (uint32_t)s->f_frsize, (uint32_t)s->f_flags };
  memcpy(b, w0, sizeof w0);
  memcpy(b + 8, q, sizeof q);
  memcpy(b + 48, &s->f_fsid, 8);
  memcpy(b + 56, w1, sizeof w1);
  return sys_put(t, addr, b, sizeof b);
}

/* statfs of guest fd arg (byfd) or of the guest path at arg; wide selects
 * struct statfs64. */
static int64_t do_statfs(struct os *m, struct task *t, bool byfd, uint64_t arg,
                         uint64_t buf, bool wide)
{
  struct statfs s;
  if (byfd) {
    int h = sys_hostfd(t, arg);
    if (h < 0) return h;
    if (fstatfs(h, &s)) return -errno;
  } else {
    char p[PATH_MAX];
    int d, e = sys_at_path(m, t, -100, arg, &d, p);
    if (e) return e;
    int fd = openat(d, p, O_PATH | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = fstatfs(fd, &s);
    e = errno;
    close(fd);
    if (r) return -e;
  }
  return wide ? put_statfs64(t, buf, &s) : put_statfs(t, buf, &s);
}
int64_t sys_statfs(ARGS) { return do_statfs(m, t, false, a[0], a[1], false); }
int64_t sys_fstatfs(ARGS) { return do_statfs(m, t, true, a[0], a[1], false); }
int64_t sys_statfs64(ARGS)
{
  return a[1] != STATFS64_SIZE ? -EINVAL : do_statfs(m, t, false, a[0], a[2], true);
}
int64_t sys_fstatfs64(ARGS)
{
  return a[1] != STATFS64_SIZE ? -EINVAL : do_statfs(m, t, true, a[0], a[2], true);
}

/* ---- paths ---- */
#define AT1(name, call) \
  static int64_t name(struct os *m, struct task *t, int64_t dfd, uint64_t path, uint64_t x) \
  { char p[PATH_MAX]; int d; int e = sys_at_path(m, t, dfd, path, &d, p); (void)x; \
    return e ? e : ((call) ? -errno : 0); }

AT1(do_access, faccessat(d, p, (int)x, 0))
AT1(do_chmod, (errno = in_synth(m, d, p) ? EPERM : 0) || fchmodat(d, p, (mode_t)(x & 07777), 0))

static int64_t do_mkdir(struct os *m, struct task *t, int64_t dfd, uint64_t path, uint64_t mode)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, dfd, path, &d, p);
  if (e) return create_denied(m, t, dfd, path, e, false);
  if ((e = synth_denied(m, d, p))) return e;
  return mkdirat(d, p, (mode_t)(mode & 07777 & ~t->proc->umask)) ? -errno : 0;
}
int64_t sys_access(ARGS) { return do_access(m, t, -100, a[0], a[1]); }
int64_t sys_faccessat(ARGS) { return do_access(m, t, (int64_t)(int32_t)a[0], a[1], a[2]); }
int64_t sys_mkdir(ARGS) { return do_mkdir(m, t, -100, a[0], a[1]); }
int64_t sys_mkdirat(ARGS) { return do_mkdir(m, t, (int64_t)(int32_t)a[0], a[1], a[2]); }
int64_t sys_chmod(ARGS) { return do_chmod(m, t, -100, a[0], a[1]); }
int64_t sys_fchmodat(ARGS) { return do_chmod(m, t, (int64_t)(int32_t)a[0], a[1], a[2]); }

static int64_t do_unlinkat(struct os *m, struct task *t, int64_t dfd, uint64_t path, int flags)
{
  char p[PATH_MAX];
  int d, e = sys_at_path_flags(m, t, dfd, path, false, &d, p);
  if (e || (e = synth_denied(m, d, p))) return e;
  return unlinkat(d, p, flags) ? -errno : 0;
}
int64_t sys_unlink(ARGS) { return do_unlinkat(m, t, -100, a[0], 0); }
int64_t sys_rmdir(ARGS) { return do_unlinkat(m, t, -100, a[0], AT_REMOVEDIR); }
int64_t sys_unlinkat(ARGS) { return do_unlinkat(m, t, (int64_t)(int32_t)a[0], a[1], a[2] & 0x200 ? AT_REMOVEDIR : 0); }

static int64_t do_rename(struct os *m, struct task *t, int64_t od, uint64_t op, int64_t nd, uint64_t np, unsigned flags)
{
  char p1[PATH_MAX], p2[PATH_MAX];
  int d1, d2, e = sys_at_path_flags(m, t, od, op, false, &d1, p1);
  if (e || (e = sys_at_path_flags(m, t, nd, np, false, &d2, p2))) return e ? create_denied(m, t, nd, np, e, false) : e;
  if ((e = synth_denied(m, d1, p1)) || (e = synth_denied(m, d2, p2))) return e;
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
    if ((e = sys_at_path_flags(m, t, nd, np, false, &d2, p2))) return create_denied(m, t, nd, np, e, false);
    if ((e = synth_denied(m, d2, p2))) return e;
    return symlinkat(p1, d2, p2) ? -errno : 0;
  }
  if ((e = sys_at_path_flags(m, t, od, op, false, &d1, p1)) ||
      (e = sys_at_path_flags(m, t, nd, np, false, &d2, p2)))
    return e;
  if ((e = synth_denied(m, d1, p1)) || (e = synth_denied(m, d2, p2))) return e;
  return linkat(d1, p1, d2, p2, 0) ? -errno : 0;
}
int64_t sys_link(ARGS) { return do_link(m, t, -100, a[0], -100, a[1], false); }
int64_t sys_linkat(ARGS) { return do_link(m, t, (int32_t)a[0], a[1], (int32_t)a[2], a[3], false); }
int64_t sys_symlink(ARGS) { return do_link(m, t, 0, a[0], -100, a[1], true); }
int64_t sys_symlinkat(ARGS) { return do_link(m, t, 0, a[0], (int32_t)a[1], a[2], true); }

static int64_t do_readlink(struct os *m, struct task *t, int64_t dfd, uint64_t path, uint64_t buf, uint64_t len)
{
  char p[PATH_MAX], out[PATH_MAX];
  int d, e = sys_at_path_flags(m, t, dfd, path, false, &d, p);
  if (e) return e;
  ssize_t n = readlinkat(d, p, out, sizeof out);
  if (n < 0) return -errno;
  if ((uint64_t)n > len) n = (ssize_t)len;
  return sys_put(t, buf, out, (size_t)n) ? -EFAULT : n;
}
int64_t sys_readlink(ARGS) { return do_readlink(m, t, -100, a[0], a[1], a[2]); }
int64_t sys_readlinkat(ARGS) { return do_readlink(m, t, (int32_t)a[0], a[1], a[2], a[3]); }

/* mknod/mknodat make FIFOs, sockets and regular files; not device nodes. */
static int64_t do_mknodat(struct os *m, struct task *t, int64_t dfd, uint64_t path, uint64_t mode)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, dfd, path, &d, p);
  if (e) return create_denied(m, t, dfd, path, e, false);
  if ((e = synth_denied(m, d, p))) return e;
  mode_t perm = (mode_t)(mode & 07777 & ~t->proc->umask);
  switch (mode & S_IFMT) {
  case 0: case S_IFREG: {
    int fd = openat(d, p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, perm);
    if (fd < 0) return -errno;
    close(fd);
    return 0;
  }
  case S_IFIFO: return mkfifoat(d, p, perm) ? -errno : 0;
  case S_IFSOCK: return mknodat(d, p, S_IFSOCK | perm, 0) ? -errno : 0;
  case S_IFCHR: case S_IFBLK: return -EPERM;
  default: return -EINVAL;
  }
}
int64_t sys_mknod(ARGS) { return do_mknodat(m, t, -100, a[0], a[1]); }
int64_t sys_mknodat(ARGS) { return do_mknodat(m, t, (int32_t)a[0], a[1], a[2]); }

/* ---- directories ---- */
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

/* A /proc directory is read as it is now (proc_readdir lists live
 * entries): from its start, its entries are made again. */
static void refresh_dir(struct os *m, struct task *t, int h)
{
  char p[PATH_MAX], buf[PATH_MAX];
  const char *g = m->synth && sys_fd_path(h, p) > 0 ? synthfs_guest_path(m->synth, p) : NULL;
  if (g && !strncmp(g, "/proc", 5) && lseek(h, 0, SEEK_CUR) == 0) (void)procfs_lookup(m, t, g, true, buf);
}

int64_t sys_getdents64(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  refresh_dir(m, t, h);
  size_t n = a[2] > SYS_IOBUF ? SYS_IOBUF : (size_t)a[2];
  uint8_t *b = malloc(n ? n : 1);
  if (!b) return -ENOMEM;
  long r = syscall(SYS_getdents64, h, b, n);
  int e = errno;
  if (r > 0 && sys_put(t, a[1], b, (size_t)r)) r = -1, e = EFAULT;
  free(b);
  return r < 0 ? -e : r;
}

/* getdents fills the old struct linux_dirent: d_ino, d_off, d_reclen,
 * d_name, then d_type in the record's last byte. Its records have exactly the
 * size of linux_dirent64's (both align namelen + 20 to 8), so one host
 * getdents64 of the guest's count converts record by record. */
int64_t sys_getdents(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  refresh_dir(m, t, h);
  size_t n = a[2] > SYS_IOBUF ? SYS_IOBUF : (size_t)a[2];
  uint8_t *in = malloc(n ? n : 1), *out = calloc(1, n ? n : 1);
  long r = in && out ? syscall(SYS_getdents64, h, in, n) : (errno = ENOMEM, -1);
  int e = errno;
  for (long off = 0; r > 0 && off < r;) {
    uint16_t reclen;
    memcpy(&reclen, in + off + 16, 2);
    memcpy(out + off, in + off, 18);                        /* ino, off, reclen */
    size_t nl = strnlen((char *)in + off + 19, reclen - 19u);
    memcpy(out + off + 18, in + off + 19, nl);
    out[off + reclen - 1] = in[off + 18];                   /* d_type */
    off += reclen;
  }
  if (r > 0 && sys_put(t, a[1], out, (size_t)r)) r = -1, e = EFAULT;
  free(in);
  free(out);
  return r < 0 ? -e : r;
}

/* ---- owners and modes ---- */
int64_t sys_fchmod(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  char p[PATH_MAX];
  if (m->synth && sys_fd_path(h, p) > 0 && synthfs_owns(m->synth, p)) return -EPERM;
  return fchmod(h, (mode_t)(a[1] & 07777)) ? -errno : 0;
}

int64_t sys_chown(ARGS) { UNUSED; return 0; }

int64_t sys_lchown(ARGS)
{
  char p[PATH_MAX];
  int d, e = sys_at_path_flags(m, t, -100, a[0], false, &d, p);
  if (e) return e;
  if (in_synth(m, d, p)) return -EPERM;
  return fchownat(d, p, (uid_t)a[1], (gid_t)a[2], AT_SYMLINK_NOFOLLOW) ? -errno : 0;
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
  int e = sys_at_path_flags(m, t, (int32_t)a[0], a[1], !(a[3] & 0x100), &d, p);
  if (e) return e;
  if (in_synth(m, d, p)) return -EPERM;
  return utimensat(d, p, tp, a[3] & 0x100 ? AT_SYMLINK_NOFOLLOW : 0) ? -errno : 0;
}

/* ---- sizes, sync, locks ---- */
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
  if (e || (e = synth_denied(m, d, p))) return e;
  int fd = openat(d, p, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  int r = ftruncate(fd, (off_t)a[1]) ? -errno : 0;
  close(fd);
  return r;
}

int64_t sys_fallocate(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  return fallocate(h, (int)a[1], (off_t)a[2], (off_t)a[3]) ? -errno : 0;
}

int64_t sys_fsync(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  return h < 0 ? h : (fsync(h) ? -errno : 0);
}

/* sync/syncfs: the data already reached the host kernel; durability is not
 * modelled. fadvise is advice. */
int64_t sys_sync(ARGS) { UNUSED; return 0; }
int64_t sys_fd_ok(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  return h < 0 ? h : 0;
}

/* flock always succeeds: every guest process lives in this one host process,
 * where flock on two opens of one file would block the emulator itself. */
int64_t sys_flock(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  uint64_t op = a[1] & ~(uint64_t)LOCK_NB;
  return op == LOCK_SH || op == LOCK_EX || op == LOCK_UN ? 0 : -EINVAL;
}
