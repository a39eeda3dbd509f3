/* The bundled demo workload (`make demo`): builds 1 MB of pseudo-random text
 * from a fixed seed, compresses it with a small LZ77 coder (hash-chain match
 * finder), decompresses and checks the round trip, sorts the words with qsort
 * and hashes everything with CRC-32 and FNV-1a. Deterministic: the printed
 * checksums are the same on every run, under qemu-alpha, profileme or a real
 * Alpha. Exits 1 if the round trip fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_SIZE   (1u << 20)
#define WINDOW      4096
#define MIN_MATCH   4
#define MAX_MATCH   (MIN_MATCH + 255)
#define HASH_BITS   14
#define MAX_CHAIN   16

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

/* Returns the next xorshift64* value. */
static uint64_t rng(void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

static const char *const vocab[] = {
  "alpha", "beta", "cache", "branch", "predictor", "retire", "issue", "queue",
  "register", "window", "sample", "profile", "counter", "interrupt", "pipeline",
  "load", "store", "miss", "hit", "the", "a", "of", "and", "to", "in", "is",
  "instruction", "cycle", "latency", "bandwidth", "memory", "translation",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

/* Fills buf with n bytes of words and punctuation; returns the word count. */
static size_t make_text(char *buf, size_t n)
{
  size_t i = 0, words = 0;
  while (i < n) {
    /* Skewed choice: low indices are more frequent, as in real text. */
    unsigned r = (unsigned)(rng() >> 40);
    const char *w = vocab[(r % NVOCAB) & (r >> 8) % NVOCAB];
    size_t len = strlen(w);
    if (i + len + 1 >= n) break;
    memcpy(buf + i, w, len);
    i += len;
    buf[i++] = (r & 0x1f) == 0 ? '\n' : (r & 0x3f) == 1 ? '.' : ' ';
    words++;
  }
  memset(buf + i, ' ', n - i);
  return words;
}

static uint32_t crc_table[256];

static void crc32_init(void)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

/* Returns the CRC-32 (IEEE) of buf. */
static uint32_t crc32(const void *buf, size_t n)
{
  const uint8_t *p = buf;
  uint32_t c = 0xFFFFFFFFu;
  while (n--) c = crc_table[(c ^ *p++) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

/* Returns the 64-bit FNV-1a hash of buf, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *buf, size_t n)
{
  const uint8_t *p = buf;
  while (n--) { h ^= *p++; h *= 0x100000001B3ull; }
  return h;
}

static uint32_t hash4(const uint8_t *p)
{
  uint32_t v;
  memcpy(&v, p, 4);
  return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* LZ77: a token byte 0 is followed by a literal byte; a token byte L>0 means a
 * match of length L-1+MIN_MATCH at the 16-bit distance that follows. Returns
 * the compressed size; out must hold 2*n bytes. */
static size_t lz_compress(const uint8_t *in, size_t n, uint8_t *out)
{
  static int32_t head[1 << HASH_BITS];
  static int32_t prev[WINDOW];
  size_t o = 0, i = 0;
  memset(head, 0xff, sizeof head);
  while (i < n) {
    size_t best = 0, dist = 0;
    if (i + MIN_MATCH <= n) {
      uint32_t h = hash4(in + i);
      int32_t cand = head[h];
      for (int chain = 0; cand >= 0 && i - (size_t)cand < WINDOW && chain < MAX_CHAIN; chain++) {
        size_t max = n - i < MAX_MATCH ? n - i : MAX_MATCH, len = 0;
        while (len < max && in[cand + len] == in[i + len]) len++;
        if (len > best) { best = len; dist = i - (size_t)cand; }
        cand = prev[cand % WINDOW];
      }
      prev[i % WINDOW] = head[h];
      head[h] = (int32_t)i;
    }
    if (best >= MIN_MATCH) {
      out[o++] = (uint8_t)(best - MIN_MATCH + 1);
      out[o++] = (uint8_t)dist;
      out[o++] = (uint8_t)(dist >> 8);
      for (size_t k = 1; k < best; k++) {   /* keep the chains complete */
        if (i + k + MIN_MATCH <= n) {
          uint32_t h = hash4(in + i + k);
          prev[(i + k) % WINDOW] = head[h];
          head[h] = (int32_t)(i + k);
        }
      }
      i += best;
    } else {
      out[o++] = 0;
      out[o++] = in[i++];
    }
  }
  return o;
}

/* Returns the decompressed size, or 0 if the stream is malformed. */
static size_t lz_decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
  size_t i = 0, o = 0;
  while (i < n) {
    uint8_t t = in[i++];
    if (t == 0) {
      if (i >= n || o >= cap) return 0;
      out[o++] = in[i++];
    } else {
      if (i + 2 > n) return 0;
      size_t len = t - 1u + MIN_MATCH, dist = in[i] | (size_t)in[i + 1] << 8;
      i += 2;
      if (dist == 0 || dist > o || o + len > cap) return 0;
      for (size_t k = 0; k < len; k++, o++) out[o] = out[o - dist];
    }
  }
  return o;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
  char *text = malloc(TEXT_SIZE + 1);
  uint8_t *packed = malloc(2 * TEXT_SIZE), *unpacked = malloc(TEXT_SIZE);
  if (!text || !packed || !unpacked) { perror("malloc"); return 1; }
  crc32_init();

  size_t words = make_text(text, TEXT_SIZE);
  text[TEXT_SIZE] = 0;
  uint32_t crc_text = crc32(text, TEXT_SIZE);

  size_t psize = lz_compress((uint8_t *)text, TEXT_SIZE, packed);
  size_t usize = lz_decompress(packed, psize, unpacked, TEXT_SIZE);
  int ok = usize == TEXT_SIZE && memcmp(unpacked, text, TEXT_SIZE) == 0;

  /* Split into words (in place) and sort them. */
  char **list = malloc(words * sizeof *list);
  if (!list) { perror("malloc"); return 1; }
  size_t nw = 0;
  for (char *tok = strtok(text, " .\n"); tok && nw < words; tok = strtok(NULL, " .\n"))
    list[nw++] = tok;
  qsort(list, nw, sizeof *list, cmp_str);
  uint64_t h = 0xCBF29CE484222325ull;
  size_t distinct = 0;
  for (size_t i = 0; i < nw; i++) {
    h = fnv1a(h, list[i], strlen(list[i]) + 1);
    distinct += i == 0 || strcmp(list[i], list[i - 1]) != 0;
  }

  printf("text:      %u bytes, %zu words, %zu distinct, crc32 %08x\n",
         TEXT_SIZE, nw, distinct, (unsigned)crc_text);
  printf("lz77:      %zu -> %zu bytes (%.1f%%), packed crc32 %08x\n",
         (size_t)TEXT_SIZE, psize, 100.0 * psize / TEXT_SIZE, (unsigned)crc32(packed, psize));
  printf("roundtrip: %s\n", ok ? "ok" : "MISMATCH");
  printf("sorted:    first '%s', last '%s', fnv1a %016llx\n",
         list[0], list[nw - 1], (unsigned long long)h);
  free(list); free(unpacked); free(packed); free(text);
  return ok ? 0 : 1;
}
