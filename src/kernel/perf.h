/* The perf_events core of the modelled kernel, a small tidy version of Linux's
 * kernel/events: events opened with Linux's perf_event_attr and validated in
 * Linux's order with Linux's errors, PMU drivers behind struct pmu callbacks
 * (the contract of each at its declaration), ring buffers with the
 * perf_event_mmap_page protocol (free-running head/tail, LOST records when
 * full), the records (SAMPLE, MMAP2, COMM, FORK, EXIT, LOST, THROTTLE,
 * UNTHROTTLE) with sample_id_all trailers, throttling, frequency mode,
 * multiplexing on a tick, and software events. Everything crossing to "user
 * space" (the tools) is byte for byte what Linux produces.
 *
 * Several CPUs: the event a tool opens is a parent with one instance per CPU
 * it may count on (Linux's inherited child events, kept per CPU instead of
 * per task). A CPU-wide event's instance is always scheduled in; a task
 * event's instance is scheduled in while a task it follows runs on that CPU
 * (perf_sched_in/out). Drivers see instances (e->cpu says which CPU's
 * hardware); samples carry the parent's id and go to the parent's ring; read
 * sums the instances, as Linux sums child events. */
#ifndef KERNEL_PERF_H
#define KERNEL_PERF_H
#include "guest/phys.h"
#include "kernel/perf_regs.h"
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MAX_CPUS 8

struct perf_ctx;
struct perf_event;

/* hw_perf_event state (include/linux/perf_event.h). */
#define PERF_HES_STOPPED  0x01   /* the counter is stopped */
#define PERF_HES_UPTODATE 0x02   /* event->count is up to date */
#define PERF_EF_START     0x01   /* add: start the counter */
#define PERF_EF_RELOAD    0x02   /* start: reload the period */
#define PERF_EF_UPDATE    0x04   /* stop/del: fold the counter into event->count */

struct hw_perf_event {
  int idx;                       /* counter index, -1 when not on the PMU */
  int state;                     /* PERF_HES_* */
  uint64_t config;               /* driver's encoding */
  uint64_t sample_period, last_period;
  int64_t period_left;
  uint64_t prev_count;           /* raw counter value last folded in */
  uint64_t interrupts;           /* overflows in this tick (throttling) */
  bool throttled;
  uint64_t freq_count;           /* events counted in this tick (frequency mode) */
  uint64_t freq_time_stamp;      /* time of the last overflow (frequency mode) */
};

/* What a driver or the core knows about one sample. */
struct perf_sample {
  uint64_t ip, addr, period, weight, data_src;
  uint32_t pid, tid, cpu;
  bool kernel;                   /* cpumode KERNEL (else USER) */
  bool exact_ip;                 /* PERF_RECORD_MISC_EXACT_IP */
  const void *raw;               /* PERF_SAMPLE_RAW payload, or NULL */
  uint32_t raw_size;
  /* The frame the sample was taken in (Linux's regs argument), when the
   * caller has it: a software event of the scheduler passes its caller's
   * kernel frame (perf_fetch_caller_regs). NULL: the core asks the arch
   * (struct perf_arch) for the interrupted frame. */
  const struct perf_regs *regs;
};

/* What the core needs of the machine for PERF_SAMPLE_REGS_USER, REGS_INTR,
 * STACK_USER and CALLCHAIN (the arch hooks of Linux: the interrupt regs,
 * perf_get_regs_user, copy_from_user_nofault, perf_callchain_kernel). Any
 * member may be NULL: then no frame, no stack and no kernel chain. */
struct perf_arch {
  /* The frames of sample s on cpu: *intr the frame the sample was taken in
   * (a kernel frame for a kernel-mode s, the task's user frame otherwise),
   * *user the task's user frame (abi NONE when it has none). Unset members
   * are zero (abi NONE). */
  void (*regs)(void *ctx, int cpu, const struct perf_sample *s, struct perf_regs *intr,
               struct perf_regs *user);
  /* Copies up to len bytes of the user memory of sample s's task from addr,
   * without faulting pages in (copy_from_user_nofault): stops at the first
   * byte it cannot read. Returns the bytes copied. */
  size_t (*copy_user)(void *ctx, int cpu, const struct perf_sample *s, uint64_t addr, void *buf, size_t len);
  /* The kernel call chain of kernel frame intr on cpu: its pc, then return
   * addresses, outermost last; at most max. Returns the count. */
  size_t (*kernel_chain)(void *ctx, int cpu, const struct perf_regs *intr, uint64_t *ips, size_t max);
  /* The user pc of the interrupted state of user-mode sample s (a precise
   * sample's frame has the sampled instruction as its pc, its other
   * registers are the interrupted state's). NULL: the frame's pc. */
  uint64_t (*interrupted_pc)(void *ctx, int cpu, const struct perf_sample *s);
  /* The user call chain of sample s from its user frame (record-time
   * unwinding, docs/callgraph.md): the pc then return addresses, at most
   * max entries, ending with PERF_CONTEXT_USER when the unwind stopped
   * early. Returns the count. NULL: the pc only, as Linux on Alpha. */
  size_t (*user_chain)(void *ctx, int cpu, const struct perf_sample *s, const struct perf_regs *user,
                       uint64_t *ips, size_t max);
  /* Told of every sample written, with its user frame and its time (the
   * PERF_SAMPLE_TIME value): where a tool's ground truth is taken. */
  void (*sampled)(void *ctx, int cpu, const struct perf_sample *s, const struct perf_regs *user, uint64_t time);
  /* An overflow of sampling event e (the opened one, not an instance)
   * happened on cpu (__perf_event_overflow's tail: where Linux raises
   * fasync signals, sigtrap and wakeups); hup: the REFRESH limit ran out
   * and disabled it (POLL_HUP). */
  void (*overflow)(void *ctx, int cpu, struct perf_event *e, const struct perf_sample *s, bool hup);
  void *ctx;
};

/* pmu->capabilities (include/linux/perf_event.h). */
#define PERF_PMU_CAP_ITRACE            0x0020   /* PERF_RECORD_ITRACE_START at first schedule-in */
#define PERF_PMU_CAP_AUX_NO_SG         0x0004   /* the AUX buffer must be physically contiguous blocks */
#define PERF_PMU_CAP_AUX_PREFER_LARGE  0x0400   /* take the largest contiguous blocks the allocator has */

struct pmu {
  const char *name;
  uint32_t type;                 /* PERF_TYPE_* this PMU answers */
  void *priv;
  /* Claims or refuses an event: 0, -ENOENT when the event is not for this PMU,
   * or the error (EINVAL, EOPNOTSUPP...). Sets hw.config and the period. */
  int (*event_init)(struct perf_event *e);
  /* Puts the event on a counter; with PERF_EF_START also starts it. Returns
   * 0 or -EAGAIN when no counter fits (the core multiplexes). */
  int (*add)(struct perf_event *e, int flags);
  /* Takes it off; with PERF_EF_UPDATE folds the count in first. */
  void (*del)(struct perf_event *e, int flags);
  /* Starts counting; PERF_EF_RELOAD programs the remaining period first. */
  void (*start)(struct perf_event *e, int flags);
  /* Stops counting; PERF_EF_UPDATE folds the count in. */
  void (*stop)(struct perf_event *e, int flags);
  /* Folds the current hardware count into event->count. */
  void (*read)(struct perf_event *e);
  /* ---- optional (NULL: none) ---- */
  /* The event (an instance or a parent) is freed: the driver's pmu_private
   * goes (event->destroy). */
  void (*destroy)(struct perf_event *e);
  /* The AUX area (kernel/perf_aux.h): the driver's state for the buffer of
   * frames pfns[0..nr_pages) in order, or NULL to refuse it; overwrite:
   * snapshot mode (the tool mapped it read-only). free_aux undoes it. */
  void *(*setup_aux)(struct perf_event *e, const uint64_t *pfns, int nr_pages, bool overwrite);
  void (*free_aux)(void *aux);
  /* read(2) of an instance whether or not it is on the PMU: what drives a
   * trace dump (the seed's read). Returns 0 or the -errno read(2) gives. */
  int (*aux_read)(struct perf_event *e);
  int capabilities;              /* PERF_PMU_CAP_* */
};

struct perf_rb;

struct perf_event {
  struct perf_event_attr attr;
  struct perf_ctx *ctx;
  int cpu;                       /* an instance's CPU; -1 for a parent */
  int target;                    /* the tid the event follows; -1: every task (CPU-wide) */
  struct perf_event *parent;     /* an instance's event (NULL for a parent) */
  struct perf_event *child[PERF_MAX_CPUS];   /* a parent's instances, by CPU */
  bool sched;                    /* an instance whose task runs on its CPU */
  const struct pmu *pmu;
  struct hw_perf_event hw;
  uint64_t id;
  uint64_t count;                /* events counted so far */
  bool enabled, active;
  uint64_t time_enabled, time_running, tstamp;
  struct perf_rb *rb;
  uint64_t lost;                 /* samples dropped for a full buffer */
  uint64_t samples;
  void *pmu_private;
  uint64_t next_deadline;        /* software clocks: the count (ns on the CPU) of the next sample */
  uint64_t clock_prev;           /* software clocks: when the count was last brought up to date */
  uint64_t event_limit;          /* overflows left before it disables itself (REFRESH) */
  /* Groups (a parent's; its instances follow it): the leader, itself for
   * a leader; a leader's siblings in the order they joined. A group goes on
   * its PMU all or nothing and read_format GROUP reads all of it. */
  struct perf_event *group_leader;
  struct perf_event *sibling_next;
  int nr_siblings;
  int open_cpu;                  /* perf_event_open's cpu argument */
  bool itrace_started;           /* PERF_RECORD_ITRACE_START written (PERF_ATTACH_ITRACE) */
  struct perf_event *next;
};

/* perf_event_mmap_page + data pages; owned by the ring's events. The pages
 * are frames of the machine's physical memory, not necessarily contiguous:
 * the kernel writes them through its direct map, the tool reads the
 * contiguous view its mmap gave it. */
struct perf_rb {
  struct perf_event_mmap_page *user;   /* the first frame, through the direct map */
  uint64_t *pfns;                /* 1 + size / PHYS_PAGE frames */
  size_t nframes;
  uint8_t *view;                 /* the tool's mapping of all of them */
  uint64_t size;                 /* data bytes, a power of two */
  uint64_t lost;                 /* records dropped since the last LOST record */
  uint64_t lost_id;
  int refs;
  bool overwrite;                /* mapped read-only: the tail is not honoured (overwrite mode) */
  bool paused;                   /* PERF_EVENT_IOC_PAUSE_OUTPUT: records are dropped as lost */
  struct perf_aux *aux;          /* the AUX area, when mapped (kernel/perf_aux.h) */
};

struct perf_aux;

/* System settings a context starts with (sysctls). */
struct perf_sysctl {
  int paranoid;                  /* kernel.perf_event_paranoid: 2 by default */
  bool privileged;               /* CAP_PERFMON / root */
  uint32_t max_sample_rate;      /* kernel.perf_event_max_sample_rate: 100000 */
  uint32_t mux_interval_ms;      /* perf_event_mux_interval_ms: 4 */
  uint32_t hz;                   /* scheduler tick: 1024 (Alpha's HZ) */
  int ncpus;                     /* CPUs, 1..PERF_MAX_CPUS (0 means 1) */
};

/* A task as the scheduler hands it to perf: its ids and its ancestors'
 * process ids (for inherited events), nearest first. */
#define PERF_TASK_ANCESTORS 16
struct perf_task {
  uint32_t pid, tid;
  uint32_t ancestors[PERF_TASK_ANCESTORS];
  int nancestors;
};

/* The clock the context's TIME fields and ticks use (ns). */
typedef uint64_t (*perf_clock_fn)(void *ctx);

/* Returns a new context whose ring buffers come from phys, or NULL. */
struct perf_ctx *perf_ctx_create(const struct perf_sysctl *sys, struct physmem *phys,
                                 perf_clock_fn clock, void *clock_ctx);
void perf_ctx_destroy(struct perf_ctx *c);
/* Installs the arch hooks (copied). */
void perf_ctx_set_arch(struct perf_ctx *c, const struct perf_arch *arch);
/* The sysctls in force (perf_ctx_create's, defaults filled in). */
const struct perf_sysctl *perf_ctx_sysctl(const struct perf_ctx *c);
/* Registers a PMU driver (the core tries them in order). */
void perf_pmu_register(struct perf_ctx *c, const struct pmu *pmu);

/* perf_event_open(2): attr is copied by the size it says it has (perf_copy_attr,
 * guest/perf_attr.h: the caller's buffer holds that many bytes). pid is the
 * task to follow (its threads and children too with attr.inherit) or -1 for
 * all; cpu -1 or a CPU; group the leader to join, or NULL. Returns 0 with
 * *out set, or -errno exactly as the syscall would fail. */
int perf_event_open(struct perf_ctx *c, const struct perf_event_attr *attr, int pid, int cpu,
                    struct perf_event *group, struct perf_event **out);
/* perf_event_open for a caller whose privilege (CAP_PERFMON) is its own
 * rather than the context's default (a guest task's credentials). */
int perf_event_open_cred(struct perf_ctx *c, const struct perf_event_attr *attr, int pid, int cpu,
                         struct perf_event *group, bool privileged, struct perf_event **out);
/* A reference on a ring buffer (ring_buffer_get/put): a consumer's mapping
 * keeps the frames alive after the events that wrote them are closed. */
void perf_rb_get(struct perf_rb *rb);
void perf_rb_put(struct perf_ctx *c, struct perf_rb *rb);
/* The count and times read(2) would report (perf_event_read_value). */
void perf_event_read_value(struct perf_event *e, uint64_t *count, uint64_t *enabled, uint64_t *running);
/* mmap(2) of 1 + 2^n pages of page_size bytes (PHYS_PAGE, as the kernel's
 * PAGE_SIZE): the ring buffer. Returns 0 or -errno (EINVAL, ENOMEM). */
int perf_event_mmap(struct perf_event *e, size_t data_pages, size_t page_size);
/* PERF_EVENT_IOC_SET_OUTPUT: e writes into target's ring; target NULL
 * detaches e from the ring it has. */
int perf_event_set_output(struct perf_event *e, struct perf_event *target);
/* PERF_EVENT_IOC_ENABLE / DISABLE (of e alone; PERF_IOC_FLAG_GROUP is
 * the caller's loop over e's group). */
void perf_event_enable(struct perf_event *e);
void perf_event_disable(struct perf_event *e);
/* read(2) with the event's read_format. Returns bytes or -errno. */
long perf_event_read(struct perf_event *e, void *buf, size_t len);
/* PERF_EVENT_IOC_RESET: the count goes to zero (the times do not). */
void perf_event_reset(struct perf_event *e);
/* PERF_EVENT_IOC_REFRESH: enable for n more overflows. 0 or -EINVAL. */
int perf_event_refresh(struct perf_event *e, uint64_t n);
/* PERF_EVENT_IOC_PERIOD: a new sample period (or frequency). 0 or -EINVAL. */
int perf_event_period(struct perf_event *e, uint64_t value);
void perf_event_close(struct perf_event *e);
/* The ring buffer's user page and data, as the tool's mmap sees them. */
struct perf_event_mmap_page *perf_event_user_page(struct perf_event *e);
const uint8_t *perf_event_data(struct perf_event *e, uint64_t *size);
/* Writes a side-band record of `type` with payload (len bytes, a multiple of
 * 8) for instance e, with the sample_id trailer of the task on e's CPU:
 * PERF_RECORD_AUX and ITRACE_START (kernel/perf_aux.c). */
void perf_output_side_record(struct perf_event *e, uint32_t type, const void *payload, size_t len);
/* The physical memory the context's buffers come from. */
struct physmem *perf_ctx_phys(struct perf_ctx *c);

/* ---- called by the scheduler ---- */
/* Task t starts running on cpu: the events that follow it go on the PMUs. */
void perf_sched_in(struct perf_ctx *c, int cpu, const struct perf_task *t);
/* The task on cpu stops running there. */
void perf_sched_out(struct perf_ctx *c, int cpu);

/* ---- called by drivers ---- */
/* An overflow with a sample: writes it if the event samples, counts
 * interrupts for throttling. Returns 1 when the event is throttled (the
 * driver must stop it), else 0. */
int perf_event_overflow(struct perf_event *e, struct perf_sample *s);
/* An interrupt that produced no sample (a filtered ProfileMe sample): it
 * still counts for throttling. Returns 1 when the event is now throttled. */
int perf_event_account(struct perf_event *e);
/* The context's clock now (ns): what TIME fields and time_enabled use. */
uint64_t perf_ctx_time(struct perf_ctx *c);
/* Bytes the kernel has written into ring buffers so far (the work of its
 * output path). */
uint64_t perf_ctx_output_bytes(const struct perf_ctx *c);

/* ---- called by the kernel on task activity: side-band records about task
 * t on cpu, for the events that follow t and the CPU-wide events of cpu ---- */
void perf_record_comm(struct perf_ctx *c, int cpu, const struct perf_task *t, const char *comm, bool exec);
void perf_record_mmap2(struct perf_ctx *c, int cpu, const struct perf_task *t, uint64_t addr, uint64_t len,
                       uint64_t pgoff, uint32_t prot, uint32_t flags, const char *filename);
void perf_record_fork(struct perf_ctx *c, int cpu, const struct perf_task *child, uint32_t ppid, uint32_t ptid);
void perf_record_exit(struct perf_ctx *c, int cpu, const struct perf_task *t, uint32_t ppid);
/* Task t switches out of cpu (out) or in, from or to other (NULL: idle);
 * preempt: it was still runnable. PERF_RECORD_SWITCH for the events that
 * follow t, SWITCH_CPU_WIDE for cpu's CPU-wide events (attr.context_switch). */
void perf_record_switch(struct perf_ctx *c, int cpu, const struct perf_task *t, const struct perf_task *other,
                        bool out, bool preempt);
/* The software PMU (cpu-clock, task-clock, page-faults, context-switches,
 * cpu-migrations). */
const struct pmu *perf_sw_pmu(void);
/* cpu's scheduler tick: unthrottling, frequency adjustment, multiplexing,
 * software timer events (the current task and PC sample them). */
void perf_ctx_tick(struct perf_ctx *c, int cpu, uint32_t pid, uint32_t tid, uint64_t pc, bool kernel);
/* A software event happened on cpu (page fault, context switch) at pc. */
void perf_sw_event(struct perf_ctx *c, int cpu, uint64_t config, uint32_t pid, uint32_t tid, uint64_t pc,
                   bool kernel);
/* A software event of the scheduler (context switch, migration): the
 * sample's ip and frame are caller, the scheduler's own kernel frame (what
 * perf_sw_event_sched takes from perf_fetch_caller_regs). */
void perf_sw_event_sched(struct perf_ctx *c, int cpu, uint64_t config, uint32_t pid, uint32_t tid,
                         const struct perf_regs *caller);

#endif
