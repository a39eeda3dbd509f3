/* Simulated physical memory; see phys.h. One bit per frame (1 = allocated);
 * the direct map is one shared mapping of the whole memfd, and a consumer's
 * view maps each frame at its place with MAP_FIXED over a reserved range, so
 * both see the same bytes. */
#include "guest/phys.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct physmem {
  int fd;
  uint8_t *direct;
  uint64_t nframes, used;
  uint64_t *bitmap;
  uint64_t scatter;          /* xorshift state; 0: lowest free frame first */
};

struct physmem *phys_create(uint64_t bytes)
{
  long host_page = sysconf(_SC_PAGESIZE);
  if (!bytes || bytes % PHYS_PAGE || host_page <= 0 || PHYS_PAGE % (uint64_t)host_page) {
    errno = EINVAL;
    return NULL;
  }
  struct physmem *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->fd = -1;
  p->nframes = bytes / PHYS_PAGE;
  p->bitmap = calloc((p->nframes + 63) / 64, sizeof *p->bitmap);
  p->fd = memfd_create("profileme-ram", MFD_CLOEXEC);
  if (!p->bitmap || p->fd < 0 || ftruncate(p->fd, (off_t)bytes) != 0) goto fail;
  p->direct = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
  if (p->direct == MAP_FAILED) { p->direct = NULL; goto fail; }
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
  free(p);
}

static bool used(const struct physmem *p, uint64_t f) { return p->bitmap[f / 64] >> (f % 64) & 1; }
static void mark(struct physmem *p, uint64_t f, bool on)
{
  if (on) p->bitmap[f / 64] |= 1ull << (f % 64);
  else p->bitmap[f / 64] &= ~(1ull << (f % 64));
}

static uint64_t next_rand(struct physmem *p)
{
  p->scatter ^= p->scatter << 13;
  p->scatter ^= p->scatter >> 7;
  p->scatter ^= p->scatter << 17;
  return p->scatter;
}

int phys_alloc(struct physmem *p, size_t n, bool contig, uint64_t *pfns)
{
  if (n > p->nframes - p->used) return -ENOMEM;
  if (contig) {
    for (uint64_t start = 0, run = 0, f = 0; f < p->nframes; f++) {
      if (used(p, f)) { run = 0; start = f + 1; continue; }
      if (++run == n) {
        for (size_t i = 0; i < n; i++) { pfns[i] = start + i; mark(p, start + i, true); }
        p->used += n;
        return 0;
      }
    }
    return -ENOMEM;
  }
  size_t got = 0;
  if (p->scatter) {
    /* Random probes first; the lowest free frames fill what they miss. */
    for (size_t tries = 0; got < n && tries < 4 * n; tries++) {
      uint64_t f = next_rand(p) % p->nframes;
      if (!used(p, f)) { mark(p, f, true); pfns[got++] = f; }
    }
  }
  for (uint64_t f = 0; got < n && f < p->nframes; f++)
    if (!used(p, f)) { mark(p, f, true); pfns[got++] = f; }
  p->used += got;
  return 0;
}

void phys_free(struct physmem *p, size_t n, const uint64_t *pfns)
{
  for (size_t i = 0; i < n; i++)
    if (pfns[i] < p->nframes && used(p, pfns[i])) {
      mark(p, pfns[i], false);
      p->used--;
    }
}

uint64_t phys_free_frames(const struct physmem *p) { return p->nframes - p->used; }

uint8_t *phys_frame(struct physmem *p, uint64_t pfn) { return p->direct + pfn * PHYS_PAGE; }

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
