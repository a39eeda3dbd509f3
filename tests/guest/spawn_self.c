/* Starting the program itself as a child: vfork+execv, posix_spawn with
 * file actions (stdout redirected into a pipe the parent reads), and
 * posix_spawnp; exit statuses collected with waitpid.
 * Not tested: posix_spawn of a missing file, which Linux reports as ENOENT
 * but qemu 7.2 (which runs CLONE_VFORK children as plain forks) as success
 * with a child exiting 127. */
//@ exec
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "child") == 0) {
        printf("child %s: argc=%d SPAWN_VAR=%s\n", argv[2], argc,
               getenv("SPAWN_VAR") ? getenv("SPAWN_VAR") : "(unset)");
        return atoi(argv[2]);
    }

    /* vfork: the child shares memory until execv. */
    fflush(stdout);
    setenv("SPAWN_VAR", "set-by-parent", 1);
    pid_t pid = vfork();
    if (pid == 0) {
        execv(argv[0], (char *[]){argv[0], "child", "11", NULL});
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("vfork child exited=%d status=%d\n", WIFEXITED(status), WEXITSTATUS(status));

    /* A vfork child that fails to exec reports through _exit. */
    fflush(stdout);
    pid = vfork();
    if (pid == 0) {
        execv("./no-such-program", (char *[]){"x", NULL});
        _exit(errno == ENOENT ? 66 : 67);
    }
    waitpid(pid, &status, 0);
    printf("failed exec in vfork child: status=%d\n", WEXITSTATUS(status));

    /* posix_spawn with the child's stdout going into a pipe. */
    int fds[2];
    pipe(fds);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    char *cargv[] = {argv[0], "child", "22", "extra", NULL};
    int r = posix_spawn(&pid, argv[0], &fa, NULL, cargv, environ);
    close(fds[1]);
    char buf[256] = {0};
    size_t got = 0;
    ssize_t n;
    while ((n = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    close(fds[0]);
    waitpid(pid, &status, 0);
    posix_spawn_file_actions_destroy(&fa);
    printf("posix_spawn r=%d, via pipe: %s", r, buf);
    printf("posix_spawn child status=%d\n", WEXITSTATUS(status));

    /* posix_spawnp with a path containing a slash and a custom environment. */
    char *cenv[] = {"SPAWN_VAR=custom-env", NULL};
    fflush(stdout);
    r = posix_spawnp(&pid, argv[0], NULL, NULL, (char *[]){argv[0], "child", "33", NULL}, cenv);
    waitpid(pid, &status, 0);
    printf("posix_spawnp r=%d status=%d\n", r, WEXITSTATUS(status));

    return 0;
}
