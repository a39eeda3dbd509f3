/* Composition of a timed machine; see timed.h. Kernel work becomes synthetic
 * kernel-mode instructions (one integer add per slot) at the PCs of the
 * synthetic kernel image, so it costs cycles and can be sampled. First touches
 * of guest pages are charged as page faults. */
#include "tools/timed.h"
#include "guest/kimage.h"
#include "isa/isa.h"
#include <stdlib.h>

struct timed {
  struct machine *m;
  struct ev67 *core;
  struct cpu_timing hook;
  struct timed_ops ops;
  void *ctx;
  struct ev67_pmu pmu;
  struct axp_insn kinsn;        /* addq t0, 1, t0: the synthetic kernel instruction */
  struct guest_mm *last_mm;
  uint64_t last_touched;
  uint64_t last_pc;             /* the previous instruction: the one that touched a page */
};

static const struct axp_insn *fetch_cb(void *ctx, uint64_t pc)
{
  struct timed *s = ctx;
  if (pc >= KIMAGE_TEXT_BASE) return kimage_lookup(pc) ? &s->kinsn : NULL;
  struct task *t = s->m->current;
  if (!t || !t->mm) return NULL;
  return axp_fetch_decoded(&s->m->cpus[0], t->mm, pc);
}

static void fate_cb(void *ctx, const struct uop_fate *f)
{
  struct timed *s = ctx;
  ev67_pmu_observe(&s->pmu, f);
  if (s->ops.on_fate) s->ops.on_fate(s->ctx, f);
}

void timed_kernel(struct timed *s, int activity, uint64_t nr, uint64_t bytes)
{
  struct kleg legs[8];
  size_t n = kimage_path((enum kactivity)activity, nr, bytes, legs, 8);
  struct uarch_insn ui = { .d = &s->kinsn, .kernel = true, .asn = 0 };
  /* Entering the kernel (callsys, a trap, an interrupt) goes through PALcode:
   * the pipeline drains and fetch restarts at the handler, so nothing is
   * fetched ahead across the boundary. */
  ev67_stall(s->core, 0);
  if (s->ops.on_kernel) {
    struct task *t = s->m->current;
    uint64_t pc = activity == KACT_PAGE_FAULT ? s->last_pc : t ? t->ctx.pc : 0;
    s->ops.on_kernel(s->ctx, activity, pc);
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t span = legs[i].sym->size / 4;
    for (unsigned k = 0; k < legs[i].insns; k++) {
      ui.pc = legs[i].sym->addr + 4 * (k % span);
      ui.next_pc = ui.pc + 4;
      ev67_step(s->core, &ui);
    }
  }
}

static void kernel_hook(void *ctx, int activity, uint64_t nr, uint64_t bytes)
{
  timed_kernel(ctx, activity, nr, bytes);
}

static bool before(void *ctx, const struct uarch_insn *ui)
{
  struct timed *s = ctx;
  struct task *t = s->m->current;
  if (t && t->mm) {
    /* Pages touched for the first time since the last instruction were page
     * faults (demand-zero or file pages) in a real kernel. */
    if (t->mm != s->last_mm) {
      s->last_mm = t->mm;
      s->last_touched = t->mm->pages_touched;
    } else if (t->mm->pages_touched != s->last_touched) {
      uint64_t n = t->mm->pages_touched - s->last_touched;
      s->last_touched = t->mm->pages_touched;
      for (uint64_t i = 0; i < n && i < 64; i++) timed_kernel(s, KACT_PAGE_FAULT, 0, 0);
    }
  }
  const struct uop_fate *f = ev67_step(s->core, ui);
  s->last_pc = ui->pc;
  /* The kernel's unaligned fix-up (entUna, do_entUna) runs after the trap.
   * (before() runs for guest instructions only, never inside timed_kernel.) */
  if (f->flags & FATE_UNALIGNED) timed_kernel(s, KACT_UNALIGNED, 0, 0);
  /* An interrupt that reached the CPU before this instruction retires is
   * taken before it commits: its PC is the exception PC. */
  return s->ops.on_irq && ev67_pmu_irq_cycle(&s->pmu) < f->end;
}

static void irq_hook(void *ctx, struct task *t)
{
  struct timed *s = ctx;
  timed_kernel(s, KACT_INTERRUPT, 0, 0);
  if (s->ops.on_irq) s->ops.on_irq(s->ctx, t, t->ctx.pc);
}

struct timed *timed_create(struct machine *m, const struct ev67_config *cfg,
                           const struct timed_ops *ops, void *ctx)
{
  struct timed *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->m = m;
  if (ops) s->ops = *ops;
  s->ctx = ctx;
  ev67_pmu_init(&s->pmu, 0);
  s->kinsn = axp_decode(KIMAGE_INSN);
  s->core = ev67_create(cfg, fetch_cb, fate_cb, s);
  if (!s->core) { free(s); return NULL; }
  s->hook = (struct cpu_timing){ before, s };
  m->cpus[0].timing = &s->hook;
  m->kernel_hook = kernel_hook;
  m->irq_hook = irq_hook;
  m->hook_ctx = s;
  return s;
}

void timed_destroy(struct timed *s)
{
  if (!s) return;
  s->m->cpus[0].timing = NULL;
  s->m->kernel_hook = NULL;
  s->m->irq_hook = NULL;
  ev67_destroy(s->core);
  free(s);
}

struct ev67 *timed_core(struct timed *s) { return s->core; }
struct ev67_pmu *timed_pmu(struct timed *s) { return &s->pmu; }
