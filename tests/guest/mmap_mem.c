/* Memory mappings: anonymous private and shared (seen across fork), file
 * mappings with MAP_SHARED writes reaching the file and MAP_PRIVATE ones not,
 * mprotect, munmap of part of a mapping, mremap growth, MAP_FIXED over an
 * existing mapping, madvise(MADV_DONTNEED) zeroing anonymous memory, brk via
 * sbrk, and mincore/msync return values. Page size is 8 KiB on Alpha. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    printf("page size %ld\n", pg);
    unsigned char *a = mmap(NULL, 4 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("anon mmap ok=%d aligned=%d zero=%d\n", a != MAP_FAILED, ((uintptr_t)a % (uintptr_t)pg) == 0,
           a[0] == 0 && a[4 * pg - 1] == 0);
    memset(a, 0x5a, 4 * (size_t)pg);
    printf("munmap middle page=%d\n", munmap(a + pg, (size_t)pg));
    printf("neighbours intact: %d %d\n", a[0] == 0x5a, a[2 * pg] == 0x5a);
    munmap(a, (size_t)pg);
    munmap(a + 2 * pg, 2 * (size_t)pg);

    /* MAP_SHARED anonymous memory is shared with a forked child. */
    volatile int *shared = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    volatile int *priv = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    shared[0] = 1;
    priv[0] = 1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        shared[0] = 42;
        priv[0] = 42;
        _exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("after child: shared=%d private=%d\n", shared[0], priv[0]);

    /* File mappings. */
    int fd = open("mapped.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
    ftruncate(fd, 3 * pg);
    char *fm = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    strcpy(fm + 100, "written through MAP_SHARED");
    printf("msync=%d\n", msync(fm, 3 * (size_t)pg, MS_SYNC));
    char buf[64] = {0};
    pread(fd, buf, 26, 100);
    printf("file sees: %s\n", buf);
    pwrite(fd, "FILE", 4, 2 * pg);
    printf("mapping sees file write: %.4s\n", fm + 2 * pg);
    char *pm = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, pg);
    pm[0] = 'P';
    pread(fd, buf, 1, pg);
    printf("private write not in file: %d\n", buf[0] == 0);
    char *off = mmap(NULL, (size_t)pg, PROT_READ, MAP_SHARED, fd, 2 * pg);
    printf("offset mapping: %.4s\n", off);
    munmap(off, (size_t)pg);
    munmap(pm, (size_t)pg);
    munmap(fm, 3 * (size_t)pg);
    close(fd);
    unlink("mapped.dat");

    /* mprotect round trip, mremap growth keeping contents, MAP_FIXED. */
    char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    strcpy(m, "keep me");
    int ro = mprotect(m, (size_t)pg, PROT_READ);
    int rw = mprotect(m, (size_t)pg, PROT_READ | PROT_WRITE);
    printf("mprotect RO=%d RW=%d\n", ro, rw);
    char *g = mremap(m, 2 * (size_t)pg, 64 * (size_t)pg, MREMAP_MAYMOVE);
    g[64 * pg - 1] = 1;
    printf("mremap ok=%d contents=%s\n", g != MAP_FAILED, g);
    char *fx = mmap(g + 8 * pg, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    printf("MAP_FIXED at requested address: %d\n", fx == g + 8 * pg);
    g[9 * pg] = 7;
    int ma = madvise(g + 9 * pg, (size_t)pg, MADV_DONTNEED);
    printf("madvise DONTNEED=%d, page zeroed: %d\n", ma, g[9 * pg] == 0);
    unsigned char vec[4];
    printf("mincore=%d\n", mincore(g, 4 * (size_t)pg, vec));
    munmap(g, 64 * (size_t)pg);

    /* brk grows and shrinks the heap. */
    char *b0 = sbrk(0);
    char *b1 = sbrk(100000);
    memset(b1, 1, 100000);
    char *b2 = sbrk(0);
    sbrk(-100000);
    char *b3 = sbrk(0);
    printf("sbrk grew by 100000: %d, returned old break: %d, shrank back: %d\n", b2 - b0 == 100000,
           b1 == b0, b3 == b0);

    void *bad = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("mmap of length 0 fails: %d\n", bad == MAP_FAILED);
    return 0;
}
