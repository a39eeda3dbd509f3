/* libFuzzer harness for the trace decoder (analysis/itrace.c): the input is a
 * code image and a packet stream. Byte 0 picks the piece size the stream is
 * fed in (1..64) and byte 1 the code size in words (0..255); then come the
 * code words (little-endian, at CODE_BASE, pid 1) and the stream. The
 * decoder promises to take any bytes: it must not crash, read outside the
 * code it was given, loop forever on a huge n, or hand out a block that
 * leaves the code; every error needs a message. */
#include "analysis/itrace.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CODE_BASE 0x120000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct img { const uint8_t *code; size_t nwords; uint64_t insns; };

static size_t read_code(void *ctx, uint32_t pid, uint8_t mode, uint64_t pc, uint32_t *w, size_t max)
{
  struct img *m = ctx;
  (void)mode;
  if (pid != 1 || pc < CODE_BASE || pc % 4 || (pc - CODE_BASE) / 4 >= m->nwords) return 0;
  size_t i = (size_t)((pc - CODE_BASE) / 4), n = 0;
  for (; n < max && i + n < m->nwords; n++) memcpy(&w[n], m->code + 4 * (i + n), 4);
  return n;
}

static int on_block(void *ctx, const struct itrace_block *b)
{
  struct img *m = ctx;
  /* every instruction of a block was read from the image */
  if (b->n && (b->start < CODE_BASE || (b->start - CODE_BASE) / 4 + b->n > m->nwords)) abort();
  m->insns += b->n;
  return 0;
}

static void on_error(void *ctx, const struct itrace_error *e)
{
  (void)ctx;
  if (!e->msg[0]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 2) return 0;
  size_t piece = (size_t)(data[0] % 64) + 1, nwords = data[1];
  data += 2;
  size -= 2;
  if (nwords * 4 > size) nwords = size / 4;
  struct img m = { data, nwords, 0 };
  data += nwords * 4;
  size -= nwords * 4;
  struct itrace_ops ops = { .read_code = read_code, .block = on_block, .error = on_error };
  struct itrace_decoder *d = itrace_decoder_create(&ops, &m);
  if (!d) return 0;
  for (size_t at = 0; at < size; at += piece) {
    itrace_decode(d, data + at, size - at < piece ? size - at : piece);
    if (data[at] == 0xfe) itrace_gap(d, 8);          /* now and then a gap */
  }
  itrace_finish(d);
  const struct itrace_stats *st = itrace_stats(d);
  if (st->insns != m.insns || st->bytes != size) abort();
  itrace_decoder_destroy(d);
  return 0;
}
