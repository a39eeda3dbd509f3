/* The functional half of the modelled Linux/Alpha kernel: the machine, its
 * processes and threads, the deterministic scheduler, system calls and signals.
 * Everything hangs off struct os; nothing is global. Guest time is virtual
 * (derived from the instruction count) so runs are reproducible. Signal numbers
 * inside this layer are Alpha's (OSF) numbering; errno values are the host's
 * until the syscall dispatcher translates them. */
#ifndef GUEST_OS_H
#define GUEST_OS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "guest/cpu.h"
#include "guest/mem.h"

#define GSIG_MAX 64          /* _NSIG on Alpha */
#define OS_MAX_CPUS 8

/* Alpha (OSF) signal numbers that differ from x86 or that the kernel layer names. */
enum {
  GSIG_HUP = 1, GSIG_INT = 2, GSIG_QUIT = 3, GSIG_ILL = 4, GSIG_TRAP = 5, GSIG_ABRT = 6,
  GSIG_EMT = 7, GSIG_FPE = 8, GSIG_KILL = 9, GSIG_BUS = 10, GSIG_SEGV = 11, GSIG_SYS = 12,
  GSIG_PIPE = 13, GSIG_ALRM = 14, GSIG_TERM = 15, GSIG_URG = 16, GSIG_STOP = 17,
  GSIG_TSTP = 18, GSIG_CONT = 19, GSIG_CHLD = 20, GSIG_TTIN = 21, GSIG_TTOU = 22,
  GSIG_IO = 23, GSIG_XCPU = 24, GSIG_XFSZ = 25, GSIG_VTALRM = 26, GSIG_PROF = 27,
  GSIG_WINCH = 28, GSIG_INFO = 29, GSIG_USR1 = 30, GSIG_USR2 = 31
};

/* Signals no mask can block: bit (sig-1) of KILL and STOP. */
#define GSIG_UNBLOCKABLE ((1ull << (GSIG_KILL - 1)) | (1ull << (GSIG_STOP - 1)))

struct gsigaction {
  uint64_t handler;          /* 0 = SIG_DFL, 1 = SIG_IGN, else a guest address */
  uint64_t flags;            /* Alpha SA_* */
  uint64_t mask;
  uint64_t restorer;         /* rt_sigaction's 5th argument */
};

struct sighand {
  int refs;
  struct gsigaction act[GSIG_MAX + 1];
};

/* A guest file descriptor table: guest fd -> host fd (-1 free). */
struct fdtable {
  int refs;
  int n;
  int nofile;                /* RLIMIT_NOFILE soft limit */
  int *host;
  bool *cloexec;
};

enum task_state { TASK_RUNNABLE, TASK_BLOCKED, TASK_ZOMBIE, TASK_DEAD };

enum wait_kind {
  WAIT_NONE, WAIT_TIME, WAIT_FD, WAIT_CHILD, WAIT_FUTEX, WAIT_SIGNAL, WAIT_VFORK
};

struct process;

/* One queued signal with what siginfo reports about it. */
struct gsiginfo {
  int sig, code, pid;
  int status;            /* SIGCHLD: exit status */
  uint64_t addr;         /* faults: si_addr */
  int64_t trapno;
  uint64_t value;        /* sigqueue: si_value */
  int64_t band;          /* SIGPOLL-style (F_SETSIG): si_band; poll_fd its si_fd */
  int poll_fd;
  bool perf;             /* SIGTRAP with TRAP_PERF: si_perf_data, _type, _flags */
  uint64_t perf_data;
  uint32_t perf_type, perf_flags;
};
#define TASK_SIGQ 64

struct task {
  int tid;
  struct process *proc;
  struct guest_mm *mm;
  struct axp_ctx ctx;
  enum task_state state;
  uint64_t blocked;          /* signal mask, bit (sig-1) */
  uint64_t pending;          /* thread-directed pending signals */
  struct gsiginfo sigq[TASK_SIGQ];   /* pending signals in arrival order */
  int nsigq;
  uint64_t wait_sigset;      /* rt_sigtimedwait: signals that end the wait */
  /* What a blocked task waits for; the syscall is re-executed when it wakes. */
  enum wait_kind wait;
  uint64_t wait_deadline;    /* virtual ns, 0 = none */
  int wait_fd, wait_events;
  uint64_t wait_addr;        /* futex address */
  uint32_t wait_bitset;
  int wait_pid;
  uint64_t restart_nr, restart_a3;   /* original v0 and a3 for re-execution */
  bool in_syscall_wait;
  uint64_t sleep_deadline;   /* kept across re-execution of nanosleep */
  uint64_t io_done;          /* bytes a blocking write already moved, across re-execution */
  uint64_t saved_mask;       /* sigsuspend/ppoll mask to restore */
  bool has_saved_mask;
  uint64_t clear_child_tid, robust_list;
  uint64_t altstack_sp, altstack_size;
  int altstack_flags;
  int host_pid, host_pidfd;  /* after exec of a host program: the process standing in */
  int cpu;                   /* the CPU it runs or last ran on, -1 before it first runs */
  uint64_t cpus_allowed;     /* sched_setaffinity's mask: bit i lets it run on CPU i */
  struct shadow *shadow;     /* its true call stack (guest/shadow.h), NULL when not kept */
  /* What /proc reports of it (guest/procfs.c), as task_struct has it. */
  char comm[16];             /* the program's base name (exec) or PR_SET_NAME's */
  int exit_signal;           /* sent to the parent at exit: SIGCHLD, or -1 for a thread */
  bool forknoexec;           /* made by clone and not exec'd since (PF_FORKNOEXEC) */
  uint64_t start_ns;         /* when clone made it (os_now) */
  uint64_t run_ns;           /* time on a CPU */
  uint64_t min_flt;          /* first touches of pages it took */
  uint64_t nvcsw, nivcsw;    /* switches away from it while blocked / while runnable */
  struct task *next;         /* machine's task list */
};

struct process {
  int pid, ppid;
  int refs;                  /* threads alive */
  struct process *parent;
  struct sighand *sighand;
  struct fdtable *files;
  uint64_t pending;          /* process-directed pending signals */
  int cwd_fd;                /* host directory fd for the guest's cwd */
  char exe[4096];            /* absolute host path of the guest program */
  char interp[4096];         /* absolute host path of its interpreter, or "" */
  uint64_t exe_text[3], interp_text[3];   /* executable segment: addr, len, file offset */
  bool exited;
  int exit_code;             /* wait status, Linux encoding */
  bool reaped;
  int vfork_parent_tid;      /* tid to release on exec/exit, or 0 */
  uint64_t itimer_deadline, itimer_interval;   /* ITIMER_REAL, virtual ns */
  uint32_t umask;
  uint64_t rlim[16][2];      /* soft, hard; host RLIMIT_* numbering */
  /* Its exited threads' totals of the task fields above (signal_struct's). */
  uint64_t dead_run_ns, dead_min_flt, dead_nvcsw, dead_nivcsw;
  struct process *next;
};

/* What happened to a task, for whoever records it (perf's COMM, MMAP2, FORK,
 * EXIT records). Paths are host paths of the mapped files. */
enum task_event_kind { TEV_EXEC, TEV_FORK, TEV_EXIT, TEV_MMAP };
struct task_event {
  enum task_event_kind kind;
  struct task *t, *parent;       /* parent: the forking task (TEV_FORK) */
  uint64_t addr, len, pgoff;     /* TEV_MMAP */
  uint32_t prot, flags;
  const char *path;
};

struct physmem;

/* What the OS asks of the machine it runs on; any may be NULL. */
struct os_hooks {
  /* kernel work that costs time (enum kactivity in kimage.h) */
  void (*kernel)(void *ctx, int activity, uint64_t nr, uint64_t bytes);
  /* the CPU stopped for an interrupt its timing hook asked for */
  void (*irq)(void *ctx, struct task *t);
  /* a task event (exec, fork, exit, an executable mapping) */
  void (*task)(void *ctx, const struct task_event *e);
  /* after every round a CPU ran; os->current is the task that ran, os->cur_cpu its CPU */
  void (*slice)(void *ctx);
  /* a CPU's busy time in ns (idle time is added by the OS); NULL: from its
   * instruction count */
  uint64_t (*clock)(void *ctx, int cpu);
  /* a CPU switches from prev to next (either may be NULL: idle); migrated
   * when next last ran on another CPU */
  void (*switch_to)(void *ctx, int cpu, struct task *prev, struct task *next, bool migrated);
  void *ctx;
};

/* Kernel files: guest fds whose object lives above this layer (perf
 * events). Each stands on a host placeholder fd that the machine owns and
 * recognizes, so dup, fork, close-on-exec and poll/select/epoll work on it
 * as on any fd (the machine makes the placeholder readable when the object
 * is); the calls below replace the host's for it. Return values are a
 * result or a negative host errno. Any may be NULL (no kernel files). */
struct os_kfile_ops {
  /* perf_event_open(2) with the attr copied in (guest/sys_perf.c applies
   * Linux's size rules); group_h: the host fd of group_fd, -1 for none, or
   * -EBADF when group_fd is not open. Returns a new host fd (close-on-exec
   * on the host) or -errno. */
  int (*perf_open)(void *ctx, struct task *t, const void *attr, int pid, int cpu, int group_h,
                   int group_fd, unsigned long flags);
  /* Whether host fd h is a kernel file. */
  bool (*is_kfile)(void *ctx, int h);
  int64_t (*read)(void *ctx, struct task *t, int h, uint64_t buf, uint64_t len);
  int64_t (*ioctl)(void *ctx, struct task *t, int h, uint64_t req, uint64_t arg);
  /* Maps the object at guest address addr (chosen by the caller, nothing
   * mapped there yet). Returns addr or -errno. */
  int64_t (*mmap)(void *ctx, struct task *t, int h, uint64_t addr, uint64_t len, int prot, int flags,
                  uint64_t off);
  /* fcntl of what the object owns (F_GETFL/F_SETFL's O_ASYNC, F_SETOWN,
   * F_GETOWN, F_SETSIG, F_GETSIG, F_*OWN_EX); *handled false: the generic
   * code does it. gfd is the guest fd (F_SETSIG's si_fd). */
  int64_t (*fcntl)(void *ctx, struct task *t, int gfd, int h, int cmd, uint64_t arg, bool *handled);
  /* perf_poll's EPOLLHUP for kernel file h: its task and the children it
   * was inherited by are gone (poll reports POLLHUP alone). */
  bool (*hup)(void *ctx, int h);
  /* A host fd that may have been a kernel file's was closed. */
  void (*closed)(void *ctx);
  /* prctl PR_TASK_PERF_EVENTS_DISABLE (31) / ENABLE (32). */
  int64_t (*prctl)(void *ctx, struct task *t, int option);
  void *ctx;
};

struct os_opts {
  const char *sysroot;       /* where absolute guest paths are looked up first */
  uint64_t seed;
  uint64_t quantum;          /* instructions per scheduling slice */
  int ncpus;                 /* CPUs, 1..OS_MAX_CPUS (0 means 1) */
  bool real_time;            /* guest clocks from the host instead of virtual */
  uint64_t ram_bytes;        /* physical RAM (0: PHYS_DEFAULT_BYTES, 1 GB) */
  bool strace;               /* print each completed system call to the log */
  bool no_jit;               /* interpret every instruction: no translated code (guest/jit.h) */
  bool epoch_set;            /* CLOCK_REALTIME starts at epoch_s, not the host's clock */
  int64_t epoch_s;
};

struct os {
  struct os_opts opt;
  struct cpu cpus[OS_MAX_CPUS];
  int ncpus;
  int cur_cpu;               /* the CPU being run now, -1 between rounds */
  int last_cpu;              /* the CPU that ran last */
  uint64_t time_hwm;         /* the latest guest time handed out (os_now is monotonic) */
  struct task *rr;           /* round-robin cursor: the task placed last */
  struct task *tasks;
  struct process *procs;
  struct task *current;      /* the task of cur_cpu while it runs */
  int next_pid;
  uint64_t rng;              /* seeded generator (getrandom, AT_RANDOM) */
  uint64_t idle_ns;          /* virtual time skipped while all tasks slept */
  int64_t epoch_ns;          /* CLOCK_REALTIME at virtual time 0 */
  int init_pid;              /* the first process: its exit is the run's status */
  bool init_exited;
  int init_status;
  uint8_t warned[1024 / 8];  /* unimplemented syscalls already reported */
  FILE *log;                 /* where warnings go (stderr by default) */
  uint64_t syscalls;
  /* Set by the machine that runs this OS (machine/machine.h). */
  struct os_hooks hooks;
  struct os_kfile_ops kfile;
  /* How the first process died when a fault signal killed it, for the message. */
  struct { bool valid; int sig; uint64_t pc, addr; } fatal;
  struct physmem *phys;      /* simulated RAM, created on first use (os_phys) */
  uint64_t oom_kills;        /* processes the OOM killer ended (a fault or a system call found no frame) */
  bool shadow_on;            /* tasks keep a shadow call stack (guest/shadow.h) */
  struct synthfs *synth;     /* the synthesized /proc and /sys files (guest/synthfs.h) */
  /* What /proc reads besides the tasks (guest/procfs.h). */
  struct {
    int perf_paranoid;       /* kernel.perf_event_paranoid, for kallsyms_show_value */
    bool cap_syslog;         /* the guest's user has CAP_SYSLOG (and every capability) */
    uint64_t next_ino;       /* inode numbers of objects the OS makes (shmem) */
    uint64_t anon_dev, anon_ino;   /* the anon_inode files' device and inode, once known */
  } procfs;
};

/* The CPUs the machine has, as an affinity mask (bit i: CPU i). */
static inline uint64_t os_cpu_mask(const struct os *m)
{
  return m->ncpus >= 64 ? ~0ull : (1ull << m->ncpus) - 1;
}

/* Creates a machine. Returns NULL on allocation failure. */
struct os *os_create(const struct os_opts *opt);
void os_destroy(struct os *m);
/* The machine's physical memory (guest/phys.h), created on first use with
 * opt.ram_bytes and the kernel's own memory (KIMAGE_PHYS_BYTES from 0)
 * reserved; NULL if the host refuses it. */
struct physmem *os_phys(struct os *m);

/* Starts the first process: loads path (a host path) with argv/envp. Returns 0 or
 * PM_E*; *detail gets a short description of what failed (e.g. the interpreter). */
int os_spawn(struct os *m, const char *path, int argc, char *const *argv,
                  char *const *envp, char *detail, size_t detail_len);

/* Runs until every guest task has exited. Returns the first process's wait
 * status (Linux encoding: exit code << 8, or the terminating signal). */
int os_run(struct os *m);

/* Reports the executable mappings of t's image (exe and interpreter) and its
 * comm through task_hook, as perf record synthesizes them for a new program. */
void os_announce(struct os *m, struct task *t);
/* The short command name of a task: the base name of the program it exec'd
 * (15 chars), or what prctl(PR_SET_NAME) set. */
const char *task_comm(const struct task *t);

/* Virtual time in ns since boot: the clock of the CPU running now, never
 * going back (CPUs' clocks differ by at most a round). */
uint64_t os_now(struct os *m);
/* Ends the time slice of the task on the CPU running now (the tick). */
void os_resched(struct os *m);
/* Next random 64-bit value of the seeded generator. */
uint64_t os_random(struct os *m);

/* ---- internal to the kernel layer (task.c, syscall.c, sys_*.c, signal.c) ---- */
struct task *task_find(struct os *m, int tid);
struct process *proc_find(struct os *m, int pid);
void task_block(struct task *t, enum wait_kind kind);
void task_wake(struct task *t);
void task_exit(struct os *m, struct task *t, int status, bool group);
int task_exec(struct os *m, struct task *t, const char *path, char *const *argv,
              char *const *envp);
/* Replaces t's process image with a host (non-Alpha) program, as qemu -L does
 * for /bin/sh: the guest process then stands for the host child until it exits. */
int task_exec_host(struct os *m, struct task *t, const char *path, char *const *argv,
                   char *const *envp);
int64_t task_clone(struct os *m, struct task *t, uint64_t flags, uint64_t newsp,
                   uint64_t ptid, uint64_t ctid, uint64_t tls);
void futex_wake(struct os *m, struct guest_mm *mm, uint64_t addr, int n, uint32_t bitset,
                int *woken);

void sys_dispatch(struct os *m, struct task *t);

void signal_send(struct os *m, struct task *t, struct process *p, int sig,
                 int code, uint64_t addr, int pid);
/* Queues si (real-time signals queue; standard ones coalesce). */
void signal_queue(struct os *m, struct task *t, struct process *p, const struct gsiginfo *si);
/* Removes and returns the lowest pending signal in set, or 0. */
int signal_dequeue(struct task *t, uint64_t set, struct gsiginfo *out);
/* Discards t's pending instances of sig, queued siginfo and all. */
void signal_discard(struct task *t, int sig);
/* Writes a 128-byte siginfo for si at guest address addr. Returns 0 or -1. */
int signal_write_info(struct task *t, uint64_t addr, const struct gsiginfo *si);
void signal_force(struct os *m, struct task *t, const struct axp_trap *trap);
/* Delivers one pending unblocked signal to t if any (frame or default action). */
void signal_deliver(struct os *m, struct task *t);
bool signal_pending(struct task *t);
int sig_to_host(int gsig);
int sig_from_host(int hsig);
/* sigreturn (rt: rt_sigreturn): restores the registers and mask from the
 * frame at a0, or sends SIGSEGV when it cannot be read. */
void signal_return(struct os *m, struct task *t, bool rt);

/* The fd table. */
struct fdtable *fdt_create(void);
struct fdtable *fdt_copy(const struct fdtable *src);
void fdt_put(struct fdtable *fdt);
int fdt_host(struct task *t, int64_t gfd);
int fdt_install(struct fdtable *fdt, int hostfd, bool cloexec, int min);
/* Closes guest fd gfd's host fd and frees the slot (nothing if it is free). */
void fdt_close(struct fdtable *fdt, int gfd);
void fdt_close_on_exec(struct fdtable *fdt);

#endif
