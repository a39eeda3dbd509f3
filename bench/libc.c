/* Benchmark kernel for library-heavy code: formatted output into buffers
 * (snprintf), parsing back (strtoul, strtod), string handling (strlen, strcmp,
 * memcpy, strchr), qsort and malloc/free churn: the mix where time goes to
 * glibc's routines rather than to one loop. Rounds are argv[1] (default 40).
 * Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static int cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 40;
  static char *s[N];
  unsigned long sum = 0, x = 88172645463325252ul;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < N; i++) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      char buf[96];
      int len = snprintf(buf, sizeof buf, "%lx:%lu:%.3f:%s", x >> 20, x % 99991,
                         (double)(x % 100000) / 7.0, i & 1 ? "odd" : "even");
      s[i] = malloc((size_t)len + 1);
      if (!s[i]) return 1;
      memcpy(s[i], buf, (size_t)len + 1);
    }
    qsort(s, N, sizeof *s, cmp);
    for (int i = 0; i < N; i++) {
      char *end, *p = strchr(s[i], ':');
      sum += strtoul(s[i], &end, 16) + strlen(s[i]);
      if (p) sum += (unsigned long)strtod(strchr(p + 1, ':') + 1, NULL);
      free(s[i]);
    }
  }
  printf("%016lx\n", sum);
  return 0;
}
