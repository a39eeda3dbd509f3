/* Workload for scripts/same-output.sh: runs each argument program in turn,
 * each in a new subdirectory of the current one named after it (its files
 * apart from the others'), by fork and execv with the same environment,
 * waits for it and prints its exit status or signal. One recording of it
 * reaches the kernel's fork, exec, wait and exit paths and every system
 * call the programs make. Exit status: the number of programs that could
 * not be started. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
  int bad = 0;
  for (int i = 1; i < argc; i++) {
    const char *name = strrchr(argv[i], '/');
    name = name ? name + 1 : argv[i];
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { printf("%s: fork: %s\n", name, strerror(errno)); bad++; continue; }
    if (pid == 0) {
      if (mkdir(name, 0755) != 0 || chdir(name) != 0) { printf("%s: cannot make its directory\n", name); _exit(126); }
      char *args[] = { argv[i], NULL };
      execve(argv[i], args, environ);
      printf("%s: execve: %s\n", name, strerror(errno));
      _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid) { printf("%s: waitpid: %s\n", name, strerror(errno)); bad++; continue; }
    if (WIFEXITED(st)) printf("== %s: exit %d\n", name, WEXITSTATUS(st));
    else if (WIFSIGNALED(st)) printf("== %s: signal %d\n", name, WTERMSIG(st));
    if (WIFEXITED(st) && WEXITSTATUS(st) >= 126) bad++;
  }
  return bad;
}
