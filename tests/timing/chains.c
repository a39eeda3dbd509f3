/* N independent chains of adds (N = 2..6, argv[2]), each add dependent on the
 * previous one of its chain: 60 adds per iteration, the chains taking turns.
 * argv[3] selects the code that writes the chain registers before the loop
 * (0: immediates, 1: one dependent sequence through all of them, 2: loads
 * from memory, 3: pairs of shifts), so the loop starts with its registers
 * last written from different pipes and clusters; the steady state must not
 * depend on it (docs/timing.md has the analytical IPC per N). */
#include <stdlib.h>

#define A(k) "addq %" #k ",1,%" #k "\n\t"
#define R2(x) x x
#define R5(x) x x x x x
#define R10(x) R5(x) R5(x)
#define R12(x) R10(x) R2(x)
#define R15(x) R10(x) R5(x)
#define R20(x) R10(x) R10(x)
#define R30(x) R10(x) R20(x)
#define OPS "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3), "+r"(r4), "+r"(r5)
#define OUTS "=&r"(r0), "=&r"(r1), "=&r"(r2), "=&r"(r3), "=&r"(r4), "=&r"(r5)

static long mem[6] = { 3, 5, 7, 11, 13, 17 };

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000;
  int chains = argc > 2 ? atoi(argv[2]) : 4;
  int how = argc > 3 ? atoi(argv[3]) : 0;
  long r0, r1, r2, r3, r4, r5;
  /* Kept in registers from here to the loop (no stack round trip). */
  if (how == 1)        /* one dependent sequence: each register from the previous one */
    __asm__ volatile("addq $31,3,%0\n\taddq %0,2,%1\n\taddq %1,2,%2\n\t"
                     "addq %2,4,%3\n\taddq %3,2,%4\n\taddq %4,4,%5" : OUTS);
  else if (how == 2)   /* loads: the lower subcluster */
    __asm__ volatile("ldq %0,0(%6)\n\tldq %1,8(%6)\n\tldq %2,16(%6)\n\t"
                     "ldq %3,24(%6)\n\tldq %4,32(%6)\n\tldq %5,40(%6)" : OUTS : "r"(mem) : "memory");
  else if (how == 3)   /* shifts: the upper subcluster */
    __asm__ volatile("addq $31,3,%0\n\tsll %0,1,%1\n\tsll %0,2,%2\n\t"
                     "sll %1,2,%3\n\tsll %2,1,%4\n\tsll %3,1,%5" : OUTS);
  else                 /* immediates, one per register */
    __asm__ volatile("addq $31,3,%0\n\taddq $31,5,%1\n\taddq $31,7,%2\n\t"
                     "addq $31,11,%3\n\taddq $31,13,%4\n\taddq $31,17,%5" : OUTS);
  switch (chains) {
  case 2: for (long i = 0; i < n; i++) __asm__ volatile(R30(A(0) A(1)) : OPS); break;
  case 3: for (long i = 0; i < n; i++) __asm__ volatile(R20(A(0) A(1) A(2)) : OPS); break;
  case 4: for (long i = 0; i < n; i++) __asm__ volatile(R15(A(0) A(1) A(2) A(3)) : OPS); break;
  case 5: for (long i = 0; i < n; i++) __asm__ volatile(R12(A(0) A(1) A(2) A(3) A(4)) : OPS); break;
  case 6: for (long i = 0; i < n; i++) __asm__ volatile(R10(A(0) A(1) A(2) A(3) A(4) A(5)) : OPS); break;
  default: return 2;
  }
  return (int)((r0 + r1 + r2 + r3 + r4 + r5) & 1);
}
