/* Loads sweeping an array of argv[2] KB line by line (one load per 64-byte
 * line, nothing depending on it), over and over: argv[1] loads. Once the
 * array has been read, a Dcache that holds it never misses; one smaller than
 * the array, with round-robin replacement, misses on every load of the
 * cyclic sweep (docs/timing.md, "What-if machines"). */
#include <stdlib.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  long kb = argc > 2 ? atol(argv[2]) : 32;
  char *buf = aligned_alloc(8192, (size_t)kb << 10);
  if (!buf || kb < 1) return 1;
  for (long i = 0; i < kb << 10; i += 64) buf[i] = 1;
  long lines = kb << 4;
  for (long done = 0; done < n;) {
    long k = n - done < lines ? n - done : lines;
    char *p = buf;
    done += k;
    __asm__ volatile(".align 4\n"
                     "1:\tldq $1,0(%0)\n\t"
                     "lda %0,64(%0)\n\t"
                     "subq %1,1,%1\n\t"
                     "bne %1,1b"
                     : "+r"(p), "+r"(k) : : "$1", "memory");
  }
  return 0;
}
