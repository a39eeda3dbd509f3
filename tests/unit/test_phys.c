/* Simulated physical memory (src/guest/phys.c): the frame allocator's
 * contiguous and scattered allocations, exhaustion, freeing, and that the
 * kernel's direct map and a consumer's contiguous view show the same bytes. */
#include "check.h"
#include "guest/phys.h"
#include <errno.h>
#include <string.h>

int main(void)
{
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
  CHECK(holes[0] == a[0] && holes[3] == a[6], "non-contiguous takes the lowest free frames: the holes");

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
