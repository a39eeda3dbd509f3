/* Timer signals: alarm() then pause() until SIGALRM, alarm's return of the
 * time left, alarm(0) cancelling, a periodic ITIMER_REAL counted with
 * sigsuspend, a read() on a pipe interrupted by SIGALRM (EINTR without
 * SA_RESTART, restarted with it) and select() (EINTR even with SA_RESTART).
 * About 1.2 seconds of wall time. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;
static int feed_fd = -1;

/* Counts SIGALRM deliveries. */
static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
    if (feed_fd >= 0)
        write(feed_fd, "R", 1);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);

    unsigned left = alarm(100);
    unsigned prev = alarm(0);
    printf("alarm(100) returned %u, alarm(0) returned %u\n", left, prev);
    alarm(1);
    int r = pause();
    printf("pause returned %d errno=EINTR:%d alarms=%d\n", r, errno == EINTR, (int)alarms);

    /* Periodic timer: 20 ms interval, wait for 5 ticks. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, &old);
    alarms = 0;
    struct itimerval it = {{0, 20000}, {0, 20000}};
    setitimer(ITIMER_REAL, &it, NULL);
    while (alarms < 5)
        sigsuspend(&old);
    struct itimerval off = {{0, 0}, {0, 0}}, was;
    setitimer(ITIMER_REAL, &off, &was);
    printf("itimer ticks=%d interval was %ld us\n", (int)alarms, (long)was.it_interval.tv_usec);
    sigprocmask(SIG_SETMASK, &old, NULL);

    /* A blocking read is interrupted: no SA_RESTART, so read fails with EINTR. */
    int fds[2];
    pipe(fds);
    alarms = 0;
    struct itimerval once = {{0, 0}, {0, 50000}};
    setitimer(ITIMER_REAL, &once, NULL);
    char c;
    errno = 0;
    ssize_t n = read(fds[0], &c, 1);
    printf("read returned %zd errno=EINTR:%d alarms=%d\n", n, errno == EINTR, (int)alarms);

    /* With SA_RESTART the read is restarted after the handler, which writes
     * the byte that the restarted read then returns. */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    alarms = 0;
    feed_fd = fds[1];
    setitimer(ITIMER_REAL, &once, NULL);
    c = 0;
    n = read(fds[0], &c, 1);
    printf("restarted read returned %zd byte '%c' alarms=%d\n", n, c, (int)alarms);
    feed_fd = -1;
    alarms = 0;
    setitimer(ITIMER_REAL, &once, NULL);
    struct timeval tv = {2, 0};
    select(0, NULL, NULL, NULL, &tv); /* select is never restarted */
    printf("select interrupted, alarms=%d errno=EINTR:%d\n", (int)alarms, errno == EINTR);
    close(fds[0]);
    close(fds[1]);
    return 0;
}
