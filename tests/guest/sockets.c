/* Sockets: AF_UNIX stream and datagram socketpairs (peek, truncation, gather
 * and scatter), SCM_RIGHTS fd passing, a listening AF_UNIX socket served to a
 * forked child and to a thread (blocking accept and MSG_WAITALL receive while
 * the other side runs), non-blocking sockets, SOL_SOCKET options, shutdown and
 * EPIPE, loopback TCP and UDP, epoll on a socket, and statfs of ".". */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t sigpipes;

/* Counts SIGPIPE deliveries. */
static void on_pipe(int sig)
{
    (void)sig;
    sigpipes++;
}

/* Fills *sa with the AF_UNIX address of path; returns its length. */
static socklen_t unix_addr(struct sockaddr_un *sa, const char *path)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    strcpy(sa->sun_path, path);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

/* Returns a listening AF_UNIX stream socket bound to path. */
static int listen_unix(const char *path)
{
    struct sockaddr_un sa;
    socklen_t len = unix_addr(&sa, path);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bind(s, (struct sockaddr *)&sa, len) || listen(s, 4))
        printf("listen %s failed: %s\n", path, strerror(errno));
    return s;
}

/* Returns a stream socket connected to the AF_UNIX socket at path. */
static int connect_unix(const char *path)
{
    struct sockaddr_un sa;
    socklen_t len = unix_addr(&sa, path);
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(c, (struct sockaddr *)&sa, len))
        printf("connect %s failed: %s\n", path, strerror(errno));
    return c;
}

/* Sends fds[0..n) over s with one byte of data. */
static int send_fds(int s, const int *fds, int n)
{
    char byte = 'F';
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = CMSG_SPACE((size_t)n * sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
    memcpy(CMSG_DATA(c), fds, (size_t)n * sizeof(int));
    return (int)sendmsg(s, &mh, 0);
}

/* Receives up to 4 fds from s into fds; returns how many, or -1. */
static int recv_fds(int s, int *fds, int flags)
{
    char byte = 0;
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof u.buf};
    if (recvmsg(s, &mh, flags) != 1 || byte != 'F')
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        return -1;
    int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    memcpy(fds, CMSG_DATA(c), (size_t)n * sizeof(int));
    return n;
}

static void stream_pair(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    send(sv[0], "hello", 5, 0);
    char buf[16] = {0};
    ssize_t p = recv(sv[1], buf, sizeof buf - 1, MSG_PEEK);
    ssize_t r = recv(sv[1], buf, sizeof buf - 1, 0);
    printf("stream pair: peek=%zd recv=%zd '%s'\n", p, r, buf);

    /* sendmsg gathers three pieces; recvmsg scatters into two. */
    struct iovec out[3] = {{"one,", 4}, {"two,", 4}, {"three", 5}};
    struct msghdr mh = {.msg_iov = out, .msg_iovlen = 3};
    ssize_t s = sendmsg(sv[0], &mh, 0);
    char a[6] = {0}, b[16] = {0};
    struct iovec in[2] = {{a, 5}, {b, 15}};
    struct msghdr rh = {.msg_iov = in, .msg_iovlen = 2};
    r = recvmsg(sv[1], &rh, 0);
    printf("sendmsg=%zd recvmsg=%zd '%s' + '%s' flags=%d\n", s, r, a, b, rh.msg_flags);

    errno = 0;
    r = recv(sv[1], buf, sizeof buf, MSG_DONTWAIT);
    printf("empty MSG_DONTWAIT: %zd EAGAIN=%d\n", r, errno == EAGAIN);

    struct timeval tv = {0, 30000};
    int so = setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    errno = 0;
    r = recv(sv[1], buf, sizeof buf, 0);
    printf("SO_RCVTIMEO set=%d, recv timed out: %zd EAGAIN=%d\n", so, r, errno == EAGAIN);

    shutdown(sv[0], SHUT_WR);
    r = recv(sv[1], buf, sizeof buf, 0);
    printf("recv after peer SHUT_WR: %zd\n", r);
    signal(SIGPIPE, on_pipe);
    errno = 0;
    r = send(sv[0], "x", 1, 0);
    printf("send after SHUT_WR: %zd EPIPE=%d sigpipes=%d\n", r, errno == EPIPE, (int)sigpipes);
    r = send(sv[0], "x", 1, MSG_NOSIGNAL);
    printf("again with MSG_NOSIGNAL: %zd sigpipes=%d\n", r, (int)sigpipes);
    close(sv[0]);
    close(sv[1]);
}

static void dgram_pair(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    send(sv[0], "abc", 3, 0);
    send(sv[0], "defgh", 5, 0);
    send(sv[0], "ijklmno", 7, 0);
    char buf[64];
    ssize_t r1 = recv(sv[1], buf, sizeof buf, 0);
    ssize_t r2 = recv(sv[1], buf, sizeof buf, 0);
    struct iovec iov = {buf, 2};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    ssize_t r3 = recvmsg(sv[1], &mh, 0);
    printf("dgram pair: %zd %zd, truncated %zd MSG_TRUNC=%d\n", r1, r2, r3,
           (mh.msg_flags & MSG_TRUNC) != 0);
    send(sv[0], "0123456789", 10, 0);
    ssize_t r4 = recv(sv[1], buf, 4, MSG_TRUNC);
    printf("recv MSG_TRUNC gives the real length: %zd\n", r4);
    int type = 0;
    socklen_t len = sizeof type;
    getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &type, &len);
    printf("SO_TYPE dgram=%d len=%u\n", type == SOCK_DGRAM, len);
    close(sv[0]);
    close(sv[1]);
}

static void pass_fds(void)
{
    int sv[2], p[2], q[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pipe(p);
    pipe(q);
    int two[2] = {p[0], q[1]};
    int s = send_fds(sv[0], two, 2);
    close(p[0]);
    close(q[1]);
    int got[4] = {-1, -1, -1, -1};
    int n = recv_fds(sv[1], got, MSG_CMSG_CLOEXEC);
    write(p[1], "via passed fd", 13);
    char buf[32] = {0};
    ssize_t r = read(got[0], buf, sizeof buf - 1);
    write(got[1], "back", 4);
    char back[8] = {0};
    read(q[0], back, sizeof back - 1);
    printf("SCM_RIGHTS: sent=%d fds=%d new=%d read=%zd '%s' other way '%s' cloexec=%d\n", s, n,
           got[0] != p[0] || got[1] != q[1], r, buf, back,
           (fcntl(got[0], F_GETFD) & FD_CLOEXEC) != 0);
    int one = p[1];
    send_fds(sv[1], &one, 1);
    n = recv_fds(sv[0], got, 0);
    printf("passed back: %d, cloexec=%d\n", n, (fcntl(got[0], F_GETFD) & FD_CLOEXEC) != 0);
    close(got[0]);
    close(p[1]);
    close(q[0]);
    close(sv[0]);
    close(sv[1]);
}

static void forked_client(void)
{
    int s = listen_unix("srv.sock");
    struct sockaddr_un sa;
    socklen_t len = sizeof sa;
    getsockname(s, (struct sockaddr *)&sa, &len);
    printf("bound to '%s'\n", sa.sun_path);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int c = connect_unix("srv.sock");
        send(c, "hello from child", 16, 0);
        char buf[32] = {0};
        recv(c, buf, sizeof buf - 1, 0);
        printf("child got '%s'\n", buf);
        exit(0);
    }
    int a = accept(s, NULL, NULL);
    char buf[32] = {0};
    recv(a, buf, sizeof buf - 1, 0);
    send(a, "hello from parent", 17, 0);
    struct sockaddr_un peer;
    len = sizeof peer;
    getpeername(a, (struct sockaddr *)&peer, &len);
    struct ucred cred;
    socklen_t cl = sizeof cred;
    int cr = getsockopt(a, SOL_SOCKET, SO_PEERCRED, &cred, &cl);
    int status;
    waitpid(pid, &status, 0);
    printf("parent got '%s'; unbound peer name len=%u; peercred=%d uid ok=%d; child status %d\n",
           buf, len, cr, cred.uid == getuid(), WEXITSTATUS(status));
    close(a);
    close(s);
    unlink("srv.sock");
}

/* Accepts one connection on the socket given as argument and echoes a
 * 6-byte message (read with MSG_WAITALL) upper-cased. Returns the bytes
 * echoed plus 1 if accept4 set FD_CLOEXEC (asked before the close: after it,
 * the main thread's next descriptor may take the number). */
static void *server(void *arg)
{
    int s = *(int *)arg;
    int a = accept4(s, NULL, NULL, SOCK_CLOEXEC);
    char buf[8] = {0};
    ssize_t r = recv(a, buf, 6, MSG_WAITALL);
    for (int i = 0; i < 6; i++)
        buf[i] = (char)(buf[i] - 'a' + 'A');
    send(a, buf, (size_t)r, 0);
    int cloexec = fcntl(a, F_GETFD) == FD_CLOEXEC;
    close(a);
    return (void *)(long)(cloexec + r);
}

static void threaded_server(void)
{
    int s = listen_unix("thr.sock");
    pthread_t t;
    pthread_create(&t, NULL, server, &s);
    usleep(5000);
    int c = connect_unix("thr.sock");
    send(c, "abc", 3, 0);
    usleep(5000);
    send(c, "def", 3, 0);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0xfeedbeef00000001ull};
    epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev);
    struct epoll_event out[2];
    int n = epoll_wait(ep, out, 2, -1);
    char buf[8] = {0};
    ssize_t r = recv(c, buf, sizeof buf - 1, 0);
    void *ret;
    pthread_join(t, &ret);
    printf("thread server: epoll=%d data=%#llx reply=%zd '%s' server ret=%ld\n", n,
           (unsigned long long)out[0].data.u64, r, buf, (long)ret);
    n = epoll_pwait(ep, out, 2, 20, NULL);
    printf("epoll_pwait after reading: %d\n", n);
    close(ep);
    close(c);
    close(s);
    unlink("thr.sock");
}

static void nonblocking(void)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    printf("SOCK_NONBLOCK=%d SOCK_CLOEXEC=%d\n", (fcntl(s, F_GETFL) & O_NONBLOCK) != 0,
           (fcntl(s, F_GETFD) & FD_CLOEXEC) != 0);
    struct sockaddr_un sa;
    socklen_t len = unix_addr(&sa, "nb.sock");
    bind(s, (struct sockaddr *)&sa, len);
    listen(s, 1);
    errno = 0;
    int a = accept(s, NULL, NULL);
    printf("accept with nothing pending: %d EAGAIN=%d\n", a, errno == EAGAIN);
    int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int r = connect(c, (struct sockaddr *)&sa, len);
    /* (qemu-alpha 7.2 drops accept4's SOCK_NONBLOCK, so only CLOEXEC is shown.) */
    a = accept4(s, NULL, NULL, SOCK_CLOEXEC);
    printf("non-blocking connect=%d accept4 ok=%d cloexec=%d\n", r, a >= 0,
           (fcntl(a, F_GETFD) & FD_CLOEXEC) != 0);
    close(a);
    close(c);
    close(s);
    unlink("nb.sock");
}

static void options(void)
{
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    int v = 8192;
    int r1 = setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
    socklen_t len = sizeof v;
    v = 0;
    int r2 = getsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, &len);
    printf("SO_RCVBUF set=%d get=%d value=%d\n", r1, r2, v);
    v = 1;
    r1 = setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, sizeof v);
    v = 0;
    len = sizeof v;
    r2 = getsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, &len);
    printf("SO_REUSEADDR set=%d get=%d on=%d\n", r1, r2, v != 0);
    v = -1;
    len = sizeof v;
    r2 = getsockopt(s, SOL_SOCKET, SO_ERROR, &v, &len);
    printf("SO_ERROR get=%d value=%d\n", r2, v);
    struct linger lg = {1, 3}, lg2 = {0, 0};
    r1 = setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    len = sizeof lg2;
    r2 = getsockopt(s, SOL_SOCKET, SO_LINGER, &lg2, &len);
    printf("SO_LINGER set=%d get=%d {%d,%d}\n", r1, r2, lg2.l_onoff, lg2.l_linger);
    v = 0;
    len = sizeof v;
    r2 = getsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &v, &len);
    printf("SO_KEEPALIVE get=%d value=%d\n", r2, v);
    errno = 0;
    r2 = getsockopt(s, SOL_SOCKET, 0x7777, &v, &len);
    printf("unknown option: %d ENOPROTOOPT=%d\n", r2, errno == ENOPROTOOPT);
    errno = 0;
    r2 = getsockopt(99, SOL_SOCKET, SO_TYPE, &v, &len);
    printf("bad fd: %d EBADF=%d\n", r2, errno == EBADF);

    /* SO_ERROR reports a failed non-blocking connect with the Alpha errno. */
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa;
    socklen_t al = unix_addr(&sa, "nobody.sock");
    errno = 0;
    r1 = connect(c, (struct sockaddr *)&sa, al);
    printf("connect to missing path: %d ENOENT=%d\n", r1, errno == ENOENT);
    close(c);
    close(s);
}

static void loopback(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int b = bind(s, (struct sockaddr *)&sa, sizeof sa);
    listen(s, 2);
    socklen_t len = sizeof sa;
    getsockname(s, (struct sockaddr *)&sa, &len);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    int r = connect(c, (struct sockaddr *)&sa, sizeof sa);
    struct sockaddr_in peer;
    len = sizeof peer;
    int a = accept4(s, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);
    int nd = 0;
    socklen_t ol = sizeof nd;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    getsockopt(c, IPPROTO_TCP, TCP_NODELAY, &nd, &ol);
    send(c, "tcp ping", 8, 0);
    char buf[16] = {0};
    ssize_t n = recv(a, buf, sizeof buf - 1, 0);
    struct sockaddr_in me;
    socklen_t ml = sizeof me;
    getsockname(c, (struct sockaddr *)&me, &ml);
    printf("tcp: bind=%d port set=%d connect=%d accept ok=%d peer is client=%d nodelay=%d recv=%zd '%s'\n",
           b, sa.sin_port != 0, r, a >= 0, peer.sin_port == me.sin_port, nd != 0, n, buf);
    close(a);
    close(c);
    close(s);

    int u1 = socket(AF_INET, SOCK_DGRAM, 0), u2 = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in ua = {.sin_family = AF_INET}, from;
    ua.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(u1, (struct sockaddr *)&ua, sizeof ua);
    len = sizeof ua;
    getsockname(u1, (struct sockaddr *)&ua, &len);
    ssize_t sn = sendto(u2, "datagram", 8, 0, (struct sockaddr *)&ua, sizeof ua);
    socklen_t fl = sizeof from;
    memset(buf, 0, sizeof buf);
    n = recvfrom(u1, buf, sizeof buf - 1, 0, (struct sockaddr *)&from, &fl);
    getsockname(u2, (struct sockaddr *)&me, &ml);
    printf("udp: sendto=%zd recvfrom=%zd '%s' from len=%u loopback=%d port matches=%d\n", sn, n,
           buf, fl, from.sin_addr.s_addr == htonl(INADDR_LOOPBACK), from.sin_port == me.sin_port);
    close(u1);
    close(u2);
}

static void filesystems(void)
{
    struct statfs a, b;
    int r1 = statfs(".", &a);
    int fd = open(".", O_RDONLY | O_DIRECTORY);
    int r2 = fstatfs(fd, &b);
    struct statvfs v;
    int r3 = statvfs(".", &v);
    printf("statfs=%d type set=%d bsize set=%d; fstatfs=%d same type=%d; statvfs=%d bsize set=%d\n",
           r1, a.f_type != 0, a.f_bsize > 0, r2, a.f_type == b.f_type, r3, v.f_bsize > 0);
    errno = 0;
    r1 = statfs("no/such/dir", &a);
    printf("statfs missing: %d ENOENT=%d\n", r1, errno == ENOENT);
    close(fd);
}

int main(void)
{
    stream_pair();
    dgram_pair();
    pass_fds();
    forked_client();
    threaded_server();
    nonblocking();
    options();
    loopback();
    filesystems();
    return 0;
}
