/* axp_decode(): instruction words to decoded fields, table-driven. The words
 * and their meaning were checked against alpha-linux-gnu-objdump; the tricky
 * rows are the ones where a first-match table can go wrong (cvtst before
 * cvtts, cvtql's qualifiers), sign extension (ldah, branches), the literal
 * operate form, jump hints and the reserved opcodes. */
#include "check.h"
#include "isa/isa.h"

#define FP(op, fa, fb, fn, fc) \
  ((uint32_t)(op) << 26 | (fa) << 21 | (fb) << 16 | (fn) << 5 | (fc))

static const struct vec {
  uint32_t w;
  uint16_t id;
  uint8_t ra, rb, rc, flags;
  uint16_t fn;
  int32_t imm;
  const char *what;
} vecs[] = {
  /* FP conversions: cvtst is 0x2AC/0x6AC, which cvtts' 0x03F mask would also match */
  { FP(0x16, 31, 1, 0x2AC, 2), AXP_CVTST, 31, 1, 2, 0, 0x2AC, 0, "cvtst $f1,$f2" },
  { FP(0x16, 31, 1, 0x6AC, 2), AXP_CVTST, 31, 1, 2, 0, 0x6AC, 0, "cvtst/s $f1,$f2" },
  { FP(0x16, 31, 1, 0x0AC, 2), AXP_CVTTS, 31, 1, 2, 0, 0x0AC, 0, "cvtts $f1,$f2" },
  { FP(0x16, 31, 1, 0x5AC, 2), AXP_CVTTS, 31, 1, 2, 0, 0x5AC, 0, "cvtts/su $f1,$f2" },
  { FP(0x16, 31, 1, 0x52F, 2), AXP_CVTTQ, 31, 1, 2, 0, 0x52F, 0, "cvttq/svc $f1,$f2" },
  { FP(0x16, 31, 1, 0x0BE, 2), AXP_CVTQT, 31, 1, 2, 0, 0x0BE, 0, "cvtqt $f1,$f2" },
  { FP(0x17, 31, 1, 0x030, 2), AXP_CVTQL, 31, 1, 2, 0, 0x030, 0, "cvtql $f1,$f2" },
  { FP(0x17, 31, 1, 0x130, 2), AXP_CVTQL, 31, 1, 2, 0, 0x130, 0, "cvtql/v $f1,$f2" },
  { FP(0x17, 31, 1, 0x530, 2), AXP_CVTQL, 31, 1, 2, 0, 0x530, 0, "cvtql/sv $f1,$f2" },
  { FP(0x17, 31, 1, 0x010, 2), AXP_CVTLQ, 31, 1, 2, 0, 0x010, 0, "cvtlq $f1,$f2" },
  { FP(0x16, 1, 2, 0x7E0, 3), AXP_ADDT, 1, 2, 3, 0, 0x7E0, 0, "addt/suid $f1,$f2,$f3" },
  { FP(0x16, 1, 2, 0x5A3, 3), AXP_DIVT, 1, 2, 3, 0, 0x5A3, 0, "divt/su $f1,$f2,$f3" },
  { FP(0x16, 1, 2, 0x5A6, 3), AXP_CMPTLT, 1, 2, 3, 0, 0x5A6, 0, "cmptlt/su $f1,$f2,$f3" },
  { FP(0x16, 1, 2, 0x580, 3), AXP_ADDS, 1, 2, 3, 0, 0x580, 0, "adds/su $f1,$f2,$f3" },
  { FP(0x17, 1, 1, 0x020, 2), AXP_CPYS, 1, 1, 2, 0, 0x020, 0, "fmov $f1,$f2" },
  { FP(0x17, 3, 3, 0x025, 3), AXP_MF_FPCR, 3, 3, 3, 0, 0x025, 0, "mf_fpcr $f3" },
  { FP(0x17, 1, 2, 0x02A, 3), AXP_FCMOVEQ, 1, 2, 3, 0, 0x02A, 0, "fcmoveq $f1,$f2,$f3" },
  { FP(0x14, 31, 1, 0x5AB, 2), AXP_SQRTT, 31, 1, 2, 0, 0x5AB, 0, "sqrtt/su $f1,$f2" },
  { FP(0x14, 1, 31, 0x024, 2), AXP_ITOFT, 1, 31, 2, 0, 0x024, 0, "itoft t0,$f2" },
  { FP(0x14, 1, 31, 0x004, 2), AXP_ITOFS, 1, 31, 2, 0, 0x004, 0, "itofs t0,$f2" },
  { FP(0x1C, 0, 31, 0x070, 1), AXP_FTOIT, 0, 31, 1, 0, 0x070, 0, "ftoit $f0,t0" },
  { FP(0x1C, 0, 31, 0x078, 1), AXP_FTOIS, 0, 31, 1, 0, 0x078, 0, "ftois $f0,t0" },
  { FP(0x15, 1, 2, 0x080, 3), AXP_ADDF, 1, 2, 3, 0, 0x080, 0, "addf $f1,$f2,$f3 (VAX)" },
  { FP(0x15, 31, 2, 0x5AF, 3), AXP_CVTGQ, 31, 2, 3, 0, 0x5AF, 0, "cvtgq/sv $f2,$f3 (VAX)" },

  /* memory format: ldah scales by 65536 after sign extension */
  { 0x27BBFFFF, AXP_LDAH, 29, 27, 31, 0, 0, -65536, "ldah gp,-1(t12)" },
  { 0x27BB0001, AXP_LDAH, 29, 27, 1, 0, 0, 65536, "ldah gp,1(t12)" },
  { 0x27BB8000, AXP_LDAH, 29, 27, 0, 0, 0, (int32_t)0x80000000, "ldah gp,-32768(t12)" },
  { 0x23DEFFF0, AXP_LDA, 30, 30, 16, 0, 0, -16, "lda sp,-16(sp)" },
  { 0x203F8000, AXP_LDA, 1, 31, 0, 0, 0, -32768, "lda t0,-32768" },
  { 0x2FFE0000, AXP_LDQ_U, 31, 30, 0, 0, 0, 0, "unop" },
  { 0x8C1E0008, AXP_LDT, 0, 30, 8, 0, 0, 8, "ldt $f0,8(sp)" },
  { 0xBC230010, AXP_STQ_C, 1, 3, 16, 0, 0, 16, "stq_c t0,16(t2)" },
  { 0x28850004, AXP_LDBU, 4, 5, 4, 0, 0, 4, "ldbu t3,4(t4)" },

  /* operate format: register and literal forms (rb keeps the raw bits 20:16) */
  { 0x42250409, AXP_ADDQ, 17, 5, 9, 0, 0x20, 0, "addq a1,t4,s0" },
  { 0x44A0F005, AXP_AND, 5, 0, 5, AXP_F_LIT, 0x00, 7, "and t4,0x7,t4" },
  { 0x4241F7A2, AXP_CMPULE, 18, 1, 2, AXP_F_LIT, 0x3D, 15, "cmpule a2,0xf,t1" },
  { 0x4BFFF721, AXP_SLL, 31, 31, 1, AXP_F_LIT, 0x39, 255, "sll zero,0xff,t0" },
  { 0x47FF041F, AXP_BIS, 31, 31, 31, 0, 0x20, 0, "nop" },
  { 0x47E10402, AXP_BIS, 31, 1, 2, 0, 0x20, 0, "mov t0,t1" },
  { 0x43E10522, AXP_SUBQ, 31, 1, 2, 0, 0x29, 0, "negq t0,t1" },
  { 0x47E03D84, AXP_IMPLVER, 31, 0, 4, AXP_F_LIT, 0x6C, 1, "implver t3" },
  { 0x4C220403, AXP_MULQ, 1, 2, 3, 0, 0x20, 0, "mulq t0,t1,t2" },
  { 0x73E20001, AXP_SEXTB, 31, 2, 1, 0, 0x00, 0, "sextb t1,t0" },
  { 0x73E20601, AXP_CTPOP, 31, 2, 1, 0, 0x30, 0, "ctpop t1,t0" },
  { 0x70301783, AXP_MAXUB8, 1, 0x10, 3, AXP_F_LIT, 0x3C, 0x80, "maxub8 t0,0x80,t2" },

  /* jumps: the 14-bit hint stays raw in imm; fn is the 2-bit type */
  { 0x6B5B4000, AXP_JSR, 26, 27, 0, 0, 1, 0, "jsr ra,(t12),hint 0" },
  { 0x6B5B5FFF, AXP_JSR, 26, 27, 31, 0, 1, 0x1FFF, "jsr ra,(t12),hint 0x1fff" },
  { 0x6B5B6000, AXP_JSR, 26, 27, 0, 0, 1, 0x2000, "jsr ra,(t12),hint 0x2000 (backwards)" },
  { 0x6BFA8001, AXP_RET, 31, 26, 1, 0, 2, 1, "ret" },
  { 0x6BE00000, AXP_JMP, 31, 0, 0, 0, 0, 0, "jmp (v0)" },
  { 0x6B7BC000, AXP_JSR_COROUTINE, 27, 27, 0, 0, 3, 0, "jcr t12,(t12),0" },

  /* branches: byte offset from PC+4, sign-extended from 21 bits */
  { 0xC3FFFFFF, AXP_BR, 31, 31, 31, 0, 0, -4, "br .-0 (disp -1)" },
  { 0xD3400003, AXP_BSR, 26, 0, 3, 0, 0, 12, "bsr ra,.+16" },
  { 0xF4300000, AXP_BNE, 1, 16, 0, 0, 0, -0x400000, "bne t0, most negative" },
  { 0xC4200005, AXP_FBEQ, 1, 0, 5, 0, 0, 20, "fbeq $f1,.+24" },

  /* memory-function: the 16-bit field selects the operation */
  { 0x601FC000, AXP_RPCC, 0, 31, 0, 0, 0xC000, (int32_t)0xFFFFC000, "rpcc v0" },
  { 0x63FF4000, AXP_MB, 31, 31, 0, 0, 0x4000, 0x4000, "mb" },
  { 0x63FF0000, AXP_TRAPB, 31, 31, 0, 0, 0x0000, 0, "trapb" },
  { 0x63F0F800, AXP_WH64, 31, 16, 0, 0, 0xF800, (int32_t)0xFFFFF800, "wh64 (a0)" },

  /* PALcode: the 26-bit function */
  { 0x00000083, AXP_CALL_PAL, 0, 0, 3, 0, 0, AXP_PAL_CALLSYS, "callsys" },
  { 0x000000AE, AXP_CALL_PAL, 0, 0, 14, 0, 0, AXP_PAL_CLRFEN, "call_pal 0xae" },
  { 0x03FFFFFF, AXP_CALL_PAL, 31, 31, 31, 0, 0, 0x3FFFFFF, "call_pal 0x3ffffff" },

  /* reserved and PALcode-only opcodes decode as invalid */
  { 0x04000000, AXP_INVALID, 0, 0, 0, 0, 0, 0, "opcode 0x01" },
  { 0x0BFFFFFF, AXP_INVALID, 31, 31, 31, 0, 0, 0, "opcode 0x02" },
  { 0x0C000000, AXP_INVALID, 0, 0, 0, 0, 0, 0, "opcode 0x03" },
  { 0x13E1041F, AXP_INVALID, 31, 1, 31, 0, 0, 0, "opcode 0x04" },
  { 0x14000000, AXP_INVALID, 0, 0, 0, 0, 0, 0, "opcode 0x05" },
  { 0x18000000, AXP_INVALID, 0, 0, 0, 0, 0, 0, "opcode 0x06" },
  { 0x1FFFFFFF, AXP_INVALID, 31, 31, 31, 0, 0, 0, "opcode 0x07" },
  { 0x64000000, AXP_INVALID, 0, 0, 0, 0, 0, 0, "opcode 0x19 (PAL19)" },
  { 0x6C000000, AXP_INVALID, 0, 0, 0, 0, 0, 0, "opcode 0x1B (hw_ld)" },
  { 0x7BFF8000, AXP_INVALID, 31, 31, 0, 0, 0, 0, "opcode 0x1E (hw_rei)" },
  { 0x63FF4001, AXP_INVALID, 31, 31, 1, 0, 0, 0, "0x18 function 0x4001" },
  { 0x44000FE0, AXP_INVALID, 0, 0, 0, 0, 0, 0, "0x11 function 0x7F" },
  { FP(0x17, 1, 2, 0x7FF, 3), AXP_INVALID, 1, 2, 3, 0, 0, 0, "0x17 function 0x7FF" },
};

int main(void)
{
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
    const struct vec *v = &vecs[i];
    struct axp_insn d = axp_decode(v->w);
    CHECK_EQ_U64(d.id, v->id, "decode %08x %s: id (%s)", v->w, v->what, axp_info[d.id].mnemonic);
    CHECK_EQ_U64(d.raw, v->w, "decode %08x %s: raw", v->w, v->what);
    if (v->id == AXP_INVALID)
      continue;
    CHECK(d.ra == v->ra && d.rb == v->rb && d.rc == v->rc,
          "decode %08x %s: registers %u,%u,%u", v->w, v->what, d.ra, d.rb, d.rc);
    CHECK_EQ_U64(d.flags, v->flags, "decode %08x %s: flags", v->w, v->what);
    CHECK_EQ_U64(d.fn, v->fn, "decode %08x %s: fn", v->w, v->what);
    CHECK_EQ_U64((uint32_t)d.imm, (uint32_t)v->imm, "decode %08x %s: imm", v->w, v->what);
  }
  /* Every id the table defines has a mnemonic and a format. */
  int incomplete = 0, first_bad = 0;
  for (int id = AXP_NUM_IDS - 1; id >= 1; id--)
    if (!axp_info[id].mnemonic || axp_info[id].format == AXP_FMT_NONE) {
      incomplete++;
      first_bad = id;
    }
  CHECK(incomplete == 0, "axp_info: %d ids, each with a mnemonic and a format (%d incomplete, first %d)",
        AXP_NUM_IDS - 1, incomplete, first_bad);
  return check_done();
}
