#include <stdlib.h>
#include <stdio.h>
/* Workload for tests/scripts/unwind.sh: recursion (also 300 deep), a leaf without a frame,
 * qsort calling back a comparator from libc, alloca (a frame-pointer frame),
 * and calls through the PLT (memset, snprintf). It prints nothing. An
 * argument sets the number of rounds (10; each adds some 0.4 ms of guest time). */
#include <string.h>
volatile int sink;
__attribute__((noinline)) int leaf(int x) { return x * 3 + sink; }
/* A call after the recursive one keeps GCC from turning it into a loop. */
__attribute__((noinline)) int rec(int n) { if (n == 0) return leaf(n); int r = rec(n - 1); return leaf(r) + 1; }
static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; sink += leaf(x); return (x > y) - (x < y); }
__attribute__((noinline)) void f3(char *buf, int n) { char *p = __builtin_alloca(n); memset(p, n, n); sink += p[n/2] + leaf(n); snprintf(buf, 64, "%d", n); }
__attribute__((noinline)) void f2(char *b, int n) { f3(b, n); sink++; }
__attribute__((noinline)) void f1(char *b, int n) { f2(b, n + 1); sink++; }
int main(int argc, char **argv) {
  int a[1000]; char buf[64];
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  for (int round = 0; round < rounds; round++) {
    for (int i = 0; i < 1000; i++) a[i] = (i * 7919 + round) % 1009;
    qsort(a, 1000, sizeof a[0], cmp);
    for (int i = 0; i < 20; i++) sink += rec(30 + argc);
    sink += rec(300);                     /* deeper than UNW_MAX_DEPTH (256) frames */
    f1(buf, 100 + argc + round);
  }
  sink += buf[0];
  return 0;
}
