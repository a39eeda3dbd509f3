/* Physical memory from the guest's side: touching memory (every page gets a
 * frame), a single mapping larger than the RAM (Linux's heuristic overcommit
 * refuses it with ENOMEM), and a MAP_SHARED page written by a forked child.
 *   oom touch MB | oom bigmap MB | oom shared | oom sysinfo */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

static int touch(long mb)
{
    size_t len = (size_t)mb << 20;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { printf("mmap: %s\n", strerror(errno)); return 1; }
    for (size_t i = 0; i < len; i += 8192) p[i] = (char)i;
    printf("touched %ld MB\n", mb);
    return 0;
}

static int bigmap(long mb)
{
    void *p = mmap(NULL, (size_t)mb << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("%s\n", p == MAP_FAILED ? (errno == ENOMEM ? "ENOMEM" : strerror(errno)) : "mapped");
    return 0;
}

static int shared(void)
{
    volatile long *s = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    long *priv = malloc(sizeof *priv);
    *priv = 1;
    s[0] = 1;
    pid_t pid = fork();
    if (pid == 0) { s[0] = 42; *priv = 43; _exit(0); }
    waitpid(pid, NULL, 0);
    printf("shared %ld private %ld\n", s[0], *priv);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "touch")) return touch(atol(argv[2]));
    if (argc == 3 && !strcmp(argv[1], "bigmap")) return bigmap(atol(argv[2]));
    if (argc == 2 && !strcmp(argv[1], "shared")) return shared();
    if (argc == 2 && !strcmp(argv[1], "sysinfo")) {
        struct sysinfo si;
        sysinfo(&si);
        printf("totalram %lu MB, free %d\n", (unsigned long)(si.totalram * si.mem_unit >> 20),
               si.freeram > 0 && si.freeram < si.totalram);
        return 0;
    }
    fprintf(stderr, "usage: oom touch MB | bigmap MB | shared\n");
    return 2;
}
