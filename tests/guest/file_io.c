/* File I/O through system calls: open flags (O_CREAT|O_EXCL, O_APPEND,
 * O_TRUNC), read/write, lseek (SEEK_SET/CUR/END, holes), pread/pwrite,
 * readv/writev, fstat/stat/lstat fields, rename, link, symlink/readlink,
 * unlink, ftruncate, access, chmod, fsync, and errno values of failures. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* Prints the result of a call that is expected to fail, with its errno name. */
static void expect_fail(const char *what, int r)
{
    const char *name = errno == ENOENT ? "ENOENT" : errno == EEXIST ? "EEXIST" : errno == EBADF ? "EBADF"
                     : errno == EISDIR ? "EISDIR" : errno == ENOTDIR ? "ENOTDIR" : errno == EINVAL ? "EINVAL"
                     : errno == ESPIPE ? "ESPIPE" : errno == EACCES ? "EACCES" : "other";
    printf("%s: r=%d errno=%s\n", what, r, r < 0 ? name : "-");
}

/* Prints the interesting, deterministic fields of a stat result. */
static void show_stat(const char *tag, const struct stat *st)
{
    printf("%s: size=%lld mode=%o type=%s nlink=%lu blocks-nonneg=%d\n", tag, (long long)st->st_size,
           st->st_mode & 07777, S_ISREG(st->st_mode) ? "reg" : S_ISDIR(st->st_mode) ? "dir"
                              : S_ISLNK(st->st_mode) ? "lnk" : "other",
           (unsigned long)st->st_nlink, st->st_blocks >= 0);
}

int main(void)
{
    umask(022);
    int fd = open("data.bin", O_RDWR | O_CREAT | O_EXCL, 0640);
    printf("open new: ok=%d\n", fd >= 0);
    errno = 0;
    expect_fail("open O_EXCL again", open("data.bin", O_RDWR | O_CREAT | O_EXCL, 0640));
    char block[1000];
    for (int i = 0; i < 1000; i++)
        block[i] = (char)('A' + i % 26);
    ssize_t w = write(fd, block, sizeof block);
    printf("write=%zd pos=%lld\n", w, (long long)lseek(fd, 0, SEEK_CUR));
    long long s1 = lseek(fd, 10, SEEK_SET);
    long long s2 = lseek(fd, 5, SEEK_CUR);
    long long s3 = lseek(fd, -3, SEEK_END);
    printf("seek set=%lld cur=%lld end=%lld\n", s1, s2, s3);
    char buf[64] = {0};
    ssize_t n = read(fd, buf, 10);
    printf("read at end-3: %zd '%.3s'\n", n, buf);
    n = read(fd, buf, 10);
    printf("read at eof: %zd\n", n);

    /* A hole: seek far past the end and write; the gap reads as zeros. */
    lseek(fd, 100000, SEEK_SET);
    write(fd, "END", 3);
    struct stat st;
    fstat(fd, &st);
    show_stat("fstat after hole", &st);
    memset(buf, 1, sizeof buf);
    n = pread(fd, buf, 8, 50000);
    printf("pread in hole: %zd first=%d\n", n, buf[0]);
    n = pwrite(fd, "xyz", 3, 20);
    printf("pwrite: %zd, pos unchanged=%d\n", n, lseek(fd, 0, SEEK_CUR) == 100003);
    pread(fd, buf, 6, 18);
    printf("pread back: '%.6s'\n", buf);

    struct iovec iov[3] = {{"one,", 4}, {"two,", 4}, {"three", 5}};
    lseek(fd, 0, SEEK_SET);
    printf("writev=%zd\n", writev(fd, iov, 3));
    char r1[5] = {0}, r2[9] = {0};
    struct iovec riov[2] = {{r1, 4}, {r2, 8}};
    lseek(fd, 0, SEEK_SET);
    n = readv(fd, riov, 2);
    printf("readv=%zd '%s' '%s'\n", n, r1, r2);

    printf("ftruncate=%d\n", ftruncate(fd, 7));
    fstat(fd, &st);
    show_stat("after ftruncate", &st);
    fsync(fd);
    close(fd);
    expect_fail("read closed fd", (int)read(fd, buf, 1));

    fd = open("data.bin", O_WRONLY | O_APPEND);
    write(fd, "+app", 4);
    lseek(fd, 0, SEEK_SET);
    write(fd, "+end", 4);
    close(fd);
    fd = open("data.bin", O_RDONLY);
    memset(buf, 0, sizeof buf);
    n = read(fd, buf, sizeof buf - 1);
    printf("after appends: %zd '%s'\n", n, buf);
    close(fd);

    stat("data.bin", &st);
    show_stat("stat", &st);
    printf("rename=%d\n", rename("data.bin", "renamed.bin"));
    expect_fail("stat old name", stat("data.bin", &st));
    printf("link=%d\n", link("renamed.bin", "hard.bin"));
    stat("renamed.bin", &st);
    show_stat("after link", &st);
    printf("symlink=%d\n", symlink("renamed.bin", "soft.lnk"));
    lstat("soft.lnk", &st);
    show_stat("lstat symlink", &st);
    char target[64] = {0};
    n = readlink("soft.lnk", target, sizeof target - 1);
    printf("readlink=%zd '%s'\n", n, target);
    stat("soft.lnk", &st);
    show_stat("stat through symlink", &st);
    printf("chmod=%d ", chmod("renamed.bin", 0600));
    stat("renamed.bin", &st);
    printf("mode now %o\n", st.st_mode & 0777);
    printf("access R=%d X=%d\n", access("renamed.bin", R_OK), access("renamed.bin", X_OK) == 0);

    fd = open("renamed.bin", O_RDWR | O_TRUNC);
    fstat(fd, &st);
    show_stat("O_TRUNC", &st);
    close(fd);
    errno = 0;
    expect_fail("open missing", open("missing/file", O_RDONLY));
    expect_fail("open dir for write", open(".", O_WRONLY));
    expect_fail("file as dir", open("renamed.bin/x", O_RDONLY));
    int p[2];
    pipe(p);
    expect_fail("lseek on pipe", (int)lseek(p[0], 0, SEEK_SET));
    close(p[0]);
    close(p[1]);
    int u1 = unlink("soft.lnk"), u2 = unlink("hard.bin"), u3 = unlink("renamed.bin");
    printf("unlink=%d %d %d\n", u1, u2, u3);
    expect_fail("unlink again", unlink("renamed.bin"));

    /* O_CREAT honours the umask. */
    umask(077);
    fd = open("masked", O_CREAT | O_WRONLY, 0666);
    fstat(fd, &st);
    printf("umask 077 gives mode %o\n", st.st_mode & 0777);
    close(fd);
    unlink("masked");
    return 0;
}
