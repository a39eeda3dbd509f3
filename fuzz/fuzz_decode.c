/* libFuzzer harness for the decoder and the disassembler: the input is a run of
 * little-endian 32-bit instruction words. Each is decoded (twice: decoding is
 * pure, so both results must match) and disassembled with and without a
 * symbolizer, into a roomy buffer and into short ones that force truncation.
 * A crash, a sanitizer report or a broken invariant is a bug in src/isa. */
#include "isa/disasm.h"
#include "isa/isa.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A symbolizer that knows one symbol per 64 KB, and nothing below 0x10000. */
static const char *sym(void *ctx, uint64_t addr, uint64_t *off)
{
  (void)ctx;
  if (addr < 0x10000) return NULL;
  *off = addr & 0xffff;
  return "fuzz_sym";
}

/* Checks one disassembly call's contract: snprintf-like length, NUL inside. */
static void check_text(int n, const char *buf, size_t len)
{
  if (n <= 0) abort();
  size_t got = strnlen(buf, len);
  if (got == len || got != ((size_t)n < len ? (size_t)n : len - 1)) abort();
}

static void one_word(uint32_t w, uint64_t pc)
{
  struct axp_insn a = axp_decode(w), b = axp_decode(w);
  if (memcmp(&a, &b, sizeof a) != 0) abort();
  if (a.id >= AXP_NUM_IDS || a.raw != w || a.ra > 31 || a.rb > 31 || a.rc > 31) abort();
  if (a.id != AXP_INVALID && axp_info[a.id].opcode != w >> 26) abort();
  char buf[256], small[8];
  check_text(axp_disasm(&a, pc, buf, sizeof buf), buf, sizeof buf);
  check_text(axp_disasm_sym(&a, pc, buf, sizeof buf, sym, NULL), buf, sizeof buf);
  check_text(axp_disasm(&a, pc, small, sizeof small), small, sizeof small);
  for (size_t len = 1; len <= 3; len++)
    check_text(axp_disasm_sym(&a, pc, small, len, sym, NULL), small, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* The first 8 bytes (when there are more than 8) give the PC. */
  uint64_t pc = 0x120000000;
  if (size > 8) {
    memcpy(&pc, data, 8);
    pc &= ~(uint64_t)3;
    data += 8;
    size -= 8;
  }
  for (size_t i = 0; i + 4 <= size; i += 4, pc += 4) {
    uint32_t w = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
                 (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 3] << 24;
    one_word(w, pc);
  }
  return 0;
}
