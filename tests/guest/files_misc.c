/* Less common file calls: the old getdents (d_type in the record's last byte),
 * mkfifo and mknod, flock, memfd_create, sendfile and copy_file_range, statx,
 * close_range, fallocate and fadvise, sync/syncfs, lchown, eventfd in
 * semaphore mode, timerfd, getgroups/getresuid, and mincore. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* The record the old getdents fills (include/linux/dirent.h in the kernel). */
struct old_dirent {
    unsigned long d_ino;
    unsigned long d_off;
    unsigned short d_reclen;
    char d_name[];
};

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void old_getdents(void)
{
    mkdir("d", 0755);
    close(open("d/file_a", O_CREAT | O_WRONLY, 0644));
    close(open("d/file_bb", O_CREAT | O_WRONLY, 0644));
    mkdir("d/sub", 0755);
    symlink("file_a", "d/link");
    int fd = open("d", O_RDONLY | O_DIRECTORY);
    char buf[4096];
    char names[16][40];
    int n = 0, bad = 0;
    long r;
    while ((r = syscall(SYS_getdents, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < r;) {
            struct old_dirent *d = (struct old_dirent *)(buf + off);
            unsigned char type = (unsigned char)buf[off + d->d_reclen - 1];
            if (d->d_reclen % 8 || d->d_ino == 0)
                bad++;
            if (n < 16 && strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
                snprintf(names[n++], sizeof names[0], "%s:%s", d->d_name,
                         type == DT_DIR ? "dir" : type == DT_REG ? "reg" :
                         type == DT_LNK ? "lnk" : "other");
            off += d->d_reclen;
        }
    }
    qsort(names, (size_t)n, sizeof names[0], by_name);
    printf("getdents: last=%ld bad=%d entries:", r, bad);
    for (int i = 0; i < n; i++)
        printf(" %s", names[i]);
    printf("\n");
    errno = 0;
    r = syscall(SYS_getdents, 99, buf, sizeof buf);
    printf("getdents bad fd: %ld EBADF=%d\n", r, errno == EBADF);
    close(fd);
}

static void fifos(void)
{
    int r1 = mkfifo("fifo", 0600);
    struct stat st;
    stat("fifo", &st);
    int r2 = mknod("plain", S_IFREG | 0644, 0);
    struct stat st2;
    stat("plain", &st2);
    errno = 0;
    int r3 = mkfifo("fifo", 0600);
    printf("mkfifo=%d fifo=%d mode=%o; mknod S_IFREG=%d reg=%d; again=%d EEXIST=%d\n", r1,
           S_ISFIFO(st.st_mode), st.st_mode & 0777, r2, S_ISREG(st2.st_mode), r3, errno == EEXIST);
    int rd = open("fifo", O_RDONLY | O_NONBLOCK);
    int wr = open("fifo", O_WRONLY);
    write(wr, "through fifo", 12);
    char buf[16] = {0};
    ssize_t n = read(rd, buf, sizeof buf - 1);
    printf("fifo read %zd '%s'\n", n, buf);
    close(rd);
    close(wr);
    unlink("fifo");
    unlink("plain");
}

static void locks_and_sync(void)
{
    int fd = open("lock.dat", O_CREAT | O_RDWR, 0644);
    int a = flock(fd, LOCK_EX), b = flock(fd, LOCK_UN), c = flock(fd, LOCK_SH | LOCK_NB);
    errno = 0;
    int d = flock(fd, 0);
    printf("flock EX=%d UN=%d SH|NB=%d bad op=%d EINVAL=%d\n", a, b, c, d, errno == EINVAL);
    int f = fallocate(fd, 0, 0, 16384);
    struct stat st;
    fstat(fd, &st);
    int adv = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    sync();
    int sf = syncfs(fd);
    printf("fallocate=%d size=%lld fadvise=%d syncfs=%d\n", f, (long long)st.st_size, adv, sf);
    symlink("lock.dat", "lock.lnk");
    int l1 = lchown("lock.lnk", getuid(), getgid());
    errno = 0;
    int l2 = lchown("no-such-file", getuid(), getgid());
    int l3 = fchown(fd, getuid(), getgid());
    printf("lchown=%d missing=%d ENOENT=%d fchown=%d\n", l1, l2, errno == ENOENT, l3);
    close(fd);
    unlink("lock.lnk");
    unlink("lock.dat");
}

static void copies(void)
{
    int m = memfd_create("scratch", MFD_CLOEXEC);
    const char text[] = "0123456789abcdefghij";
    write(m, text, 20);
    struct stat st;
    fstat(m, &st);
    printf("memfd: size=%lld cloexec=%d\n", (long long)st.st_size,
           (fcntl(m, F_GETFD) & FD_CLOEXEC) != 0);
    int p[2];
    pipe(p);
    off_t off = 5;
    ssize_t s = sendfile(p[1], m, &off, 6);
    char buf[32] = {0};
    ssize_t r = read(p[0], buf, sizeof buf - 1);
    printf("sendfile=%zd offset now %lld, pipe got '%.*s'\n", s, (long long)off, (int)r, buf);
    lseek(m, 0, SEEK_SET);
    s = sendfile(p[1], m, NULL, 4);
    memset(buf, 0, sizeof buf);
    r = read(p[0], buf, sizeof buf - 1);
    printf("sendfile from file offset=%zd '%s' pos now %lld\n", s, buf,
           (long long)lseek(m, 0, SEEK_CUR));
    /* copy_file_range between two files of one file system (memfd's is another). */
    int src = open("source.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
    write(src, text, 20);
    int out = open("copy.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
    loff_t in_off = 10, out_off = 2;
    ssize_t c = copy_file_range(src, &in_off, out, &out_off, 8, 0);
    close(src);
    unlink("source.dat");
    memset(buf, 0, sizeof buf);
    pread(out, buf, sizeof buf - 1, 0);
    printf("copy_file_range=%zd offsets %lld %lld, file '%c%c%s'\n", c, (long long)in_off,
           (long long)out_off, buf[0] ? buf[0] : '.', buf[1] ? buf[1] : '.', buf + 2);

    struct statx sx;
    int x = statx(AT_FDCWD, "copy.dat", 0, STATX_SIZE | STATX_MODE, &sx);
    int y = statx(out, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx);
    errno = 0;
    int z = statx(AT_FDCWD, "missing", 0, STATX_SIZE, &sx);
    printf("statx=%d empty-path=%d size=%llu reg=%d mask has size=%d; missing=%d ENOENT=%d\n", x,
           y, (unsigned long long)sx.stx_size, S_ISREG(sx.stx_mode),
           (sx.stx_mask & STATX_SIZE) != 0, z, errno == ENOENT);
    close(out);
    unlink("copy.dat");
    close(p[0]);
    close(p[1]);
    close(m);
}

static void ranges(void)
{
    int base = open("/dev/null", O_RDONLY);
    int a = dup(base), b = dup(base), c = dup(base);
    int r1 = close_range((unsigned)b, ~0u, CLOSE_RANGE_CLOEXEC);
    int ce = (fcntl(b, F_GETFD) & FD_CLOEXEC) && (fcntl(c, F_GETFD) & FD_CLOEXEC) &&
             !(fcntl(a, F_GETFD) & FD_CLOEXEC);
    int r2 = close_range((unsigned)a, (unsigned)b, 0);
    int closed = fcntl(a, F_GETFD) == -1 && fcntl(b, F_GETFD) == -1 && fcntl(c, F_GETFD) >= 0;
    errno = 0;
    int r3 = close_range(5, 4, 0);
    printf("close_range cloexec=%d ok=%d; close=%d ok=%d; reversed=%d EINVAL=%d\n", r1, ce, r2,
           closed, r3, errno == EINVAL);
    close(c);
    close(base);
}

static void counters(void)
{
    int e = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
    eventfd_t v;
    int reads = 0;
    while (eventfd_read(e, &v) == 0 && v == 1)
        reads++;
    printf("eventfd semaphore: %d reads of 1, then EAGAIN=%d\n", reads, errno == EAGAIN);
    close(e);

    int t = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct itimerspec its = {{0, 0}, {5, 0}}, cur;
    timerfd_settime(t, 0, &its, NULL);
    uint64_t n = 0;
    errno = 0;
    ssize_t r = read(t, &n, 8);
    timerfd_gettime(t, &cur);
    printf("timerfd: armed read=%zd EAGAIN=%d remaining<=5s=%d cloexec=%d\n", r, errno == EAGAIN,
           cur.it_value.tv_sec <= 5 && (cur.it_value.tv_sec || cur.it_value.tv_nsec),
           (fcntl(t, F_GETFD) & FD_CLOEXEC) != 0);
    its.it_value = (struct timespec){0, 10000000};
    timerfd_settime(t, 0, &its, NULL);
    fcntl(t, F_SETFL, 0);
    r = read(t, &n, 8);
    timerfd_gettime(t, &cur);
    printf("timerfd: blocking read=%zd expirations>=1: %d disarmed=%d\n", r, n >= 1,
           cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
    close(t);
}

static void identity(void)
{
    int n = getgroups(0, NULL);
    gid_t g[256];
    int m = getgroups(256, g);
    uid_t ru, eu, su;
    gid_t rg, eg, sg;
    int a = getresuid(&ru, &eu, &su), b = getresgid(&rg, &eg, &sg);
    printf("getgroups count=%d list=%d same=%d; getresuid=%d ok=%d getresgid=%d ok=%d\n", n >= 0, m,
           n == m, a, ru == getuid() && eu == geteuid(), b, rg == getgid() && eg == getegid());
}

static void residency(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, 4 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    p[0] = 1;
    p[2 * pg] = 1;
    /* Residency is not compared: qemu-alpha fills the vector per 4 KiB host page. */
    unsigned char vec[16];
    int r = mincore(p, 4 * (size_t)pg, vec);
    errno = 0;
    int r2 = mincore(p + 1, (size_t)pg, vec);
    int e2 = errno == EINVAL;
    munmap(p + 3 * pg, (size_t)pg);
    errno = 0;
    int r3 = mincore(p, 4 * (size_t)pg, vec);
    printf("mincore=%d; unaligned=%d EINVAL=%d; hole=%d ENOMEM=%d\n", r, r2, e2, r3,
           errno == ENOMEM);
    munmap(p, 3 * (size_t)pg);
}

int main(void)
{
    old_getdents();
    fifos();
    locks_and_sync();
    copies();
    ranges();
    counters();
    identity();
    residency();
    return 0;
}
