/* libFuzzer harness for what users and programs hand the perf layer: event
 * names as -e takes them (tools/events.c) and raw perf_event_attr bytes
 * (perf_event_open's copy and checks, the Alpha driver's event_init). The
 * first byte picks which and the paranoid level. An accepted event is then
 * mapped, enabled, driven through PMU interrupts by synthetic fates, read,
 * ticked and closed, its ring consumed as a tool does (so it wraps). perf_event_open
 * must answer 0 or an errno Linux uses there, and every record in the ring
 * must be whole; a crash, an abort or a sanitizer report is a bug. */
#include "guest/phys.h"
#include "kernel/alpha_pmu.h"
#include "kernel/perf.h"
#include "tools/events.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct env { uint64_t cycle, rng; };

static uint64_t now_fn(void *ctx, int cpu) { return ((struct env *)ctx)->cycle; }
static uint64_t clock_fn(void *ctx) { return ((struct env *)ctx)->cycle * 3 / 2; }
static bool insn_fn(void *ctx, uint64_t pc, uint32_t *word)
{
  (void)ctx;
  *word = pc & 4 ? 0xa4300008u /* ldq t0,8(a0) */ : 0x40203401u /* addq t0,1,t0 */;
  return true;
}
static uint64_t rnd_fn(void *ctx)
{
  struct env *v = ctx;
  v->rng ^= v->rng << 13;
  v->rng ^= v->rng >> 7;
  v->rng ^= v->rng << 17;
  return v->rng;
}

/* A machine for register and stack sampling: a user frame whose SP comes
 * from the generator (anywhere, above TASK_SIZE too), a stack readable for
 * a random length, a kernel chain of random depth. */
static void regs_fn(void *ctx, int cpu, const struct perf_sample *s, struct perf_regs *intr, struct perf_regs *user)
{
  (void)cpu;
  uint64_t r = rnd_fn(ctx);
  if (r & 1) return;   /* no frames at all */
  user->abi = PERF_SAMPLE_REGS_ABI_64;
  user->user = true;
  for (int i = 0; i < PERF_REG_ALPHA_MAX; i++) user->r[i] = r * (uint64_t)(i + 1);
  user->r[PERF_REG_ALPHA_SP] = r & 2 ? 0x120000000ull - (r >> 40) : r;
  user->r[PERF_REG_ALPHA_PC] = s->ip;
  *intr = *user;
  intr->user = !s->kernel;
}
static size_t copy_fn(void *ctx, int cpu, const struct perf_sample *s, uint64_t addr, void *buf, size_t len)
{
  (void)cpu; (void)s;
  size_t n = rnd_fn(ctx) % (len + 1);
  memset(buf, (int)(addr & 0xff), n);
  return n;
}
static size_t kchain_fn(void *ctx, int cpu, const struct perf_regs *intr, uint64_t *ips, size_t max)
{
  (void)cpu;
  size_t n = rnd_fn(ctx) % 200;
  if (n > max) n = max;
  for (size_t i = 0; i < n; i++) ips[i] = intr->r[PERF_REG_ALPHA_PC] + 4 * i;
  return n;
}

static bool linux_errno(int e)
{
  switch (-e) {
  case EINVAL: case E2BIG: case EACCES: case EOPNOTSUPP: case ENOENT: case EPERM: case ENOMEM:
  case EBUSY: case ENOSPC: case EFAULT: case EOVERFLOW:
    return true;
  default:
    return false;
  }
}

/* Consumes the ring as a tool does: each record between tail and head must
 * have a size that is a non-zero multiple of 8 and end at or before head. */
static void drain(struct perf_event *e)
{
  struct perf_event_mmap_page *up = perf_event_user_page(e);
  uint64_t size;
  const uint8_t *d = perf_event_data(e, &size);
  if (!up || !d) return;
  uint64_t head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE), tail = up->data_tail;
  while (tail < head) {
    struct perf_event_header h;
    for (unsigned k = 0; k < sizeof h; k++) ((uint8_t *)&h)[k] = d[(tail + k) & (size - 1)];
    if (h.size < sizeof h || h.size % 8 || h.size > head - tail) abort();
    tail += h.size;
  }
  __atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static struct physmem *ram;
  if (!ram && !(ram = phys_create(16ull << 20))) abort();
  if (size < 1) return 0;
  static _Alignas(8) uint8_t attr_buf[8192 + 64];   /* up to perf_copy_attr's page */
  memset(attr_buf, 0, sizeof attr_buf);
  struct perf_event_attr *attr = (struct perf_event_attr *)attr_buf;
  if (data[0] & 1) {
    /* An event name, as on the command line. */
    char spec[256];
    size_t n = size - 1 < sizeof spec - 1 ? size - 1 : sizeof spec - 1;
    memcpy(spec, data + 1, n);
    spec[n] = '\0';
    char msg[1024];   /* the error text too: perf's pointer and cut arithmetic */
    if (event_parse_msg(spec, attr, msg, sizeof msg) != 0) return 0;
    attr->sample_period = 1000;
    attr->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
  } else {
    /* Raw attribute bytes, as a program passes them to the syscall. */
    memcpy(attr_buf, data + 1, size - 1 < 8192 ? size - 1 : 8192);
  }
  struct perf_sysctl sys = { .paranoid = (data[0] >> 1) % 4 - 1, .privileged = data[0] & 8 };
  struct env v = { 100, 0x9E3779B97F4A7C15ull };
  struct ev67_pmu hw;
  ev67_pmu_init(&hw, 0x20000);
  struct perf_ctx *c = perf_ctx_create(&sys, ram, clock_fn, &v);
  if (!c) abort();
  perf_pmu_register(c, perf_sw_pmu());
  const struct perf_arch arch = { .regs = regs_fn, .copy_user = copy_fn, .kernel_chain = kchain_fn, .ctx = &v };
  perf_ctx_set_arch(c, &arch);
  const struct alpha_pmu_env penv = { { &hw }, now_fn, insn_fn, rnd_fn, &v };
  struct alpha_pmu *drv = alpha_pmu_create(c, &penv);
  if (!drv) abort();
  struct perf_event *e = NULL;
  const struct perf_task task = { .pid = 1000, .tid = 1000 };
  perf_sched_in(c, 0, &task);   /* the task the event follows runs on CPU 0 */
  int err = perf_event_open(c, attr, 1000, -1, NULL, &e);
  if (err && !linux_errno(err)) abort();
  if (!err) {
    perf_event_mmap(e, 2, PHYS_PAGE);
    perf_event_enable(e);
    for (int i = 0; i < 3000; i++) {
      struct uop_fate f;
      memset(&f, 0, sizeof f);
      f.pc = 0x120000000ull + 4 * (uint64_t)(i % 16);
      f.seq = (uint64_t)i;
      f.fetch = v.cycle;
      f.issue = v.cycle + 3;
      f.end = v.cycle + 8 + (uint64_t)(i % 5);
      f.flags = i % 7 ? FATE_RETIRED : FATE_TRAP | FATE_MISPREDICT | FATE_RETIRED;
      f.trap = EV67_TRAP_NONE;
      f.level = i % 11 ? LVL_L1 : LVL_MEM;
      ev67_pmu_observe(&hw, &f);
      if (i % 4 == 3) v.cycle++;
      if (ev67_pmu_irq_cycle(&hw) <= v.cycle) alpha_pmu_irq(drv, 0, 1000, 1000, f.pc, i % 13 == 0);
      if (i % 1000 == 999) perf_ctx_tick(c, 0, 1000, 1000, f.pc, false);
      if (i % 100 == 99) drain(e);
    }
    uint64_t buf[8];
    perf_event_read(e, buf, sizeof buf);
    perf_event_disable(e);
    perf_event_close(e);
  }
  alpha_pmu_destroy(drv);
  perf_ctx_destroy(c);
  return 0;
}
