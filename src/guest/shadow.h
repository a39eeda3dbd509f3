/* The true call stack of every task (a shadow of calls and returns), kept
 * by the machine itself while someone asks for it: the oracle that the DWARF
 * unwinder's results are checked against (docs/callgraph.md). It is updated
 * before each instruction executes on the timed core (a bsr/jsr pushes its
 * return address, a ret pops to the entry it returns to), and by the kernel
 * when it builds or removes a signal frame, forks, clones a thread or
 * execs. Off by default: the only cost then is one test of cpu->shadow_on
 * per instruction of the timed loop. */
#ifndef GUEST_SHADOW_H
#define GUEST_SHADOW_H
#include <stdbool.h>
#include <stdint.h>

struct os;
struct task;

#define SHADOW_MAX 4096      /* frames kept per task; deeper marks the shadow overflowed */

struct shadow_frame {
  uint64_t ret;              /* the return address pushed */
  uint64_t sp;               /* the caller's sp at the call (to drop frames a longjmp skips) */
};

struct shadow {
  int depth;
  bool overflow;             /* a push did not fit: the stack is no longer known */
  struct shadow_frame f[SHADOW_MAX];
};

/* From now on every task keeps its shadow (created empty on its first
 * instruction: start the workload after this call). */
void os_shadow_enable(struct os *m);

/* Before the instruction raw at pc executes in task t, with its registers r. */
void shadow_step(struct task *t, uint64_t pc, uint32_t raw, const uint64_t *r);
/* A signal frame was built at frame: the handler runs with ra = restorer,
 * on top of the code interrupted at pc with stack pointer sp. */
void shadow_signal(struct task *t, uint64_t pc, uint64_t sp, uint64_t restorer, uint64_t frame);
/* sigreturn resumes at pc: the frames down to the interrupted pc go. */
void shadow_sigreturn(struct task *t, uint64_t pc);
/* A new task n of parent: a fork child (same stack) copies the parent's
 * frames, a thread on a new stack starts empty. */
void shadow_clone(struct os *m, struct task *n, const struct task *parent, bool new_stack);
/* exec: a new program, no frames. */
void shadow_exec(struct task *t);
void shadow_free(struct task *t);

/* The true return addresses of t, innermost first, at most max. Returns the
 * count, or -1 when the shadow is unknown (never enabled, or overflowed). */
int shadow_read(const struct task *t, uint64_t *ret, int max);

#endif
