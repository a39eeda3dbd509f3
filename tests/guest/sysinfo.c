/* System information calls: uname (only sysname and machine are printed),
 * getrandom (only success is printed), getpid/getppid/getuid consistency,
 * gethostname agreeing with uname, sysconf values, and sysinfo. */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

int main(void)
{
    struct utsname u;
    int r = uname(&u);
    printf("uname=%d sysname=%s machine=%s\n", r, u.sysname, u.machine);
    char host[256];
    gethostname(host, sizeof host);
    printf("gethostname matches nodename: %d\n", strcmp(host, u.nodename) == 0);
    printf("release non-empty: %d\n", u.release[0] != 0);

    unsigned char a[64], b[64];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    ssize_t n1 = getrandom(a, sizeof a, 0);
    ssize_t n2 = getrandom(b, sizeof b, GRND_NONBLOCK);
    int nonzero = 0;
    for (int i = 0; i < 64; i++)
        nonzero += a[i] != 0;
    printf("getrandom: %s %s, differ=%d, mostly non-zero=%d\n", n1 == 64 ? "ok" : "failed",
           n2 == 64 ? "ok" : "failed", memcmp(a, b, sizeof a) != 0, nonzero > 32);
    unsigned char big[100000];
    ssize_t n3 = getrandom(big, sizeof big, 0);
    printf("getrandom 100000 bytes: %s\n", n3 > 0 ? "ok" : "failed");

    printf("getpid>1: %d getppid>0: %d getpid!=getppid: %d\n", getpid() > 1, getppid() > 0,
           getpid() != getppid());
    printf("uid==euid: %d gid==egid: %d\n", getuid() == geteuid(), getgid() == getegid());
    /* The session may belong to a process outside the host's pid namespace (getsid() is
     * then 0 under qemu-alpha), so only success and consistency are compared. */
    pid_t sid = getsid(0);
    printf("getpgrp==getpgid(0): %d getsid ok: %d getsid(0)==getsid(getpid()): %d\n",
           getpgrp() == getpgid(0), sid != -1, sid == getsid(getpid()));

    long pg = sysconf(_SC_PAGESIZE);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long clk = sysconf(_SC_CLK_TCK);
    long open_max = sysconf(_SC_OPEN_MAX);
    printf("sysconf: pagesize=%ld cpus>=1: %d clk_tck=%ld open_max>0: %d\n", pg, cpus >= 1, clk,
           open_max > 0);
    struct sysinfo si;
    r = sysinfo(&si);
    printf("sysinfo=%d uptime>0: %d totalram>0: %d mem_unit>=1: %d\n", r, si.uptime > 0,
           si.totalram > 0, si.mem_unit >= 1);
    return 0;
}
