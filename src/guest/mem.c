/* Guest address space: radix page table, demand-zero pages, software TLB. The
 * radix splits the 29-bit page number of a 42-bit address as 10/10/9 bits.
 * Every page that is not a file's host mapping is an order-0 frame of the
 * RAM, holding one reference per address space that maps it. */
#include "guest/mem.h"
#include "guest/phys.h"
#include "util/err.h"
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#define L1_BITS 10
#define L2_BITS 10
#define L3_BITS 9
#define L1_SIZE (1u << L1_BITS)
#define L2_SIZE (1u << L2_BITS)
#define L3_SIZE (1u << L3_BITS)

static void tlb_clear(struct guest_mm *mm)
{
  for (int i = 0; i < GUEST_TLB_SIZE; i++) {
    mm->tlb_r[i].tag = ~(uint64_t)0;
    mm->tlb_w[i].tag = ~(uint64_t)0;
  }
}

/* Drops the TLB entries of the page holding addr. */
static void tlb_drop(struct guest_mm *mm, uint64_t addr)
{
  unsigned i = mm_tlb_index(addr);
  uint64_t page = addr & ~GUEST_PAGE_MASK;
  if (mm->tlb_r[i].tag == page) mm->tlb_r[i].tag = ~(uint64_t)0;
  if (mm->tlb_w[i].tag == page) mm->tlb_w[i].tag = ~(uint64_t)0;
}

struct guest_mm *mm_create(struct physmem *phys)
{
  if (!phys) return NULL;
  struct guest_mm *mm = calloc(1, sizeof *mm);
  if (!mm) return NULL;
  mm->phys = phys;
  mm->ram = phys_base(phys);
  mm->ram_bytes = phys_frames(phys) * PHYS_PAGE;
  mm->dir = calloc(L1_SIZE, sizeof *mm->dir);
  if (!mm->dir) { free(mm); return NULL; }
  mm->refs = 1;
  mm->serial = phys_generation(phys);
  mm->map_gen = phys_generation(phys);
  tlb_clear(mm);
  return mm;
}

struct guest_mm *mm_get(struct guest_mm *mm)
{
  mm->refs++;
  return mm;
}

/* Returns the descriptor slot for addr, creating table levels if create. */
static struct guest_page *slot(const struct guest_mm *mm, uint64_t addr, bool create)
{
  if (addr >= GUEST_TASK_SIZE) return NULL;
  uint64_t vpn = addr >> GUEST_PAGE_SHIFT;
  unsigned i1 = vpn >> (L2_BITS + L3_BITS), i2 = (vpn >> L3_BITS) & (L2_SIZE - 1);
  struct guest_page **l2 = mm->dir[i1];
  if (!l2) {
    if (!create || !(l2 = calloc(L2_SIZE, sizeof *l2))) return NULL;
    mm->dir[i1] = l2;
  }
  struct guest_page *l3 = l2[i2];
  if (!l3) {
    if (!create || !(l3 = calloc(L3_SIZE, sizeof *l3))) return NULL;
    l2[i2] = l3;
  }
  return &l3[vpn & (L3_SIZE - 1)];
}

struct guest_page *mm_page(struct guest_mm *mm, uint64_t addr)
{
  struct guest_page *p = slot(mm, addr, false);
  return p && p->prot ? p : NULL;
}

_Static_assert(GUEST_PAGE_SIZE == PHYS_PAGE, "a guest page is one frame");

static uint64_t pfn_of(const struct guest_mm *mm, const uint8_t *host)
{
  return (uint64_t)(host - mm->ram) / GUEST_PAGE_SIZE;
}

/* A frame with whatever it held, or NULL with mm->oom set when the RAM has
 * none left. */
static uint8_t *frame_alloc(struct guest_mm *mm)
{
  uint64_t pfn;
  if (phys_alloc_order(mm->phys, 0, &pfn) != 0) {
    mm->oom = true;
    return NULL;
  }
  return phys_frame(mm->phys, pfn);
}

/* A zeroed frame for a page touched for the first time (demand-zero). */
static uint8_t *frame_new(struct guest_mm *mm)
{
  uint8_t *h = frame_alloc(mm);
  if (h) memset(h, 0, GUEST_PAGE_SIZE);
  return h;
}

static void host_free(struct guest_mm *mm, struct guest_page *p)
{
  if (!p->host) return;
  if (p->ext) {
    if (--p->ext->refs == 0) {
      if (p->ext->release) {
        p->ext->release(p->ext);
      } else {
        munmap(p->ext->base, p->ext->len);
        free(p->ext);
      }
    }
    p->ext = NULL;
  } else {
    /* A page that is not a file's host mapping is a frame of the direct map. */
    PM_ASSERT(p->host >= mm->ram && (uint64_t)(p->host - mm->ram) < mm->ram_bytes &&
              (uint64_t)(p->host - mm->ram) % GUEST_PAGE_SIZE == 0);
    phys_put(mm->phys, pfn_of(mm, p->host));
  }
}

static void rss_add(struct guest_mm *mm)
{
  if (++mm->rss_pages > mm->hiwater_rss) mm->hiwater_rss = mm->rss_pages;
}

static void page_release(struct guest_mm *mm, struct guest_page *p)
{
  if (p->code && mm->code_free) mm->code_free(p->code);
  if (p->host) mm->rss_pages--;
  host_free(mm, p);
  p->shared = 0;
  p->host = NULL;
  p->code = NULL;
  if (p->prot) mm->pages_mapped--;
  p->prot = 0;
  mm->map_gen = phys_generation(mm->phys);
}

void mm_put(struct guest_mm *mm)
{
  if (!mm || --mm->refs > 0) return;
  for (unsigned i = 0; i < L1_SIZE; i++) {
    if (!mm->dir[i]) continue;
    for (unsigned j = 0; j < L2_SIZE; j++) {
      struct guest_page *l3 = mm->dir[i][j];
      if (!l3) continue;
      for (unsigned k = 0; k < L3_SIZE; k++) page_release(mm, &l3[k]);
      free(l3);
    }
    free(mm->dir[i]);
  }
  free(mm->dir);
  vma_free(mm);
  for (int i = 0; i < 2; i++)
    if (mm->jit[i] && mm->jit_free) mm->jit_free(mm->jit[i]);
  free(mm);
}

struct guest_mm *mm_fork(const struct guest_mm *src)
{
  /* A fork that finds no frames fails with ENOMEM; nobody is OOM-killed. */
  bool src_oom = src->oom;
  struct guest_mm *mm = mm_create(src->phys);
  if (!mm) return NULL;
  mm->brk_start = src->brk_start;
  mm->brk = src->brk;
  mm->mmap_base = src->mmap_base;
  mm->code_free = src->code_free;
  mm->code_reset = src->code_reset;
  mm->jit_free = src->jit_free;   /* the child translates its own code */
  if (vma_copy(mm, src)) goto fail;
  for (unsigned i = 0; i < L1_SIZE; i++) {
    if (!src->dir[i]) continue;
    for (unsigned j = 0; j < L2_SIZE; j++) {
      const struct guest_page *l3 = src->dir[i][j];
      if (!l3) continue;
      for (unsigned k = 0; k < L3_SIZE; k++) {
        if (!l3[k].prot || (l3[k].ext && l3[k].ext->dontcopy)) continue;
        uint64_t addr = ((((uint64_t)i << L2_BITS | j) << L3_BITS) | k) << GUEST_PAGE_SHIFT;
        struct guest_page *d = slot(mm, addr, true);
        if (!d) goto fail;
        d->prot = l3[k].prot;
        mm->pages_mapped++;
        if (l3[k].ext) {
          d->host = l3[k].host;
          d->ext = l3[k].ext;
          d->ext->refs++;
          d->shared = 1;
          if (d->host) rss_add(mm);
        } else if (l3[k].shared) {
          /* Both address spaces must see one frame: it is allocated now. */
          struct guest_page *s = (struct guest_page *)&l3[k];
          if (!s->host) {
            if (!(s->host = frame_new((struct guest_mm *)src))) goto fail;
            rss_add((struct guest_mm *)src);
          }
          phys_get(mm->phys, pfn_of(mm, s->host));
          d->host = s->host;
          d->shared = 1;
          rss_add(mm);
        } else if (l3[k].host) {
          if (!(d->host = frame_alloc(mm))) goto fail;   /* the copy fills it: no zeroing first */
          memcpy(d->host, l3[k].host, GUEST_PAGE_SIZE);
          mm->pages_touched++;
          rss_add(mm);
        }
      }
    }
  }
  return mm;
fail:
  ((struct guest_mm *)src)->oom = src_oom;
  mm_put(mm);
  return NULL;
}

int mm_map(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot)
{
  if ((addr & GUEST_PAGE_MASK) || addr + len > GUEST_TASK_SIZE || addr + len < addr)
    return PM_EINVAL;
  if (len / GUEST_PAGE_SIZE > GUEST_MAX_PAGES - (mm->pages_mapped < GUEST_MAX_PAGES ? mm->pages_mapped : GUEST_MAX_PAGES))
    return PM_ENOMEM;
  if ((prot & GUEST_PROT_WRITE) && len > mm->ram_bytes) return PM_ENOMEM;
  const struct guest_vma v = { .prot = (uint8_t)(prot & 7), .flags = prot & GUEST_PROT_WRITE ? VMA_ACCOUNT : 0 };
  if (len && mm_vma_set(mm, addr, len, &v)) return PM_ENOMEM;
  for (uint64_t a = addr; a < addr + len; a += GUEST_PAGE_SIZE) {
    struct guest_page *p = slot(mm, a, true);
    if (!p) return PM_ENOMEM;
    page_release(mm, p);
    tlb_drop(mm, a);
    p->prot = (uint8_t)(prot | 0x80);   /* 0x80: mapped even with PROT_NONE */
    mm->pages_mapped++;
  }
  return 0;
}

int mm_share(struct guest_mm *mm, uint64_t addr, uint64_t len)
{
  if (!mm_is_mapped(mm, addr, len)) return PM_EFAULT;
  if (vma_share(mm, addr, addr + len)) return PM_ENOMEM;
  for (uint64_t a = addr; a < addr + len; a += GUEST_PAGE_SIZE) {
    /* The page's frame (when it has one yet) becomes the shared one. */
    struct guest_page *p = mm_page(mm, a);
    if (!p) return PM_EFAULT;
    p->shared = 1;
  }
  return 0;
}

int mm_back_ext(struct guest_mm *mm, uint64_t addr, uint64_t len, uint8_t *host,
                struct guest_ext *ext)
{
  if (!ext->pa) ext->pa = phys_window(mm->phys, ext->len);
  for (uint64_t o = 0; o < len; o += GUEST_PAGE_SIZE) {
    struct guest_page *p = mm_page(mm, addr + o);
    if (!p) return PM_EFAULT;
    if (!p->host) rss_add(mm);
    host_free(mm, p);
    p->host = host + o;
    p->ext = ext;
    p->shared = 1;
    ext->refs++;
    tlb_drop(mm, addr + o);
  }
  return 0;
}

int mm_unmap(struct guest_mm *mm, uint64_t addr, uint64_t len)
{
  if ((addr & GUEST_PAGE_MASK) || addr + len < addr) return PM_EINVAL;
  if (vma_remove(mm, addr, addr + len)) return PM_ENOMEM;
  for (uint64_t a = addr; a < addr + len && a < GUEST_TASK_SIZE; a += GUEST_PAGE_SIZE) {
    struct guest_page *p = slot(mm, a, false);
    if (p) page_release(mm, p);
    tlb_drop(mm, a);
  }
  return 0;
}

int mm_protect(struct guest_mm *mm, uint64_t addr, uint64_t len, int prot)
{
  if (addr & GUEST_PAGE_MASK) return PM_EINVAL;
  if (!mm_is_mapped(mm, addr, len)) return PM_EFAULT;
  if (vma_protect(mm, addr, addr + len, prot)) return PM_ENOMEM;
  for (uint64_t a = addr; a < addr + len; a += GUEST_PAGE_SIZE) {
    struct guest_page *p = slot(mm, a, false);
    p->prot = (uint8_t)(prot | 0x80);
    tlb_drop(mm, a);
  }
  mm->map_gen = phys_generation(mm->phys);
  return 0;
}

uint64_t mm_resident(struct guest_mm *mm, uint64_t start, uint64_t end)
{
  uint64_t n = 0;
  const uint64_t block = (uint64_t)L3_SIZE << GUEST_PAGE_SHIFT;
  for (uint64_t a = start & ~GUEST_PAGE_MASK; a < end && a < GUEST_TASK_SIZE;) {
    uint64_t vpn = a >> GUEST_PAGE_SHIFT;
    struct guest_page **l2 = mm->dir[vpn >> (L2_BITS + L3_BITS)];
    struct guest_page *l3 = l2 ? l2[(vpn >> L3_BITS) & (L2_SIZE - 1)] : NULL;
    if (!l3) { a = (a | (block - 1)) + 1; continue; }   /* a whole unpopulated leaf table */
    const struct guest_page *p = &l3[vpn & (L3_SIZE - 1)];
    if (p->prot && p->host) n++;
    a += GUEST_PAGE_SIZE;
  }
  return n;
}

bool mm_is_mapped(struct guest_mm *mm, uint64_t addr, uint64_t len)
{
  for (uint64_t a = addr & ~GUEST_PAGE_MASK; a < addr + len; a += GUEST_PAGE_SIZE)
    if (!mm_page(mm, a)) return false;
  return true;
}

uint64_t mm_find_free(struct guest_mm *mm, uint64_t from, uint64_t limit, uint64_t len)
{
  uint64_t a = (from + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK, run = a;
  const uint64_t block = (uint64_t)L3_SIZE << GUEST_PAGE_SHIFT;
  if (len == 0) return 0;
  if (limit > GUEST_TASK_SIZE) limit = GUEST_TASK_SIZE;
  while (run + len <= limit && run + len > run) {
    if (a - run >= len) return run;
    uint64_t vpn = a >> GUEST_PAGE_SHIFT;
    struct guest_page **l2 = mm->dir[vpn >> (L2_BITS + L3_BITS)];
    if (!l2 || !l2[(vpn >> L3_BITS) & (L2_SIZE - 1)]) {
      a = (a | (block - 1)) + 1;        /* a whole unpopulated leaf table */
      continue;
    }
    a += GUEST_PAGE_SIZE;
    if (mm_page(mm, a - GUEST_PAGE_SIZE)) run = a;
  }
  return 0;
}

uint8_t *mm_host(struct guest_mm *mm, uint64_t addr, int prot)
{
  struct guest_page *p = mm_page(mm, addr);
  if (!p || (p->prot & prot) != prot) return NULL;
  if (!p->host) {
    if (!(p->host = frame_new(mm))) return NULL;
    mm->pages_touched++;
    rss_add(mm);
    vma_touch(mm, addr);
  }
  uint64_t page = addr & ~GUEST_PAGE_MASK;
  unsigned i = mm_tlb_index(addr);
  uintptr_t addend = (uintptr_t)p->host - (uintptr_t)page;
  if (p->prot & GUEST_PROT_READ) mm->tlb_r[i] = (struct guest_tlb_entry){ page, addend };
  if ((p->prot & GUEST_PROT_WRITE) && !p->code)
    mm->tlb_w[i] = (struct guest_tlb_entry){ page, addend };
  /* Tags are page addresses (a misaligned access misses); a page with
   * predecoded code has no write entry (its stores take this slow path). */
  PM_ASSERT((page & GUEST_PAGE_MASK) == 0 && (!p->code || mm->tlb_w[i].tag != page));
  return p->host + (addr & GUEST_PAGE_MASK);
}

uint64_t mm_phys(struct guest_mm *mm, uint64_t addr, int prot, bool alloc, bool *fault)
{
  const uint8_t *h = mm_tlb_lookup(mm->tlb_r, addr, 1);
  if (h && (uint64_t)(h - mm->ram) < mm->ram_bytes) return (uint64_t)(h - mm->ram);
  struct guest_page *p = mm_page(mm, addr);
  if (p && !p->host && alloc && (p->prot & prot) == prot && mm_host(mm, addr, prot)) *fault = true;
  if (!p || !p->host) return addr | MM_PA_UNBACKED;
  if (p->ext) return p->ext->pa + (uint64_t)(p->host - (uint8_t *)p->ext->base) + (addr & GUEST_PAGE_MASK);
  return (uint64_t)(p->host - mm->ram) + (addr & GUEST_PAGE_MASK);
}

void mm_code_written(struct guest_mm *mm, uint64_t addr)
{
  struct guest_page *p = mm_page(mm, addr);
  if (p && p->code && mm->code_reset) mm->code_reset(p->code);
}

void mm_code_flush(struct guest_mm *mm)
{
  for (unsigned i = 0; i < L1_SIZE; i++) {
    if (!mm->dir[i]) continue;
    for (unsigned j = 0; j < L2_SIZE; j++) {
      struct guest_page *l3 = mm->dir[i][j];
      if (!l3) continue;
      for (unsigned k = 0; k < L3_SIZE; k++)
        if (l3[k].code && mm->code_reset) mm->code_reset(l3[k].code);
    }
  }
}

void mm_code_attach(struct guest_mm *mm, uint64_t addr, struct guest_code *code)
{
  struct guest_page *p = mm_page(mm, addr);
  if (!p) return;
  p->code = code;
  unsigned i = mm_tlb_index(addr);
  if (mm->tlb_w[i].tag == (addr & ~GUEST_PAGE_MASK)) mm->tlb_w[i].tag = ~(uint64_t)0;
  PM_ASSERT(mm->tlb_w[i].tag != (addr & ~GUEST_PAGE_MASK));
}

/* Copies n bytes in either direction, page by page. */
static int copy(struct guest_mm *mm, uint64_t addr, void *buf, size_t n, bool check, bool to_guest)
{
  uint8_t *b = buf;
  while (n) {
    size_t chunk = GUEST_PAGE_SIZE - (addr & GUEST_PAGE_MASK);
    if (chunk > n) chunk = n;
    int prot = check ? (to_guest ? GUEST_PROT_WRITE : GUEST_PROT_READ) : 0;
    uint8_t *h = mm_host(mm, addr, prot);
    if (!h) return PM_EFAULT;
    if (to_guest) {
      memcpy(h, b, chunk);
      mm_code_written(mm, addr);
    } else {
      memcpy(b, h, chunk);
    }
    addr += chunk; b += chunk; n -= chunk;
  }
  return 0;
}

int mm_read(struct guest_mm *mm, uint64_t addr, void *buf, size_t n, bool check)
{
  return copy(mm, addr, buf, n, check, false);
}

int mm_write(struct guest_mm *mm, uint64_t addr, const void *buf, size_t n, bool check)
{
  return copy(mm, addr, (void *)buf, n, check, true);
}

long mm_read_str(struct guest_mm *mm, uint64_t addr, char *buf, size_t max)
{
  for (size_t i = 0; i < max; i++) {
    uint8_t *h = mm_host(mm, addr + i, GUEST_PROT_READ);
    if (!h) return PM_EFAULT;
    buf[i] = (char)*h;
    if (!*h) return (long)i;
  }
  return PM_EINVAL;
}

/* Whether unmapping or changing [addr, addr+len) would split a mapping that
 * may not be split: a perf buffer (Linux's perf_mmap_may_split refuses any
 * split, so the ring and its user page stay whole). */
bool mm_would_split(struct guest_mm *mm, uint64_t addr, uint64_t len)
{
  struct guest_page *in = mm_page(mm, addr), *last = mm_page(mm, addr + len - GUEST_PAGE_SIZE);
  struct guest_page *before = addr ? mm_page(mm, addr - GUEST_PAGE_SIZE) : NULL;
  struct guest_page *after = mm_page(mm, addr + len);
  if (in && in->ext && in->ext->nosplit && before && before->ext == in->ext) return true;
  if (last && last->ext && last->ext->nosplit && after && after->ext == last->ext) return true;
  return false;
}
