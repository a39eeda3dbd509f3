/* Alpha IEEE floating point (AAH 4.7, 4.10): results are computed by the host's IEEE
 * arithmetic (SSE on x86-64) in the instruction's rounding mode, then the Alpha rules
 * the host does not share are applied here: NaN selection (Fb first), the canonical
 * NaN, underflow to true zero, DNZ, the S register format, modular cvttq, and the
 * qualifier filtering of status bits. Values travel as "host bits": IEEE single in
 * the low 32 bits for S, IEEE double for T. The host rounding mode is nearest on
 * entry and exit; host exception flags are cleared before each host operation. */
#include "isa/fp.h"
#include "isa/isa.h"

#include <fenv.h>
#include <math.h>
#include <string.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <xmmintrin.h>
#endif

#define T_SIGN  0x8000000000000000ull
#define T_EXP   0x7FF0000000000000ull
#define T_FRAC  0x000FFFFFFFFFFFFFull
#define T_QUIET (1ull << 51)
#define S_SIGN  0x80000000u
#define S_EXP   0x7F800000u
#define S_FRAC  0x007FFFFFu
#define S_QUIET (1u << 22)
#define S_QNAN  0xFFC00000u /* canonical quiet NaN, single */

#define ST_INV AXP_SWCR_STATUS_INV
#define ST_DZE AXP_SWCR_STATUS_DZE
#define ST_OVF AXP_SWCR_STATUS_OVF
#define ST_UNF AXP_SWCR_STATUS_UNF
#define ST_INE AXP_SWCR_STATUS_INE
#define ST_IOV AXP_SWCR_STATUS_IOV

/* What the qualifiers and the FPCR ask of one instruction. */
struct fpq {
  int rm;     /* 0 chopped, 1 -inf, 2 nearest, 3 +inf (FPCR.DYN encoding) */
  bool swc;   /* /S: software completion, IEEE non-trapping results */
  bool unf;   /* /U: underflow reported (and a denormal result allowed with /S) */
  bool dnz;   /* /S and FPCR.DNZ: denormal operands read as signed zero */
  bool undz;  /* /S and FPCR.UNDZ|UNFD: underflowed results become +0 */
};

/* ---- S register format (reference 1.2; Linux traps.c s_mem_to_reg) ---- */

uint64_t axp_fp_lds(uint32_t mem)
{
  uint64_t sign = mem >> 31, exp8 = (mem >> 23) & 0xFF, frac = mem & S_FRAC;
  uint64_t exp11;
  if (exp8 == 0xFF)
    exp11 = 0x7FF;
  else if (exp8 == 0)
    exp11 = 0;
  else if (exp8 & 0x80)
    exp11 = 0x400 | (exp8 & 0x7F);
  else
    exp11 = 0x380 | exp8;
  return sign << 63 | exp11 << 52 | frac << 29;
}

uint32_t axp_fp_sts(uint64_t reg)
{
  return (uint32_t)((reg >> 32) & 0xC0000000u) | (uint32_t)((reg >> 29) & 0x3FFFFFFFu);
}

uint64_t axp_fp_cvtlq(uint64_t fb)
{
  return (uint64_t)(int64_t)(int32_t)axp_fp_sts(fb);
}

uint64_t axp_fp_cvtql(uint64_t fb)
{
  return (fb & 0xC0000000u) << 32 | (fb & 0x3FFFFFFFu) << 29;
}

uint64_t axp_fp_cvtql_v(uint32_t fn11, uint64_t fb, uint32_t *exc)
{
  bool fits = fb + 0x80000000u <= 0xFFFFFFFFu;
  *exc = (!fits && (fn11 & AXP_FPQ_V)) ? ST_IOV : 0;
  return axp_fp_cvtql(fb);
}

/* ---- SWCR <-> FPCR (Linux asm/fpu.h, same formulas) ---- */

uint64_t axp_fp_swcr_to_fpcr(uint64_t sw)
{
  uint64_t fp = (sw & AXP_SWCR_STATUS_MASK) << 35;
  fp |= (sw & AXP_SWCR_MAP_DMZ) << 36;
  fp |= (sw & AXP_SWCR_STATUS_MASK) ? AXP_FPCR_SUM : 0;
  fp |= (~sw & (AXP_SWCR_ENA_INV | AXP_SWCR_ENA_DZE | AXP_SWCR_ENA_OVF)) << 48;
  fp |= (~sw & (AXP_SWCR_ENA_UNF | AXP_SWCR_ENA_INE)) << 57;
  fp |= (sw & AXP_SWCR_MAP_UMZ) ? AXP_FPCR_UNDZ | AXP_FPCR_UNFD : 0;
  fp |= (~sw & AXP_SWCR_ENA_DNO) << 41;
  return fp;
}

uint64_t axp_fp_fpcr_to_swcr(uint64_t fp)
{
  uint64_t sw = (fp >> 35) & AXP_SWCR_STATUS_MASK;
  sw |= (fp >> 36) & AXP_SWCR_MAP_DMZ;
  sw |= (~fp >> 48) & (AXP_SWCR_ENA_INV | AXP_SWCR_ENA_DZE | AXP_SWCR_ENA_OVF);
  sw |= (~fp >> 57) & (AXP_SWCR_ENA_UNF | AXP_SWCR_ENA_INE);
  sw |= (fp >> 47) & AXP_SWCR_MAP_UMZ;
  sw |= (~fp >> 41) & AXP_SWCR_ENA_DNO;
  return sw;
}

/* ---- classification of host bits (s: IEEE single in the low 32 bits) ---- */

static uint64_t sign_bit(bool s) { return s ? S_SIGN : T_SIGN; }
static uint64_t exp_bits(bool s) { return s ? S_EXP : T_EXP; }
static uint64_t frac_bits(bool s) { return s ? S_FRAC : T_FRAC; }

/* Returns true for a NaN (quiet or signalling). */
static bool is_nan(uint64_t v, bool s)
{
  return (v & exp_bits(s)) == exp_bits(s) && (v & frac_bits(s)) != 0;
}

/* Returns true for a signalling NaN: Alpha, like IEEE 754-2008, has the quiet bit set. */
static bool is_snan(uint64_t v, bool s)
{
  return is_nan(v, s) && !(v & (s ? S_QUIET : T_QUIET));
}

/* Returns true for a nonzero denormal. */
static bool is_denorm(uint64_t v, bool s)
{
  return (v & exp_bits(s)) == 0 && (v & frac_bits(s)) != 0;
}

/* Returns true for what a non-/S instruction cannot handle: Inf, NaN or denormal. */
static bool is_nonfinite_or_denorm(uint64_t v, bool s)
{
  return (v & exp_bits(s)) == exp_bits(s) || is_denorm(v, s);
}

/* Returns v with a denormal replaced by the zero of the same sign (DNZ). */
static uint64_t denorm_to_zero(uint64_t v, bool s)
{
  return is_denorm(v, s) ? (v & sign_bit(s)) : v;
}

/* Returns the quiet NaN v (either format) re-expressed in the output format. */
static uint64_t nan_convert(uint64_t v, bool s_in, bool s_out)
{
  if (s_in == s_out)
    return v;
  if (s_out)  /* T -> S keeps the top 23 fraction bits */
    return ((v >> 32) & S_SIGN) | S_EXP | ((v >> 29) & S_FRAC);
  return (v & S_SIGN) << 32 | T_EXP | (v & S_FRAC) << 29;
}

/* ---- host arithmetic ---- */

static double bits_to_d(uint64_t v) { double d; memcpy(&d, &v, sizeof d); return d; }
static uint64_t d_to_bits(double d) { uint64_t v; memcpy(&v, &d, sizeof v); return v; }
static float bits_to_f(uint64_t v)
{
  uint32_t w = (uint32_t)v;
  float f;
  memcpy(&f, &w, sizeof f);
  return f;
}
static uint64_t f_to_bits(float f) { uint32_t w; memcpy(&w, &f, sizeof w); return w; }

/* Returns the host bits of op on host bits a, b. The volatile copies keep the
 * arithmetic between the rounding-mode switch and the flag read (no -frounding-math). */
static uint64_t host_op(enum axp_fpop op, bool s, uint64_t a, uint64_t b)
{
  volatile double vd; volatile float vf;
  volatile uint64_t va = a, vb = b;
  switch (op) {
  case AXP_FP_ADD:
  case AXP_FP_SUB:
  case AXP_FP_MUL:
  case AXP_FP_DIV:
  case AXP_FP_SQRT:
    if (s) {
      float x = bits_to_f(va), y = bits_to_f(vb);
      vf = op == AXP_FP_ADD ? x + y : op == AXP_FP_SUB ? x - y : op == AXP_FP_MUL ? x * y
         : op == AXP_FP_DIV ? x / y : sqrtf(y);
      return f_to_bits(vf);
    } else {
      double x = bits_to_d(va), y = bits_to_d(vb);
      vd = op == AXP_FP_ADD ? x + y : op == AXP_FP_SUB ? x - y : op == AXP_FP_MUL ? x * y
         : op == AXP_FP_DIV ? x / y : sqrt(y);
      return d_to_bits(vd);
    }
  case AXP_FP_CVTTS: vf = (float)bits_to_d(vb); return f_to_bits(vf);
  case AXP_FP_CVTST: vd = (double)bits_to_f(vb); return d_to_bits(vd);
  case AXP_FP_CVTQS: vf = (float)(int64_t)vb; return f_to_bits(vf);
  case AXP_FP_CVTQT: vd = (double)(int64_t)vb; return d_to_bits(vd);
  default: return 0;
  }
}

#if defined(__x86_64__) && defined(__SSE2__)
/* Returns the host bits of op computed in Alpha rounding mode rm; *raw gets the
 * host exceptions as SWCR status bits, with underflow meaning tiny and inexact.
 * On x86-64 float and double arithmetic is SSE's alone, so its control and
 * status register (MXCSR) is all there is to set and read: directly, since
 * glibc's fenv calls also save and reload the x87 environment and cost more
 * than the operation many times over (docs/performance.md). Flags bits 0-5
 * (IE DE ZE OE UE PE; DE is no IEEE flag), rounding bits 13-14. */
static uint64_t host_run(enum axp_fpop op, bool s, int rm, uint64_t a, uint64_t b, uint32_t *raw)
{
  static const unsigned host_rc[4] = { 0x6000, 0x2000, 0x0000, 0x4000 };  /* chop, -inf, nearest, +inf */
  unsigned csr = _mm_getcsr() & ~(0x3Fu | 0x6000u);   /* flags clear, nearest */
  _mm_setcsr(csr | host_rc[rm]);
  uint64_t r = host_op(op, s, a, b);
  unsigned f = _mm_getcsr();
  _mm_setcsr(csr);
  *raw |= (f & 0x01 ? ST_INV : 0) | (f & 0x04 ? ST_DZE : 0)
        | (f & 0x08 ? ST_OVF : 0) | (f & 0x10 ? ST_UNF : 0)
        | (f & 0x20 ? ST_INE : 0);
  return r;
}
#else
/* Returns the host bits of op computed in Alpha rounding mode rm; *raw gets the
 * host exceptions as SWCR status bits, with underflow meaning tiny and inexact. */
static uint64_t host_run(enum axp_fpop op, bool s, int rm, uint64_t a, uint64_t b, uint32_t *raw)
{
  static const int host_rm[4] = { FE_TOWARDZERO, FE_DOWNWARD, FE_TONEAREST, FE_UPWARD };
  if (fetestexcept(FE_ALL_EXCEPT))
    feclearexcept(FE_ALL_EXCEPT);
  if (rm != 2)
    fesetround(host_rm[rm]);
  uint64_t r = host_op(op, s, a, b);
  int f = fetestexcept(FE_ALL_EXCEPT);
  if (rm != 2)
    fesetround(FE_TONEAREST);
  *raw |= (f & FE_INVALID ? ST_INV : 0) | (f & FE_DIVBYZERO ? ST_DZE : 0)
        | (f & FE_OVERFLOW ? ST_OVF : 0) | (f & FE_UNDERFLOW ? ST_UNF : 0)
        | (f & FE_INEXACT ? ST_INE : 0);
  return r;
}
#endif

/* ---- instruction classes ---- */

/* Returns the NaN result of an operation with a NaN operand (AAH 4.7.10.4): Fb if
 * it is a NaN, else Fa, made quiet; INV if either operand is signalling. */
static uint64_t nan_result(uint64_t a, uint64_t b, bool two, bool s, uint32_t *raw)
{
  if (is_snan(b, s) || (two && is_snan(a, s)))
    *raw |= ST_INV;
  uint64_t v = is_nan(b, s) ? b : a;
  return v | (s ? S_QUIET : T_QUIET);
}

/* Add/sub/mul/div/sqrt and the FP-to-FP and int-to-FP conversions, in host bits:
 * operands in format s_in (int64 for cvtq*), result in format s_out. */
static uint64_t arith(const struct fpq *q, enum axp_fpop op, bool s_in, bool s_out,
                      uint64_t a, uint64_t b, uint32_t *raw)
{
  bool two = op <= AXP_FP_DIV, fp_in = op != AXP_FP_CVTQS && op != AXP_FP_CVTQT;
  if (fp_in && !q->swc) {
    if (is_nonfinite_or_denorm(b, s_in) || (two && is_nonfinite_or_denorm(a, s_in)))
      *raw |= ST_INV;
  } else if (fp_in && q->dnz) {
    a = denorm_to_zero(a, s_in);
    b = denorm_to_zero(b, s_in);
  }
  if (fp_in && (is_nan(b, s_in) || (two && is_nan(a, s_in))))
    return nan_convert(nan_result(a, b, two, s_in, raw), s_in, s_out);

  uint32_t host = 0;
  uint64_t r = host_run(op, s_out, q->rm, a, b, &host);
  *raw |= host & ~ST_UNF;
  if (is_nan(r, s_out))  /* invalid operation: 0/0, Inf-Inf, 0*Inf, sqrt(-x) */
    return s_out ? S_QNAN : AXP_FP_QNAN;
  /* AAH 4.7.7.7: a result below the normal range is a true zero unless /SU asks
   * for the IEEE denormal; UNDZ (4.7.7.11) zeroes it too, and that is inexact.
   * UNF itself follows the host (tiny and inexact, tininess before rounding),
   * which is what qemu reports. */
  bool uf = host & ST_UNF;
  bool below = is_denorm(r, s_out) || (uf && (r & ~sign_bit(s_out)) == 0);
  if (below && (!q->unf || !q->swc || q->undz)) {
    r = 0;
    *raw |= ST_UNF | ST_INE;
  } else if (uf) {
    *raw |= ST_UNF;
  }
  return r;
}

/* cmpt{un,eq,lt,le}: 2.0 for true, +0 for false. Quiet NaNs raise INV only for lt/le. */
static uint64_t compare(const struct fpq *q, enum axp_fpop op, uint64_t a, uint64_t b,
                        uint32_t *raw)
{
  if (!q->swc) {
    if (is_nan(a, false) || is_nan(b, false) || is_denorm(a, false) || is_denorm(b, false))
      *raw |= ST_INV;
  } else if (q->dnz) {
    a = denorm_to_zero(a, false);
    b = denorm_to_zero(b, false);
  }
  if (is_nan(a, false) || is_nan(b, false)) {
    if (is_snan(a, false) || is_snan(b, false) || op == AXP_FP_CMPLT || op == AXP_FP_CMPLE)
      *raw |= ST_INV;
    return op == AXP_FP_CMPUN ? AXP_FP_TRUE : 0;
  }
  double x = bits_to_d(a), y = bits_to_d(b);
  bool t = op == AXP_FP_CMPEQ ? x == y : op == AXP_FP_CMPLT ? x < y
         : op == AXP_FP_CMPLE ? x <= y : false;
  return t ? AXP_FP_TRUE : 0;
}

/* cvttq, in integer arithmetic only (no out-of-range double->int cast): the
 * rounded integer modulo 2^64; IOV|INE when it does not fit (AAH 4.7.7.9, as
 * qemu), INV and 0 for Inf and NaN (AAH 4.7.7.4). */
static uint64_t cvttq(const struct fpq *q, uint64_t b, uint32_t *raw)
{
  if (!q->swc && is_nonfinite_or_denorm(b, false))
    *raw |= ST_INV;
  if (q->dnz)
    b = denorm_to_zero(b, false);
  bool neg = b >> 63;
  int exp = (int)((b >> 52) & 0x7FF);
  uint64_t frac = b & T_FRAC, mag, rem;  /* rem: fraction part, binary point at 64 */
  if (exp == 0x7FF) {
    *raw |= ST_INV;
    return 0;
  }
  if (exp == 0) {
    mag = 0;
    rem = frac != 0;  /* a denormal is far below one half */
  } else {
    frac |= 1ull << 52;
    int e = exp - 1075;  /* value = frac * 2^e */
    if (e >= 0) {
      mag = e < 64 ? frac << e : 0;
      rem = 0;
      if (e >= 11 && b != 0xC3E0000000000000ull)  /* |x| >= 2^63, except -2^63 */
        *raw |= ST_IOV | ST_INE;
    } else if (e > -64) {
      mag = frac >> -e;
      rem = frac << (64 + e);
    } else {
      mag = 0;
      rem = 1;
    }
  }
  if (rem) {
    *raw |= ST_INE;
    const uint64_t half = 1ull << 63;
    if (q->rm == 2)
      mag += rem > half || (rem == half && (mag & 1));
    else if (q->rm == 1)
      mag += neg;
    else if (q->rm == 3)
      mag += !neg;
  }
  return neg ? 0 - mag : mag;
}

uint64_t axp_fp_operate(enum axp_fpop op, bool s, uint32_t fn11, uint64_t a, uint64_t b,
                        uint64_t fpcr, uint32_t *exc)
{
  int rm = (int)((fn11 & AXP_FPQ_RND_MASK) >> AXP_FPQ_RND_SHIFT);
  bool swc = fn11 & AXP_FPQ_S;
  struct fpq q = {
    .rm = rm == 3 ? (int)((fpcr & AXP_FPCR_DYN_MASK) >> AXP_FPCR_DYN_SHIFT) : rm,
    .swc = swc,
    .unf = fn11 & AXP_FPQ_U,
    .dnz = swc && (fpcr & AXP_FPCR_DNZ),
    .undz = swc && (fpcr & AXP_FPCR_UNDZ) && (fpcr & AXP_FPCR_UNFD),
  };
  uint32_t raw = 0;
  uint64_t r;
  switch (op) {
  case AXP_FP_ADD: case AXP_FP_SUB: case AXP_FP_MUL: case AXP_FP_DIV: case AXP_FP_SQRT:
    if (s)
      r = axp_fp_lds((uint32_t)arith(&q, op, true, true, axp_fp_sts(a), axp_fp_sts(b), &raw));
    else
      r = arith(&q, op, false, false, a, b, &raw);
    break;
  case AXP_FP_CMPUN: case AXP_FP_CMPEQ: case AXP_FP_CMPLT: case AXP_FP_CMPLE:
    r = compare(&q, op, a, b, &raw);
    break;
  case AXP_FP_CVTTS: case AXP_FP_CVTQS:
    r = axp_fp_lds((uint32_t)arith(&q, op, false, true, 0, b, &raw));
    break;
  case AXP_FP_CVTST: r = arith(&q, op, true, false, 0, axp_fp_sts(b), &raw); break;
  case AXP_FP_CVTQT: r = arith(&q, op, false, false, 0, b, &raw); break;
  case AXP_FP_CVTTQ: r = cvttq(&q, b, &raw); break;
  default: r = 0; break;
  }
  if (!(fn11 & AXP_FPQ_U))  /* /U for arithmetic, /V for cvttq: same bit */
    raw &= ~(ST_UNF | ST_IOV);
  if (!(fn11 & AXP_FPQ_I) || op == AXP_FP_CVTST)
    raw &= ~ST_INE;
  *exc = raw;
  return r;
}

/* ---- what the raised exceptions mean for the program ---- */

int axp_fp_complete(uint32_t fn11, uint32_t exc, uint64_t *fpcr, uint64_t *swcr)
{
  exc &= AXP_SWCR_STATUS_MASK;
  if (!exc)
    return 0;
  *swcr |= exc;
  *fpcr |= (uint64_t)exc << 35 | AXP_FPCR_SUM;  /* SWCR 17..22 -> FPCR 52..57 */
  if (!(fn11 & AXP_FPQ_S))
    return AXP_FPE_FLTINV;  /* hardware trap, no completion: do_entArith's default */
  uint32_t ena = (uint32_t)(*swcr & (AXP_SWCR_ENA_MASK & ~AXP_SWCR_ENA_DNO)) << 16;
  if (*swcr & AXP_SWCR_ENA_INV)
    ena |= ST_IOV;
  uint32_t trap = exc & ena;
  if (!trap)
    return 0;
  if (trap & (ST_INV | ST_IOV)) return AXP_FPE_FLTINV;
  if (trap & ST_DZE) return AXP_FPE_FLTDIV;
  if (trap & ST_OVF) return AXP_FPE_FLTOVF;
  if (trap & ST_UNF) return AXP_FPE_FLTUND;
  return AXP_FPE_FLTRES;
}

bool axp_fp_op_of(unsigned id, enum axp_fpop *op, bool *s)
{
  switch (id) {
  case AXP_ADDS: *op = AXP_FP_ADD; *s = true; return true;
  case AXP_SUBS: *op = AXP_FP_SUB; *s = true; return true;
  case AXP_MULS: *op = AXP_FP_MUL; *s = true; return true;
  case AXP_DIVS: *op = AXP_FP_DIV; *s = true; return true;
  case AXP_SQRTS: *op = AXP_FP_SQRT; *s = true; return true;
  case AXP_ADDT: *op = AXP_FP_ADD; *s = false; return true;
  case AXP_SUBT: *op = AXP_FP_SUB; *s = false; return true;
  case AXP_MULT: *op = AXP_FP_MUL; *s = false; return true;
  case AXP_DIVT: *op = AXP_FP_DIV; *s = false; return true;
  case AXP_SQRTT: *op = AXP_FP_SQRT; *s = false; return true;
  case AXP_CMPTUN: *op = AXP_FP_CMPUN; *s = false; return true;
  case AXP_CMPTEQ: *op = AXP_FP_CMPEQ; *s = false; return true;
  case AXP_CMPTLT: *op = AXP_FP_CMPLT; *s = false; return true;
  case AXP_CMPTLE: *op = AXP_FP_CMPLE; *s = false; return true;
  case AXP_CVTTS: *op = AXP_FP_CVTTS; *s = true; return true;
  case AXP_CVTST: *op = AXP_FP_CVTST; *s = false; return true;
  case AXP_CVTTQ: *op = AXP_FP_CVTTQ; *s = false; return true;
  case AXP_CVTQS: *op = AXP_FP_CVTQS; *s = true; return true;
  case AXP_CVTQT: *op = AXP_FP_CVTQT; *s = false; return true;
  default: return false;
  }
}
