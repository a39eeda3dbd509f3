/* The workload the third-party perf programs measure
 * (tests/scripts/thirdparty_perf.sh): work PAGES LOOPS [CHILDREN]
 * touches PAGES fresh 8 KiB pages of an anonymous mapping (a page fault
 * each), runs LOOPS iterations of a dependent multiply-add chain, and with
 * CHILDREN forks that many children that each do the same before the
 * parent waits for them (what an inherited counter adds up). Prints a
 * checksum so that the work cannot be optimized away. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t work(long pages, long loops)
{
    long pg = sysconf(_SC_PAGESIZE);
    volatile char *p = mmap(NULL, (size_t)(pages * pg), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 0;
    for (long i = 0; i < pages; i++) p[i * pg] = (char)i;
    uint64_t x = 1;
    for (long i = 0; i < loops; i++) x = x * 6364136223846793005ull + (uint64_t)i;
    munmap((void *)p, (size_t)(pages * pg));
    return x;
}

int main(int argc, char **argv)
{
    long pages = argc > 1 ? atol(argv[1]) : 100, loops = argc > 2 ? atol(argv[2]) : 100000;
    int children = argc > 3 ? atoi(argv[3]) : 0;
    for (int c = 0; c < children; c++) {
        pid_t pid = fork();
        if (pid == 0) _exit((int)(work(pages, loops) & 1));
    }
    uint64_t x = work(pages, loops);
    for (int c = 0; c < children; c++) wait(NULL);
    printf("work %ld pages %ld loops %d children: %016llx\n", pages, loops, children,
           (unsigned long long)x);
    return 0;
}
