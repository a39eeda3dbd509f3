/* x86-64 DWARF unwinding through libdwfl; see unwind_x86.h. */
#include "analysis/unwind_x86.h"
#include "util/err.h"
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

/* perf's arch/x86/include/uapi/asm/perf_regs.h indices. */
enum { X_AX, X_BX, X_CX, X_DX, X_SI, X_DI, X_BP, X_SP, X_IP, X_FLAGS, X_R8 = 16 };
#define MAX_FRAMES 127           /* perf's max_stack */
#define MAX_PROCS 64

struct proc { uint32_t pid; Dwfl *dwfl; bool attached, dead; };

struct unwind_x86 {
  struct proc procs[MAX_PROCS];
  size_t nprocs;
  int arch;                      /* -1 unknown, 0 not x86-64, 1 x86-64 */
  /* the sample being unwound */
  struct session *s;
  const struct pd_sample *smp;
  struct cc_frames *out;
  uint32_t pid;
  Dwfl *dwfl;
  size_t nframes;
};

/* No separate debug files: the CFI in .eh_frame is what unwinding needs, and
 * finding and decompressing libc's debug file cost more than the unwinding
 * itself (perf's callbacks look them up). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
  (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
  (void)debuglink_crc, (void)debuginfo_file_name;
  return -1;
}
static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
  .find_debuginfo = no_debuginfo,
  .debuginfo_path = &debuginfo_path,
  .section_address = dwfl_offline_section_address,
};

struct unwind_x86 *unwind_x86_create(void)
{
  struct unwind_x86 *u = calloc(1, sizeof *u);
  if (u) u->arch = -1;
  return u;
}

void unwind_x86_destroy(struct unwind_x86 *u)
{
  if (!u) return;
  for (size_t i = 0; i < u->nprocs; i++)
    if (u->procs[i].dwfl) dwfl_end(u->procs[i].dwfl);
  free(u);
}

/* Register idx of the sample's regs_user (ascending bit order of the mask). */
static bool reg(const struct pd_sample *smp, int idx, uint64_t *v)
{
  if (!(smp->user_mask & (1ull << idx))) return false;
  *v = smp->user_regs[__builtin_popcountll(smp->user_mask & ((1ull << idx) - 1))];
  return true;
}

/* perf's report_module: the ELF file mapped at pc, reported once. */
static bool report_module(struct unwind_x86 *u, uint64_t pc)
{
  if (dwfl_addrmodule(u->dwfl, pc)) return true;
  struct sym_loc loc;
  sym_resolve(u->s->m, u->pid, PERF_RECORD_MISC_USER, pc, &loc);
  if (!loc.map || !loc.dso || loc.dso->kernel || loc.dso->path[0] == '[') return false;
  dwfl_report_begin_add(u->dwfl);
  Dwfl_Module *mod = dwfl_report_elf(u->dwfl, loc.dso->short_name, loc.dso->path, -1,
                                     loc.map->start - loc.map->pgoff, false);
  dwfl_report_end(u->dwfl, NULL, NULL);
  return mod && dwfl_addrmodule(u->dwfl, pc) == mod;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
  if (*thread_argp) return 0;    /* only the sample's thread */
  *thread_argp = arg;
  return dwfl_pid(dwfl);
}

/* The stack dump first (perf's user_stack.size is the dyn_size), then the
 * ELF file mapped there (perf's access_dso_mem). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
  (void)dwfl;
  struct unwind_x86 *u = arg;
  uint64_t sp;
  if (!reg(u->smp, X_SP, &sp)) return false;
  uint64_t end = sp + u->smp->stack_dyn_size;
  if (addr + 8 < addr) return false;
  if (addr >= sp && addr + 8 <= end) {
    memcpy(result, u->smp->stack + (addr - sp), 8);
    return true;
  }
  struct sym_loc loc;
  sym_resolve(u->s->m, u->pid, PERF_RECORD_MISC_USER, addr, &loc);
  uint64_t w = 0;
  if (!loc.dso || loc.dso->kernel || sym_dso_read(loc.dso, loc.vaddr, &w, 8) != 8) return false;
  *result = w;
  return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
  struct unwind_x86 *u = arg;
  static const int order[17] = { X_AX, X_DX, X_CX, X_BX, X_SI, X_DI, X_BP, X_SP,
                                 X_R8, X_R8 + 1, X_R8 + 2, X_R8 + 3, X_R8 + 4, X_R8 + 5, X_R8 + 6, X_R8 + 7, X_IP };
  Dwarf_Word regs[17];
  for (int i = 0; i < 17; i++) {
    uint64_t v = 0;
    if (!reg(u->smp, order[i], &v) && (order[i] == X_IP || order[i] == X_SP)) return false;
    regs[i] = v;
  }
  return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
  .next_thread = next_thread,
  .memory_read = memory_read,
  .set_initial_registers = set_initial_registers,
};

static int frame_callback(Dwfl_Frame *state, void *arg)
{
  struct unwind_x86 *u = arg;
  Dwarf_Addr pc;
  bool act;
  if (!dwfl_frame_pc(state, &pc, NULL)) return DWARF_CB_ABORT;
  report_module(u, pc);
  if (!dwfl_frame_pc(state, &pc, &act)) return DWARF_CB_ABORT;
  if (!act) --pc;                /* a return address: the call is before it */
  if (cc_frames_push(u->out, pc, PERF_RECORD_MISC_USER)) return DWARF_CB_ABORT;
  return ++u->nframes >= MAX_FRAMES ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static struct proc *proc_of(struct unwind_x86 *u, uint32_t pid)
{
  for (size_t i = 0; i < u->nprocs; i++)
    if (u->procs[i].pid == pid) return &u->procs[i];
  if (u->nprocs == MAX_PROCS) {   /* recycle the oldest */
    if (u->procs[0].dwfl) dwfl_end(u->procs[0].dwfl);
    memmove(u->procs, u->procs + 1, (MAX_PROCS - 1) * sizeof u->procs[0]);
    u->nprocs--;
  }
  struct proc *p = &u->procs[u->nprocs++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  p->dwfl = dwfl_begin(&offline_callbacks);
  if (!p->dwfl) p->dead = true;
  return p;
}

static int unwind(void *ctx, struct session *s, const struct pd_sample *smp, struct cc_frames *out)
{
  struct unwind_x86 *u = ctx;
  if (u->arch < 0) {
    const char *a = pd_reader_env(s->r, "arch");
    u->arch = a && !strcmp(a, "x86_64");
  }
  uint64_t ip;
  if (!u->arch || smp->user_abi != PERF_SAMPLE_REGS_ABI_64 || !reg(smp, X_IP, &ip)) return 0;
  struct proc *p = proc_of(u, smp->pid);
  if (p->dead) return 0;
  u->s = s;
  u->smp = smp;
  u->out = out;
  u->pid = smp->pid;
  u->dwfl = p->dwfl;
  u->nframes = 0;
  if (!report_module(u, ip)) {
    out->truncated = true;
    return 0;
  }
  if (!p->attached) {
    if (!dwfl_attach_state(p->dwfl, NULL, (pid_t)smp->pid, &thread_callbacks, u)) {
      p->dead = true;
      return 0;
    }
    p->attached = true;
  }
  size_t before = out->n;
  if (dwfl_getthread_frames(p->dwfl, (pid_t)smp->pid, frame_callback, u) != 0 && out->n == before)
    out->truncated = true;
  return 0;
}

struct cc_unwinder unwind_x86_unwinder(struct unwind_x86 *u)
{
  return (struct cc_unwinder){ unwind, NULL, u };
}
