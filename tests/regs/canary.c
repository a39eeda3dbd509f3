/* Register and stack sampling workload: work() keeps eight known words
 * (CANARY ^ i) in a local array on its stack frame while it loops, so every
 * sample inside its loop has them in the user stack dump; main also makes
 * system calls (the kernel's entry code gets sampled) and sleeps (context
 * switches). */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CANARY 0x5ca1ab1e0ddba110ul

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long work(unsigned long n)
{
  volatile unsigned long buf[8];
  for (int i = 0; i < 8; i++) buf[i] = CANARY ^ (unsigned long)i;
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; i++) s += buf[i & 7] * i;
  return s;
}

int main(int argc, char **argv)
{
  unsigned long n = argc > 1 ? strtoul(argv[1], 0, 0) : 200000;
  int rounds = argc > 2 ? atoi(argv[2]) : 20;
  struct timespec ts = { 0, 100000 };
  for (int k = 0; k < rounds; k++) {
    sink += work(n);
    for (int j = 0; j < 50; j++) sink += (unsigned long)getppid();
    nanosleep(&ts, NULL);
  }
  return 0;
}
