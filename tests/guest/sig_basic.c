/* Signal handling basics: handlers for SIGUSR1/SIGUSR2 sent by raise and
 * kill, SA_SIGINFO (si_signo, si_code, si_pid, si_value from sigqueue),
 * blocking with sigprocmask, sigpending, delivery on unblock, queued
 * real-time signals, sigsuspend, SA_RESETHAND, SA_NODEFER, SIG_IGN (which
 * discards a pending signal). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t log_pos;
static int log_buf[64];

/* Appends a signal event to the log; called only from handlers. */
static void note(int v)
{
    if (log_pos < 64)
        log_buf[log_pos++] = v;
}

/* Prints and clears the event log. */
static void dump(const char *tag)
{
    printf("%s:", tag);
    for (int i = 0; i < log_pos; i++)
        printf(" %d", log_buf[i]);
    printf("\n");
    log_pos = 0;
}

/* Plain handler: logs the signal number. */
static void on_sig(int sig)
{
    note(sig);
}

static pid_t self;

/* SA_SIGINFO handler: logs the number, code, whether the sender is us, and the value. */
static void on_info(int sig, siginfo_t *si, void *uc)
{
    note(sig);
    note(si->si_signo == sig);
    note(si->si_code);
    note(si->si_pid == self);
    note(si->si_code == SI_QUEUE ? si->si_value.sival_int : -1);
    note(uc != NULL);
}

static int nested_depth, nested_calls;

/* Re-raises its own signal in its first two calls; logs entry and exit depth. */
static void on_nested(int sig)
{
    int d = ++nested_depth;
    note(100 + d);
    if (++nested_calls < 3)
        raise(sig);
    note(200 + d);
    nested_depth--;
}

/* Installs handler h for sig with the given flags; returns sigaction's result. */
static int install(int sig, void (*h)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, NULL);
}

int main(void)
{
    self = getpid();
    printf("numbers: USR1=%d USR2=%d SEGV=%d CHLD=%d RTMIN>=%d\n", SIGUSR1, SIGUSR2, SIGSEGV, SIGCHLD,
           SIGRTMIN >= 32);
    install(SIGUSR1, on_sig, 0);
    install(SIGUSR2, on_sig, 0);
    raise(SIGUSR1);
    kill(self, SIGUSR2);
    raise(SIGUSR2);
    dump("raise/kill");

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_info;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    kill(self, SIGUSR1);
    dump("siginfo kill");
    raise(SIGUSR1);
    dump("siginfo raise");
    union sigval sv = {.sival_int = 4242};
    sigqueue(self, SIGUSR1, sv);
    dump("siginfo sigqueue");

    struct sigaction old;
    sigaction(SIGUSR1, NULL, &old);
    printf("query: siginfo=%d handler-is-ours=%d\n", (old.sa_flags & SA_SIGINFO) != 0,
           old.sa_sigaction == on_info);

    /* Block both, send, check pending, unblock: both arrive, lower number first. */
    install(SIGUSR1, on_sig, 0);
    sigset_t set, pend, oldset;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigprocmask(SIG_BLOCK, &set, &oldset);
    raise(SIGUSR2);
    raise(SIGUSR1);
    raise(SIGUSR1);
    sigpending(&pend);
    printf("pending: usr1=%d usr2=%d hup=%d delivered-while-blocked=%d\n", sigismember(&pend, SIGUSR1),
           sigismember(&pend, SIGUSR2), sigismember(&pend, SIGHUP), log_pos);
    sigprocmask(SIG_SETMASK, &oldset, NULL);
    dump("after unblock");

    /* Real-time signals queue: three sends, three deliveries, with their values. */
    int rt = SIGRTMIN + 2;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_info;
    sa.sa_flags = SA_SIGINFO;
    sigaction(rt, &sa, NULL);
    sigemptyset(&set);
    sigaddset(&set, rt);
    sigprocmask(SIG_BLOCK, &set, NULL);
    for (int i = 1; i <= 3; i++) {
        sv.sival_int = i * 11;
        sigqueue(self, rt, sv);
    }
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    printf("rt deliveries=%d (6 entries each)\n", log_pos / 6);
    for (int i = 0; i < log_pos; i += 6)
        printf("  rt value %d code=%d\n", log_buf[i + 4], log_buf[i + 2]);
    log_pos = 0;

    /* sigsuspend: wait with USR1 unblocked while it is otherwise blocked. */
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, &oldset);
    raise(SIGUSR1);
    sigset_t waitmask;
    sigemptyset(&waitmask);
    int sr = sigsuspend(&waitmask);
    sigprocmask(SIG_BLOCK, NULL, &set);
    printf("sigsuspend returned %d, usr1 still blocked=%d\n", sr, sigismember(&set, SIGUSR1));
    dump("sigsuspend");
    sigprocmask(SIG_SETMASK, &oldset, NULL);

    /* sigwait takes a blocked pending signal without running the handler. */
    sigprocmask(SIG_BLOCK, &set, NULL);
    raise(SIGUSR1);
    int got = 0;
    sigwait(&set, &got);
    printf("sigwait got %d, handler ran %d times\n", got, log_pos);
    sigprocmask(SIG_UNBLOCK, &set, NULL);

    /* SA_NODEFER lets the handler interrupt itself; without it the nested
     * signal waits until the handler returns. */
    install(SIGUSR2, on_nested, SA_NODEFER);
    raise(SIGUSR2);
    dump("nodefer");
    install(SIGUSR2, on_nested, 0);
    nested_calls = 0;
    raise(SIGUSR2);
    dump("deferred");

    /* SIG_IGN discards the signal. */
    signal(SIGUSR2, SIG_IGN);
    raise(SIGUSR2);
    printf("ignored usr2: still alive\n");

    /* Setting SIG_IGN discards a pending signal (POSIX), its queued siginfo
     * too: sent again after a handler is back, it runs the handler once. */
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigprocmask(SIG_BLOCK, &set, &oldset);
    install(SIGUSR2, on_sig, 0);
    raise(SIGUSR2);
    signal(SIGUSR2, SIG_IGN);
    sigpending(&pend);
    printf("pending usr2 after SIG_IGN: %d\n", sigismember(&pend, SIGUSR2));
    install(SIGUSR2, on_sig, 0);
    raise(SIGUSR2);
    sigprocmask(SIG_SETMASK, &oldset, NULL);
    dump("usr2 after SIG_IGN and a new handler");
    signal(SIGUSR2, SIG_IGN);

    /* SA_RESETHAND: the first signal runs the handler, the second kills (in a child). */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        install(SIGUSR1, on_sig, SA_RESETHAND);
        raise(SIGUSR1);
        dump("child resethand first");
        fflush(stdout);
        raise(SIGUSR1);
        printf("child: not reached\n");
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("child: signaled=%d sig=%d\n", WIFSIGNALED(status), WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    return 0;
}
