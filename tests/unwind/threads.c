/* Workload for tests/scripts/unwind.sh: three threads (their stacks are
 * mmap'd, their outermost frame is glibc's clone) recursing and sorting
 * while main does the same. It prints nothing. An argument sets the number
 * of rounds each does (4). */
#include <pthread.h>
#include <stdlib.h>
volatile int sink;
static int rounds = 4;
__attribute__((noinline)) int leaf(int x) { return x * 3 + sink; }
/* A call after the recursive one keeps GCC from turning it into a loop. */
__attribute__((noinline)) int rec(int n) { if (n == 0) return leaf(n); int r = rec(n - 1); return leaf(r) + 1; }
static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; sink += leaf(x); return (x > y) - (x < y); }
static void *work(void *arg)
{
  int a[500], seed = (int)(long)arg;
  for (int round = 0; round < rounds; round++) {
    for (int i = 0; i < 500; i++) a[i] = (i * 7919 + seed + round) % 503;
    qsort(a, 500, sizeof a[0], cmp);
    for (int i = 0; i < 10; i++) sink += rec(20 + seed);
  }
  return NULL;
}
int main(int argc, char **argv)
{
  pthread_t t[3];
  if (argc > 1) rounds = atoi(argv[1]);
  for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, work, (void *)i);
  work((void *)7);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  return 0;
}
