/* Signals as arch/alpha/kernel/signal.c delivers them: OSF numbering, the 648-byte
 * sigcontext, non-RT frames {sigcontext, retcode[3]} and RT frames {siginfo,
 * ucontext, retcode[3]}, 32-byte aligned below sp or on the alternate stack; at
 * handler entry pc = pv = handler, ra = the restorer, a0..a2 = signo, info or 0,
 * context. Process-directed signals are queued on one thread that does not block
 * them. A thread blocked in a syscall is woken; the syscall restarts (SA_RESTART)
 * or fails with EINTR. */
#include "guest/os.h"
#include "guest/shadow.h"
#include "guest/syscall.h"
#include "util/assert.h"
#include <signal.h>
#include <string.h>

#define GSA_ONSTACK   0x1
#define GSA_RESTART   0x2
#define GSA_NODEFER   0x8
#define GSA_RESETHAND 0x10
#define GSA_SIGINFO   0x40

#define BIT(s) (1ull << ((s) - 1))

/* sigcontext offsets (asm/sigcontext.h) */
#define SC_ONSTACK 0
#define SC_MASK 8
#define SC_PC 16
#define SC_PS 24
#define SC_REGS 32
#define SC_OWNEDFP 288
#define SC_FPREGS 296
#define SC_FPCR 552
#define SC_TRAPARG 600
#define SC_SIZE 648
#define RT_UC 128
#define RT_MCONTEXT (RT_UC + 48)
#define RT_SIGMASK (RT_UC + 696)
#define RT_RETCODE (RT_UC + 704)
#define RT_SIZE 848
#define NRT_SIZE 664

enum dfl { DFL_TERM, DFL_CORE, DFL_IGN, DFL_STOP };

static enum dfl default_action(int sig)
{
  switch (sig) {
  case GSIG_QUIT: case GSIG_ILL: case GSIG_TRAP: case GSIG_ABRT: case GSIG_EMT:
  case GSIG_FPE: case GSIG_BUS: case GSIG_SEGV: case GSIG_SYS: case GSIG_XCPU: case GSIG_XFSZ:
    return DFL_CORE;
  case GSIG_CHLD: case GSIG_URG: case GSIG_WINCH: case GSIG_CONT:
    return DFL_IGN;
  case GSIG_STOP: case GSIG_TSTP: case GSIG_TTIN: case GSIG_TTOU:
    return DFL_STOP;
  default:
    return DFL_TERM;
  }
}

/* Alpha <-> host signal numbers. */
static const unsigned char to_host[32] = {
  0, SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, 0 /* EMT */, SIGFPE, SIGKILL,
  SIGBUS, SIGSEGV, SIGSYS, SIGPIPE, SIGALRM, SIGTERM, SIGURG, SIGSTOP, SIGTSTP, SIGCONT,
  SIGCHLD, SIGTTIN, SIGTTOU, SIGIO, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGWINCH,
  SIGPWR, SIGUSR1, SIGUSR2
};

int sig_to_host(int g)
{
  if (g > 0 && g < 32) return to_host[g] ? to_host[g] : SIGTERM;
  if (g >= 32 && g <= GSIG_MAX) return g;   /* real-time signals match */
  return 0;
}

int sig_from_host(int h)
{
  for (int g = 1; g < 32; g++) if (to_host[g] == h) return g;
  return h >= 32 ? h : 0;
}

/* Whether t's queue holds a siginfo for sig. Invariant: exactly the signals
 * in t->pending have one (signal_dequeue relies on it to fill *out). */
static bool queued(const struct task *t, int sig)
{
  for (int i = 0; i < t->nsigq; i++)
    if (t->sigq[i].sig == sig) return true;
  return false;
}

bool signal_pending(struct task *t)
{
  return (t->pending & ~t->blocked) != 0;
}

static bool ignored(struct process *p, int sig)
{
  const struct gsigaction *a = &p->sighand->act[sig];
  return a->handler == 1 || (a->handler == 0 && default_action(sig) == DFL_IGN);
}

/* Makes a task blocked in a syscall notice a signal. */
static void interrupt(struct task *t)
{
  if (t->state == TASK_BLOCKED && t->wait != WAIT_VFORK) {
    t->state = TASK_RUNNABLE;
    t->wait = WAIT_NONE;
  }
}

void signal_queue(struct os *m, struct task *t, struct process *p, const struct gsiginfo *si)
{
  int sig = si->sig;
  if (sig <= 0 || sig > GSIG_MAX) return;
  if (!t) {
    if (!p || p->exited) return;
    /* Prefer a thread that does not block the signal. */
    for (struct task *o = m->tasks; o; o = o->next)
      if (o->proc == p && o->state < TASK_ZOMBIE && (!t || ((t->blocked & BIT(sig)) && !(o->blocked & BIT(sig)))))
        t = o;
    if (!t) return;
  }
  p = t->proc;
  if (t->host_pid) {   /* a host program stands in for this process */
    kill(t->host_pid, sig_to_host(sig));
    return;
  }
  if (ignored(p, sig) && !(t->blocked & BIT(sig))) return;
  PM_ASSERT(!(t->pending & BIT(sig)) == !queued(t, sig));
  if (sig < 32 && (t->pending & BIT(sig))) return;   /* standard signals coalesce */
  if (t->nsigq == TASK_SIGQ) return;                /* queue full: dropped, as on overflow */
  t->sigq[t->nsigq++] = *si;
  t->pending |= BIT(sig);
  if (!(t->blocked & BIT(sig))) interrupt(t);
}

void signal_send(struct os *m, struct task *t, struct process *p, int sig,
                 int code, uint64_t addr, int pid)
{
  struct gsiginfo si = { .sig = sig, .code = code, .pid = pid, .addr = addr };
  if (sig == GSIG_CHLD) si.status = (int)addr;
  signal_queue(m, t, p, &si);
}

int signal_dequeue(struct task *t, uint64_t set, struct gsiginfo *out)
{
  uint64_t ready = t->pending & set;
  if (!ready) return 0;
  int sig = __builtin_ctzll(ready) + 1;
  bool more = false, found = false;
  for (int i = 0; i < t->nsigq; i++) {
    if (t->sigq[i].sig != sig) continue;
    *out = t->sigq[i];
    found = true;
    memmove(&t->sigq[i], &t->sigq[i + 1], (size_t)(t->nsigq - i - 1) * sizeof t->sigq[0]);
    t->nsigq--;
    for (int j = i; j < t->nsigq; j++) if (t->sigq[j].sig == sig) more = true;
    break;
  }
  /* A pending signal has its siginfo queued, so *out is always written. */
  PM_ASSERT(found);
  if (!more) t->pending &= ~BIT(sig);
  return sig;
}

void signal_discard(struct task *t, int sig)
{
  int n = 0;
  for (int i = 0; i < t->nsigq; i++)
    if (t->sigq[i].sig != sig) t->sigq[n++] = t->sigq[i];
  t->nsigq = n;
  t->pending &= ~BIT(sig);
}

void signal_force(struct os *m, struct task *t, const struct axp_trap *trap)
{
  struct gsigaction *a = &t->proc->sighand->act[trap->sig];
  if ((t->blocked & BIT(trap->sig)) || a->handler == 1) {
    a->handler = 0;
    t->blocked &= ~BIT(trap->sig);
  }
  struct gsiginfo si = { .sig = trap->sig, .code = trap->code, .addr = trap->addr,
                         .trapno = trap->trapno };
  signal_queue(m, t, NULL, &si);
}

struct frame_writer { struct guest_mm *mm; uint64_t base; bool fail; };

static void put64(struct frame_writer *w, uint64_t off, uint64_t v)
{
  if (mm_write(w->mm, w->base + off, &v, 8, true)) w->fail = true;
}
static void put32(struct frame_writer *w, uint64_t off, uint32_t v)
{
  if (mm_write(w->mm, w->base + off, &v, 4, true)) w->fail = true;
}

static void write_sigcontext(struct frame_writer *w, uint64_t sc, const struct task *t,
                             uint64_t oldmask)
{
  const struct axp_ctx *c = &t->ctx;
  put64(w, sc + SC_ONSTACK, 0);
  put64(w, sc + SC_MASK, oldmask);
  put64(w, sc + SC_PC, c->pc);
  put64(w, sc + SC_PS, 8);
  for (int i = 0; i < 31; i++) put64(w, sc + SC_REGS + 8 * i, c->r[i]);
  put64(w, sc + SC_REGS + 8 * 31, 0);
  put64(w, sc + SC_OWNEDFP, 0);
  for (int i = 0; i < 31; i++) put64(w, sc + SC_FPREGS + 8 * i, c->f[i]);
  put64(w, sc + SC_FPREGS + 8 * 31, 0);
  put64(w, sc + SC_FPCR, c->fpcr);
  put64(w, sc + SC_FPCR + 8, c->swcr);
}

static void write_siginfo(struct frame_writer *w, const struct gsiginfo *si)
{
  for (int i = 0; i < 128; i += 8) put64(w, i, 0);
  put32(w, 0, (uint32_t)si->sig);
  put32(w, 8, (uint32_t)si->code);
  if (si->perf) {   /* TRAP_PERF: si_addr, then _perf in the union with _trapno */
    put64(w, 16, si->addr);
    put64(w, 24, si->perf_data);
    put32(w, 32, si->perf_type);
    put32(w, 36, si->perf_flags);
    return;
  }
  if (si->band) {   /* an F_SETSIG signal of fasync: si_band, si_fd */
    put64(w, 16, (uint64_t)si->band);
    put32(w, 24, (uint32_t)si->poll_fd);
    return;
  }
  switch (si->sig) {
  case GSIG_SEGV: case GSIG_BUS: case GSIG_ILL: case GSIG_FPE: case GSIG_TRAP:
    if (si->code > 0) {
      put64(w, 16, si->addr);
      put32(w, 24, (uint32_t)si->trapno);
      break;
    }
    /* sent by kill() */
    __attribute__((fallthrough));
  default:
    put32(w, 16, (uint32_t)si->pid);
    put32(w, 20, 0);
    if (si->sig == GSIG_CHLD) put32(w, 24, (uint32_t)si->status);
    else put64(w, 24, si->value);
    break;
  }
}

int signal_write_info(struct task *t, uint64_t addr, const struct gsiginfo *si)
{
  struct frame_writer w = { t->mm, addr, false };
  write_siginfo(&w, si);
  return w.fail ? -1 : 0;
}

/* Terminates the process by a signal's default action. */
static void die(struct os *m, struct task *t, int sig, bool core)
{
  task_exit(m, t, sig | (core ? 0x80 : 0), true);
}

/* Settles a syscall the task was blocked in, before running a handler. */
static void settle_syscall(struct task *t, const struct gsigaction *a)
{
  if (!t->in_syscall_wait) return;
  t->in_syscall_wait = false;
  t->sleep_deadline = 0;
  t->wait_deadline = 0;
  t->wait_sigset = 0;
  if (t->restart_nr == 0 || !(a->flags & GSA_RESTART) || !sys_restartable(t->restart_nr)) {
    t->ctx.r[0] = 4;     /* EINTR */
    t->ctx.r[19] = 1;
    t->ctx.pc += 4;
  }
}

/* Delivers one signal; returns true if another may be delivered on top. */
static bool deliver_one(struct os *m, struct task *t)
{
  if (!(t->pending & ~t->blocked) || t->state >= TASK_ZOMBIE) return false;
  struct gsiginfo si;
  int sig = signal_dequeue(t, ~t->blocked, &si);
  struct gsigaction *a = &t->proc->sighand->act[sig];
  if (a->handler == 1) return true;
  if (a->handler == 0) {
    enum dfl d = default_action(sig);
    if (d == DFL_IGN || d == DFL_STOP) return true;
    if (t->proc->pid == m->init_pid && si.code > 0 && si.code < 0x80)
    {
      m->fatal.valid = true;
      m->fatal.sig = sig;
      m->fatal.pc = t->ctx.pc;
      m->fatal.addr = si.addr;
    }
    die(m, t, sig, d == DFL_CORE);
    return false;
  }
  settle_syscall(t, a);
  t->state = TASK_RUNNABLE;
  t->wait = WAIT_NONE;
  uint64_t oldmask = t->has_saved_mask ? t->saved_mask : t->blocked;
  t->has_saved_mask = false;
  uint64_t sp = t->ctx.r[30];
  if ((a->flags & GSA_ONSTACK) && t->altstack_size &&
      !(sp - t->altstack_sp < t->altstack_size))
    sp = t->altstack_sp + t->altstack_size;
  bool rt = a->flags & GSA_SIGINFO;
  uint64_t frame = (sp - (rt ? RT_SIZE : NRT_SIZE)) & ~31ull;
  struct frame_writer w = { t->mm, frame, false };
  uint64_t sc = rt ? RT_MCONTEXT : 0, retcode = rt ? RT_RETCODE : SC_SIZE;
  if (rt) {
    write_siginfo(&w, &si);
    put64(&w, RT_UC, 0);
    put64(&w, RT_UC + 8, 0);
    put64(&w, RT_UC + 16, oldmask);
    put64(&w, RT_UC + 24, t->altstack_sp);
    put64(&w, RT_UC + 32, t->altstack_size ? 0 : 2 /* SS_DISABLE */);
    put64(&w, RT_UC + 40, t->altstack_size);
    put64(&w, RT_SIGMASK, oldmask);
  }
  write_sigcontext(&w, sc, t, oldmask);
  /* mov $30,$16; lda $0,NR($31); callsys, in case no restorer was given */
  put32(&w, retcode, 0x47fe0410);
  put32(&w, retcode + 4, 0x201f0000 + (rt ? 351 : 103));
  put32(&w, retcode + 8, 0x00000083);
  if (w.fail) {
    die(m, t, GSIG_SEGV, true);
    return false;
  }
  struct axp_ctx *c = &t->ctx;
  c->r[26] = a->restorer ? a->restorer : frame + retcode;
  shadow_signal(t, c->pc, c->r[30], c->r[26], frame);
  c->r[27] = c->pc = a->handler;
  c->r[16] = (uint64_t)sig;
  c->r[17] = rt ? frame : 0;
  c->r[18] = frame + sc;
  c->r[30] = frame;
  t->blocked |= a->mask & ~GSIG_UNBLOCKABLE;
  if (!(a->flags & GSA_NODEFER)) t->blocked |= BIT(sig);
  if (a->flags & GSA_RESETHAND) { a->handler = 0; a->flags &= ~GSA_SIGINFO; }
  return true;
}

/* Like Linux's exit-to-user loop: every deliverable signal gets a frame, the
 * later ones on top, so the last one set up runs first. */
void signal_deliver(struct os *m, struct task *t)
{
  for (int i = 0; i < GSIG_MAX && deliver_one(m, t); i++) {}
}

void signal_return(struct os *m, struct task *t, bool rt)
{
  uint64_t base = t->ctx.r[16];
  uint64_t sc = rt ? base + RT_MCONTEXT : base;
  uint64_t pc, mask, regs[32], fregs[32], fpcr;
  if (mm_read(t->mm, sc + SC_PC, &pc, 8, true) ||
      mm_read(t->mm, rt ? base + RT_SIGMASK : sc + SC_MASK, &mask, 8, true) ||
      mm_read(t->mm, sc + SC_REGS, regs, sizeof regs, true) ||
      mm_read(t->mm, sc + SC_FPREGS, fregs, sizeof fregs, true) ||
      mm_read(t->mm, sc + SC_FPCR, &fpcr, 8, true)) {
    signal_send(m, t, NULL, GSIG_SEGV, 0x80, 0, 0);
    return;
  }
  struct axp_ctx *c = &t->ctx;
  c->pc = pc;
  shadow_sigreturn(t, pc);
  for (int i = 0; i < 31; i++) { c->r[i] = regs[i]; c->f[i] = fregs[i]; }
  c->fpcr = fpcr;
  t->blocked = mask & ~GSIG_UNBLOCKABLE;
}
