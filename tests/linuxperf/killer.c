/* killer USEC SIG PROG [ARGS...]: runs PROG, sends it signal SIG after USEC
 * microseconds of guest time (at once when USEC is 0), reaps it and exits 0
 * with a line saying how PROG ended. The machine must then exit cleanly,
 * whatever PROG (Linux's perf) was doing when it was killed; what PROG
 * started runs on to its end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: killer USEC SIG PROG [ARGS...]\n");
    return 2;
  }
  long usec = atol(argv[1]);
  int sig = atoi(argv[2]);
  pid_t pid = fork();
  if (pid < 0) { perror("fork"); return 1; }
  if (pid == 0) {
    execv(argv[3], argv + 3);
    perror(argv[3]);
    _exit(127);
  }
  struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };
  if (usec) nanosleep(&ts, NULL);
  int st = 0;
  pid_t r = waitpid(pid, &st, WNOHANG);
  if (r == 0) {
    kill(pid, sig);
    waitpid(pid, &st, 0);
  }
  if (WIFSIGNALED(st)) printf("killed by signal %d after %ld us\n", WTERMSIG(st), usec);
  else printf("exited %d before signal %d at %ld us\n", WEXITSTATUS(st), sig, usec);
  return 0;
}
