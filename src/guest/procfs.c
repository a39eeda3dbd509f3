/* The guest's /proc; see procfs.h. Each generator follows the Linux 6.1
 * function named above it; a value the machine does not model is 0 (or
 * what Linux prints for the feature Alpha's kernel lacks), and says so.
 * Everything is written as text into a growing buffer, then into the
 * synthesized tree, at the lookup that opens it. */
#include "guest/procfs.h"
#include "guest/kimage.h"
#include "guest/loader.h"
#include "guest/synthfs.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The clock ticks /proc counts times in: the machine's USER_HZ, the
 * AT_CLKTCK its loader passes (so sysconf(_SC_CLK_TCK) converts them) and
 * the unit of times(2). Alpha Linux's is 1024 (asm/param.h); the machine
 * uses 100 throughout. */
#define PROC_CLK_TCK 100
/* TASK_COMM_LEN - 1 */
#define COMM_MAX 15
/* include/uapi/linux/capability.h: CAP_LAST_CAP is CAP_CHECKPOINT_RESTORE (40) in 6.1. */
#define CAP_FULL ((1ull << 41) - 1)
/* include/linux/sched.h */
#define PF_EXITING     0x00000004u
#define PF_FORKNOEXEC  0x00000040u

/* ---- text ---- */

struct text { char *p; size_t n, cap; bool oom; };

static void put(struct text *b, const void *s, size_t n)
{
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) { b->oom = true; return; }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

__attribute__((format(printf, 2, 3)))
static void say(struct text *b, const char *fmt, ...)
{
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) { put(b, tmp, (size_t)n); return; }
  char *big = malloc((size_t)n + 1);
  if (!big) { b->oom = true; return; }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  put(b, big, (size_t)n);
  free(big);
}

/* Writes b as the tree's file gpath and returns PROCFS_HOST with its host
 * path in buf, or a negative errno. */
static int emit(struct os *m, const char *gpath, struct text *b, unsigned mode, char *buf)
{
  int e = b->oom ? -ENOMEM : synthfs_put(m->synth, gpath, b->p ? b->p : "", b->n, mode, buf);
  free(b->p);
  return e ? e : PROCFS_HOST;
}

/* ---- what a task looks like from /proc ---- */

static bool alive(const struct task *t) { return t->state == TASK_RUNNABLE || t->state == TASK_BLOCKED; }

/* What a /proc/PID or task/TID directory shows: process p as seen through
 * thread t (NULL: it has no live thread there, a zombie), whole for the
 * thread group (the tgid's stat sums its threads). */
struct view { struct process *p; struct task *t; bool whole; };

static struct guest_mm *view_mm(const struct view *v) { return v->t ? v->t->mm : NULL; }

static int nthreads(struct os *m, const struct process *p)
{
  int n = 0;
  for (struct task *o = m->tasks; o; o = o->next) if (o->proc == p && alive(o)) n++;
  return n;
}

/* fs/proc/array.c task_state_array, by how the model's task waits. */
static const char *state_name(const struct view *v)
{
  if (!v->t) return "Z (zombie)";
  if (v->t->state == TASK_RUNNABLE) return "R (running)";
  if (v->t->wait == WAIT_VFORK) return "D (disk sleep)";   /* wait_for_vfork_done: TASK_KILLABLE */
  return "S (sleeping)";
}

static const char *comm_of(const struct view *v)
{
  if (v->t) return task_comm(v->t);
  const char *s = strrchr(v->p->exe, '/');
  return s ? s + 1 : v->p->exe;
}

/* The CPUs a task may run on: all of the machine's, which the scheduler
 * uses. (The model keeps no affinity mask yet; when tasks get one, its
 * cpus_mask is what Cpus_allowed prints.) */
static uint64_t cpus_allowed(const struct os *m) { return m->ncpus >= 64 ? ~0ull : (1ull << m->ncpus) - 1; }

/* bitmap_print_to_pagebuf: %*pb (hex, 32-bit chunks, the first as wide as
 * its bits need) and %*pbl (ranges) of a mask of nbits bits. */
static void put_mask(struct text *b, uint64_t mask, int nbits)
{
  int chunk = nbits % 32 ? nbits % 32 : 32;
  for (int i = ((nbits + 31) / 32 - 1) * 32; i >= 0; i -= 32) {
    uint64_t val = (mask >> i) & ((1ull << chunk) - 1);
    say(b, "%s%0*llx", i == ((nbits + 31) / 32 - 1) * 32 ? "" : ",", (chunk + 3) / 4, (unsigned long long)val);
    chunk = 32;
  }
}
static void put_list(struct text *b, uint64_t mask, int nbits)
{
  bool first = true;
  for (int i = 0; i < nbits; i++) {
    if (!(mask >> i & 1)) continue;
    int j = i;
    while (j + 1 < nbits && (mask >> (j + 1) & 1)) j++;
    if (j > i) say(b, "%s%d-%d", first ? "" : ",", i, j);
    else say(b, "%s%d", first ? "" : ",", i);
    first = false;
    i = j;
  }
}

/* ---- the address space in numbers (task_mem, task_statm) ---- */

struct mm_counts {
  uint64_t total, data, stack, exec;   /* pages: total_vm, data_vm, stack_vm, exec_vm */
  uint64_t anon, file, shmem;          /* resident pages: MM_ANONPAGES, MM_FILEPAGES, MM_SHMEMPAGES */
  uint64_t pgtables;                   /* bytes of page tables (mm_pgtables_bytes) */
};

/* A mapping's class (mm/internal.h is_exec_mapping, is_stack_mapping,
 * is_data_mapping) and its resident pages' counter: a private anonymous
 * page is MM_ANONPAGES, a shared anonymous one MM_SHMEMPAGES, a file's
 * (private or shared: the model does not tell copied-on-write pages
 * apart) MM_FILEPAGES. */
static void count_mm(struct guest_mm *mm, struct mm_counts *c)
{
  memset(c, 0, sizeof *c);
  /* Alpha's page tables: three levels of one 8 KB page each; a PTE page
   * maps 8 MB, a PMD page 8 GB. Counted where a resident page needs them. */
  const unsigned pte_shift = GUEST_PAGE_SHIFT + 10, pmd_shift = pte_shift + 10;
  uint64_t last_pte = ~0ull, last_pmd = ~0ull, ptes = 0, pmds = 0;
  for (size_t i = 0; i < mm->nvma; i++) {
    const struct guest_vma *v = &mm->vma[i];
    uint64_t start = mm_vma_shown_start(mm, v), n = (v->end - start) >> GUEST_PAGE_SHIFT;
    c->total += n;
    if (v->flags & VMA_GROWSDOWN) c->stack += n;
    else if ((v->prot & GUEST_PROT_WRITE) && !(v->flags & VMA_SHARED)) c->data += n;
    else if ((v->prot & GUEST_PROT_EXEC) && !(v->prot & GUEST_PROT_WRITE)) c->exec += n;
    uint64_t res = mm_resident(mm, start, v->end);
    if (!v->path) c->anon += res;
    else if ((v->flags & VMA_SHARED) && !v->dev) c->shmem += res;
    else if ((v->flags & VMA_SHARED) && v->dev == makedev(0, 1)) c->shmem += res;
    else c->file += res;
    for (uint64_t a = start >> pte_shift; res && a <= (v->end - 1) >> pte_shift; a++) {
      uint64_t lo = a << pte_shift, hi = (a + 1) << pte_shift;
      if (a == last_pte || !mm_resident(mm, lo > start ? lo : start, hi < v->end ? hi : v->end)) continue;
      last_pte = a;
      ptes++;
      if ((a << pte_shift) >> pmd_shift != last_pmd) { last_pmd = (a << pte_shift) >> pmd_shift; pmds++; }
    }
  }
  c->pgtables = (ptes + pmds) * GUEST_PAGE_SIZE;
}

/* ---- /proc/PID/status (proc_pid_status) ---- */

static void gen_status(struct os *m, const struct view *v, struct text *b)
{
  struct process *p = v->p;
  struct task *t = v->t;
  /* proc_task_name with escape: only \n and \ are escaped (seq_escape_str). */
  say(b, "Name:\t");
  for (const char *s = comm_of(v); *s; s++) {
    if (*s == '\n') say(b, "\\n");
    else if (*s == '\\') say(b, "\\\\");
    else put(b, s, 1);
  }
  say(b, "\n");
  /* task_state */
  int tid = t ? t->tid : p->pid;
  int ppid = p->ppid;
  int fdsize = 0;
  if (p->files) {
    int n = p->files->n;
    /* The fdtable's size as Linux grows it: NR_OPEN_DEFAULT (64), then
     * 128 times a power of two (expand_fdtable's rounding). */
    if (n <= 64) fdsize = 64;
    else { int k = 1; while (k < (n - 1) / 128 + 1) k *= 2; fdsize = 128 * k; }
  }
  if (p->cwd_fd >= 0) say(b, "Umask:\t%#04o\n", p->umask);
  say(b, "State:\t%s\n", state_name(v));
  say(b, "Tgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n", p->pid, tid, ppid);
  unsigned uid = getuid(), euid = geteuid(), gid = getgid(), egid = getegid();
  say(b, "Uid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n", uid, euid, euid, euid, gid, egid, egid, egid);
  say(b, "FDSize:\t%d\nGroups:\t", fdsize);
  gid_t groups[256];
  int ng = getgroups(256, groups);
  for (int i = 0; i < ng; i++) say(b, "%s%u", i ? " " : "", (unsigned)groups[i]);
  /* CONFIG_PID_NS: one level; the model's process group and session are
   * the first process's (getpgrp, getsid). */
  say(b, " \nNStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\n", p->pid, tid, m->init_pid, m->init_pid);
  struct guest_mm *mm = view_mm(v);
  if (mm) {
    /* task_mem: kB, at least 8 wide. */
    struct mm_counts c;
    count_mm(mm, &c);
    const uint64_t kb = GUEST_PAGE_SIZE / 1024;
    uint64_t peak = mm->hiwater_vm, rss = c.anon + c.file + c.shmem, hwm = mm->hiwater_rss;
    /* The list's peak counts the stack's whole reservation; shown as grown now. */
    for (size_t i = 0; i < mm->nvma; i++)
      if (mm->vma[i].flags & VMA_GROWSDOWN) {
        uint64_t unshown = (mm_vma_shown_start(mm, &mm->vma[i]) - mm->vma[i].start) >> GUEST_PAGE_SHIFT;
        peak = peak > unshown ? peak - unshown : 0;
      }
    if (peak < c.total) peak = c.total;
    if (hwm < rss) hwm = rss;
    uint64_t text = ((mm->end_code + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK) - (mm->start_code & ~GUEST_PAGE_MASK);
    if (!mm->end_code) text = 0;
    if (text > c.exec * GUEST_PAGE_SIZE) text = c.exec * GUEST_PAGE_SIZE;
    uint64_t lib = c.exec * GUEST_PAGE_SIZE - text;
    say(b, "VmPeak:\t%8llu kB\nVmSize:\t%8llu kB\nVmLck:\t%8d kB\nVmPin:\t%8d kB\n",
        (unsigned long long)(peak * kb), (unsigned long long)(c.total * kb), 0, 0);
    say(b, "VmHWM:\t%8llu kB\nVmRSS:\t%8llu kB\nRssAnon:\t%8llu kB\nRssFile:\t%8llu kB\nRssShmem:\t%8llu kB\n",
        (unsigned long long)(hwm * kb), (unsigned long long)(rss * kb), (unsigned long long)(c.anon * kb),
        (unsigned long long)(c.file * kb), (unsigned long long)(c.shmem * kb));
    say(b, "VmData:\t%8llu kB\nVmStk:\t%8llu kB\nVmExe:\t%8llu kB\nVmLib:\t%8llu kB\nVmPTE:\t%8llu kB\n"
           "VmSwap:\t%8d kB\n",
        (unsigned long long)(c.data * kb), (unsigned long long)(c.stack * kb), (unsigned long long)(text >> 10),
        (unsigned long long)(lib >> 10), (unsigned long long)(c.pgtables >> 10), 0);
    /* No hugetlb on Alpha (hugetlb_report_usage prints nothing); no
     * transparent huge pages (no HAVE_ARCH_TRANSPARENT_HUGEPAGE). */
    say(b, "CoreDumping:\t0\nTHP_enabled:\t0\n");
  }
  /* task_sig: the signals queued for the user (one user: every task's),
   * against RLIMIT_SIGPENDING. Masks: bit n is signal n + 1, Alpha's numbers. */
  int queued = 0;
  for (struct task *o = m->tasks; o; o = o->next) if (alive(o)) queued += o->nsigq;
  uint64_t ign = 0, cgt = 0;
  if (p->sighand)
    for (int s = 1; s <= GSIG_MAX; s++) {
      if (p->sighand->act[s].handler == 1) ign |= 1ull << (s - 1);
      else if (p->sighand->act[s].handler) cgt |= 1ull << (s - 1);
    }
  say(b, "Threads:\t%d\nSigQ:\t%d/%llu\n", t || nthreads(m, p) ? nthreads(m, p) : 1, queued,
      (unsigned long long)p->rlim[RLIMIT_SIGPENDING][0]);
  say(b, "SigPnd:\t%016llx\nShdPnd:\t%016llx\nSigBlk:\t%016llx\nSigIgn:\t%016llx\nSigCgt:\t%016llx\n",
      (unsigned long long)(t ? t->pending : 0), (unsigned long long)p->pending,
      (unsigned long long)(t ? t->blocked : 0), (unsigned long long)ign, (unsigned long long)cgt);
  /* task_cap: the machine's user has every capability or none. */
  uint64_t caps = m->procfs.cap_syslog ? CAP_FULL : 0;
  say(b, "CapInh:\t%016llx\nCapPrm:\t%016llx\nCapEff:\t%016llx\nCapBnd:\t%016llx\nCapAmb:\t%016llx\n",
      0ull, (unsigned long long)caps, (unsigned long long)caps, (unsigned long long)CAP_FULL, 0ull);
  /* task_seccomp: Alpha has no seccomp (no HAVE_ARCH_SECCOMP) and no
   * speculation control (arch_prctl_spec_ctrl_get: -EINVAL). */
  say(b, "NoNewPrivs:\t0\nSpeculation_Store_Bypass:\tunknown\nSpeculationIndirectBranch:\tunsupported\n");
  say(b, "Cpus_allowed:\t");
  put_mask(b, cpus_allowed(m), m->ncpus);
  say(b, "\nCpus_allowed_list:\t");
  put_list(b, cpus_allowed(m), m->ncpus);
  /* cpuset_task_status_allowed (CONFIG_CPUSETS, Debian's): one memory node
   * (Alpha has no NUMA in 6.1, MAX_NUMNODES 1). */
  say(b, "\nMems_allowed:\t1\nMems_allowed_list:\t0\n");
  uint64_t vol = t ? t->nvcsw : 0, invol = t ? t->nivcsw : 0;
  say(b, "voluntary_ctxt_switches:\t%llu\nnonvoluntary_ctxt_switches:\t%llu\n",
      (unsigned long long)vol, (unsigned long long)invol);
}

/* ---- /proc/PID/stat (do_task_stat), statm (proc_pid_statm) ---- */

static uint64_t ticks(uint64_t ns) { return ns / (1000000000ull / PROC_CLK_TCK); }

static void gen_stat(struct os *m, const struct view *v, struct text *b)
{
  struct process *p = v->p;
  struct task *t = v->t;
  struct guest_mm *mm = view_mm(v);
  int nthr = nthreads(m, p);
  uint64_t run = 0, minflt = 0;
  if (v->whole) {
    run = p->dead_run_ns;
    minflt = p->dead_min_flt;
    for (struct task *o = m->tasks; o; o = o->next)
      if (o->proc == p && alive(o)) { run += o->run_ns; minflt += o->min_flt; }
  } else if (t) {
    run = t->run_ns;
    minflt = t->min_flt;
  }
  uint64_t ign = 0, cgt = 0;
  if (p->sighand)
    for (int s = 1; s <= GSIG_MAX; s++) {
      if (p->sighand->act[s].handler == 1) ign |= 1ull << (s - 1);
      else if (p->sighand->act[s].handler) cgt |= 1ull << (s - 1);
    }
  struct mm_counts c = { 0 };
  if (mm) count_mm(mm, &c);
  /* No PF_RANDOMIZE: the machine runs programs without randomization. */
  unsigned flags = (t && t->forknoexec ? PF_FORKNOEXEC : 0) | (t ? 0 : PF_EXITING);
  bool wchan = (!v->whole || nthr < 2) && (!t || t->state != TASK_RUNNABLE);
  say(b, "%d (%.64s) %c %d %d %d 0 -1 %u %llu 0 0 0 %llu 0 0 0 20 0 %d 0 %llu ", t ? t->tid : p->pid,
      comm_of(v), state_name(v)[0], p->ppid, m->init_pid, m->init_pid, flags, (unsigned long long)minflt,
      (unsigned long long)ticks(run), t || nthr ? nthr : 1, (unsigned long long)ticks(t ? t->start_ns : 0));
  say(b, "%llu %llu %llu ", (unsigned long long)(c.total * GUEST_PAGE_SIZE),
      (unsigned long long)(c.anon + c.file + c.shmem), (unsigned long long)p->rlim[RLIMIT_RSS][0]);
  say(b, "%llu %llu %llu 0 0 ", (unsigned long long)(mm ? mm->start_code : 0),
      (unsigned long long)(mm ? mm->end_code : 0), (unsigned long long)(mm ? mm->start_stack : 0));
  say(b, "%llu %llu %llu %llu %d 0 0 %d %d 0 0 0 0 0", (unsigned long long)((t ? t->pending : 0) & 0x7fffffff),
      (unsigned long long)((t ? t->blocked : 0) & 0x7fffffff), (unsigned long long)(ign & 0x7fffffff),
      (unsigned long long)(cgt & 0x7fffffff), wchan ? 1 : 0, t ? t->exit_signal : GSIG_CHLD,
      t && t->cpu >= 0 ? t->cpu : 0);
  if (mm)
    say(b, " %llu %llu %llu %llu %llu %llu %llu", (unsigned long long)mm->start_data,
        (unsigned long long)mm->end_data, (unsigned long long)mm->brk_start, (unsigned long long)mm->arg_start,
        (unsigned long long)mm->arg_end, (unsigned long long)mm->env_start, (unsigned long long)mm->env_end);
  else
    say(b, " 0 0 0 0 0 0 0");
  say(b, " %d\n", t ? 0 : p->exit_code);
}

static void gen_statm(const struct view *v, struct text *b)
{
  struct guest_mm *mm = view_mm(v);
  if (!mm) { say(b, "0 0 0 0 0 0 0\n"); return; }
  struct mm_counts c;
  count_mm(mm, &c);
  uint64_t text = mm->end_code ? (((mm->end_code + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK) -
                                  (mm->start_code & ~GUEST_PAGE_MASK)) >> GUEST_PAGE_SHIFT : 0;
  say(b, "%llu %llu %llu %llu 0 %llu 0\n", (unsigned long long)c.total,
      (unsigned long long)(c.anon + c.file + c.shmem), (unsigned long long)(c.file + c.shmem),
      (unsigned long long)text, (unsigned long long)(c.data + c.stack));
}

/* ---- cmdline (get_mm_cmdline), environ (environ_read) ---- */

/* Reads [from, to) of mm into b, as far as it is mapped. */
static void read_guest(struct guest_mm *mm, uint64_t from, uint64_t to, struct text *b)
{
  char chunk[4096];
  while (from < to) {
    size_t n = to - from < sizeof chunk ? (size_t)(to - from) : sizeof chunk;
    size_t in_page = GUEST_PAGE_SIZE - (from & GUEST_PAGE_MASK);
    if (n > in_page) n = in_page;
    if (mm_read(mm, from, chunk, n, false)) return;
    put(b, chunk, n);
    from += n;
  }
}

static void gen_cmdline(const struct view *v, struct text *b)
{
  struct guest_mm *mm = view_mm(v);
  if (!mm || !mm->env_end || mm->arg_start >= mm->arg_end) return;
  uint64_t env_start = mm->env_start, env_end = mm->env_end;
  if (env_start != mm->arg_end || env_end < env_start) env_start = env_end = mm->arg_end;
  char last = 0;
  if (mm_read(mm, mm->arg_end - 1, &last, 1, false) == 0 && last) {
    /* setproctitle(3) wrote over the end: the first string from arg_start,
     * within a page and the environment (get_mm_proctitle). */
    uint64_t end = mm->arg_start + GUEST_PAGE_SIZE;
    if (end > env_end) end = env_end;
    struct text all = { 0 };
    read_guest(mm, mm->arg_start, end, &all);
    if (all.p) {
      size_t len = strnlen(all.p, all.n);
      put(b, all.p, len < all.n ? len + 1 : len);
    }
    free(all.p);
    return;
  }
  read_guest(mm, mm->arg_start, mm->arg_end, b);
}

static void gen_environ(const struct view *v, struct text *b)
{
  struct guest_mm *mm = view_mm(v);
  if (mm && mm->env_end > mm->env_start) read_guest(mm, mm->env_start, mm->env_end, b);
}

/* ---- maps (show_map_vma) ---- */

static void gen_maps(const struct view *v, struct text *b)
{
  struct guest_mm *mm = view_mm(v);
  if (!mm) return;
  for (size_t i = 0; i < mm->nvma; i++) {
    const struct guest_vma *a = &mm->vma[i];
    uint64_t start = mm_vma_shown_start(mm, a);
    unsigned maj = a->path ? major(a->dev) : 0, min = a->path ? minor(a->dev) : 0;
    size_t line = b->n;
    say(b, "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %llu ", (unsigned long long)start, (unsigned long long)a->end,
        a->prot & GUEST_PROT_READ ? 'r' : '-', a->prot & GUEST_PROT_WRITE ? 'w' : '-',
        a->prot & GUEST_PROT_EXEC ? 'x' : '-', a->flags & VMA_SHARED ? 's' : 'p',
        (unsigned long long)(a->path ? a->pgoff : 0), maj, min, (unsigned long long)(a->path ? a->ino : 0));
    const char *name = a->path;
    if (!name && start <= mm->brk && a->end >= mm->brk_start) name = "[heap]";
    else if (!name && start <= mm->start_stack && a->end >= mm->start_stack) name = "[stack]";
    if (name) {
      /* seq_setwidth(25 + 6 * sizeof(void *) - 1), seq_pad: the name from
       * column 73; a file's path with \n escaped (seq_file_path's "\n"). */
      while (b->n - line < 72 && !b->oom) put(b, " ", 1);
      put(b, " ", 1);
      for (const char *s = name; *s; s++) {
        if (*s == '\n') say(b, "\\012");
        else put(b, s, 1);
      }
    }
    say(b, "\n");
  }
}

/* ---- /proc/cpuinfo (arch/alpha/kernel/setup.c show_cpuinfo) ---- */

/* init/calibrate.c calibrate_delay_converge on this machine, whose __delay
 * (arch/alpha/lib/udelay.c) spins on rpcc for exactly its count of cycles:
 * the loops per jiffy the boot CPU finds, at HZ 1024. */
static uint64_t calibrate_lpj(uint64_t cycle_hz)
{
  const double tick = (double)cycle_hz / 1024;
  uint64_t lpj = 1 << 12, trials = 0, band = 0, in_band = 0;
  double t = 0;
  do {
    if (++in_band == (1ull << band)) { band++; in_band = 0; }
    t += (double)(lpj * band);
    trials += band;
  } while (t < tick);
  trials -= band;
  uint64_t loopadd_base = lpj * band, lpj_base = lpj * trials, loopadd;
  for (;;) {
    lpj = lpj_base;
    loopadd = loopadd_base;
    uint64_t chop = lpj >> 8;   /* LPS_PREC */
    while (loopadd > chop) {
      lpj += loopadd;
      if ((double)lpj >= tick) lpj -= loopadd;   /* __delay(lpj) took more than a tick */
      loopadd >>= 1;
    }
    if (lpj + loopadd * 2 != lpj_base + loopadd_base * 2) return lpj;
    lpj_base = lpj;
    loopadd_base <<= 2;
  }
}

static void gen_cpuinfo(struct os *m, struct text *b)
{
  /* The machine: an AlphaServer ES40 ("Tsunami" family, variation Clipper:
   * HWRPB sys_type ST_DEC_TSUNAMI, member 5 of tsunami_names) with EV67s at
   * the timing model's 667 MHz (machine/machine.h MACHINE_CLOCK_MHZ,
   * docs/timing.md); its console's per-CPU variation 7 and revision 0, and
   * no serial numbers. The real ES40 has at most 4 CPUs; --cpus allows 8. */
  const uint64_t cycle_hz = 667000000;
  /* CONFIG_HZ 1024: timer_freq = 100 * intr_freq / 4096, intr_freq = 1024 * 4096. */
  const uint64_t timer_freq = 100ull * (1024 * 4096) / 4096;
  uint64_t lpj = calibrate_lpj(cycle_hz);
  /* unaligned[1] of traps.c: user fix-ups, the last one's pc and va. */
  uint64_t ucount = 0, upc = 0, uva = 0;
  int last = m->cur_cpu >= 0 ? m->cur_cpu : m->last_cpu;
  for (int i = 0; i < m->ncpus; i++) ucount += m->cpus[i].unaligned_fixups;
  for (int k = 0; k < m->ncpus; k++) {
    int i = (last + m->ncpus - k) % m->ncpus;   /* this CPU's first, then the others' */
    if (m->cpus[i].unaligned_fixups) { upc = m->cpus[i].unaligned_last_pc; uva = m->cpus[i].unaligned_last_va; break; }
  }
  say(b, "cpu\t\t\t: Alpha\ncpu model\t\t: EV67\ncpu variation\t\t: 7\ncpu revision\t\t: 0\n"
         "cpu serial number\t: \nsystem type\t\t: Tsunami\nsystem variation\t: Clipper\n"
         "system revision\t\t: 0\nsystem serial number\t: \n");
  /* est_cycle_freq is 0: time_init's estimate agrees with the HWRPB's. */
  say(b, "cycle frequency [Hz]\t: %llu \ntimer frequency [Hz]\t: %llu.%02llu\n", (unsigned long long)cycle_hz,
      (unsigned long long)(timer_freq / 100), (unsigned long long)(timer_freq % 100));
  /* HWRPB pagesize, pa_bits and max_asn of an EV6-class CPU. */
  say(b, "page size [bytes]\t: %llu\nphys. address bits\t: 44\nmax. addr. space #\t: 255\n",
      (unsigned long long)GUEST_PAGE_SIZE);
  say(b, "BogoMIPS\t\t: %llu.%02llu\n", (unsigned long long)(lpj / (500000 / 1024)),
      (unsigned long long)((lpj / (5000 / 1024)) % 100));
  say(b, "kernel unaligned acc\t: 0 (pc=0,va=0)\nuser unaligned acc\t: %llu (pc=%llx,va=%llx)\n",
      (unsigned long long)ucount, (unsigned long long)upc, (unsigned long long)uva);
  say(b, "platform string\t\t: AlphaServer ES40\ncpus detected\t\t: %d\n", m->ncpus);
  /* CONFIG_SMP (the kernel uname reports is SMP). */
  say(b, "cpus active\t\t: %d\ncpu active mask\t\t: %016llx\n", m->ncpus, (unsigned long long)cpus_allowed(m));
  /* determine_cpu_caches for EV67: CSHAPE(64K, 6, 2) for both L1s; the
   * Bcache external_cache_probe finds (the timing model's 4 MB,
   * uarch/config.c bcache_bytes, direct-mapped, 64-byte blocks); no L3. */
  say(b, "L1 Icache\t\t: 64K, 2-way, 64b line\nL1 Dcache\t\t: 64K, 2-way, 64b line\n"
         "L2 cache\t\t: 4096K, 1-way, 64b line\nL3 cache\t\t: n/a\n");
}

/* ---- /proc/kallsyms (kernel/kallsyms.c s_show), /proc/modules ---- */

struct kline { uint64_t addr; const char *name; unsigned order; };

static int cmp_kline(const void *a, const void *b)
{
  const struct kline *x = a, *y = b;
  if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
  /* scripts/kallsyms compare_symbols: fewer leading underscores first, then as found */
  size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
  if (ux != uy) return ux < uy ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void gen_kallsyms(struct os *m, struct text *b)
{
  /* kallsyms_show_value with kptr_restrict 0: values when
   * perf_event_paranoid <= 1 (kallsyms_for_perf) or with CAP_SYSLOG. */
  bool show = m->procfs.perf_paranoid <= 1 || m->procfs.cap_syslog;
  size_t n;
  const struct ksym *s = kimage_symbols(&n);
  struct kline *l = malloc((n + 2) * sizeof *l);
  if (!l) { b->oom = true; return; }
  uint64_t end = 0;
  for (size_t i = 0; i < n; i++) {
    l[i] = (struct kline){ s[i].addr, s[i].name, (unsigned)i + 1 };
    if (s[i].addr + s[i].size > end) end = s[i].addr + s[i].size;
  }
  /* The linker script's bounds of the text (arch/alpha/kernel/vmlinux.lds.S). */
  l[n] = (struct kline){ KIMAGE_TEXT_BASE, "_text", 0 };
  l[n + 1] = (struct kline){ end, "_etext", (unsigned)n + 1 };
  qsort(l, n + 2, sizeof *l, cmp_kline);
  for (size_t i = 0; i < n + 2; i++)
    say(b, "%016llx T %s\n", (unsigned long long)(show ? l[i].addr : 0), l[i].name);
  free(l);
}

/* ---- names ---- */

void procfs_fd_name(struct os *m, int h, char *buf)
{
  if (m->kfile.is_kfile && m->kfile.is_kfile(m->kfile.ctx, h)) {
    snprintf(buf, PATH_MAX, "anon_inode:[perf_event]");
    return;
  }
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", h);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 0) { snprintf(buf, PATH_MAX, "anon_inode:[unknown]"); return; }
  path[n] = 0;
  const char *g = synthfs_guest_path(m->synth, path);
  snprintf(buf, PATH_MAX, "%s", g ? g : path);
}

uint64_t procfs_new_ino(struct os *m)
{
  if (!m->procfs.next_ino) m->procfs.next_ino = 1000;   /* (get_next_ino: any small numbers) */
  return m->procfs.next_ino++;
}

void procfs_anon_inode(struct os *m, uint64_t *dev, uint64_t *ino)
{
  if (!m->procfs.anon_ino) {
    int fd = eventfd(0, EFD_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) {
      m->procfs.anon_dev = st.st_dev;
      m->procfs.anon_ino = st.st_ino;
    }
    if (fd >= 0) close(fd);
  }
  *dev = m->procfs.anon_dev;
  *ino = m->procfs.anon_ino;
}

void os_set_kptr_policy(struct os *m, int perf_paranoid, bool privileged)
{
  m->procfs.perf_paranoid = perf_paranoid;
  m->procfs.cap_syslog = privileged;
}

void procfs_init(struct os *m)
{
  m->procfs.perf_paranoid = 2;
  /* kernel.kptr_restrict: 0, lib/vsprintf.c's default, which Debian 12 keeps
   * (no sysctl.d file of procps or systemd sets it). 0644 root:root. */
  const struct synth_file f[] = { { .path = "/proc/sys/kernel/kptr_restrict", .content = "0\n", .mode = 0644 } };
  (void)os_synth_files(m, f, 1);
}

/* ---- directories ---- */

/* A /proc/PID or task/TID directory's entries (tgid_base_stuff,
 * tid_base_stuff: those the machine has). */
static int sync_pid_dir(struct os *m, const struct view *v, const char *gdir, bool tgid, char *buf)
{
  char exe[PATH_MAX], cwd[PATH_MAX];
  snprintf(exe, sizeof exe, "%s", v->p->exe[0] ? v->p->exe : "/");
  if (v->p->cwd_fd >= 0) procfs_fd_name(m, v->p->cwd_fd, cwd);
  else snprintf(cwd, sizeof cwd, "/");
  const struct synth_dirent e[] = {
    { "cmdline", 'f', NULL }, { "comm", 'f', NULL }, { "cwd", 'l', cwd }, { "environ", 'f', NULL },
    { "exe", 'l', exe }, { "fd", 'd', NULL }, { "maps", 'f', NULL }, { "mountinfo", 'f', NULL },
    { "mounts", 'f', NULL }, { "net", 'd', NULL }, { "ns", 'd', NULL }, { "root", 'l', "/" },
    { "stat", 'f', NULL }, { "statm", 'f', NULL }, { "status", 'f', NULL }, { "task", 'd', NULL },
  };
  size_t n = sizeof e / sizeof e[0] - (tgid ? 0 : 1);
  int err = synthfs_sync_dir(m->synth, gdir, e, n, buf);
  return err ? err : PROCFS_HOST;
}

/* Decimal names, each a string of its own. */
struct names { char (*s)[16]; struct synth_dirent *e; size_t n, cap; };

static bool names_add(struct names *a, long v, char type, const char *target)
{
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    char (*s)[16] = realloc(a->s, cap * sizeof *s);
    if (!s) return false;
    a->s = s;
    struct synth_dirent *e = realloc(a->e, cap * sizeof *e);
    if (!e) return false;
    a->e = e;
    a->cap = cap;
  }
  snprintf(a->s[a->n], sizeof a->s[0], "%ld", v);
  a->e[a->n] = (struct synth_dirent){ NULL, type, target };
  a->n++;
  return true;
}

static void names_fix(struct names *a)
{
  for (size_t i = 0; i < a->n; i++) a->e[i].name = a->s[i];
}

static int sync_task_dir(struct os *m, const struct view *v, const char *gdir, char *buf)
{
  struct names a = { 0 };
  bool ok = true, any = false;
  for (struct task *o = m->tasks; o && ok; o = o->next)
    if (o->proc == v->p && alive(o)) { ok = names_add(&a, o->tid, 'd', NULL); any = true; }
  if (ok && !any) ok = names_add(&a, v->p->pid, 'd', NULL);   /* a zombie's leader */
  names_fix(&a);
  int err = ok ? synthfs_sync_dir(m->synth, gdir, a.e, a.n, buf) : -ENOMEM;
  free(a.s);
  free(a.e);
  return err ? err : PROCFS_HOST;
}

static int sync_fd_dir(struct os *m, const struct view *v, const char *gdir, char *buf)
{
  struct fdtable *f = v->p->files;
  size_t n = 0;
  if (f) for (int i = 0; i < f->n; i++) n += f->host[i] >= 0;
  char (*target)[PATH_MAX] = malloc((n ? n : 1) * sizeof *target);
  struct names a = { 0 };
  bool ok = target != NULL;
  size_t k = 0;
  if (f)
    for (int i = 0; i < f->n && ok; i++) {
      if (f->host[i] < 0) continue;
      procfs_fd_name(m, f->host[i], target[k]);
      ok = names_add(&a, i, 'l', target[k++]);
    }
  names_fix(&a);
  int err = ok ? synthfs_sync_dir(m->synth, gdir, a.e, a.n, buf) : -ENOMEM;
  free(a.s);
  free(a.e);
  free(target);
  return err ? err : PROCFS_HOST;
}

/* /proc itself (proc_root_readdir): the host's entries that are not
 * processes, as they are there (the files the machine does not model pass
 * through to them), then self, thread-self and the guest's processes. */
static int sync_root(struct os *m, struct task *t, char *buf)
{
  struct names pids = { 0 };
  bool ok = true;
  for (struct process *p = m->procs; p && ok; p = p->next)
    if (!p->reaped) ok = names_add(&pids, p->pid, 'd', NULL);
  names_fix(&pids);
  size_t cap = pids.n + 128, n = 0;
  struct synth_dirent *e = malloc(cap * sizeof *e);
  char (*link)[PATH_MAX] = malloc(64 * sizeof *link);
  char (*host)[256] = malloc(128 * sizeof *host);
  char self[32], thread[48];
  snprintf(self, sizeof self, "%d", t->proc->pid);
  snprintf(thread, sizeof thread, "%d/task/%d", t->proc->pid, t->tid);
  if (!e || !link || !host || !ok) { free(e); free(link); free(host); free(pids.s); free(pids.e); return -ENOMEM; }
  int nlink = 0, nhost = 0;
  DIR *d = opendir("/proc");
  for (struct dirent *de; d && (de = readdir(d)) && nhost < 120;) {
    const char *name = de->d_name;
    if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, "self") || !strcmp(name, "thread-self"))
      continue;
    if (isdigit((unsigned char)name[0]) || strlen(name) >= sizeof host[0]) continue;
    snprintf(host[nhost], sizeof host[0], "%s", name);
    char type = de->d_type == DT_DIR ? 'd' : de->d_type == DT_LNK ? 'l' : 'f';
    const char *target = NULL;
    if (type == 'l') {
      if (nlink == 64) continue;
      ssize_t k = readlinkat(dirfd(d), name, link[nlink], PATH_MAX - 1);
      if (k <= 0) continue;
      link[nlink][k] = 0;
      target = link[nlink++];
    }
    e[n++] = (struct synth_dirent){ host[nhost++], type, target };
  }
  if (d) closedir(d);
  e[n++] = (struct synth_dirent){ "self", 'l', self };
  e[n++] = (struct synth_dirent){ "thread-self", 'l', thread };
  for (size_t i = 0; i < pids.n; i++) e[n++] = pids.e[i];
  int err = synthfs_sync_dir(m->synth, "/proc", e, n, buf);
  free(e); free(link); free(host); free(pids.s); free(pids.e);
  return err ? err : PROCFS_HOST;
}

/* ---- lookup ---- */

/* The components of a normalized path after its first n bytes. */
#define MAX_COMPS 8
struct comps { const char *c[MAX_COMPS]; size_t len[MAX_COMPS]; int n; const char *rest[MAX_COMPS + 1]; };

static int split(const char *p, struct comps *c)
{
  c->n = 0;
  while (*p == '/') {
    p++;
    if (!*p) break;
    if (c->n == MAX_COMPS) return -ENOENT;   /* deeper than anything procfs has */
    c->rest[c->n] = p - 1;
    c->c[c->n] = p;
    c->len[c->n] = strcspn(p, "/");
    p += c->len[c->n];
    c->n++;
  }
  c->rest[c->n] = p;
  return 0;
}

static bool is(const struct comps *c, int i, const char *name)
{
  return i < c->n && c->len[i] == strlen(name) && !memcmp(c->c[i], name, c->len[i]);
}

/* The number component i is, or -1. */
static long number(const struct comps *c, int i)
{
  if (i >= c->n || !c->len[i] || c->len[i] > 9) return -1;
  long v = 0;
  for (size_t k = 0; k < c->len[i]; k++) {
    if (!isdigit((unsigned char)c->c[i][k])) return -1;
    v = v * 10 + (c->c[i][k] - '0');
  }
  return v;
}

static int linked(int err) { return err ? err : PROCFS_HOST; }

/* A host path "prefix" + the components from i on, as PROCFS_HOST. */
static int host_rest(char *buf, const char *prefix, const struct comps *c, int i)
{
  if ((size_t)snprintf(buf, PATH_MAX, "%s%s", prefix, c->rest[i]) >= PATH_MAX) return -ENAMETOOLONG;
  return PROCFS_HOST;
}

/* Component i and after, in directory gdir of view v (a /proc/PID, tgid,
 * or a task/TID). */
static int pid_entry(struct os *m, struct view *v, const char *gdir, bool tgid, const struct comps *c, int i,
                     bool follow, char *buf)
{
  if (i == c->n) return sync_pid_dir(m, v, gdir, tgid, buf);
  char g[PATH_MAX];
  if ((size_t)snprintf(g, sizeof g, "%s/%.*s", gdir, (int)c->len[i], c->c[i]) >= sizeof g) return -ENAMETOOLONG;
  bool last = i + 1 == c->n;
  struct process *p = v->p;
  static const struct { const char *name; unsigned mode; } files[] = {
    { "status", 0444 }, { "stat", 0444 }, { "statm", 0444 }, { "comm", 0644 }, { "cmdline", 0444 },
    { "environ", 0400 }, { "maps", 0444 },
  };
  for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
    if (!is(c, i, files[k].name)) continue;
    if (!last) return -ENOTDIR;
    struct text b = { 0 };
    switch (k) {
    case 0: gen_status(m, v, &b); break;
    case 1: gen_stat(m, v, &b); break;
    case 2: gen_statm(v, &b); break;
    case 3: say(&b, "%.64s\n", comm_of(v)); break;
    case 4: gen_cmdline(v, &b); break;
    case 5: gen_environ(v, &b); break;
    default: gen_maps(v, &b); break;
    }
    return emit(m, g, &b, files[k].mode, buf);
  }
  if (is(c, i, "exe")) {
    if (!view_mm(v) || !p->exe[0]) return -ENOENT;   /* no mm: no exe_file */
    if (last && !follow) return linked(synthfs_put_link(m->synth, g, p->exe, buf));
    if (!last) return -ENOTDIR;
    snprintf(buf, PATH_MAX, "%s", p->exe);
    return PROCFS_HOST;
  }
  if (is(c, i, "cwd")) {
    if (p->cwd_fd < 0 || !v->t) return -ENOENT;
    if (last && !follow) {
      char name[PATH_MAX];
      procfs_fd_name(m, p->cwd_fd, name);
      return linked(synthfs_put_link(m->synth, g, name, buf));
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "/proc/self/fd/%d", p->cwd_fd);   /* the host's link resolves it */
    return host_rest(buf, prefix, c, i + 1);
  }
  if (is(c, i, "root")) {
    if (!v->t) return -ENOENT;
    if (last && !follow) return linked(synthfs_put_link(m->synth, g, "/", buf));
    if ((size_t)snprintf(buf, PATH_MAX, "%s", last ? "/" : c->rest[i + 1]) >= PATH_MAX) return -ENAMETOOLONG;
    return PROCFS_GUEST;
  }
  if (is(c, i, "fd")) {
    if (last) return sync_fd_dir(m, v, g, buf);
    long fd = number(c, i + 1);
    struct fdtable *f = p->files;
    if (fd < 0 || !f || fd >= f->n || f->host[fd] < 0) return -ENOENT;
    if (i + 2 == c->n && !follow) {
      char name[PATH_MAX], gl[PATH_MAX + 16];
      procfs_fd_name(m, f->host[fd], name);
      snprintf(gl, sizeof gl, "%s/%ld", g, fd);
      return linked(synthfs_put_link(m->synth, gl, name, buf));
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "/proc/self/fd/%d", f->host[fd]);   /* reopens the host file */
    return host_rest(buf, prefix, c, i + 2);
  }
  if (tgid && is(c, i, "task")) {
    if (last) return sync_task_dir(m, v, g, buf);
    long tid = number(c, i + 1);
    struct view tv = { p, NULL, false };
    for (struct task *o = m->tasks; o; o = o->next)
      if (o->tid == tid && o->proc == p && alive(o)) tv.t = o;
    if (!tv.t && !(tid == p->pid && !nthreads(m, p))) return -ENOENT;
    char gt[PATH_MAX + 16];
    snprintf(gt, sizeof gt, "%s/%ld", g, tid);
    return pid_entry(m, &tv, gt, false, c, i + 2, follow, buf);
  }
  /* The mount table and namespaces are the host's, which every guest
   * process shares with the emulator. */
  static const char *const host_own[] = { "mounts", "mountinfo", "net", "ns" };
  for (size_t k = 0; k < sizeof host_own / sizeof host_own[0]; k++)
    if (is(c, i, host_own[k])) return host_rest(buf, "/proc/self", c, i);
  return -ENOENT;
}

int procfs_lookup(struct os *m, struct task *t, const char *gpath, bool follow, char *buf)
{
  if (strncmp(gpath, "/proc", 5) || (gpath[5] && gpath[5] != '/')) return PROCFS_NOT_MINE;
  if (!synthfs_get(m)) return PROCFS_NOT_MINE;
  char again[PATH_MAX];
  struct comps c;
  if (split(gpath + 5, &c)) return -ENOENT;
  if (c.n == 0) return sync_root(m, t, buf);
  /* self and thread-self (proc_self_get_link, proc_thread_self_get_link). */
  if (is(&c, 0, "self") || is(&c, 0, "thread-self")) {
    char target[48];
    if (is(&c, 0, "self")) snprintf(target, sizeof target, "%d", t->proc->pid);
    else snprintf(target, sizeof target, "%d/task/%d", t->proc->pid, t->tid);
    if (c.n == 1 && !follow) return linked(synthfs_put_link(m->synth, gpath, target, buf));
    if ((size_t)snprintf(again, sizeof again, "/proc/%s%s", target, c.rest[1]) >= sizeof again)
      return -ENAMETOOLONG;
    if (split(again + 5, &c)) return -ENOENT;
  }
  long pid = number(&c, 0);
  if (pid >= 0) {
    /* proc_pid_lookup: a thread group's pid, or any live thread's tid. */
    struct view v = { proc_find(m, (int)pid), NULL, true };
    if (v.p && v.p->pid == pid) {
      for (struct task *o = m->tasks; o; o = o->next)
        if (o->tid == pid && o->proc == v.p && alive(o)) v.t = o;
    } else {
      v.t = task_find(m, (int)pid);
      if (!v.t || !alive(v.t)) return -ENOENT;
      v.p = v.t->proc;
    }
    char gdir[32];
    snprintf(gdir, sizeof gdir, "/proc/%ld", pid);
    return pid_entry(m, &v, gdir, true, &c, 1, follow, buf);
  }
  if (c.n == 1) {
    struct text b = { 0 };
    if (is(&c, 0, "cpuinfo")) gen_cpuinfo(m, &b);
    else if (is(&c, 0, "kallsyms")) gen_kallsyms(m, &b);
    else if (is(&c, 0, "modules")) { /* no modules */ }
    else return PROCFS_NOT_MINE;
    return emit(m, gpath, &b, 0444, buf);
  }
  return PROCFS_NOT_MINE;
}
