/* The AUX area; see perf_aux.h. Follows Linux's ring_buffer.c (rb_alloc_aux,
 * rb_alloc_aux_page, perf_aux_output_begin/end/skip, rb_need_aux_wakeup) and
 * core.c (the AUX branch of perf_mmap, perf_event_aux_event). */
#include "kernel/perf_aux.h"
#include "util/assert.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct perf_event *top(struct perf_event *e) { return e->parent ? e->parent : e; }

struct perf_aux *perf_event_aux(struct perf_event *e)
{
  struct perf_rb *rb = top(e)->rb;
  return rb ? rb->aux : NULL;
}

static unsigned ilog2(uint64_t v) { unsigned k = 0; while (v >>= 1) k++; return k; }
/* get_order(bytes): the smallest order whose block holds them. */
static unsigned get_order(uint64_t bytes)
{
  unsigned k = 0;
  while (((uint64_t)PHYS_PAGE << k) < bytes) k++;
  return k;
}

void rb_free_aux(struct physmem *phys, struct perf_rb *rb)
{
  struct perf_aux *a = rb->aux;
  if (!a) return;
  if (a->priv && a->free_aux) a->free_aux(a->priv);
  phys_unmap(a->view, a->nr_pages);
  for (size_t i = 0; i < a->nblocks; i++) phys_free_order(phys, a->blocks[i].pfn, a->blocks[i].order);
  free(a->blocks);
  free(a->pfns);
  free(a);
  rb->aux = NULL;
}

/* rb_alloc_aux_page: a block of `order`, or the largest smaller one there is. */
static int alloc_block(struct physmem *phys, unsigned order, uint64_t *pfn, unsigned *got)
{
  if (order >= PHYS_MAX_ORDER) order = PHYS_MAX_ORDER - 1;
  for (;;) {
    if (phys_alloc_order(phys, order, pfn) == 0) { *got = order; return 0; }
    if (!order) return -ENOMEM;
    order--;
  }
}

/* rb_alloc_aux (Linux 6.10 and later: order-0 pages unless the PMU needs
 * or prefers contiguous ones). */
static int rb_alloc_aux(struct perf_rb *rb, struct perf_event *e, uint64_t pgoff, size_t nr_pages,
                        uint64_t watermark, bool overwrite)
{
  const struct pmu *pmu = e->pmu;
  struct physmem *phys = perf_ctx_phys(e->ctx);
  if (!pmu->setup_aux) return -EOPNOTSUPP;
  bool contiguous = pmu->capabilities & (PERF_PMU_CAP_AUX_NO_SG | PERF_PMU_CAP_AUX_PREFER_LARGE);
  unsigned max_order = 0;
  if (!overwrite) {
    /* The watermark defaults to half the buffer, and so does the largest
     * block, to help drivers double-buffer. */
    if (!watermark) watermark = (uint64_t)nr_pages * PHYS_PAGE / 2;
    if (contiguous) max_order = get_order(watermark);
  } else {
    if (contiguous) max_order = ilog2(nr_pages);
    watermark = 0;
  }
  struct perf_aux *a = calloc(1, sizeof *a);
  if (!a) return -ENOMEM;
  a->pfns = malloc(nr_pages * sizeof *a->pfns);
  a->blocks = malloc(nr_pages * sizeof *a->blocks);
  rb->aux = a;
  if (!a->pfns || !a->blocks) goto fail;
  a->free_aux = pmu->free_aux;
  while (a->nr_pages < nr_pages) {
    unsigned want = ilog2(nr_pages - a->nr_pages), got;
    if (want > max_order) want = max_order;
    uint64_t pfn;
    if (alloc_block(phys, want, &pfn, &got)) goto fail;
    /* A block never overshoots: got <= want <= log2 of the pages still wanted. */
    PM_ASSERT(got <= want && (1ull << got) <= nr_pages - a->nr_pages && a->nblocks < nr_pages);
    a->blocks[a->nblocks].pfn = pfn;
    a->blocks[a->nblocks++].order = got;
    for (uint64_t k = 0; k < (1ull << got); k++) a->pfns[a->nr_pages++] = pfn + k;
  }
  /* In overwrite mode a PMU that cannot scatter may not handle more than
   * one contiguous block: the whole buffer must be one. */
  if ((pmu->capabilities & PERF_PMU_CAP_AUX_NO_SG) && overwrite && a->blocks[0].order != max_order) goto fail;
  for (size_t i = 0; i < a->nr_pages; i++) memset(phys_frame(phys, a->pfns[i]), 0, PHYS_PAGE);
  a->view = phys_map(phys, a->nr_pages, a->pfns);
  if (!a->view) goto fail;
  a->priv = pmu->setup_aux(e, a->pfns, (int)nr_pages, overwrite);
  if (!a->priv) goto fail;
  a->size = (uint64_t)nr_pages * PHYS_PAGE;
  a->overwrite = overwrite;
  a->watermark = watermark;
  a->pgoff = pgoff;
  return 0;
fail:
  a->free_aux = NULL;
  rb_free_aux(phys, rb);
  return -ENOMEM;
}

int perf_aux_mmap(struct perf_event *e, uint64_t offset, size_t len, bool writable, void **addr)
{
  struct perf_rb *rb = e->rb;
  if (!rb || offset % PHYS_PAGE || len % PHYS_PAGE || !len) return -EINVAL;
  uint64_t aux_offset = __atomic_load_n(&rb->user->aux_offset, __ATOMIC_ACQUIRE);
  uint64_t aux_size = __atomic_load_n(&rb->user->aux_size, __ATOMIC_ACQUIRE);
  size_t nr_pages = len / PHYS_PAGE;
  if (aux_offset < rb->size + PHYS_PAGE) return -EINVAL;
  if (aux_offset != offset) return -EINVAL;
  if (rb->aux && rb->aux->pgoff != offset / PHYS_PAGE) return -EINVAL;
  if (aux_size != len) return -EINVAL;
  if (rb->aux && rb->aux->nr_pages != nr_pages) return -EINVAL;
  if (nr_pages & (nr_pages - 1)) return -EINVAL;
  if (!rb->aux) {
    int err = rb_alloc_aux(rb, e, offset / PHYS_PAGE, nr_pages, e->attr.aux_watermark, !writable);
    if (err) return err;
  }
  *addr = rb->aux->view;
  return 0;
}

/* ---- the driver's output handle ---- */

void *perf_aux_output_begin(struct perf_output_handle *h, struct perf_event *e)
{
  struct perf_rb *rb = top(e)->rb;
  memset(h, 0, sizeof *h);
  if (!rb || !rb->aux || rb->aux->nest) return NULL;
  struct perf_aux *a = rb->aux;
  a->nest = 1;
  h->rb = rb;
  h->event = e;
  h->head = a->head;
  if (!a->overwrite) {
    uint64_t tail = __atomic_load_n(&rb->user->aux_tail, __ATOMIC_ACQUIRE);
    h->wakeup = a->wakeup + a->watermark;
    if (a->head - tail < a->size) h->size = a->size - (a->head - tail);   /* CIRC_SPACE */
    if (!h->size) {
      /* Full: no output (Linux also marks the event for a pending disable
       * and wakes the consumer; the modelled tool polls). */
      a->wakeups++;
      a->nest = 0;
      h->rb = NULL;
      h->event = NULL;
      return NULL;
    }
  }
  return a->priv;
}

void perf_aux_output_flag(struct perf_output_handle *h, uint64_t flags) { h->aux_flags |= flags; }

/* rb_need_aux_wakeup */
static bool need_wakeup(struct perf_aux *a)
{
  if (a->overwrite || !a->watermark) return false;
  if (a->head - a->wakeup >= a->watermark) {
    a->wakeup = a->head - a->head % a->watermark;
    return true;
  }
  return false;
}

/* perf_event_aux_event: PERF_RECORD_AUX { u64 aux_offset, aux_size, flags }. */
static void perf_event_aux_event(struct perf_event *e, struct perf_aux *a, uint64_t offset, uint64_t size, uint64_t flags)
{
  uint64_t v[3] = { offset, size, flags };
  a->records++;
  if (flags & PERF_AUX_FLAG_TRUNCATED) a->truncated++;
  if (flags & PERF_AUX_FLAG_PARTIAL) a->partial++;
  if (flags & PERF_AUX_FLAG_COLLISION) a->collision++;
  perf_output_side_record(e, PERF_RECORD_AUX, v, sizeof v);
}

void perf_aux_output_end(struct perf_output_handle *h, uint64_t size)
{
  struct perf_rb *rb = h->rb;
  if (!rb) return;
  struct perf_aux *a = rb->aux;
  uint64_t head;
  /* Begun by perf_aux_output_begin; the driver writes no more than it was given. */
  PM_ASSERT(a->nest == 1 && (a->overwrite || size <= h->size));
  if (a->overwrite) {
    /* In overwrite mode the driver says where the head is. */
    h->aux_flags |= PERF_AUX_FLAG_OVERWRITE;
    head = h->head;
    a->head = head;
  } else {
    h->aux_flags &= ~(uint64_t)PERF_AUX_FLAG_OVERWRITE;
    head = a->head;
    a->head += size;
  }
  /* Only a record with something to say: OVERWRITE alone says nothing new. */
  if (size || (h->aux_flags & ~(uint64_t)PERF_AUX_FLAG_OVERWRITE)) perf_event_aux_event(h->event, a, head, size, h->aux_flags);
  __atomic_store_n(&rb->user->aux_head, a->head, __ATOMIC_RELEASE);
  if (need_wakeup(a) || (h->aux_flags & PERF_AUX_FLAG_TRUNCATED)) a->wakeups++;
  h->event = NULL;
  h->rb = NULL;
  a->nest = 0;
}

int perf_aux_output_skip(struct perf_output_handle *h, uint64_t size)
{
  struct perf_rb *rb = h->rb;
  if (!rb) return -EINVAL;
  struct perf_aux *a = rb->aux;
  if (size > h->size) return -ENOSPC;
  a->head += size;
  __atomic_store_n(&rb->user->aux_head, a->head, __ATOMIC_RELEASE);
  if (need_wakeup(a)) {
    a->wakeups++;
    h->wakeup = a->wakeup + a->watermark;
  }
  h->head = a->head;
  h->size -= size;
  return 0;
}
