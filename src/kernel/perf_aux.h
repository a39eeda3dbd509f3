/* The AUX area of a perf ring buffer, as kernel/events/ring_buffer.c has it:
 * a second mapping after the data pages, whose place and size the tool
 * writes into the user page (aux_offset, aux_size) before it maps them;
 * free-running aux_head (the kernel's) and aux_tail (the tool's) in the user
 * page; rb_alloc_aux taking frames from the buddy allocator in blocks whose
 * order the PMU's capabilities decide (PERF_PMU_CAP_AUX_NO_SG and
 * PERF_PMU_CAP_AUX_PREFER_LARGE: the largest physically contiguous blocks
 * first, as large as the watermark allows); the driver's setup_aux/free_aux;
 * the output handle (perf_aux_output_begin/end/skip) drivers write through;
 * PERF_RECORD_AUX with its flags; aux_watermark; snapshot (overwrite) mode
 * when the tool maps the area read-only. */
#ifndef KERNEL_PERF_AUX_H
#define KERNEL_PERF_AUX_H
#include "kernel/perf.h"

struct perf_aux {
  uint64_t *pfns;                /* the frames, in buffer order */
  size_t nr_pages;
  struct { uint64_t pfn; unsigned order; } *blocks;   /* what the buddy allocator gave */
  size_t nblocks;
  uint8_t *view;                 /* the tool's mapping */
  uint64_t pgoff;                /* aux_offset / PHYS_PAGE */
  uint64_t size;                 /* bytes, a power of two */
  uint64_t head;                 /* rb->aux_head */
  uint64_t wakeup;               /* rb->aux_wakeup */
  uint64_t watermark;
  bool overwrite;                /* snapshot mode */
  int nest;
  void *priv;                    /* the driver's (setup_aux) */
  void (*free_aux)(void *priv);
  /* What the core counts: records by flag, wakeups. */
  uint64_t records, truncated, partial, collision, wakeups;
};

/* perf_output_handle, the AUX part. */
struct perf_output_handle {
  struct perf_event *event;
  struct perf_rb *rb;
  uint64_t head;                 /* where the driver writes (free-running) */
  uint64_t size;                 /* space it may write (not in overwrite mode) */
  uint64_t wakeup;
  uint64_t aux_flags;            /* PERF_AUX_FLAG_* for the record end writes */
};

/* mmap(2) of the AUX area at offset (bytes) of len bytes; writable: the tool
 * maps it read-write (else snapshot mode). Returns 0 with *addr the tool's
 * view, or -EINVAL (no ring, offset or size not as the user page says or
 * not a power of two of pages, a second mapping unlike the first),
 * -EOPNOTSUPP (the PMU has no setup_aux), -ENOMEM. */
int perf_aux_mmap(struct perf_event *e, uint64_t offset, size_t len, bool writable, void **addr);
/* Frees the AUX area of rb (the ring's last unmap). */
void rb_free_aux(struct physmem *phys, struct perf_rb *rb);

/* The driver's side (kernel/events/ring_buffer.c). begin returns the
 * driver's AUX state, or NULL when there is no AUX area or no space. */
void *perf_aux_output_begin(struct perf_output_handle *h, struct perf_event *e);
void perf_aux_output_end(struct perf_output_handle *h, uint64_t size);
int perf_aux_output_skip(struct perf_output_handle *h, uint64_t size);
void perf_aux_output_flag(struct perf_output_handle *h, uint64_t flags);

/* The AUX area of e's ring (the parent's), or NULL. */
struct perf_aux *perf_event_aux(struct perf_event *e);

#endif
