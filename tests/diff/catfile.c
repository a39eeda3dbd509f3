/* Prints the file named by argv[1]: tests/scripts/diff_callgrind.sh reads
 * the guest's /proc/kallsyms with it, for Linux perf's --kallsyms. */
#include <stdio.h>

int main(int argc, char **argv)
{
  FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
  if (!f) return 1;
  for (int c; (c = getc(f)) != EOF;) putchar(c);
  return fclose(f) != 0;
}
