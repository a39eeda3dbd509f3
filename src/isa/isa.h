/* Alpha instruction decoding: a 32-bit word becomes a plain struct axp_insn, with
 * every field pulled out once. Pure and CPU-free, so the executor's predecode
 * cache, the disassembler, the timing model and tests all share it.
 *
 *  31     26 25   21 20   16 15           5 4     0
 * +---------+-------+-------+---------------+-------+
 * | opcode  |  Ra   |  Rb   |  func (7/11)  |  Rc   |   operate (bit 12 = literal:
 * +---------+-------+-------+---------------+-------+            lit8 in 20:13)
 * | opcode  |  Ra   |  Rb   |   displacement (16)   |   memory, memory-function
 * +---------+-------+-------+-----------------------+
 * | opcode  |  Ra   |      displacement (21)        |   branch
 * +---------+-------+-------------------------------+
 * | 0x00    |        PALcode function (26)          |   call_pal
 * +---------+---------------------------------------+
 */
#ifndef AXP_ISA_H
#define AXP_ISA_H
#include <stdbool.h>
#include <stdint.h>

enum axp_id {
  AXP_INVALID = 0,
#define X(id, mn, op, fn, fm, fmt, sub, cls) AXP_##id,
#include "isa/alpha.def"
#undef X
  AXP_NUM_IDS
};

enum axp_format {
  AXP_FMT_NONE, AXP_FMT_PAL, AXP_FMT_MEM, AXP_FMT_FMEM, AXP_FMT_BRA, AXP_FMT_FBRA,
  AXP_FMT_MFC, AXP_FMT_JMP, AXP_FMT_OPR, AXP_FMT_FPO, AXP_FMT_ITOF, AXP_FMT_FTOI
};

/* AMASK bits (Alpha Architecture Handbook 4.11.1); VAX marks decode-only rows. */
enum axp_subset {
  AXP_SUB_BASE = 0, AXP_SUB_BWX = 1, AXP_SUB_FIX = 2, AXP_SUB_CIX = 4,
  AXP_SUB_MVI = 0x100, AXP_SUB_VAX = 0x10000
};

/* 21264 HRM Table 2-2 instruction classes (issue rules and latencies key on them). */
enum axp_class {
  AXP_CLS_NONE, AXP_CLS_PAL, AXP_CLS_LDA, AXP_CLS_ILD, AXP_CLS_IST, AXP_CLS_FLD,
  AXP_CLS_FST, AXP_CLS_IBR, AXP_CLS_FBR, AXP_CLS_JSR, AXP_CLS_MISC, AXP_CLS_RPCC,
  AXP_CLS_IADD, AXP_CLS_ILOG, AXP_CLS_ISHF, AXP_CLS_CMOV, AXP_CLS_IMUL, AXP_CLS_IMISC,
  AXP_CLS_FADD, AXP_CLS_FMUL, AXP_CLS_FDIV, AXP_CLS_FSQRT, AXP_CLS_FCMOV,
  AXP_CLS_MXFPCR, AXP_CLS_ITOF, AXP_CLS_FTOI
};

/* Decoded-instruction flags. */
#define AXP_F_LIT 0x01 /* operate format with an 8-bit literal in place of Rb */

/* User-mode PALcode functions (asm/pal.h). */
#define AXP_PAL_HALT     0x00
#define AXP_PAL_BPT      0x80
#define AXP_PAL_BUGCHK   0x81
#define AXP_PAL_CALLSYS  0x83
#define AXP_PAL_IMB      0x86
#define AXP_PAL_RDUNIQ   0x9E
#define AXP_PAL_WRUNIQ   0x9F
#define AXP_PAL_GENTRAP  0xAA
#define AXP_PAL_CLRFEN   0xAE

struct axp_insn {
  uint16_t id;     /* enum axp_id; AXP_INVALID for a reserved encoding */
  uint8_t ra, rb, rc;
  uint8_t flags;   /* AXP_F_* */
  uint16_t fn;     /* FP: the 11-bit function field with qualifiers; else the key */
  int32_t imm;     /* memory: disp in bytes (ldah already *65536); branch: byte
                      offset from PC+4; operate: literal; PAL: function */
  uint32_t raw;
};

/* Decodes one instruction word. Never fails: unknown words get AXP_INVALID. */
struct axp_insn axp_decode(uint32_t word);

/* Sign-extends the low `bits` bits of v (an instruction field). */
static inline int32_t axp_sext(uint32_t v, int bits)
{
  return (int32_t)(v << (32 - bits)) >> (32 - bits);
}

/* Static facts about an instruction id; index with enum axp_id. */
struct axp_info {
  const char *mnemonic;
  uint8_t opcode;
  uint8_t format;  /* enum axp_format */
  uint8_t cls;     /* enum axp_class */
  uint32_t subset; /* enum axp_subset */
};
extern const struct axp_info axp_info[AXP_NUM_IDS];

/* FP qualifier fields of fn11 (bits 10:8 trap, 7:6 rounding). */
#define AXP_FN_TRAP(fn)  (((fn) >> 8) & 7)
#define AXP_FN_ROUND(fn) (((fn) >> 6) & 3)

#endif
