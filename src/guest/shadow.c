/* The shadow call stack (guest/shadow.h). */
#include "guest/shadow.h"
#include "guest/os.h"
#include <stdlib.h>
#include <string.h>

void os_shadow_enable(struct os *m)
{
  m->shadow_on = true;
  for (int i = 0; i < OS_MAX_CPUS; i++) m->cpus[i].shadow_on = true;
}

static struct shadow *shadow_get(struct task *t)
{
  if (!t->shadow) t->shadow = calloc(1, sizeof *t->shadow);
  return t->shadow;
}

static void push(struct shadow *s, uint64_t ret, uint64_t sp)
{
  if (s->depth == SHADOW_MAX) { s->overflow = true; return; }
  s->f[s->depth++] = (struct shadow_frame){ ret, sp };
}

/* A return (or sigreturn) to pc: back to the innermost frame returning
 * there. A return to an address no frame returns to is a longjmp (glibc's
 * __longjmp restores sp, then `ret`s to setjmp's caller): the frames whose
 * call was made at or below the new sp are gone. */
static void return_to(struct shadow *s, uint64_t pc, uint64_t sp)
{
  for (int i = s->depth; i-- > 0;)
    if (s->f[i].ret == pc) { s->depth = i; return; }
  while (s->depth > 0 && s->f[s->depth - 1].sp <= sp) s->depth--;
}

void shadow_step(struct task *t, uint64_t pc, uint32_t raw, const uint64_t *r)
{
  struct shadow *s = shadow_get(t);
  if (!s) return;
  uint32_t op = raw >> 26, ra = (raw >> 21) & 31, rb = (raw >> 16) & 31, hint = (raw >> 14) & 3;
  /* bsr, jsr and jsr_coroutine that link; ret pops. jmp is a tail call or
   * a switch: the frame stays. */
  if ((op == 0x34 || (op == 0x1a && (hint == 1 || hint == 3))) && ra != 31)
    push(s, pc + 4, r[30]);
  else if (op == 0x1a && hint == 2)
    return_to(s, r[rb] & ~3ull, r[30]);
}

void shadow_signal(struct task *t, uint64_t pc, uint64_t sp, uint64_t restorer, uint64_t frame)
{
  struct shadow *s = t->shadow;
  if (!s) return;
  /* The handler's frame returns to the restorer, the restorer's (a signal
   * frame) to the interrupted pc, as if the interrupted code at sp had
   * called the restorer, which called the handler on the frame. */
  push(s, pc, sp);
  push(s, restorer, frame);
}

void shadow_sigreturn(struct task *t, uint64_t pc)
{
  struct shadow *s = t->shadow;
  if (!s) return;
  for (int i = s->depth; i-- > 0;)
    if (s->f[i].ret == pc) { s->depth = i; return; }
}

void shadow_clone(struct os *m, struct task *n, const struct task *parent, bool new_stack)
{
  if (!m->shadow_on) return;
  struct shadow *s = shadow_get(n);
  if (!s) return;
  if (!new_stack && parent->shadow) memcpy(s, parent->shadow, sizeof *s);
}

void shadow_exec(struct task *t)
{
  if (t->shadow) { t->shadow->depth = 0; t->shadow->overflow = false; }
}

void shadow_free(struct task *t)
{
  free(t->shadow);
  t->shadow = NULL;
}

int shadow_read(const struct task *t, uint64_t *ret, int max)
{
  const struct shadow *s = t->shadow;
  if (!s || s->overflow) return -1;
  int n = 0;
  for (int i = s->depth; i-- > 0 && n < max;) ret[n++] = s->f[i].ret;
  return n;
}
