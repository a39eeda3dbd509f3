/* The guest address space: 8 KB pages in a three-level radix table, each page
 * a frame of the machine's physical RAM (guest/phys.h) allocated on first
 * touch (demand-zero), and a software TLB per access type so the executor's
 * hot path is one compare and one add. A page's host address is its frame in
 * the RAM's direct map, so its physical address is a subtraction; pages of a
 * file's host mapping (MAP_SHARED files) get addresses in a window above the
 * RAM. Invariants: a page with
 * predecoded code never has a write-TLB entry, so every store to it takes the
 * slow path, which resets its decoded instructions; TLB tags include the low
 * address bits of the access size, so a misaligned access always misses. */
#ifndef GUEST_MEM_H
#define GUEST_MEM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "util/assert.h"
#include "util/err.h"

#define GUEST_PAGE_SHIFT 13
#define GUEST_PAGE_SIZE  ((uint64_t)1 << GUEST_PAGE_SHIFT)
#define GUEST_PAGE_MASK  (GUEST_PAGE_SIZE - 1)
#define GUEST_TASK_SIZE  ((uint64_t)1 << 42)   /* arch/alpha TASK_SIZE */
#define GUEST_PAGE_INSNS (GUEST_PAGE_SIZE / 4)

#define GUEST_PROT_READ  1
#define GUEST_PROT_WRITE 2
#define GUEST_PROT_EXEC  4

#define GUEST_TLB_SIZE 512
/* The most guest memory one address space may map: every 8 KB page costs a
 * host descriptor, so a larger reservation (1 TB PROT_NONE, say) would exhaust
 * the host instead of failing with ENOMEM as it should here. */
#define GUEST_MAX_PAGES (1ull << 22)   /* 32 GB */

struct guest_code;    /* predecoded instructions of one page (owned by the executor) */
struct jit_cache;     /* translated code of an address space (owned by the executor) */

struct guest_tlb_entry {
  uint64_t tag;       /* page address, or ~0 when empty */
  uintptr_t addend;   /* host address = guest address + addend */
};

struct guest_page {
  uint8_t *host;            /* NULL until first touched; else its frame in the direct map */
  struct guest_code *code;  /* predecoded instructions, or NULL */
  uint8_t prot;             /* GUEST_PROT_*; 0 = not mapped */
  uint8_t shared;           /* MAP_SHARED: fork shares the frame (a reference each) */
  struct guest_ext *ext;    /* host memory owned by a mapped file, or NULL */
};

/* A host mapping (a MAP_SHARED file) that guest pages point into. */
struct guest_ext {
  long refs;                /* guest pages pointing into it */
  void *base;
  size_t len;
  bool readonly;            /* host mapping without PROT_WRITE */
  bool dontcopy;            /* VM_DONTCOPY: a fork's child does not get these pages */
  bool nosplit;             /* a perf buffer: never split (may_split -EINVAL) nor grown (VM_DONTEXPAND) */
  /* Called instead of munmap+free when the last page goes (a kernel
   * object's mapping, e.g. a perf ring buffer); NULL: munmap base. */
  void (*release)(struct guest_ext *ext);
  void *priv;
  uint64_t pa;              /* its physical identity (phys_window), set when backed */
};

struct physmem;

/* One mapping of the address space, as Linux's vm_area_struct shows it in
 * /proc/PID/maps: the pages above say what may be accessed, this says what
 * was mapped (and is all /proc reports). The list is sorted by address and
 * never holds two entries that overlap, or two adjacent ones Linux would have
 * merged (vma_merge: equal prot and flags, both anonymous or the same file at
 * contiguous offsets). Nothing in the executor reads it. */
#define VMA_SHARED    1u   /* MAP_SHARED (VM_MAYSHARE): 's' in maps */
#define VMA_GROWSDOWN 2u   /* the process's initial stack (VM_GROWSDOWN | VM_STACK) */
#define VMA_SPECIAL   4u   /* a kernel object's pages (VM_DONTEXPAND | VM_DONTCOPY): never merged, not inherited */
#define VMA_ACCOUNT   8u   /* charged as private writable memory (VM_ACCOUNT): set by a writable private
                              mapping or mprotect making one writable, kept when it becomes read-only */
#define VMA_NORESERVE 16u  /* MAP_NORESERVE (VM_NORESERVE): never charged */
struct guest_vma {
  uint64_t start, end;       /* page aligned; end exclusive */
  uint64_t pgoff;            /* file offset of start in bytes (anonymous: 0) */
  uint64_t dev, ino;         /* the mapped file's host st_dev and st_ino (anonymous: 0) */
  char *path;                /* the name maps prints after the inode (a file's path), or NULL */
  uint8_t prot;              /* GUEST_PROT_* */
  uint8_t flags;             /* VMA_* */
  uint32_t anon;             /* its anon_vma: 0 until an anonymous page of it is first touched,
                              then an id its parts share (two different ones never merge) */
};

struct guest_mm {
  struct guest_page ***dir;   /* [1024][1024][512] radix over the page number */
  struct physmem *phys;       /* where the pages' frames come from */
  uint8_t *ram;               /* the RAM's direct map (phys_base) */
  uint64_t ram_bytes;
  struct guest_tlb_entry tlb_r[GUEST_TLB_SIZE];
  struct guest_tlb_entry tlb_w[GUEST_TLB_SIZE];
  uint64_t brk_start, brk;    /* program break (osf_brk) */
  uint64_t mmap_base;         /* bottom-up search start (TASK_UNMAPPED_BASE) */
  uint64_t serial;            /* never another mm's on this machine (phys_generation) */
  uint64_t map_gen;           /* new (phys_generation) on every unmap/protect: cached code pointers die */
  uint64_t pages_mapped;      /* statistics */
  uint64_t pages_touched;
  bool oom;                   /* a page could not get a frame: the OOM killer's case */
  /* Called to free a page's predecoded code; set by the executor. */
  void (*code_free)(struct guest_code *);
  /* Called to reset (not free) a page's predecoded code when it is written. */
  void (*code_reset)(struct guest_code *);
  /* The executor's translated code (guest/jit.h), created on first use and
   * freed with the space by jit_free; not inherited by a fork. One cache per
   * build that translates: [0] the functional one, [1] the warming one. */
  struct jit_cache *jit[2];
  void (*jit_free)(struct jit_cache *);
  uint64_t jit_map_gen;       /* map_gen when its jump cache was last emptied */
  int refs;
  /* The mappings (sorted; see struct guest_vma) and what exec recorded of
   * the image, as Linux's mm_struct has them for /proc/PID/{maps,stat,status}. */
  struct guest_vma *vma;
  size_t nvma, vma_cap;
  uint64_t start_code, end_code, start_data, end_data;
  uint64_t start_stack;       /* the initial sp (argc's address) */
  uint64_t stack_vm_start;    /* where Linux's stack VMA starts before it grows (setup_arg_pages) */
  uint64_t arg_start, arg_end, env_start, env_end;
  uint64_t rss_pages;          /* pages with a frame or a file's host page (resident) */
  uint64_t hiwater_vm, hiwater_rss;   /* their peaks, and the list's (pages) */
  uint32_t anon_next;         /* the last anon_vma id given */
};

/* Returns a new empty address space with one reference whose pages take
 * their frames from phys, or NULL. */
struct guest_mm *mm_create(struct physmem *phys);
/* Takes a reference. */
struct guest_mm *mm_get(struct guest_mm *mm);
/* Drops a reference; frees the space with its pages on the last one. */
void mm_put(struct guest_mm *mm);
/* Returns a private deep copy (fork), with one reference, or NULL (also when
 * the RAM has no frames left for the copy). Shared pages are shared. */
struct guest_mm *mm_fork(const struct guest_mm *mm);

/* Maps [addr, addr+len) as zero-filled pages with prot, replacing what was there.
 * addr must be page aligned. Returns 0 or PM_E*: PM_ENOMEM past GUEST_MAX_PAGES,
 * or for a writable mapping larger than the whole RAM (Linux's heuristic
 * overcommit refuses a single such request, __vm_enough_memory). */
int mm_map(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot);
/* Marks [addr, addr+len) as shared memory (MAP_SHARED): a fork shares these
 * pages instead of copying them. Returns 0 or PM_E*. */
int mm_share(struct guest_mm *mm, uint64_t addr, uint64_t len);
/* Backs [addr, addr+len) (mapped already) with host memory at host, owned by
 * ext (refs counted per page; munmapped with the last). Returns 0 or PM_E*. */
int mm_back_ext(struct guest_mm *mm, uint64_t addr, uint64_t len, uint8_t *host,
                struct guest_ext *ext);
/* Unmaps [addr, addr+len). Returns 0 or PM_EINVAL. */
int mm_unmap(struct guest_mm *mm, uint64_t addr, uint64_t len);
/* Changes protection; fails with PM_EFAULT if any page is unmapped. */
int mm_protect(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot);
/* Whether unmapping, replacing or changing [addr, addr+len) would split a
 * mapping that may not be split (guest_ext.nosplit: a perf buffer). */
bool mm_would_split(struct guest_mm *mm, uint64_t addr, uint64_t len);
/* Returns true if every page of [addr, addr+len) is mapped. */
bool mm_is_mapped(struct guest_mm *mm, uint64_t addr, uint64_t len);
/* Returns the lowest free page-aligned range of len bytes at or above from, that
 * ends at or below limit, or 0 if none. */
uint64_t mm_find_free(struct guest_mm *mm, uint64_t from, uint64_t limit, uint64_t len);

/* ---- the mapping list (guest/vma.c) ----
 * mm_map, mm_unmap, mm_protect and mm_share keep it as they change pages
 * (a new mapping is anonymous and private, VMA_ACCOUNT when writable, as
 * mmap_region's accountable_mapping); what a mapping is beyond that
 * (its file, a shared or special mapping) is set on it afterwards with
 * mm_vma_set. */
/* Makes [start, start+len) (page aligned, len > 0) one mapping with the
 * attributes of *a (its start, end and path pointer are ignored; the path is
 * copied, a->pgoff is the offset of start), replacing what was there, then
 * merges it with its neighbours as Linux would. Returns 0 or PM_ENOMEM. */
int mm_vma_set(struct guest_mm *mm, uint64_t start, uint64_t len, const struct guest_vma *a);
/* The mapping containing addr, or NULL. Valid until the list changes. */
const struct guest_vma *mm_vma_find(const struct guest_mm *mm, uint64_t addr);
/* Where the mapping v starts as Linux shows it: a growsdown stack from the
 * lowest page it has touched (expand_stack), at most its start before growing. */
uint64_t mm_vma_shown_start(struct guest_mm *mm, const struct guest_vma *v);
/* Pages of [start, end) that have a frame (resident). */
uint64_t mm_resident(struct guest_mm *mm, uint64_t start, uint64_t end);
/* Internal to mem.c: the list's side of unmap, protect and share (0 or PM_ENOMEM),
 * its copy for fork and its release. */
int vma_remove(struct guest_mm *mm, uint64_t start, uint64_t end);
int vma_protect(struct guest_mm *mm, uint64_t start, uint64_t end, int prot);
int vma_share(struct guest_mm *mm, uint64_t start, uint64_t end);
int vma_copy(struct guest_mm *dst, const struct guest_mm *src);
/* A page of addr's mapping was touched for the first time: an anonymous
 * mapping gets its anon_vma (anon_vma_prepare on the first fault). */
void vma_touch(struct guest_mm *mm, uint64_t addr);
void vma_free(struct guest_mm *mm);

/* Returns the page descriptor for addr, or NULL if unmapped. */
struct guest_page *mm_page(struct guest_mm *mm, uint64_t addr);
/* Returns the host address of guest byte addr if its page allows `prot`,
 * allocating its frame on first touch and filling the matching TLB; NULL on a
 * fault, or when no frame is left (then mm->oom is set). */
uint8_t *mm_host(struct guest_mm *mm, uint64_t addr, int prot);

/* Physical addresses, for the timing model. MM_PA_UNBACKED marks the address
 * of a page with no frame (not mapped, or never touched): it is the virtual
 * address with this bit, outside any RAM or window. */
#define MM_PA_UNBACKED (1ull << 62)
/* The physical address of guest byte addr. With alloc and a page that allows
 * prot but was never touched, the page gets its frame now (the access is
 * about to touch it) and *fault is set; else an untouched page's address is
 * unbacked. */
uint64_t mm_phys(struct guest_mm *mm, uint64_t addr, int prot, bool alloc, bool *fault);
/* Resets predecoded code of the page holding addr (a store hit it). */
void mm_code_written(struct guest_mm *mm, uint64_t addr);
/* Resets predecoded code of every page (imb). */
void mm_code_flush(struct guest_mm *mm);
/* Attaches predecoded code to a page and drops its write-TLB entry. */
void mm_code_attach(struct guest_mm *mm, uint64_t addr, struct guest_code *code);

/* Copies between guest and host memory. With check, the page protections apply
 * (a syscall acting for the guest); without, they are ignored (the loader).
 * Returns 0 or PM_EFAULT. */
int mm_read(struct guest_mm *mm, uint64_t addr, void *buf, size_t n, bool check);
int mm_write(struct guest_mm *mm, uint64_t addr, const void *buf, size_t n, bool check);
/* Reads a NUL-terminated string of at most max-1 bytes. Returns its length, or
 * PM_EFAULT, or PM_EINVAL when it does not fit. */
long mm_read_str(struct guest_mm *mm, uint64_t addr, char *buf, size_t max);

/* Hot-path lookups: host pointer for an aligned access of size bytes, or NULL
 * (miss: unaligned, not cached, or not permitted; use mm_host then). */
static inline unsigned mm_tlb_index(uint64_t addr)
{
  return (addr >> GUEST_PAGE_SHIFT) & (GUEST_TLB_SIZE - 1);
}
static inline uint8_t *mm_tlb_lookup(const struct guest_tlb_entry *tlb, uint64_t addr, unsigned size)
{
  /* The tag trick needs a power-of-two size within a page. */
  PM_ASSERT(size && !(size & (size - 1)) && size <= GUEST_PAGE_SIZE);
  const struct guest_tlb_entry *e = &tlb[mm_tlb_index(addr)];
  if (e->tag == (addr & (~GUEST_PAGE_MASK | (size - 1))))
    return (uint8_t *)(uintptr_t)(addr + e->addend);
  return NULL;
}
static inline uint8_t *mm_tlb_read(struct guest_mm *mm, uint64_t addr, unsigned size)
{
  return mm_tlb_lookup(mm->tlb_r, addr, size);
}
static inline uint8_t *mm_tlb_write(struct guest_mm *mm, uint64_t addr, unsigned size)
{
  return mm_tlb_lookup(mm->tlb_w, addr, size);
}

#endif
