/* libFuzzer harness for the guest's perf system calls (docs/guest-perf.md):
 * a guest task calls perf_event_open with attr bytes, sizes, pids,
 * CPUs, group fds and flags from the input, then read, ioctl, mmap,
 * munmap, fcntl, dup, close and prctl on what it got, with pointers that
 * are good, unmapped or past the end of a mapping; software events are
 * driven meanwhile (page faults and the tick) so rings fill, wrap and
 * signal. Every call must answer a value or an errno Linux uses there
 * (kernel/events/core.c, fs/fcntl.c); a crash, an abort or a sanitizer
 * report is a bug. The machine's guest layer, perf core and guest_perf run
 * as in the emulator; only the CPU is absent. */
#include "guest/os.h"
#include "guest/syscall.h"
#include "kernel/perf.h"
#include "machine/guest_perf.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0x10000ull          /* the guest's buffers: 8 pages, the last one unmapped */
#define SPAN (8 * 8192ull)

struct input { const uint8_t *p; size_t n; };
static uint64_t take(struct input *in, unsigned bytes)
{
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes && in->n; i++, in->n--) v |= (uint64_t)*in->p++ << (8 * i);
  return v;
}

struct env { struct os *os; uint64_t ns; struct guest_perf *g; };
static uint64_t clock_fn(void *ctx) { return ((struct env *)ctx)->ns; }
static void overflow_fn(void *ctx, int cpu, struct perf_event *e, const struct perf_sample *s, bool hup)
{
  guest_perf_overflow(((struct env *)ctx)->g, cpu, e, s, hup);
}

/* Alpha errnos a perf call may answer (arch/alpha/include/uapi/asm/errno.h). */
static bool allowed(uint64_t e)
{
  switch (e) {
  case 1: case 2: case 3: case 7: case 9: case 12: case 13: case 14: case 16: case 17: case 22: case 23:
  case 24: case 25: case 28: case 29: case 45: case 78: case 112:
    return true;
  default:
    return false;
  }
}

/* Runs system call nr for t with args a; aborts on an errno Linux would not give. */
static int64_t call(struct os *m, struct task *t, uint64_t nr, const uint64_t *a)
{
  t->ctx.r[0] = nr;
  for (int i = 0; i < 6; i++) t->ctx.r[16 + i] = a[i];
  t->ctx.pc = 0x120000000ull;
  sys_dispatch(m, t);
  if (t->ctx.r[19]) {
    if (!allowed(t->ctx.r[0])) abort();
    return -(int64_t)t->ctx.r[0];
  }
  return (int64_t)t->ctx.r[0];
}

/* A pointer: into the buffers, at the edge of the unmapped page, or wild. */
static uint64_t pointer(struct input *in)
{
  uint64_t k = take(in, 1);
  switch (k % 4) {
  case 0: return BASE + (take(in, 2) % (SPAN - 8192));
  case 1: return BASE + SPAN - 8192 - (take(in, 1) % 200);
  case 2: return take(in, 8);
  default: return BASE;
  }
}

static struct task *make_task(struct os *m)
{
  struct process *p = calloc(1, sizeof *p);
  struct task *t = calloc(1, sizeof *t);
  if (!p || !t) abort();
  p->sighand = calloc(1, sizeof *p->sighand);
  p->files = fdt_create();
  t->mm = mm_create(os_phys(m));
  if (!p->sighand || !p->files || !t->mm) abort();
  p->sighand->refs = 1;
  p->files->nofile = 256;
  p->pid = t->tid = 1000;
  p->refs = 1;
  p->cwd_fd = -1;
  for (int r = 0; r < 16; r++) p->rlim[r][0] = p->rlim[r][1] = 1u << 20;
  t->proc = p;
  t->cpu = 0;
  m->procs = p;
  m->tasks = t;
  if (mm_map(t->mm, BASE, SPAN - 8192, GUEST_PROT_READ | GUEST_PROT_WRITE)) abort();
  return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct input in = { data, size };
  struct os_opts oo = { .ncpus = 2 };
  struct os *m = os_create(&oo);
  if (!m) abort();
  m->log = fopen("/dev/null", "w");
  uint64_t mode = take(&in, 1);
  struct perf_sysctl sys = { .paranoid = (int)(mode % 5) - 1, .privileged = mode & 8, .ncpus = 2 };
  struct env v = { m, 1000, NULL };
  struct perf_ctx *c = perf_ctx_create(&sys, os_phys(m), clock_fn, &v);
  if (!c) abort();
  perf_pmu_register(c, perf_sw_pmu());
  const struct perf_arch arch = { .overflow = overflow_fn, .ctx = &v };
  perf_ctx_set_arch(c, &arch);
  v.g = guest_perf_create(m, c, sys.privileged);
  if (!v.g) abort();
  struct task *t = make_task(m);
  const struct perf_task pt = { .pid = 1000, .tid = 1000 };
  perf_sched_in(c, 0, &pt);
  static const uint64_t ioctls[] = { 0x20002400, 0x20002401, 0x20002402, 0x20002403, 0x80082404, 0x20002405,
                                     0x80082406, 0x40082407, 0x80042408, 0x80042409, 0xc008240a, 0x8008240b,
                                     0x8004667d, 0x2000240c };
  int fds[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
  for (int step = 0; step < 64 && in.n; step++) {
    uint64_t op = take(&in, 1), a[6] = { 0 };
    int fd = fds[take(&in, 1) % 8];
    if (take(&in, 1) % 8 == 0) fd = (int)take(&in, 1) - 2;   /* any number */
    switch (op % 12) {
    case 0: case 1: {   /* perf_event_open */
      uint8_t attr[256];
      memset(attr, 0, sizeof attr);
      for (size_t i = 0; i < sizeof attr && in.n; i++) attr[i] = (uint8_t)take(&in, 1);
      if (op & 0x10) {   /* a software event Linux would take: VER0, no reserved flag bits */
        memset(attr, 0, 8);
        attr[0] = 1;
        attr[8] = (uint8_t)(attr[8] % 5);
        attr[40] |= 0x20;           /* exclude_kernel */
        attr[44] &= 0x30;           /* remove_on_exec, sigtrap */
        memset(attr + 45, 0, 3);
        attr[23] &= 0x7f;
      }
      uint64_t at = op & 0x20 ? pointer(&in) : BASE;
      mm_write(t->mm, at, attr, sizeof attr, false);
      int pids[4] = { 0, -1, 1000, (int)take(&in, 2) };
      int cpus[4] = { -1, 0, 1, (int)(int8_t)take(&in, 1) };
      uint64_t args[6] = { at, (uint64_t)(int64_t)pids[take(&in, 1) % 4], (uint64_t)(int64_t)cpus[take(&in, 1) % 4],
                           (uint64_t)(int64_t)fd, take(&in, 1) % 32, 0 };
      int64_t r = call(m, t, NR_perf_event_open, args);
      if (r >= 0) fds[take(&in, 1) % 8] = (int)r;
      break;
    }
    case 2: a[0] = (uint64_t)fd; a[1] = pointer(&in); a[2] = take(&in, 2); call(m, t, NR_read, a); break;
    case 3: {   /* ioctl */
      uint64_t k = take(&in, 1);
      a[0] = (uint64_t)fd;
      a[1] = k < 200 ? ioctls[k % 14] : take(&in, 4);
      a[2] = take(&in, 1) & 1 ? pointer(&in) : (uint64_t)(int64_t)(int8_t)take(&in, 1);
      call(m, t, NR_ioctl, a);
      break;
    }
    case 4: {   /* mmap */
      a[0] = 0; a[1] = (take(&in, 1) % 20) * 8192; a[2] = take(&in, 1) % 8; a[3] = take(&in, 1) & 0x101;
      a[4] = (uint64_t)fd; a[5] = (take(&in, 1) % 3) * 8192;
      int64_t r = call(m, t, NR_mmap, a);
      if (r > 0 && take(&in, 1) & 1) {
        uint64_t tail = take(&in, 8);   /* a hostile consumer's data_tail */
        mm_write(t->mm, (uint64_t)r + 1024, &tail, 8, true);
      }
      if (r > 0 && take(&in, 1) & 1) { uint64_t u[6] = { (uint64_t)r, a[1] }; call(m, t, NR_munmap, u); }
      break;
    }
    case 5: {   /* fcntl */
      static const uint64_t cmds[] = { 1, 2, 3, 4, 5, 6, 10, 11, 15, 16, 0, 1030 };
      a[0] = (uint64_t)fd; a[1] = cmds[take(&in, 1) % 12];
      a[2] = take(&in, 1) & 1 ? pointer(&in) : take(&in, 2);
      if (a[1] == 0 || a[1] == 1030) a[2] %= 64;
      int64_t r = call(m, t, NR_fcntl, a);
      if ((a[1] == 0 || a[1] == 1030) && r >= 0) fds[take(&in, 1) % 8] = (int)r;
      break;
    }
    case 6: a[0] = (uint64_t)fd; call(m, t, NR_close, a); break;
    case 7: { a[0] = (uint64_t)fd; int64_t r = call(m, t, NR_dup, a); if (r >= 0) fds[take(&in, 1) % 8] = (int)r; break; }
    case 8: a[0] = 31 + take(&in, 1) % 2; call(m, t, NR_prctl, a); break;
    case 9: {   /* page faults and ticks: software events fire */
      unsigned n = (unsigned)take(&in, 1);
      for (unsigned i = 0; i < n; i++) perf_sw_event(c, 0, PERF_COUNT_SW_PAGE_FAULTS, 1000, 1000, 0x120000000ull, false);
      v.ns += take(&in, 3);
      perf_ctx_tick(c, 0, 1000, 1000, 0x120000000ull, false);
      guest_perf_poll(v.g);
      break;
    }
    case 10: a[0] = (uint64_t)fd; a[1] = pointer(&in); a[2] = take(&in, 1); call(m, t, NR_write, a); break;
    default: { a[0] = (uint64_t)fd; a[1] = take(&in, 2); a[2] = take(&in, 1) % 4; call(m, t, NR_lseek, a); break; }
    }
  }
  guest_perf_destroy(v.g);
  perf_ctx_destroy(c);
  fclose(m->log);
  os_destroy(m);
  return 0;
}
