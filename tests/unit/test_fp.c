/* Unit tests for src/isa/fp.c: table-driven vectors whose answers are known by
 * hand (bit patterns worked out from the IEEE formats), the S register format,
 * the SWCR/FPCR formulas of Linux asm/fpu.h and the trap decision. */
#include "check.h"
#include "isa/fp.h"

#include <fenv.h>
#include <float.h>
#include <string.h>

static uint64_t D(double x) { uint64_t v; memcpy(&v, &x, sizeof v); return v; }
static uint32_t F(float x) { uint32_t v; memcpy(&v, &x, sizeof v); return v; }
static uint64_t S(float x) { return axp_fp_lds(F(x)); }  /* S value in register format */

#define F0    AXP_FPCR_INITIAL
#define FDYNP (AXP_FPCR_INITIAL | AXP_FPCR_DYN_MASK)                 /* DYN = +inf */
#define FDNZ  (AXP_FPCR_INITIAL | AXP_FPCR_DNZ)
#define FUNDZ (AXP_FPCR_INITIAL | AXP_FPCR_UNDZ | AXP_FPCR_UNFD)
#define INV AXP_SWCR_STATUS_INV
#define DZE AXP_SWCR_STATUS_DZE
#define OVF AXP_SWCR_STATUS_OVF
#define UNF AXP_SWCR_STATUS_UNF
#define INE AXP_SWCR_STATUS_INE
#define IOV AXP_SWCR_STATUS_IOV
#define QNAN AXP_FP_QNAN
#define TRUE2 AXP_FP_TRUE

struct vec {
  const char *name;
  enum axp_fpop op;
  bool s;
  uint32_t fn11;
  uint64_t a, b, fpcr, want;
  uint32_t exc;
};

static void run_vectors(void)
{
  const uint64_t third_lo = 0x3FD5555555555555ull, third_hi = 0x3FD5555555555556ull;
  const uint64_t tiny_in = 0x0010000000000001ull;  /* DBL_MIN * (1 + 2^-52) */
  const uint64_t qa = 0x7FF8000000000001ull, qb = 0x7FF8000000000002ull;
  const uint64_t sa = 0x7FF0000000000001ull, sb = 0x7FF0000000000002ull;
  const uint64_t inf = 0x7FF0000000000000ull, ninf = 0xFFF0000000000000ull;
  const uint64_t denorm = 1, ndenorm = 0x8000000000000001ull;
  const struct vec v[] = {
    /* 1/3 and 1/10: the four rounding modes differ in the last bit */
    { "divt/su 1/3 nearest", AXP_FP_DIV, false, 0x5A3, D(1), D(3), F0, third_lo, 0 },
    { "divt/suc 1/3 chopped", AXP_FP_DIV, false, 0x523, D(1), D(3), F0, third_lo, 0 },
    { "divt/sum 1/3 minus", AXP_FP_DIV, false, 0x563, D(1), D(3), F0, third_lo, 0 },
    { "divt/sud 1/3 dyn +inf", AXP_FP_DIV, false, 0x5E3, D(1), D(3), FDYNP, third_hi, 0 },
    { "divt/sud 1/3 dyn nearest", AXP_FP_DIV, false, 0x5E3, D(1), D(3), F0, third_lo, 0 },
    { "divt/sum -1/3 minus", AXP_FP_DIV, false, 0x563, D(-1), D(3), F0, third_hi | 1ull << 63, 0 },
    { "divt/suc -1/3 chopped", AXP_FP_DIV, false, 0x523, D(-1), D(3), F0, third_lo | 1ull << 63, 0 },
    { "divt/su 1/10 nearest", AXP_FP_DIV, false, 0x5A3, D(1), D(10), F0, 0x3FB999999999999Aull, 0 },
    { "divt/suc 1/10 chopped", AXP_FP_DIV, false, 0x523, D(1), D(10), F0, 0x3FB9999999999999ull, 0 },
    { "divt/sui 1/3 inexact", AXP_FP_DIV, false, 0x7A3, D(1), D(3), F0, third_lo, INE },
    { "divs/su 1/3 nearest", AXP_FP_DIV, true, 0x583, S(1), S(3), F0, 0x3FD5555560000000ull, 0 },
    { "divs/suc 1/3 chopped", AXP_FP_DIV, true, 0x503, S(1), S(3), F0, 0x3FD5555540000000ull, 0 },
    { "adds/su 1+2^-24 ties to even", AXP_FP_ADD, true, 0x580, S(1), S(0x1p-24f), F0, S(1), 0 },
    { "addt/su 0.1+0.2", AXP_FP_ADD, false, 0x5A0, D(0.1), D(0.2), F0, 0x3FD3333333333334ull, 0 },
    { "subt/su 1-1 = +0", AXP_FP_SUB, false, 0x5A1, D(1), D(1), F0, 0, 0 },
    { "subt/sum 1-1 = -0", AXP_FP_SUB, false, 0x561, D(1), D(1), F0, 1ull << 63, 0 },
    { "sqrtt/su 2", AXP_FP_SQRT, false, 0x5AB, 0, D(2), F0, 0x3FF6A09E667F3BCDull, 0 },
    { "sqrts/su 2", AXP_FP_SQRT, true, 0x58B, 0, S(2), F0, 0x3FF6A09E60000000ull, 0 },
    /* division by zero, invalid operations and the canonical NaN */
    { "divt/su 1/0 = +inf DZE", AXP_FP_DIV, false, 0x5A3, D(1), D(0), F0, inf, DZE },
    { "divt/su -1/0 = -inf DZE", AXP_FP_DIV, false, 0x5A3, D(-1), D(0), F0, ninf, DZE },
    { "divt/su 0/0 = QNaN INV", AXP_FP_DIV, false, 0x5A3, D(0), D(0), F0, QNAN, INV },
    { "divs/su 0/0 = QNaN INV", AXP_FP_DIV, true, 0x583, 0, 0, F0, QNAN, INV },
    { "sqrtt/su -1 = QNaN INV", AXP_FP_SQRT, false, 0x5AB, 0, D(-1), F0, QNAN, INV },
    { "sqrts/su -1 = QNaN INV", AXP_FP_SQRT, true, 0x58B, 0, S(-1), F0, QNAN, INV },
    { "sqrtt/su -0 = -0", AXP_FP_SQRT, false, 0x5AB, 0, 1ull << 63, F0, 1ull << 63, 0 },
    { "addt/su inf-inf INV", AXP_FP_ADD, false, 0x5A0, inf, ninf, F0, QNAN, INV },
    { "mult/su 0*inf INV", AXP_FP_MUL, false, 0x5A2, D(0), inf, F0, QNAN, INV },
    { "divt/su inf/inf INV", AXP_FP_DIV, false, 0x5A3, inf, inf, F0, QNAN, INV },
    { "addt/su inf+1 = inf", AXP_FP_ADD, false, 0x5A0, inf, D(1), F0, inf, 0 },
    /* NaN propagation, AAH 4.7.10.4: Fb first, signalling NaNs made quiet */
    { "addt/su qNaN,qNaN -> Fb", AXP_FP_ADD, false, 0x5A0, qa, qb, F0, qb, 0 },
    { "addt/su qNaN,1 -> Fa", AXP_FP_ADD, false, 0x5A0, qa, D(1), F0, qa, 0 },
    { "subt/su 1,sNaN -> quiet Fb INV", AXP_FP_SUB, false, 0x5A1, D(1), sb, F0, sb | 1ull << 51, INV },
    { "mult/su sNaN,qNaN -> Fb INV", AXP_FP_MUL, false, 0x5A2, sa, qb, F0, qb, INV },
    { "divt/su sNaN,1 -> quiet Fa INV", AXP_FP_DIV, false, 0x5A3, sa, D(1), F0, qa, INV },
    { "sqrtt/su qNaN", AXP_FP_SQRT, false, 0x5AB, 0, qb, F0, qb, 0 },
    { "adds/su sNaN -> quiet S NaN INV", AXP_FP_ADD, true, 0x580, S(1), axp_fp_lds(0x7F800001),
      F0, axp_fp_lds(0x7FC00001), INV },
    { "cvtts/su NaN keeps top payload", AXP_FP_CVTTS, false, 0x5AC, 0, 0x7FF0000060000001ull, F0,
      0x7FF8000060000000ull, INV },
    /* overflow in each rounding mode (AAH Table B-3) */
    { "mult/su max*2 = inf OVF", AXP_FP_MUL, false, 0x5A2, D(DBL_MAX), D(2), F0, inf, OVF },
    { "mult/suc max*2 = max OVF", AXP_FP_MUL, false, 0x522, D(DBL_MAX), D(2), F0, D(DBL_MAX), OVF },
    { "mult/sum -max*2 = -inf OVF", AXP_FP_MUL, false, 0x562, D(-DBL_MAX), D(2), F0, ninf, OVF },
    { "mult/sum max*2 = max OVF", AXP_FP_MUL, false, 0x562, D(DBL_MAX), D(2), F0, D(DBL_MAX), OVF },
    { "mult/sui max*2 OVF INE", AXP_FP_MUL, false, 0x7A2, D(DBL_MAX), D(2), F0, inf, OVF | INE },
    { "muls/su fltmax*2 = inf OVF", AXP_FP_MUL, true, 0x582, S(FLT_MAX), S(2), F0, inf, OVF },
    { "cvtts/su 1e300 = inf OVF", AXP_FP_CVTTS, false, 0x5AC, 0, D(1e300), F0, inf, OVF },
    /* underflow: 2^-1024 + 2^-1076 rounds to the denormal 2^-1024 */
    { "mult/su tiny -> denormal UNF", AXP_FP_MUL, false, 0x5A2, tiny_in, D(0.25), F0,
      0x0004000000000000ull, UNF },
    { "mult/sui tiny -> denormal UNF INE", AXP_FP_MUL, false, 0x7A2, tiny_in, D(0.25), F0,
      0x0004000000000000ull, UNF | INE },
    { "mult tiny -> +0, no UNF", AXP_FP_MUL, false, 0x0A2, tiny_in, D(0.25), F0, 0, 0 },
    { "mult -tiny -> true +0", AXP_FP_MUL, false, 0x0A2, tiny_in, D(-0.25), F0, 0, 0 },
    { "mult/u tiny -> +0 UNF", AXP_FP_MUL, false, 0x1A2, tiny_in, D(0.25), F0, 0, UNF },
    { "mult/su UNDZ -> +0 UNF", AXP_FP_MUL, false, 0x5A2, tiny_in, D(0.25), FUNDZ, 0, UNF },
    { "mult/sui UNDZ -> +0 UNF INE", AXP_FP_MUL, false, 0x7A2, tiny_in, D(0.25), FUNDZ, 0, UNF | INE },
    { "mult/su UNDZ without UNFD keeps denormal", AXP_FP_MUL, false, 0x5A2, tiny_in, D(0.25),
      (AXP_FPCR_INITIAL & ~AXP_FPCR_UNFD) | AXP_FPCR_UNDZ,
      0x0004000000000000ull, UNF },
    { "mult/su exact denormal, no UNF", AXP_FP_MUL, false, 0x5A2, D(DBL_MIN), D(0.5), F0,
      0x0008000000000000ull, 0 },
    { "mult exact denormal -> +0", AXP_FP_MUL, false, 0x0A2, D(DBL_MIN), D(0.5), F0, 0, 0 },
    { "muls/su S denormal UNF", AXP_FP_MUL, true, 0x582, axp_fp_lds(0x00800001), S(0.25f), F0,
      axp_fp_lds(0x00200000), UNF },
    /* denormal operands: DNZ (/S only), and the non-/S input trap */
    { "addt/su denormal kept", AXP_FP_ADD, false, 0x5A0, denorm, D(0), F0, denorm, 0 },
    { "addt/su DNZ denormal = 0", AXP_FP_ADD, false, 0x5A0, denorm, D(0), FDNZ, 0, 0 },
    { "divt/su DNZ 1/denormal DZE", AXP_FP_DIV, false, 0x5A3, D(1), denorm, FDNZ, inf, DZE },
    { "sqrtt/su DNZ -denormal = -0", AXP_FP_SQRT, false, 0x5AB, 0, ndenorm, FDNZ, 1ull << 63, 0 },
    { "addt DNZ ignored without /S: INV", AXP_FP_ADD, false, 0x0A0, denorm, D(0), FDNZ, 0, INV },
    { "addt inf operand: INV", AXP_FP_ADD, false, 0x0A0, inf, D(1), F0, inf, INV },
    { "addt qNaN operand: INV", AXP_FP_ADD, false, 0x0A0, D(1), qb, F0, qb, INV },
    { "divt 1/0: DZE", AXP_FP_DIV, false, 0x0A3, D(1), D(0), F0, inf, DZE },
    /* compares: 2.0 true, +0 false */
    { "cmptlt/su 1<2", AXP_FP_CMPLT, false, 0x5A6, D(1), D(2), F0, TRUE2, 0 },
    { "cmptlt/su 2<1", AXP_FP_CMPLT, false, 0x5A6, D(2), D(1), F0, 0, 0 },
    { "cmptle/su 2<=2", AXP_FP_CMPLE, false, 0x5A7, D(2), D(2), F0, TRUE2, 0 },
    { "cmpteq/su +0==-0", AXP_FP_CMPEQ, false, 0x5A5, 0, 1ull << 63, F0, TRUE2, 0 },
    { "cmptle/su inf<=inf", AXP_FP_CMPLE, false, 0x5A7, inf, inf, F0, TRUE2, 0 },
    { "cmptun/su qNaN,1", AXP_FP_CMPUN, false, 0x5A4, qa, D(1), F0, TRUE2, 0 },
    { "cmptun/su 1,2", AXP_FP_CMPUN, false, 0x5A4, D(1), D(2), F0, 0, 0 },
    { "cmpteq/su qNaN quiet", AXP_FP_CMPEQ, false, 0x5A5, qa, qa, F0, 0, 0 },
    { "cmpteq/su sNaN INV", AXP_FP_CMPEQ, false, 0x5A5, D(1), sb, F0, 0, INV },
    { "cmptun/su sNaN INV", AXP_FP_CMPUN, false, 0x5A4, sa, D(1), F0, TRUE2, INV },
    { "cmptlt/su qNaN INV", AXP_FP_CMPLT, false, 0x5A6, qa, D(1), F0, 0, INV },
    { "cmptle/su qNaN INV", AXP_FP_CMPLE, false, 0x5A7, D(1), qb, F0, 0, INV },
    { "cmpteq qNaN without /S INV", AXP_FP_CMPEQ, false, 0x0A5, qa, D(1), F0, 0, INV },
    { "cmptlt inf without /S ok", AXP_FP_CMPLT, false, 0x0A6, D(1), inf, F0, TRUE2, 0 },
    { "cmptlt/su DNZ denormal == 0", AXP_FP_CMPLT, false, 0x5A6, D(0), denorm, FDNZ, 0, 0 },
    /* cvttq: modular overflow, IOV only with /V, INE only with /I */
    { "cvttq/svc 1e19 modular IOV", AXP_FP_CVTTQ, false, 0x52F, 0, D(1e19), F0,
      0x8AC7230489E80000ull, IOV },
    { "cvttq/svic 1e19 IOV INE", AXP_FP_CVTTQ, false, 0x72F, 0, D(1e19), F0,
      0x8AC7230489E80000ull, IOV | INE },
    { "cvttq/c 1e19 no /v: quiet", AXP_FP_CVTTQ, false, 0x02F, 0, D(1e19), F0,
      0x8AC7230489E80000ull, 0 },
    { "cvttq/svc -1e19 modular", AXP_FP_CVTTQ, false, 0x52F, 0, D(-1e19), F0,
      0x7538DCFB76180000ull, IOV },
    { "cvttq/svc 2^63 IOV", AXP_FP_CVTTQ, false, 0x52F, 0, D(0x1p63), F0, 1ull << 63, IOV },
    { "cvttq/svc -2^63 fits", AXP_FP_CVTTQ, false, 0x52F, 0, D(-0x1p63), F0, 1ull << 63, 0 },
    { "cvttq/svc 2^64 = 0 IOV", AXP_FP_CVTTQ, false, 0x52F, 0, D(0x1p64), F0, 0, IOV },
    { "cvttq/svc 1e300 = 0 IOV", AXP_FP_CVTTQ, false, 0x52F, 0, D(1e300), F0, 0, IOV },
    { "cvttq/svc 2^62+2^10 exact", AXP_FP_CVTTQ, false, 0x52F, 0, D(0x1p62 + 0x1p10), F0,
      0x4000000000000400ull, 0 },
    { "cvttq/svc qNaN = 0 INV", AXP_FP_CVTTQ, false, 0x52F, 0, qa, F0, 0, INV },
    { "cvttq/svc sNaN = 0 INV", AXP_FP_CVTTQ, false, 0x52F, 0, sa, F0, 0, INV },
    { "cvttq/svc inf = 0 INV", AXP_FP_CVTTQ, false, 0x52F, 0, inf, F0, 0, INV },
    { "cvttq/svc -inf = 0 INV", AXP_FP_CVTTQ, false, 0x52F, 0, ninf, F0, 0, INV },
    { "cvttq/svc 3e9", AXP_FP_CVTTQ, false, 0x52F, 0, D(3e9), F0, 3000000000ull, 0 },
    { "cvttq/svc -2.7 = -2", AXP_FP_CVTTQ, false, 0x52F, 0, D(-2.7), F0, (uint64_t)-2, 0 },
    { "cvttq/svic -2.7 INE", AXP_FP_CVTTQ, false, 0x72F, 0, D(-2.7), F0, (uint64_t)-2, INE },
    { "cvttq/sv 2.5 = 2 (even)", AXP_FP_CVTTQ, false, 0x5AF, 0, D(2.5), F0, 2, 0 },
    { "cvttq/sv 3.5 = 4 (even)", AXP_FP_CVTTQ, false, 0x5AF, 0, D(3.5), F0, 4, 0 },
    { "cvttq/sv 2.500001 = 3", AXP_FP_CVTTQ, false, 0x5AF, 0, D(2.500001), F0, 3, 0 },
    { "cvttq/svm -2.5 = -3", AXP_FP_CVTTQ, false, 0x56F, 0, D(-2.5), F0, (uint64_t)-3, 0 },
    { "cvttq/svm 2.5 = 2", AXP_FP_CVTTQ, false, 0x56F, 0, D(2.5), F0, 2, 0 },
    { "cvttq/svd +inf 2.1 = 3", AXP_FP_CVTTQ, false, 0x5EF, 0, D(2.1), FDYNP, 3, 0 },
    { "cvttq/svd +inf -2.9 = -2", AXP_FP_CVTTQ, false, 0x5EF, 0, D(-2.9), FDYNP, (uint64_t)-2, 0 },
    { "cvttq/svm -denormal = -1", AXP_FP_CVTTQ, false, 0x56F, 0, ndenorm, F0, (uint64_t)-1, 0 },
    { "cvttq/svm DNZ -denormal = 0", AXP_FP_CVTTQ, false, 0x56F, 0, ndenorm, FDNZ, 0, 0 },
    { "cvttq/sv 2^-80 = 0", AXP_FP_CVTTQ, false, 0x5AF, 0, D(0x1p-80), F0, 0, 0 },
    { "cvttq/v inf INV", AXP_FP_CVTTQ, false, 0x1AF, 0, inf, F0, 0, INV },
    /* format conversions */
    { "cvtts/su 1/3 nearest", AXP_FP_CVTTS, false, 0x5AC, 0, third_lo, F0, 0x3FD5555560000000ull, 0 },
    { "cvtts/suc 1/3 chopped", AXP_FP_CVTTS, false, 0x52C, 0, third_lo, F0, 0x3FD5555540000000ull, 0 },
    { "cvtts/sui 1/3 INE", AXP_FP_CVTTS, false, 0x7AC, 0, third_lo, F0, 0x3FD5555560000000ull, INE },
    { "cvtts/su 1e-50 -> +0 UNF", AXP_FP_CVTTS, false, 0x5AC, 0, D(1e-50), F0, 0, UNF },
    { "cvtst/s S denormal -> T 2^-149", AXP_FP_CVTST, false, 0x6AC, 0, axp_fp_lds(1), F0,
      0x36A0000000000000ull, 0 },
    { "cvtst/s 1.5", AXP_FP_CVTST, false, 0x6AC, 0, S(1.5f), F0, D(1.5), 0 },
    { "cvtst/s sNaN INV", AXP_FP_CVTST, false, 0x6AC, 0, axp_fp_lds(0xFF800001), F0,
      axp_fp_lds(0xFFC00001), INV },
    { "cvtqs 2^24+1 ties to even", AXP_FP_CVTQS, false, 0x0BC, 0, 16777217, F0, 0x4170000000000000ull, 0 },
    { "cvtqs/sui 2^24+1 INE", AXP_FP_CVTQS, false, 0x7BC, 0, 16777217, F0, 0x4170000000000000ull, INE },
    { "cvtqs/suic 2^24+3 chopped", AXP_FP_CVTQS, false, 0x73C, 0, 16777219, F0, S(16777218.0f), INE },
    { "cvtqs -1", AXP_FP_CVTQS, false, 0x0BC, 0, (uint64_t)-1, F0, S(-1), 0 },
    { "cvtqt -1", AXP_FP_CVTQT, false, 0x0BE, 0, (uint64_t)-1, F0, D(-1), 0 },
    { "cvtqt 2^53+1 nearest", AXP_FP_CVTQT, false, 0x0BE, 0, (1ull << 53) + 1, F0, 0x4340000000000000ull, 0 },
    { "cvtqt/suid +inf 2^53+1", AXP_FP_CVTQT, false, 0x7FE, 0, (1ull << 53) + 1, FDYNP,
      0x4340000000000001ull, INE },
    { "cvtqt/sui INT64_MIN exact", AXP_FP_CVTQT, false, 0x7BE, 0, 1ull << 63, F0, D(-0x1p63), 0 },
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    uint32_t exc = 0xDEAD;
    uint64_t r = axp_fp_operate(v[i].op, v[i].s, v[i].fn11, v[i].a, v[i].b, v[i].fpcr, &exc);
    CHECK_EQ_U64(r, v[i].want, "fp result: %s", v[i].name);
    CHECK_EQ_U64(exc, v[i].exc, "fp exc: %s", v[i].name);
  }
}

/* The 5e-311 case of reference 7.3, and that the host rounding mode is restored. */
static void run_denormal_and_host_state(void)
{
  volatile double x = 1e-300, y = 5e-11;
  double want = x * y;  /* host nearest: a denormal near 5e-311 */
  uint32_t exc;
  uint64_t r = axp_fp_operate(AXP_FP_MUL, false, 0x5A2, D(1e-300), D(5e-11), F0, &exc);
  CHECK_EQ_U64(r, D(want), "mult/su 1e-300*5e-11 = denormal 5e-311");
  CHECK(r != 0 && r < (1ull << 52), "5e-311 is a denormal");
  CHECK_EQ_U64(exc, UNF, "mult/su 5e-311 raises UNF");
  r = axp_fp_operate(AXP_FP_MUL, false, 0x0A2, D(1e-300), D(5e-11), F0, &exc);
  CHECK(r == 0 && exc == 0, "mult 5e-311 without /u: +0 and no UNF");
  axp_fp_operate(AXP_FP_DIV, false, 0x563, D(1), D(3), F0, &exc);
  CHECK(fegetround() == FE_TONEAREST, "host rounding restored after /m");
  axp_fp_operate(AXP_FP_DIV, false, 0x5E3, D(1), D(3), FDYNP, &exc);
  CHECK(fegetround() == FE_TONEAREST, "host rounding restored after /d +inf");
}

/* lds/sts: register format mapping (reference 1.2) and round trips. */
static void run_s_format(void)
{
  static const struct { uint32_t mem; uint64_t reg; const char *name; } m[] = {
    { 0x00000000, 0x0000000000000000ull, "+0" },
    { 0x80000000, 0x8000000000000000ull, "-0" },
    { 0x3F800000, 0x3FF0000000000000ull, "1.0" },
    { 0xC0000000, 0xC000000000000000ull, "-2.0 (exp msb set)" },
    { 0x00800000, 0x3810000000000000ull, "FLT_MIN" },
    { 0x7F7FFFFF, 0x47EFFFFFE0000000ull, "FLT_MAX" },
    { 0x00000001, 0x0000000020000000ull, "smallest denormal" },
    { 0x007FFFFF, 0x000FFFFFE0000000ull, "largest denormal" },
    { 0x7F800000, 0x7FF0000000000000ull, "+inf" },
    { 0xFF800000, 0xFFF0000000000000ull, "-inf" },
    { 0x7FC00000, 0x7FF8000000000000ull, "qNaN" },
    { 0x7F800001, 0x7FF0000020000000ull, "sNaN" },
  };
  for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
    CHECK_EQ_U64(axp_fp_lds(m[i].mem), m[i].reg, "lds %s", m[i].name);
    CHECK_EQ_U64(axp_fp_sts(m[i].reg), m[i].mem, "sts %s", m[i].name);
  }
  int bad = 0;
  for (uint64_t w = 0; w <= 0xFFFFFFFFull; w += 0x10001) {
    uint32_t mem = (uint32_t)w;
    bad += axp_fp_sts(axp_fp_lds(mem)) != mem;
  }
  CHECK(bad == 0, "sts(lds(x)) == x over 65536 patterns");
  CHECK_EQ_U64(S(0.1f), D((double)0.1f), "S register format of 0.1f is the T image");
}

/* cvtlq/cvtql and the (int)3e9 sequence: cvttq/svc, then cvtql, then sts. */
static void run_longword(void)
{
  uint32_t exc;
  uint64_t q = axp_fp_operate(AXP_FP_CVTTQ, false, 0x52F, 0, D(3e9), F0, &exc);
  uint64_t l = axp_fp_cvtql(q);
  CHECK_EQ_U64(l, 0x8000000000000000ull | (0x32D05E00ull << 29), "cvtql 3e9 layout");
  CHECK_EQ_U64((uint64_t)(int64_t)(int32_t)axp_fp_sts(l), (uint64_t)-1294967296ll,
               "(int)3e9 = -1294967296 via cvttq+cvtql+sts");
  CHECK_EQ_U64(axp_fp_cvtlq(l), (uint64_t)-1294967296ll, "cvtlq back sign-extends");
  axp_fp_cvtql_v(0x530, q, &exc);
  CHECK_EQ_U64(exc, IOV, "cvtql/sv 3e9 overflows: IOV");
  axp_fp_cvtql_v(0x030, q, &exc);
  CHECK_EQ_U64(exc, 0, "cvtql without /v: no IOV");
  axp_fp_cvtql_v(0x530, (uint64_t)INT32_MIN, &exc);
  CHECK_EQ_U64(exc, 0, "cvtql/sv INT32_MIN fits");
  axp_fp_cvtql_v(0x530, 0x80000000ull, &exc);
  CHECK_EQ_U64(exc, IOV, "cvtql/sv 2^31 overflows");
  static const uint64_t vals[] = { 0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x123456789ABCDEF0ull };
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
    CHECK_EQ_U64(axp_fp_cvtlq(axp_fp_cvtql(vals[i])), (uint64_t)(int64_t)(int32_t)vals[i],
                 "cvtlq(cvtql(%#llx))", (unsigned long long)vals[i]);
}

/* SWCR <-> FPCR against the kernel formulas and the values measured under qemu. */
static void run_control_words(void)
{
  const uint64_t dyn_n = 2ull << AXP_FPCR_DYN_SHIFT;
  CHECK_EQ_U64(axp_fp_swcr_to_fpcr(0) | dyn_n, AXP_FPCR_INITIAL, "swcr 0 -> initial FPCR");
  CHECK_EQ_U64(axp_fp_fpcr_to_swcr(AXP_FPCR_INITIAL), 0, "initial FPCR -> swcr 0");
  CHECK_EQ_U64(axp_fp_swcr_to_fpcr(0x40004) | dyn_n, 0xE82A800000000000ull,
               "feenableexcept(FE_DIVBYZERO) after DZE: DZED clear, SUM set");
  CHECK_EQ_U64(axp_fp_swcr_to_fpcr(AXP_SWCR_MAP_UMZ), 0x700E800000000000ull,
               "UMZ -> UNDZ|UNFD");
  CHECK_EQ_U64(axp_fp_swcr_to_fpcr(AXP_SWCR_MAP_DMZ), 0x600F800000000000ull, "DMZ -> DNZ");
  CHECK_EQ_U64(axp_fp_fpcr_to_swcr(AXP_FPCR_IOV), AXP_SWCR_STATUS_IOV | AXP_SWCR_ENA_MASK,
               "FPCR.IOV -> SWCR bit 22");
  int bad = 0;
  for (uint32_t i = 0; i < (1u << 14); i++) {  /* every combination of the 14 SWCR bits */
    uint64_t sw = (i & 0x3F) << 1 | ((i >> 6) & 3) << 12 | (uint64_t)(i >> 8) << 17;
    /* UMZ sets UNFD, which reads back as "UNF not enabled" (the kernel keeps the
     * SWCR itself, so it never round-trips through the FPCR) */
    uint64_t want = (sw & AXP_SWCR_MAP_UMZ) ? sw & ~(uint64_t)AXP_SWCR_ENA_UNF : sw;
    bad += axp_fp_fpcr_to_swcr(axp_fp_swcr_to_fpcr(sw)) != want;
    bad += (sw & ~(uint64_t)AXP_SWCR_MASK) != 0;
  }
  CHECK(bad == 0, "fpcr_to_swcr(swcr_to_fpcr(sw)) == sw for all 16384 SWCR values (UMZ aside)");
}

/* Trap decision and sticky status. */
static void run_complete(void)
{
  uint64_t fpcr = AXP_FPCR_INITIAL, swcr = 0;
  int si = axp_fp_complete(0x5A3, DZE, &fpcr, &swcr);
  CHECK(si == 0, "divt/su DZE, not enabled: no trap");
  CHECK_EQ_U64(swcr, 0x40000, "divt/su DZE: SWCR status");
  CHECK_EQ_U64(fpcr, 0xE82E800000000000ull, "divt/su DZE: FPCR DZE and SUM");
  si = axp_fp_complete(0x5A3, 0, &fpcr, &swcr);
  CHECK(si == 0 && swcr == 0x40000, "no exception: nothing changes");
  swcr |= AXP_SWCR_ENA_DZE;
  si = axp_fp_complete(0x5A3, DZE, &fpcr, &swcr);
  CHECK(si == AXP_FPE_FLTDIV, "divt/su DZE enabled: FPE_FLTDIV (got %d)", si);
  si = axp_fp_complete(0x5A3, INV, &fpcr, &swcr);
  CHECK(si == 0 && (swcr & INV) && (fpcr & AXP_FPCR_INV), "INV not enabled: sticky status only");

  struct { uint32_t fn11, exc; uint64_t swcr; int want; const char *name; } t[] = {
    { 0x5A3, INV | DZE, AXP_SWCR_ENA_MASK, AXP_FPE_FLTINV, "/su INV beats DZE" },
    { 0x5A2, OVF | INE, AXP_SWCR_ENA_MASK, AXP_FPE_FLTOVF, "/su OVF beats INE" },
    { 0x5A2, UNF, AXP_SWCR_ENA_UNF, AXP_FPE_FLTUND, "/su UNF enabled" },
    { 0x5A2, UNF, AXP_SWCR_ENA_OVF, 0, "/su UNF, only OVF enabled" },
    { 0x7A3, INE, AXP_SWCR_ENA_INE, AXP_FPE_FLTRES, "/sui INE enabled" },
    { 0x52F, IOV, 0, 0, "cvttq/svc IOV not enabled" },
    { 0x52F, IOV, AXP_SWCR_ENA_INV, AXP_FPE_FLTINV, "cvttq/svc IOV with INV enabled" },
    { 0x52F, IOV, AXP_SWCR_ENA_DNO, 0, "cvttq/svc IOV: DNO enable does not apply" },
    { 0x0A3, DZE, 0, AXP_FPE_FLTINV, "plain divt DZE traps whatever the SWCR" },
    { 0x1A2, UNF, 0, AXP_FPE_FLTINV, "mult/u UNF traps" },
    { 0x1AF, IOV, 0, AXP_FPE_FLTINV, "cvttq/v IOV traps" },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    fpcr = AXP_FPCR_INITIAL;
    swcr = t[i].swcr;
    si = axp_fp_complete(t[i].fn11, t[i].exc, &fpcr, &swcr);
    CHECK(si == t[i].want, "complete: %s (got %d)", t[i].name, si);
    CHECK(swcr == (t[i].swcr | t[i].exc) && (fpcr & AXP_FPCR_SUM)
          && ((fpcr >> 35) & AXP_SWCR_STATUS_MASK) == t[i].exc,
          "complete: %s status recorded", t[i].name);
  }
}

int main(void)
{
  run_vectors();
  run_denormal_and_host_state();
  run_s_format();
  run_longword();
  run_control_words();
  run_complete();
  return check_done();
}
