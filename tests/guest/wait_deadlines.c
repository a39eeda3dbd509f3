/* Deadlines and wait sets that must not outlive the call that set them:
 * a timed FUTEX_WAIT ended by FUTEX_WAKE, then a second timed wait on the
 * same word (must wait, not time out at once); a poll satisfied by its fd
 * before its timeout, then a blocking read that another thread's 1 s sleep
 * ends (must not hang); an rt_sigtimedwait interrupted by a handler, then a
 * signal of its set left pending and blocked, then a nanosleep (must sleep
 * normally, not spin). */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int word;
static volatile int stage;

static long futex(int op, int val, const struct timespec *ts)
{
    return syscall(SYS_futex, &word, op, val, ts, 0, 0);
}

static void nap(long ns)
{
    struct timespec d = { ns / 1000000000L, ns % 1000000000L };
    nanosleep(&d, 0);
}

static void *futex_waiter(void *p)
{
    (void)p;
    struct timespec t1 = { 0, 100000000 }, t10 = { 10, 0 };
    stage = 1;
    long r = futex(FUTEX_WAIT, 0, &t1);
    printf("first wait: %ld %d\n", r, r ? errno : 0);
    /* Busy for 150 ms, past the first wait's deadline. */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec < 150000000L);
    stage = 2;
    r = futex(FUTEX_WAIT, 0, &t10);
    printf("second wait: %ld %s\n", r, r && errno == ETIMEDOUT ? "ETIMEDOUT" : "ok");
    return 0;
}

static void futex_part(void)
{
    pthread_t t;
    pthread_create(&t, 0, futex_waiter, 0);
    while (stage != 1) nap(10000000);
    nap(10000000);
    while (futex(FUTEX_WAKE, 1, 0) == 0) nap(10000000);
    while (stage != 2) nap(10000000);
    nap(50000000);
    while (futex(FUTEX_WAKE, 1, 0) == 0) nap(10000000);
    pthread_join(t, 0);
}

static int p1[2], p2[2];

static void *writer(void *arg)
{
    (void)arg;
    nap(20000000);
    write(p1[1], "a", 1);
    nap(1000000000L);
    write(p2[1], "b", 1);
    return 0;
}

static void poll_part(void)
{
    if (pipe(p1) || pipe(p2)) { perror("pipe"); return; }
    pthread_t t;
    pthread_create(&t, 0, writer, 0);
    struct pollfd pf = { .fd = p1[0], .events = POLLIN };
    int r = poll(&pf, 1, 100);
    printf("poll %d\n", r);
    char c = '?';
    r = (int)read(p2[0], &c, 1);
    printf("read %d %c\n", r, c);
    pthread_join(t, 0);
}

static void on_alarm(int s) { (void)s; }

static void sigwait_part(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, 0);
    alarm(1);
    struct timespec to = { 10, 0 };
    int r = sigtimedwait(&set, 0, &to);
    printf("sigtimedwait %d %s\n", r, r < 0 && errno == EINTR ? "EINTR" : "");
    kill(getpid(), SIGUSR1);
    struct timespec s = { 0, 500000000 };
    r = nanosleep(&s, 0);
    printf("nanosleep %d\n", r);
}

int main(void)
{
    setvbuf(stdout, 0, _IONBF, 0);
    futex_part();
    poll_part();
    sigwait_part();
    return 0;
}
