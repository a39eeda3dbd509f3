/* The synthetic kernel image: names follow Linux 6.1 (arch/alpha/kernel/entry.S,
 * traps.c, mm/fault.c, fs/read_write.c, kernel/events/ ...); addresses and
 * sizes are ours. Path lengths are rough instruction counts of those code
 * paths, chosen so that a system call costs a few hundred instructions and
 * copying costs one instruction per 8 bytes (docs/timing.md lists them). The
 * text is a fixed instruction mix made by a pure function of the address:
 * integer operations, loads and stores on kernel data, and short forward
 * conditional branches, as compiled kernel code has. */
#include "guest/kimage.h"
#include "guest/systab.h"
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
  { "perf_output_sample", K(0x9200), 0x400 },
  { "ret_from_intr", K(0x9600), 0x100 },
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

/* The function charged for system call nr (syscall.def's ksym column). */
static const char *syscall_fn(uint64_t nr)
{
  const struct sysent *e = sys_entry(nr);
  return e ? e->ksym : "sys_other";
}

/* ---- the text ---- */

static uint64_t mix(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Operate format: opcode ra rb 000 0 func rc (literal: opcode ra lit 1 func rc). */
static uint32_t opr(unsigned op, unsigned fn, unsigned ra, unsigned rb, unsigned rc)
{
  return op << 26 | ra << 21 | rb << 16 | fn << 5 | rc;
}
static uint32_t opl(unsigned op, unsigned fn, unsigned ra, unsigned lit, unsigned rc)
{
  return op << 26 | ra << 21 | (lit & 0xFF) << 13 | 1u << 12 | fn << 5 | rc;
}
/* Memory format: opcode ra rb disp16; branch format: opcode ra disp21. */
static uint32_t mem(unsigned op, unsigned ra, unsigned rb, int disp)
{
  return op << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xFFFF);
}
static uint32_t bra(unsigned op, unsigned ra, int disp)
{
  return op << 26 | ra << 21 | ((uint32_t)disp & 0x1FFFFF);
}

uint32_t kimage_word(uint64_t pc)
{
  const struct ksym *s = kimage_lookup(pc);
  if (!s || (pc & 3)) return 0;
  uint64_t slot = (pc - s->addr) / 4, n = s->size / 4, h = mix(pc);
  unsigned t = 1 + (unsigned)(h >> 8) % 8, u = 1 + (unsigned)(h >> 12) % 8;   /* t0..t7 */
  unsigned base = (h >> 16) % 3 == 0 ? 30 : (h >> 16) % 3 == 1 ? 9 : 29;     /* sp, s0, gp */
  int disp = (int)((h >> 20) & 0x3F8);
  switch ((h >> 40) % 20) {
  case 0: return opr(0x10, 0x20, t, u, t);                 /* addq */
  case 1: return opl(0x10, 0x29, t, (unsigned)(h >> 24), t); /* subq lit */
  case 2: return opr(0x11, 0x00, t, u, u);                 /* and */
  case 3: return opr(0x11, 0x20, u, t, t);                 /* bis */
  case 4: return opl(0x12, 0x39, t, 3, t);                 /* sll 3 */
  case 5: return opr(0x10, 0x1D, t, u, 22);                /* cmpult -> t8 */
  case 6: return opr(0x10, 0x32, t, u, t);                 /* s8addq */
  case 7: return opr(0x11, 0x40, t, u, u);                 /* xor */
  case 8: case 9: case 10: case 11: case 12:
    return mem(0x29, t, base, disp);                       /* ldq */
  case 13: case 14:
    return mem(0x2D, u, 30, disp);                         /* stq to the stack */
  case 15: case 16: case 17: {
    uint64_t left = n - 1 - slot;                          /* forward, inside the function */
    if (!left) return opr(0x10, 0x20, t, u, t);
    int d = (int)(1 + (h >> 28) % (left < 5 ? left : 5));
    static const unsigned ops[3] = { 0x39, 0x3D, 0x3A };  /* beq, bne, blt */
    return bra(ops[(h >> 33) % 3], t, d - 1);
  }
  default: return opl(0x10, 0x20, t, 1, t);                /* addq t, 1, t */
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
    l[n++] = (struct kleg){ by_name("alpha_perf_event_irq_handler"), 60 };
    break;
  case KACT_PMU_OUTPUT:
    /* after the counter is rewritten: the sample written (bytes), the
     * rest of the handler, the return to the interrupted code */
    l[n++] = (struct kleg){ by_name("alpha_perf_event_irq_handler"), 60 };
    if (bytes) l[n++] = (struct kleg){ by_name("perf_output_sample"), (unsigned)(40 + bytes / 8) };
    l[n++] = (struct kleg){ by_name("ret_from_intr"), 30 };
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

/* ---- stacks, entry windows, call chains ---- */

uint64_t kimage_kstack_top(uint32_t tid)
{
  return KIMAGE_KSTACK_BASE + ((uint64_t)(tid % KIMAGE_KSTACKS) + 1) * KIMAGE_THREAD_SIZE;
}

static bool is_entry(const struct ksym *s)
{
  return strncmp(s->name, "ent", 3) == 0;
}

bool kimage_in_entry_window(uint64_t pc)
{
  const struct ksym *s = kimage_lookup(pc);
  return s && is_entry(s) && pc - s->addr < 4 * KIMAGE_ENTRY_SAVE_INSNS;
}

const struct ksym *kimage_symbol(const char *name)
{
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if (strcmp(syms[i].name, name) == 0) return &syms[i];
  return NULL;
}

uint64_t kimage_call_site(const struct ksym *caller)
{
  uint64_t off = 4 * KIMAGE_ENTRY_SAVE_INSNS + 16;   /* past SAVE_ALL and the argument set-up */
  if (off > caller->size - 4) off = caller->size - 4;
  return caller->addr + off;
}

/* Who calls function s (NULL: s is the outermost frame). */
static const char *caller_of(const struct ksym *s, enum kactivity entry, uint64_t nr)
{
  static const struct { const char *fn, *caller; } calls[] = {
    { "do_entUna", "entUna" }, { "do_page_fault", "entMM" }, { "handle_mm_fault", "do_page_fault" },
    { "clear_page", "handle_mm_fault" }, { "handle_irq", "entInt" },
    { "alpha_perf_event_irq_handler", "handle_irq" }, { "perf_output_sample", "alpha_perf_event_irq_handler" },
    { "timer_interrupt", "handle_irq" }, { "scheduler_tick", "timer_interrupt" },
    { "perf_event_task_tick", "scheduler_tick" }, { "setup_rt_frame", "do_signal" },
  };
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if (strcmp(s->name, calls[i].fn) == 0) return calls[i].caller;
  if (strncmp(s->name, "sys_", 4) == 0) return "entSys";
  bool sys = entry == KACT_SYSCALL;
  if (strcmp(s->name, "__copy_user") == 0) return syscall_fn(nr);
  /* a blocking system call sleeps in schedule(); otherwise it runs on the
   * way back to user mode (work_pending), as do_signal does */
  if (strcmp(s->name, "schedule") == 0) return sys ? syscall_fn(nr) : "ret_from_intr";
  if (strcmp(s->name, "do_signal") == 0) return sys ? "ret_from_sys_call" : "ret_from_intr";
  return NULL;
}

size_t kimage_callchain(uint64_t pc, enum kactivity entry, uint64_t nr, uint64_t *ips, size_t max)
{
  const struct ksym *s = kimage_lookup(pc);
  size_t n = 0;
  if (!s || !max) return 0;
  ips[n++] = pc;
  for (int depth = 0; depth < 8 && n < max; depth++) {
    const char *c = caller_of(s, entry, nr);
    const struct ksym *cs = c ? kimage_symbol(c) : NULL;
    if (!cs) break;
    ips[n++] = kimage_call_site(cs);
    s = cs;
  }
  return n;
}
