/* setjmp/longjmp and sigsetjmp/siglongjmp: jumps out of nested calls, values
 * passed back (0 becomes 1), volatile locals kept, and the signal mask saved
 * (sigsetjmp(env, 1)) or not (sigsetjmp(env, 0)). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static jmp_buf env;
static sigjmp_buf senv;
static int depth_reached;

/* Recurses to depth n, then jumps back with value n. */
static void dive(int n, int target)
{
    volatile char pad[64];
    pad[0] = (char)n;
    if (n == target) {
        depth_reached = n + pad[0] - n;
        longjmp(env, n);
    }
    dive(n + 1, target);
    pad[1] = 0;
}

/* Returns 1 if SIGUSR1 is in the current blocked mask. */
static int usr1_blocked(void)
{
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    return sigismember(&cur, SIGUSR1);
}

/* Jumps back through env with value 0, which setjmp must see as 1. */
static void jump_zero(void)
{
    longjmp(env, 0);
}

static int handled;

/* Signal handler that leaves through siglongjmp. */
static void on_usr2(int sig)
{
    handled = sig;
    siglongjmp(senv, 7);
}

int main(void)
{
    for (int target = 1; target <= 200; target *= 3) {
        volatile int counter = 100;
        int r = setjmp(env);
        if (r == 0) {
            counter = 200;
            dive(0, target);
            printf("not reached\n");
        } else {
            printf("longjmp from depth %d returned %d, counter=%d\n", depth_reached, r, counter);
        }
    }
    int r = setjmp(env);
    if (r == 0)
        jump_zero();
    printf("longjmp(env, 0) made setjmp return %d\n", r);

    volatile double fkeep = 1.25;
    volatile long ikeep = 42;
    if (setjmp(env) == 0) {
        fkeep *= 2;
        ikeep += 1;
        longjmp(env, 3);
    }
    printf("after jump: f=%g i=%ld\n", fkeep, ikeep);

    /* sigsetjmp with savemask=1 restores the mask saved at sigsetjmp time. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    printf("before: usr1 blocked=%d\n", usr1_blocked());
    if (sigsetjmp(senv, 1) == 0) {
        sigprocmask(SIG_BLOCK, &set, NULL);
        printf("inside: usr1 blocked=%d\n", usr1_blocked());
        siglongjmp(senv, 1);
    }
    printf("after siglongjmp (savemask=1): usr1 blocked=%d\n", usr1_blocked());
    if (sigsetjmp(senv, 0) == 0) {
        sigprocmask(SIG_BLOCK, &set, NULL);
        siglongjmp(senv, 1);
    }
    printf("after siglongjmp (savemask=0): usr1 blocked=%d\n", usr1_blocked());
    sigprocmask(SIG_UNBLOCK, &set, NULL);

    /* Leave a signal handler by siglongjmp: SIGUSR2 must be unblocked after. */
    signal(SIGUSR2, on_usr2);
    for (int i = 0; i < 3; i++) {
        int v = sigsetjmp(senv, 1);
        if (v == 0) {
            raise(SIGUSR2);
            printf("not reached\n");
        }
        sigset_t cur;
        sigprocmask(SIG_BLOCK, NULL, &cur);
        printf("handler %d jumped out with %d, usr2 blocked=%d\n", handled, v,
               sigismember(&cur, SIGUSR2));
    }
    return 0;
}
