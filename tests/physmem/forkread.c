/* What the timing model sees of physical memory: 256 KB written (so in the
 * 4 MB Bcache), then read again by the same process (nofork), by a forked
 * child in its private copy (private: other frames, so from memory), or by
 * a child sharing it (shared: MAP_SHARED, the same frames).
 *   forkread nofork|private|shared */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEN (256 * 1024)

static long sum(const volatile long *p)
{
    long s = 0;
    for (int i = 0; i < LEN / 8; i += 8) s += p[i];   /* one load per 64-byte line */
    return s;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "nofork";
    int flags = strcmp(mode, "shared") ? MAP_PRIVATE : MAP_SHARED;
    volatile long *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < LEN / 8; i++) p[i] = i;
    if (!strcmp(mode, "nofork")) {
        printf("%ld\n", sum(p));
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0) { printf("%ld\n", sum(p)); _exit(0); }
    waitpid(pid, NULL, 0);
    return 0;
}
