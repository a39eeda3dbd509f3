/* Workload for tests/scripts/callchain_truth.sh: processes made by fork.
 * main forks two children, each forking a grandchild; every process
 * recurses and sorts (qsort's comparator called from libc), the children
 * from inside the call chain that forked them, so their true stacks start
 * with frames copied from the parent. Parents wait for their children. It
 * prints nothing. An argument sets the number of rounds each does (8). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
volatile int sink;
static int rounds = 8;
__attribute__((noinline)) int leaf(int x) { return x * 3 + sink; }
/* A call after the recursive one keeps GCC from turning it into a loop. */
__attribute__((noinline)) int rec(int n) { if (n == 0) return leaf(n); int r = rec(n - 1); return leaf(r) + 1; }
static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; sink += leaf(x); return (x > y) - (x < y); }
__attribute__((noinline)) void work(int seed)
{
  int a[400];
  for (int round = 0; round < rounds; round++) {
    for (int i = 0; i < 400; i++) a[i] = (i * 7919 + seed + round) % 401;
    qsort(a, 400, sizeof a[0], cmp);
    for (int i = 0; i < 8; i++) sink += rec(15 + seed);
  }
}
/* Forks a child that works (and, at depth 0, forks its own) and returns. */
__attribute__((noinline)) pid_t spawn(int seed, int depth)
{
  pid_t p = fork();
  if (p == 0) {
    pid_t g = depth == 0 ? spawn(seed + 10, 1) : -1;
    work(seed);
    if (g > 0) waitpid(g, NULL, 0);
    _exit(0);
  }
  return p;
}
int main(int argc, char **argv)
{
  if (argc > 1) rounds = atoi(argv[1]);
  pid_t c[2];
  for (int i = 0; i < 2; i++) c[i] = spawn(i, 0);
  work(7);
  for (int i = 0; i < 2; i++) waitpid(c[i], NULL, 0);
  return 0;
}
