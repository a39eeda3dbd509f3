/* The aggregation table; see hist.h. Entries live in one array (stride: key
 * rounded up to 8 bytes, then the value); an open-addressing index of entry
 * numbers, at most half full, finds them. */
#include "analysis/hist.h"
#include "util/err.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct hist {
  size_t key_size, stride, n, cap;   /* stride: key rounded to 8, then the value */
  unsigned char *data;
  uint32_t *index;                   /* open addressing: entry+1, 0 empty */
  size_t index_cap;
};

struct hist *hist_create(size_t key_size, size_t val_size)
{
  struct hist *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->key_size = key_size;
  h->stride = ((key_size + 7) & ~(size_t)7) + ((val_size + 7) & ~(size_t)7);
  return h;
}

void hist_destroy(struct hist *h)
{
  if (!h) return;
  free(h->data);
  free(h->index);
  free(h);
}

/* Eight bytes at a time (call-graph keys are 40 bytes, hashed once per
 * frame per entry: bytewise FNV was a sixth of report -g's time). */
static uint64_t hash_bytes(const void *p, size_t n)
{
  const unsigned char *b = p;
  uint64_t x = 14695981039346656037ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    x = (x ^ w) * 0x9e3779b97f4a7c15ull;
    x ^= x >> 32;
  }
  for (; i < n; i++) x = (x ^ b[i]) * 1099511628211ull;
  x *= 0xff51afd7ed558ccdull;
  return x ^ (x >> 33);
}

static int hist_grow_index(struct hist *h)
{
  size_t cap = h->index_cap ? h->index_cap * 2 : 256;
  uint32_t *ix = calloc(cap, sizeof *ix);
  if (!ix) return PM_ENOMEM;
  for (size_t i = 0; i < h->n; i++) {
    size_t j = hash_bytes(h->data + i * h->stride, h->key_size) & (cap - 1);
    while (ix[j]) j = (j + 1) & (cap - 1);
    ix[j] = (uint32_t)(i + 1);
  }
  free(h->index);
  h->index = ix;
  h->index_cap = cap;
  return 0;
}

/* The index slot of key: its entry's, or the empty one where it would go. */
static size_t hist_slot(const struct hist *h, const void *key)
{
  size_t j = hash_bytes(key, h->key_size) & (h->index_cap - 1);
  while (h->index[j] && memcmp(h->data + (h->index[j] - 1) * h->stride, key, h->key_size))
    j = (j + 1) & (h->index_cap - 1);
  return j;
}

void *hist_find(const struct hist *h, const void *key)
{
  if (!h->index_cap) return NULL;
  size_t j = hist_slot(h, key);
  return h->index[j] ? h->data + (h->index[j] - 1) * h->stride + ((h->key_size + 7) & ~(size_t)7) : NULL;
}

void *hist_get(struct hist *h, const void *key)
{
  if ((h->n + 1) * 2 > h->index_cap && hist_grow_index(h)) return NULL;
  size_t j = hist_slot(h, key);
  if (h->index[j]) return h->data + (h->index[j] - 1) * h->stride + ((h->key_size + 7) & ~(size_t)7);
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 64;
    unsigned char *d = realloc(h->data, cap * h->stride);
    if (!d) return NULL;
    h->data = d;
    h->cap = cap;
  }
  unsigned char *e = h->data + h->n * h->stride;
  memset(e, 0, h->stride);
  memcpy(e, key, h->key_size);
  h->index[j] = (uint32_t)(++h->n);
  return e + ((h->key_size + 7) & ~(size_t)7);
}

size_t hist_count(const struct hist *h) { return h->n; }
const void *hist_key(const struct hist *h, size_t i) { return h->data + i * h->stride; }
void *hist_val(const struct hist *h, size_t i) { return h->data + i * h->stride + ((h->key_size + 7) & ~(size_t)7); }
