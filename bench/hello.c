/* Benchmark kernel: hello world, dynamically linked. Almost all of its
 * instructions are the dynamic linker's start-up work. */
#include <stdio.h>

int main(void)
{
  puts("hello, world");
  return 0;
}
