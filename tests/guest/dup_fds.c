/* File descriptors: dup returns the lowest free number, dup2 onto an open
 * descriptor closes it, dup3 with O_CLOEXEC, fcntl F_DUPFD/F_GETFD/F_SETFD/
 * F_GETFL/F_SETFL, shared file offsets between duplicates, redirecting
 * stdout into a file and back, and reading stdin (the runner gives
 * /dev/null, so it is at EOF). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    char c;
    ssize_t n = read(0, &c, 1);
    printf("stdin read=%zd (EOF)\n", n);
    int fd = open("dupfile", O_RDWR | O_CREAT | O_TRUNC, 0644);
    int d1 = dup(fd);
    printf("dup gives next number: %d\n", d1 == fd + 1);
    close(fd);
    int d2 = dup(d1);
    printf("dup reuses the lowest free number: %d\n", d2 == fd);
    write(d1, "hello ", 6);
    write(d2, "world", 5);
    printf("offset shared: d1 at %lld, d2 at %lld\n", (long long)lseek(d1, 0, SEEK_CUR),
           (long long)lseek(d2, 0, SEEK_CUR));

    int target = 40;
    int r = dup2(d1, target);
    printf("dup2 to 40 returned 40: %d\n", r == target);
    int other = open("/dev/null", O_RDONLY);
    r = dup2(d1, other);
    char buf[32] = {0};
    lseek(other, 0, SEEK_SET);
    n = read(other, buf, sizeof buf - 1);
    printf("dup2 onto an open fd replaced it: read %zd '%s'\n", n, buf);
    printf("dup2 to itself: %d\n", dup2(d1, d1) == d1);
    errno = 0;
    r = dup2(1000, 50);
    printf("dup2 of a bad fd: r=%d EBADF=%d\n", r, errno == EBADF);

    r = dup3(d1, 45, O_CLOEXEC);
    printf("dup3 cloexec flag=%d, dup2 flag=%d\n", (fcntl(45, F_GETFD) & FD_CLOEXEC) != 0,
           (fcntl(target, F_GETFD) & FD_CLOEXEC) != 0);
    errno = 0;
    r = dup3(d1, d1, 0);
    printf("dup3 to itself: r=%d EINVAL=%d\n", r, errno == EINVAL);
    int f = fcntl(d1, F_DUPFD, 30);
    printf("F_DUPFD >= 30: %d\n", f == 30);
    f = fcntl(d1, F_DUPFD_CLOEXEC, 30);
    printf("F_DUPFD_CLOEXEC next: %d cloexec=%d\n", f == 31, (fcntl(f, F_GETFD) & FD_CLOEXEC) != 0);
    fcntl(f, F_SETFD, 0);
    printf("F_SETFD cleared: %d\n", fcntl(f, F_GETFD) == 0);
    int fl = fcntl(d1, F_GETFL);
    printf("F_GETFL accmode RDWR: %d append=%d\n", (fl & O_ACCMODE) == O_RDWR, (fl & O_APPEND) != 0);
    fcntl(d1, F_SETFL, fl | O_APPEND | O_NONBLOCK);
    fl = fcntl(d2, F_GETFL);
    printf("F_SETFL on one dup shows on the other: append=%d nonblock=%d\n", (fl & O_APPEND) != 0,
           (fl & O_NONBLOCK) != 0);

    /* Redirect stdout into a file, write through stdio, and restore. */
    fflush(stdout);
    int saved = dup(1);
    int out = open("captured", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    close(out);
    printf("this line goes to the file\n");
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    FILE *cf = fopen("captured", "r");
    fgets(buf, sizeof buf, cf);
    fclose(cf);
    printf("captured: %s", buf);

    int p[2];
    pipe2(p, O_CLOEXEC | O_NONBLOCK);
    errno = 0;
    n = read(p[0], buf, 1);
    printf("pipe2 nonblock empty read: %zd EAGAIN=%d cloexec=%d\n", n, errno == EAGAIN,
           (fcntl(p[1], F_GETFD) & FD_CLOEXEC) != 0);
    close(p[0]);
    close(p[1]);
    for (int i = 3; i < 64; i++)
        close(i);
    unlink("dupfile");
    unlink("captured");
    errno = 0;
    r = close(d1);
    printf("close twice: r=%d EBADF=%d\n", r, errno == EBADF);
    return 0;
}
