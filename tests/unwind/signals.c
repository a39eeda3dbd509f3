/* Workload for tests/scripts/unwind.sh: a signal handler (sent by kill, so
 * it interrupts libc's syscall stub) that recurses and calls qsort, so that
 * unwinds cross the signal frame (glibc's restorer, CIE augmentation "S")
 * into the interrupted code. It prints nothing. An argument sets the number
 * of signals (300). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
volatile int sink;
__attribute__((noinline)) int leaf(int x) { return x * 3 + sink; }
/* A call after the recursive one keeps GCC from turning it into a loop. */
__attribute__((noinline)) int rec(int n) { if (n == 0) return leaf(n); int r = rec(n - 1); return leaf(r) + 1; }
static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; sink += leaf(x); return (x > y) - (x < y); }
static void handler(int sig)
{
  int a[64];
  for (int i = 0; i < 64; i++) a[i] = (i * 37 + sig) % 61;
  qsort(a, 64, sizeof a[0], cmp);
  sink += rec(12);
}
__attribute__((noinline)) void poke(int n) { for (int i = 0; i < n; i++) { kill(getpid(), SIGUSR1); sink += rec(4); } }
int main(int argc, char **argv)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigaction(SIGUSR1, &sa, NULL);
  poke(argc > 1 ? atoi(argv[1]) : 300);
  return 0;
}
