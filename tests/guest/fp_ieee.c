/* Alpha IEEE semantics seen from C (oracle: qemu-alpha): rounding modes (the
 * /d forms through inline asm, since GCC's default /su ignores fesetround), the
 * fenv status flags kept in the SWCR, the trap enables, modular cvttq casts, the
 * S register format, NaN propagation (Fb first) and the UMZ/DMZ maps. Prints
 * only deterministic text, and only what qemu 7.2 and the Alpha Architecture
 * Handbook agree on: SIGFPE without its si_code (qemu always says FPE_FLTINV,
 * the kernel's completion names the exception); NaNs without their sign (a
 * generated NaN is 0xFFF8... by AAH 4.7.10.3, qemu makes 0x7FF8...); no status
 * flags under UMZ (the kernel reports UNF for the flushed result, qemu nothing). */
//@ isa
#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* glibc's OSF-compatible SWCR accessors (osf_{get,set}sysinfo 45/14). */
extern unsigned long __ieee_get_fp_control(void);
extern void __ieee_set_fp_control(unsigned long);
#define SWCR_MAP_DMZ (1ul << 12)
#define SWCR_MAP_UMZ (1ul << 13)

static uint64_t bits(double d) { uint64_t u; memcpy(&u, &d, sizeof u); return u; }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }
static double dbl(uint64_t u) { double d; memcpy(&d, &u, sizeof d); return d; }
static float flt(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }

/* Prints a double as hex float, decimal and bit pattern (a NaN without its sign). */
static void show(const char *tag, double d)
{
  if (isnan(d))
    printf("%-30s nan %016llx\n", tag, (unsigned long long)(bits(d) & ~(1ull << 63)));
  else
    printf("%-30s %a %.17g %016llx\n", tag, d, d, (unsigned long long)bits(d));
}

/* Prints a float the same way. */
static void showf(const char *tag, float f)
{
  if (isnan(f))
    printf("%-30s nan %08x\n", tag, (unsigned)(fbits(f) & 0x7FFFFFFFu));
  else
    printf("%-30s %a %.9g %08x\n", tag, (double)f, (double)f, (unsigned)fbits(f));
}

/* Prints a 64-bit integer result. */
static void showl(const char *tag, long v)
{
  printf("%-30s %ld %016lx\n", tag, v, (unsigned long)v);
}

/* Prints and clears the raised status flags (SWCR bits 17-22). */
static void flags(const char *tag)
{
  int f = fetestexcept(FE_ALL_EXCEPT);
  printf("%-30s flags %06x%s%s%s%s%s%s\n", tag, (unsigned)f,
         f & FE_INVALID ? " INV" : "", f & FE_DIVBYZERO ? " DZE" : "",
         f & FE_OVERFLOW ? " OVF" : "", f & FE_UNDERFLOW ? " UNF" : "",
         f & FE_INEXACT ? " INE" : "", f & (1 << 22) ? " IOV" : "");
  feclearexcept(FE_ALL_EXCEPT);
}

static double divt_sud(double a, double b)
{
  double r;
  __asm__ volatile("divt/sud %1,%2,%0" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

static double divt_suc(double a, double b)
{
  double r;
  __asm__ volatile("divt/suc %1,%2,%0" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

static double divt_sum(double a, double b)
{
  double r;
  __asm__ volatile("divt/sum %1,%2,%0" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

static float divs_sud(float a, float b)
{
  float r;
  __asm__ volatile("divs/sud %1,%2,%0" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

static double addt_su(double a, double b)
{
  double r;
  __asm__ volatile("addt/su %1,%2,%0" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

static double mult_su(double a, double b)
{
  double r;
  __asm__ volatile("mult/su %1,%2,%0" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

static void arithmetic(void)
{
  volatile double one = 1.0, three = 3.0, ten = 10.0, two = 2.0, a = 0.1, b = 0.2;
  volatile float onef = 1.0f, threef = 3.0f, twof = 2.0f;
  show("1/3", one / three);
  show("-1/3", -one / three);
  show("1/10", one / ten);
  show("0.1+0.2", a + b);
  show("sqrt(2)", sqrt(two));
  showf("1f/3f", onef / threef);
  showf("sqrtf(2f)", sqrtf(twof));
  showf("1f+2^-24 (ties to even)", onef + 0x1p-24f);
  flags("arithmetic (no /i: no INE)");
}

static void rounding(void)
{
  static const struct { int mode; const char *name; } m[] = {
    { FE_TONEAREST, "nearest" }, { FE_UPWARD, "upward" },
    { FE_DOWNWARD, "downward" }, { FE_TOWARDZERO, "towardzero" },
  };
  volatile double one = 1.0, three = 3.0, ten = 10.0, x = 2.5, y = -2.5;
  volatile float onef = 1.0f, threef = 3.0f;
  char tag[64];
  for (int i = 0; i < 4; i++) {
    fesetround(m[i].mode);
    printf("fegetround %s = %d\n", m[i].name, fegetround() == m[i].mode);
    snprintf(tag, sizeof tag, "divt/sud 1/3 %s", m[i].name);
    show(tag, divt_sud(one, three));
    snprintf(tag, sizeof tag, "divt/sud -1/3 %s", m[i].name);
    show(tag, divt_sud(-one, three));
    snprintf(tag, sizeof tag, "divs/sud 1/3 %s", m[i].name);
    showf(tag, divs_sud(onef, threef));
    snprintf(tag, sizeof tag, "C 1/3 (/su) %s", m[i].name);
    show(tag, one / three);
    snprintf(tag, sizeof tag, "rint(2.5) %s", m[i].name);
    show(tag, rint(x));
    snprintf(tag, sizeof tag, "rint(-2.5) %s", m[i].name);
    show(tag, rint(y));
  }
  fesetround(FE_TONEAREST);
  show("divt/suc 1/10", divt_suc(one, ten));
  show("divt/sum -1/10", divt_sum(-one, ten));
  show("divt/su 1/10", one / ten);
  flags("rounding");
}

static void exceptions(void)
{
  volatile double zero = 0.0, one = 1.0, big = DBL_MAX, t1 = 1e-300, t2 = 5e-11;
  volatile double inf = INFINITY;
  volatile float bigf = FLT_MAX, tf1 = 1e-30f, tf2 = 1e-20f;
  feclearexcept(FE_ALL_EXCEPT);
  show("1/0", one / zero);
  flags("1/0");
  show("-1/0", -one / zero);
  flags("-1/0");
  show("0/0", zero / zero);
  flags("0/0");
  show("sqrt(-1)", sqrt(-one));
  flags("sqrt(-1)");
  show("inf-inf", inf - inf);
  flags("inf-inf");
  show("0*inf", zero * inf);
  flags("0*inf");
  show("max*2", big * 2.0);
  flags("max*2");
  show("1e-300*5e-11", t1 * t2);
  flags("1e-300*5e-11");
  showf("fltmax*2f", bigf * 2.0f);
  flags("fltmax*2f");
  showf("1e-30f*1e-20f", tf1 * tf2);
  flags("1e-30f*1e-20f");
  show("min/2 (exact denormal)", DBL_MIN / (one + one));
  flags("min/2");
  feraiseexcept(FE_INEXACT | FE_UNDERFLOW);
  flags("feraiseexcept(INE|UNF)");
}

static void casts(void)
{
  volatile double e19 = 1e19, me19 = -1e19, big = 1e300, x = -2.7, h = 2.5, g = 3e9;
  volatile double small = 1e-50;
  volatile double nan_ = NAN, inf = INFINITY, p63 = 0x1p63, m63 = -0x1p63;
  volatile long q = (1L << 53) + 1, q24 = 16777217;
  feclearexcept(FE_ALL_EXCEPT);
  showl("(long)1e19", (long)e19);
  flags("(long)1e19");
  showl("(long)-1e19", (long)me19);
  flags("(long)-1e19");
  showl("(long)1e300", (long)big);
  flags("(long)1e300");
  showl("(long)2^63", (long)p63);
  flags("(long)2^63");
  showl("(long)-2^63", (long)m63);
  flags("(long)-2^63");
  showl("(long)NaN", (long)nan_);
  flags("(long)NaN");
  showl("(long)inf", (long)inf);
  flags("(long)inf");
  showl("(unsigned long)1e19", (long)(unsigned long)e19);
  flags("(unsigned long)1e19");
  showl("(int)3e9", (int)g);
  flags("(int)3e9");
  showl("(long)-2.7", (long)x);
  showl("(long)2.5", (long)h);
  show("(double)(2^53+1)", (double)q);
  showf("(float)(2^24+1)", (float)q24);
  showf("(float)1e300", (float)big);
  flags("(float)1e300");
  showf("(float)1e-50", (float)small);
  flags("(float)1e-50");
}

static void compares(void)
{
  volatile double one = 1.0, two = 2.0, nan_ = NAN, pz = 0.0, mz = -0.0, inf = INFINITY;
  feclearexcept(FE_ALL_EXCEPT);
  printf("1<2 %d 2<1 %d 2<=2 %d -0==0 %d inf>max %d\n", one < two, two < one, two <= two,
         mz == pz, inf > DBL_MAX);
  flags("ordered compares");
  printf("nan==nan %d nan!=1 %d\n", nan_ == nan_, nan_ != one);
  flags("nan == (quiet)");
  printf("nan<1 %d\n", nan_ < one);
  flags("nan < (signalling)");
  printf("isunordered(nan,1) %d isless(nan,1) %d\n", isunordered(nan_, one), isless(nan_, one));
  flags("isunordered/isless (quiet)");
}

static void nan_propagation(void)
{
  volatile double qa = dbl(0x7FF8000000000001ull), qb = dbl(0x7FF8000000000002ull);
  volatile double sb = dbl(0x7FF0000000000002ull), one = 1.0;
  feclearexcept(FE_ALL_EXCEPT);
  show("addt/su qNaN_a,qNaN_b -> b", addt_su(qa, qb));
  show("addt/su qNaN_a,1 -> a", addt_su(qa, one));
  flags("quiet NaN operands");
  show("addt/su 1,sNaN_b -> quiet b", addt_su(one, sb));
  flags("signalling NaN operand");
  show("mult/su sNaN_b,qNaN_a -> a", mult_su(sb, qa));
  flags("sNaN in Fa, qNaN in Fb");
}

static void single_format(void)
{
  volatile float dn = flt(0x00000001), dn2 = flt(0x00400000), inf = flt(0x7F800000);
  volatile float qn = flt(0x7FC00001), mz = flt(0x80000000);
  showf("smallest S denormal", dn);
  show("(double) of it (cvtst)", (double)dn);
  show("(double) of 2^-127", (double)dn2);
  showf("S inf", inf);
  showf("S qNaN payload 1", qn);
  show("(double) S qNaN (cvtst)", (double)qn);
  showf("S -0", mz);
  showf("denormal*2f", dn * 2.0f);
  flags("single format");
}

static sigjmp_buf jb;

static void on_fpe(int sig)
{
  siglongjmp(jb, sig);
}

static void traps(void)
{
  volatile double zero = 0.0, one = 1.0, e19 = 1e19, big = DBL_MAX;
  volatile double r = 0.0;
  volatile long l = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fpe;
  sigaction(SIGFPE, &sa, NULL);
  feclearexcept(FE_ALL_EXCEPT);

  feenableexcept(FE_DIVBYZERO);
  printf("fegetexcept %06x\n", (unsigned)fegetexcept());
  if (sigsetjmp(jb, 1) == 0) {
    r = one / zero;
    printf("1/0 with DZE enabled: no trap %g\n", r);
  } else {
    printf("1/0 with DZE enabled: SIGFPE\n");
  }
  if (sigsetjmp(jb, 1) == 0) {
    r = big * big;
    printf("max*max with only DZE enabled: no trap %g\n", r);
  } else {
    printf("max*max with only DZE enabled: SIGFPE\n");
  }
  fedisableexcept(FE_ALL_EXCEPT);
  feenableexcept(FE_INVALID);
  if (sigsetjmp(jb, 1) == 0) {
    l = (long)e19;
    printf("(long)1e19 with INV enabled: no trap %ld\n", l);
  } else {
    printf("(long)1e19 with INV enabled: SIGFPE\n");
  }
  fedisableexcept(FE_ALL_EXCEPT);
  printf("fegetexcept %06x\n", (unsigned)fegetexcept());
  flags("after traps");
}

static void maps(void)
{
  volatile double t1 = 1e-300, t2 = 5e-11, dn = dbl(1), one = 1.0;
  unsigned long sw = __ieee_get_fp_control();
  printf("swcr %06lx\n", sw);
  __ieee_set_fp_control(sw | SWCR_MAP_UMZ);
  show("UMZ 1e-300*5e-11", t1 * t2);
  feclearexcept(FE_ALL_EXCEPT);
  __ieee_set_fp_control(sw | SWCR_MAP_DMZ);
  show("DMZ denormal+1", dn + one);
  show("DMZ 1/denormal", one / dn);
  flags("DMZ");
  __ieee_set_fp_control(sw);
  show("denormal+1", dn + one);
  flags("no map");
  feraiseexcept(FE_DIVBYZERO);
  printf("swcr after feraiseexcept(DZE) %06lx\n", __ieee_get_fp_control());
  feclearexcept(FE_ALL_EXCEPT);
  printf("swcr after feclearexcept %06lx\n", __ieee_get_fp_control());
}

int main(void)
{
  arithmetic();
  rounding();
  exceptions();
  casts();
  compares();
  nan_propagation();
  single_format();
  traps();
  maps();
  return 0;
}
