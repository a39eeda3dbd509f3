/* Alpha IEEE floating point as pure functions: no CPU struct, no globals. The
 * executor passes raw 64-bit register images in and gets the result image and the
 * raised exceptions back, then asks axp_fp_complete() what they mean (status bits,
 * SIGFPE or not). Invariants: S values are always in register format (lds/sts
 * mapping); exceptions travel as SWCR status bits; host rounding mode is nearest
 * between calls (changed only for the duration of a non-nearest operation).
 * Sources: Alpha Architecture Handbook (AAH) 4.7, Linux asm/fpu.h and
 * arch/alpha/math-emu/math.c, reference doc alpha-linux-abi.md 1.2 and 7. */
#ifndef AXP_FP_H
#define AXP_FP_H
#include <stdbool.h>
#include <stdint.h>

/* SWCR (Linux ieee_state, OSF FP_C): enables 1-6, maps 12-13, status 17-22. */
#define AXP_SWCR_ENA_INV    0x2u
#define AXP_SWCR_ENA_DZE    0x4u
#define AXP_SWCR_ENA_OVF    0x8u
#define AXP_SWCR_ENA_UNF    0x10u
#define AXP_SWCR_ENA_INE    0x20u
#define AXP_SWCR_ENA_DNO    0x40u
#define AXP_SWCR_ENA_MASK   0x7Eu
#define AXP_SWCR_MAP_DMZ    (1u << 12) /* denormal operands read as zero (-> FPCR.DNZ) */
#define AXP_SWCR_MAP_UMZ    (1u << 13) /* underflowed results become +0 (-> UNDZ|UNFD) */
#define AXP_SWCR_STATUS_INV (1u << 17)
#define AXP_SWCR_STATUS_DZE (1u << 18)
#define AXP_SWCR_STATUS_OVF (1u << 19)
#define AXP_SWCR_STATUS_UNF (1u << 20)
#define AXP_SWCR_STATUS_INE (1u << 21)
#define AXP_SWCR_STATUS_DNO (1u << 22)
#define AXP_SWCR_STATUS_IOV AXP_SWCR_STATUS_DNO /* FPCR.IOV lands here (fpcr_to_swcr) */
#define AXP_SWCR_STATUS_MASK 0x7E0000u
#define AXP_SWCR_MASK       0x7E307Eu /* IEEE_SW_MASK */

/* FPCR (AAH Table 4-11). Bits 46:0 read as zero. */
#define AXP_FPCR_DNOD  (1ull << 47) /* denormal operand trap disable */
#define AXP_FPCR_DNZ   (1ull << 48) /* denormal operands as zero (/S forms only) */
#define AXP_FPCR_INVD  (1ull << 49)
#define AXP_FPCR_DZED  (1ull << 50)
#define AXP_FPCR_OVFD  (1ull << 51)
#define AXP_FPCR_INV   (1ull << 52) /* sticky status 52..57 */
#define AXP_FPCR_DZE   (1ull << 53)
#define AXP_FPCR_OVF   (1ull << 54)
#define AXP_FPCR_UNF   (1ull << 55)
#define AXP_FPCR_INE   (1ull << 56)
#define AXP_FPCR_IOV   (1ull << 57)
#define AXP_FPCR_DYN_SHIFT 58       /* /d rounding: 0 chopped, 1 -inf, 2 nearest, 3 +inf */
#define AXP_FPCR_DYN_MASK  (3ull << 58)
#define AXP_FPCR_UNDZ  (1ull << 60) /* with UNFD: underflow gives +0 (/S forms only) */
#define AXP_FPCR_UNFD  (1ull << 61)
#define AXP_FPCR_INED  (1ull << 62)
#define AXP_FPCR_SUM   (1ull << 63) /* OR of 57:52 */
#define AXP_FPCR_STATUS_MASK (0x3Full << 52)
#define AXP_FPCR_MASK  0xFFFF800000000000ull
#define AXP_FPCR_INITIAL 0x680E800000000000ull /* Linux at exec: DYN nearest, all disabled */

/* Qualifier bits of the 11-bit function field (instruction bits 15:5). /V is /U's
 * bit for conversions to integer. cvtst (0x2AC/0x6AC) reuses bit 0x200 as opcode. */
#define AXP_FPQ_S   0x400u
#define AXP_FPQ_I   0x200u
#define AXP_FPQ_U   0x100u
#define AXP_FPQ_V   AXP_FPQ_U
#define AXP_FPQ_RND_SHIFT 6         /* 0 /c, 1 /m, 2 normal, 3 /d */
#define AXP_FPQ_RND_MASK  0x0C0u

#define AXP_FP_TRUE 0x4000000000000000ull /* cmpt* true = 2.0 */
#define AXP_FP_QNAN 0xFFF8000000000000ull /* canonical quiet NaN (AAH 4.7.10.3) */

/* Linux generic SIGFPE si_code values. */
#define AXP_FPE_INTOVF 2
#define AXP_FPE_FLTDIV 3
#define AXP_FPE_FLTOVF 4
#define AXP_FPE_FLTUND 5
#define AXP_FPE_FLTRES 6
#define AXP_FPE_FLTINV 7

enum axp_fpop {
  AXP_FP_ADD, AXP_FP_SUB, AXP_FP_MUL, AXP_FP_DIV, AXP_FP_SQRT,
  AXP_FP_CMPUN, AXP_FP_CMPEQ, AXP_FP_CMPLT, AXP_FP_CMPLE,
  AXP_FP_CVTTS, AXP_FP_CVTST, AXP_FP_CVTTQ, AXP_FP_CVTQS, AXP_FP_CVTQT
};

/* Performs one IEEE operate instruction and returns the raw 64-bit result image.
 * `fn11` is the instruction's function field (qualifiers 10:8, rounding 7:6);
 * `s` selects S format for add/sub/mul/div/sqrt and is ignored by the compares and
 * conversions, whose formats are fixed. a = Fa, b = Fb; unary operations (sqrt, cvt*)
 * read only b. fpcr supplies DYN (for /d), DNZ and UNDZ|UNFD (both only for /S forms).
 * Stores into *exc the raised exceptions as AXP_SWCR_STATUS_* bits: INV, DZE, OVF
 * always; UNF only for /U forms; IOV (bit 22) only for /V forms; INE only for /I
 * forms. Without /S, an Inf, NaN or denormal operand raises INV (the hardware traps;
 * compares accept Inf). Underflow without /U, without /S, or with UNDZ|UNFD gives +0. */
uint64_t axp_fp_operate(enum axp_fpop op, bool s, uint32_t fn11, uint64_t a, uint64_t b,
                        uint64_t fpcr, uint32_t *exc);

/* Records `exc` (from axp_fp_operate or axp_fp_cvtql_v) for the instruction `fn11`:
 * ORs it into the SWCR status bits and FPCR<57:52> (setting SUM), both sticky. Returns
 * 0 if the program goes on, else the SIGFPE si_code to deliver at this instruction:
 * with /S, only exceptions enabled in the SWCR trap (IOV counts as INV, AAH Table
 * B-2), si_code by priority INV > DZE > OVF > UNF > INE as math.c; without /S, every
 * reported exception traps with FPE_FLTINV, as do_entArith does. */
int axp_fp_complete(uint32_t fn11, uint32_t exc, uint64_t *fpcr, uint64_t *swcr);

/* Linux ieee_swcr_to_fpcr / ieee_fpcr_to_swcr (asm/fpu.h); DYN is not touched. */
uint64_t axp_fp_swcr_to_fpcr(uint64_t swcr);
uint64_t axp_fp_fpcr_to_swcr(uint64_t fpcr);

/* S memory format -> register format (lds, itofs): exponent 8 -> 11 bits. */
uint64_t axp_fp_lds(uint32_t mem);
/* Register format -> S memory format (sts, ftois): reg<63:62> || reg<58:29>. */
uint32_t axp_fp_sts(uint64_t reg);
/* cvtlq: the longword reg<63:62> || reg<58:29>, sign-extended to 64 bits. */
uint64_t axp_fp_cvtlq(uint64_t fb);
/* The operation and S format (*s) of IEEE operate instruction `id` (an
 * enum axp_id: adds..sqrtt, cmpt*, cvt* but cvtql and cvtlq); false for
 * any other id. */
bool axp_fp_op_of(unsigned id, enum axp_fpop *op, bool *s);
/* cvtql: the low longword of fb placed at reg<63:62> || reg<58:29>, rest zero. */
uint64_t axp_fp_cvtql(uint64_t fb);
/* cvtql with qualifiers: as axp_fp_cvtql, and *exc gets IOV when fb does not fit
 * in 32 bits and fn11 has /V (0x130 cvtql/v, 0x530 cvtql/sv); else 0. */
uint64_t axp_fp_cvtql_v(uint32_t fn11, uint64_t fb, uint32_t *exc);

#endif
