/* The synthetic kernel image. The modelled kernel runs as host code, but the
 * cycles it costs are charged at the PCs of a documented, made-up kernel text
 * (symbols named as in arch/alpha and kernel/), so kernel-mode samples have
 * real-looking PCs and [kernel.kallsyms] symbols. Each kernel activity is a
 * path: a list of (function, instructions executed there) that the timing
 * model runs in kernel mode through the text kimage_word describes. */
#ifndef GUEST_KIMAGE_H
#define GUEST_KIMAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KIMAGE_TEXT_BASE 0xfffffc0000310000ull   /* arch/alpha KERNEL_START text */
/* KSEG, the kernel's identity map of physical memory (arch/alpha IDENT_ADDR):
 * a kernel address there is physical address va - KIMAGE_KSEG. */
#define KIMAGE_KSEG 0xfffffc0000000000ull
/* The physical memory the kernel keeps for itself from address 0: console and
 * PALcode below the image (0x310000), the text, and the data its timed paths
 * touch (up to the stacks' region, KIMAGE_KSTACK_BASE). Reserved in the RAM at
 * boot (memblock_reserve), so no user frame shares its cache lines. */
#define KIMAGE_PHYS_BYTES 0x2000000ull          /* 32 MB */

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

/* ---- the kernel's stacks and frames (what register and callchain sampling
 * report of kernel code) ----
 * Each task has a THREAD_SIZE (16 KB, two 8 KB pages) kernel stack in KSEG;
 * entering the kernel from user mode puts the trap frame (struct pt_regs, 29
 * quadwords: r0-r8, r19-r28, hae, trap_a0-a2, then ps, pc, gp, r16-r18 that
 * PALcode pushes first) at its top, as task_pt_regs() finds it. */
#define KIMAGE_KSTACK_BASE 0xfffffc0002000000ull
#define KIMAGE_THREAD_SIZE 0x4000ull
#define KIMAGE_KSTACKS 4096           /* stacks the region holds (tid modulo) */
#define KIMAGE_PT_REGS_SIZE (29 * 8)
#define KIMAGE_PAL_FRAME_SIZE (6 * 8)  /* ps, pc, gp, r16-r18, pushed by PALcode */
#define KIMAGE_SWITCH_STACK_SIZE (40 * 8)   /* r9-r15, r26, f0-f30, fpcr */
/* The instructions at the start of an entry point (entInt, entArith, entMM,
 * entIF, entUna, entSys) that run before SAVE_ALL has stored the trap frame:
 * the stack adjustment and the stores of r0-r8, r19-r28, hae and the trap
 * arguments. A sample there must not report the task's user registers: the
 * frame still holds the previous entry's values (ProfileMe series, patch 4). */
#define KIMAGE_ENTRY_SAVE_INSNS 22

/* The top (highest address, exclusive) of task tid's kernel stack. The end of
 * the trap frame of an entry from user mode is this address. */
uint64_t kimage_kstack_top(uint32_t tid);
/* True when pc lies in an entry point's window before the trap frame is saved. */
bool kimage_in_entry_window(uint64_t pc);
/* The kernel call chain of a kernel pc: pc first, then the return addresses
 * of its callers in the image, outermost last (the entry point, or
 * ret_from_sys_call / ret_from_intr). The caller of code shared between
 * paths (schedule, do_signal) follows how the kernel was last entered
 * (entry: KACT_SYSCALL...); __copy_user's is the handler of the last system
 * call, number nr. Returns the count (at most max); 0 for a pc outside the text. */
size_t kimage_callchain(uint64_t pc, enum kactivity entry, uint64_t nr, uint64_t *ips, size_t max);
/* The return address into caller sym: the instruction after its call (jsr),
 * past the entry window for the entry points. */
uint64_t kimage_call_site(const struct ksym *caller);
/* The symbol called name, or NULL. */
const struct ksym *kimage_symbol(const char *name);

#endif
