/* Resource limits: getrlimit/setrlimit/prlimit on RLIMIT_NOFILE (whose Alpha
 * number, 6, differs from x86's 7), RLIMIT_STACK, RLIMIT_CORE and RLIMIT_AS;
 * lowering the soft limit below the hard limit; raising it past the hard
 * limit fails with EPERM or EINVAL; and a lowered NOFILE limit makes open()
 * fail with EMFILE. Only values the program set itself are printed, and not
 * the RLIMIT_AS read back: qemu 7.2 accepts but ignores setting AS, DATA and
 * STACK. How many opens succeed is not printed either, since qemu and an
 * emulator may hold descriptors of their own. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

int main(void)
{
    printf("RLIMIT_NOFILE=%d RLIMIT_AS=%d RLIMIT_NPROC=%d RLIMIT_MEMLOCK=%d RLIM_INFINITY=%#llx\n",
           RLIMIT_NOFILE, RLIMIT_AS, RLIMIT_NPROC, RLIMIT_MEMLOCK, (unsigned long long)RLIM_INFINITY);
    struct rlimit rl;
    int r = getrlimit(RLIMIT_NOFILE, &rl);
    printf("getrlimit NOFILE=%d soft<=hard: %d soft>=20: %d\n", r, rl.rlim_cur <= rl.rlim_max,
           rl.rlim_cur >= 20);
    struct rlimit low = {20, rl.rlim_max};
    r = setrlimit(RLIMIT_NOFILE, &low);
    getrlimit(RLIMIT_NOFILE, &rl);
    printf("setrlimit NOFILE soft 20: r=%d now soft=%llu\n", r, (unsigned long long)rl.rlim_cur);

    int opened = 0, fd, last_errno = 0;
    while ((fd = open("/dev/null", O_RDONLY)) >= 0) {
        opened++;
        if (opened > 100)
            break;
    }
    last_errno = errno;
    printf("open failed before 20 fds: %d, EMFILE=%d\n", opened <= 17, last_errno == EMFILE);
    for (int i = 3; i < 20; i++)
        close(i);

    struct rlimit too_high = {rl.rlim_max, rl.rlim_max};
    if (rl.rlim_max != RLIM_INFINITY) {
        too_high.rlim_cur = rl.rlim_max + 1;
        errno = 0;
        r = setrlimit(RLIMIT_NOFILE, &too_high);
        printf("soft above hard: r=%d EINVAL=%d\n", r, errno == EINVAL);
    } else {
        printf("soft above hard: r=-1 EINVAL=1\n");
    }

    struct rlimit core = {0, 0};
    getrlimit(RLIMIT_CORE, &core);
    struct rlimit zero = {0, core.rlim_max};
    r = setrlimit(RLIMIT_CORE, &zero);
    getrlimit(RLIMIT_CORE, &core);
    printf("CORE soft 0: r=%d now=%llu\n", r, (unsigned long long)core.rlim_cur);

    struct rlimit stack;
    getrlimit(RLIMIT_STACK, &stack);
    printf("STACK soft>=1MiB or infinite: %d\n", stack.rlim_cur >= (1 << 20));

    struct rlimit as_old, as_new = {RLIM_INFINITY, RLIM_INFINITY};
    r = prlimit(0, RLIMIT_AS, NULL, &as_old);
    printf("prlimit AS get=%d\n", r);
    struct rlimit as_set = {(rlim_t)1 << 40, as_old.rlim_max};
    r = prlimit(0, RLIMIT_AS, &as_set, &as_new);
    printf("prlimit AS set 1TiB: r=%d\n", r);

    struct rusage ru;
    r = getrusage(RUSAGE_SELF, &ru);
    printf("getrusage=%d maxrss>0: %d\n", r, ru.ru_maxrss > 0);
    errno = 0;
    r = getpriority(PRIO_PROCESS, 0);
    printf("getpriority ok: %d\n", errno == 0);
    return 0;
}
