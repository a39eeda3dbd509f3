/* Processes, threads and the deterministic scheduler. Each CPU runs a task
 * until its time slice ends (a fixed instruction quantum, or the machine's
 * tick), then takes the next runnable task round-robin. CPUs run in turns,
 * the one whose clock is earliest first, for a bounded round each, so their
 * clocks stay within a round of each other and the interleaving is a
 * function of the program and the seed. A task that must wait (futex, child, fd,
 * timer) is marked blocked with its syscall rewound; it re-executes the syscall
 * when woken. When every task is blocked the scheduler polls the host fds waited
 * on, or jumps virtual time to the earliest deadline. */
#include "guest/os.h"
#include "guest/shadow.h"
#include "guest/synthfs.h"
#include "guest/procfs.h"
#include "guest/phys.h"
#include "guest/loader.h"
#include "guest/kimage.h"
#include "guest/systab.h"
#include "util/err.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_SIGHAND        0x00000800
#define CLONE_VFORK          0x00004000
#define CLONE_PARENT         0x00008000
#define CLONE_THREAD         0x00010000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID   0x01000000

/* Guest clock: the EV67 at 667 MHz, one instruction per cycle in functional runs. */
#define NS_PER_1000_INSNS 1500

static uint64_t splitmix(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t os_random(struct os *m) { return splitmix(&m->rng); }

/* A CPU's clock: its busy time, the time it sat idle while others ran, and
 * the time every CPU skipped while all tasks slept. */
static uint64_t cpu_clock(struct os *m, int i)
{
  const struct cpu *c = &m->cpus[i];
  uint64_t busy = m->hooks.clock ? m->hooks.clock(m->hooks.ctx, i) : c->icount * NS_PER_1000_INSNS / 1000;
  return busy + c->idle_ns + m->idle_ns;
}

uint64_t os_now(struct os *m)
{
  if (m->opt.real_time) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
  }
  uint64_t t = cpu_clock(m, m->cur_cpu >= 0 ? m->cur_cpu : m->last_cpu);
  if (t > m->time_hwm) m->time_hwm = t;
  return m->time_hwm;
}

void os_resched(struct os *m)
{
  if (m->cur_cpu >= 0) m->cpus[m->cur_cpu].need_resched = true;
}

/* The CPU lists glibc reads for sysconf(_SC_NPROCESSORS_ONLN/CONF) and
 * per-CPU tools (libpfm4's syst_count) read: the machine's CPUs, not the
 * host's. Without them the host's pass through (a write error is no reason
 * to refuse the machine). */
static void synth_cpus(struct os *m)
{
  char list[16];
  if (m->ncpus > 1) snprintf(list, sizeof list, "0-%d\n", m->ncpus - 1);
  else snprintf(list, sizeof list, "0\n");
  const struct synth_file f[] = {
    { .path = "/sys/devices/system/cpu/online", .content = list },
    { .path = "/sys/devices/system/cpu/possible", .content = list },
    { .path = "/sys/devices/system/cpu/present", .content = list },
  };
  (void)os_synth_files(m, f, sizeof f / sizeof f[0]);
}

struct os *os_create(const struct os_opts *opt)
{
  struct os *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->opt = *opt;
  if (!m->opt.quantum) m->opt.quantum = 200000;
  m->ncpus = opt->ncpus ? opt->ncpus : 1;
  if (m->ncpus < 1 || m->ncpus > OS_MAX_CPUS) { free(m); return NULL; }
  for (int i = 0; i < m->ncpus; i++) {
    m->cpus[i].id = i;
    m->cpus[i].jit_hot = opt->no_jit ? 0 : AXP_JIT_HOT;
  }
  m->cur_cpu = -1;
  m->next_pid = 1000;
  m->rng = opt->seed;
  m->log = stderr;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  m->epoch_ns = opt->epoch_set ? opt->epoch_s * 1000000000 : (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  synth_cpus(m);
  procfs_init(m);
  return m;
}

/* ---- file descriptor tables ---- */

struct fdtable *fdt_create(void)
{
  struct fdtable *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->refs = 1;
  f->nofile = 1024;
  return f;
}

static int fdt_grow(struct fdtable *f, int need)
{
  if (need <= f->n) return 0;
  int n = f->n ? f->n : 16;
  while (n < need) n *= 2;
  int *h = realloc(f->host, n * sizeof *h);
  if (!h) return -1;
  f->host = h;
  bool *c = realloc(f->cloexec, n * sizeof *c);
  if (!c) return -1;
  f->cloexec = c;
  for (int i = f->n; i < n; i++) { h[i] = -1; c[i] = false; }
  f->n = n;
  return 0;
}

struct fdtable *fdt_copy(const struct fdtable *src)
{
  struct fdtable *f = fdt_create();
  if (!f || fdt_grow(f, src->n ? src->n : 1)) { fdt_put(f); return NULL; }
  f->nofile = src->nofile;
  for (int i = 0; i < src->n; i++) {
    if (src->host[i] < 0) continue;
    f->host[i] = fcntl(src->host[i], F_DUPFD_CLOEXEC, 10);
    f->cloexec[i] = src->cloexec[i];
  }
  return f;
}

void fdt_put(struct fdtable *f)
{
  if (!f || --f->refs > 0) return;
  for (int i = 0; i < f->n; i++) if (f->host[i] >= 0) close(f->host[i]);
  free(f->host);
  free(f->cloexec);
  free(f);
}

int fdt_host(struct task *t, int64_t gfd)
{
  struct fdtable *f = t->proc->files;
  if (gfd < 0 || gfd >= f->n) return -1;
  return f->host[gfd];
}

/* Installs hostfd at the lowest free guest fd >= min. Returns it or -EMFILE. */
int fdt_install(struct fdtable *f, int hostfd, bool cloexec, int min)
{
  int i = min;
  for (;; i++) {
    if (i >= f->nofile || i >= 65536) return -EMFILE;
    if (fdt_grow(f, i + 1)) return -ENOMEM;
    if (f->host[i] < 0) break;
  }
  f->host[i] = hostfd;
  f->cloexec[i] = cloexec;
  return i;
}

void fdt_close(struct fdtable *f, int gfd)
{
  if (gfd < 0 || gfd >= f->n || f->host[gfd] < 0) return;
  close(f->host[gfd]);
  f->host[gfd] = -1;
  f->cloexec[gfd] = false;
}

void fdt_close_on_exec(struct fdtable *f)
{
  for (int i = 0; i < f->n; i++)
    if (f->cloexec[i]) fdt_close(f, i);
}

/* ---- lookup ---- */

struct task *task_find(struct os *m, int tid)
{
  for (struct task *t = m->tasks; t; t = t->next)
    if (t->tid == tid && t->state != TASK_DEAD) return t;
  return NULL;
}

struct process *proc_find(struct os *m, int pid)
{
  for (struct process *p = m->procs; p; p = p->next)
    if (p->pid == pid && !p->reaped) return p;
  return NULL;
}

void task_block(struct task *t, enum wait_kind kind)
{
  t->state = TASK_BLOCKED;
  t->wait = kind;
}

void task_wake(struct task *t)
{
  if (t->state == TASK_BLOCKED) {
    t->state = TASK_RUNNABLE;
    t->wait = WAIT_NONE;
  }
}

/* ---- loading and exec ---- */

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == ENOTDIR ? PM_ENOENT :
                     errno == EACCES ? PM_EPERM : PM_EIO;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) { close(fd); return PM_EPERM; }
  size_t n = (size_t)st.st_size;
  uint8_t *b = malloc(n ? n : 1);
  if (!b) { close(fd); return PM_ENOMEM; }
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, b + got, n - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  *buf = b;
  *len = got;
  return 0;
}

/* Resolves an absolute guest path against the sysroot (as qemu -L does). */
static void sysroot_path(struct os *m, const char *p, char *out, size_t len)
{
  if (p[0] == '/' && m->opt.sysroot && *m->opt.sysroot) {
    snprintf(out, len, "%s%s", m->opt.sysroot, p);
    if (access(out, F_OK) == 0) return;
  }
  snprintf(out, len, "%s", p);
}

/* Builds a new address space holding path's image and its interpreter and the
 * initial stack. Returns 0 or PM_E*; *mmp, *pc, *sp are set on success. */
/* What a load produced besides the address space: for perf's MMAP2 records. */
struct load_info {
  char interp[4096];
  uint64_t exe_text[3], interp_text[3];
};

/* The file a program image maps, for its mappings' names: its absolute path
 * (into real, PATH_MAX bytes) and its host device and inode, as maps shows
 * them. */
static const struct guest_vma *image_file(const char *path, char *real, struct guest_vma *f)
{
  struct stat st;
  if (!realpath(path, real)) snprintf(real, PATH_MAX, "%s", path);
  *f = (struct guest_vma){ .path = real };
  if (stat(real, &st) == 0) {
    f->dev = st.st_dev;
    f->ino = st.st_ino;
  }
  return f;
}

static int load_program(struct os *m, const char *path, int argc, char *const *argv,
                        int envc, char *const *envp, struct guest_mm **mmp, uint64_t *pc,
                        uint64_t *sp, char *detail, size_t dlen, struct load_info *li)
{
  uint8_t *buf = NULL;
  size_t len = 0;
  int err = read_file(path, &buf, &len);
  if (err) { snprintf(detail, dlen, "%s", path); return err; }
  struct guest_mm *mm = mm_create(os_phys(m));
  if (!mm) { free(buf); return PM_ENOMEM; }
  axp_mm_init(mm);
  struct elf_image exe, interp;
  char real[PATH_MAX];
  struct guest_vma file;
  err = elf_load_file(mm, buf, len, 0, image_file(path, real, &file), &exe);
  free(buf);
  if (err) { snprintf(detail, dlen, "%s", path); goto fail; }
  memset(li, 0, sizeof *li);
  li->exe_text[0] = exe.text_addr;
  li->exe_text[1] = exe.text_len;
  li->exe_text[2] = exe.text_off;
  if (exe.interp[0]) {
    char ip[PATH_MAX];
    sysroot_path(m, exe.interp, ip, sizeof ip);
    if (!realpath(ip, li->interp)) snprintf(li->interp, sizeof li->interp, "%s", ip);
    err = read_file(ip, &buf, &len);
    if (!err) {
      err = elf_load_file(mm, buf, len, 1, image_file(ip, real, &file), &interp);
      free(buf);
    }
    if (err) {
      snprintf(detail, dlen, "interpreter %s: %s", ip, pm_strerror(err));
      err = PM_EINTERP;
      goto fail;
    }
    li->interp_text[0] = interp.text_addr;
    li->interp_text[1] = interp.text_len;
    li->interp_text[2] = interp.text_off;
  }
  /* load_elf_binary: start_brk at the page-aligned end of the bss. The
   * machine lays programs out without randomization (as with
   * ADDR_NO_RANDOMIZE: no PF_RANDOMIZE, so no gap before brk either). */
  mm->brk_start = mm->brk = exe.end;
  mm->start_code = exe.start_code;
  mm->end_code = exe.end_code;
  mm->start_data = exe.start_data;
  mm->end_data = exe.end_data;
  mm->mmap_base = GUEST_UNMAPPED_BASE;
  uint8_t rnd[16];
  for (int i = 0; i < 16; i += 8) {
    uint64_t v = os_random(m);
    memcpy(rnd + i, &v, 8);
  }
  struct stack_args sa = { argc, argv, envc, envp, path, &exe,
                           exe.interp[0] ? &interp : NULL, rnd };
  *sp = elf_setup_stack(mm, &sa);
  if (!*sp) { err = PM_ENOMEM; snprintf(detail, dlen, "initial stack"); goto fail; }
  *pc = exe.interp[0] ? interp.entry : exe.entry;
  *mmp = mm;
  return 0;
fail:
  mm_put(mm);
  return err;
}

static void ctx_init(struct axp_ctx *c, uint64_t pc, uint64_t sp)
{
  memset(c, 0, sizeof *c);
  c->pc = pc;
  c->r[30] = sp;
  c->fpcr = 0x680E800000000000ull;   /* FPCR_DYN_NORMAL | ieee_swcr_to_fpcr(0) */
}

static void absolute(const char *path, char *out, size_t len)
{
  if (!realpath(path, out)) snprintf(out, len, "%s", path);
}

/* __set_task_comm(kbasename(filename)): the base name of the path exec was
 * given, cut to TASK_COMM_LEN - 1 bytes. */
static void set_comm(struct task *t, const char *path)
{
  const char *b = strrchr(path, '/');
  snprintf(t->comm, sizeof t->comm, "%s", b ? b + 1 : path);
}

int os_spawn(struct os *m, const char *path, int argc, char *const *argv,
                  char *const *envp, char *detail, size_t dlen)
{
  int envc = 0;
  while (envp[envc]) envc++;
  struct guest_mm *mm;
  uint64_t pc, sp;
  struct load_info li;
  int err = load_program(m, path, argc, argv, envc, envp, &mm, &pc, &sp, detail, dlen, &li);
  if (err) return err;
  struct process *p = calloc(1, sizeof *p);
  struct task *t = calloc(1, sizeof *t);
  if (p) p->sighand = calloc(1, sizeof *p->sighand);
  if (p) p->files = fdt_create();
  if (!p || !t || !p->sighand || !p->files) {
    if (p) { free(p->sighand); fdt_put(p->files); }
    free(p); free(t); mm_put(mm);
    return PM_ENOMEM;
  }
  p->sighand->refs = 1;
  for (int fd = 0; fd < 3; fd++) {
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    if (h >= 0) fdt_install(p->files, h, false, fd);
  }
  p->cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  p->pid = m->next_pid++;
  p->ppid = 1;
  p->refs = 1;
  p->umask = 022;
  for (int r = 0; r < 16; r++) {
    struct rlimit rl;
    if (getrlimit(r, &rl)) rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
    p->rlim[r][0] = rl.rlim_cur;
    p->rlim[r][1] = rl.rlim_max;
  }
  p->rlim[RLIMIT_STACK][0] = GUEST_STACK_SIZE;
  p->files->nofile = p->rlim[RLIMIT_NOFILE][0] > 65536 ? 65536 : (int)p->rlim[RLIMIT_NOFILE][0];
  absolute(path, p->exe, sizeof p->exe);
  memcpy(p->interp, li.interp, sizeof p->interp);
  memcpy(p->exe_text, li.exe_text, sizeof p->exe_text);
  memcpy(p->interp_text, li.interp_text, sizeof p->interp_text);
  t->tid = p->pid;
  t->cpu = -1;
  t->cpus_allowed = os_cpu_mask(m);
  t->proc = p;
  t->mm = mm;
  t->exit_signal = GSIG_CHLD;
  set_comm(t, path);
  ctx_init(&t->ctx, pc, sp);
  m->procs = p;
  m->tasks = t;
  m->init_pid = p->pid;
  return 0;
}

/* Kills every other thread of t's process (exec, exit_group). */
static void kill_other_threads(struct os *m, struct task *t)
{
  for (struct task *o = m->tasks; o; o = o->next) {
    if (o == t || o->proc != t->proc || o->state >= TASK_ZOMBIE) continue;
    o->state = TASK_DEAD;
    t->proc->refs--;
    mm_put(o->mm);
    o->mm = NULL;
  }
}

static void release_vfork_parent(struct os *m, struct process *p)
{
  if (!p->vfork_parent_tid) return;
  struct task *pt = task_find(m, p->vfork_parent_tid);
  if (pt && pt->wait == WAIT_VFORK) task_wake(pt);
  p->vfork_parent_tid = 0;
}

int task_exec(struct os *m, struct task *t, const char *path, char *const *argv,
              char *const *envp)
{
  /* The path's own errno (ENOTDIR, ELOOP, ENAMETOOLONG, EACCES without
   * execute permission), which load_program's PM_E* codes do not carry. */
  if (access(path, X_OK)) return -errno;
  int argc = 0, envc = 0;
  while (argv[argc]) argc++;
  while (envp[envc]) envc++;
  struct guest_mm *mm;
  uint64_t pc, sp;
  char detail[256];
  struct load_info li;
  int err = load_program(m, path, argc, argv, envc, envp, &mm, &pc, &sp, detail, sizeof detail, &li);
  if (err) {
    switch (err) {
    case PM_ENOENT: return -ENOENT;
    case PM_EPERM: return -EACCES;
    case PM_ENOMEM: return -ENOMEM;
    case PM_EINTERP: return -ELIBBAD;
    default: return -ENOEXEC;
    }
  }
  kill_other_threads(m, t);
  mm_put(t->mm);
  t->mm = mm;
  ctx_init(&t->ctx, pc, sp);
  set_comm(t, path);
  t->forknoexec = false;
  absolute(path, t->proc->exe, sizeof t->proc->exe);
  memcpy(t->proc->interp, li.interp, sizeof t->proc->interp);
  memcpy(t->proc->exe_text, li.exe_text, sizeof t->proc->exe_text);
  memcpy(t->proc->interp_text, li.interp_text, sizeof t->proc->interp_text);
  fdt_close_on_exec(t->proc->files);
  if (m->kfile.closed) m->kfile.closed(m->kfile.ctx);   /* close-on-exec kernel files */
  /* Handlers reset to default; ignored signals stay ignored (execve(2)). */
  struct sighand *sh = t->proc->sighand;
  if (sh->refs > 1) {
    struct sighand *n = malloc(sizeof *n);
    if (!n) return -ENOMEM;
    *n = *sh;
    n->refs = 1;
    sh->refs--;
    t->proc->sighand = sh = n;
  }
  for (int s = 1; s <= GSIG_MAX; s++) {
    if (sh->act[s].handler > 1) sh->act[s].handler = 0;
    sh->act[s].flags = 0;
    sh->act[s].mask = 0;
  }
  t->altstack_sp = t->altstack_size = 0;
  t->clear_child_tid = t->robust_list = 0;
  shadow_exec(t);
  release_vfork_parent(m, t->proc);
  if (m->hooks.task) os_announce(m, t);
  return 0;
}

const char *task_comm(const struct task *t)
{
  if (t->comm[0]) return t->comm;
  const char *s = strrchr(t->proc->exe, '/');
  return s ? s + 1 : t->proc->exe;
}

void os_announce(struct os *m, struct task *t)
{
  if (!m->hooks.task) return;
  struct task_event e = { .kind = TEV_EXEC, .t = t };
  m->hooks.task(m->hooks.ctx, &e);
  struct process *p = t->proc;
  struct task_event mm = { .kind = TEV_MMAP, .t = t, .addr = p->exe_text[0], .len = p->exe_text[1],
                           .pgoff = p->exe_text[2], .prot = 5, .flags = 2, .path = p->exe };
  if (mm.len) m->hooks.task(m->hooks.ctx, &mm);
  if (p->interp[0] && p->interp_text[1]) {
    mm.addr = p->interp_text[0];
    mm.len = p->interp_text[1];
    mm.pgoff = p->interp_text[2];
    mm.path = p->interp;
    m->hooks.task(m->hooks.ctx, &mm);
  }
}

int task_exec_host(struct os *m, struct task *t, const char *path, char *const *argv,
                   char *const *envp)
{
  struct fdtable *f = t->proc->files;
  sigset_t mask;
  sigemptyset(&mask);
  for (int s = 1; s <= GSIG_MAX; s++)
    if (t->blocked & (1ull << (s - 1))) sigaddset(&mask, sig_to_host(s));
  int maxfd = 0;
  for (int i = 0; i < f->n; i++) if (f->host[i] > maxfd) maxfd = f->host[i];
  if (f->n > maxfd) maxfd = f->n;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -errno;
  if (pid == 0) {
    /* Two steps so no guest fd lands on a host fd still to be moved. */
    int moved[f->n];
    for (int i = 0; i < f->n; i++) {
      moved[i] = -1;
      if (f->host[i] >= 0 && !f->cloexec[i]) moved[i] = fcntl(f->host[i], F_DUPFD, maxfd + 1);
    }
    for (int i = 0; i < f->n; i++) if (moved[i] >= 0) dup2(moved[i], i);
    for (int i = 0; i < f->n; i++) if (moved[i] >= 0) close(moved[i]);
    for (int s = 1; s < 32; s++) {
      int hs = sig_to_host(s);
      if (hs > 0 && hs != SIGKILL && hs != SIGSTOP)
        signal(hs, t->proc->sighand->act[s].handler == 1 ? SIG_IGN : SIG_DFL);
    }
    sigprocmask(SIG_SETMASK, &mask, NULL);
    if (fchdir(t->proc->cwd_fd)) _exit(127);
    execve(path, argv, envp);
    _exit(127);
  }
  t->host_pid = pid;
  t->host_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  kill_other_threads(m, t);
  fdt_close_on_exec(f);
  if (m->kfile.closed) m->kfile.closed(m->kfile.ctx);
  release_vfork_parent(m, t->proc);
  absolute(path, t->proc->exe, sizeof t->proc->exe);
  set_comm(t, path);
  t->forknoexec = false;
  t->wait_fd = t->host_pidfd;
  t->wait_events = POLLIN;
  task_block(t, t->host_pidfd >= 0 ? WAIT_FD : WAIT_TIME);
  t->wait_deadline = t->host_pidfd >= 0 ? 0 : os_now(m) + 1000000;
  return 0;
}

/* A process standing for a host child: reap it, or keep waiting. */
static void host_proxy(struct os *m, struct task *t)
{
  int st;
  pid_t r = waitpid(t->host_pid, &st, WNOHANG);
  if (r == t->host_pid) {
    if (t->host_pidfd >= 0) close(t->host_pidfd);
    t->host_pid = 0;
    int status = WIFSIGNALED(st) ? sig_from_host(WTERMSIG(st)) | (WCOREDUMP(st) ? 0x80 : 0)
                                 : (WEXITSTATUS(st) << 8);
    task_exit(m, t, status, true);
    return;
  }
  if (t->host_pidfd >= 0) {
    t->wait_fd = t->host_pidfd;
    t->wait_events = POLLIN;
    task_block(t, WAIT_FD);
  } else {
    t->wait_deadline = os_now(m) + 1000000;   /* no pidfd: look again in 1 ms */
    task_block(t, WAIT_TIME);
  }
}

/* ---- clone, exit, wait ---- */

int64_t task_clone(struct os *m, struct task *t, uint64_t flags, uint64_t newsp,
                   uint64_t ptid, uint64_t ctid, uint64_t tls)
{
  if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND)) return -EINVAL;
  /* RLIMIT_NPROC-like cap: a fork bomb in the guest gets EAGAIN, as under
   * Linux, instead of exhausting the host. */
  int live = 0;
  for (struct task *o = m->tasks; o; o = o->next) if (o->state < TASK_ZOMBIE) live++;
  if (live >= 4096) return -EAGAIN;
  if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM)) return -EINVAL;
  struct task *n = calloc(1, sizeof *n);
  if (!n) return -ENOMEM;
  struct process *p = t->proc;
  int tid = m->next_pid++;
  if (!(flags & CLONE_THREAD)) {
    struct process *np = calloc(1, sizeof *np);
    if (!np) { free(n); return -ENOMEM; }
    np->pid = tid;
    np->parent = (flags & CLONE_PARENT) && p->parent ? p->parent : p;
    np->ppid = np->parent->pid;
    np->refs = 0;
    np->umask = p->umask;
    memcpy(np->rlim, p->rlim, sizeof np->rlim);
    memcpy(np->exe, p->exe, sizeof np->exe);
    np->cwd_fd = fcntl(p->cwd_fd, F_DUPFD_CLOEXEC, 10);
    if (flags & CLONE_SIGHAND) {
      np->sighand = p->sighand;
      np->sighand->refs++;
    } else {
      np->sighand = malloc(sizeof *np->sighand);
      if (np->sighand) { *np->sighand = *p->sighand; np->sighand->refs = 1; }
    }
    if (flags & CLONE_FILES) {
      np->files = p->files;
      np->files->refs++;
    } else {
      np->files = fdt_copy(p->files);
    }
    if (!np->sighand || !np->files) {
      free(np->sighand); fdt_put(np->files); close(np->cwd_fd); free(np); free(n);
      return -ENOMEM;
    }
    np->next = m->procs;
    m->procs = np;
    p = np;
  }
  if (flags & CLONE_VM) {
    n->mm = mm_get(t->mm);
  } else if (!(n->mm = mm_fork(t->mm))) {
    free(n);
    return -ENOMEM;
  }
  p->refs++;
  n->tid = tid;
  n->cpu = -1;
  n->cpus_allowed = t->cpus_allowed;   /* (copy_process: the parent's mask) */
  n->proc = p;
  n->ctx = t->ctx;
  n->ctx.lock_valid = false;
  n->blocked = t->blocked;
  n->state = TASK_RUNNABLE;
  memcpy(n->comm, t->comm, sizeof n->comm);
  n->exit_signal = (flags & CLONE_THREAD) ? -1 : (int)(flags & 0xff);   /* CSIGNAL */
  n->forknoexec = true;
  n->start_ns = os_now(m);
  /* The child returns 0 with a3 = 0 and a4 = 1 (the OSF fork convention). */
  n->ctx.r[0] = 0;
  n->ctx.r[19] = 0;
  n->ctx.r[20] = 1;
  if (newsp) n->ctx.r[30] = newsp;
  if (flags & CLONE_SETTLS) n->ctx.unique = tls;
  uint32_t tid32 = (uint32_t)tid;
  if (flags & CLONE_PARENT_SETTID) mm_write(t->mm, ptid, &tid32, 4, true);
  if (flags & CLONE_CHILD_SETTID) mm_write(n->mm, ctid, &tid32, 4, true);
  if (flags & CLONE_CHILD_CLEARTID) n->clear_child_tid = ctid;
  /* Run the child right after the parent in the list order. */
  n->next = t->next;
  t->next = n;
  if (flags & CLONE_VFORK) {
    p->vfork_parent_tid = t->tid;
    task_block(t, WAIT_VFORK);
    t->in_syscall_wait = false;   /* the parent's clone does not re-execute */
  }
  if (!(flags & CLONE_SETTLS)) t->ctx.r[20] = 0;
  shadow_clone(m, n, t, newsp != 0);
  if (m->hooks.task) {
    struct task_event e = { .kind = TEV_FORK, .t = n, .parent = t };
    m->hooks.task(m->hooks.ctx, &e);
  }
  return tid;
}

void futex_wake(struct os *m, struct guest_mm *mm, uint64_t addr, int n, uint32_t bitset,
                int *woken)
{
  int k = 0;
  for (struct task *o = m->tasks; o && k < n; o = o->next) {
    if (o->state == TASK_BLOCKED && o->wait == WAIT_FUTEX && o->mm == mm &&
        o->wait_addr == addr && (o->wait_bitset & bitset)) {
      task_wake(o);
      o->in_syscall_wait = false;   /* the wait completes: return 0 */
      o->wait_deadline = 0;         /* its timeout is spent */
      o->ctx.r[0] = 0;
      o->ctx.r[19] = 0;
      o->ctx.pc += 4;
      k++;
    }
  }
  if (woken) *woken = k;
}

static void wake_waiting_parent(struct os *m, struct process *p)
{
  for (struct task *o = m->tasks; o; o = o->next)
    if (o->state == TASK_BLOCKED && o->wait == WAIT_CHILD && o->proc == p->parent)
      task_wake(o);
}

/* Ends one thread; the process ends with its last thread. status is a wait
 * status (exit code << 8, or signal number | 0x80 for a core dump). */
void task_exit(struct os *m, struct task *t, int status, bool group)
{
  struct process *p = t->proc;
  if (group) kill_other_threads(m, t);
  if (t->clear_child_tid && t->mm && t->mm->refs > 1) {
    uint32_t zero = 0;
    mm_write(t->mm, t->clear_child_tid, &zero, 4, true);
    futex_wake(m, t->mm, t->clear_child_tid, 1, ~0u, NULL);
  }
  if (m->hooks.task) {
    struct task_event e = { .kind = TEV_EXIT, .t = t };
    m->hooks.task(m->hooks.ctx, &e);
  }
  t->state = TASK_DEAD;
  mm_put(t->mm);
  t->mm = NULL;
  p->dead_run_ns += t->run_ns;
  p->dead_min_flt += t->min_flt;
  p->dead_nvcsw += t->nvcsw;
  p->dead_nivcsw += t->nivcsw;
  if (group || !p->exited) p->exit_code = status;
  if (--p->refs > 0) return;
  p->exited = true;
  release_vfork_parent(m, p);
  fdt_put(p->files);
  p->files = NULL;
  if (m->kfile.closed) m->kfile.closed(m->kfile.ctx);   /* the last fds of kernel files */
  if (p->cwd_fd >= 0) close(p->cwd_fd);
  p->cwd_fd = -1;
  if (--p->sighand->refs == 0) free(p->sighand);
  p->sighand = NULL;
  if (p->pid == m->init_pid) {
    m->init_exited = true;
    m->init_status = p->exit_code;
  }
  /* Children of the dead process are reparented to init (reaped by nobody). */
  for (struct process *c = m->procs; c; c = c->next)
    if (c->parent == p) { c->parent = NULL; c->ppid = 1; if (c->exited) c->reaped = true; }
  if (p->parent && !p->parent->exited) {
    struct task *pt = NULL;
    for (struct task *o = m->tasks; o; o = o->next)
      if (o->proc == p->parent && o->state < TASK_ZOMBIE) { pt = o; break; }
    struct gsigaction *a = pt ? &p->parent->sighand->act[GSIG_CHLD] : NULL;
    if (a && (a->handler == 1 || (a->flags & 0x20 /* SA_NOCLDWAIT */))) p->reaped = true;
    else if (pt) signal_send(m, NULL, p->parent, GSIG_CHLD, 1 /* CLD_EXITED */, 0, p->pid);
    wake_waiting_parent(m, p);
  } else {
    p->reaped = true;
  }
}

/* ---- the scheduler ---- */

static bool any_live(struct os *m)
{
  for (struct task *t = m->tasks; t; t = t->next)
    if (t->state < TASK_ZOMBIE) return true;
  return false;
}

/* Frees dead tasks except keep (the scheduler's round-robin cursor). */
static void free_dead(struct os *m, struct task *keep)
{
  struct task **pp = &m->tasks;
  while (*pp) {
    struct task *t = *pp;
    if (t->state == TASK_DEAD && t != keep && !(t->cpu >= 0 && m->cpus[t->cpu].task == t)) {
      *pp = t->next;
      shadow_free(t);
      free(t);
    }
    else pp = &t->next;
  }
}

/* Fires interval timers and wakes sleepers whose deadline passed. */
static void check_timers(struct os *m)
{
  uint64_t now = os_now(m);
  for (struct process *p = m->procs; p; p = p->next) {
    if (p->exited || !p->itimer_deadline || p->itimer_deadline > now) continue;
    p->itimer_deadline = p->itimer_interval ? now + p->itimer_interval : 0;
    signal_send(m, NULL, p, GSIG_ALRM, 0x80 /* SI_KERNEL */, 0, 0);
  }
  for (struct task *t = m->tasks; t; t = t->next)
    if (t->state == TASK_BLOCKED && t->wait_deadline && t->wait_deadline <= now)
      task_wake(t);
}

/* Called with no runnable task. Returns false on deadlock. */
static bool idle(struct os *m)
{
  struct pollfd pfd[64];
  struct task *who[64];
  int n = 0;
  uint64_t next = 0;
  for (struct task *t = m->tasks; t; t = t->next) {
    if (t->state != TASK_BLOCKED) continue;
    if (t->wait == WAIT_FD && n < 64) {
      pfd[n] = (struct pollfd){ .fd = t->wait_fd, .events = (short)t->wait_events };
      who[n++] = t;
    }
    if (t->wait_deadline && (!next || t->wait_deadline < next)) next = t->wait_deadline;
  }
  for (struct process *p = m->procs; p; p = p->next)
    if (!p->exited && p->itimer_deadline && (!next || p->itimer_deadline < next))
      next = p->itimer_deadline;
  if (!n && !next) return false;
  int timeout = -1;
  if (next) {
    uint64_t now = os_now(m);
    if (m->opt.real_time) timeout = next > now ? (int)((next - now) / 1000000 + 1) : 0;
    else timeout = 0;
  }
  if (n) {
    int r = poll(pfd, (nfds_t)n, timeout);
    for (int i = 0; r > 0 && i < n; i++)
      if (pfd[i].revents) task_wake(who[i]);
    if (r > 0) return true;
  }
  if (next && !m->opt.real_time) {
    uint64_t now = os_now(m);
    if (next > now) m->idle_ns += next - now;
  }
  check_timers(m);
  return true;
}

/* A blocked task with a deliverable signal (or one its sigtimedwait wants)
 * becomes runnable: the signal interrupts or completes its syscall. */
static void wake_signalled(struct os *m)
{
  for (struct task *t = m->tasks; t; t = t->next)
    if (t->state == TASK_BLOCKED && t->wait != WAIT_VFORK &&
        (t->pending & (~t->blocked | t->wait_sigset)))
      task_wake(t);
}

/* The next runnable task after `after` in list order that is not on another
 * CPU than cpu, or NULL. */
static struct task *pick(struct os *m, struct task *after, int cpu)
{
  wake_signalled(m);
  struct task *t = after ? after->next : m->tasks;
  for (int pass = 0; pass < 2; pass++) {
    for (; t; t = t->next)
      if (t->state == TASK_RUNNABLE && (t->cpus_allowed >> cpu & 1) &&
          !(t->cpu >= 0 && t->cpu != cpu && m->cpus[t->cpu].task == t))
        return t;
    t = m->tasks;
  }
  return NULL;
}

static void report_deadlock(struct os *m)
{
  static const char *const why[] = { "nothing", "time", "an fd", "a child", "a futex",
                                     "a signal", "a vfork child" };
  int n = 0;
  if (m->init_exited)
    fprintf(m->log, "profileme: the program exited; processes it left behind are blocked for ever "
                    "and were killed:");
  else
    fprintf(m->log, "profileme: every guest thread is blocked for ever (deadlock):");
  for (struct task *t = m->tasks; t; t = t->next) {
    if (t->state != TASK_BLOCKED) continue;
    if (n++ < 8) fprintf(m->log, " tid %d waits for %s;", t->tid, why[t->wait]);
  }
  if (n > 8) fprintf(m->log, " and %d more", n - 8);
  fprintf(m->log, "\n");
}

/* Instructions a CPU runs in one round when there are several: bounds how
 * far apart the CPUs' clocks can drift (about 25 us). */
#define SMP_ROUND 16384u

/* A switch away from prev: voluntary when it stopped running (it blocked or
 * exited), involuntary when it was preempted (schedule's nvcsw, nivcsw). */
static void count_switch(struct task *prev)
{
  if (!prev) return;
  if (prev->state == TASK_RUNNABLE) prev->nivcsw++;
  else prev->nvcsw++;
}

/* Takes CPU i's task off it (idle) and tells the machine. */
static void cpu_release(struct os *m, int i)
{
  struct cpu *cpu = &m->cpus[i];
  struct task *prev = cpu->task;
  count_switch(prev);
  cpu->task = NULL;
  if (prev && m->hooks.switch_to) m->hooks.switch_to(m->hooks.ctx, i, prev, NULL, false);
}

/* Gives CPU i its next task: the running one stays unless its slice is
 * over or it stopped. A CPU that was idle starts at the time it gets work. */
static void cpu_place(struct os *m, int i)
{
  struct cpu *cpu = &m->cpus[i];
  struct task *prev = cpu->task;
  if (prev && prev->state == TASK_RUNNABLE && !cpu->need_resched && cpu->slice_left &&
      (prev->cpus_allowed >> i & 1))
    return;
  cpu->need_resched = false;
  struct task *n;
  while ((n = pick(m, m->rr, i)) && n->host_pid) {
    m->rr = n;
    host_proxy(m, n);   /* stand-ins for host processes take no CPU */
  }
  if (!n) { cpu_release(m, i); return; }
  m->rr = n;
  if (!prev) {
    uint64_t now = cpu_clock(m, i);
    if (now < m->time_hwm) cpu->idle_ns += m->time_hwm - now;
  }
  bool migrated = n->cpu >= 0 && n->cpu != i;
  if (n != prev) count_switch(prev);
  cpu->task = n;
  cpu->slice_left = m->opt.quantum;
  n->cpu = i;
  n->ctx.lock_valid = false;   /* a context switch breaks LL/SC reservations */
  if (m->hooks.switch_to && (n != prev || migrated))
    m->hooks.switch_to(m->hooks.ctx, i, prev, n, migrated);
}

/* Places tasks on the CPUs that need one; returns the CPU with a task and
 * the earliest clock, or -1 when no task can run. */
static int next_cpu(struct os *m)
{
  int best = -1;
  uint64_t best_t = 0;
  /* A task whose affinity left its CPU comes off first, so that the CPU it
   * may use can take it in this same pass (sched_setaffinity). */
  for (int i = 0; i < m->ncpus; i++) {
    struct task *t = m->cpus[i].task;
    if (t && !(t->cpus_allowed >> i & 1)) cpu_release(m, i);
  }
  for (int i = 0; i < m->ncpus; i++) {
    cpu_place(m, i);
    if (!m->cpus[i].task) continue;
    uint64_t t = cpu_clock(m, i);
    if (best < 0 || t < best_t) { best = i; best_t = t; }
  }
  return best;
}

/* A system call that found no frame for a user page it wrote (copy_to_user
 * faulting with VM_FAULT_OOM) wakes the OOM killer: the process gets SIGKILL. */
static void oom_check(struct os *m, struct task *t)
{
  if (!t->mm || !t->mm->oom) return;
  t->mm->oom = false;
  m->oom_kills++;
  struct gsiginfo si = { .sig = GSIG_KILL, .code = 0x80 /* SI_KERNEL */ };
  signal_queue(m, NULL, t->proc, &si);
}

/* Runs CPU i's task for one round: until its slice or the round is used up,
 * it blocks or exits, or the machine asks for a reschedule. */
static void run_round(struct os *m, int i)
{
  struct cpu *cpu = &m->cpus[i];
  struct task *t = cpu->task;
  m->cur_cpu = m->last_cpu = i;
  m->current = t;
  uint64_t clock0 = cpu_clock(m, i);
  struct guest_mm *mm0 = t->mm;
  uint64_t touched0 = mm0 ? mm0->pages_touched : 0;
  signal_deliver(m, t);
  if (t->state == TASK_RUNNABLE) {
    uint64_t left = cpu->slice_left, start = cpu->icount;
    if (m->ncpus > 1 && left > SMP_ROUND) left = SMP_ROUND;
    while (left && t->state == TASK_RUNNABLE && !cpu->need_resched) {
      uint64_t before = cpu->icount;
      cpu->asn = (unsigned)t->proc->pid;
      int stop = cpu->timing ? (cpu->warm_build ? axp_run_warm : axp_run_timed)(cpu, &t->ctx, t->mm, left)
                             : axp_run(cpu, &t->ctx, t->mm, left);
      uint64_t ran = cpu->icount - before;
      left = ran < left ? left - ran : 0;
      if (stop == AXP_STOP_CALLSYS) {
        m->syscalls++;
        if (m->hooks.kernel) {
          uint64_t nr = t->ctx.r[0];
          uint64_t bytes = sys_flags(nr) & SYSF_COPIES ? t->ctx.r[18] : 0;
          m->hooks.kernel(m->hooks.ctx, 0 /* KACT_SYSCALL */, nr, bytes);
        }
        sys_dispatch(m, t);
        oom_check(m, t);
        if (t->state == TASK_RUNNABLE) signal_deliver(m, t);
        if (left) left--;
        if (cpu->slice_left) cpu->slice_left--;
      } else if (stop == AXP_STOP_TRAP) {
        if (cpu->trap.sig == GSIG_KILL) m->oom_kills++;
        signal_force(m, t, &cpu->trap);
        signal_deliver(m, t);
      } else if (stop == AXP_STOP_INTERRUPT) {
        if (m->hooks.irq) m->hooks.irq(m->hooks.ctx, t);
        signal_deliver(m, t);
      }
    }
    uint64_t ran = cpu->icount - start;
    cpu->slice_left = ran < cpu->slice_left ? cpu->slice_left - ran : 0;
    if (m->hooks.slice) m->hooks.slice(m->hooks.ctx);   /* m->current is the task that ran */
  }
  uint64_t clock1 = cpu_clock(m, i);
  t->run_ns += clock1 > clock0 ? clock1 - clock0 : 0;
  if (t->mm && t->mm == mm0) t->min_flt += t->mm->pages_touched - touched0;
  m->current = NULL;
  m->cur_cpu = -1;
  if (t->state != TASK_RUNNABLE) cpu_release(m, i);
}

int os_run(struct os *m)
{
  while (any_live(m)) {
    check_timers(m);
    int i = next_cpu(m);
    if (i < 0) {
      if (!idle(m)) {
        report_deadlock(m);
        for (struct task *o = m->tasks; o; o = o->next)
          if (o->state < TASK_ZOMBIE) task_exit(m, o, GSIG_KILL, true);
        break;
      }
      continue;
    }
    run_round(m, i);
    free_dead(m, m->rr);
  }
  for (int i = 0; i < m->ncpus; i++) cpu_release(m, i);
  return m->init_status;
}

void os_destroy(struct os *m)
{
  if (!m) return;
  for (struct task *t = m->tasks; t;) {
    struct task *n = t->next;
    if (t->mm) mm_put(t->mm);
    shadow_free(t);
    free(t);
    t = n;
  }
  for (struct process *p = m->procs; p;) {
    struct process *n = p->next;
    fdt_put(p->files);
    if (p->sighand && --p->sighand->refs == 0) free(p->sighand);
    if (p->cwd_fd > 0) close(p->cwd_fd);
    free(p);
    p = n;
  }
  for (int i = 0; i < m->ncpus; i++) pc_counts_free(&m->cpus[i].unaligned);
  phys_destroy(m->phys);
  synthfs_destroy(m->synth);
  free(m);
}

struct physmem *os_phys(struct os *m)
{
  if (m->phys) return m->phys;
  uint64_t bytes = m->opt.ram_bytes ? m->opt.ram_bytes : PHYS_DEFAULT_BYTES;
  if (bytes <= KIMAGE_PHYS_BYTES) return NULL;
  m->phys = phys_create(bytes);
  if (m->phys && phys_reserve(m->phys, 0, KIMAGE_PHYS_BYTES / PHYS_PAGE) != 0) {
    phys_destroy(m->phys);
    m->phys = NULL;
  }
  return m->phys;
}
