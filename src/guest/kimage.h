/* The synthetic kernel image. The modelled kernel runs as host code, but the
 * cycles it costs are charged at the PCs of a documented, made-up kernel text
 * (symbols named as in arch/alpha and kernel/), so kernel-mode samples have
 * real-looking PCs and [kernel.kallsyms] symbols. Each kernel activity is a
 * path: a list of (function, instructions executed there) that the timing
 * model runs in kernel mode through the text kimage_word describes. */
#ifndef GUEST_KIMAGE_H
#define GUEST_KIMAGE_H
#include <stddef.h>
#include <stdint.h>

#define KIMAGE_TEXT_BASE 0xfffffc0000310000ull   /* arch/alpha KERNEL_START text */

struct ksym {
  const char *name;
  uint64_t addr, size;
};

/* Kernel activities that cost time. */
enum kactivity {
  KACT_SYSCALL,       /* entSys ... sys_xxx ... ret_from_sys_call */
  KACT_UNALIGNED,     /* entUna, do_entUna: the fix-up of one access */
  KACT_PAGE_FAULT,    /* entMM, do_page_fault, clear_page: first touch of a page */
  KACT_INTERRUPT,     /* entInt, handle_irq, the PMU handler up to the counter rewrite */
  KACT_PMU_OUTPUT,    /* the rest of the PMU handler: the sample written (bytes) */
  KACT_SIGNAL,        /* do_signal, setup_rt_frame */
  KACT_TIMER,         /* entInt, the timer interrupt, scheduler_tick, perf's tick */
  KACT_SCHEDULE,      /* schedule(): a context switch */
};

/* One leg of a kernel path: n instructions executed in function sym. */
struct kleg { const struct ksym *sym; unsigned insns; };

/* The instruction word at pc of the kernel text (0 outside it): a fixed mix
 * of integer operations, loads, stores and short forward conditional
 * branches, the same for every run. */
uint32_t kimage_word(uint64_t pc);
/* Returns the symbol table (sorted by address) and its length. */
const struct ksym *kimage_symbols(size_t *n);
/* Returns the symbol containing addr, or NULL. */
const struct ksym *kimage_lookup(uint64_t addr);
/* Fills legs (at most max) with the path of an activity; arg is the syscall
 * number (KACT_SYSCALL) or a byte count where it matters. Returns the count. */
size_t kimage_path(enum kactivity act, uint64_t nr, uint64_t bytes, struct kleg *legs, size_t max);

#endif
