/* Simulated physical memory (src/guest/phys.c): the frame allocator's
 * contiguous and scattered allocations, exhaustion, freeing, and that the
 * kernel's direct map and a consumer's contiguous view show the same bytes. */
#include "check.h"
#include "guest/phys.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The oracle: a brute-force model of which frames are free, kept by the test
 * from what it allocated and freed, independent of the allocator's lists. */
struct model {
  uint64_t n;
  unsigned char *free;
};

static int model_max_order(const struct model *m)
{
  int best = -1;
  for (unsigned o = 0; o < PHYS_MAX_ORDER; o++)
    for (uint64_t f = 0; f + (1ull << o) <= m->n; f += 1ull << o) {
      uint64_t i = 0;
      while (i < 1ull << o && m->free[f + i]) i++;
      if (i == 1ull << o) { best = (int)o; break; }
    }
  return best;
}

static uint64_t model_free(const struct model *m)
{
  uint64_t k = 0;
  for (uint64_t f = 0; f < m->n; f++) k += m->free[f];
  return k;
}

/* The allocator and the model agree frame by frame, in the free count, and
 * in the largest free order: a buddy allocator merges eagerly, so its largest
 * block is the largest aligned all-free block of the model. */
static int agrees(const struct physmem *p, const struct model *m)
{
  for (uint64_t f = 0; f < m->n; f++)
    if (phys_frame_used(p, f) == m->free[f]) return 0;
  return phys_free_frames(p) == model_free(m) && phys_max_free_order(p) == model_max_order(m);
}

static uint64_t rnd(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Linux's order of handing out blocks on a fresh RAM, checked by hand:
 * the smallest order first, split from the lowest block. */
static void test_buddy_order(void)
{
  struct physmem *p = phys_create(64ull * PHYS_PAGE);
  if (!p) { CHECK(0, "64 frames"); return; }
  CHECK_EQ_U64(phys_max_free_order(p), 6 < PHYS_MAX_ORDER ? 6 : PHYS_MAX_ORDER - 1, "64 frames: one order-6 block");
  uint64_t f[4];
  CHECK(phys_alloc_order(p, 0, &f[0]) == 0 && phys_alloc_order(p, 0, &f[1]) == 0 &&
        phys_alloc_order(p, 1, &f[2]) == 0 && phys_alloc_order(p, 2, &f[3]) == 0, "four blocks");
  CHECK(f[0] == 0 && f[1] == 1 && f[2] == 2 && f[3] == 4, "split from the lowest block: 0 1 2 4 (%llu %llu %llu %llu)",
        (unsigned long long)f[0], (unsigned long long)f[1], (unsigned long long)f[2], (unsigned long long)f[3]);
  CHECK_EQ_U64(phys_max_free_order(p), 5, "the upper half stays whole");
  uint64_t g;
  CHECK_EQ_U64(phys_alloc_order(p, 6, &g), (uint64_t)-ENOMEM, "order 6 no longer fits");
  CHECK_EQ_U64(phys_alloc_order(p, PHYS_MAX_ORDER, &g), (uint64_t)-ENOMEM, "order MAX_ORDER never exists");
  phys_free_order(p, f[2], 1);
  phys_free_order(p, f[0], 0);
  phys_free_order(p, f[3], 2);
  CHECK_EQ_U64(phys_max_free_order(p), 5, "frame 1 still holds the low half apart");
  phys_free_order(p, f[1], 0);
  CHECK_EQ_U64(phys_max_free_order(p), 6, "its free coalesces everything back into one order-6 block");
  phys_free_order(p, f[1], 0);
  CHECK_EQ_U64(phys_free_frames(p), 64, "freeing twice is harmless");

  uint64_t c[5];
  CHECK_EQ_U64(phys_alloc(p, 5, true, c), 0, "5 contiguous frames");
  CHECK(c[0] % 8 == 0 && c[4] == c[0] + 4, "from an order-3 block (first %llu)", (unsigned long long)c[0]);
  CHECK_EQ_U64(phys_free_frames(p), 59, "its 3 tail frames given back (alloc_pages_exact)");
  phys_free(p, 5, c);
  CHECK_EQ_U64(phys_max_free_order(p), 6, "and all merge again");
  phys_destroy(p);
}

/* Random allocations and frees of all orders against the model. */
static void test_buddy_random(void)
{
  enum { FRAMES = 3000, OPS = 4000 };   /* not a power of two: a tail of small blocks */
  struct physmem *p = phys_create((uint64_t)FRAMES * PHYS_PAGE);
  struct model m = { FRAMES, malloc(FRAMES) };
  if (!p || !m.free) { CHECK(0, "3000 frames"); return; }
  memset(m.free, 1, FRAMES);
  CHECK(agrees(p, &m), "fresh: all free, largest order %d", phys_max_free_order(p));
  struct { uint64_t pfn; unsigned order; } held[OPS];
  unsigned nheld = 0, bad_block = 0, bad_answer = 0, disagree = 0, fails = 0;
  uint64_t s = 12345;
  for (int op = 0; op < OPS; op++) {
    if (nheld && rnd(&s) % 100 < 45) {
      unsigned i = (unsigned)(rnd(&s) % nheld);
      phys_free_order(p, held[i].pfn, held[i].order);
      for (uint64_t k = 0; k < 1ull << held[i].order; k++) m.free[held[i].pfn + k] = 1;
      held[i] = held[--nheld];
    } else {
      unsigned o = (unsigned)(rnd(&s) % 100 < 60 ? 0 : rnd(&s) % (PHYS_MAX_ORDER + 1));
      int can = o < PHYS_MAX_ORDER && model_max_order(&m) >= (int)o;
      uint64_t pfn = 0;
      int r = phys_alloc_order(p, o, &pfn);
      if ((r == 0) != can || (r != 0 && r != -ENOMEM)) bad_answer++;
      if (r == 0) {
        int ok = pfn % (1ull << o) == 0 && pfn + (1ull << o) <= FRAMES;
        for (uint64_t k = 0; ok && k < 1ull << o; k++) ok = m.free[pfn + k];
        bad_block += !ok;
        if (ok) {
          for (uint64_t k = 0; k < 1ull << o; k++) m.free[pfn + k] = 0;
          held[nheld].pfn = pfn;
          held[nheld++].order = o;
        }
      } else {
        fails++;
      }
    }
    if (op % 50 == 0) disagree += !agrees(p, &m);
  }
  CHECK_EQ_U64(bad_block, 0, "every block was free in the model and aligned to its order");
  CHECK_EQ_U64(bad_answer, 0, "an allocation fails (%u did) exactly when the model has no aligned free block", fails);
  CHECK_EQ_U64(disagree, 0, "frames, free count and largest free order agree with the model");
  while (nheld) { nheld--; phys_free_order(p, held[nheld].pfn, held[nheld].order); }
  memset(m.free, 1, FRAMES);
  CHECK(agrees(p, &m) && phys_max_free_order(p) == PHYS_MAX_ORDER - 1,
        "all freed: coalesced back to order %d blocks", PHYS_MAX_ORDER - 1);
  free(m.free);
  phys_destroy(p);
}

/* The fragmentation patterns, on a RAM some of which is already taken. */
static void test_fragment(enum phys_frag how, const char *name)
{
  enum { FRAMES = 1024 };
  struct physmem *p = phys_create((uint64_t)FRAMES * PHYS_PAGE);
  if (!p) { CHECK(0, "%s: RAM", name); return; }
  uint64_t pre[3];
  phys_alloc_order(p, 4, &pre[0]);
  phys_alloc_order(p, 0, &pre[1]);
  phys_alloc_order(p, 2, &pre[2]);
  unsigned char before[FRAMES];
  for (uint64_t f = 0; f < FRAMES; f++) before[f] = !phys_frame_used(p, f);
  CHECK_EQ_U64(phys_fragment(p, how, 7), 0, "%s: fragmented", name);
  unsigned grew = 0, adjacent = 0, nfree = 0, pattern = 0, longgap = 0;
  uint64_t last = UINT64_MAX;
  for (uint64_t f = 0; f < FRAMES; f++) {
    int fr = !phys_frame_used(p, f);
    nfree += fr;
    grew += fr && !before[f];
    adjacent += fr && f && !phys_frame_used(p, f - 1);
    if (how == PHYS_FRAG_EVERY_OTHER) pattern += fr != (f % 2 == 0 && before[f]);
    if (how == PHYS_FRAG_ISLANDS && f % 8 == 0) {
      unsigned k = 0, all = 1;
      for (uint64_t i = f; i < f + 8; i++) { k += !phys_frame_used(p, i); all &= before[i]; }
      pattern += k > 1 || (all && k != 1) || (fr || !phys_frame_used(p, f + 7));
    }
    if (how == PHYS_FRAG_NO_CONTIG && fr) {
      int wasfree = 1;
      for (uint64_t i = last + 1; last != UINT64_MAX && i < f; i++) wasfree &= before[i];
      longgap += last != UINT64_MAX && wasfree && f - last > 4;
      last = f;
    }
  }
  CHECK_EQ_U64(grew, 0, "%s: no frame became free", name);
  CHECK_EQ_U64(adjacent, 0, "%s: no two free frames adjacent (%u free)", name, nfree);
  CHECK_EQ_U64(phys_max_free_order(p), nfree ? 0 : -1, "%s: only order-0 blocks left", name);
  CHECK_EQ_U64(pattern, 0, "%s: the pattern holds", name);
  CHECK_EQ_U64(longgap, 0, "%s: gaps of 1 to 3 taken frames where all was free", name);
  CHECK(nfree >= (how == PHYS_FRAG_ISLANDS ? FRAMES / 8 - 4 : FRAMES / 4 - 8), "%s: %u frames stay free", name, nfree);
  /* What order-0 allocations get: ascending for the regular patterns,
   * shuffled for NO_CONTIG. */
  uint64_t got[16];
  CHECK_EQ_U64(phys_alloc(p, 16, false, got), 0, "%s: 16 frames", name);
  unsigned up = 0, next = 0;
  for (int i = 1; i < 16; i++) { up += got[i] > got[i - 1]; next += got[i] == got[i - 1] + 1; }
  CHECK_EQ_U64(next, 0, "%s: no two allocations physically consecutive", name);
  if (how == PHYS_FRAG_NO_CONTIG) CHECK(up < 13, "%s: handed out in shuffled order (%u of 15 ascending)", name, up);
  else CHECK_EQ_U64(up, 15, "%s: handed out in ascending order", name);
  phys_destroy(p);
}

int main(void)
{
  test_buddy_order();
  test_buddy_random();
  test_fragment(PHYS_FRAG_EVERY_OTHER, "every-other");
  test_fragment(PHYS_FRAG_ISLANDS, "islands");
  test_fragment(PHYS_FRAG_NO_CONTIG, "no-contig");
  {
    struct physmem *q = phys_create(16ull * PHYS_PAGE);
    CHECK(q && phys_fragment(q, (enum phys_frag)99, 1) == -EINVAL, "an unknown pattern: EINVAL");
    phys_destroy(q);
  }

  CHECK(phys_create(12345) == NULL && errno == EINVAL, "a size that is not whole frames: EINVAL");
  enum { FRAMES = 64 };
  struct physmem *p = phys_create((uint64_t)FRAMES * PHYS_PAGE);
  CHECK(p != NULL, "64 frames");
  if (!p) return check_done();
  CHECK_EQ_U64(phys_free_frames(p), FRAMES, "all free");

  uint64_t a[8], b[4], c[FRAMES];
  CHECK_EQ_U64(phys_alloc(p, 8, true, a), 0, "8 contiguous frames");
  unsigned contig = 1;
  for (int i = 1; i < 8; i++) contig &= a[i] == a[0] + (uint64_t)i;
  CHECK(contig, "contiguous means consecutive frame numbers");

  /* Punch holes: free every other frame of a, then ask for 4 contiguous. */
  for (int i = 0; i < 8; i += 2) phys_free(p, 1, &a[i]);
  CHECK_EQ_U64(phys_free_frames(p), FRAMES - 4, "4 frames freed");
  CHECK_EQ_U64(phys_alloc(p, 4, true, b), 0, "4 contiguous frames past the holes");
  CHECK(b[0] >= a[7] + 1, "they are not in the holes (first %llu)", (unsigned long long)b[0]);
  uint64_t holes[4];
  CHECK_EQ_U64(phys_alloc(p, 4, false, holes), 0, "4 frames, any");
  /* Order-0 allocations take the order-0 list's head: the holes, most
   * recently freed first (Linux's free lists are LIFO). */
  CHECK(holes[0] == a[6] && holes[1] == a[4] && holes[2] == a[2] && holes[3] == a[0],
        "non-contiguous takes the freed holes, last freed first");

  /* Exhaustion. */
  uint64_t left = phys_free_frames(p);
  CHECK_EQ_U64(phys_alloc(p, (size_t)left + 1, false, c), (uint64_t)-ENOMEM, "one frame too many: ENOMEM");
  CHECK_EQ_U64(phys_free_frames(p), left, "a failed allocation takes nothing");

  /* Scattered allocation, and the two views of the same frames. */
  phys_scatter(p, 99);
  uint64_t s[6];
  CHECK_EQ_U64(phys_alloc(p, 6, false, s), 0, "6 scattered frames");
  unsigned neighbours = 0;
  for (int i = 1; i < 6; i++) neighbours += s[i] == s[i - 1] + 1;
  CHECK(neighbours < 3, "scattered: %u of 5 neighbours consecutive", neighbours);
  uint8_t *view = phys_map(p, 6, s);
  CHECK(view != NULL, "mapped contiguously");
  if (view) {
    for (int i = 0; i < 6; i++) memset(phys_frame(p, s[i]), 'a' + i, PHYS_PAGE);
    unsigned ok = 1;
    for (int i = 0; i < 6; i++) ok &= view[i * PHYS_PAGE] == 'a' + i && view[i * PHYS_PAGE + PHYS_PAGE - 1] == 'a' + i;
    CHECK(ok, "bytes written through the direct map appear in the view, frame by frame");
    view[3 * PHYS_PAGE + 5] = 'Z';
    CHECK(phys_frame(p, s[3])[5] == 'Z', "and the other way round");
    phys_unmap(view, 6);
  }
  phys_free(p, 6, s);
  phys_free(p, 6, s);   /* freeing twice is harmless */
  CHECK_EQ_U64(phys_free_frames(p), left, "freed exactly once");
  phys_destroy(p);
  return check_done();
}
