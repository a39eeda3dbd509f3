/* The machine's physical memory: page frames of a simulated RAM and their
 * allocator, a buddy allocator with Linux's semantics (mm/page_alloc.c): free
 * lists per order 0..PHYS_MAX_ORDER-1, a block of order k being 2^k frames
 * aligned to 2^k; an allocation takes the first block of the smallest order
 * that has one and splits it (expand), a free merges the block with its buddy
 * while that is free and of the same order (__free_one_page). The kernel
 * allocates its own buffers here (perf ring buffers, AUX areas) as frames
 * that need not be contiguous, writes them through its direct map by frame
 * number, and maps them contiguously into the consumer's address space, as
 * Linux does; tests can scatter or fragment the free memory to exercise the
 * page-by-page paths.
 *
 * The RAM is a sparse memfd: frames cost host memory only once written. */
#ifndef PROFILEME_GUEST_PHYS_H
#define PROFILEME_GUEST_PHYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PHYS_PAGE 8192u                    /* Alpha's page size (HRM 2.1.6.4: 8 KB pages) */
#define PHYS_DEFAULT_BYTES (1ull << 30)    /* 1 GB of simulated RAM */
#define PHYS_MAX_ORDER 11u                 /* Linux 6.1 MAX_ORDER: orders 0..10 (8 MB blocks) */

struct physmem;

/* Returns a RAM of `bytes` (a multiple of PHYS_PAGE, below 2^32 frames), or
 * NULL (errno set). All frames start free, lowest allocated first (Linux
 * frees boot memory to the tail of the lists, FPI_TO_TAIL). */
struct physmem *phys_create(uint64_t bytes);
void phys_destroy(struct physmem *p);

/* 2^order physically contiguous frames aligned to 2^order, the first in
 * *pfn (alloc_pages). Returns 0 or -ENOMEM (also for order >= PHYS_MAX_ORDER). */
int phys_alloc_order(struct physmem *p, unsigned order, uint64_t *pfn);
/* Frees a block phys_alloc_order returned (__free_pages). Frames of it that
 * are already free are left alone, so freeing twice is harmless. */
void phys_free_order(struct physmem *p, uint64_t pfn, unsigned order);
/* The largest order with a free block, -1 if no frame is free. */
int phys_max_free_order(const struct physmem *p);

/* Allocates n frames into pfns[0..n): physically contiguous when `contig`
 * (alloc_pages_exact: the block of the next order up, its tail freed),
 * otherwise n order-0 frames (as perf's rb_alloc does, page by page; see
 * phys_scatter). Returns 0 or -ENOMEM, taking nothing on failure. */
int phys_alloc(struct physmem *p, size_t n, bool contig, uint64_t *pfns);
/* Frees order-0 frames; freeing a free frame is harmless. */
void phys_free(struct physmem *p, size_t n, const uint64_t *pfns);
uint64_t phys_free_frames(const struct physmem *p);
uint64_t phys_frames(const struct physmem *p);
/* Whether frame pfn is allocated (for tests and checks). */
bool phys_frame_used(const struct physmem *p, uint64_t pfn);

/* Frame references (struct page's _refcount, get_page/put_page): an
 * allocation holds one; phys_put drops one and frees the frame with the last.
 * Guest pages shared by several address spaces (MAP_SHARED across fork) hold
 * one each. */
void phys_get(struct physmem *p, uint64_t pfn);
void phys_put(struct physmem *p, uint64_t pfn);

/* Takes n frames from pfn on out of the allocator for good, whatever they
 * hold (memblock_reserve: the kernel image, firmware). Returns 0, or -EBUSY
 * if one is allocated already, or -EINVAL past the end. */
int phys_reserve(struct physmem *p, uint64_t pfn, uint64_t n);

/* A range of `bytes` of physical address space above the RAM, never handed
 * out before: the physical identity of memory that is not RAM frames (a
 * file's host mapping shared with the guest). Returns its first address. */
uint64_t phys_window(struct physmem *p, uint64_t bytes);

/* A number never returned before on this machine: the address spaces'
 * mapping generations, so that a cache keyed on (mm, generation) cannot
 * match a new mm that reuses a freed one's address. */
uint64_t phys_generation(struct physmem *p);

/* The kernel's direct map: the host address of frame pfn's first byte. All
 * RAM is this one host mapping, so host address -> frame is a subtraction. */
uint8_t *phys_frame(struct physmem *p, uint64_t pfn);
uint8_t *phys_base(const struct physmem *p);
int phys_fd(const struct physmem *p);

/* Maps frames pfns[0..n) at consecutive addresses (a consumer's mmap of
 * them). Returns the address, or NULL (errno set). Undo with phys_unmap. */
void *phys_map(struct physmem *p, size_t n, const uint64_t *pfns);
void phys_unmap(void *addr, size_t n);

/* From now on order-0 allocations take free frames in a pseudo-random order
 * from `seed` (0: the free lists' order again): fragmentation, for tests. */
void phys_scatter(struct physmem *p, uint64_t seed);

/* Fragmentation on purpose, for tests: takes free frames (for good) so that
 * only this pattern of free memory remains, among the frames that were free:
 *   EVERY_OTHER: every odd frame taken, the even ones stay free;
 *   ISLANDS:     one free frame per 8-frame group (at a place from `seed`),
 *                single free frames separated by taken ones;
 *   NO_CONTIG:   no two free frames adjacent, the gaps (1 to 3 frames) and
 *                the order the free frames are handed out in from `seed`.
 * Returns 0, or -EINVAL for an unknown pattern. */
enum phys_frag { PHYS_FRAG_NONE, PHYS_FRAG_EVERY_OTHER, PHYS_FRAG_ISLANDS, PHYS_FRAG_NO_CONTIG };
int phys_fragment(struct physmem *p, enum phys_frag how, uint64_t seed);

#endif
