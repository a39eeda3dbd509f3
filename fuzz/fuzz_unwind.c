/* libFuzzer harness for the DWARF unwinder (unwind/unwind.h): the input is a
 * header (below), CFI bytes and a stack dump. The CFI becomes the .eh_frame
 * of DSO "eh" (at eh_vaddr, mapped with bias 0) and the .debug_frame of DSO
 * "df" (mapped at 1 << 62), so both parsers see it; the registers and the
 * stack are walked from the header's pc in either. The unwinder promises
 * to take any bytes: a crash, a sanitizer report, a status out of range or
 * a frame count over the limit is a bug. fuzz/ci.sh makes seeds from the
 * .eh_frame of real Alpha programs. */
#include "unwind/unwind.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct hdr {
  uint32_t cfi_len;        /* bytes of CFI after the header; the rest is the stack */
  uint32_t depth;          /* max_depth (any value: it is capped) */
  uint64_t eh_vaddr;
  uint64_t mask;           /* sampled registers */
  uint64_t pc, sp, r26, r15;
};

#define DF_BASE (1ull << 62)

static bool fuzz_map(void *ctx, uint64_t addr, struct unw_map *m)
{
  (void)ctx;
  if (addr >= DF_BASE && addr < 2 * DF_BASE) *m = (struct unw_map){ "df", DF_BASE, 0 };
  else if (addr < DF_BASE) *m = (struct unw_map){ "eh", 0, 0 };
  else return false;
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct hdr h;
  if (size < sizeof h) return 0;
  memcpy(&h, data, sizeof h);
  data += sizeof h; size -= sizeof h;
  size_t cfi_len = h.cfi_len < size ? h.cfi_len : size;
  /* Copies, so that ASan sees reads past either end. */
  uint8_t *cfi = malloc(cfi_len + 1), *stack = malloc(size - cfi_len + 1);
  /* One unwinder for the whole run, as a tool keeps one: each input replaces
   * the two DSOs, which must empty the row cache of the previous ones. */
  static struct unw *u;
  if (!u) u = unw_create(NULL);
  if (!cfi || !stack || !u) abort();
  memcpy(cfi, data, cfi_len);
  memcpy(stack, data + cfi_len, size - cfi_len);
  if (unw_dso_add(u, "eh", cfi, cfi_len, h.eh_vaddr, NULL, 0, h.eh_vaddr ^ h.r15) != 0 ||
      unw_dso_add(u, "df", NULL, 0, 0, cfi, cfi_len, 0) != 0)
    abort();
  struct unw_regs regs = { .mask = h.mask };
  for (int i = 0; i < UNW_NREGS; i++) regs.r[i] = h.sp + 8u * (unsigned)i;   /* plausible stack pointers */
  regs.r[UNW_REG_PC] = h.pc;
  regs.r[UNW_REG_SP] = h.sp;
  regs.r[26] = h.r26;
  regs.r[15] = h.r15;
  struct unw_stack st = { stack, h.sp, size - cfi_len };
  struct unw_result res;
  for (int pass = 0; pass < 2; pass++) {     /* the second pass reuses the cache */
    unw_unwind(u, &regs, &st, fuzz_map, NULL, h.depth, &res);
    if (res.status >= UNW_NSTATUS || res.n > UNW_MAX_DEPTH || res.n > h.depth ||
        unw_status_str(res.status)[0] == '?')
      abort();
    regs.r[UNW_REG_PC] ^= DF_BASE;            /* then from the other DSO */
  }
  free(cfi);
  free(stack);
  return 0;
}
