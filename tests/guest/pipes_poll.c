/* Pipes and readiness: a pipe filled until EAGAIN in non-blocking mode
 * (its capacity is printed only as "at least 4 KiB"), EPIPE and SIGPIPE
 * when the reader is gone, poll and select on pipes and a socketpair,
 * epoll with edge and level triggering, eventfd counters, and a pipe
 * between two threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t sigpipes;

/* Counts SIGPIPE deliveries. */
static void on_pipe(int sig)
{
    (void)sig;
    sigpipes++;
}

/* Writes 100 numbered lines into the pipe given as argument, then closes it. */
static void *writer(void *arg)
{
    int fd = *(int *)arg;
    for (int i = 0; i < 100; i++) {
        char line[32];
        int n = snprintf(line, sizeof line, "%d\n", i);
        write(fd, line, (size_t)n);
    }
    close(fd);
    return NULL;
}

int main(void)
{
    int p[2];
    pipe(p);
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    char chunk[1024];
    memset(chunk, 'z', sizeof chunk);
    long total = 0;
    ssize_t n;
    while ((n = write(p[1], chunk, sizeof chunk)) > 0)
        total += n;
    printf("pipe filled: at least 4 KiB=%d, then EAGAIN=%d\n", total >= 4096, errno == EAGAIN);
    struct pollfd pf[2] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}};
    int r = poll(pf, 2, 0);
    printf("poll full pipe: r=%d readable=%d writable=%d\n", r, (pf[0].revents & POLLIN) != 0,
           (pf[1].revents & POLLOUT) != 0);
    long drained = 0;
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    while ((n = read(p[0], chunk, sizeof chunk)) > 0)
        drained += n;
    printf("drained all: %d\n", drained == total);

    signal(SIGPIPE, on_pipe);
    close(p[0]);
    errno = 0;
    n = write(p[1], "x", 1);
    printf("write to closed pipe: r=%zd EPIPE=%d sigpipes=%d\n", n, errno == EPIPE, (int)sigpipes);
    close(p[1]);

    pipe(p);
    pf[0] = (struct pollfd){p[0], POLLIN, 0};
    r = poll(pf, 1, 10);
    printf("poll empty pipe with timeout: r=%d\n", r);
    close(p[1]);
    r = poll(pf, 1, 0);
    printf("poll after writer closed: r=%d hup=%d\n", r, (pf[0].revents & POLLHUP) != 0);
    close(p[0]);

    int sv[2];
    r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[0], "ping", 4);
    fd_set rfds;
    FD_ZERO(&rfds);
    FD_SET(sv[0], &rfds);
    FD_SET(sv[1], &rfds);
    struct timeval tv = {1, 0};
    int maxfd = sv[0] > sv[1] ? sv[0] : sv[1];
    r = select(maxfd + 1, &rfds, NULL, NULL, &tv);
    printf("socketpair=%d select=%d: sv0 readable=%d sv1 readable=%d\n", r >= 0 ? 0 : -1, r,
           FD_ISSET(sv[0], &rfds) != 0, FD_ISSET(sv[1], &rfds) != 0);
    char buf[16] = {0};
    read(sv[1], buf, sizeof buf - 1);
    send(sv[1], "pong", 4, 0);
    char back[8] = {0};
    recv(sv[0], back, sizeof back - 1, 0);
    printf("socketpair exchange: %s/%s\n", buf, back);
    shutdown(sv[1], SHUT_WR);
    n = read(sv[0], buf, sizeof buf);
    printf("read after peer shutdown: %zd\n", n);
    close(sv[0]);
    close(sv[1]);

    int ep = epoll_create1(EPOLL_CLOEXEC);
    pipe(p);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.u64 = 0x1234};
    epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
    struct epoll_event out[4];
    r = epoll_wait(ep, out, 4, 0);
    printf("epoll empty: %d\n", r);
    write(p[1], "abc", 3);
    r = epoll_wait(ep, out, 4, 100);
    printf("epoll after write: %d data=%#llx in=%d\n", r, (unsigned long long)out[0].data.u64,
           (out[0].events & EPOLLIN) != 0);
    r = epoll_wait(ep, out, 4, 0);
    printf("edge-triggered, no new data: %d\n", r);
    ev.events = EPOLLIN;
    epoll_ctl(ep, EPOLL_CTL_MOD, p[0], &ev);
    r = epoll_wait(ep, out, 4, 0);
    int r2 = epoll_wait(ep, out, 4, 0);
    printf("level-triggered: %d then %d\n", r, r2);
    epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL);
    close(ep);
    close(p[0]);
    close(p[1]);

    int efd = eventfd(5, EFD_NONBLOCK);
    eventfd_write(efd, 7);
    eventfd_t val = 0;
    eventfd_read(efd, &val);
    errno = 0;
    r = eventfd_read(efd, &val) == 0 ? 0 : errno == EAGAIN ? 1 : 2;
    printf("eventfd read %llu, then empty (EAGAIN)=%d\n", (unsigned long long)val, r == 1);
    close(efd);

    pipe(p);
    pthread_t t;
    pthread_create(&t, NULL, writer, &p[1]);
    FILE *f = fdopen(p[0], "r");
    int lines = 0, sum = 0, v;
    while (fscanf(f, "%d", &v) == 1) {
        lines++;
        sum += v;
    }
    fclose(f);
    pthread_join(t, NULL);
    printf("thread pipe: %d lines, sum %d\n", lines, sum);
    return 0;
}
