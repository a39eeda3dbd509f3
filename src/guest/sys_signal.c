/* Signal system calls: kill and its kin, sigaction, the masks, sigsuspend,
 * sigtimedwait, sigreturn, sigaltstack. Delivery and frames are signal.c's;
 * these change the tables and masks it reads. SIGKILL and SIGSTOP never
 * enter a mask, and their actions cannot change. */
#include "guest/syscall.h"
#include <errno.h>
#include <string.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a
#define BIT(s) (1ull << ((s) - 1))

int64_t sys_kill(ARGS)
{
  int sig = (int)a[1];
  int64_t pid = (int64_t)(int32_t)a[0];
  if (sig < 0 || sig > GSIG_MAX) return -EINVAL;
  int n = 0;
  for (struct process *p = m->procs; p; p = p->next) {
    if (p->exited) continue;
    if (pid > 0 && p->pid != pid) continue;
    if (pid == 0 || pid < -1) { /* process group: all guest processes are one group */ }
    if (sig) signal_send(m, NULL, p, sig, 0 /* SI_USER */, 0, t->proc->pid);
    n++;
  }
  return n ? 0 : -ESRCH;
}

int64_t sys_tgkill(ARGS)
{
  int sig = (int)a[2];
  if (sig < 0 || sig > GSIG_MAX) return -EINVAL;
  struct task *o = task_find(m, (int)a[1]);
  if (!o || (o->proc->pid != (int)a[0])) return -ESRCH;
  if (sig) signal_send(m, o, NULL, sig, -6 /* SI_TKILL */, 0, t->proc->pid);
  return 0;
}

int64_t sys_tkill(ARGS)
{
  uint64_t b[3] = { 0, a[0], a[1] };
  struct task *o = task_find(m, (int)a[0]);
  if (!o) return -ESRCH;
  b[0] = (uint64_t)o->proc->pid;
  return sys_tgkill(m, t, b);
}

int64_t sys_rt_sigaction(ARGS)
{
  UNUSED;
  int sig = (int)a[0];
  if (sig < 1 || sig > GSIG_MAX || a[3] != 8) return -EINVAL;
  struct gsigaction *act = &t->proc->sighand->act[sig];
  if (a[2]) {
    uint64_t old[3] = { act->handler, act->flags, act->mask };
    if (sys_put(t, a[2], old, sizeof old)) return -EFAULT;
  }
  if (a[1]) {
    if (sig == GSIG_KILL || sig == GSIG_STOP) return -EINVAL;
    uint64_t nw[3];
    if (sys_get(t, a[1], nw, sizeof nw)) return -EFAULT;
    act->handler = nw[0];
    act->flags = nw[1];
    act->mask = nw[2];
    act->restorer = a[4];
    if (act->handler == 1) signal_discard(t, sig);
  }
  return 0;
}

static int64_t do_sigprocmask(struct task *t, uint64_t how, uint64_t set, bool have_set, uint64_t *old)
{
  *old = t->blocked;
  if (!have_set) return 0;
  switch (how) {
  case 1: t->blocked |= set; break;    /* SIG_BLOCK */
  case 2: t->blocked &= ~set; break;   /* SIG_UNBLOCK */
  case 3: t->blocked = set; break;     /* SIG_SETMASK */
  default: return -EINVAL;
  }
  t->blocked &= ~GSIG_UNBLOCKABLE;
  return 0;
}

int64_t sys_rt_sigprocmask(ARGS)
{
  UNUSED;
  if (a[3] != 8) return -EINVAL;
  uint64_t set = 0, old;
  if (a[1] && sys_get(t, a[1], &set, 8)) return -EFAULT;
  int64_t r = do_sigprocmask(t, a[0], set, a[1] != 0, &old);
  if (r) return r;
  if (a[2] && sys_put(t, a[2], &old, 8)) return -EFAULT;
  return 0;
}

/* osf_sigprocmask(how, newmask): returns the old mask in v0. */
int64_t sys_osf_sigprocmask(ARGS)
{
  UNUSED;
  uint64_t old;
  int64_t r = do_sigprocmask(t, a[0], a[1], true, &old);
  return r ? r : (int64_t)old;
}

int64_t sys_rt_sigpending(ARGS)
{
  UNUSED;
  uint64_t p = t->pending & t->blocked;
  return sys_put(t, a[0], &p, 8);
}

int64_t sys_rt_sigsuspend(ARGS)
{
  UNUSED;
  if (!t->has_saved_mask) {
    uint64_t set;
    if (sys_get(t, a[0], &set, 8)) return -EFAULT;
    sys_mask_begin(t, set);
  }
  task_block(t, WAIT_SIGNAL);
  return SYS_BLOCK;
}

int64_t sys_rt_sigqueueinfo(ARGS)
{
  int32_t info[8];
  int sig = (int)a[1];
  if (sig < 1 || sig > GSIG_MAX) return -EINVAL;
  if (sys_get(t, a[2], info, sizeof info)) return -EFAULT;
  struct process *p = proc_find(m, (int)a[0]);
  if (!p || p->exited) return -ESRCH;
  uint64_t value;
  memcpy(&value, &info[6], 8);
  struct gsiginfo si = { .sig = sig, .code = info[2], .pid = info[4], .value = value };
  signal_queue(m, NULL, p, &si);
  return 0;
}

/* rt_sigtimedwait(set, info, timeout, sigsetsize) */
int64_t sys_rt_sigtimedwait(ARGS)
{
  uint64_t set;
  if (a[3] != 8) return -EINVAL;
  if (sys_get(t, a[0], &set, 8)) return -EFAULT;
  set &= ~GSIG_UNBLOCKABLE;
  struct gsiginfo si;
  int sig = signal_dequeue(t, set, &si);
  if (sig) {
    if (a[1] && signal_write_info(t, a[1], &si)) return -EFAULT;
    return sig;
  }
  if (a[2]) {
    int64_t ts[2];
    if (sys_get(t, a[2], ts, sizeof ts)) return -EFAULT;
    if (!t->sleep_deadline)
      t->sleep_deadline = os_now(m) + (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1];
    if (os_now(m) >= t->sleep_deadline) return -EAGAIN;
    t->wait_deadline = t->sleep_deadline;
  }
  t->wait_sigset = set;
  task_block(t, WAIT_SIGNAL);
  return SYS_BLOCK;
}

int64_t sys_sigreturn(ARGS) { UNUSED; signal_return(m, t, false); return SYS_NORET; }
int64_t sys_rt_sigreturn(ARGS) { UNUSED; signal_return(m, t, true); return SYS_NORET; }

int64_t sys_sigaltstack(ARGS)
{
  UNUSED;
  if (a[1]) {
    uint64_t old[3] = { t->altstack_sp, t->altstack_size ? 0 : 2, t->altstack_size };
    uint64_t sp = t->ctx.r[30];
    if (t->altstack_size && sp - t->altstack_sp < t->altstack_size) old[1] = 1;  /* SS_ONSTACK */
    if (sys_put(t, a[1], old, sizeof old)) return -EFAULT;
  }
  if (a[0]) {
    uint64_t nw[3];
    if (sys_get(t, a[0], nw, sizeof nw)) return -EFAULT;
    int flags = (int)nw[1];
    if (flags & 2) { t->altstack_sp = t->altstack_size = 0; return 0; }   /* SS_DISABLE */
    if (flags & ~(1 | 2 | (1 << 31))) return -EINVAL;
    if (nw[2] < 4096) return -ENOMEM;   /* MINSIGSTKSZ */
    t->altstack_sp = nw[0];
    t->altstack_size = nw[2];
  }
  return 0;
}
