/* Process, thread, signal, time and identity system calls (Alpha numbering from
 * arch/alpha/kernel/syscalls/syscall.tbl). */
#include "guest/syscall.h"
#include "guest/loader.h"
#include "guest/phys.h"
#include "guest/kimage.h"
#include "isa/fp.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a
#define BIT(s) (1ull << ((s) - 1))


/* ---- exit, identity ---- */
static int64_t sys_exit(ARGS) { task_exit(m, t, (int)(a[0] & 0xff) << 8, false); return SYS_NORET; }
static int64_t sys_exit_group(ARGS) { task_exit(m, t, (int)(a[0] & 0xff) << 8, true); return SYS_NORET; }
static int64_t sys_getxpid(ARGS) { UNUSED; t->ctx.r[20] = (uint64_t)t->proc->ppid; return t->proc->pid; }
static int64_t sys_getxuid(ARGS) { UNUSED; t->ctx.r[20] = getuid() ? geteuid() : 0; return getuid(); }
static int64_t sys_getxgid(ARGS) { UNUSED; t->ctx.r[20] = getegid(); return getgid(); }
static int64_t sys_getuid(ARGS) { UNUSED; return getuid(); }
static int64_t sys_getgid(ARGS) { UNUSED; return getgid(); }
static int64_t sys_getppid(ARGS) { UNUSED; return t->proc->ppid; }
static int64_t sys_gettid(ARGS) { UNUSED; return t->tid; }
static int64_t sys_getpgrp(ARGS) { UNUSED; return m->init_pid; }
static int64_t sys_zero(ARGS) { UNUSED; return 0; }
static int64_t sys_setsid(ARGS) { UNUSED; return t->proc->pid; }
static int64_t sys_set_tid_address(ARGS) { UNUSED; t->clear_child_tid = a[0]; return t->tid; }
static int64_t sys_set_robust_list(ARGS) { UNUSED; if (a[1] != 24) return -EINVAL; t->robust_list = a[0]; return 0; }
static int64_t sys_getpagesize(ARGS) { UNUSED; return GUEST_PAGE_SIZE; }
static int64_t sys_sched_yield(ARGS) { UNUSED; return 0; }
static int64_t sys_umask(ARGS) { UNUSED; uint32_t o = t->proc->umask; t->proc->umask = a[0] & 0777; return o; }

static int64_t sys_uname(ARGS)
{
  UNUSED;
  struct utsname u;
  memset(&u, 0, sizeof u);
  uname(&u);
  char buf[6 * 65];
  memset(buf, 0, sizeof buf);
  snprintf(buf, 65, "Linux");
  snprintf(buf + 65, 65, "%s", u.nodename);
  snprintf(buf + 130, 65, "6.1.0-profileme");
  snprintf(buf + 195, 65, "#1 SMP");
  snprintf(buf + 260, 65, "alpha");
  snprintf(buf + 325, 65, "(none)");
  return sys_put(t, a[0], buf, sizeof buf);
}

static int64_t sys_getrandom(ARGS)
{
  UNUSED;
  uint64_t n = a[1] > 65536 ? 65536 : a[1];
  for (uint64_t i = 0; i < n; i += 8) {
    uint64_t v = os_random(m);
    if (sys_put(t, a[0] + i, &v, n - i < 8 ? n - i : 8)) return -EFAULT;
  }
  return (int64_t)n;
}

/* Alpha RLIMIT numbering differs for NOFILE/AS/NPROC/MEMLOCK (asm/resource.h). */
static int rlimit_from_alpha(uint64_t r)
{
  switch (r) {
  case 0: return RLIMIT_CPU; case 1: return RLIMIT_FSIZE; case 2: return RLIMIT_DATA;
  case 3: return RLIMIT_STACK; case 4: return RLIMIT_CORE; case 5: return RLIMIT_RSS;
  case 6: return RLIMIT_NOFILE; case 7: return RLIMIT_AS; case 8: return RLIMIT_NPROC;
  case 9: return RLIMIT_MEMLOCK; case 10: return RLIMIT_LOCKS; case 11: return RLIMIT_SIGPENDING;
  case 12: return RLIMIT_MSGQUEUE; case 13: return RLIMIT_NICE; case 14: return RLIMIT_RTPRIO;
  case 15: return RLIMIT_RTTIME; default: return -1;
  }
}

static int64_t sys_prlimit64(ARGS)
{
  UNUSED;
  int r = rlimit_from_alpha(a[1]);
  if (r < 0 || r >= 16) return -EINVAL;
  struct process *p = a[0] ? proc_find(m, (int)a[0]) : t->proc;
  if (!p || p->exited) return -ESRCH;
  uint64_t old[2] = { p->rlim[r][0], p->rlim[r][1] }, nw[2];
  if (a[2]) {
    if (sys_get(t, a[2], nw, sizeof nw)) return -EFAULT;
    if (nw[0] > nw[1]) return -EINVAL;
    if (r == RLIMIT_NOFILE && nw[1] > 1048576) return -EPERM;
  }
  if (a[3] && sys_put(t, a[3], old, sizeof old)) return -EFAULT;
  if (a[2]) {
    p->rlim[r][0] = nw[0];
    p->rlim[r][1] = nw[1];
    if (r == RLIMIT_NOFILE && p->files) p->files->nofile = nw[0] > 65536 ? 65536 : (int)nw[0];
  }
  return 0;
}

static int64_t sys_getrlimit(ARGS)
{
  uint64_t b[6] = { 0, a[0], 0, a[1] };
  return sys_prlimit64(m, t, b);
}

static int64_t sys_setrlimit(ARGS)
{
  uint64_t b[6] = { 0, a[0], a[1], 0 };
  return sys_prlimit64(m, t, b);
}

static int64_t sys_getpriority(ARGS) { UNUSED; return 20; }   /* 20 - nice, as the raw syscall returns */

static int64_t sys_gethostname(ARGS)
{
  UNUSED;
  char name[65] = "";
  gethostname(name, sizeof name - 1);
  size_t n = strlen(name) + 1;
  if (n > a[1]) return -EINVAL;
  return sys_put(t, a[0], name, n);
}

static int64_t sys_sysinfo(ARGS)
{
  UNUSED;
  uint64_t b[14] = { 0 };
  b[0] = os_now(m) / 1000000000ull + 1;   /* booted a second before the program */
  /* The machine's RAM (--ram); Linux's totalram counts the pages the buddy
   * allocator manages, without the kernel's reserved memory. */
  struct physmem *ram = os_phys(m);
  b[4] = ram ? phys_frames(ram) * PHYS_PAGE - KIMAGE_PHYS_BYTES : 0;   /* totalram, in mem_unit bytes */
  b[5] = ram ? phys_free_frames(ram) * PHYS_PAGE : 0;   /* freeram */
  uint8_t buf[112];
  memset(buf, 0, sizeof buf);
  memcpy(buf, b, 8 * 4);
  memcpy(buf + 32, &b[4], 8);
  memcpy(buf + 40, &b[5], 8);
  uint16_t procs = 1;
  memcpy(buf + 80, &procs, 2);
  uint32_t unit = 1;
  memcpy(buf + 104, &unit, 4);
  return sys_put(t, a[0], buf, sizeof buf);
}

/* ---- time ---- */
static void ns_to_ts(uint64_t ns, int64_t ts[2])
{
  ts[0] = (int64_t)(ns / 1000000000ull);
  ts[1] = (int64_t)(ns % 1000000000ull);
}

static uint64_t now_clock(struct os *m, uint64_t clk)
{
  uint64_t mono = os_now(m);
  switch (clk) {
  case 0: case 5: case 8: case 11:   /* REALTIME, REALTIME_COARSE, REALTIME_ALARM, TAI */
    return (uint64_t)m->epoch_ns + mono;
  default:
    return mono;
  }
}

static int64_t sys_clock_gettime(ARGS)
{
  UNUSED;
  if (a[0] > 11) return -EINVAL;
  int64_t ts[2];
  ns_to_ts(now_clock(m, a[0]), ts);
  return sys_put(t, a[1], ts, sizeof ts);
}

static int64_t sys_clock_getres(ARGS)
{
  UNUSED;
  int64_t ts[2] = { 0, 1 };
  return a[1] ? sys_put(t, a[1], ts, sizeof ts) : 0;
}

static int64_t sys_gettimeofday(ARGS)
{
  UNUSED;
  uint64_t ns = now_clock(m, 0);
  int64_t tv[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull / 1000) };
  if (a[0] && sys_put(t, a[0], tv, sizeof tv)) return -EFAULT;
  if (a[1]) { int32_t tz[2] = { 0, 0 }; if (sys_put(t, a[1], tz, sizeof tz)) return -EFAULT; }
  return 0;
}

/* Sleeps until an absolute virtual deadline kept across re-execution. */
static int64_t sleep_until(struct os *m, struct task *t, uint64_t deadline)
{
  if (!t->sleep_deadline) t->sleep_deadline = deadline;
  if (os_now(m) >= t->sleep_deadline) return 0;
  t->wait_deadline = t->sleep_deadline;
  task_block(t, WAIT_TIME);
  return SYS_BLOCK;
}

static int64_t sys_nanosleep(ARGS)
{
  int64_t ts[2];
  if (!t->sleep_deadline) {
    if (sys_get(t, a[0], ts, sizeof ts)) return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000) return -EINVAL;
    return sleep_until(m, t, os_now(m) + (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1]);
  }
  return sleep_until(m, t, 0);
}

static int64_t sys_clock_nanosleep(ARGS)
{
  int64_t ts[2];
  if (!t->sleep_deadline) {
    if (sys_get(t, a[2], ts, sizeof ts)) return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= 1000000000) return -EINVAL;
    uint64_t ns = (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1];
    if (a[1] & 1) {   /* TIMER_ABSTIME */
      uint64_t now = now_clock(m, a[0]);
      ns = ns > now ? ns - now : 0;
    }
    return sleep_until(m, t, os_now(m) + ns);
  }
  return sleep_until(m, t, 0);
}

static int64_t sys_setitimer(ARGS)
{
  UNUSED;
  if (a[0] != 0) return a[0] <= 2 ? 0 : -EINVAL;   /* only ITIMER_REAL is modelled */
  int64_t v[4];
  struct process *p = t->proc;
  uint64_t now = os_now(m);
  if (a[2]) {
    uint64_t left = p->itimer_deadline > now ? p->itimer_deadline - now : 0;
    int64_t old[4] = { (int64_t)(p->itimer_interval / 1000000000), (int64_t)(p->itimer_interval % 1000000000 / 1000),
                       (int64_t)(left / 1000000000), (int64_t)(left % 1000000000 / 1000) };
    if (sys_put(t, a[2], old, sizeof old)) return -EFAULT;
  }
  if (!a[1]) return 0;
  if (sys_get(t, a[1], v, sizeof v)) return -EFAULT;
  p->itimer_interval = (uint64_t)v[0] * 1000000000ull + (uint64_t)v[1] * 1000;
  uint64_t val = (uint64_t)v[2] * 1000000000ull + (uint64_t)v[3] * 1000;
  p->itimer_deadline = val ? now + val : 0;
  return 0;
}

static int64_t sys_getitimer(ARGS)
{
  uint64_t b[3] = { a[0], 0, a[1] };
  return sys_setitimer(m, t, b);
}

static int64_t sys_times(ARGS)
{
  UNUSED;
  uint64_t ticks = os_now(m) / 10000000ull;
  if (a[0]) {
    int64_t tms[4] = { (int64_t)ticks, 0, 0, 0 };
    if (sys_put(t, a[0], tms, sizeof tms)) return -EFAULT;
  }
  return (int64_t)ticks;
}

static int64_t sys_getrusage(ARGS)
{
  UNUSED;
  uint8_t ru[144];
  memset(ru, 0, sizeof ru);
  uint64_t ns = os_now(m);
  int64_t tv[2] = { (int64_t)(ns / 1000000000ull), (int64_t)(ns % 1000000000ull / 1000) };
  memcpy(ru, tv, sizeof tv);
  int64_t maxrss = (int64_t)(t->mm->pages_touched * (GUEST_PAGE_SIZE / 1024));   /* KB */
  memcpy(ru + 32, &maxrss, 8);
  return sys_put(t, a[1], ru, sizeof ru);
}

/* ---- processes ---- */
static int64_t sys_clone(ARGS)
{
  return task_clone(m, t, a[0], a[1], a[2], a[3], a[4]);
}
static int64_t sys_fork(ARGS)
{
  UNUSED;
  return task_clone(m, t, GSIG_CHLD, 0, 0, 0, 0);
}
static int64_t sys_vfork(ARGS)
{
  UNUSED;
  return task_clone(m, t, 0x4000 | 0x100 | GSIG_CHLD, 0, 0, 0, 0);
}

/* Reads a NULL-terminated guest pointer array of strings into a host argv. */
static char **read_strv(struct task *t, uint64_t addr, int *err)
{
  size_t n = 0, cap = 16;
  char **v = calloc(cap, sizeof *v);
  *err = -ENOMEM;
  if (!v) return NULL;
  for (;; n++) {
    uint64_t p;
    if (addr == 0) break;
    if (sys_get(t, addr + 8 * n, &p, 8)) { *err = -EFAULT; goto fail; }
    if (!p) break;
    if (n + 2 > cap) {
      if (cap > 65536) { *err = -E2BIG; goto fail; }
      char **nv = realloc(v, 2 * cap * sizeof *v);
      if (!nv) goto fail;
      v = nv; cap *= 2;
    }
    char buf[131072];
    long len = mm_read_str(t->mm, p, buf, sizeof buf);
    if (len < 0) { *err = len == PM_EINVAL ? -E2BIG : -EFAULT; goto fail; }
    if (!(v[n] = strdup(buf))) goto fail;
  }
  v[n] = NULL;
  *err = 0;
  return v;
fail:
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
  return NULL;
}

static void free_strv(char **v)
{
  if (!v) return;
  for (char **p = v; *p; p++) free(*p);
  free(v);
}

static int64_t sys_execve(ARGS)
{
  char path[PATH_MAX];
  int err = sys_path(m, t, a[0], path, sizeof path);
  if (err) return err;
  char **argv = read_strv(t, a[1], &err);
  if (!argv) return err;
  char **envp = read_strv(t, a[2], &err);
  if (!envp) { free_strv(argv); return err; }
  /* Relative paths are relative to the guest's cwd. */
  char full[2 * PATH_MAX + 2];
  if (path[0] != '/') {
    char cwd[PATH_MAX], link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", t->proc->cwd_fd);
    ssize_t n = readlink(link, cwd, sizeof cwd - 1);
    if (n > 0) { cwd[n] = 0; snprintf(full, sizeof full, "%s/%s", cwd, path); }
    else snprintf(full, sizeof full, "%s", path);
  } else {
    snprintf(full, sizeof full, "%s", path);
  }
  int64_t r = task_exec(m, t, full, argv, envp);
  if (r == -ENOEXEC && access(full, X_OK) == 0)   /* a host program or script */
    r = task_exec_host(m, t, full, argv, envp);
  free_strv(argv);
  free_strv(envp);
  return r ? r : SYS_NORET;
}

static int64_t do_wait(struct os *m, struct task *t, int64_t pid, uint64_t status_addr,
                       uint64_t options, uint64_t rusage)
{
  bool any = false;
  for (struct process *c = m->procs; c; c = c->next) {
    if (c->parent != t->proc || c->reaped) continue;
    if (pid > 0 && c->pid != pid) continue;
    any = true;
    if (!c->exited) continue;
    int32_t st = c->exit_code;
    if (status_addr && sys_put(t, status_addr, &st, 4)) return -EFAULT;
    if (rusage) {
      uint8_t ru[144];
      memset(ru, 0, sizeof ru);
      if (sys_put(t, rusage, ru, sizeof ru)) return -EFAULT;
    }
    c->reaped = true;
    return c->pid;
  }
  if (!any) return -ECHILD;
  if (options & 1) return 0;   /* WNOHANG */
  task_block(t, WAIT_CHILD);
  return SYS_BLOCK;
}

static int64_t sys_wait4(ARGS) { return do_wait(m, t, (int64_t)a[0], a[1], a[2], a[3]); }

static int64_t sys_kill(ARGS)
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

static int64_t sys_tgkill(ARGS)
{
  int sig = (int)a[2];
  if (sig < 0 || sig > GSIG_MAX) return -EINVAL;
  struct task *o = task_find(m, (int)a[1]);
  if (!o || (o->proc->pid != (int)a[0])) return -ESRCH;
  if (sig) signal_send(m, o, NULL, sig, -6 /* SI_TKILL */, 0, t->proc->pid);
  return 0;
}

static int64_t sys_tkill(ARGS)
{
  uint64_t b[3] = { 0, a[0], a[1] };
  struct task *o = task_find(m, (int)a[0]);
  if (!o) return -ESRCH;
  b[0] = (uint64_t)o->proc->pid;
  return sys_tgkill(m, t, b);
}

/* ---- futex ---- */
static int64_t sys_futex(ARGS)
{
  int op = (int)(a[1] & 0x7f) & ~0x100 & 0xf;   /* drop PRIVATE and CLOCK_REALTIME */
  uint64_t addr = a[0];
  switch (op) {
  case 0: case 9: {   /* FUTEX_WAIT, FUTEX_WAIT_BITSET */
    uint32_t v;
    if (addr & 3) return -EINVAL;
    if (t->wait_addr == addr && t->wait_deadline && os_now(m) >= t->wait_deadline) {
      t->wait_addr = 0;
      return -ETIMEDOUT;
    }
    if (sys_get(t, addr, &v, 4)) return -EFAULT;
    if (v != (uint32_t)a[2]) { t->wait_addr = 0; return -EAGAIN; }
    uint32_t bits = op == 9 ? (uint32_t)a[5] : ~0u;
    if (!bits) return -EINVAL;
    if (a[3] && !(t->wait_addr == addr && t->wait_deadline)) {
      int64_t ts[2];
      if (sys_get(t, a[3], ts, sizeof ts)) return -EFAULT;
      uint64_t ns = (uint64_t)ts[0] * 1000000000ull + (uint64_t)ts[1];
      if (op == 9) {   /* absolute */
        uint64_t now = now_clock(m, (a[1] & 256) ? 0 : 1);
        ns = ns > now ? ns - now : 0;
      }
      t->wait_deadline = os_now(m) + ns + 1;
    } else if (!a[3]) {
      t->wait_deadline = 0;
    }
    t->wait_addr = addr;
    t->wait_bitset = bits;
    task_block(t, WAIT_FUTEX);
    return SYS_BLOCK;
  }
  case 1: case 10: {  /* FUTEX_WAKE, FUTEX_WAKE_BITSET */
    int n;
    futex_wake(m, t->mm, addr, (int)a[2], op == 10 ? (uint32_t)a[5] : ~0u, &n);
    return n;
  }
  case 3: case 4: {   /* FUTEX_REQUEUE, FUTEX_CMP_REQUEUE */
    if (op == 4) {
      uint32_t v;
      if (sys_get(t, addr, &v, 4)) return -EFAULT;
      if (v != (uint32_t)a[5]) return -EAGAIN;
    }
    int n, moved = 0;
    futex_wake(m, t->mm, addr, (int)a[2], ~0u, &n);
    for (struct task *o = m->tasks; o && moved < (int)a[3]; o = o->next)
      if (o->state == TASK_BLOCKED && o->wait == WAIT_FUTEX && o->mm == t->mm && o->wait_addr == addr) {
        o->wait_addr = a[4];
        moved++;
      }
    return n + moved;
  }
  case 5: {           /* FUTEX_WAKE_OP: used by older glibc condvars */
    uint32_t oparg = (a[5] >> 12) & 0xfff, cmparg = a[5] & 0xfff, o = (a[5] >> 28) & 7, cmp = (a[5] >> 24) & 15;
    if ((a[5] >> 28) & 8) oparg = 1u << (oparg & 31);
    uint32_t old, nv;
    if (sys_get(t, a[4], &old, 4)) return -EFAULT;
    switch (o) { case 0: nv = oparg; break; case 1: nv = old + oparg; break; case 2: nv = old | oparg; break;
                 case 3: nv = old & ~oparg; break; default: nv = old ^ oparg; break; }
    if (sys_put(t, a[4], &nv, 4)) return -EFAULT;
    int n, n2 = 0;
    futex_wake(m, t->mm, addr, (int)a[2], ~0u, &n);
    bool c;
    switch (cmp) { case 0: c = old == cmparg; break; case 1: c = old != cmparg; break; case 2: c = (int)old < (int)cmparg; break;
                   case 3: c = (int)old <= (int)cmparg; break; case 4: c = (int)old > (int)cmparg; break; default: c = (int)old >= (int)cmparg; break; }
    if (c) futex_wake(m, t->mm, a[4], (int)a[3], ~0u, &n2);
    return n + n2;
  }
  default:
    return -ENOSYS;
  }
}

/* ---- signals ---- */
static int64_t sys_rt_sigaction(ARGS)
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
    if (act->handler == 1) t->pending &= ~BIT(sig);
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

static int64_t sys_rt_sigprocmask(ARGS)
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
static int64_t sys_osf_sigprocmask(ARGS)
{
  UNUSED;
  uint64_t old;
  int64_t r = do_sigprocmask(t, a[0], a[1], true, &old);
  return r ? r : (int64_t)old;
}

static int64_t sys_rt_sigpending(ARGS)
{
  UNUSED;
  uint64_t p = t->pending & t->blocked;
  return sys_put(t, a[0], &p, 8);
}

static int64_t sys_rt_sigsuspend(ARGS)
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

static int64_t sys_rt_sigqueueinfo(ARGS)
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
static int64_t sys_rt_sigtimedwait(ARGS)
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

static int64_t h_sigreturn(ARGS) { UNUSED; sys_sigreturn(m, t, false); return SYS_NORET; }
static int64_t h_rt_sigreturn(ARGS) { UNUSED; sys_sigreturn(m, t, true); return SYS_NORET; }

static int64_t sys_sigaltstack(ARGS)
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

/* ---- Alpha-specific: osf_getsysinfo / osf_setsysinfo (arch/alpha/kernel/osf_sys.c) ---- */
static int64_t sys_osf_getsysinfo(ARGS)
{
  UNUSED;
  switch (a[0]) {
  case 45: {   /* GSI_IEEE_FP_CONTROL: refresh the status from the FPCR first (EV6) */
    uint64_t w = (t->ctx.swcr & ~(uint64_t)AXP_SWCR_STATUS_MASK) |
                 (axp_fp_fpcr_to_swcr(t->ctx.fpcr) & AXP_SWCR_STATUS_MASK) |
                 (t->ctx.swcr & AXP_SWCR_STATUS_MASK);
    w &= AXP_SWCR_MASK;
    return sys_put(t, a[1], &w, 8);
  }
  case 46: {   /* GSI_IEEE_STATE_AT_SIGNAL */
    uint64_t w = 0;
    return sys_put(t, a[1], &w, 8);
  }
  case 8: {    /* GSI_UACPROC */
    uint32_t w = t->ctx.uac;
    if (a[2] < 4) return -EINVAL;
    if (sys_put(t, a[1], &w, 4)) return -EFAULT;
    return 1;
  }
  default:
    return -EOPNOTSUPP;
  }
}

static int64_t sys_osf_setsysinfo(ARGS)
{
  UNUSED;
  switch (a[0]) {
  case 14: {   /* SSI_IEEE_FP_CONTROL */
    uint64_t w;
    if (sys_get(t, a[1], &w, 8)) return -EFAULT;
    t->ctx.swcr = w & AXP_SWCR_MASK;
    t->ctx.fpcr = (t->ctx.fpcr & AXP_FPCR_DYN_MASK) | axp_fp_swcr_to_fpcr(t->ctx.swcr);
    return 0;
  }
  case 1001: { /* SSI_IEEE_RAISE_EXCEPTION */
    uint64_t e;
    if (sys_get(t, a[1], &e, 8)) return -EFAULT;
    e &= AXP_SWCR_STATUS_MASK;
    t->ctx.swcr |= e;
    t->ctx.fpcr |= axp_fp_swcr_to_fpcr(t->ctx.swcr) & AXP_FPCR_STATUS_MASK;
    if (t->ctx.fpcr & AXP_FPCR_STATUS_MASK) t->ctx.fpcr |= AXP_FPCR_SUM;
    uint64_t enabled = (e >> 16) & t->ctx.swcr & AXP_SWCR_ENA_MASK;
    if (enabled) {
      int code = enabled & AXP_SWCR_ENA_INV ? 7 : enabled & AXP_SWCR_ENA_DZE ? 3 :
                 enabled & AXP_SWCR_ENA_OVF ? 4 : enabled & AXP_SWCR_ENA_UNF ? 5 : 6;
      signal_send(m, t, NULL, GSIG_FPE, code, 0, 0);
    }
    return 0;
  }
  case 1: {    /* SSI_NVPAIRS: {SSIN_UACPROC=6, bits} pairs */
    for (uint64_t i = 0; i < a[2]; i++) {
      uint64_t pair[2];
      if (sys_get(t, a[1] + 16 * i, pair, sizeof pair)) return -EFAULT;
      if (pair[0] == 6) t->ctx.uac = (uint32_t)pair[1] & 7;
      else return -EOPNOTSUPP;
    }
    return 0;
  }
  default:
    return -EOPNOTSUPP;
  }
}

static int64_t sys_sched_getaffinity(ARGS)
{
  UNUSED;
  if (a[1] < 8) return -EINVAL;
  uint64_t mask = 1;
  if (sys_put(t, a[2], &mask, 8)) return -EFAULT;
  return 8;
}

static int64_t sys_getcpu(ARGS)
{
  UNUSED;
  uint32_t z = 0;
  if (a[0] && sys_put(t, a[0], &z, 4)) return -EFAULT;
  if (a[1] && sys_put(t, a[1], &z, 4)) return -EFAULT;
  return 0;
}

static int64_t sys_prctl(ARGS)
{
  UNUSED;
  switch (a[0]) {
  case 15: case 16: return 0;   /* PR_SET_NAME / PR_GET_NAME */
  default: return -EINVAL;
  }
}

static int64_t sys_personality(ARGS) { UNUSED; return 0; }

sys_fn sys_lookup_proc(uint64_t nr)
{
  switch (nr) {
  case 1: return sys_exit;
  case 2: return sys_fork;
  case 7: return sys_wait4;   /* osf_wait4 has the same argument order */
  case 20: return sys_getxpid;
  case 23: case 39: case 138: case 139: return sys_zero;   /* setuid setpgid setregid.. */
  case 24: return sys_getxuid;
  case 37: return sys_kill;
  case 47: return sys_getxgid;
  case 48: return sys_osf_sigprocmask;
  case 59: return sys_execve;
  case 60: return sys_umask;
  case 63: return sys_getpgrp;
  case 64: return sys_getpagesize;
  case 66: return sys_vfork;
  case 103: return h_sigreturn;
  case 117: return sys_getrusage;   /* osf_getrusage */
  case 87: return sys_gethostname;
  case 100: return sys_getpriority;
  case 144: return sys_getrlimit;
  case 145: return sys_setrlimit;
  case 147: return sys_setsid;
  case 233: return sys_getpgrp;     /* getpgid */
  case 234: return sys_getpgrp;     /* getsid */
  case 235: return sys_sigaltstack;
  case 256: return sys_osf_getsysinfo;
  case 257: return sys_osf_setsysinfo;
  case 312: return sys_clone;
  case 318: return sys_sysinfo;
  case 323: return sys_times;
  case 324: return sys_personality;
  case 334: return sys_sched_yield;
  case 339: return sys_uname;
  case 340: return sys_nanosleep;
  case 348: return sys_prctl;
  case 351: return h_rt_sigreturn;
  case 352: return sys_rt_sigaction;
  case 353: return sys_rt_sigprocmask;
  case 354: return sys_rt_sigpending;
  case 355: return sys_rt_sigtimedwait;
  case 356: return sys_rt_sigqueueinfo;
  case 357: return sys_rt_sigsuspend;
  case 359: return sys_gettimeofday;
  case 361: return sys_getitimer;
  case 362: return sys_setitimer;
  case 364: return sys_getrusage;
  case 365: return sys_wait4;
  case 378: return sys_gettid;
  case 381: return sys_tkill;
  case 394: return sys_futex;
  case 396: return sys_sched_getaffinity;
  case 405: return sys_exit_group;
  case 411: return sys_set_tid_address;
  case 420: return sys_clock_gettime;
  case 421: return sys_clock_getres;
  case 422: return sys_clock_nanosleep;
  case 424: return sys_tgkill;
  case 466: return sys_set_robust_list;
  case 473: return sys_getcpu;
  case 496: return sys_prlimit64;
  case 511: return sys_getrandom;
  case 530: return sys_getgid;      /* getegid */
  case 531: return sys_getuid;      /* geteuid */
  case 532: return sys_getppid;
  default: return NULL;
  }
}
