/* perf_event_open for the guests (docs/guest-perf.md): the kernel files of
 * guest/os.h's struct os_kfile_ops backed by the machine's perf core. A
 * guest's perf fd is the read end of a host pipe the machine owns (the
 * guests hold dups of it; the pipe's inode names the event): the pipe is
 * made readable when the ring reaches its wakeup point, so poll, select and
 * epoll work as on any fd; the event goes when the last dup is closed. */
#ifndef MACHINE_GUEST_PERF_H
#define MACHINE_GUEST_PERF_H
#include "guest/os.h"
#include "kernel/perf.h"

struct guest_perf;

/* Installs the kernel-file calls into os (os->kfile). privileged: the
 * guest's user has CAP_PERFMON (the machine's perf_sysctl). */
struct guest_perf *guest_perf_create(struct os *os, struct perf_ctx *perf, bool privileged);
/* Closes the guests' events; call before the perf context goes. */
void guest_perf_destroy(struct guest_perf *g);
/* The perf_arch overflow hook: fasync signals, sigtrap, wakeups. */
void guest_perf_overflow(struct guest_perf *g, int cpu, struct perf_event *e, const struct perf_sample *s,
                         bool hup);
/* Between rounds: closes events whose last fd went, refreshes the mapped
 * user pages and the pipes' readiness. */
void guest_perf_poll(struct guest_perf *g);
/* Task t exec'd: enable_on_exec and remove_on_exec of the events it is in. */
void guest_perf_exec(struct guest_perf *g, struct task *t);
/* Task child was forked from parent: the inherited events follow it too. */
void guest_perf_fork(struct guest_perf *g, const struct task *parent, const struct task *child);
/* Task t exits: an event whose tasks are all gone hangs up (POLLHUP). */
void guest_perf_exit(struct guest_perf *g, const struct task *t);

#endif
