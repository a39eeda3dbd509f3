/* The synthetic kernel image: names follow Linux 6.1 (arch/alpha/kernel/entry.S,
 * traps.c, mm/fault.c, fs/read_write.c ...); addresses and sizes are ours.
 * Path lengths are rough instruction counts of those code paths, chosen so that
 * a system call costs a few hundred instructions and copying costs one
 * instruction per 8 bytes (docs/timing.md lists them). */
#include "guest/kimage.h"
#include <string.h>

#define K(off) (KIMAGE_TEXT_BASE + (off))

static const struct ksym syms[] = {
  { "entInt", K(0x0000), 0x100 },
  { "entArith", K(0x0100), 0x100 },
  { "entMM", K(0x0200), 0x100 },
  { "entIF", K(0x0300), 0x100 },
  { "entUna", K(0x0400), 0x200 },
  { "entSys", K(0x0600), 0x200 },
  { "ret_from_sys_call", K(0x0800), 0x200 },
  { "do_entUna", K(0x1000), 0x800 },
  { "do_page_fault", K(0x2000), 0x800 },
  { "handle_mm_fault", K(0x2800), 0x800 },
  { "clear_page", K(0x3000), 0x100 },
  { "__copy_user", K(0x3100), 0x200 },
  { "handle_irq", K(0x3400), 0x400 },
  { "alpha_perf_event_irq_handler", K(0x3800), 0x400 },
  { "do_signal", K(0x4000), 0x400 },
  { "setup_rt_frame", K(0x4400), 0x400 },
  { "sys_read", K(0x5000), 0x200 },
  { "sys_write", K(0x5200), 0x200 },
  { "sys_openat", K(0x5400), 0x400 },
  { "sys_close", K(0x5800), 0x100 },
  { "sys_osf_mmap", K(0x5900), 0x300 },
  { "sys_munmap", K(0x5c00), 0x200 },
  { "sys_osf_brk", K(0x5e00), 0x200 },
  { "sys_newfstatat", K(0x6000), 0x200 },
  { "sys_futex", K(0x6200), 0x400 },
  { "sys_clone", K(0x6600), 0x800 },
  { "sys_exit_group", K(0x6e00), 0x200 },
  { "sys_rt_sigaction", K(0x7000), 0x200 },
  { "sys_rt_sigprocmask", K(0x7200), 0x100 },
  { "sys_clock_gettime", K(0x7300), 0x100 },
  { "sys_ni_syscall", K(0x7400), 0x40 },
  { "sys_other", K(0x7440), 0x400 },
  { "schedule", K(0x8000), 0x800 },
  { "timer_interrupt", K(0x8800), 0x200 },
  { "scheduler_tick", K(0x8a00), 0x400 },
  { "perf_event_task_tick", K(0x8e00), 0x400 },
};

const struct ksym *kimage_symbols(size_t *n)
{
  *n = sizeof syms / sizeof syms[0];
  return syms;
}

const struct ksym *kimage_lookup(uint64_t addr)
{
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if (addr >= syms[i].addr && addr < syms[i].addr + syms[i].size) return &syms[i];
  return NULL;
}

static const struct ksym *by_name(const char *name)
{
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if (strcmp(syms[i].name, name) == 0) return &syms[i];
  return &syms[0];
}

/* The handler of an Alpha syscall number (syscall.tbl). */
static const char *syscall_fn(uint64_t nr)
{
  switch (nr) {
  case 3: return "sys_read";
  case 4: return "sys_write";
  case 45: case 450: return "sys_openat";
  case 6: return "sys_close";
  case 71: return "sys_osf_mmap";
  case 73: return "sys_munmap";
  case 17: return "sys_osf_brk";
  case 455: case 427: return "sys_newfstatat";
  case 394: return "sys_futex";
  case 312: case 2: case 66: return "sys_clone";
  case 405: case 1: return "sys_exit_group";
  case 352: return "sys_rt_sigaction";
  case 353: return "sys_rt_sigprocmask";
  case 420: return "sys_clock_gettime";
  default: return "sys_other";
  }
}

size_t kimage_path(enum kactivity act, uint64_t nr, uint64_t bytes, struct kleg *legs, size_t max)
{
  struct kleg l[6];
  size_t n = 0;
  switch (act) {
  case KACT_SYSCALL:
    l[n++] = (struct kleg){ by_name("entSys"), 40 };
    l[n++] = (struct kleg){ by_name(syscall_fn(nr)), 150 };
    if (bytes) l[n++] = (struct kleg){ by_name("__copy_user"), (unsigned)(bytes / 8 + 8) };
    l[n++] = (struct kleg){ by_name("ret_from_sys_call"), 30 };
    break;
  case KACT_UNALIGNED:
    l[n++] = (struct kleg){ by_name("entUna"), 30 };
    l[n++] = (struct kleg){ by_name("do_entUna"), 90 };
    break;
  case KACT_PAGE_FAULT:
    l[n++] = (struct kleg){ by_name("entMM"), 30 };
    l[n++] = (struct kleg){ by_name("do_page_fault"), 120 };
    l[n++] = (struct kleg){ by_name("handle_mm_fault"), 200 };
    l[n++] = (struct kleg){ by_name("clear_page"), 8192 / 64 * 9 };
    break;
  case KACT_INTERRUPT:
    l[n++] = (struct kleg){ by_name("entInt"), 40 };
    l[n++] = (struct kleg){ by_name("handle_irq"), 60 };
    l[n++] = (struct kleg){ by_name("alpha_perf_event_irq_handler"), 120 };
    break;
  case KACT_TIMER:
    l[n++] = (struct kleg){ by_name("entInt"), 40 };
    l[n++] = (struct kleg){ by_name("handle_irq"), 60 };
    l[n++] = (struct kleg){ by_name("timer_interrupt"), 60 };
    l[n++] = (struct kleg){ by_name("scheduler_tick"), 120 };
    l[n++] = (struct kleg){ by_name("perf_event_task_tick"), 80 };
    break;
  case KACT_SCHEDULE:
    l[n++] = (struct kleg){ by_name("schedule"), 300 };
    break;
  case KACT_SIGNAL:
    l[n++] = (struct kleg){ by_name("do_signal"), 80 };
    l[n++] = (struct kleg){ by_name("setup_rt_frame"), 150 };
    break;
  }
  if (n > max) n = max;
  for (size_t i = 0; i < n; i++) legs[i] = l[i];
  return n;
}
