/* Synchronous fault signals caught by SA_SIGINFO handlers that leave with
 * siglongjmp: SIGSEGV from a NULL write and from a read-only page, SIGFPE
 * from integer division by zero (the __divq millicode's gentrap), SIGILL
 * from a reserved opcode and a privileged PALcode call, SIGBUS from a
 * misaligned ldq_l, SIGTRAP from __builtin_trap (bugchk).
 * Not tested: a read of a file mapping past EOF, which Linux answers with
 * SIGBUS but qemu 7.2 with SIGSEGV. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int got_sig, got_code;
static void *volatile got_addr;

/* Records the fault and jumps back to the test. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    got_sig = sig;
    got_code = si->si_code;
    got_addr = si->si_addr;
    siglongjmp(env, 1);
}

/* Prints the outcome of one test; expect_addr is compared with si_addr if non-NULL. */
static void report(const char *name, int jumped, const void *expect_addr)
{
    printf("%-14s caught=%d sig=%d code=%d", name, jumped, jumped ? got_sig : 0, jumped ? got_code : 0);
    if (expect_addr)
        printf(" addr-ok=%d", got_addr == expect_addr);
    printf("\n");
    got_sig = got_code = 0;
}

static volatile long zero;

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGFPE, SIGILL, SIGBUS, SIGTRAP};
    for (int i = 0; i < 5; i++)
        sigaction(sigs[i], &sa, NULL);

    for (int round = 0; round < 2; round++) {
        int j = sigsetjmp(env, 1);
        if (!j)
            *(volatile int *)0 = 1;
        printf("null si_addr==0: %d ", got_addr == NULL);
        report("null-write", j, NULL);
    }

    int j = sigsetjmp(env, 1);
    volatile long *bad = (volatile long *)(uintptr_t)0x1000;
    if (!j)
        (void)*bad;
    report("low-read", j, (const void *)bad);

    long *ro = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    j = sigsetjmp(env, 1);
    if (!j)
        ((volatile long *)ro)[12] = 1;
    report("readonly-write", j, ro + 12);
    mprotect(ro, 8192, PROT_READ | PROT_WRITE);
    ro[12] = 5;
    printf("after mprotect: %ld\n", ro[12]);
    munmap(ro, 8192);

    j = sigsetjmp(env, 1);
    volatile long r = 0;
    if (!j)
        r = 1000 / zero;
    report("divq-by-zero", j, NULL);
    j = sigsetjmp(env, 1);
    volatile int izero = 0, ir = 0;
    if (!j)
        ir = 77 % izero;
    report("reml-by-zero", j, NULL);
    j = sigsetjmp(env, 1);
    volatile unsigned long uz = 0;
    if (!j)
        r = (long)(12345UL / uz);
    report("divqu-by-zero", j, NULL);
    printf("results untouched: %ld %d\n", r, ir);

    j = sigsetjmp(env, 1);
    if (!j)
        __asm__ volatile(".long 0x04000000"); /* opcode 0x01: reserved */
    report("reserved-op", j, NULL);
    j = sigsetjmp(env, 1);
    if (!j)
        __asm__ volatile("call_pal 0x0"); /* halt: privileged */
    report("halt-pal", j, NULL);

    /* SIGBUS: load-locked from a misaligned address cannot be fixed up. */
    static long words[4];
    char *mis = (char *)words + 3;
    j = sigsetjmp(env, 1);
    if (!j) {
        long v;
        __asm__ volatile("ldq_l %0,0(%1)" : "=r"(v) : "r"(mis) : "memory");
        printf("not reached %ld\n", v);
    }
    report("ldq_l-unaligned", j, mis);

    j = sigsetjmp(env, 1);
    if (!j)
        __builtin_trap();
    report("builtin-trap", j, NULL);

    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    int blocked = 0;
    for (int i = 0; i < 5; i++)
        blocked += sigismember(&cur, sigs[i]);
    printf("fault signals still blocked: %d\n", blocked);
    return 0;
}
