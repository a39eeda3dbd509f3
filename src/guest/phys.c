/* Simulated physical memory; see phys.h. The buddy allocator keeps, as Linux
 * does in struct page, per frame: whether it is allocated (a bitmap), and for
 * the first frame of a free block the block's order and its links in the
 * free list of that order. The direct map is one shared mapping of the whole
 * memfd, and a consumer's view maps each frame at its place with MAP_FIXED
 * over a reserved range, so both see the same bytes. */
#include "guest/phys.h"
#include "util/assert.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NIL UINT32_MAX
#define NOT_HEAD 0xffu

struct free_area {
  uint32_t head, tail;
  uint64_t nr_free;
};

struct physmem {
  int fd;
  uint8_t *direct;
  uint64_t nframes, used;
  uint64_t *bitmap;          /* 1 = allocated */
  uint8_t *order;            /* order of the free block starting here, or NOT_HEAD */
  uint32_t *next, *prev;     /* free-list links of block heads */
  uint32_t *refs;            /* references to an allocated frame */
  uint64_t window;           /* next free address of phys_window, above the RAM */
  struct free_area area[PHYS_MAX_ORDER];
  uint64_t scatter;          /* xorshift state; 0: the free lists' order */
  uint64_t generation;       /* last value of phys_generation */
};

static bool used(const struct physmem *p, uint64_t f) { return p->bitmap[f / 64] >> (f % 64) & 1; }
static void mark(struct physmem *p, uint64_t f, bool on)
{
  if (on) p->bitmap[f / 64] |= 1ull << (f % 64);
  else p->bitmap[f / 64] &= ~(1ull << (f % 64));
}

/* For the checks: every frame is either allocated (counted in used) or in
 * exactly one free block, so the free lists and used add up to the RAM. */
static bool frames_add_up(const struct physmem *p)
{
  uint64_t n = p->used;
  for (unsigned o = 0; o < PHYS_MAX_ORDER; o++) n += p->area[o].nr_free << o;
  return n == p->nframes;
}

static void add_to_free_list(struct physmem *p, uint64_t f, unsigned o, bool tail)
{
  /* A block of order o: 2^o free frames aligned to 2^o, inside the RAM, not
   * on a list yet. */
  PM_ASSERT(o < PHYS_MAX_ORDER && !(f & ((1ull << o) - 1)) && f + (1ull << o) <= p->nframes &&
            p->order[f] == NOT_HEAD && !used(p, f) && !used(p, f + (1ull << o) - 1));
  struct free_area *a = &p->area[o];
  uint32_t x = (uint32_t)f;
  p->order[f] = (uint8_t)o;
  if (a->head == NIL) {
    p->next[f] = p->prev[f] = NIL;
    a->head = a->tail = x;
  } else if (tail) {
    p->prev[f] = a->tail;
    p->next[f] = NIL;
    p->next[a->tail] = x;
    a->tail = x;
  } else {
    p->next[f] = a->head;
    p->prev[f] = NIL;
    p->prev[a->head] = x;
    a->head = x;
  }
  a->nr_free++;
}

static void del_from_free_list(struct physmem *p, uint64_t f)
{
  PM_ASSERT(p->order[f] < PHYS_MAX_ORDER && p->area[p->order[f]].nr_free > 0);
  struct free_area *a = &p->area[p->order[f]];
  uint32_t n = p->next[f], pr = p->prev[f];
  if (pr == NIL) a->head = n; else p->next[pr] = n;
  if (n == NIL) a->tail = pr; else p->prev[n] = pr;
  p->order[f] = NOT_HEAD;
  a->nr_free--;
}

static void mark_range(struct physmem *p, uint64_t f, uint64_t n, bool on)
{
  for (uint64_t i = 0; i < n; i++) {
    PM_ASSERT(used(p, f + i) != on && p->order[f + i] == NOT_HEAD);   /* not in a free block */
    mark(p, f + i, on);
    p->refs[f + i] = on;
  }
  if (on) p->used += n; else p->used -= n;
}

/* The halves left over when a block of order `high` is cut down to `low`
 * go to the free lists' heads, the upper half each time (expand). */
static void expand(struct physmem *p, uint64_t f, unsigned low, unsigned high)
{
  while (high > low) {
    high--;
    add_to_free_list(p, f + (1ull << high), high, false);
  }
}

static bool is_buddy(const struct physmem *p, uint64_t b, unsigned o)
{
  return b < p->nframes && p->order[b] == o;
}

/* __free_one_page: merge with the buddy while it is a free block of the same
 * order; the result goes to the list's tail when the next merge up looks
 * likely (buddy_merge_likely), so that it stays free longer. */
static void free_one(struct physmem *p, uint64_t f, unsigned o)
{
  while (o < PHYS_MAX_ORDER - 1) {
    uint64_t b = f ^ (1ull << o);
    if (!is_buddy(p, b, o)) break;
    PM_ASSERT(!used(p, b));   /* a block head with an order is free */
    del_from_free_list(p, b);
    f &= b;
    o++;
  }
  bool tail = false;
  if (o < PHYS_MAX_ORDER - 2) {
    uint64_t higher = f & ~(1ull << o);
    tail = is_buddy(p, higher ^ (1ull << (o + 1)), o + 1);
  }
  add_to_free_list(p, f, o, tail);
}

/* Frees one used frame as an order-0 block (it merges with its buddies). */
static void free_frame(struct physmem *p, uint64_t f)
{
  mark_range(p, f, 1, false);
  free_one(p, f, 0);
}

static int64_t rmqueue_smallest(struct physmem *p, unsigned order)
{
  for (unsigned o = order; o < PHYS_MAX_ORDER; o++) {
    uint32_t f = p->area[o].head;
    if (f == NIL) continue;
    PM_ASSERT(p->order[f] == o && p->area[o].nr_free > 0);
    del_from_free_list(p, f);
    expand(p, f, order, o);
    mark_range(p, f, 1ull << order, true);
    return f;
  }
  return -1;
}

/* Takes one given free frame out of the free block holding it, splitting the
 * block around it (take_page_off_buddy / break_down_buddy_pages). */
static bool take_frame(struct physmem *p, uint64_t f)
{
  if (f >= p->nframes || used(p, f)) return false;
  for (unsigned o = 0; o < PHYS_MAX_ORDER; o++) {
    uint64_t h = f & ~((1ull << o) - 1);
    if (p->order[h] != o) continue;
    del_from_free_list(p, h);
    while (o > 0) {
      o--;
      uint64_t size = 1ull << o;
      if (f >= h + size) { add_to_free_list(p, h, o, false); h += size; }
      else add_to_free_list(p, h + size, o, false);
    }
    mark_range(p, f, 1, true);
    return true;
  }
  PM_ASSERT(!"a free frame is always in a free block");
  return false;   /* not reached */
}

struct physmem *phys_create(uint64_t bytes)
{
  long host_page = sysconf(_SC_PAGESIZE);
  if (!bytes || bytes % PHYS_PAGE || bytes / PHYS_PAGE >= NIL || host_page <= 0 ||
      PHYS_PAGE % (uint64_t)host_page) {
    errno = EINVAL;
    return NULL;
  }
  struct physmem *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->fd = -1;
  p->nframes = bytes / PHYS_PAGE;
  p->bitmap = calloc((p->nframes + 63) / 64, sizeof *p->bitmap);
  p->order = malloc(p->nframes);
  p->next = malloc(p->nframes * sizeof *p->next);
  p->prev = malloc(p->nframes * sizeof *p->prev);
  p->refs = calloc(p->nframes, sizeof *p->refs);
  p->window = bytes;
  if (!p->bitmap || !p->order || !p->next || !p->prev || !p->refs) goto fail;
  p->fd = memfd_create("profileme-ram", MFD_CLOEXEC);
  if (p->fd < 0 || ftruncate(p->fd, (off_t)bytes) != 0) goto fail;
  p->direct = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
  if (p->direct == MAP_FAILED) { p->direct = NULL; goto fail; }
  memset(p->order, NOT_HEAD, p->nframes);
  for (unsigned o = 0; o < PHYS_MAX_ORDER; o++) p->area[o].head = p->area[o].tail = NIL;
  /* The largest aligned blocks that fit, lowest first at the lists' heads. */
  for (uint64_t f = 0; f < p->nframes;) {
    unsigned o = PHYS_MAX_ORDER - 1;
    while (o && (f & ((1ull << o) - 1) || f + (1ull << o) > p->nframes)) o--;
    add_to_free_list(p, f, o, true);
    f += 1ull << o;
  }
  return p;
fail:;
  int err = errno;
  phys_destroy(p);
  errno = err;
  return NULL;
}

void phys_destroy(struct physmem *p)
{
  if (!p) return;
  if (p->direct) munmap(p->direct, p->nframes * PHYS_PAGE);
  if (p->fd >= 0) close(p->fd);
  free(p->bitmap);
  free(p->order);
  free(p->next);
  free(p->prev);
  free(p->refs);
  free(p);
}

int phys_alloc_order(struct physmem *p, unsigned order, uint64_t *pfn)
{
  if (order >= PHYS_MAX_ORDER) return -ENOMEM;
  int64_t f = rmqueue_smallest(p, order);
  PM_ASSERT(frames_add_up(p));
  if (f < 0) return -ENOMEM;
  *pfn = (uint64_t)f;
  return 0;
}

void phys_free_order(struct physmem *p, uint64_t pfn, unsigned order)
{
  if (order >= PHYS_MAX_ORDER || pfn & ((1ull << order) - 1) || pfn >= p->nframes ||
      (1ull << order) > p->nframes - pfn)
    return;
  uint64_t n = 1ull << order, busy = 0;
  for (uint64_t i = 0; i < n; i++) busy += used(p, pfn + i);
  if (busy == n) {
    mark_range(p, pfn, n, false);
    free_one(p, pfn, order);
    return;
  }
  for (uint64_t i = 0; i < n; i++)
    if (used(p, pfn + i)) free_frame(p, pfn + i);
  PM_ASSERT(frames_add_up(p));
}

int phys_max_free_order(const struct physmem *p)
{
  for (int o = PHYS_MAX_ORDER - 1; o >= 0; o--)
    if (p->area[o].nr_free) return o;
  return -1;
}

static uint64_t next_rand(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static unsigned get_order(size_t n)
{
  unsigned o = 0;
  while ((1ull << o) < n) o++;
  return o;
}

int phys_alloc(struct physmem *p, size_t n, bool contig, uint64_t *pfns)
{
  if (n > p->nframes - p->used) return -ENOMEM;
  if (!n) return 0;
  if (contig) {
    /* alloc_pages_exact: the block of the order that holds n, its tail freed. */
    unsigned o = get_order(n);
    uint64_t f;
    if (phys_alloc_order(p, o, &f) != 0) return -ENOMEM;
    for (uint64_t i = n; i < 1ull << o; i++) free_frame(p, f + i);
    for (size_t i = 0; i < n; i++) pfns[i] = f + i;
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    bool got = false;
    for (int tries = 0; p->scatter && !got && tries < 4; tries++) {
      uint64_t f = next_rand(&p->scatter) % p->nframes;
      if ((got = take_frame(p, f))) pfns[i] = f;
    }
    if (!got) {
      int e = phys_alloc_order(p, 0, &pfns[i]);
      PM_ASSERT(e == 0);   /* cannot fail: n frames are free */
    }
  }
  PM_ASSERT(frames_add_up(p));
  return 0;
}

void phys_free(struct physmem *p, size_t n, const uint64_t *pfns)
{
  for (size_t i = 0; i < n; i++)
    if (pfns[i] < p->nframes && used(p, pfns[i])) free_frame(p, pfns[i]);
  PM_ASSERT(frames_add_up(p));
}

void phys_get(struct physmem *p, uint64_t pfn)
{
  if (pfn < p->nframes && used(p, pfn)) p->refs[pfn]++;
}

void phys_put(struct physmem *p, uint64_t pfn)
{
  if (pfn >= p->nframes || !used(p, pfn)) return;
  if (p->refs[pfn] > 1) p->refs[pfn]--;
  else phys_free(p, 1, &pfn);
}

int phys_reserve(struct physmem *p, uint64_t pfn, uint64_t n)
{
  if (pfn > p->nframes || n > p->nframes - pfn) return -EINVAL;
  for (uint64_t i = 0; i < n; i++)
    if (used(p, pfn + i)) return -EBUSY;
  for (uint64_t i = 0; i < n; i++) take_frame(p, pfn + i);
  return 0;
}

uint64_t phys_window(struct physmem *p, uint64_t bytes)
{
  uint64_t at = p->window;
  p->window += (bytes + PHYS_PAGE - 1) / PHYS_PAGE * PHYS_PAGE;
  return at;
}

uint64_t phys_free_frames(const struct physmem *p) { return p->nframes - p->used; }
uint64_t phys_frames(const struct physmem *p) { return p->nframes; }
bool phys_frame_used(const struct physmem *p, uint64_t pfn) { return pfn >= p->nframes || used(p, pfn); }

uint8_t *phys_frame(struct physmem *p, uint64_t pfn) { return p->direct + pfn * PHYS_PAGE; }
uint8_t *phys_base(const struct physmem *p) { return p->direct; }
int phys_fd(const struct physmem *p) { return p->fd; }

void *phys_map(struct physmem *p, size_t n, const uint64_t *pfns)
{
  size_t len = n * PHYS_PAGE;
  uint8_t *base = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return NULL;
  for (size_t i = 0; i < n; i++) {
    void *at = mmap(base + i * PHYS_PAGE, PHYS_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                    p->fd, (off_t)(pfns[i] * PHYS_PAGE));
    if (at == MAP_FAILED) {
      int err = errno;
      munmap(base, len);
      errno = err;
      return NULL;
    }
  }
  return base;
}

void phys_unmap(void *addr, size_t n)
{
  if (addr) munmap(addr, n * PHYS_PAGE);
}

void phys_scatter(struct physmem *p, uint64_t seed) { p->scatter = seed; }

static uint64_t mix(uint64_t x)   /* splitmix64's finaliser */
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Rebuilds the order-0 free list: ascending, or shuffled from `seed`. */
static void reorder_order0(struct physmem *p, uint64_t seed)
{
  struct free_area *a = &p->area[0];
  uint64_t n = a->nr_free, i = 0;
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  if (!v) return;   /* the order stays as it was: still a valid list */
  for (uint32_t f = a->head; f != NIL; f = p->next[f]) v[i++] = f;
  for (i = 0; i < n; i++) del_from_free_list(p, v[i]);
  if (seed) {
    uint64_t s = mix(seed) | 1;
    for (i = n; i > 1; i--) {
      uint64_t j = next_rand(&s) % i;
      uint32_t t = v[i - 1]; v[i - 1] = v[j]; v[j] = t;
    }
  } else {
    qsort(v, n, sizeof *v, cmp_u32);
  }
  for (i = 0; i < n; i++) add_to_free_list(p, v[i], 0, true);
  free(v);
}

int phys_fragment(struct physmem *p, enum phys_frag how, uint64_t seed)
{
  if (how == PHYS_FRAG_NONE) return 0;
  if (how != PHYS_FRAG_EVERY_OTHER && how != PHYS_FRAG_ISLANDS && how != PHYS_FRAG_NO_CONTIG)
    return -EINVAL;
  uint64_t s = mix(seed) | 1, keep = 0;
  for (uint64_t f = 0; f < p->nframes; f++) {
    bool stay;
    if (how == PHYS_FRAG_EVERY_OTHER) {
      stay = f % 2 == 0;
    } else if (how == PHYS_FRAG_ISLANDS) {
      /* Places 1..6 of the group: never next to the neighbouring groups' islands. */
      stay = f % 8 == 1 + mix(seed ^ (f / 8)) % 6;
    } else {
      stay = f == keep;
      if (stay) keep = f + 2 + next_rand(&s) % 3;
    }
    if (!stay) take_frame(p, f);
  }
  reorder_order0(p, how == PHYS_FRAG_NO_CONTIG ? (seed ? seed : 1) : 0);
  return 0;
}

uint64_t phys_generation(struct physmem *p)
{
  return ++p->generation;
}
