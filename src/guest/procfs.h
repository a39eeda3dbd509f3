/* The guest's /proc, as Linux 6.1 on Alpha shows it for the machine's own
 * processes: /proc/self and /proc/thread-self, /proc/PID/ for every guest
 * process (zombies too) and thread, with status, stat, statm, comm, cmdline,
 * environ, maps, the exe, cwd and root links, fd/ and task/; /proc itself,
 * listing the guest's pids (never the host's); /proc/cpuinfo of the
 * modelled EV67 machine; /proc/kallsyms of the synthetic kernel image;
 * /proc/modules (none). What the machine does not model (meminfo, uptime,
 * mounts, ...) stays the host's. Each file is generated when it is looked
 * up, into the synthesized tree (guest/synthfs.h), and its host file then
 * behaves as any: what an open fd reads is the snapshot taken at its open,
 * as seq_file takes it. Sources: fs/proc/ (base.c, array.c, task_mmu.c,
 * fd.c, root.c), arch/alpha/kernel/setup.c (show_cpuinfo), kernel/kallsyms.c. */
#ifndef GUEST_PROCFS_H
#define GUEST_PROCFS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "guest/os.h"

/* procfs_lookup's answers besides a negative errno. */
enum {
  PROCFS_NOT_MINE = 0,   /* not procfs's: resolve the path as any other (the host's /proc/meminfo) */
  PROCFS_HOST = 1,       /* buf holds the host path to use */
  PROCFS_GUEST = 2,      /* buf holds another guest path to resolve instead (/proc/PID/root/...) */
};

/* Resolves gpath, an absolute normalized guest path, for task t if it is
 * procfs's: generates what it names and writes into buf (PATH_MAX bytes)
 * the path to use. follow: a link that is the last component (self,
 * thread-self, exe, cwd, root, fd/N) stands for what it names, as open and
 * stat take it; else the link itself, as readlink and lstat do. Links inside
 * the path are always followed. Returns PROCFS_* or a negative errno:
 * -ENOENT for a name that names nothing, a number that is no guest pid
 * among them (never the host's process of that pid). */
int procfs_lookup(struct os *m, struct task *t, const char *gpath, bool follow, char *buf);

/* What /proc/PID/fd/N shows for the host fd h behind a guest fd (readlink's
 * answer) into buf (PATH_MAX bytes): the host's name, the guest's for a file
 * of the synthesized tree, "anon_inode:[perf_event]" for a kernel file. */
void procfs_fd_name(struct os *m, int h, char *buf);

/* A new inode number for an object the OS makes (a shared anonymous
 * mapping's shmem file). */
uint64_t procfs_new_ino(struct os *m);
/* The device and inode every anon_inode file shows (Linux's one anonymous
 * inode): the host's, from an eventfd (0, 0 if the host has none). */
void procfs_anon_inode(struct os *m, uint64_t *dev, uint64_t *ino);

/* What kallsyms_show_value reads (kernel/kallsyms.c): perf_event_paranoid,
 * and whether the guest's user has CAP_SYSLOG (the machine gives its user
 * every capability or none: the perf sysctls' privileged flag). Until set:
 * paranoid 2, no capability. */
void os_set_kptr_policy(struct os *m, int perf_paranoid, bool privileged);

/* ---- internal to the kernel layer ---- */
/* Registers the fixed files (kernel.kptr_restrict) at os_create. */
void procfs_init(struct os *m);

#endif
