/* Socket system calls. Blocking calls never block the host: they ask it
 * without waiting (MSG_DONTWAIT or a brief O_NONBLOCK) and park the task in the
 * scheduler when nothing is ready, so the call re-executes on wake-up;
 * SO_RCVTIMEO/SO_SNDTIMEO count guest time. SOL_SOCKET and its options differ
 * from x86-64's and are converted; msghdr, cmsghdr, sockaddr and the MSG_*
 * flags are the same on both (checked with alpha-linux-gnu-gcc offsetof/sizeof). */
#include "guest/syscall.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a
#define RETRY_NS 100000        /* poll interval for waits no fd can express */

/* Alpha values (asm/socket.h) that differ from the host's. */
#define A_SOL_SOCKET    0xffff
#define A_SOCK_NONBLOCK 0x40000000

/* Blocks t for RETRY_NS of guest time; the call then re-executes. */
static int64_t retry_later(struct os *m, struct task *t)
{
  t->wait_deadline = os_now(m) + RETRY_NS;
  task_block(t, WAIT_TIME);
  return SYS_BLOCK;
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
int64_t sys_sock_wait(struct os *m, struct task *t, int h, int events, bool dontwait)
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

int64_t sys_socket(ARGS)
{
  UNUSED;
  bool ce;
  int type = sock_type(a[1], &ce);
  if (type < 0) return -EINVAL;
  return sys_install(t, socket((int)a[0], type, (int)a[2]), ce);
}

int64_t sys_socketpair(ARGS)
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

int64_t sys_bind(ARGS)
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
int64_t sys_connect(ARGS)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gaddr ga;
  int e = addr_in(t, a[1], a[2], &ga);
  if (e) return e;
  bool unix_sock = ga.ss.ss_family == AF_UNIX;
  int fl = unix_sock ? sys_nb_begin(h) : -1;
  int c = cwd_enter(t, &ga);
  int r = connect(h, (struct sockaddr *)&ga.ss, ga.len);
  cwd_leave(c);
  sys_nb_end(h, fl);
  if (r && errno == EAGAIN && fl >= 0) return retry_later(m, t);
  return r ? -errno : 0;
}

int64_t sys_listen(ARGS)
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
  int64_t w = sys_sock_wait(m, t, h, POLLIN, false);
  if (w) return w;
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  int fl = sys_nb_begin(h);
  int n = accept4(h, (struct sockaddr *)&ss, &len,
                  SOCK_CLOEXEC | (flags & A_SOCK_NONBLOCK ? SOCK_NONBLOCK : 0));
  sys_nb_end(h, fl);
  if (n < 0) return errno == EAGAIN && fl >= 0 ? sock_block(m, t, h, POLLIN) : -errno;
  int64_t g = sys_install(t, n, flags & A_O_CLOEXEC);
  if (g < 0) return g;
  int e = addr_out(t, a[1], a[2], &ss, len);
  return e ? e : g;
}
int64_t sys_accept(ARGS) { return do_accept(m, t, a, 0); }
int64_t sys_accept4(ARGS) { return do_accept(m, t, a, a[3]); }

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
int64_t sys_getsockname(ARGS) { UNUSED; return do_sockname(t, a, false); }
int64_t sys_getpeername(ARGS) { UNUSED; return do_sockname(t, a, true); }

int64_t sys_shutdown(ARGS)
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

/* Sizes the host buffer for niov guest iovecs at giov (capped at SYS_IOBUF);
 * with gather, copies their bytes in. Returns 0 or a negative errno. */
static int gmsg_iov(struct task *t, struct gmsg *g, uint64_t giov, uint64_t niov, bool gather)
{
  if (niov > 1024) return -EMSGSIZE;
  g->giov = giov;
  g->niov = niov;
  size_t total = 0;
  for (uint64_t i = 0; i < niov && total < SYS_IOBUF; i++) {
    uint64_t v[2];
    if (sys_get(t, giov + 16 * i, v, sizeof v)) return -EFAULT;
    if ((int64_t)v[1] < 0) return -EINVAL;
    total += v[1] > SYS_IOBUF ? SYS_IOBUF : (size_t)v[1];
  }
  if (total > SYS_IOBUF) total = SYS_IOBUF;
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
  int64_t w = sys_sock_wait(m, t, h, POLLOUT, dontwait);
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
  int64_t w = sys_sock_wait(m, t, h, POLLIN, dontwait);
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
  uint64_t v[2] = { a[1], a[2] > SYS_IOBUF ? SYS_IOBUF : a[2] };
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
int64_t sys_sendto(ARGS) { return do_sendto(m, t, a, a[4], a[5]); }
int64_t sys_send(ARGS) { return do_sendto(m, t, a, 0, 0); }

static int64_t do_recvfrom(struct os *m, struct task *t, const uint64_t *a, uint64_t addr, uint64_t alenp)
{
  int h = sys_hostfd(t, a[0]);
  if (h < 0) return h;
  struct gmsg g;
  memset(&g, 0, sizeof g);
  size_t len = a[2] > SYS_IOBUF ? SYS_IOBUF : (size_t)a[2];
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
int64_t sys_recvfrom(ARGS) { return do_recvfrom(m, t, a, a[4], a[5]); }
int64_t sys_recv(ARGS) { return do_recvfrom(m, t, a, 0, 0); }

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

int64_t sys_sendmsg(ARGS)
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

int64_t sys_recvmsg(ARGS)
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

int64_t sys_setsockopt(ARGS)
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

int64_t sys_getsockopt(ARGS)
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
