/* Process and thread system calls: exit, ids and groups, rlimits, clone,
 * execve, wait, futex and the scheduler's few. Every guest process lives in
 * this one host process: the ids are the host's (uid, gid) or the model's
 * (pid, tid), and what would change the host's (setuid, setgroups) pretends. */
#include "guest/syscall.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a

/* ---- exit, ids, groups ---- */
int64_t sys_exit(ARGS) { task_exit(m, t, (int)(a[0] & 0xff) << 8, false); return SYS_NORET; }
int64_t sys_exit_group(ARGS) { task_exit(m, t, (int)(a[0] & 0xff) << 8, true); return SYS_NORET; }
int64_t sys_getxpid(ARGS) { UNUSED; t->ctx.r[20] = (uint64_t)t->proc->ppid; return t->proc->pid; }
int64_t sys_getxuid(ARGS) { UNUSED; t->ctx.r[20] = getuid() ? geteuid() : 0; return getuid(); }
int64_t sys_getxgid(ARGS) { UNUSED; t->ctx.r[20] = getegid(); return getgid(); }
int64_t sys_getuid(ARGS) { UNUSED; return getuid(); }
int64_t sys_getgid(ARGS) { UNUSED; return getgid(); }
int64_t sys_getppid(ARGS) { UNUSED; return t->proc->ppid; }
int64_t sys_gettid(ARGS) { UNUSED; return t->tid; }
int64_t sys_getpgrp(ARGS) { UNUSED; return m->init_pid; }
int64_t sys_zero(ARGS) { UNUSED; return 0; }
int64_t sys_setsid(ARGS) { UNUSED; return t->proc->pid; }
int64_t sys_set_tid_address(ARGS) { UNUSED; t->clear_child_tid = a[0]; return t->tid; }
int64_t sys_set_robust_list(ARGS) { UNUSED; if (a[1] != 24) return -EINVAL; t->robust_list = a[0]; return 0; }
int64_t sys_sched_yield(ARGS) { UNUSED; return 0; }
int64_t sys_umask(ARGS) { UNUSED; uint32_t o = t->proc->umask; t->proc->umask = a[0] & 0777; return o; }

int64_t sys_getgroups(ARGS)
{
  UNUSED;
  int n = getgroups(0, NULL);
  if (n < 0) return -errno;
  if ((int32_t)a[0] < 0) return -EINVAL;
  if (a[0] == 0) return n;
  if ((int32_t)a[0] < n) return -EINVAL;
  gid_t *g = malloc(sizeof *g * (size_t)(n ? n : 1));
  if (!g) return -ENOMEM;
  n = getgroups(n, g);
  int e = n < 0 ? -errno : 0;
  for (int i = 0; !e && i < n; i++) {
    uint32_t v = g[i];   /* gid_t is 32 bits on both */
    e = sys_put(t, a[1] + 4 * (uint64_t)i, &v, 4);
  }
  free(g);
  return e ? e : n;
}

/* setgroups pretends for root (the host's groups stay as they are). */
int64_t sys_setgroups(ARGS)
{
  UNUSED;
  if (a[0] > 65536) return -EINVAL;
  return geteuid() == 0 ? 0 : -EPERM;
}

static int64_t do_getres(struct task *t, const uint64_t *a, const uint32_t v[3])
{
  for (int i = 0; i < 3; i++)
    if (sys_put(t, a[i], &v[i], 4)) return -EFAULT;
  return 0;
}
int64_t sys_getresuid(ARGS)
{
  UNUSED;
  uint32_t v[3] = { getuid(), geteuid(), geteuid() };
  return do_getres(t, a, v);
}
int64_t sys_getresgid(ARGS)
{
  UNUSED;
  uint32_t v[3] = { getgid(), getegid(), getegid() };
  return do_getres(t, a, v);
}

int64_t sys_enosys(ARGS) { UNUSED; return -ENOSYS; }

/* ---- rlimits, priority, usage ---- */
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

int64_t sys_prlimit64(ARGS)
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

int64_t sys_getrlimit(ARGS)
{
  uint64_t b[6] = { 0, a[0], 0, a[1] };
  return sys_prlimit64(m, t, b);
}

int64_t sys_setrlimit(ARGS)
{
  uint64_t b[6] = { 0, a[0], a[1], 0 };
  return sys_prlimit64(m, t, b);
}

int64_t sys_getpriority(ARGS) { UNUSED; return 20; }   /* 20 - nice, as the raw syscall returns */

int64_t sys_getrusage(ARGS)
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

/* ---- clone, execve, wait ---- */
int64_t sys_clone(ARGS)
{
  return task_clone(m, t, a[0], a[1], a[2], a[3], a[4]);
}
int64_t sys_fork(ARGS)
{
  UNUSED;
  return task_clone(m, t, GSIG_CHLD, 0, 0, 0, 0);
}
int64_t sys_vfork(ARGS)
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

int64_t sys_execve(ARGS)
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

int64_t sys_wait4(ARGS) { return do_wait(m, t, (int64_t)a[0], a[1], a[2], a[3]); }

/* ---- futex ---- */
int64_t sys_futex(ARGS)
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
        uint64_t now = sys_clock_now(m, (a[1] & 256) ? 0 : 1);
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

/* ---- scheduling, prctl, personality ---- */
/* Alpha Linux 6.1 (ALPHA_GENERIC, as Debian builds it) has NR_CPUS 32, so
 * cpumask_size() is one long: what sched_getaffinity returns and the part of
 * a longer mask sched_setaffinity reads. */
#define CPUMASK_BYTES 8

/* The task sched_{get,set}affinity name: 0 is the caller, else a thread id. */
static struct task *affinity_task(struct os *m, struct task *t, int64_t pid)
{
  if (pid < 0) return NULL;
  return pid == 0 ? t : task_find(m, (int)pid);
}

int64_t sys_sched_setaffinity(ARGS)
{
  struct task *x = affinity_task(m, t, (int64_t)a[0]);
  if (!x) return -ESRCH;
  /* get_user_cpu_mask: a shorter mask is zero-extended, a longer one cut */
  uint8_t b[CPUMASK_BYTES] = { 0 };
  size_t len = a[1] < CPUMASK_BYTES ? (size_t)a[1] : CPUMASK_BYTES;
  if (len && sys_get(t, a[2], b, len)) return -EFAULT;
  uint64_t mask = 0;
  for (size_t i = 0; i < CPUMASK_BYTES; i++) mask |= (uint64_t)b[i] << (8 * i);
  /* __sched_setaffinity: only active CPUs count; none left is EINVAL */
  mask &= os_cpu_mask(m);
  if (!mask) return -EINVAL;
  x->cpus_allowed = mask;
  /* a task on a CPU it may no longer use leaves it at once (migration_cpu_stop) */
  if (x->cpu >= 0 && !(mask >> x->cpu & 1) && m->cpus[x->cpu].task == x)
    m->cpus[x->cpu].need_resched = true;
  return 0;
}

int64_t sys_sched_getaffinity(ARGS)
{
  struct task *x = affinity_task(m, t, (int64_t)a[0]);
  /* kernel/sched/core.c: the buffer must hold nr_cpu_ids bits, in whole longs */
  if (a[1] * 8 < (uint64_t)m->ncpus || (a[1] & 7)) return -EINVAL;
  if (!x) return -ESRCH;
  uint64_t mask = x->cpus_allowed;
  if (sys_put(t, a[2], &mask, CPUMASK_BYTES)) return -EFAULT;
  return CPUMASK_BYTES;
}

int64_t sys_getcpu(ARGS)
{
  UNUSED;
  uint32_t cpu = t->cpu < 0 ? 0 : (uint32_t)t->cpu, node = 0;
  if (a[0] && sys_put(t, a[0], &cpu, 4)) return -EFAULT;
  if (a[1] && sys_put(t, a[1], &node, 4)) return -EFAULT;
  return 0;
}

int64_t sys_prctl(ARGS)
{
  UNUSED;
  switch (a[0]) {
  case 15: {   /* PR_SET_NAME: strncpy_from_user of TASK_COMM_LEN - 1 bytes */
    char name[16] = { 0 };
    for (int i = 0; i < 15; i++) {
      if (sys_get(t, a[1] + (uint64_t)i, &name[i], 1)) return -EFAULT;
      if (!name[i]) break;
    }
    memcpy(t->comm, name, sizeof name);
    return 0;
  }
  case 16: {   /* PR_GET_NAME: the whole TASK_COMM_LEN buffer */
    char name[16] = { 0 };
    strncpy(name, task_comm(t), sizeof name - 1);
    return sys_put(t, a[1], name, sizeof name);
  }
  default: return -EINVAL;
  }
}

int64_t sys_personality(ARGS) { UNUSED; return 0; }
