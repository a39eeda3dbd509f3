/* mremap of a MAP_SHARED file mapping that has to move (the page after it is
 * taken): the moved pages still show the file, writes through them reach the
 * file, and unmapping them releases the file mapping once. (The grown part
 * lies past the end of the file and is not touched: Linux gives SIGBUS.) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char path[] = "mremap_file.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 1; }
    unlink(path);
    char *buf = malloc(2 * pg);
    for (long i = 0; i < 2 * pg; i++) buf[i] = (char)('a' + i % 26);
    if (write(fd, buf, 2 * pg) != 2 * pg) { perror("write"); return 1; }
    char *res = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *f = mmap(res, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (res == MAP_FAILED || f != res) { perror("mmap"); return 1; }
    f[5] = 'X';   /* touch before the move */
    char *g = mremap(f, 2 * pg, 4 * pg, MREMAP_MAYMOVE);
    if (g == MAP_FAILED) { perror("mremap"); return 1; }
    printf("moved: %d\n", g != f);
    printf("content kept: %d\n", g[5] == 'X' && memcmp(g + 6, buf + 6, 2 * pg - 6) == 0);
    g[pg + 7] = 'Y';
    if (munmap(g, 4 * pg)) { perror("munmap"); return 1; }
    char c[2];
    pread(fd, &c[0], 1, 5);
    pread(fd, &c[1], 1, pg + 7);
    printf("file sees writes: %c%c\n", c[0], c[1]);
    munmap(res + 2 * pg, pg);
    free(buf);
    close(fd);
    return 0;
}
