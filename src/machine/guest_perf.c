/* perf_event_open for the guests; see guest_perf.h and docs/guest-perf.md.
 * Follows kernel/events/core.c of Linux 6.1: sys_perf_event_open's order of
 * checks, perf_read, _perf_ioctl, perf_mmap, perf_poll's wakeups,
 * perf_event_set_output, perf_event_fasync with fs/fcntl.c's send_sigio,
 * perf_sigtrap, perf_event_enable_on_exec / perf_event_remove_on_exec and
 * prctl's perf_event_task_disable/enable. Numbers the guest passes are
 * Alpha's (ioctl encoding, fcntl commands, signals, errno via the
 * dispatcher). */
#include "machine/guest_perf.h"
#include "guest/phys.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Alpha's _IOC: nr 8 bits, type 8, size 13, dir 3 (NONE 1, READ 2, WRITE 4). */
#define A_IOC(dir, nr, size) (((uint64_t)(dir) << 29) | ((uint64_t)(size) << 16) | ('$' << 8) | (nr))
#define A_IO(nr) A_IOC(1, nr, 0)
#define A_IOW(nr, size) A_IOC(4, nr, size)
#define A_IOR(nr, size) A_IOC(2, nr, size)
#define A_IOWR(nr, size) A_IOC(6, nr, size)
#define A_FIOASYNC 0x8004667dull      /* _IOW('f', 125, int) */
#define A_O_ASYNC 020000              /* FASYNC */
#define A_MAP_SHARED 1
#define A_PROT_WRITE 2
#define A_F_SETFL 4
#define A_F_SETOWN 5
#define A_F_GETOWN 6
#define A_F_SETSIG 10
#define A_F_GETSIG 11
#define A_F_SETOWN_EX 15
#define A_F_GETOWN_EX 16
#define F_OWNER_TID_ 0
#define F_OWNER_PID_ 1
#define F_OWNER_PGRP_ 2
#define A_POLL_IN 1
#define A_POLL_HUP 6
#define A_SI_KERNEL 0x80
#define A_SI_SIGIO (-5)
#define A_TRAP_PERF 6
#define TRAP_PERF_FLAG_ASYNC_ 1u
#define A_POLLIN 0x1
#define A_POLLRDNORM 0x40
#define A_POLLERR 0x8
#define A_POLLHUP 0x10
#define READ_MAX 16384                /* perf_event_validate_size: a read is at most 16 KB */
#define MLOCK_PAGES 64                /* perf_event_mlock_kb 512 in 8 KB pages, per CPU */

/* One perf event file (Linux's struct file of an event): what the guests'
 * fds share. */
struct gfile {
  struct guest_perf *g;
  struct perf_event *e;
  int wr;                       /* the placeholder pipe's write end (the machine's) */
  dev_t dev;
  ino_t ino;                    /* the read end's inode: what the guests' fds are */
  int cpu, pid;                 /* as opened (pid: the tid followed, -1 for a CPU) */
  int owner_tid;                /* the task that opened it (prctl) */
  bool ready;                   /* the pipe holds its byte: poll says POLLIN */
  bool exited;                  /* remove_on_exec took it off its task (STATE_EXIT) */
  bool hup;                     /* its tasks are gone: poll says POLLHUP (is_event_hup) */
  int *tids, ntids, tids_cap;   /* the live tasks it follows: its own and those it was
                                   inherited into (the child_list), while not hup */
  bool async;                   /* O_ASYNC */
  int fasync_fd;                /* the guest fd O_ASYNC was set through (si_fd) */
  int own_type, own_pid;        /* F_SETOWN(_EX); own_pid 0: none */
  int sig;                      /* F_SETSIG; 0: plain SIGIO */
  int mmap_count;               /* live guest mappings of this file */
  uint64_t wakeup_head;         /* data_head at the last watermark wakeup */
  uint32_t events;              /* samples since the last wakeup_events wakeup */
  struct gfile *next;
};

/* One guest mapping of a ring (its guest_ext's priv). */
struct gmap {
  struct guest_ext ext;
  struct guest_perf *g;         /* NULL once the machine went */
  struct gfile *f;              /* NULL once the file closed */
  struct perf_rb *rb;
  size_t nframes;
  struct gmap *next;
};

struct guest_perf {
  struct os *os;
  struct perf_ctx *perf;
  bool privileged;
  struct gfile *files;
  struct gmap *maps;
};

/* ---- files ---- */

static struct gfile *file_of(struct guest_perf *g, int h)
{
  if (!g->files || h < 0) return NULL;
  struct stat st;
  if (fstat(h, &st)) return NULL;
  for (struct gfile *f = g->files; f; f = f->next)
    if (f->ino == st.st_ino && f->dev == st.st_dev) return f;
  return NULL;
}

static struct gfile *file_of_event(struct guest_perf *g, const struct perf_event *e)
{
  for (struct gfile *f = g->files; f; f = f->next) if (f->e == e) return f;
  return NULL;
}

/* perf_poll's POLLIN: the pipe holds one byte while a wakeup is pending. */
static void set_ready(struct gfile *f, bool ready)
{
  char b = 0;
  if (ready == f->ready) return;
  if (ready ? write(f->wr, &b, 1) == 1 : true) f->ready = ready;
  if (!ready) {
    /* drain through a fresh read end is impossible; the guests' dups all
     * share the one pipe, so read it back through /proc */
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", f->wr);
    int rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (rd >= 0) {
      char buf[16];
      while (read(rd, buf, sizeof buf) > 0) continue;
      close(rd);
    }
  }
}

static void file_free(struct guest_perf *g, struct gfile *f)
{
  for (struct gfile **pp = &g->files; *pp; pp = &(*pp)->next)
    if (*pp == f) { *pp = f->next; break; }
  for (struct gmap *mp = g->maps; mp; mp = mp->next) if (mp->f == f) mp->f = NULL;
  perf_event_close(f->e);
  close(f->wr);
  free(f->tids);
  free(f);
}

/* Adds tid to the tasks f follows; false when out of memory. */
static bool follow(struct gfile *f, int tid)
{
  if (f->ntids == f->tids_cap) {
    int cap = f->tids_cap ? 2 * f->tids_cap : 4;
    int *n = realloc(f->tids, (size_t)cap * sizeof *n);
    if (!n) return false;
    f->tids = n;
    f->tids_cap = cap;
  }
  f->tids[f->ntids++] = tid;
  return true;
}

static int followed(const struct gfile *f, int tid)
{
  for (int i = 0; i < f->ntids; i++) if (f->tids[i] == tid) return i;
  return -1;
}

/* Files whose last fd went (the pipe has no reader left) are released. */
static void k_closed(void *ctx)
{
  struct guest_perf *g = ctx;
  for (struct gfile *f = g->files, *next; f; f = next) {
    next = f->next;
    struct pollfd p = { .fd = f->wr, .events = 0 };
    if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) file_free(g, f);
  }
}

static bool k_is_kfile(void *ctx, int h) { return file_of(ctx, h) != NULL; }

static bool k_hup(void *ctx, int h)
{
  struct gfile *f = file_of(ctx, h);
  return f && f->hup;
}

/* The task pid names for the event (0: the caller), or NULL (ESRCH). */
static struct task *target_task(struct guest_perf *g, struct task *t, int pid)
{
  if (pid == 0) return t;
  struct task *o = task_find(g->os, pid);
  return o && o->state < TASK_ZOMBIE ? o : NULL;
}

/* perf_event_set_output's checks, then the redirection. */
static int set_output(struct gfile *f, struct gfile *out)
{
  if (f->mmap_count) return -EINVAL;   /* can't redirect output with an active mmap() */
  if (!out) return perf_event_set_output(f->e, NULL);
  if (out == f || out->cpu != f->cpu) return -EINVAL;
  if (out->cpu == -1 && out->pid != f->pid) return -EINVAL;
  if (out->e->attr.use_clockid != f->e->attr.use_clockid ||
      (f->e->attr.use_clockid && out->e->attr.clockid != f->e->attr.clockid))
    return -EINVAL;
  if (out->e->attr.write_backward != f->e->attr.write_backward) return -EINVAL;
  if (!out->e->rb || !out->mmap_count) return -EINVAL;
  if (f->e->rb) perf_event_set_output(f->e, NULL);
  return perf_event_set_output(f->e, out->e);
}

static int k_perf_open(void *ctx, struct task *t, const void *uattr, int pid, int cpu, int group_h, int group_fd,
                       unsigned long flags)
{
  struct guest_perf *g = ctx;
  struct perf_event_attr attr;
  (void)group_fd;
  memcpy(&attr, uattr, sizeof attr);
  if (flags & PERF_FLAG_PID_CGROUP) {
    /* No cgroupfs in the guest: after the attr's own checks, pid or cpu -1
     * is EINVAL and any fd is not a cgroup directory (EBADF). */
    struct perf_event *probe;
    int err = perf_event_open_cred(g->perf, &attr, t->tid, cpu < 0 ? 0 : cpu, NULL, g->privileged, &probe);
    if (err) return err;
    perf_event_close(probe);
    return pid == -1 || cpu == -1 ? -EINVAL : -EBADF;
  }
  struct gfile *leader = NULL, *output = NULL;
  if (group_h != -1) {
    if (group_h < 0 || !(leader = file_of(g, group_h))) return -EBADF;
    if (flags & PERF_FLAG_FD_OUTPUT) output = leader;
    if (flags & PERF_FLAG_FD_NO_GROUP) leader = NULL;
  }
  int tid = -1;
  if (pid != -1) {
    struct task *o = target_task(g, t, pid);
    if (!o) return -ESRCH;
    tid = o->tid;
  }
  if (tid != -1 && leader && leader->e->attr.inherit != attr.inherit) return -EINVAL;
  /* perf_event_alloc: sigtrap needs a task */
  if (attr.sigtrap && tid == -1) return -EINVAL;
  struct perf_event *e;
  int err = perf_event_open_cred(g->perf, &attr, tid, cpu, leader ? leader->e : NULL, g->privileged, &e);
  if (err) return err;
  struct gfile *f = calloc(1, sizeof *f);
  int p[2];
  struct stat st;
  if (!f || pipe2(p, O_CLOEXEC | O_NONBLOCK)) { free(f); perf_event_close(e); return -ENFILE; }
  if (fstat(p[0], &st)) { close(p[0]); close(p[1]); free(f); perf_event_close(e); return -ENFILE; }
  *f = (struct gfile){ .g = g, .e = e, .wr = p[1], .dev = st.st_dev, .ino = st.st_ino, .cpu = cpu, .pid = tid,
                       .owner_tid = t->tid, .fasync_fd = -1 };
  f->next = g->files;
  g->files = f;
  if (tid != -1 && !follow(f, tid)) {
    close(p[0]);
    file_free(g, f);
    return -ENOMEM;
  }
  if (output && (err = set_output(f, output))) {
    close(p[0]);
    file_free(g, f);
    return err;
  }
  return p[0];
}

/* ---- read ---- */

static int64_t k_read(void *ctx, struct task *t, int h, uint64_t buf, uint64_t len)
{
  struct gfile *f = file_of(ctx, h);
  if (!f) return -EBADF;
  uint64_t v[READ_MAX / 8];
  long n = perf_event_read(f->e, v, len < sizeof v ? (size_t)len : sizeof v);
  if (n < 0) return n;
  if (mm_write(t->mm, buf, v, (size_t)n, true)) return -EFAULT;
  return n;
}

/* ---- the user page (perf_event_update_userpage; Alpha has no rdpmc and
 * no arch_perf_update_userpage: index 0, cap_user_rdpmc and cap_user_time
 * 0, so the guest takes offset + time_* as of the last update) ---- */

static void update_userpage(struct gfile *f)
{
  if (!f->e->rb) return;
  struct perf_event_mmap_page *u = f->e->rb->user;   /* (a ring always has its user page) */
  uint64_t count, enabled, running;
  perf_event_read_value(f->e, &count, &enabled, &running);
  __atomic_add_fetch(&u->lock, 1, __ATOMIC_RELEASE);
  u->index = 0;
  u->offset = (int64_t)count;
  u->time_enabled = enabled;
  u->time_running = running;
  __atomic_add_fetch(&u->lock, 1, __ATOMIC_RELEASE);
}

/* ---- ioctl ---- */

static int64_t ioctl_one(struct gfile *f, uint64_t req)
{
  struct perf_event *e = f->e;
  switch (req) {
  case A_IO(0): if (!f->exited) perf_event_enable(e); return 0;   /* ENABLE; an EXIT event stays off */
  case A_IO(1): perf_event_disable(e); return 0;                  /* DISABLE */
  case A_IO(3): perf_event_reset(e); update_userpage(f); return 0; /* RESET */
  default: return -ENOTTY;
  }
}

static int64_t k_ioctl(void *ctx, struct task *t, int h, uint64_t req, uint64_t arg)
{
  struct guest_perf *g = ctx;
  struct gfile *f = file_of(g, h);
  if (!f) return -EBADF;
  struct perf_event *e = f->e;
  switch (req) {
  case A_FIOASYNC: {   /* ioctl_fioasync: O_ASYNC on or off */
    int on;
    if (mm_read(t->mm, arg, &on, 4, true)) return -EFAULT;
    f->async = on != 0;
    int fl = fcntl(h, F_GETFL);
    if (fl >= 0) fcntl(h, F_SETFL, on ? fl | O_ASYNC : fl & ~O_ASYNC);
    return 0;
  }
  case A_IO(0): case A_IO(1): case A_IO(3): {
    /* ENABLE, DISABLE, RESET; PERF_IOC_FLAG_GROUP: of the event's leader
     * and every sibling (perf_event_for_each) */
    if (!(arg & PERF_IOC_FLAG_GROUP)) return ioctl_one(f, req);
    struct perf_event *l = e->group_leader ? e->group_leader : e;
    for (struct perf_event *m = l; m; m = m == l ? l->sibling_next : m->sibling_next) {
      struct gfile *mf = file_of_event(g, m);
      if (mf) ioctl_one(mf, req);
    }
    return 0;
  }
  case A_IO(2):   /* REFRESH */
    if (f->exited) return 0;
    return perf_event_refresh(e, (uint32_t)arg);
  case A_IOW(4, 8): {   /* PERIOD */
    uint64_t v;
    if (mm_read(t->mm, arg, &v, 8, true)) return -EFAULT;
    return perf_event_period(e, v);
  }
  case A_IOR(7, 8): {   /* ID: the primary id */
    uint64_t id = e->id;
    return mm_write(t->mm, arg, &id, 8, true) ? -EFAULT : 0;
  }
  case A_IO(5): {   /* SET_OUTPUT: arg a guest fd, or -1 */
    if ((int)arg == -1) return set_output(f, NULL);
    int oh = fdt_host(t, (int)arg);
    struct gfile *out = oh >= 0 ? file_of(g, oh) : NULL;
    if (!out) return -EBADF;
    return set_output(f, out);
  }
  case A_IOW(6, 8): {   /* SET_FILTER: strndup_user, then no tracepoint or address filter here */
    char s[8192];
    long n = mm_read_str(t->mm, arg, s, sizeof s);
    if (n == PM_EINVAL /* longer than a page */) return -EINVAL;
    return n < 0 ? -EFAULT : -EINVAL;
  }
  case A_IOW(8, 4): {   /* SET_BPF: bpf_prog_get of the fd */
    return fdt_host(t, (int)(int32_t)arg) < 0 ? -EBADF : -EINVAL;
  }
  case A_IOW(9, 4):   /* PAUSE_OUTPUT */
    if (!e->rb) return -EINVAL;
    e->rb->paused = arg != 0;
    return 0;
  case A_IOWR(10, 8): return -EINVAL;   /* QUERY_BPF: not a tracepoint */
  case A_IOW(11, 8): {   /* MODIFY_ATTRIBUTES: breakpoints only */
    uint32_t type;
    if (mm_read(t->mm, arg, &type, 4, true)) return -EFAULT;
    return type != e->attr.type ? -EINVAL : -EOPNOTSUPP;
  }
  default: return -ENOTTY;
  }
}

/* ---- mmap ---- */

static void map_release(struct guest_ext *ext)
{
  struct gmap *mp = ext->priv;
  phys_unmap(ext->base, mp->nframes);
  if (mp->g) {
    for (struct gmap **pp = &mp->g->maps; *pp; pp = &(*pp)->next)
      if (*pp == mp) { *pp = mp->next; break; }
    if (mp->f) mp->f->mmap_count--;
    perf_rb_put(mp->g->perf, mp->rb);
  }
  free(mp);
}

static int64_t k_mmap(void *ctx, struct task *t, int h, uint64_t addr, uint64_t len, int prot, int flags,
                      uint64_t off)
{
  struct guest_perf *g = ctx;
  struct gfile *f = file_of(g, h);
  if (!f) return -EBADF;
  if (!(flags & A_MAP_SHARED)) return -EINVAL;
  if (off) return -EINVAL;   /* the AUX area: none here */
  if (f->cpu == -1 && f->e->attr.inherit) return -EINVAL;
  /* perf_mmap: the user page and 2^n data pages, n >= 0, or none (the user
   * page alone, as libpfm4's self_count maps it) */
  if (len % PHYS_PAGE || len < PHYS_PAGE) return -EINVAL;
  uint64_t nr_pages = len / PHYS_PAGE - 1;
  if (nr_pages & (nr_pages - 1)) return -EINVAL;
  struct perf_event *e = f->e;
  if (e->rb) {
    if (e->rb->size != nr_pages * PHYS_PAGE) return -EINVAL;
  } else {
    /* the mlock budget (perf_event_mlock_kb per CPU, plus RLIMIT_MEMLOCK) */
    uint64_t limit = MLOCK_PAGES * (uint64_t)g->os->ncpus + t->proc->rlim[8][0] / PHYS_PAGE;
    if (!g->privileged && nr_pages + 1 > limit) return -EPERM;
    int err = perf_event_mmap(e, nr_pages, PHYS_PAGE);
    if (err) return err;
    e->rb->overwrite = !(prot & A_PROT_WRITE);
  }
  struct gmap *mp = calloc(1, sizeof *mp);
  if (!mp) return -ENOMEM;
  mp->nframes = e->rb->nframes;
  void *view = phys_map(os_phys(g->os), mp->nframes, e->rb->pfns);
  if (!view) { free(mp); return -ENOMEM; }
  mp->ext = (struct guest_ext){ .base = view, .len = mp->nframes * PHYS_PAGE, .readonly = !(prot & A_PROT_WRITE),
                                .dontcopy = true, .nosplit = true, .release = map_release, .priv = mp };
  mp->g = g;
  mp->f = f;
  mp->rb = e->rb;
  int gprot = prot & (GUEST_PROT_READ | GUEST_PROT_WRITE | GUEST_PROT_EXEC);
  if (mm_map(t->mm, addr, len, gprot)) { phys_unmap(view, mp->nframes); free(mp); return -ENOMEM; }
  perf_rb_get(mp->rb);
  f->mmap_count++;
  mp->next = g->maps;
  g->maps = mp;
  if (mm_back_ext(t->mm, addr, len, view, &mp->ext)) {
    mm_unmap(t->mm, addr, len);
    return -ENOMEM;
  }
  update_userpage(f);
  return (int64_t)addr;
}

/* ---- fcntl ---- */

static int64_t k_fcntl(void *ctx, struct task *t, int gfd, int h, int cmd, uint64_t arg, bool *handled)
{
  struct guest_perf *g = ctx;
  struct gfile *f = file_of(g, h);
  *handled = true;
  if (!f) return -EBADF;
  switch (cmd) {
  case A_F_SETFL:   /* the host's flags too (F_GETFL reports them); O_ASYNC is ours */
    f->async = (arg & A_O_ASYNC) != 0;
    if (f->async) f->fasync_fd = gfd;
    *handled = false;
    return 0;
  case A_F_SETOWN:
    f->own_type = (int)arg < 0 ? F_OWNER_PGRP_ : F_OWNER_PID_;
    f->own_pid = (int)arg < 0 ? -(int)arg : (int)arg;
    return 0;
  case A_F_GETOWN: return f->own_type == F_OWNER_PGRP_ ? -f->own_pid : f->own_pid;
  case A_F_SETSIG:
    if (arg > GSIG_MAX) return -EINVAL;   /* valid_signal */
    f->sig = (int)arg;
    return 0;
  case A_F_GETSIG: return f->sig;
  case A_F_SETOWN_EX: {
    int32_t o[2];
    if (mm_read(t->mm, arg, o, 8, true)) return -EFAULT;
    if (o[0] != F_OWNER_TID_ && o[0] != F_OWNER_PID_ && o[0] != F_OWNER_PGRP_) return -EINVAL;
    if (o[1] && !task_find(g->os, o[1]) && !proc_find(g->os, o[1])) return -ESRCH;
    f->own_type = o[0];
    f->own_pid = o[1];
    return 0;
  }
  case A_F_GETOWN_EX: {
    int32_t o[2] = { f->own_type, f->own_pid };
    return mm_write(t->mm, arg, o, 8, true) ? -EFAULT : 0;
  }
  default:
    *handled = false;
    return 0;
  }
}

/* ---- prctl ---- */

static int64_t k_prctl(void *ctx, struct task *t, int option)
{
  struct guest_perf *g = ctx;
  for (struct gfile *f = g->files; f; f = f->next) {
    if (f->owner_tid != t->tid) continue;
    if (option == 31) perf_event_disable(f->e);
    else if (!f->exited) perf_event_enable(f->e);
  }
  return 0;
}

/* ---- overflow: wakeups, fasync signals, sigtrap ---- */

/* fs/fcntl.c send_sigio_to_task for one overflow (reason POLL_IN/POLL_HUP). */
static void send_sigio(struct guest_perf *g, struct gfile *f, int reason)
{
  if (!f->async || !f->own_pid) return;
  struct gsiginfo si = { .sig = GSIG_IO, .code = A_SI_KERNEL };
  if (f->sig) {
    si.sig = f->sig;
    si.code = reason;
    switch (f->sig) {   /* sig_specific_sicodes other than SIGPOLL's */
    case GSIG_ILL: case GSIG_FPE: case GSIG_SEGV: case GSIG_BUS: case GSIG_TRAP: case GSIG_CHLD: case GSIG_SYS:
      si.code = A_SI_SIGIO;
      break;
    default: break;
    }
    si.band = reason == A_POLL_IN ? A_POLLIN | A_POLLRDNORM : A_POLLHUP | A_POLLERR;
    si.poll_fd = f->fasync_fd;
  }
  struct task *to = f->own_type == F_OWNER_TID_ ? task_find(g->os, f->own_pid) : NULL;
  struct process *p = to ? NULL : proc_find(g->os, f->own_pid);
  if (to && to->state < TASK_ZOMBIE) signal_queue(g->os, to, NULL, &si);
  else if (p) signal_queue(g->os, NULL, p, &si);
}

/* perf_output_sample's wakeup_events and the ring's watermark (half the
 * buffer unless attr.watermark sets it): a wakeup makes the fd readable. */
static void wakeup(struct gfile *f)
{
  struct perf_event *e = f->e;
  if (!e->rb || !e->rb->size) return;
  uint64_t head = e->rb->user->data_head;
  bool wake = false;
  if (!e->attr.watermark && e->attr.wakeup_events && ++f->events >= e->attr.wakeup_events) {
    f->events -= e->attr.wakeup_events;
    wake = true;
  }
  uint64_t wm = e->attr.watermark && e->attr.wakeup_watermark ? e->attr.wakeup_watermark : e->rb->size / 2;
  if (wm > e->rb->size) wm = e->rb->size;
  if (head - f->wakeup_head > wm) {
    f->wakeup_head += (head - f->wakeup_head) / wm * wm;
    wake = true;
  }
  if (wake) set_ready(f, true);
}

void guest_perf_overflow(struct guest_perf *g, int cpu, struct perf_event *e, const struct perf_sample *s, bool hup)
{
  (void)cpu;
  struct gfile *f = file_of_event(g, e);
  if (!f) return;
  wakeup(f);
  update_userpage(f);
  send_sigio(g, f, hup ? A_POLL_HUP : A_POLL_IN);
  if (e->attr.sigtrap) {
    struct task *t = task_find(g->os, (int)s->tid);
    if (!t || t->state >= TASK_ZOMBIE) return;
    struct gsiginfo si = { .sig = GSIG_TRAP, .code = A_TRAP_PERF, .perf = true, .perf_data = e->attr.sig_data,
                           .perf_type = e->attr.type,
                           .addr = (e->attr.sample_type & PERF_SAMPLE_ADDR) ? s->addr : 0 };
    if (t->blocked & (1ull << (GSIG_TRAP - 1))) si.perf_flags = TRAP_PERF_FLAG_ASYNC_;
    signal_queue(g->os, t, NULL, &si);
  }
}

void guest_perf_poll(struct guest_perf *g)
{
  if (!g->files) return;
  k_closed(g);
  for (struct gfile *f = g->files; f; f = f->next) {
    if (!f->e->rb) continue;
    update_userpage(f);
    /* perf_poll clears the wakeup when polled; here once the consumer has
     * caught up with the head */
    struct perf_event_mmap_page *u = f->e->rb->user;
    if (f->ready && u->data_tail == u->data_head) set_ready(f, false);
  }
}

/* ---- exec ---- */

/* Whether e's task context is t's (the event follows t). */
static bool follows_task(const struct gfile *f, const struct task *t)
{
  if (f->pid < 0) return false;
  if (f->pid == t->tid) return true;
  if (!f->e->attr.inherit) return false;
  for (const struct process *p = t->proc; p; p = p->parent) if (p->pid == f->pid) return true;
  return false;
}

void guest_perf_exec(struct guest_perf *g, struct task *t)
{
  for (struct gfile *f = g->files; f; f = f->next) {
    if (!follows_task(f, t)) continue;
    struct perf_event *e = f->e;
    if (e->attr.enable_on_exec) {   /* event_enable_on_exec: once */
      e->attr.enable_on_exec = 0;
      if (!e->enabled) perf_event_enable(e);
    }
    if (e->attr.remove_on_exec && f->pid == t->tid) {   /* perf_event_exit_event: STATE_EXIT */
      perf_event_disable(e);
      f->exited = true;
    }
  }
}

/* ---- fork and exit ---- */

void guest_perf_fork(struct guest_perf *g, const struct task *parent, const struct task *child)
{
  for (struct gfile *f = g->files; f; f = f->next)
    if (f->e->attr.inherit && !f->hup && followed(f, parent->tid) >= 0)
      (void)follow(f, child->tid);   /* (out of memory: it hangs up early) */
}

void guest_perf_exit(struct guest_perf *g, const struct task *t)
{
  for (struct gfile *f = g->files; f; f = f->next) {
    int i = followed(f, t->tid);
    if (i < 0) continue;
    f->tids[i] = f->tids[--f->ntids];
    if (f->ntids) continue;
    /* perf_event_exit_event: STATE_EXIT, and a wakeup for the pollers */
    f->hup = true;
    f->exited = true;
    set_ready(f, true);
  }
}

/* ---- setup ---- */

struct guest_perf *guest_perf_create(struct os *os, struct perf_ctx *perf, bool privileged)
{
  struct guest_perf *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->os = os;
  g->perf = perf;
  g->privileged = privileged;
  os->kfile = (struct os_kfile_ops){ .perf_open = k_perf_open, .is_kfile = k_is_kfile, .read = k_read,
                                     .ioctl = k_ioctl, .mmap = k_mmap, .fcntl = k_fcntl, .closed = k_closed, .hup = k_hup,
                                     .prctl = k_prctl, .ctx = g };
  return g;
}

void guest_perf_destroy(struct guest_perf *g)
{
  if (!g) return;
  memset(&g->os->kfile, 0, sizeof g->os->kfile);
  /* Mappings outlive the machine's perf context (the address spaces go
   * later): they keep only their host view. */
  for (struct gmap *mp = g->maps; mp; mp = mp->next) {
    perf_rb_put(g->perf, mp->rb);
    mp->g = NULL;
    mp->f = NULL;
  }
  while (g->files) file_free(g, g->files);
  free(g);
}
