/* A loop bound by the window: each iteration's load misses to memory (a
 * sweep over 16 MB, four times the B-cache, one load per 64-byte line) and
 * nothing depends on it, so the loads overlap as far as the window lets
 * instructions map past the oldest one, which holds its inums until it
 * retires. 20 instructions per iteration (the load, the pointer and count
 * updates, 16 independent adds into $31 that hold no rename register, the
 * branch), 16-byte aligned: five groups of four inums. A window of W
 * instructions then maps W instructions per load latency: IPC = W / (load
 * latency + retire), while W / 20 loads in flight fit the 8 MAF entries
 * (docs/timing.md, "What-if machines"). */
#include <stdlib.h>
#define BYTES (16ul << 20)
#define F "addq %2,%3,$31\n\t"
#define F4 F F F F
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  char *buf = aligned_alloc(8192, BYTES);
  if (!buf) return 1;
  for (size_t i = 0; i < BYTES; i += 8192) buf[i] = 1;   /* fault the pages in before the loop */
  long lines = (long)(BYTES / 64);
  for (long done = 0; done < n;) {
    long k = n - done < lines ? n - done : lines;
    char *p = buf;
    done += k;
    __asm__ volatile(".align 4\n"
                     "1:\tldq $1,0(%0)\n\t"
                     "lda %0,64(%0)\n\t"
                     "subq %1,1,%1\n\t"
                     F F F F4 F4 F4 F
                     "bne %1,1b"
                     : "+r"(p), "+r"(k) : "r"(lines), "r"(done) : "$1", "memory");
  }
  return 0;
}
