/* perf_copy_attr (Linux kernel/events/core.c): how a perf_event_attr is
 * copied in from its caller, by the size the caller says it has. One rule
 * for the guest's perf_event_open (guest memory, sys_perf.c) and for the
 * perf core's direct callers (host memory, kernel/perf.c); the checks of
 * the fields are the core's. */
#ifndef GUEST_PERF_ATTR_H
#define GUEST_PERF_ATTR_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* The caller's attr, wherever it lies. */
struct perf_uattr {
  /* Reads n bytes at offset off of it into buf: 0, or -EFAULT. */
  int (*get)(void *ctx, uint64_t off, void *buf, size_t n);
  /* Writes size into its size field (put_user, unchecked); NULL: nothing. */
  void (*put_size)(void *ctx, uint32_t size);
  void *ctx;
};

/* Copies the attr in: size 0 is PERF_ATTR_SIZE_VER0; a size below that or
 * above the page size (8 KB on Alpha), or a longer struct whose bytes past
 * ours are not all zero (copy_struct_from_user), is E2BIG with our size
 * written back. attr gets what it knows, zero-filled, with its size clamped
 * to ours. Returns 0, -EFAULT or -E2BIG. */
int perf_copy_attr(const struct perf_uattr *u, struct perf_event_attr *attr);

#endif
