/* The machine's physical memory: page frames of a simulated RAM and their
 * allocator. The kernel allocates its own buffers here (perf ring buffers now,
 * AUX areas later) as arrays of frames that need not be contiguous, writes
 * them through its direct map by frame number, and maps them contiguously
 * into the consumer's address space, as Linux does; tests can scatter the
 * allocations to exercise the page-by-page paths.
 *
 * The RAM is a sparse memfd: frames cost host memory only once written. Guest
 * user pages are not yet backed by these frames (guest/mem.c keeps its own
 * pages, and the timing model uses virtual addresses as physical ones). */
#ifndef PROFILEME_GUEST_PHYS_H
#define PROFILEME_GUEST_PHYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PHYS_PAGE 8192u                    /* Alpha's page size (HRM 2.1.6.4: 8 KB pages) */
#define PHYS_DEFAULT_BYTES (1ull << 30)    /* 1 GB of simulated RAM */

struct physmem;

/* Returns a RAM of `bytes` (a multiple of PHYS_PAGE), or NULL (errno set). */
struct physmem *phys_create(uint64_t bytes);
void phys_destroy(struct physmem *p);

/* Allocates n frames into pfns[0..n): physically contiguous when `contig`,
 * otherwise any free frames (lowest first, or scattered, see phys_scatter).
 * Returns 0 or -ENOMEM. */
int phys_alloc(struct physmem *p, size_t n, bool contig, uint64_t *pfns);
void phys_free(struct physmem *p, size_t n, const uint64_t *pfns);
uint64_t phys_free_frames(const struct physmem *p);

/* The kernel's direct map: the host address of frame pfn's first byte. */
uint8_t *phys_frame(struct physmem *p, uint64_t pfn);

/* Maps frames pfns[0..n) at consecutive addresses (a consumer's mmap of
 * them). Returns the address, or NULL (errno set). Undo with phys_unmap. */
void *phys_map(struct physmem *p, size_t n, const uint64_t *pfns);
void phys_unmap(void *addr, size_t n);

/* From now on non-contiguous allocations take free frames in a pseudo-random
 * order from `seed` (0: lowest first again): fragmentation, for tests. */
void phys_scatter(struct physmem *p, uint64_t seed);

#endif
