/* What the machine knows of each Alpha system call, from syscall.def: the
 * NR_* numbers, the flags and, per number, the name and the kernel symbol.
 * Holds no handlers (syscall.c's dispatcher has those), so the kernel image
 * and the layers above can read it without linking the system calls. */
#ifndef GUEST_SYSTAB_H
#define GUEST_SYSTAB_H
#include <stdint.h>

enum {
#define SYSCALL(nr, name, handler, flags, ksym) NR_##name = nr,
#define SYSCALL_NI(nr, name) NR_##name = nr,
#include "guest/syscall.def"
#undef SYSCALL
#undef SYSCALL_NI
};

#define SYSF_RESTART   0x01u   /* SA_RESTART restarts it after a handler (else EINTR) */
#define SYSF_KFILE     0x02u   /* a kernel file may take it (sys_kfile, sys_perf.c) */
#define SYSF_COPIES    0x04u   /* a2 is the byte count it copies */
#define SYSF_EXEC      0x08u   /* it replaces the program image */
#define SYSF_SIGRETURN 0x10u   /* it returns from a signal handler */

struct sysent {
  const char *name;   /* as strace prints it */
  const char *ksym;   /* the kernel image's function for it */
  uint32_t flags;     /* SYSF_* */
};

/* The row of call nr, or NULL for a number the table has no row for. */
const struct sysent *sys_entry(uint64_t nr);
/* The flags of call nr (0 for a number without a row). */
uint32_t sys_flags(uint64_t nr);

#endif
