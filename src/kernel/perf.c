/* The perf_events core; see perf.h. Follows kernel/events/core.c and
 * ring_buffer.c: attribute checks in perf_copy_attr/perf_event_open order,
 * output through a begin/copy/end on a power-of-two data area with free-running
 * head and tail, a LOST record written before the next record that fits. */
#include "kernel/perf.h"
#include "kernel/perf_aux.h"
#include "guest/perf_attr.h"
#include "util/assert.h"
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_MAX 65528   /* header.size is a u16 and a multiple of 8 */

#define MAX_PMUS 8

struct perf_ctx {
  struct perf_sysctl sys;
  struct physmem *phys;
  perf_clock_fn clock;
  void *clock_ctx;
  const struct pmu *pmus[MAX_PMUS];
  int npmus;
  struct perf_event *events;     /* the parents, in the order they were opened */
  uint64_t next_id;
  uint64_t next_tick[PERF_MAX_CPUS], next_rotate[PERF_MAX_CPUS];
  unsigned rot[PERF_MAX_CPUS][MAX_PMUS];   /* multiplexing: where scheduling starts */
  struct perf_task run[PERF_MAX_CPUS];     /* the task on each CPU */
  uint64_t out_bytes;                      /* bytes written into rings so far */
  bool running[PERF_MAX_CPUS];
  struct perf_arch arch;                   /* frames, user memory, kernel chains */
};

/* The event the tool opened (an instance's parent, or e itself). */
static struct perf_event *top(struct perf_event *e) { return e->parent ? e->parent : e; }

struct perf_ctx *perf_ctx_create(const struct perf_sysctl *sys, struct physmem *phys,
                                 perf_clock_fn clock, void *clock_ctx)
{
  if (!phys) return NULL;
  struct perf_ctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->sys = *sys;
  c->phys = phys;
  if (!c->sys.max_sample_rate) c->sys.max_sample_rate = 100000;
  if (!c->sys.mux_interval_ms) c->sys.mux_interval_ms = 4;
  if (!c->sys.hz) c->sys.hz = 1024;   /* Alpha's HZ */
  if (c->sys.ncpus < 1 || c->sys.ncpus > PERF_MAX_CPUS) c->sys.ncpus = 1;
  c->clock = clock;
  c->clock_ctx = clock_ctx;
  c->next_id = 1;
  return c;
}

void perf_ctx_destroy(struct perf_ctx *c)
{
  if (!c) return;
  while (c->events) perf_event_close(c->events);
  free(c);
}

void perf_ctx_set_arch(struct perf_ctx *c, const struct perf_arch *arch) { c->arch = *arch; }
const struct perf_sysctl *perf_ctx_sysctl(const struct perf_ctx *c) { return &c->sys; }

void perf_pmu_register(struct perf_ctx *c, const struct pmu *pmu)
{
  if (c->npmus < MAX_PMUS) c->pmus[c->npmus++] = pmu;
}

static int pmu_index(const struct perf_ctx *c, const struct pmu *pmu)
{
  for (int i = 0; i < c->npmus; i++) if (c->pmus[i] == pmu) return i;
  return 0;
}

uint64_t perf_ctx_time(struct perf_ctx *c) { return c->clock(c->clock_ctx); }
uint64_t perf_ctx_output_bytes(const struct perf_ctx *c) { return c->out_bytes; }

/* Brings an instance's time_enabled (enabled while its task runs) and
 * time_running (on the PMU) up to now (perf's update_event_times); call
 * before it changes between enabled, scheduled, active and off. */
static void update_times(struct perf_event *e)
{
  uint64_t now = perf_ctx_time(e->ctx), dt = now - e->tstamp;
  if (e->enabled && e->sched) e->time_enabled += dt;
  if (e->active) e->time_running += dt;
  e->tstamp = now;
}

/* Whether a parent event follows task t. */
static bool follows(const struct perf_event *e, const struct perf_task *t)
{
  if (e->target < 0) return true;
  if (t->tid == (uint32_t)e->target) return true;
  if (!e->attr.inherit) return false;
  if (t->pid == (uint32_t)e->target) return true;
  for (int i = 0; i < t->nancestors; i++) if (t->ancestors[i] == (uint32_t)e->target) return true;
  return false;
}

/* A parent's group leader (a parent is its own until it joins one). */
static struct perf_event *leader_of(struct perf_event *p) { return p->group_leader ? p->group_leader : p; }
/* The members of leader l's group in order: l, then its siblings. */
static struct perf_event *member_next(struct perf_event *l, struct perf_event *m)
{
  return m == l ? l->sibling_next : m->sibling_next;
}

/* The PMU a group goes on: its first hardware member's (software events
 * may join any group; perf_event_open moves a software group to the
 * hardware context a hardware event joins). */
static const struct pmu *group_pmu(struct perf_event *l)
{
  for (struct perf_event *m = l; m; m = member_next(l, m))
    if (m->pmu != perf_sw_pmu()) return m->pmu;
  return l->pmu;
}

/* Takes an instance off its PMU (event_sched_out). */
static void inst_out(struct perf_event *e)
{
  update_times(e);
  if (e->active) e->pmu->del(e, PERF_EF_UPDATE);
  e->active = false;
}

/* Takes the active members of leader l's group off cpu (group_sched_out). */
static void group_out(struct perf_event *l, int cpu)
{
  for (struct perf_event *m = l; m; m = member_next(l, m))
    if (m->child[cpu] && m->child[cpu]->active) inst_out(m->child[cpu]);
}

/* An instance went on its PMU (event_sched_in); an ITRACE PMU's first time
 * writes PERF_RECORD_ITRACE_START naming the task the trace starts in
 * (perf_log_itrace_start). */
static void inst_started(struct perf_event *e, int cpu)
{
  update_times(e);
  e->active = true;
  if ((e->pmu->capabilities & PERF_PMU_CAP_ITRACE) && !e->itrace_started) {
    struct perf_ctx *c = e->ctx;
    e->itrace_started = true;
    uint32_t ids[2] = { c->run[cpu].pid, c->run[cpu].tid };
    if (!c->running[cpu]) ids[0] = ids[1] = (uint32_t)-1;
    perf_output_side_record(e, PERF_RECORD_ITRACE_START, ids, sizeof ids);
  }
}

/* Puts leader l's group on cpu (group_sched_in): the leader, then its
 * enabled siblings; when one does not fit, none stays. A group already on
 * takes the siblings enabled since. */
static void group_in(struct perf_event *l, int cpu)
{
  struct perf_event *li = l->child[cpu];
  if (!li->active) {
    if (li->pmu->add(li, PERF_EF_START)) return;
    inst_started(li, cpu);
  }
  for (struct perf_event *m = l->sibling_next; m; m = m->sibling_next) {
    struct perf_event *e = m->child[cpu];
    if (!e || !e->enabled || !e->sched || e->active) continue;
    if (e->pmu->add(e, PERF_EF_START)) { group_out(l, cpu); return; }
    inst_started(e, cpu);
  }
}

/* Puts the waiting groups of one PMU on cpu on the hardware, in list
 * order from where the last rotation left off (ctx_sched_in). */
static void sched_pmu_in(struct perf_ctx *c, int cpu, int pi)
{
  struct perf_event *list[64];
  int n = 0;
  for (struct perf_event *p = c->events; p && n < 64; p = p->next) {
    struct perf_event *e = p->child[cpu];
    if (e && leader_of(p) == p && group_pmu(p) == c->pmus[pi] && e->enabled && e->sched) list[n++] = p;
  }
  for (int k = 0; k < n; k++) group_in(list[(k + c->rot[cpu][pi]) % n], cpu);
}

/* ---- attribute checks (perf_copy_attr, perf_event_open) ---- */

/* The direct callers' attr (tools, tests) is in host memory. */
static int host_get(void *ctx, uint64_t off, void *buf, size_t n)
{
  memcpy(buf, (const uint8_t *)ctx + off, n);
  return 0;
}

/* perf_copy_attr's checks of the fields, after the copy (guest/perf_attr.c),
 * and the one default it sets. */
static int attr_check(struct perf_event_attr *a)
{
  if (a->__reserved_1 || a->__reserved_2 || a->__reserved_3) return -EINVAL;
  if (a->sample_type & ~(PERF_SAMPLE_MAX - 1)) return -EINVAL;
  if (a->read_format & ~(PERF_FORMAT_MAX - 1)) return -EINVAL;
  if (a->sample_type & PERF_SAMPLE_BRANCH_STACK) return -EOPNOTSUPP;
  /* Register and user-stack sampling (HAVE_PERF_REGS, HAVE_PERF_USER_STACK_DUMP). */
  if (a->sample_type & PERF_SAMPLE_REGS_USER) {
    int err = perf_reg_validate(a->sample_regs_user);
    if (err) return err;
  }
  if (a->sample_type & PERF_SAMPLE_STACK_USER) {
    /* a u32 field, but a record's size is a u16 */
    if (a->sample_stack_user >= 0xffff || (a->sample_stack_user & 7)) return -EINVAL;
  }
  if (!a->sample_max_stack) a->sample_max_stack = PERF_MAX_STACK_DEFAULT;
  if (a->sample_type & PERF_SAMPLE_REGS_INTR) {
    int err = perf_reg_validate(a->sample_regs_intr);
    if (err) return err;
  }
  if (a->sample_type & PERF_SAMPLE_AUX) return -EOPNOTSUPP;   /* no AUX area */
  if ((a->sample_type & PERF_SAMPLE_WEIGHT) && (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) return -EINVAL;
  if (a->inherit_thread && !a->inherit) return -EINVAL;
  if (a->remove_on_exec && a->enable_on_exec) return -EINVAL;
  if (a->sigtrap && !a->remove_on_exec) return -EINVAL;
  return 0;
}

static void free_instances(struct perf_event *e)
{
  for (int i = 0; i < PERF_MAX_CPUS; i++) {
    if (e->child[i] && e->pmu->destroy) e->pmu->destroy(e->child[i]);
    free(e->child[i]);
    e->child[i] = NULL;
  }
}

/* The parent's instances: one on cpu, or one on every CPU for cpu -1. Each
 * is claimed by the parent's PMU as the parent was. Returns 0 or -errno. */
static int make_instances(struct perf_ctx *c, struct perf_event *e, int cpu)
{
  for (int i = 0; i < c->sys.ncpus; i++) {
    if (cpu >= 0 && i != cpu) continue;
    struct perf_event *inst = malloc(sizeof *inst);
    if (!inst) return -ENOMEM;
    *inst = *e;
    memset(inst->child, 0, sizeof inst->child);
    inst->cpu = i;
    inst->parent = e;
    inst->next = NULL;
    e->child[i] = inst;
    int err = inst->pmu->event_init(inst);
    if (err) return err;
  }
  return 0;
}

/* The bytes read(2) gives for read_format rf in a group of nr (__perf_event_read_size). */
static size_t read_size(uint64_t rf, int nr)
{
  size_t entry = 8 + (rf & PERF_FORMAT_ID ? 8 : 0) + (rf & PERF_FORMAT_LOST ? 8 : 0), size = 0;
  if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) size += 8;
  if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) size += 8;
  if (rf & PERF_FORMAT_GROUP) return size + 8 + entry * (size_t)nr;
  return size + entry;
}

/* sys_perf_event_open's group checks for e joining leader l: a leader, on
 * the same CPU and task, no pinned or exclusive sibling, one hardware PMU,
 * and every member's read within 16 KB (perf_event_validate_size). */
static int group_check(struct perf_event *e, struct perf_event *l)
{
  if (leader_of(l) != l || l->open_cpu != e->open_cpu || l->target != e->target) return -EINVAL;
  if (e->attr.pinned || e->attr.exclusive) return -EINVAL;
  const struct pmu *gp = group_pmu(l), *sw = perf_sw_pmu();
  if (e->pmu != sw && gp != sw && gp != e->pmu) return -EINVAL;
  int nr = l->nr_siblings + 2;
  if (read_size(e->attr.read_format, nr) > 16 * 1024) return -E2BIG;
  for (struct perf_event *m = l; m; m = member_next(l, m))
    if (read_size(m->attr.read_format, nr) > 16 * 1024) return -E2BIG;
  return 0;
}

int perf_event_open(struct perf_ctx *c, const struct perf_event_attr *uattr, int pid, int cpu,
                    struct perf_event *group, struct perf_event **out)
{
  return perf_event_open_cred(c, uattr, pid, cpu, group, c->sys.privileged, out);
}

int perf_event_open_cred(struct perf_ctx *c, const struct perf_event_attr *uattr, int pid, int cpu,
                         struct perf_event *group, bool privileged, struct perf_event **out)
{
  struct perf_event_attr attr;
  int err = perf_copy_attr(&(struct perf_uattr){ host_get, NULL, (void *)uattr }, &attr);
  if (!err) err = attr_check(&attr);
  if (err) return err;
  (void)group;
  /* perf_event_open: frequency and period checks. */
  if (attr.freq) {
    if (attr.sample_freq > c->sys.max_sample_rate) return -EINVAL;
  } else if (attr.sample_period & (1ull << 63)) {
    return -EINVAL;
  }
  if (cpu < -1 || cpu >= c->sys.ncpus) return -EINVAL;
  if (pid == -1 && cpu == -1) return -EINVAL;
  /* perf_event_paranoid (kernel/events/core.c, perf_allow_*). */
  if (!privileged) {
    if (c->sys.paranoid > 2) return -EACCES;
    if (pid == -1 && c->sys.paranoid > 0) return -EACCES;
    if (!attr.exclude_kernel && c->sys.paranoid > 1) return -EACCES;
  }
  struct perf_event *e = calloc(1, sizeof *e);
  if (!e) return -ENOMEM;
  e->attr = attr;
  e->ctx = c;
  e->hw.idx = -1;
  e->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
  e->id = c->next_id++;
  e->enabled = !attr.disabled;
  if (attr.freq) {
    e->hw.sample_period = 1;   /* the tick adjusts it towards sample_freq */
  } else {
    e->hw.sample_period = attr.sample_period;
  }
  e->hw.last_period = e->hw.sample_period;
  e->hw.period_left = (int64_t)e->hw.sample_period;
  err = -ENOENT;
  for (int i = 0; i < c->npmus && err == -ENOENT; i++) {
    e->pmu = c->pmus[i];
    err = c->pmus[i]->event_init(e);
  }
  /* get_callchain_buffers: a deeper chain than the sysctl allows */
  if (!err && (attr.sample_type & PERF_SAMPLE_CALLCHAIN) && attr.sample_max_stack > PERF_MAX_STACK_DEFAULT)
    err = -EOVERFLOW;
  if (err) {
    free(e);
    return err;
  }
  e->cpu = -1;
  e->target = pid;
  e->open_cpu = cpu;
  e->group_leader = e;
  if (group && (err = group_check(e, top(group)))) {
    free(e);
    return err;
  }
  e->tstamp = perf_ctx_time(c);
  if ((err = make_instances(c, e, cpu))) {
    free_instances(e);
    if (e->pmu->destroy) e->pmu->destroy(e);
    free(e);
    return err;
  }
  /* Events are scheduled in the order they were opened. */
  struct perf_event **pp = &c->events;
  while (*pp) pp = &(*pp)->next;
  *pp = e;
  if (group) {   /* perf_group_attach: the last sibling */
    struct perf_event *l = top(group), **sp = &l->sibling_next;
    while (*sp) sp = &(*sp)->sibling_next;
    *sp = e;
    l->nr_siblings++;
    e->group_leader = l;
  }
  for (int i = 0; i < c->sys.ncpus; i++) {
    struct perf_event *inst = e->child[i];
    if (inst) inst->sched = pid < 0 || (c->running[i] && follows(e, &c->run[i]));
    if (inst && inst->sched && inst->enabled) sched_pmu_in(c, i, pmu_index(c, group_pmu(leader_of(e))));
  }
  *out = e;
  return 0;
}

/* ---- ring buffer ---- */

static void rb_free(struct physmem *phys, struct perf_rb *rb)
{
  rb_free_aux(phys, rb);
  phys_unmap(rb->view, rb->nframes);
  if (rb->pfns) phys_free(phys, rb->nframes, rb->pfns);
  free(rb->pfns);
  free(rb);
}

int perf_event_mmap(struct perf_event *e, size_t data_pages, size_t page_size)
{
  if (e->rb || page_size != PHYS_PAGE) return -EINVAL;
  /* (0 data pages is the user page alone: counting, rdpmc, no records) */
  if ((data_pages & (data_pages - 1)) || data_pages > (1u << 20)) return -EINVAL;
  struct physmem *phys = e->ctx->phys;
  struct perf_rb *rb = calloc(1, sizeof *rb);
  if (!rb) return -ENOMEM;
  rb->nframes = 1 + data_pages;
  rb->size = (uint64_t)data_pages * PHYS_PAGE;
  rb->pfns = malloc(rb->nframes * sizeof *rb->pfns);
  if (!rb->pfns || phys_alloc(phys, rb->nframes, false, rb->pfns) != 0) {
    free(rb->pfns);
    rb->pfns = NULL;
    rb_free(phys, rb);
    return -ENOMEM;
  }
  rb->view = phys_map(phys, rb->nframes, rb->pfns);
  if (!rb->view) { rb_free(phys, rb); return -ENOMEM; }
  for (size_t i = 0; i < rb->nframes; i++) memset(phys_frame(phys, rb->pfns[i]), 0, PHYS_PAGE);
  rb->user = (struct perf_event_mmap_page *)phys_frame(phys, rb->pfns[0]);
  rb->user->version = 0;
  rb->user->compat_version = 0;
  rb->user->cap_bit0_is_deprecated = 1;   /* perf_event_init_userpage */
  rb->user->size = offsetof(struct perf_event_mmap_page, __reserved);
  rb->user->data_offset = PHYS_PAGE;
  rb->user->data_size = rb->size;
  rb->refs = 1;
  e->rb = rb;
  return 0;
}

void perf_rb_get(struct perf_rb *rb) { rb->refs++; }

void perf_rb_put(struct perf_ctx *c, struct perf_rb *rb)
{
  if (rb && --rb->refs == 0) rb_free(c->phys, rb);
}

int perf_event_set_output(struct perf_event *e, struct perf_event *target)
{
  if (!target) {
    perf_rb_put(e->ctx, e->rb);
    e->rb = NULL;
    return 0;
  }
  if (e->rb || !target->rb) return -EINVAL;
  e->rb = target->rb;
  e->rb->refs++;
  return 0;
}

struct perf_event_mmap_page *perf_event_user_page(struct perf_event *e)
{
  return e->rb ? (struct perf_event_mmap_page *)e->rb->view : NULL;
}

const uint8_t *perf_event_data(struct perf_event *e, uint64_t *size)
{
  *size = e->rb ? e->rb->size : 0;
  return e->rb ? e->rb->view + PHYS_PAGE : NULL;
}

/* True when the consumer has left room for need more bytes. */
static bool rb_space(struct perf_rb *rb, uint64_t need)
{
  if (rb->overwrite) return need <= rb->size;
  uint64_t head = rb->user->data_head, tail = __atomic_load_n(&rb->user->data_tail, __ATOMIC_ACQUIRE);
  /* a consumer's tail past the head (a hostile one) leaves no room */
  return head - tail <= rb->size && rb->size - (head - tail) >= need;
}

/* header.size of the record at p (for the checks). */
static uint16_t rec_size(const void *p)
{
  uint16_t n;
  memcpy(&n, (const uint8_t *)p + offsetof(struct perf_event_header, size), sizeof n);
  return n;
}

/* Writes one record (header.size = len, a multiple of 8: the consumer walks
 * the ring by it) page by page through the direct map, wrapping at the end. */
static void rb_copy(struct physmem *phys, struct perf_rb *rb, const void *src, uint64_t len)
{
  /* A power-of-two data area (offsets are masks); rb_space checked the room. */
  PM_ASSERT(rb->size && !(rb->size & (rb->size - 1)) && rb->size % PHYS_PAGE == 0 && len <= rb->size &&
            rb->nframes == 1 + rb->size / PHYS_PAGE);
  PM_ASSERT(len >= sizeof(struct perf_event_header) && len <= RECORD_MAX && len % 8 == 0 &&
            rec_size(src) == len);
  uint64_t head = rb->user->data_head, off = head & (rb->size - 1);
  const uint8_t *p = src;
  for (uint64_t left = len; left;) {
    uint64_t in_page = off % PHYS_PAGE, n = PHYS_PAGE - in_page;
    if (n > left) n = left;
    memcpy(phys_frame(phys, rb->pfns[1 + off / PHYS_PAGE]) + in_page, p, n);
    p += n;
    left -= n;
    off = (off + n) & (rb->size - 1);
  }
  __atomic_store_n(&rb->user->data_head, head + len, __ATOMIC_RELEASE);
}

/* The sample_id trailer of a non-sample record (sample_id_all). */
static size_t id_trailer(const struct perf_event *e, uint8_t *p, uint32_t pid, uint32_t tid, uint64_t time)
{
  size_t n = 0;
  uint64_t st = e->attr.sample_type;
  if (!e->attr.sample_id_all) return 0;
  if (st & PERF_SAMPLE_TID) { memcpy(p + n, &pid, 4); memcpy(p + n + 4, &tid, 4); n += 8; }
  if (st & PERF_SAMPLE_TIME) { memcpy(p + n, &time, 8); n += 8; }
  if (st & PERF_SAMPLE_ID) { memcpy(p + n, &e->id, 8); n += 8; }
  if (st & PERF_SAMPLE_STREAM_ID) { memcpy(p + n, &e->id, 8); n += 8; }
  if (st & PERF_SAMPLE_CPU) { uint32_t cr[2] = { e->cpu < 0 ? 0 : (uint32_t)e->cpu, 0 }; memcpy(p + n, cr, 8); n += 8; }
  if (st & PERF_SAMPLE_IDENTIFIER) { memcpy(p + n, &e->id, 8); n += 8; }
  return n;
}

/* Writes one record for e (a LOST record first when records were dropped). */
static void output(struct perf_event *e, const uint8_t *rec, size_t len, uint32_t pid, uint32_t tid)
{
  e = top(e);
  struct perf_rb *rb = e->rb;
  /* ring_buffer_init pauses a ring without data pages, and __perf_output_begin
   * counts nothing lost for it */
  if (!rb || !rb->size) return;
  if (rb->paused) {   /* perf_output_begin: a paused ring counts the record lost */
    if (!rb->lost) rb->lost_id = e->id;
    rb->lost++;
    e->lost++;
    return;
  }
  if (rb->lost) {
    uint8_t lost[64];
    struct perf_event_header *h = (struct perf_event_header *)lost;
    uint64_t v[2] = { rb->lost_id, rb->lost };
    h->type = PERF_RECORD_LOST;
    h->misc = 0;
    memcpy(lost + 8, v, 16);
    size_t n = 24 + id_trailer(e, lost + 24, pid, tid, perf_ctx_time(e->ctx));
    h->size = (uint16_t)n;
    if (!rb_space(rb, n + len)) { rb->lost++; e->lost++; return; }
    rb_copy(e->ctx->phys, rb, lost, n);
    rb->lost = 0;
  }
  if (!rb_space(rb, len)) {
    if (!rb->lost) rb->lost_id = e->id;
    rb->lost++;
    e->lost++;
    return;
  }
  rb_copy(e->ctx->phys, rb, rec, len);
  e->ctx->out_bytes += len;
}

void perf_output_side_record(struct perf_event *e, uint32_t type, const void *payload, size_t len)
{
  struct perf_ctx *c = e->ctx;
  int cpu = e->cpu >= 0 ? e->cpu : 0;
  uint8_t rec[128];
  if (len > 64) return;
  struct perf_event_header *h = (struct perf_event_header *)rec;
  h->type = type;
  h->misc = 0;
  memcpy(rec + sizeof *h, payload, len);
  uint32_t pid = c->running[cpu] ? c->run[cpu].pid : (uint32_t)-1, tid = c->running[cpu] ? c->run[cpu].tid : (uint32_t)-1;
  size_t n = sizeof *h + len;
  n += id_trailer(e, rec + n, pid, tid, perf_ctx_time(c));
  h->size = (uint16_t)n;
  output(e, rec, n, pid, tid);
}

struct physmem *perf_ctx_phys(struct perf_ctx *c) { return c->phys; }

/* ---- samples ---- */

static size_t put64(uint8_t *p, size_t n, uint64_t v) { memcpy(p + n, &v, 8); return n + 8; }

/* One member's count and times: on one CPU (cpu >= 0: its instance there,
 * as a sample's PERF_SAMPLE_READ reads it) or summed (cpu -1: read(2)). */
static void totals(struct perf_event *e, uint64_t *count, uint64_t *enabled, uint64_t *running);
static void member_values(struct perf_event *p, int cpu, uint64_t v[3])
{
  if (cpu < 0) { totals(p, &v[0], &v[1], &v[2]); return; }
  struct perf_event *inst = p->child[cpu];
  v[0] = v[1] = v[2] = 0;
  if (!inst) return;
  if (inst->active) inst->pmu->read(inst);
  update_times(inst);
  v[0] = inst->count;
  v[1] = inst->time_enabled;
  v[2] = inst->time_running;
}

/* The read_format block of parent e (perf_read_one, or perf_read_group:
 * nr, the leader's times, then value, id, lost of each member). */
#define READ_VALUES_MAX (16 * 1024 / 8)
static size_t read_values(struct perf_event *e, int cpu, uint64_t v[READ_VALUES_MAX])
{
  uint64_t rf = e->attr.read_format, m3[3];
  size_t n = 0;
  struct perf_event *l = (rf & PERF_FORMAT_GROUP) ? leader_of(e) : e;
  member_values(l, cpu, m3);
  if (rf & PERF_FORMAT_GROUP) v[n++] = 1 + (uint64_t)l->nr_siblings;
  else v[n++] = m3[0];
  if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) v[n++] = m3[1];
  if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) v[n++] = m3[2];
  if (!(rf & PERF_FORMAT_GROUP)) {
    if (rf & PERF_FORMAT_ID) v[n++] = e->id;
    if (rf & PERF_FORMAT_LOST) v[n++] = e->lost;
    return n;
  }
  for (struct perf_event *m = l; m && n + 3 <= READ_VALUES_MAX; m = member_next(l, m)) {
    if (m != l) member_values(m, cpu, m3);
    v[n++] = m3[0];
    if (rf & PERF_FORMAT_ID) v[n++] = m->id;
    if (rf & PERF_FORMAT_LOST) v[n++] = m->lost;
  }
  return n;
}

/* The frames of a sample (perf_prepare_sample's regs_intr and regs_user):
 * the arch's, with the caller's frame for a scheduler event. */
static void sample_frames(struct perf_event *e, const struct perf_sample *s, struct perf_regs *intr,
                          struct perf_regs *user)
{
  struct perf_ctx *c = e->ctx;
  memset(intr, 0, sizeof *intr);
  memset(user, 0, sizeof *user);
  int cpu = e->cpu >= 0 ? e->cpu : (int)s->cpu;
  if (c->arch.regs) c->arch.regs(c->arch.ctx, cpu, s, intr, user);
  if (s->regs) *intr = *s->regs;
  /* The stack dump is the interrupted state's: with it (--call-graph
   * dwarf) the user registers are all of that state, pc included, so that
   * an unwinder sees one consistent frame (docs/callgraph.md). */
  if ((e->attr.sample_type & PERF_SAMPLE_STACK_USER) && !s->kernel && user->abi != PERF_SAMPLE_REGS_ABI_NONE &&
      c->arch.interrupted_pc)
    user->r[PERF_REG_ALPHA_PC] = c->arch.interrupted_pc(c->arch.ctx, cpu, s);
}

/* Appends one callchain entry (perf_callchain_store): at most max_stack
 * entries that are not context markers, none after the markers ran out. */
struct chain { uint64_t *ip; uint32_t nr, entries, contexts, max_stack; bool contexts_maxed; };
static bool chain_store(struct chain *ch, uint64_t ip)
{
  if (ch->entries >= ch->max_stack || ch->contexts_maxed) return false;
  ch->ip[ch->nr++] = ip;
  ch->entries++;
  return true;
}
static bool chain_context(struct chain *ch, uint64_t mark)
{
  if (ch->contexts >= PERF_MAX_CONTEXTS_PER_STACK) { ch->contexts_maxed = true; return false; }
  ch->ip[ch->nr++] = mark;
  ch->contexts++;
  return true;
}

#define CHAIN_MAX (PERF_MAX_STACK_DEFAULT + PERF_MAX_CONTEXTS_PER_STACK)

/* perf_callchain / get_perf_callchain: the kernel part for a kernel-mode
 * sample (PERF_CONTEXT_KERNEL, then the image's frames), the user part when
 * the task has a user frame (PERF_CONTEXT_USER, then perf_callchain_user:
 * the user pc only, no frame walk; docs/profiling.md says why), each unless
 * exclude_callchain_kernel/user. Returns the entries written to ips. */
static uint32_t sample_callchain(struct perf_event *e, const struct perf_sample *s, const struct perf_regs *intr,
                                 const struct perf_regs *user, uint64_t ips[CHAIN_MAX])
{
  struct perf_ctx *c = e->ctx;
  struct chain ch = { .ip = ips, .max_stack = e->attr.sample_max_stack };
  bool kernel = !e->attr.exclude_callchain_kernel, usr = !e->attr.exclude_callchain_user;
  if (!kernel && !usr) return 0;
  if (kernel && s->kernel && intr->abi != PERF_SAMPLE_REGS_ABI_NONE && chain_context(&ch, PERF_CONTEXT_KERNEL)) {
    uint64_t k[PERF_MAX_STACK_DEFAULT];
    int cpu = e->cpu >= 0 ? e->cpu : (int)s->cpu;
    size_t nk = c->arch.kernel_chain ? c->arch.kernel_chain(c->arch.ctx, cpu, intr, k, PERF_MAX_STACK_DEFAULT) : 0;
    for (size_t i = 0; i < nk && chain_store(&ch, k[i]); i++) continue;
  }
  if (usr && user->abi != PERF_SAMPLE_REGS_ABI_NONE && chain_context(&ch, PERF_CONTEXT_USER)) {
    if (!c->arch.user_chain) {
      chain_store(&ch, user->r[PERF_REG_ALPHA_PC]);
      return ch.nr;
    }
    uint64_t u[PERF_MAX_STACK_DEFAULT];
    int cpu = e->cpu >= 0 ? e->cpu : (int)s->cpu;
    size_t nu = c->arch.user_chain(c->arch.ctx, cpu, s, user, u, PERF_MAX_STACK_DEFAULT);
    for (size_t i = 0; i < nu && chain_store(&ch, u[i]); i++) continue;
  }
  return ch.nr;
}

/* The bytes of the fields perf_output_sample writes after STACK_USER. */
static size_t tail_after_stack(const struct perf_event_attr *a, const struct perf_regs *intr)
{
  uint64_t st = a->sample_type;
  size_t n = 0;
  static const uint64_t words = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |
                                PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
                                PERF_SAMPLE_CODE_PAGE_SIZE;
  n += 8 * (size_t)__builtin_popcountll(st & words);
  if (st & PERF_SAMPLE_REGS_INTR) n += perf_regs_size(intr, a->sample_regs_intr);
  return n;
}

/* The STACK_USER field at rec + n: u64 size; then, when size is not 0,
 * size bytes from the user SP (zero past what could be copied) and u64
 * dyn_size, the bytes copied (perf_output_sample_ustack). Returns the new n. */
static size_t output_ustack(struct perf_event *e, const struct perf_sample *s, const struct perf_regs *user,
                            uint8_t *rec, size_t n, size_t tail)
{
  struct perf_ctx *c = e->ctx;
  size_t h = n + tail < 0xffff ? n + tail : 0xffff;   /* no room left: no dump */
  uint16_t size = perf_sample_ustack_size((uint16_t)e->attr.sample_stack_user, (uint16_t)h, user);
  n = put64(rec, n, size);
  if (!size) return n;
  int cpu = e->cpu >= 0 ? e->cpu : (int)s->cpu;
  size_t got = c->arch.copy_user ? c->arch.copy_user(c->arch.ctx, cpu, s, user->r[PERF_REG_ALPHA_SP], rec + n, size) : 0;
  if (got > size) got = size;
  memset(rec + n + got, 0, size - got);
  n += size;
  return put64(rec, n, got);
}

static void output_sample(struct perf_event *e, const struct perf_sample *s)
{
  uint8_t rec[RECORD_MAX];
  uint64_t st = e->attr.sample_type;
  struct perf_regs intr, user;
  if (st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN))
    sample_frames(e, s, &intr, &user);
  size_t n = sizeof(struct perf_event_header);
  uint64_t time = perf_ctx_time(e->ctx);
  if (st & PERF_SAMPLE_IDENTIFIER) n = put64(rec, n, e->id);
  if (st & PERF_SAMPLE_IP) n = put64(rec, n, s->ip);
  if (st & PERF_SAMPLE_TID) { memcpy(rec + n, &s->pid, 4); memcpy(rec + n + 4, &s->tid, 4); n += 8; }
  if (st & PERF_SAMPLE_TIME) n = put64(rec, n, time);
  if (st & PERF_SAMPLE_ADDR) n = put64(rec, n, s->addr);
  if (st & PERF_SAMPLE_ID) n = put64(rec, n, e->id);
  if (st & PERF_SAMPLE_STREAM_ID) n = put64(rec, n, e->id);
  if (st & PERF_SAMPLE_CPU) n = put64(rec, n, e->cpu >= 0 ? (uint32_t)e->cpu : s->cpu);
  if (st & PERF_SAMPLE_PERIOD) n = put64(rec, n, s->period);
  if (st & PERF_SAMPLE_READ) {
    uint64_t v[READ_VALUES_MAX];
    size_t nv = read_values(top(e), e->cpu, v);
    if (n + nv * 8 > RECORD_MAX - 1024) return;
    memcpy(rec + n, v, nv * 8);
    n += nv * 8;
  }
  if (st & PERF_SAMPLE_CALLCHAIN) {
    uint64_t ips[CHAIN_MAX];
    uint32_t nr = sample_callchain(e, s, &intr, &user, ips);
    n = put64(rec, n, nr);
    memcpy(rec + n, ips, 8 * (size_t)nr);
    n += 8 * (size_t)nr;
  }
  if (st & PERF_SAMPLE_RAW) {
    /* u32 size + data, rounded up to 8 with zero padding (perf_prepare_sample). */
    uint32_t payload = s->raw ? s->raw_size : 0;
    uint32_t total = (payload + 4 + 7) & ~7u, size = total - 4;
    if (n + total > RECORD_MAX - 64) return;
    memcpy(rec + n, &size, 4);
    memset(rec + n + 4, 0, size);
    if (payload) memcpy(rec + n + 4, s->raw, payload);
    n += total;
  }
  if (st & PERF_SAMPLE_REGS_USER) n += perf_output_regs(rec + n, &user, e->attr.sample_regs_user);
  if (st & PERF_SAMPLE_STACK_USER) n = output_ustack(e, s, &user, rec, n, tail_after_stack(&e->attr, &intr));
  if (st & PERF_SAMPLE_WEIGHT) n = put64(rec, n, s->weight);
  if (st & PERF_SAMPLE_DATA_SRC) n = put64(rec, n, s->data_src);
  if (st & PERF_SAMPLE_TRANSACTION) n = put64(rec, n, 0);
  if (st & PERF_SAMPLE_REGS_INTR) n += perf_output_regs(rec + n, &intr, e->attr.sample_regs_intr);
  if (st & PERF_SAMPLE_PHYS_ADDR) n = put64(rec, n, 0);
  if (st & PERF_SAMPLE_CGROUP) n = put64(rec, n, 0);
  if (st & PERF_SAMPLE_DATA_PAGE_SIZE) n = put64(rec, n, s->addr ? 8192 : 0);
  if (st & PERF_SAMPLE_CODE_PAGE_SIZE) n = put64(rec, n, 8192);
  struct perf_event_header *h = (struct perf_event_header *)rec;
  h->type = PERF_RECORD_SAMPLE;
  h->misc = (uint16_t)((s->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
                       (s->exact_ip ? PERF_RECORD_MISC_EXACT_IP : 0));
  h->size = (uint16_t)n;
  top(e)->samples++;
  output(e, rec, n, s->pid, s->tid);
  if (e->ctx->arch.sampled) {
    if (!(st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_CALLCHAIN)))
      sample_frames(e, s, &intr, &user);
    e->ctx->arch.sampled(e->ctx->arch.ctx, e->cpu >= 0 ? e->cpu : (int)s->cpu, s, &user, time);
  }
}

static bool excluded(const struct perf_event *e, bool kernel)
{
  return kernel ? e->attr.exclude_kernel : e->attr.exclude_user;
}

static void throttle_record(struct perf_event *e, bool throttle)
{
  uint8_t rec[96];
  struct perf_event_header *h = (struct perf_event_header *)rec;
  uint64_t time = perf_ctx_time(e->ctx);
  memcpy(rec + 8, &time, 8);
  memcpy(rec + 16, &e->id, 8);
  memcpy(rec + 24, &e->id, 8);
  size_t n = 32 + id_trailer(e, rec + 32, 0, 0, time);
  h->type = throttle ? PERF_RECORD_THROTTLE : PERF_RECORD_UNTHROTTLE;
  h->misc = 0;
  h->size = (uint16_t)n;
  output(e, rec, n, 0, 0);
}

static void adjust_period(struct perf_event *e, uint64_t nsec, uint64_t count, bool restart);

int perf_event_account(struct perf_event *e)
{
  struct perf_ctx *c = e->ctx;
  /* max_samples_per_tick = DIV_ROUND_UP(max_sample_rate, HZ) */
  uint64_t max = (c->sys.max_sample_rate + c->sys.hz - 1) / c->sys.hz;
  e->hw.interrupts++;
  if (e->hw.interrupts > max && !e->hw.throttled) {
    e->hw.throttled = true;
    throttle_record(e, true);
    return 1;
  }
  /* __perf_event_account_interrupt: a frequency event also adjusts its
   * period at every overflow, from the time since the previous one and the
   * period that just ended, not only at the tick: without it the period
   * ramps up by one low-pass step per tick and the first milliseconds of a
   * run get many times their share of the samples. */
  if (e->attr.freq && !e->hw.throttled) {
    uint64_t now = perf_ctx_time(c), tick_ns = 1000000000ull / c->sys.hz;
    int64_t delta = (int64_t)(now - e->hw.freq_time_stamp);
    e->hw.freq_time_stamp = now;
    if (delta > 0 && (uint64_t)delta < 2 * tick_ns) adjust_period(e, (uint64_t)delta, e->hw.last_period, true);
  }
  return 0;
}

/* The end of an overflow (__perf_event_overflow): the REFRESH limit (the
 * event disables itself after its overflows, event_limit), then the arch's
 * notification. Returns 1 when the limit disabled the event. */
static int overflow_tail(struct perf_event *e, const struct perf_sample *s)
{
  struct perf_event *t = top(e);
  bool hup = t->event_limit && --t->event_limit == 0;
  if (hup) perf_event_disable(t);
  if (e->ctx->arch.overflow) e->ctx->arch.overflow(e->ctx->arch.ctx, e->cpu >= 0 ? e->cpu : (int)s->cpu, t, s, hup);
  return hup;
}

int perf_event_overflow(struct perf_event *e, struct perf_sample *s)
{
  if (perf_event_account(e)) return 1;
  if (e->attr.sample_period || e->attr.freq) {
    if (!excluded(e, s->kernel)) output_sample(e, s);
  }
  return overflow_tail(e, s);
}

/* ---- side-band records ---- */

static bool wants(const struct perf_event *e, int kind)
{
  if (!e->rb) return false;
  switch (kind) {
  case PERF_RECORD_COMM: return e->attr.comm;
  case PERF_RECORD_MMAP2: return e->attr.mmap || e->attr.mmap2;
  default: return e->attr.task;
  }
}

/* Emits a side-band record about task t on cpu (perf_event_aux): to the
 * events that follow t and the CPU-wide events of that CPU, once per ring. */
static void broadcast(struct perf_ctx *c, int cpu, const struct perf_task *t, int kind, uint8_t *rec,
                      size_t len, uint32_t pid, uint32_t tid)
{
  uint64_t time = perf_ctx_time(c);
  struct perf_rb *done[16];
  int ndone = 0;
  if (cpu < 0 || cpu >= c->sys.ncpus) cpu = 0;
  for (struct perf_event *e = c->events; e; e = e->next) {
    if (!wants(e, kind) || (!e->child[cpu] && e->target < 0)) continue;
    if (!follows(e, t)) continue;
    bool seen = false;   /* one copy per ring, as with SET_OUTPUT */
    for (int i = 0; i < ndone; i++) if (done[i] == e->rb) seen = true;
    if (seen) continue;
    if (ndone < 16) done[ndone++] = e->rb;
    /* the trailer names the CPU it happened on */
    size_t n = len + id_trailer(e->child[cpu] ? e->child[cpu] : e, rec + len, pid, tid, time);
    ((struct perf_event_header *)rec)->size = (uint16_t)n;
    output(e, rec, n, pid, tid);
  }
}

void perf_record_comm(struct perf_ctx *c, int cpu, const struct perf_task *t, const char *comm, bool exec)
{
  uint8_t rec[128] = { 0 };
  struct perf_event_header *h = (struct perf_event_header *)rec;
  h->type = PERF_RECORD_COMM;
  h->misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
  uint32_t pid = t->pid, tid = t->tid;
  memcpy(rec + 8, &pid, 4);
  memcpy(rec + 12, &tid, 4);
  size_t l = strnlen(comm, 15);
  memcpy(rec + 16, comm, l);
  size_t len = 16 + ((l + 1 + 7) & ~(size_t)7);
  broadcast(c, cpu, t, PERF_RECORD_COMM, rec, len, pid, tid);
}

void perf_record_mmap2(struct perf_ctx *c, int cpu, const struct perf_task *t, uint64_t addr, uint64_t len,
                       uint64_t pgoff, uint32_t prot, uint32_t flags, const char *filename)
{
  uint32_t pid = t->pid, tid = t->tid;
  uint8_t rec[4096 + 200] = { 0 };
  struct perf_event_header *h = (struct perf_event_header *)rec;
  h->type = PERF_RECORD_MMAP2;
  h->misc = PERF_RECORD_MISC_USER;
  size_t n = 8;
  memcpy(rec + n, &pid, 4); memcpy(rec + n + 4, &tid, 4); n += 8;
  n = put64(rec, n, addr);
  n = put64(rec, n, len);
  n = put64(rec, n, pgoff);
  n += 24;   /* maj, min, ino, ino_generation: zero */
  memcpy(rec + n, &prot, 4); memcpy(rec + n + 4, &flags, 4); n += 8;
  size_t l = strnlen(filename, 4095);
  memcpy(rec + n, filename, l);
  n += (l + 1 + 7) & ~(size_t)7;
  broadcast(c, cpu, t, PERF_RECORD_MMAP2, rec, n, pid, tid);
}

static void task_record(struct perf_ctx *c, int cpu, const struct perf_task *t, int type, uint32_t pid,
                        uint32_t ppid, uint32_t tid, uint32_t ptid)
{
  uint8_t rec[128] = { 0 };
  struct perf_event_header *h = (struct perf_event_header *)rec;
  h->type = (uint32_t)type;
  uint32_t v[4] = { pid, ppid, tid, ptid };
  memcpy(rec + 8, v, 16);
  uint64_t time = perf_ctx_time(c);
  memcpy(rec + 24, &time, 8);
  broadcast(c, cpu, t, type, rec, 32, pid, tid);
}

void perf_record_fork(struct perf_ctx *c, int cpu, const struct perf_task *child, uint32_t ppid, uint32_t ptid)
{
  task_record(c, cpu, child, PERF_RECORD_FORK, child->pid, ppid, child->tid, ptid);
}

void perf_record_exit(struct perf_ctx *c, int cpu, const struct perf_task *t, uint32_t ppid)
{
  task_record(c, cpu, t, PERF_RECORD_EXIT, t->pid, ppid, t->tid, t->tid);
}

void perf_record_switch(struct perf_ctx *c, int cpu, const struct perf_task *t, const struct perf_task *other,
                        bool out, bool preempt)
{
  uint64_t time = perf_ctx_time(c);
  struct perf_rb *done[16];
  int ndone = 0;
  if (cpu < 0 || cpu >= c->sys.ncpus) return;
  for (struct perf_event *e = c->events; e; e = e->next) {
    if (!e->attr.context_switch || !e->rb) continue;
    bool wide = e->target < 0;
    if (wide ? !e->child[cpu] : !follows(e, t)) continue;
    bool seen = false;   /* one copy per ring, as with SET_OUTPUT */
    for (int i = 0; i < ndone; i++) if (done[i] == e->rb) seen = true;
    if (seen) continue;
    if (ndone < 16) done[ndone++] = e->rb;
    /* perf_event_switch_output: a task event gets SWITCH; a CPU-wide one
     * SWITCH_CPU_WIDE with the task switched to or from (0/0: idle). */
    uint8_t rec[128] = { 0 };
    struct perf_event_header *h = (struct perf_event_header *)rec;
    size_t n = 8;
    h->type = wide ? PERF_RECORD_SWITCH_CPU_WIDE : PERF_RECORD_SWITCH;
    h->misc = out ? PERF_RECORD_MISC_SWITCH_OUT | (preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0) : 0;
    if (wide) {
      uint32_t np[2] = { other ? other->pid : 0, other ? other->tid : 0 };
      memcpy(rec + n, np, 8);
      n += 8;
    }
    n += id_trailer(e->child[cpu] ? e->child[cpu] : e, rec + n, t->pid, t->tid, time);
    h->size = (uint16_t)n;
    output(e, rec, n, t->pid, t->tid);
  }
}

/* ---- enable, disable, read, close (of the events the tool opened) ---- */

void perf_event_enable(struct perf_event *e)
{
  e = top(e);
  if (e->enabled) return;
  e->enabled = true;
  for (int i = 0; i < PERF_MAX_CPUS; i++) {
    struct perf_event *inst = e->child[i];
    if (!inst) continue;
    update_times(inst);
    inst->enabled = true;
    if (inst->sched) sched_pmu_in(e->ctx, i, pmu_index(e->ctx, group_pmu(leader_of(e))));
  }
}

void perf_event_disable(struct perf_event *e)
{
  e = top(e);
  if (!e->enabled) return;
  e->enabled = false;
  for (int i = 0; i < PERF_MAX_CPUS; i++) {
    struct perf_event *inst = e->child[i];
    if (!inst) continue;
    /* a disabled leader takes its group off (its siblings stay enabled) */
    if (leader_of(e) == e) group_out(e, i);
    inst_out(inst);
    inst->enabled = false;
  }
}

/* The parent's count and times: its instances summed (perf_event_read_value
 * sums child events), plus what was counted on the parent itself. */
void perf_event_read_value(struct perf_event *e, uint64_t *count, uint64_t *enabled, uint64_t *running)
{
  totals(top(e), count, enabled, running);
}

static void totals(struct perf_event *e, uint64_t *count, uint64_t *enabled, uint64_t *running)
{
  *count = e->count;
  *enabled = e->time_enabled;
  *running = e->time_running;
  for (int i = 0; i < PERF_MAX_CPUS; i++) {
    struct perf_event *inst = e->child[i];
    if (!inst) continue;
    if (inst->active) inst->pmu->read(inst);
    update_times(inst);
    *count += inst->count;
    *enabled += inst->time_enabled;
    *running += inst->time_running;
  }
}

long perf_event_read(struct perf_event *e, void *buf, size_t len)
{
  e = top(e);
  if (e->pmu->aux_read)
    for (int i = 0; i < PERF_MAX_CPUS; i++) {
      int err = e->child[i] ? e->pmu->aux_read(e->child[i]) : 0;
      if (err) return err;
    }
  uint64_t *v = malloc(READ_VALUES_MAX * 8);
  if (!v) return -ENOMEM;
  size_t n = read_values(e, -1, v);
  if (len < n * 8) { free(v); return -ENOSPC; }
  memcpy(buf, v, n * 8);
  free(v);
  return (long)(n * 8);
}

void perf_event_reset(struct perf_event *e)
{
  e = top(e);
  e->count = 0;
  for (int i = 0; i < PERF_MAX_CPUS; i++) {
    struct perf_event *inst = e->child[i];
    if (!inst) continue;
    if (inst->active) inst->pmu->read(inst);
    inst->count = 0;
  }
}

int perf_event_refresh(struct perf_event *e, uint64_t n)
{
  e = top(e);
  if (e->attr.inherit || !(e->attr.sample_period || e->attr.freq)) return -EINVAL;
  e->event_limit += n;
  perf_event_enable(e);
  return 0;
}

/* A new period (or frequency) in one event or instance. */
static void set_period(struct perf_event *e, uint64_t value)
{
  if (e->attr.freq) {
    e->attr.sample_freq = value;
    return;
  }
  e->attr.sample_period = value;
  e->hw.sample_period = value;
  e->hw.period_left = (int64_t)value;
  if (e->active) {
    /* perf_event_period: stop, reload the new period, start again. */
    e->pmu->stop(e, PERF_EF_UPDATE);
    e->hw.period_left = (int64_t)value;
    e->pmu->start(e, PERF_EF_RELOAD);
  }
}

int perf_event_period(struct perf_event *e, uint64_t value)
{
  e = top(e);
  if (!(e->attr.sample_period || e->attr.freq) || !value) return -EINVAL;
  if (e->attr.freq ? value > e->ctx->sys.max_sample_rate : (value & (1ull << 63)) != 0) return -EINVAL;
  set_period(e, value);
  for (int i = 0; i < PERF_MAX_CPUS; i++) if (e->child[i]) set_period(e->child[i], value);
  return 0;
}

void perf_event_close(struct perf_event *e)
{
  e = top(e);
  struct perf_ctx *c = e->ctx;
  for (int i = 0; i < PERF_MAX_CPUS; i++) if (e->child[i]) inst_out(e->child[i]);
  for (struct perf_event **pp = &c->events; *pp; pp = &(*pp)->next)
    if (*pp == e) { *pp = e->next; break; }
  /* perf_group_detach: a leader's siblings become singleton groups */
  struct perf_event *l = leader_of(e);
  if (l == e) {
    for (struct perf_event *m = e->sibling_next, *next; m; m = next) {
      next = m->sibling_next;
      m->group_leader = m;
      m->sibling_next = NULL;
    }
  } else {
    for (struct perf_event **sp = &l->sibling_next; *sp; sp = &(*sp)->sibling_next)
      if (*sp == e) { *sp = e->sibling_next; break; }
    l->nr_siblings--;
  }
  perf_rb_put(c, e->rb);
  free_instances(e);
  if (e->pmu->destroy) e->pmu->destroy(e);
  free(e);
}

/* ---- scheduling with the tasks ---- */

void perf_sched_in(struct perf_ctx *c, int cpu, const struct perf_task *t)
{
  if (cpu < 0 || cpu >= c->sys.ncpus) return;
  c->run[cpu] = *t;
  c->running[cpu] = true;
  bool any = false;
  for (struct perf_event *p = c->events; p; p = p->next) {
    struct perf_event *e = p->child[cpu];
    if (!e || p->target < 0 || e->sched || !follows(p, t)) continue;
    update_times(e);
    e->sched = true;
    any = true;
  }
  if (any)
    for (int i = 0; i < c->npmus; i++) sched_pmu_in(c, cpu, i);
}

void perf_sched_out(struct perf_ctx *c, int cpu)
{
  if (cpu < 0 || cpu >= c->sys.ncpus) return;
  c->running[cpu] = false;
  for (struct perf_event *p = c->events; p; p = p->next) {
    struct perf_event *e = p->child[cpu];
    if (!e || p->target < 0 || !e->sched) continue;
    inst_out(e);
    e->sched = false;
  }
}

/* ---- the tick ---- */

/* Frequency mode: move the period towards the one that gives sample_freq
 * for count events in nsec (perf_adjust_period, its low-pass filter of 1/8
 * and its reload when what is left of the period exceeds 8 new periods).
 * restart: the event is on its PMU and must be stopped to reload. */
static void adjust_period(struct perf_event *e, uint64_t nsec, uint64_t count, bool restart)
{
  if (!e->attr.freq || !e->attr.sample_freq || !nsec) return;
  /* perf_calculate_period: events per second / samples per second */
  double rate = (double)count * 1e9 / (double)nsec;
  uint64_t period = (uint64_t)(rate / (double)e->attr.sample_freq);
  if (!period) period = 1;
  int64_t delta = (int64_t)period - (int64_t)e->hw.sample_period;
  e->hw.sample_period = (uint64_t)((int64_t)e->hw.sample_period + (delta + 7) / 8);
  if (!e->hw.sample_period) e->hw.sample_period = 1;
  if (e->hw.period_left > (int64_t)(8 * e->hw.sample_period)) {
    if (restart) e->pmu->stop(e, PERF_EF_UPDATE);
    e->hw.period_left = 0;
    if (restart) e->pmu->start(e, PERF_EF_RELOAD);
  }
}

/* Rotates one PMU's instances on cpu when one of them waits: all come off
 * and go back on from the next in list order (rotate_ctx, ctx_sched_in). */
static void rotate(struct perf_ctx *c, int cpu, int pi)
{
  bool waiting = false;
  for (struct perf_event *p = c->events; p; p = p->next) {
    struct perf_event *e = p->child[cpu];
    if (e && leader_of(p) == p && group_pmu(p) == c->pmus[pi] && e->enabled && e->sched && !e->active) waiting = true;
  }
  if (!waiting) return;
  for (struct perf_event *p = c->events; p; p = p->next)
    if (p->child[cpu] && leader_of(p) == p && group_pmu(p) == c->pmus[pi]) group_out(p, cpu);
  c->rot[cpu][pi]++;
  sched_pmu_in(c, cpu, pi);
}

/* The first point of the grid prev + k * step (k >= 1) after now: the next
 * deadline of a periodic timer that is served late. */
static uint64_t next_on_grid(uint64_t prev, uint64_t step, uint64_t now)
{
  if (!step) return now + 1;
  if (prev > now) return prev;
  return prev + ((now - prev) / step + 1) * step;
}

static void sw_clock_update(struct perf_event *e);

void perf_ctx_tick(struct perf_ctx *c, int cpu, uint32_t pid, uint32_t tid, uint64_t pc, bool kernel)
{
  if (cpu < 0 || cpu >= c->sys.ncpus) return;
  uint64_t now = perf_ctx_time(c), tick_ns = 1000000000ull / c->sys.hz;
  /* Software timer events sample the current task. */
  for (struct perf_event *p = c->events; p; p = p->next) {
    struct perf_event *e = p->child[cpu];
    if (!e || !e->enabled || !e->sched || !e->active || e->attr.type != PERF_TYPE_SOFTWARE) continue;
    if (e->attr.config != PERF_COUNT_SW_CPU_CLOCK && e->attr.config != PERF_COUNT_SW_TASK_CLOCK) continue;
    uint64_t period = e->attr.freq ? (e->attr.sample_freq ? 1000000000ull / e->attr.sample_freq : tick_ns)
                                   : e->hw.sample_period;
    /* A sample each period of time on the CPU (the hrtimer keeps its
     * period_left over a sched-out), not of wall time; the first period
     * from the count before this tick's time is added. */
    if (period && !e->next_deadline) e->next_deadline = e->count + period;
    sw_clock_update(e);
    if (!period) continue;   /* counting only */
    while (e->count >= e->next_deadline) {
      e->next_deadline += period;
      struct perf_sample s = { .ip = pc, .pid = pid, .tid = tid, .period = period, .kernel = kernel,
                               .cpu = (uint32_t)cpu };
      if (!excluded(e, kernel)) output_sample(e, &s);
      if (overflow_tail(e, &s)) break;
    }
  }
  /* The tick's work runs on a fixed grid of HZ, not at tick_ns after the
   * last call: the timer interrupt reaches perf after the kernel work before
   * it, so "now + tick_ns" would lie past the next interrupt and every other
   * tick would be skipped (throttled events then waited two ticks, and the
   * frequency adjustment and rotation ran at half rate). */
  if (now < c->next_tick[cpu]) return;
  c->next_tick[cpu] = next_on_grid(c->next_tick[cpu], tick_ns, now);
  for (struct perf_event *p = c->events; p; p = p->next) {
    struct perf_event *e = p->child[cpu];
    if (!e) continue;
    if (e->hw.throttled) {
      e->hw.throttled = false;
      throttle_record(e, false);
      if (e->active) e->pmu->start(e, PERF_EF_RELOAD);
    }
    e->hw.interrupts = 0;
    /* perf_adjust_freq_unthr_context reads the count at the tick (the
     * counter's progress since its last wrap included) */
    if (e->attr.freq && e->active && !e->hw.throttled && e->pmu->read) e->pmu->read(e);
    uint64_t count = e->hw.freq_count;
    e->hw.freq_count = 0;
    if (count) adjust_period(e, tick_ns, count, e->active);
  }
  /* Multiplexing: each PMU with an instance it could not schedule rotates
   * on its own (Linux rotates per PMU context). */
  if (now < c->next_rotate[cpu]) return;
  c->next_rotate[cpu] = next_on_grid(c->next_rotate[cpu], (uint64_t)c->sys.mux_interval_ms * 1000000ull, now);
  for (int i = 0; i < c->npmus; i++) rotate(c, cpu, i);
}

/* Counts one software event of type config on cpu for each event that
 * takes it, and writes a sample (s, with each event's period) where a
 * period ends (perf_swevent_event). */
static void do_perf_sw_event(struct perf_ctx *c, int cpu, uint64_t config, struct perf_sample *s)
{
  if (cpu < 0 || cpu >= c->sys.ncpus) return;
  for (struct perf_event *p = c->events; p; p = p->next) {
    struct perf_event *e = p->child[cpu];
    if (!e || !e->enabled || !e->sched || !e->active || e->attr.type != PERF_TYPE_SOFTWARE ||
        e->attr.config != config)
      continue;
    e->count++;
    if (!e->hw.sample_period) continue;   /* counting only */
    if (e->attr.freq) e->hw.freq_count++;  /* the tick moves the period towards sample_freq */
    if (--e->hw.period_left > 0) continue;
    e->hw.period_left = (int64_t)e->hw.sample_period;
    s->period = e->hw.sample_period;
    if (!excluded(e, s->kernel)) output_sample(e, s);
    overflow_tail(e, s);
  }
}

void perf_sw_event(struct perf_ctx *c, int cpu, uint64_t config, uint32_t pid, uint32_t tid, uint64_t pc,
                   bool kernel)
{
  struct perf_sample s = { .ip = pc, .pid = pid, .tid = tid, .kernel = kernel, .cpu = (uint32_t)cpu };
  do_perf_sw_event(c, cpu, config, &s);
}

void perf_sw_event_sched(struct perf_ctx *c, int cpu, uint64_t config, uint32_t pid, uint32_t tid,
                         const struct perf_regs *caller)
{
  struct perf_sample s = { .ip = caller->r[PERF_REG_ALPHA_PC], .pid = pid, .tid = tid, .kernel = !caller->user,
                           .cpu = (uint32_t)cpu, .regs = caller };
  do_perf_sw_event(c, cpu, config, &s);
}

/* ---- the software PMU ---- */

static int sw_init(struct perf_event *e)
{
  if (e->attr.type != PERF_TYPE_SOFTWARE) return -ENOENT;
  /* perf_swevent_init takes every software event below PERF_COUNT_SW_MAX:
   * dummy (perf record's side-band carrier), the minor and major faults
   * (every fault is minor here), and those Alpha Linux 6.1 never raises
   * (alignment and emulation faults: do_entUna has no perf_sw_event), BPF
   * output and cgroup switches (one cgroup), which count 0. */
  if (e->attr.config >= PERF_COUNT_SW_MAX) return -ENOENT;
  if (e->attr.precise_ip) return -EOPNOTSUPP;
  return 0;
}
/* A cpu-clock or task-clock, counting or sampling: its count is the time it
 * was on the CPU, brought up to date at every read, tick and sched-out as
 * Linux's cpu_clock_event_update does, not only at ticks (a read between
 * ticks would lag and the stretch after the last tick would be lost). */
static bool sw_clock(const struct perf_event *e)
{
  return e->attr.config == PERF_COUNT_SW_CPU_CLOCK || e->attr.config == PERF_COUNT_SW_TASK_CLOCK;
}
static void sw_clock_update(struct perf_event *e)
{
  if (!sw_clock(e) || e->hw.state) return;
  uint64_t now = perf_ctx_time(e->ctx);
  if (now > e->clock_prev) e->count += now - e->clock_prev;
  e->clock_prev = now;
}
static void sw_start(struct perf_event *e, int flags)
{
  (void)flags;
  e->hw.state = 0;
  if (sw_clock(e)) e->clock_prev = perf_ctx_time(e->ctx);
}
static void sw_stop(struct perf_event *e, int flags)
{
  (void)flags;
  sw_clock_update(e);
  e->hw.state = PERF_HES_STOPPED;
}
static int sw_add(struct perf_event *e, int flags) { sw_start(e, flags); return 0; }
static void sw_del(struct perf_event *e, int flags) { sw_stop(e, flags); }
static void sw_read(struct perf_event *e) { sw_clock_update(e); }

static const struct pmu sw_pmu = {
  .name = "software", .type = PERF_TYPE_SOFTWARE, .event_init = sw_init, .add = sw_add,
  .del = sw_del, .start = sw_start, .stop = sw_stop, .read = sw_read,
};

const struct pmu *perf_sw_pmu(void) { return &sw_pmu; }
