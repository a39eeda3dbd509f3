/* Call-graph fixture: a known call tree with recursion and a libc callback
 * (qsort's comparator). Built -O1 -fno-omit-frame-pointer -fno-inline. */
#include <stdlib.h>
#include <stdio.h>
static volatile unsigned long sink;
__attribute__((noinline)) void leaf(int n) { for (int i = 0; i < n; i++) sink += i * 7; }
__attribute__((noinline)) void fib(int d) { if (d <= 0) { leaf(2000); return; } fib(d - 1); leaf(300); }
__attribute__((noinline)) int cmp(const void *a, const void *b) {
  for (int i = 0; i < 20; i++) sink += i;
  return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) void sorter(void) {
  static int v[4096];
  for (int i = 0; i < 4096; i++) v[i] = (i * 2654435761u) >> 7;
  qsort(v, 4096, sizeof v[0], cmp); }
__attribute__((noinline)) void busy(void) { leaf(50000); }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300;
  for (int r = 0; r < n; r++) { fib(6); sorter(); busy(); }
  printf("%lu\n", sink);
  return 0; }
