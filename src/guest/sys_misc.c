/* Sockets, epoll, eventfd/timerfd/memfd and the less common file, memory and
 * identity calls. Guest fds index the process's fd table of host fds; every host
 * fd made here is close-on-exec and at or above 10, like sys_fs.c's. Blocking
 * calls never block the host: they ask the host without waiting (MSG_DONTWAIT or
 * a brief O_NONBLOCK) and park the task in the scheduler when nothing is ready,
 * so the call re-executes on wake-up. Layouts that differ from x86-64 (epoll_event,
 * statfs, SOL_SOCKET options) are converted; msghdr, cmsghdr, sockaddr, statx,
 * itimerspec and the MSG_* flags are the same on both (checked with
 * alpha-linux-gnu-gcc offsetof/sizeof). */
#include "guest/syscall.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a
#define IOBUF (1u << 20)
#define RETRY_NS 100000        /* poll interval for waits no fd can express */

/* Alpha values (asm/socket.h, asm/fcntl.h) that differ from the host's. */
#define A_SOL_SOCKET    0xffff
#define A_SOCK_NONBLOCK 0x40000000
#define A_O_CLOEXEC     0x200000   /* also SOCK_CLOEXEC, EPOLL_CLOEXEC, EFD_/TFD_CLOEXEC */
#define A_O_NONBLOCK    0x4        /* also EFD_NONBLOCK, TFD_NONBLOCK */



/* Blocks t for RETRY_NS of guest time; the call then re-executes. */
static int64_t retry_later(struct os *m, struct task *t)
{
  t->wait_deadline = os_now(m) + RETRY_NS;
  task_block(t, WAIT_TIME);
  return SYS_BLOCK;
}

/* Sets O_NONBLOCK on h for one host call. Returns the flags to restore, or -1. */
static int nb_begin(int h)
{
  int fl = fcntl(h, F_GETFL);
  if (fl < 0 || (fl & O_NONBLOCK)) return -1;
  return fcntl(h, F_SETFL, fl | O_NONBLOCK) ? -1 : fl;
}
static void nb_end(int h, int fl)
{
  int e = errno;
  if (fl >= 0) fcntl(h, F_SETFL, fl);
  errno = e;
}

static bool is_blocking(int h)
{
  int fl = fcntl(h, F_GETFL);
  return fl >= 0 && !(fl & O_NONBLOCK);
}

/* ---- waiting on sockets ---- */

/* Parks t until h is ready for events, honouring SO_RCVTIMEO/SO_SNDTIMEO as a
 * guest-time deadline. Returns SYS_BLOCK, or -EAGAIN when the timeout passed. */
static int64_t sock_block(struct os *m, struct task *t, int h, int events)
{
  struct timeval tv = { 0, 0 };
  socklen_t l = sizeof tv;
  int opt = events & POLLOUT ? SO_SNDTIMEO : SO_RCVTIMEO;
  t->wait_deadline = 0;
  if (!getsockopt(h, SOL_SOCKET, opt, &tv, &l) && (tv.tv_sec || tv.tv_usec)) {
    uint64_t now = os_now(m);
    if (!t->sleep_deadline)
      t->sleep_deadline = now + (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000;
    if (now >= t->sleep_deadline) return -EAGAIN;
    t->wait_deadline = t->sleep_deadline;
  }
  t->wait_fd = h;
  t->wait_events = events;
  task_block(t, WAIT_FD);
  return SYS_BLOCK;
}

/* Returns 0 if the caller may make its non-waiting host call now, else what
 * sock_block returned. dontwait: the guest asked not to wait (MSG_DONTWAIT). */
static int64_t sock_wait(struct os *m, struct task *t, int h, int events, bool dontwait)
{
  if (dontwait || !is_blocking(h)) return 0;
  struct pollfd p = { .fd = h, .events = (short)events };
  if (poll(&p, 1, 0) != 0) {
    t->sleep_deadline = 0;
    t->wait_deadline = 0;
    return 0;
  }
  return sock_block(m, t, h, events);
}

/* ---- socket addresses ---- */

/* A guest socket address read into host memory. sockaddr is the same on Alpha. */
struct gaddr {
  struct sockaddr_storage ss;
  socklen_t len;
  bool rel_unix;   /* an AF_UNIX path relative to the guest's cwd */
};

/* Reads len bytes of address at addr. Returns 0 or a negative errno. */
static int addr_in(struct task *t, uint64_t addr, uint64_t len, struct gaddr *ga)
{
  memset(ga, 0, sizeof *ga);
  if (len > sizeof ga->ss) return -EINVAL;
  if (len && sys_get(t, addr, &ga->ss, (size_t)len)) return -EFAULT;
  ga->len = (socklen_t)len;
  const struct sockaddr_un *un = (const struct sockaddr_un *)&ga->ss;
  ga->rel_unix = un->sun_family == AF_UNIX && len > offsetof(struct sockaddr_un, sun_path) &&
                 un->sun_path[0] && un->sun_path[0] != '/';
  return 0;
}

/* Writes a host address of hlen bytes to the guest (addr, *lenp), truncated to
 * the guest's buffer; *lenp gets the full length, as the kernel does. */
static int addr_out(struct task *t, uint64_t addr, uint64_t lenp, const void *ss, socklen_t hlen)
{
  if (!addr || !lenp) return 0;
  uint32_t glen;
  if (sys_get(t, lenp, &glen, 4)) return -EFAULT;
  if ((int32_t)glen < 0) return -EINVAL;
  if (sys_put(t, addr, ss, glen < hlen ? glen : hlen)) return -EFAULT;
  glen = hlen;
  return sys_put(t, lenp, &glen, 4);
}

/* Switches the host's cwd to the guest process's for an AF_UNIX path relative to
 * it (bind, connect, sendto). Returns the fd to go back with, or -1. */
static int cwd_enter(struct task *t, const struct gaddr *ga)
{
  if (!ga || !ga->rel_unix) return -1;
  int saved = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (saved >= 0 && fchdir(t->proc->cwd_fd)) { close(saved); return -1; }
  return saved;
}
static void cwd_leave(int saved)
{
  if (saved < 0) return;
  int e = errno;
  if (fchdir(saved)) errno = e;
  close(saved);
  errno = e;
}

/* ---- socket, socketpair, bind, connect, listen, accept ---- */

/* Splits an Alpha socket type into host type and flags; -1 on unknown bits. */
static int sock_type(uint64_t type, bool *cloexec)
{
  if (type & ~(uint64_t)(0xf | A_SOCK_NONBLOCK | A_O_CLOEXEC)) return -1;
  *cloexec = type & A_O_CLOEXEC;
  return (int)(type & 0xf) | SOCK_CLOEXEC | (type & A_SOCK_NONBLOCK ? SOCK_NONBLOCK : 0);
}

static int64_t sys_socket(ARGS)
{
  UNUSED;
  bool ce;
  int type = sock_type(a[1], &ce);
  if (type < 0) return -EINVAL;
  return sys_install(t, socket((int)a[0], type, (int)a[2]), ce);
}

static int64_t sys_socketpair(ARGS)
{
  UNUSED;
  bool ce;
  int type = sock_type(a[1], &ce), sv[2];
  if (type < 0) return -EINVAL;
  if (socketpair((int)a[0], type, (int)a[2], sv)) return -errno;
  int out[2];
  int e = sys_install_pair(t, sv, ce, out);
  return e ? e : sys_put(t, a[3], out, sizeof out);
}

static int64_t sys_bind(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gaddr ga;
  int e = addr_in(t, a[1], a[2], &ga);
  if (e) return e;
  int c = cwd_enter(t, &ga);
  int r = bind(h, (struct sockaddr *)&ga.ss, ga.len);
  cwd_leave(c);
  return r ? -errno : 0;
}

/* connect: AF_UNIX sockets connect without the host waiting (a full backlog is
 * retried later); inet connects are loopback-only and finish at once. */
static int64_t sys_connect(ARGS)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gaddr ga;
  int e = addr_in(t, a[1], a[2], &ga);
  if (e) return e;
  bool unix_sock = ga.ss.ss_family == AF_UNIX;
  int fl = unix_sock ? nb_begin(h) : -1;
  int c = cwd_enter(t, &ga);
  int r = connect(h, (struct sockaddr *)&ga.ss, ga.len);
  cwd_leave(c);
  nb_end(h, fl);
  if (r && errno == EAGAIN && fl >= 0) return retry_later(m, t);
  return r ? -errno : 0;
}

static int64_t sys_listen(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  return listen(h, (int)a[1]) ? -errno : 0;
}

static int64_t do_accept(struct os *m, struct task *t, const uint64_t *a, uint64_t flags)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  if (flags & ~(uint64_t)(A_SOCK_NONBLOCK | A_O_CLOEXEC)) return -EINVAL;
  int64_t w = sock_wait(m, t, h, POLLIN, false);
  if (w) return w;
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int fl = nb_begin(h);
  int n = accept4(h, (struct sockaddr *)&ss, &len,
                  SOCK_CLOEXEC | (flags & A_SOCK_NONBLOCK ? SOCK_NONBLOCK : 0));
  nb_end(h, fl);
  if (n < 0) return errno == EAGAIN && fl >= 0 ? sock_block(m, t, h, POLLIN) : -errno;
  int64_t g = sys_install(t, n, flags & A_O_CLOEXEC);
  if (g < 0) return g;
  int e = addr_out(t, a[1], a[2], &ss, len);
  return e ? e : g;
}
static int64_t sys_accept(ARGS) { return do_accept(m, t, a, 0); }
static int64_t sys_accept4(ARGS) { return do_accept(m, t, a, a[3]); }

static int64_t do_sockname(struct task *t, const uint64_t *a, bool peer)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int r = peer ? getpeername(h, (struct sockaddr *)&ss, &len) : getsockname(h, (struct sockaddr *)&ss, &len);
  if (r) return -errno;
  return addr_out(t, a[1], a[2], &ss, len);
}
static int64_t sys_getsockname(ARGS) { UNUSED; return do_sockname(t, a, false); }
static int64_t sys_getpeername(ARGS) { UNUSED; return do_sockname(t, a, true); }

static int64_t sys_shutdown(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  return shutdown(h, (int)a[1]) ? -errno : 0;
}

/* ---- send and receive ---- */

/* A guest message gathered into (or to be scattered from) one host buffer. */
struct gmsg {
  struct msghdr hm;
  struct iovec iov;
  struct gaddr name;
  uint64_t giov, niov;       /* guest iovec array */
  uint64_t gname, gnamelen;  /* recv: where the source address goes */
  uint64_t gctl;             /* guest control buffer */
  uint8_t *ctl;
};

static void gmsg_free(struct gmsg *g)
{
  free(g->iov.iov_base);
  free(g->ctl);
}

/* Sizes the host buffer for niov guest iovecs at giov (capped at IOBUF);
 * with gather, copies their bytes in. Returns 0 or a negative errno. */
static int gmsg_iov(struct task *t, struct gmsg *g, uint64_t giov, uint64_t niov, bool gather)
{
  if (niov > 1024) return -EMSGSIZE;
  g->giov = giov;
  g->niov = niov;
  size_t total = 0;
  for (uint64_t i = 0; i < niov && total < IOBUF; i++) {
    uint64_t v[2];
    if (sys_get(t, giov + 16 * i, v, sizeof v)) return -EFAULT;
    if ((int64_t)v[1] < 0) return -EINVAL;
    total += v[1] > IOBUF ? IOBUF : (size_t)v[1];
  }
  if (total > IOBUF) total = IOBUF;
  g->iov.iov_base = malloc(total ? total : 1);
  if (!g->iov.iov_base) return -ENOMEM;
  g->iov.iov_len = total;
  g->hm.msg_iov = &g->iov;
  g->hm.msg_iovlen = 1;
  size_t done = 0;
  for (uint64_t i = 0; gather && i < niov && done < total; i++) {
    uint64_t v[2];
    if (sys_get(t, giov + 16 * i, v, sizeof v)) return -EFAULT;
    size_t n = v[1] < total - done ? (size_t)v[1] : total - done;
    if (n && sys_get(t, v[0], (uint8_t *)g->iov.iov_base + done, n)) return -EFAULT;
    done += n;
  }
  return 0;
}

/* Copies n received bytes out to the guest iovecs. */
static int gmsg_scatter(struct task *t, const struct gmsg *g, size_t n)
{
  size_t done = 0;
  for (uint64_t i = 0; i < g->niov && done < n; i++) {
    uint64_t v[2];
    if (sys_get(t, g->giov + 16 * i, v, sizeof v)) return -EFAULT;
    size_t k = v[1] < n - done ? (size_t)v[1] : n - done;
    if (k && sys_put(t, v[0], (uint8_t *)g->iov.iov_base + done, k)) return -EFAULT;
    done += k;
  }
  return 0;
}

/* Translates outgoing control messages in place: SOL_SOCKET's number, guest fds
 * of SCM_RIGHTS to host fds, the guest pid of SCM_CREDENTIALS to the host's. */
static int ctl_to_host(struct task *t, struct msghdr *hm)
{
  const uint8_t *end = (const uint8_t *)hm->msg_control + hm->msg_controllen;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(hm); c; c = CMSG_NXTHDR(hm, c)) {
    if (c->cmsg_len > (size_t)(end - (const uint8_t *)c)) return -EINVAL;
    if (c->cmsg_level == A_SOL_SOCKET) c->cmsg_level = SOL_SOCKET;
    else if (c->cmsg_level == SOL_SOCKET) return -EINVAL;   /* IPPROTO_ICMP on Alpha */
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_len < CMSG_LEN(0)) continue;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / 4;
    int32_t *v = (int32_t *)CMSG_DATA(c);
    if (c->cmsg_type == SCM_RIGHTS) {
      for (size_t i = 0; i < n; i++) {
        int h = fdt_host(t, v[i]);
        if (h < 0) return -EBADF;
        v[i] = h;
      }
    } else if (c->cmsg_type == SCM_CREDENTIALS && n >= 3 && v[0] == t->proc->pid) {
      v[0] = getpid();
    }
  }
  return 0;
}

/* Translates received control messages in place; fds of SCM_RIGHTS get guest
 * fds (close-on-exec with MSG_CMSG_CLOEXEC). Sets MSG_CTRUNC when out of fds. */
static void ctl_from_host(struct task *t, struct msghdr *hm, bool cloexec)
{
  for (struct cmsghdr *c = CMSG_FIRSTHDR(hm); c; c = CMSG_NXTHDR(hm, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    c->cmsg_level = A_SOL_SOCKET;
    size_t n = c->cmsg_len >= CMSG_LEN(0) ? (c->cmsg_len - CMSG_LEN(0)) / 4 : 0;
    int32_t *v = (int32_t *)CMSG_DATA(c);
    if (c->cmsg_type == SCM_RIGHTS) {
      size_t i = 0;
      for (; i < n; i++) {
        int64_t g = sys_install(t, v[i], cloexec);
        if (g < 0) break;
        v[i] = (int32_t)g;
      }
      if (i < n) {
        for (size_t k = i + 1; k < n; k++) close(v[k]);
        c->cmsg_len = CMSG_LEN(4 * i);
        hm->msg_flags |= MSG_CTRUNC;
      }
    } else if (c->cmsg_type == SCM_CREDENTIALS && n >= 3 && v[0] == getpid()) {
      v[0] = t->proc->pid;
    }
  }
}

/* Sends g on h. Blocking sends of stream data may return a short count. */
static int64_t send_core(struct os *m, struct task *t, int h, struct gmsg *g, uint64_t flags)
{
  bool dontwait = flags & MSG_DONTWAIT;
  int64_t w = sock_wait(m, t, h, POLLOUT, dontwait);
  if (w) return w;
  int c = cwd_enter(t, g->hm.msg_name ? &g->name : NULL);
  ssize_t r = sendmsg(h, &g->hm, (int)flags | MSG_DONTWAIT | MSG_NOSIGNAL);
  cwd_leave(c);
  if (r >= 0) return r;
  if (errno == EAGAIN && !dontwait && is_blocking(h)) return sock_block(m, t, h, POLLOUT);
  if (errno == EPIPE && !(flags & MSG_NOSIGNAL)) signal_send(m, t, NULL, GSIG_PIPE, 0, 0, t->proc->pid);
  return -errno;
}

/* True if a blocking MSG_WAITALL receive must wait for more than is queued
 * (stream sockets only: datagram sockets ignore the flag). */
static bool waitall_short(int h, struct gmsg *g)
{
  int type = 0;
  socklen_t l = sizeof type;
  if (getsockopt(h, SOL_SOCKET, SO_TYPE, &type, &l) || type != SOCK_STREAM) return false;
  ssize_t p = recv(h, g->iov.iov_base, g->iov.iov_len, MSG_PEEK | MSG_DONTWAIT);
  if (p <= 0 || (size_t)p >= g->iov.iov_len) return false;
  struct pollfd pf = { .fd = h, .events = POLLRDHUP };
  return poll(&pf, 1, 0) == 0;
}

/* Receives into g from h; returns the byte count (scattered by the caller). */
static int64_t recv_core(struct os *m, struct task *t, int h, struct gmsg *g, uint64_t flags)
{
  bool dontwait = flags & MSG_DONTWAIT, blocking = !dontwait && is_blocking(h);
  int64_t w = sock_wait(m, t, h, POLLIN, dontwait);
  if (w) return w;
  if ((flags & MSG_WAITALL) && blocking && waitall_short(h, g)) return retry_later(m, t);
  ssize_t r = recvmsg(h, &g->hm, (int)(flags & ~(uint64_t)MSG_WAITALL) | MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (r < 0) return errno == EAGAIN && blocking ? sock_block(m, t, h, POLLIN) : -errno;
  return r;
}

static int64_t do_sendto(struct os *m, struct task *t, const uint64_t *a, uint64_t addr, uint64_t alen)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gmsg g;
  memset(&g, 0, sizeof g);
  uint64_t v[2] = { a[1], a[2] > IOBUF ? IOBUF : a[2] };
  g.iov.iov_len = (size_t)v[1];
  g.iov.iov_base = malloc(v[1] ? v[1] : 1);
  g.hm.msg_iov = &g.iov;
  g.hm.msg_iovlen = 1;
  int64_t r = g.iov.iov_base ? 0 : -ENOMEM;
  if (!r && v[1] && sys_get(t, v[0], g.iov.iov_base, (size_t)v[1])) r = -EFAULT;
  if (!r && addr) {
    r = addr_in(t, addr, alen, &g.name);
    g.hm.msg_name = &g.name.ss;
    g.hm.msg_namelen = g.name.len;
  }
  if (!r) r = send_core(m, t, h, &g, a[3]);
  gmsg_free(&g);
  return r;
}
static int64_t sys_sendto(ARGS) { return do_sendto(m, t, a, a[4], a[5]); }
static int64_t sys_send(ARGS) { return do_sendto(m, t, a, 0, 0); }

static int64_t do_recvfrom(struct os *m, struct task *t, const uint64_t *a, uint64_t addr, uint64_t alenp)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gmsg g;
  memset(&g, 0, sizeof g);
  size_t len = a[2] > IOBUF ? IOBUF : (size_t)a[2];
  g.iov.iov_len = len;
  g.iov.iov_base = malloc(len ? len : 1);
  g.hm.msg_iov = &g.iov;
  g.hm.msg_iovlen = 1;
  g.hm.msg_name = &g.name.ss;
  g.hm.msg_namelen = sizeof g.name.ss;
  int64_t r = g.iov.iov_base ? recv_core(m, t, h, &g, a[3]) : -ENOMEM;
  if (r >= 0) {
    size_t n = (size_t)r < len ? (size_t)r : len;
    int e = n && sys_put(t, a[1], g.iov.iov_base, n) ? -EFAULT : 0;
    if (!e && addr) e = addr_out(t, addr, alenp, &g.name.ss, g.hm.msg_namelen);
    if (e) r = e;
  }
  gmsg_free(&g);
  return r;
}
static int64_t sys_recvfrom(ARGS) { return do_recvfrom(m, t, a, a[4], a[5]); }
static int64_t sys_recv(ARGS) { return do_recvfrom(m, t, a, 0, 0); }

/* struct msghdr on Alpha (56 bytes, as x86-64): name, namelen, iov, iovlen,
 * control, controllen, flags at 0, 8, 16, 24, 32, 40, 48. */
enum { MH_NAME = 0, MH_NAMELEN = 8, MH_IOV = 16, MH_IOVLEN = 24, MH_CTL = 32, MH_CTLLEN = 40,
       MH_FLAGS = 48, MH_SIZE = 56 };

/* Reads guest msghdr gaddr into g (name, iovecs, control). Returns 0 or -errno. */
static int gmsg_read(struct task *t, uint64_t gaddr, struct gmsg *g, bool sending)
{
  uint8_t mh[MH_SIZE];
  if (sys_get(t, gaddr, mh, sizeof mh)) return -EFAULT;
  uint64_t name, iov, niov, ctl, ctllen;
  uint32_t namelen;
  memcpy(&name, mh + MH_NAME, 8);
  memcpy(&namelen, mh + MH_NAMELEN, 4);
  memcpy(&iov, mh + MH_IOV, 8);
  memcpy(&niov, mh + MH_IOVLEN, 8);
  memcpy(&ctl, mh + MH_CTL, 8);
  memcpy(&ctllen, mh + MH_CTLLEN, 8);
  int e = gmsg_iov(t, g, iov, niov, sending);
  if (e) return e;
  if (name && sending) {
    if ((e = addr_in(t, name, namelen, &g->name))) return e;
    g->hm.msg_name = &g->name.ss;
    g->hm.msg_namelen = g->name.len;
  } else if (name) {
    g->gname = name;
    g->gnamelen = gaddr + MH_NAMELEN;
    g->hm.msg_name = &g->name.ss;
    g->hm.msg_namelen = sizeof g->name.ss;
  }
  if (ctl && ctllen) {
    if (ctllen > 65536) return sending ? -ENOBUFS : -EINVAL;
    g->gctl = ctl;
    g->ctl = calloc(1, (size_t)ctllen);
    if (!g->ctl) return -ENOMEM;
    if (sending && sys_get(t, ctl, g->ctl, (size_t)ctllen)) return -EFAULT;
    g->hm.msg_control = g->ctl;
    g->hm.msg_controllen = (size_t)ctllen;
    if (sending) return ctl_to_host(t, &g->hm);
  }
  return 0;
}

static int64_t sys_sendmsg(ARGS)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gmsg g;
  memset(&g, 0, sizeof g);
  int64_t r = gmsg_read(t, a[1], &g, true);
  if (!r) r = send_core(m, t, h, &g, a[2]);
  gmsg_free(&g);
  return r;
}

/* Writes what recvmsg returns besides data: the name, control and flags. */
static int gmsg_finish(struct task *t, uint64_t gaddr, struct gmsg *g, bool cloexec)
{
  if (g->gname) {
    uint32_t glen;
    if (sys_get(t, g->gnamelen, &glen, 4)) return -EFAULT;
    uint32_t n = g->hm.msg_namelen < glen ? g->hm.msg_namelen : glen;
    if (n && sys_put(t, g->gname, &g->name.ss, n)) return -EFAULT;
    glen = g->hm.msg_namelen;
    if (sys_put(t, g->gnamelen, &glen, 4)) return -EFAULT;
  }
  uint64_t cl = 0;
  if (g->ctl) {
    ctl_from_host(t, &g->hm, cloexec);
    cl = g->hm.msg_controllen;
    if (cl && sys_put(t, g->gctl, g->ctl, (size_t)cl)) return -EFAULT;
  }
  /* The host echoes our MSG_CMSG_CLOEXEC in msg_flags; the kernel echoes the guest's. */
  int32_t fl = (g->hm.msg_flags & ~MSG_CMSG_CLOEXEC) | (cloexec ? MSG_CMSG_CLOEXEC : 0);
  if (sys_put(t, gaddr + MH_CTLLEN, &cl, 8) || sys_put(t, gaddr + MH_FLAGS, &fl, 4)) return -EFAULT;
  return 0;
}

static int64_t sys_recvmsg(ARGS)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gmsg g;
  memset(&g, 0, sizeof g);
  int64_t r = gmsg_read(t, a[1], &g, false);
  if (!r) r = recv_core(m, t, h, &g, a[2]);
  if (r >= 0) {
    int e = gmsg_scatter(t, &g, (size_t)r < g.iov.iov_len ? (size_t)r : g.iov.iov_len);
    if (!e) e = gmsg_finish(t, a[1], &g, a[2] & MSG_CMSG_CLOEXEC);
    if (e) r = e;
  }
  gmsg_free(&g);
  return r;
}

/* ---- socket options ---- */

/* SOL_SOCKET option numbers: Alpha (OSF) -> host, where they differ. The
 * numbers 11, 12, 14, 25-29, 34-37 and from 40 up are the same on both. */
static const struct { int alpha, host; } so_opts[] = {
  { 0x0001, SO_DEBUG }, { 0x0004, SO_REUSEADDR }, { 0x0008, SO_KEEPALIVE },
  { 0x0010, SO_DONTROUTE }, { 0x0020, SO_BROADCAST }, { 0x0080, SO_LINGER },
  { 0x0100, SO_OOBINLINE }, { 0x0200, SO_REUSEPORT }, { 0x1001, SO_SNDBUF },
  { 0x1002, SO_RCVBUF }, { 0x1007, SO_ERROR }, { 0x1008, SO_TYPE },
  { 0x100a, SO_SNDBUFFORCE }, { 0x100b, SO_RCVBUFFORCE }, { 0x1010, SO_RCVLOWAT },
  { 0x1011, SO_SNDLOWAT }, { 0x1012, SO_RCVTIMEO }, { 0x1013, SO_SNDTIMEO },
  { 0x1014, SO_ACCEPTCONN }, { 0x1028, SO_PROTOCOL }, { 0x1029, SO_DOMAIN },
  { 17, SO_PASSCRED }, { 18, SO_PEERCRED }, { 19, SO_SECURITY_AUTHENTICATION },
  { 20, SO_SECURITY_ENCRYPTION_TRANSPORT }, { 21, SO_SECURITY_ENCRYPTION_NETWORK },
  { 30, SO_PEERSEC },
};

/* Host (level, option) for an Alpha pair; returns false if it has no host meaning
 * or passes guest pointers (socket filters). */
static bool sockopt_to_host(uint64_t level, uint64_t opt, int *hl, int *ho)
{
  *hl = (int)level;
  *ho = (int)opt;
  if (level == SOL_SOCKET) return false;   /* IPPROTO_ICMP on Alpha */
  if (level != A_SOL_SOCKET) return true;
  *hl = SOL_SOCKET;
  for (size_t i = 0; i < sizeof so_opts / sizeof so_opts[0]; i++)
    if ((uint64_t)so_opts[i].alpha == opt) { *ho = so_opts[i].host; return true; }
  if (opt == 26 || (opt >= 50 && opt <= 52)) return false;   /* filters hold pointers */
  return opt == 11 || opt == 12 || opt == 14 || (opt >= 25 && opt <= 29) ||
         (opt >= 34 && opt <= 37) || (opt >= 40 && opt < 0x1000);
}

static int64_t sys_setsockopt(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]), hl, ho;
  if (h < 0) return h;
  if (!sockopt_to_host(a[1], a[2], &hl, &ho)) return -ENOPROTOOPT;
  uint32_t len = (uint32_t)a[4];
  if ((int32_t)len < 0) return -EINVAL;
  if (len > 4096) len = 4096;
  uint8_t buf[4096];
  if (len && sys_get(t, a[3], buf, len)) return -EFAULT;
  return setsockopt(h, hl, ho, a[3] ? buf : NULL, len) ? -errno : 0;
}

static int64_t sys_getsockopt(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]), hl, ho;
  if (h < 0) return h;
  if (!sockopt_to_host(a[1], a[2], &hl, &ho)) return -ENOPROTOOPT;
  uint32_t glen;
  if (sys_get(t, a[4], &glen, 4)) return -EFAULT;
  if ((int32_t)glen < 0) return -EINVAL;
  uint8_t buf[4096];
  socklen_t len = glen > sizeof buf ? sizeof buf : glen;
  if (getsockopt(h, hl, ho, buf, &len)) return -errno;
  if (hl == SOL_SOCKET && ho == SO_ERROR && len >= 4) {
    int32_t e;
    memcpy(&e, buf, 4);
    e = errno_to_alpha(e);
    memcpy(buf, &e, 4);
  } else if (hl == SOL_SOCKET && ho == SO_PEERCRED && len >= 4) {
    int32_t pid;
    memcpy(&pid, buf, 4);
    if (pid == getpid()) pid = t->proc->pid;   /* every guest process is this host one */
    memcpy(buf, &pid, 4);
  }
  if (len && sys_put(t, a[3], buf, len)) return -EFAULT;
  glen = len;
  return sys_put(t, a[4], &glen, 4);
}

/* ---- epoll ---- */
/* struct epoll_event is 16 bytes on Alpha (data at offset 8); x86-64's is
 * packed into 12. Event bits are the same. */

static int64_t sys_epoll_create(ARGS)
{
  UNUSED;
  if ((int32_t)a[0] <= 0) return -EINVAL;
  return sys_install(t, epoll_create1(EPOLL_CLOEXEC), false);
}

static int64_t sys_epoll_create1(ARGS)
{
  UNUSED;
  if (a[0] & ~(uint64_t)A_O_CLOEXEC) return -EINVAL;
  return sys_install(t, epoll_create1(EPOLL_CLOEXEC), a[0] & A_O_CLOEXEC);
}

static int64_t sys_epoll_ctl(ARGS)
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

static int64_t sys_epoll_wait(ARGS)
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

static int64_t sys_epoll_pwait(ARGS) { return epoll_masked(m, t, a, ms_to_ns(a[3])); }

static int64_t sys_epoll_pwait2(ARGS)
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

/* ---- eventfd, timerfd, memfd ---- */

static int64_t do_eventfd(struct task *t, uint64_t initval, uint64_t flags)
{
  if (flags & ~(uint64_t)(1 | A_O_NONBLOCK | A_O_CLOEXEC)) return -EINVAL;
  int hf = EFD_CLOEXEC | (flags & 1 ? EFD_SEMAPHORE : 0) | (flags & A_O_NONBLOCK ? EFD_NONBLOCK : 0);
  return sys_install(t, eventfd((unsigned)initval, hf), flags & A_O_CLOEXEC);
}
static int64_t sys_eventfd(ARGS) { UNUSED; return do_eventfd(t, a[0], 0); }
static int64_t sys_eventfd2(ARGS) { UNUSED; return do_eventfd(t, a[0], a[1]); }

/* timerfds are host timerfds: they expire in host time, not guest time, and a
 * TFD_TIMER_ABSTIME value is turned into one relative to the guest clock. */
static int64_t sys_timerfd_create(ARGS)
{
  UNUSED;
  if (a[1] & ~(uint64_t)(A_O_NONBLOCK | A_O_CLOEXEC)) return -EINVAL;
  int hf = TFD_CLOEXEC | (a[1] & A_O_NONBLOCK ? TFD_NONBLOCK : 0);
  return sys_install(t, timerfd_create((int)a[0], hf), a[1] & A_O_CLOEXEC);
}

static uint64_t guest_clock(struct os *m, int clk)
{
  bool real = clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_ALARM;
  return os_now(m) + (real ? (uint64_t)m->epoch_ns : 0);
}

/* The clock a host timerfd counts (its fdinfo says), CLOCK_MONOTONIC if unknown. */
static int timerfd_clock(int h)
{
  char path[64], line[128];
  int clk = CLOCK_MONOTONIC;
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", h);
  FILE *f = fopen(path, "re");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "clockid: %d", &clk) == 1) break;
  if (f) fclose(f);
  return clk;
}

static int64_t sys_timerfd_settime(ARGS)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct itimerspec nv, ov;
  if (sys_get(t, a[2], &nv, sizeof nv)) return -EFAULT;
  int flags = (int)(a[1] & TFD_TIMER_CANCEL_ON_SET);
  if ((a[1] & TFD_TIMER_ABSTIME) && (nv.it_value.tv_sec || nv.it_value.tv_nsec)) {
    uint64_t at = (uint64_t)nv.it_value.tv_sec * 1000000000ull + (uint64_t)nv.it_value.tv_nsec;
    uint64_t now = guest_clock(m, timerfd_clock(h));
    uint64_t rel = at > now ? at - now : 1;
    nv.it_value.tv_sec = (time_t)(rel / 1000000000ull);
    nv.it_value.tv_nsec = (long)(rel % 1000000000ull);
  }
  if (timerfd_settime(h, flags, &nv, &ov)) return -errno;
  return a[3] ? sys_put(t, a[3], &ov, sizeof ov) : 0;
}

static int64_t sys_timerfd_gettime(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct itimerspec v;
  if (timerfd_gettime(h, &v)) return -errno;
  return sys_put(t, a[1], &v, sizeof v);
}

static int64_t sys_memfd_create(ARGS)
{
  UNUSED;
  char name[256];
  long n = mm_read_str(t->mm, a[0], name, sizeof name);
  if (n < 0) return n == PM_EINVAL ? -EINVAL : -EFAULT;
  if (a[1] & ~(uint64_t)(MFD_CLOEXEC | MFD_ALLOW_SEALING)) return -EINVAL;
  return sys_install(t, memfd_create(name, (unsigned)a[1] | MFD_CLOEXEC), a[1] & MFD_CLOEXEC);
}

/* ---- files ---- */

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
static int64_t sys_statfs(ARGS) { return do_statfs(m, t, false, a[0], a[1], false); }
static int64_t sys_fstatfs(ARGS) { return do_statfs(m, t, true, a[0], a[1], false); }
static int64_t sys_statfs64(ARGS)
{
  return a[1] != STATFS64_SIZE ? -EINVAL : do_statfs(m, t, false, a[0], a[2], true);
}
static int64_t sys_fstatfs64(ARGS)
{
  return a[1] != STATFS64_SIZE ? -EINVAL : do_statfs(m, t, true, a[0], a[2], true);
}

static int64_t sys_statx(ARGS)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, (int32_t)a[0], a[1], &d, p);
  if (e) return e;
  /* AT_SYMLINK_NOFOLLOW, AT_NO_AUTOMOUNT, AT_EMPTY_PATH, AT_STATX_*: same values */
  if (a[2] & ~(uint64_t)0x7900) return -EINVAL;
  struct statx sx;
  if (statx(d, p, (int)a[2], (unsigned)a[3], &sx)) return -errno;
  return sys_put(t, a[4], &sx, sizeof sx);
}

/* getdents (305) fills the old struct linux_dirent: d_ino, d_off, d_reclen,
 * d_name, then d_type in the record's last byte. Its records have exactly the
 * size of linux_dirent64's (both align namelen + 20 to 8), so one host
 * getdents64 of the guest's count converts record by record. */
static int64_t sys_getdents(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  size_t n = a[2] > IOBUF ? IOBUF : (size_t)a[2];
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

/* mknod/mknodat make FIFOs, sockets and regular files; not device nodes. */
static int64_t do_mknodat(struct os *m, struct task *t, int64_t dfd, uint64_t path, uint64_t mode)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, dfd, path, &d, p);
  if (e) return e;
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
static int64_t sys_mknod(ARGS) { return do_mknodat(m, t, -100, a[0], a[1]); }
static int64_t sys_mknodat(ARGS) { return do_mknodat(m, t, (int32_t)a[0], a[1], a[2]); }

static int64_t sys_lchown(ARGS)
{
  char p[PATH_MAX];
  int d, e = sys_at_path(m, t, -100, a[0], &d, p);
  if (e) return e;
  return fchownat(d, p, (uid_t)a[1], (gid_t)a[2], AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/* sendfile: at most IOBUF bytes per call; a full output waits in the scheduler. */
static int64_t sys_sendfile(ARGS)
{
  int out = sys_hostfd(t, a[0]), in = sys_hostfd(t, a[1]);
  if (out < 0) return out;
  if (in < 0) return in;
  off_t off = 0;
  if (a[2] && sys_get(t, a[2], &off, 8)) return -EFAULT;
  int64_t w = sock_wait(m, t, out, POLLOUT, false);
  if (w) return w;
  int fl = nb_begin(out);
  ssize_t r = sendfile(out, in, a[2] ? &off : NULL, a[3] > IOBUF ? IOBUF : (size_t)a[3]);
  nb_end(out, fl);
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

static int64_t sys_copy_file_range(ARGS)
{
  UNUSED;
  int in = sys_hostfd(t, a[0]), out = sys_hostfd(t, a[2]);
  if (in < 0) return in;
  if (out < 0) return out;
  off_t oin = 0, oout = 0;
  if (a[1] && sys_get(t, a[1], &oin, 8)) return -EFAULT;
  if (a[3] && sys_get(t, a[3], &oout, 8)) return -EFAULT;
  ssize_t r = copy_file_range(in, a[1] ? &oin : NULL, out, a[3] ? &oout : NULL,
                              a[4] > IOBUF ? IOBUF : (size_t)a[4], (unsigned)a[5]);
  if (r < 0) return -errno;
  if ((a[1] && sys_put(t, a[1], &oin, 8)) || (a[3] && sys_put(t, a[3], &oout, 8))) return -EFAULT;
  return r;
}

static int64_t sys_fallocate(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  return fallocate(h, (int)a[1], (off_t)a[2], (off_t)a[3]) ? -errno : 0;
}

/* close_range(first, last, flags): CLOSE_RANGE_UNSHARE 2, CLOSE_RANGE_CLOEXEC 4. */
static int64_t sys_close_range(ARGS)
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

/* flock always succeeds: every guest process lives in this one host process,
 * where flock on two opens of one file would block the emulator itself. */
static int64_t sys_flock(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  uint64_t op = a[1] & ~(uint64_t)LOCK_NB;
  return op == LOCK_SH || op == LOCK_EX || op == LOCK_UN ? 0 : -EINVAL;
}

/* sync/syncfs: the data already reached the host kernel; durability is not
 * modelled. fadvise is advice. */
static int64_t sys_sync(ARGS) { UNUSED; return 0; }
static int64_t sys_fd_ok(ARGS)
{
  UNUSED;
  int h = sys_hostfd(t, a[0]);
  return h < 0 ? h : 0;
}

/* ---- memory ---- */

/* mincore: a mapped page is resident once touched (it has host memory). */
static int64_t sys_mincore(ARGS)
{
  UNUSED;
  if (a[0] & GUEST_PAGE_MASK) return -EINVAL;
  uint64_t pages = (a[1] + GUEST_PAGE_MASK) >> GUEST_PAGE_SHIFT;
  if (a[0] + a[1] < a[0] || a[0] + a[1] > GUEST_TASK_SIZE) return -ENOMEM;
  uint8_t v[512];
  for (uint64_t i = 0; i < pages; i += sizeof v) {
    uint64_t k = pages - i < sizeof v ? pages - i : sizeof v;
    for (uint64_t j = 0; j < k; j++) {
      struct guest_page *pg = mm_page(t->mm, a[0] + ((i + j) << GUEST_PAGE_SHIFT));
      if (!pg || !pg->prot) return -ENOMEM;
      v[j] = pg->host ? 1 : 0;
    }
    if (sys_put(t, a[2] + i, v, (size_t)k)) return -EFAULT;
  }
  return 0;
}

/* ---- identity ---- */

static int64_t sys_getgroups(ARGS)
{
  UNUSED;
  int n = getgroups(0, NULL);
  if (n < 0) return -errno;
  if ((int32_t)a[0] < 0) return -EINVAL;
  if (a[0] == 0) return n;
  if ((int32_t)a[0] < n) return -EINVAL;
  gid_t *g = malloc(sizeof *g * (size_t)(n ? n : 1));
  if (!g) return -ENOMEM;
  n = getgroups(n, g);
  int e = n < 0 ? -errno : 0;
  for (int i = 0; !e && i < n; i++) {
    uint32_t v = g[i];   /* gid_t is 32 bits on both */
    e = sys_put(t, a[1] + 4 * (uint64_t)i, &v, 4);
  }
  free(g);
  return e ? e : n;
}

/* setgroups pretends for root (the host's groups stay as they are). */
static int64_t sys_setgroups(ARGS)
{
  UNUSED;
  if (a[0] > 65536) return -EINVAL;
  return geteuid() == 0 ? 0 : -EPERM;
}

static int64_t do_getres(struct task *t, const uint64_t *a, const uint32_t v[3])
{
  for (int i = 0; i < 3; i++)
    if (sys_put(t, a[i], &v[i], 4)) return -EFAULT;
  return 0;
}
static int64_t sys_getresuid(ARGS)
{
  UNUSED;
  uint32_t v[3] = { getuid(), geteuid(), geteuid() };
  return do_getres(t, a, v);
}
static int64_t sys_getresgid(ARGS)
{
  UNUSED;
  uint32_t v[3] = { getgid(), getegid(), getegid() };
  return do_getres(t, a, v);
}

static int64_t sys_enosys(ARGS) { UNUSED; return -ENOSYS; }

/* Alpha numbers from asm/unistd_32.h (Linux 6.1). */
sys_fn sys_lookup_misc(uint64_t nr)
{
  switch (nr) {
  case 14: return sys_mknod;
  case 36: return sys_sync;
  case 79: return sys_getgroups;
  case 80: return sys_setgroups;
  case 97: return sys_socket;
  case 98: return sys_connect;
  case 99: return sys_accept;
  case 101: return sys_send;
  case 102: return sys_recv;
  case 104: return sys_bind;
  case 105: return sys_setsockopt;
  case 106: return sys_listen;
  case 113: return sys_recvmsg;
  case 114: return sys_sendmsg;
  case 118: return sys_getsockopt;
  case 125: return sys_recvfrom;
  case 131: return sys_flock;
  case 133: return sys_sendto;
  case 134: return sys_shutdown;
  case 135: return sys_socketpair;
  case 141: return sys_getpeername;
  case 150: return sys_getsockname;
  case 208: return sys_lchown;
  case 305: return sys_getdents;
  case 328: return sys_statfs;
  case 329: return sys_fstatfs;
  case 344: return sys_getresuid;
  case 370: return sys_sendfile;
  case 372: return sys_getresgid;
  case 375: return sys_mincore;
  case 407: return sys_epoll_create;
  case 408: return sys_epoll_ctl;
  case 409: return sys_epoll_wait;
  case 413: return sys_fd_ok;          /* fadvise64 */
  case 452: return sys_mknodat;
  case 474: return sys_epoll_pwait;
  case 478: return sys_eventfd;
  case 480: return sys_fallocate;
  case 481: return sys_timerfd_create;
  case 482: return sys_timerfd_settime;
  case 483: return sys_timerfd_gettime;
  case 485: return sys_eventfd2;
  case 486: return sys_epoll_create1;
  case 500: return sys_fd_ok;          /* syncfs */
  case 502: return sys_accept4;
  case 512: return sys_memfd_create;
  case 519: return sys_copy_file_range;
  case 522: return sys_statx;
  case 528: return sys_statfs64;
  case 529: return sys_fstatfs64;
  case 544: return sys_enosys;         /* pidfd_open */
  case 546: return sys_close_range;
  case 551: return sys_epoll_pwait2;
  default: return NULL;
  }
}
