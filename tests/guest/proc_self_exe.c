/* /proc/self/exe: readlink must name the guest program (not the emulator),
 * and execv("/proc/self/exe") must start the guest program again. qemu 7.2
 * cannot do the second part, so this test has an expected-output file
 * (proc_self_exe.expected) instead of the qemu oracle. The binary's name
 * is printed up to its first '.', so NAME.dyn and NAME.static agree. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n < 0) {
        printf("readlink failed: %s\n", strerror(errno));
        return 1;
    }
    path[n] = 0;
    char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    base[strcspn(base, ".")] = 0;
    printf("%s: readlink basename=%s absolute=%d\n", argc > 1 ? argv[1] : "first", base, path[0] == '/');
    if (argc > 1)
        return 0;
    fflush(stdout);
    execv("/proc/self/exe", (char *[]){argv[0], "re-executed", NULL});
    printf("exec /proc/self/exe failed: %s\n", strerror(errno));
    return 1;
}
