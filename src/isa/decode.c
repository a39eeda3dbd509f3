/* Alpha decoder: field extraction plus a first-match search of the instruction
 * table (alpha.def). Decoding happens once per instruction (the executor caches
 * results per code page), so a linear search over one opcode's rows is enough. */
#include "isa/isa.h"

struct row { uint8_t opcode; uint16_t id; uint32_t func, fmask; };

static const struct row rows[] = {
#define X(id, mn, op, fn, fm, fmt, sub, cls) { op, AXP_##id, fn, fm },
#include "isa/alpha.def"
#undef X
};

const struct axp_info axp_info[AXP_NUM_IDS] = {
  [AXP_INVALID] = { "(invalid)", 0, AXP_FMT_NONE, AXP_CLS_NONE, 0 },
#define X(id, mn, op, fn, fm, fmt, sub, cls) \
  [AXP_##id] = { mn, op, AXP_FMT_##fmt, AXP_CLS_##cls, AXP_SUB_##sub },
#include "isa/alpha.def"
#undef X
};

/* Returns the function key the table's func/fmask columns apply to. */
static uint32_t func_key(uint32_t op, uint32_t w)
{
  switch (op) {
  case 0x00: return w & 0x3FFFFFF;
  case 0x10: case 0x11: case 0x12: case 0x13: case 0x1C: return (w >> 5) & 0x7F;
  case 0x14: case 0x15: case 0x16: case 0x17: return (w >> 5) & 0x7FF;
  case 0x18: return w & 0xFFFF;
  case 0x1A: return (w >> 14) & 3;
  default: return 0;
  }
}

struct axp_insn axp_decode(uint32_t w)
{
  struct axp_insn d = { 0 };
  uint32_t op = w >> 26, key = func_key(op, w);
  d.raw = w;
  d.ra = (w >> 21) & 31;
  d.rb = (w >> 16) & 31;
  d.rc = w & 31;
  for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    if (rows[i].opcode == op && (key & rows[i].fmask) == rows[i].func) {
      d.id = rows[i].id;
      break;
    }
  }
  switch (axp_info[d.id].format) {
  case AXP_FMT_PAL:
    d.imm = (int32_t)key;
    break;
  case AXP_FMT_MEM: case AXP_FMT_FMEM: case AXP_FMT_MFC:
    d.imm = axp_sext(w & 0xFFFF, 16);
    if (d.id == AXP_LDAH) d.imm = (int32_t)((uint32_t)d.imm << 16);
    d.fn = (uint16_t)key;
    break;
  case AXP_FMT_BRA: case AXP_FMT_FBRA:
    d.imm = axp_sext(w & 0x1FFFFF, 21) * 4;
    break;
  case AXP_FMT_JMP:
    d.imm = (int32_t)(w & 0x3FFF); /* branch-prediction hint */
    d.fn = (uint16_t)key;
    break;
  case AXP_FMT_OPR:
    if (w & 0x1000) {
      d.flags |= AXP_F_LIT;
      d.imm = (w >> 13) & 0xFF;
    }
    d.fn = (uint16_t)key;
    break;
  case AXP_FMT_FPO: case AXP_FMT_ITOF: case AXP_FMT_FTOI:
    d.fn = (uint16_t)((w >> 5) & 0x7FF);
    break;
  default:
    break;
  }
  return d;
}
