/* Alpha disassembler in the dialect of GNU objdump 2.40. The instruction table
 * (alpha.def) says what a word is; this file adds only how objdump shows it:
 *  - the operand layout of each format ("ra,disp(rb)", "ra,rb,rc", ...);
 *  - objdump's pseudo-ops, picked when register fields hold $31 or repeat
 *    (mov, clr, nop, not, negq, sextl, unop, fmov, fabs, fneg, fnop, fclr...);
 *  - FP qualifier suffixes rebuilt from fn11, limited to the combinations
 *    objdump's table lists;
 *  - the operand constraints objdump checks (unary operations need Ra = $31,
 *    mt_fpcr needs Fa = Fb = Fc...). A word failing them, or one the decoder
 *    does not know, prints as ".long 0x...", exactly as objdump prints it.
 * Every rule here was measured by feeding generated words to objdump; see
 * docs/disasm.md for the method and the counts. */
#include "isa/disasm.h"
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* objdump's OSF names: $26 is "ra", $27 "t12" (not "pv"), $28 "at". */
static const char *const ireg[32] = {
  "v0", "t0", "t1", "t2", "t3", "t4", "t5", "t6",
  "t7", "s0", "s1", "s2", "s3", "s4", "s5", "fp",
  "a0", "a1", "a2", "a3", "a4", "a5", "t8", "t9",
  "t10", "t11", "ra", "t12", "at", "gp", "sp", "zero"
};
static const char *const freg[32] = {
  "$f0", "$f1", "$f2", "$f3", "$f4", "$f5", "$f6", "$f7",
  "$f8", "$f9", "$f10", "$f11", "$f12", "$f13", "$f14", "$f15",
  "$f16", "$f17", "$f18", "$f19", "$f20", "$f21", "$f22", "$f23",
  "$f24", "$f25", "$f26", "$f27", "$f28", "$f29", "$f30", "$f31"
};

const char *axp_ireg_name(unsigned r)
{
  return ireg[r & 31];
}

/* An snprintf-style accumulator: pos counts what would have been written. */
struct out {
  char *buf;
  size_t len, pos;
  axp_symbolizer sym;
  void *ctx;
};

static void put(struct out *o, const char *fmt, ...)
{
  va_list ap;
  bool room = o->pos < o->len;
  va_start(ap, fmt);
  int n = vsnprintf(room ? o->buf + o->pos : NULL, room ? o->len - o->pos : 0, fmt, ap);
  va_end(ap);
  if (n > 0)
    o->pos += (size_t)n;
}

/* A code address, as objdump's print_address_func shows it. */
static void put_target(struct out *o, uint64_t addr)
{
  uint64_t off = 0;
  const char *name = o->sym ? o->sym(o->ctx, addr, &off) : NULL;
  if (!name) {
    put(o, "0x%" PRIx64, addr);
    return;
  }
  uint64_t value = addr - off;        /* compared unsigned, as objdump does */
  put(o, "%" PRIx64 " <%s", addr, name);
  if (addr > value)
    put(o, "+0x%" PRIx64, addr - value);
  else if (addr < value)
    put(o, "-0x%" PRIx64, value - addr);
  put(o, ">");
}

/* Returns objdump's name of a PALcode function, or NULL for "call_pal N".
 * clrfen (0xAE) has no name in objdump; draina (0x02) does. */
static const char *pal_name(uint32_t fn)
{
  switch (fn) {
  case AXP_PAL_HALT:    return "halt";
  case 0x02:            return "draina";
  case AXP_PAL_BPT:     return "bpt";
  case AXP_PAL_BUGCHK:  return "bugchk";
  case AXP_PAL_CALLSYS: return "callsys";
  case AXP_PAL_IMB:     return "imb";
  case AXP_PAL_RDUNIQ:  return "rduniq";
  case AXP_PAL_WRUNIQ:  return "wruniq";
  case AXP_PAL_GENTRAP: return "gentrap";
  default:              return NULL;
  }
}

static bool dis_pal(struct out *o, const struct axp_insn *d)
{
  const char *name = pal_name((uint32_t)d->imm);
  if (name)
    put(o, "%s", name);
  else
    put(o, "call_pal\t%#x", (unsigned)d->imm);
  return true;
}

/* Words the decoder rejects. The PALcode-only opcodes still get objdump's
 * generic names ("pal19\t0x..."); everything else is ".long". */
static bool dis_invalid(struct out *o, const struct axp_insn *d)
{
  unsigned op = d->raw >> 26;
  if (op != 0x19 && op != 0x1B && op != 0x1D && op != 0x1E && op != 0x1F)
    return false;
  put(o, "pal%x\t%#x", op, d->raw & 0x3FFFFFF);
  return true;
}

/* Memory format. The displacement is the raw 16-bit field (ldah's too). */
static bool dis_mem(struct out *o, const struct axp_insn *d, const char *mn)
{
  int disp = axp_sext(d->raw & 0xFFFF, 16);
  if (d->id == AXP_LDQ_U && d->ra == 31) {
    put(o, "unop\t");                 /* any base and displacement */
    return true;
  }
  if ((d->id == AXP_LDA || d->id == AXP_LDAH) && d->rb == 31) {
    put(o, "%s\t%s,%d", mn, ireg[d->ra], disp);
    return true;
  }
  const char *ra = axp_info[d->id].format == AXP_FMT_FMEM ? freg[d->ra] : ireg[d->ra];
  put(o, "%s\t%s,%d(%s)", mn, ra, disp, ireg[d->rb]);
  return true;
}

/* 0x18 memory-function format: the function is the whole 16-bit field. */
static bool dis_mfc(struct out *o, const struct axp_insn *d, const char *mn)
{
  switch (d->id) {
  case AXP_TRAPB: case AXP_EXCB: case AXP_MB: case AXP_WMB:
    put(o, "%s", mn);                 /* Ra and Rb are not looked at */
    return true;
  case AXP_RPCC:
    if (d->rb == 31)
      put(o, "%s\t%s", mn, ireg[d->ra]);
    else
      put(o, "%s\t%s,%s", mn, ireg[d->ra], ireg[d->rb]);
    return true;
  case AXP_RC: case AXP_RS:
    put(o, "%s\t%s", mn, ireg[d->ra]);
    return true;
  default:                            /* fetch, fetch_m, ecb, wh64, wh64en */
    if (d->ra != 31)
      return false;
    put(o, "%s\t(%s)", mn, ireg[d->rb]);
    return true;
  }
}

/* 0x1A jumps. jmp/jsr show the hint as the address it predicts; ret/jcr show it
 * as a number. "ret" alone is exactly ret zero,(ra),1. */
static bool dis_jmp(struct out *o, const struct axp_insn *d, uint64_t pc)
{
  uint32_t hint = d->raw & 0x3FFF;
  switch (d->id) {
  case AXP_JMP:
  case AXP_JSR:
    if (d->id == AXP_JMP && d->ra == 31 && hint == 0) {
      put(o, "jmp\t(%s)", ireg[d->rb]);
      return true;
    }
    put(o, "%s\t%s,(%s),", axp_info[d->id].mnemonic, ireg[d->ra], ireg[d->rb]);
    put_target(o, pc + 4 + (uint64_t)(int64_t)(axp_sext(hint, 14) * 4));
    return true;
  case AXP_RET:
    if (d->raw == 0x6BFA8001) {
      put(o, "ret");
      return true;
    }
    put(o, "ret\t%s,(%s),%#x", ireg[d->ra], ireg[d->rb], hint);
    return true;
  default:                            /* jsr_coroutine, under its alias */
    put(o, "jcr\t%s,(%s),%#x", ireg[d->ra], ireg[d->rb], hint);
    return true;
  }
}

static bool dis_bra(struct out *o, const struct axp_insn *d, uint64_t pc, const char *mn)
{
  uint64_t target = pc + 4 + (uint64_t)(int64_t)d->imm;
  if (d->id == AXP_BR && d->ra == 31)
    put(o, "%s\t", mn);
  else if (axp_info[d->id].format == AXP_FMT_FBRA)
    put(o, "%s\t%s,", mn, freg[d->ra]);
  else
    put(o, "%s\t%s,", mn, ireg[d->ra]);
  put_target(o, target);
  return true;
}

/* Returns the pseudo-op objdump prints for an operate instruction whose Ra is
 * $31 (sextl = addl $31, negq = subq $31...), or NULL. */
static const char *opr_za_alias(uint16_t id)
{
  switch (id) {
  case AXP_ADDL:   return "sextl";
  case AXP_SUBL:   return "negl";
  case AXP_SUBQ:   return "negq";
  case AXP_SUBL_V: return "negl/v";
  case AXP_SUBQ_V: return "negq/v";
  case AXP_ORNOT:  return "not";
  case AXP_AMASK:  return "amask";
  default:         return NULL;
  }
}

/* Returns true for the one-source 0x1C operations: register form only, Ra = $31. */
static bool opr_unary(uint16_t id)
{
  switch (id) {
  case AXP_SEXTB: case AXP_SEXTW: case AXP_CTPOP: case AXP_CTLZ: case AXP_CTTZ:
  case AXP_UNPKBW: case AXP_UNPKBL: case AXP_PKWB: case AXP_PKLB:
    return true;
  default:
    return false;
  }
}

/* bis and its pseudo-ops, in objdump's order of preference. */
static bool dis_bis(struct out *o, const struct axp_insn *d, const char *b)
{
  bool lit = d->flags & AXP_F_LIT;
  if (!lit && d->ra == 31 && d->rb == 31 && d->rc == 31)
    put(o, "nop\t");
  else if (!lit && d->ra == 31 && d->rb == 31)
    put(o, "clr\t%s", ireg[d->rc]);
  else if (d->ra == 31)
    put(o, "mov\t%s,%s", b, ireg[d->rc]);
  else if (!lit && d->ra == d->rb)
    put(o, "mov\t%s,%s", ireg[d->ra], ireg[d->rc]);
  else
    put(o, "or\t%s,%s,%s", ireg[d->ra], b, ireg[d->rc]);
  return true;
}

/* Integer operate format (0x10-0x13 and the integer half of 0x1C). The SBZ
 * bits 15:13 of the register form are not looked at. */
static bool dis_opr(struct out *o, const struct axp_insn *d, const char *mn)
{
  bool lit = d->flags & AXP_F_LIT;
  char b[8];
  if (lit)
    snprintf(b, sizeof b, "%#x", (unsigned)d->imm);
  else
    snprintf(b, sizeof b, "%s", ireg[d->rb]);

  if (d->id == AXP_IMPLVER) {         /* only the canonical implver $31,1,rc */
    if ((d->raw & 0xFFFFFFE0u) != 0x47E03D80u)
      return false;
    put(o, "implver\t%s", ireg[d->rc]);
    return true;
  }
  if (opr_unary(d->id)) {
    if (lit || d->ra != 31)
      return false;
    put(o, "%s\t%s,%s", mn, ireg[d->rb], ireg[d->rc]);
    return true;
  }
  if (d->id == AXP_PERR && lit)
    return false;
  if (d->id == AXP_BIS)
    return dis_bis(o, d, b);
  const char *alias = d->ra == 31 ? opr_za_alias(d->id) : NULL;
  if (alias) {
    put(o, "%s\t%s,%s", alias, b, ireg[d->rc]);
    return true;
  }
  if (d->id == AXP_AMASK)             /* amask needs Ra = $31 */
    return false;
  if (d->id == AXP_BIC)
    mn = "andnot";
  put(o, "%s\t%s,%s,%s", mn, ireg[d->ra], b, ireg[d->rc]);
  return true;
}

/* Qualifier grammars of FP operate instructions (Alpha Architecture Handbook
 * 4.7.9), restricted to the spellings objdump's table lists. */
enum qual {
  Q_NONE,      /* 0x17: no qualifier field */
  Q_IEEE,      /* /u /su /sui x /c /m /d */
  Q_IEEE_CMP,  /* cmptxx: none or /su, normal rounding */
  Q_CVTTQ,     /* /v /sv /svi x /c /m /d */
  Q_CVTQX,     /* cvtqs, cvtqt: none or /sui x /c /m /d */
  Q_CVTST,     /* none or /s */
  Q_VAX,       /* /u /s /su x /c */
  Q_VAX_CMP,   /* cmpgxx: none or /s, normal rounding */
  Q_CVTGQ,     /* /v /s /sv x /c */
  Q_CVTQV,     /* cvtqf, cvtqg: none or /c */
  Q_CVTQL      /* none, /v or /sv; fn11<7:6> belong to the function (zero) */
};

static enum qual fp_grammar(uint16_t id)
{
  switch (id) {
  case AXP_CMPTUN: case AXP_CMPTEQ: case AXP_CMPTLT: case AXP_CMPTLE: return Q_IEEE_CMP;
  case AXP_CVTTQ: return Q_CVTTQ;
  case AXP_CVTQS: case AXP_CVTQT: return Q_CVTQX;
  case AXP_CVTST: return Q_CVTST;
  case AXP_CMPGEQ: case AXP_CMPGLT: case AXP_CMPGLE: return Q_VAX_CMP;
  case AXP_CVTGQ: return Q_CVTGQ;
  case AXP_CVTQF: case AXP_CVTQG: return Q_CVTQV;
  case AXP_CVTQL: return Q_CVTQL;
  default: break;
  }
  if (axp_info[id].opcode == 0x17)
    return Q_NONE;
  return (axp_info[id].subset & AXP_SUB_VAX) ? Q_VAX : Q_IEEE;  /* 0x14-0x16 */
}

/* Writes the qualifier suffix ("/suid", or "") of fn11 into q (8 bytes).
 * Returns false for a combination objdump does not know. */
static bool fp_suffix(uint16_t id, unsigned fn, char *q)
{
  static const char *const ieee_rnd[4] = { "c", "m", "", "d" };
  static const char *const ieee_trap[8] = { "", "u", NULL, NULL, NULL, "su", NULL, "sui" };
  static const char *const cvttq_trap[8] = { "", "v", NULL, NULL, NULL, "sv", NULL, "svi" };
  static const char *const vax_rnd[4] = { "c", NULL, "", NULL };
  static const char *const vax_trap[8] = { "", "u", NULL, NULL, "s", "su", NULL, NULL };
  static const char *const cvtgq_trap[8] = { "", "v", NULL, NULL, "s", "sv", NULL, NULL };
  unsigned trap = AXP_FN_TRAP(fn), rnd = AXP_FN_ROUND(fn);
  const char *t = "", *r = "";
  switch (fp_grammar(id)) {
  case Q_NONE:     break;
  case Q_IEEE:     t = ieee_trap[trap]; r = ieee_rnd[rnd]; break;
  case Q_IEEE_CMP: t = trap == 0 ? "" : trap == 5 ? "su" : NULL; r = rnd == 2 ? "" : NULL; break;
  case Q_CVTTQ:    t = cvttq_trap[trap]; r = ieee_rnd[rnd]; break;
  case Q_CVTQX:    t = trap == 0 ? "" : trap == 7 ? "sui" : NULL; r = ieee_rnd[rnd]; break;
  case Q_CVTST:    t = (trap & 4) ? "s" : ""; break;     /* the row admits 0x2AC, 0x6AC */
  case Q_VAX:      t = vax_trap[trap]; r = vax_rnd[rnd]; break;
  case Q_VAX_CMP:  t = trap == 0 ? "" : trap == 4 ? "s" : NULL; r = rnd == 2 ? "" : NULL; break;
  case Q_CVTGQ:    t = cvtgq_trap[trap]; r = vax_rnd[rnd]; break;
  case Q_CVTQV:    t = trap == 0 ? "" : NULL; r = vax_rnd[rnd]; break;
  case Q_CVTQL:    t = trap == 0 ? "" : trap == 1 ? "v" : trap == 5 ? "sv" : NULL; break;
  }
  if (!t || !r)
    return false;
  snprintf(q, 8, "%s%s%s", *t || *r ? "/" : "", t, r);
  return true;
}

/* Returns true for FP operations with one source (Fb); objdump wants Fa = $f31. */
static bool fp_unary(uint16_t id)
{
  switch (id) {
  case AXP_SQRTF: case AXP_SQRTS: case AXP_SQRTG: case AXP_SQRTT:
  case AXP_CVTST: case AXP_CVTTS: case AXP_CVTTQ: case AXP_CVTQS: case AXP_CVTQT:
  case AXP_CVTLQ: case AXP_CVTQL:
  case AXP_CVTDG: case AXP_CVTGF: case AXP_CVTGD: case AXP_CVTGQ: case AXP_CVTQF:
  case AXP_CVTQG:
    return true;
  default:
    return false;
  }
}

/* 0x17 cpys/cpysn/mt_fpcr/mf_fpcr and their pseudo-ops. Returns -1 when the id
 * is not one of them, else whether the word is valid. */
static int dis_fp_copy(struct out *o, const struct axp_insn *d)
{
  const char *fa = freg[d->ra], *fb = freg[d->rb], *fc = freg[d->rc];
  switch (d->id) {
  case AXP_CPYS:
    if (d->ra == 31 && d->rb == 31 && d->rc == 31)
      put(o, "fnop\t");
    else if (d->ra == 31 && d->rb == 31)
      put(o, "fclr\t%s", fc);
    else if (d->ra == 31)
      put(o, "fabs\t%s,%s", fb, fc);
    else if (d->ra == d->rb)
      put(o, "fmov\t%s,%s", fa, fc);
    else
      put(o, "cpys\t%s,%s,%s", fa, fb, fc);
    return 1;
  case AXP_CPYSN:
    if (d->ra == d->rb)
      put(o, "fneg\t%s,%s", fa, fc);
    else
      put(o, "cpysn\t%s,%s,%s", fa, fb, fc);
    return 1;
  case AXP_MT_FPCR: case AXP_MF_FPCR:
    if (d->ra != d->rb || d->ra != d->rc)
      return 0;
    put(o, "%s\t%s", axp_info[d->id].mnemonic, fa);
    return 1;
  default:
    return -1;
  }
}

/* FP operate format (0x14-0x17). */
static bool dis_fpo(struct out *o, const struct axp_insn *d, const char *mn)
{
  char q[8];
  int copy = dis_fp_copy(o, d);
  if (copy >= 0)
    return copy;
  if (!fp_suffix(d->id, d->fn, q))
    return false;
  if (fp_unary(d->id)) {
    if (d->ra != 31)
      return false;
    put(o, "%s%s\t%s,%s", mn, q, freg[d->rb], freg[d->rc]);
    return true;
  }
  /* negs/negt (and VAX negf/negg) = sub $f31,Fb,Fc, for the qualifiers objdump
   * spells that way: none, /su, /sui (VAX: none, /s) with normal rounding. */
  bool vax = axp_info[d->id].subset & AXP_SUB_VAX;
  unsigned trap = AXP_FN_TRAP(d->fn);
  bool neg_q = AXP_FN_ROUND(d->fn) == 2 &&
               (vax ? (trap == 0 || trap == 4) : (trap == 0 || trap == 5 || trap == 7));
  if (d->ra == 31 && neg_q &&
      (d->id == AXP_SUBS || d->id == AXP_SUBT || d->id == AXP_SUBF || d->id == AXP_SUBG)) {
    put(o, "neg%c%s\t%s,%s", mn[3], q, freg[d->rb], freg[d->rc]);
    return true;
  }
  put(o, "%s%s\t%s,%s,%s", mn, q, freg[d->ra], freg[d->rb], freg[d->rc]);
  return true;
}

/* itofs/itoff/itoft Ra,Fc: fn11 exact (no qualifiers), Rb = $31. */
static bool dis_itof(struct out *o, const struct axp_insn *d, const char *mn)
{
  if ((d->fn & 0x7C0) != 0 || d->rb != 31)
    return false;
  put(o, "%s\t%s,%s", mn, ireg[d->ra], freg[d->rc]);
  return true;
}

/* ftoit/ftois Fa,Rc: the full 11-bit function must match, Rb = $31. */
static bool dis_ftoi(struct out *o, const struct axp_insn *d, const char *mn)
{
  if ((d->fn & 0x780) != 0 || d->rb != 31)
    return false;
  put(o, "%s\t%s,%s", mn, freg[d->ra], ireg[d->rc]);
  return true;
}

static int disasm(const struct axp_insn *d, uint64_t pc, struct out *o)
{
  const char *mn = axp_info[d->id].mnemonic;
  bool ok;
  switch (axp_info[d->id].format) {
  case AXP_FMT_PAL:  ok = dis_pal(o, d); break;
  case AXP_FMT_MEM:
  case AXP_FMT_FMEM: ok = dis_mem(o, d, mn); break;
  case AXP_FMT_MFC:  ok = dis_mfc(o, d, mn); break;
  case AXP_FMT_JMP:  ok = dis_jmp(o, d, pc); break;
  case AXP_FMT_BRA:
  case AXP_FMT_FBRA: ok = dis_bra(o, d, pc, mn); break;
  case AXP_FMT_OPR:  ok = dis_opr(o, d, mn); break;
  case AXP_FMT_FPO:  ok = dis_fpo(o, d, mn); break;
  case AXP_FMT_ITOF: ok = dis_itof(o, d, mn); break;
  case AXP_FMT_FTOI: ok = dis_ftoi(o, d, mn); break;
  default:           ok = dis_invalid(o, d); break;
  }
  if (!ok) {
    o->pos = 0;
    put(o, ".long %#08x", d->raw);
  }
  return (int)o->pos;
}

int axp_disasm_sym(const struct axp_insn *d, uint64_t pc, char *buf, size_t len,
                   axp_symbolizer sym, void *ctx)
{
  struct out o = { buf, len, 0, sym, ctx };
  if (len)
    buf[0] = '\0';
  return disasm(d, pc, &o);
}

int axp_disasm(const struct axp_insn *d, uint64_t pc, char *buf, size_t len)
{
  return axp_disasm_sym(d, pc, buf, len, NULL, NULL);
}
