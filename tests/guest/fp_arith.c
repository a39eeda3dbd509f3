/* Floating-point arithmetic: IEEE double and single operations, conversions
 * (cvttq/cvtqt/cvtts/cvtst), special values (inf, nan, -0, denormals),
 * compares with NaN, rounding functions, and the fenv status flags that
 * glibc keeps in the software control word. */
//@ isa
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Returns the bit pattern of a double. */
static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* Returns the bit pattern of a float. */
static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Prints which of the five IEEE status flags are set. */
static void flags(const char *tag)
{
    printf("%s:%s%s%s%s%s\n", tag, fetestexcept(FE_INVALID) ? " INV" : "",
           fetestexcept(FE_DIVBYZERO) ? " DZE" : "", fetestexcept(FE_OVERFLOW) ? " OVF" : "",
           fetestexcept(FE_UNDERFLOW) ? " UNF" : "", fetestexcept(FE_INEXACT) ? " INE" : "");
}

int main(void)
{
    volatile double a = 1.0, b = 3.0, z = 0.0, big = 1e308, tiny = 1e-308;
    volatile float fa = 1.0f, fb = 3.0f;
    printf("div %.17g %016llx\n", a / b, (unsigned long long)bits(a / b));
    printf("fdiv %.9g %08x\n", (double)(fa / fb), fbits(fa / fb));
    printf("ops %.17g %.17g %.17g %.17g\n", a + b * 1e-17, b - a / 7, b * b * b / 7, sqrt(b));
    printf("fops %.9g %.9g %.9g\n", (double)(fa + fb / 7), (double)(fb * fb - fa / 3),
           (double)sqrtf(fb));

    feclearexcept(FE_ALL_EXCEPT);
    flags("clear");
    volatile double r = a / z;
    printf("1/0=%g bits=%016llx\n", r, (unsigned long long)bits(r));
    flags("after 1/0");
    feclearexcept(FE_ALL_EXCEPT);
    r = z / z;
    /* Not the sign: qemu 7.2 gives +NaN, the Alpha kernel's soft-fp -NaN. */
    printf("0/0 isnan=%d\n", isnan(r));
    flags("after 0/0");
    feclearexcept(FE_ALL_EXCEPT);
    r = big * 10;
    printf("overflow %g\n", r);
    flags("after big*10");
    feclearexcept(FE_ALL_EXCEPT);
    r = tiny / 1e10;
    printf("denormal %g bits=%016llx\n", r, (unsigned long long)bits(r));
    flags("after tiny/1e10");
    feclearexcept(FE_ALL_EXCEPT);
    r = tiny * tiny;
    printf("underflow to %g\n", r);
    flags("after tiny*tiny");
    feclearexcept(FE_ALL_EXCEPT);
    feraiseexcept(FE_INEXACT | FE_OVERFLOW);
    flags("raised INE|OVF");
    feclearexcept(FE_ALL_EXCEPT);

    volatile double nz = -0.0, nan = NAN, inf = INFINITY;
    printf("-0: %g %d %d %g\n", nz, nz == 0.0, signbit(nz) != 0, 1.0 / nz);
    printf("nan cmp: %d %d %d %d %d\n", nan == nan, nan < 1.0, nan > 1.0, nan != nan,
           isunordered(nan, 1.0));
    printf("inf: %g %g %d %g\n", inf - 1e308, -inf, inf > DBL_MAX, inf * 0.0 != inf * 0.0 ? 1.0 : 0.0);
    printf("minmax: %g %g %g %g\n", fmin(nan, 2.0), fmax(-0.0, 0.0), fmin(-1.5, 3.0), DBL_MIN / 2);

    /* Conversions between integer and floating types. */
    static const double cv[] = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e15 + 0.5, -123456789.987,
                                4503599627370497.0, 9.2233720368547748e18, -9.2233720368547758e18};
    for (unsigned i = 0; i < sizeof cv / sizeof cv[0]; i++) {
        volatile double d = cv[i];
        printf("cvt %.17g: trunc=%lld rint=%.1f round=%.1f floor=%.1f ceil=%.1f lrint=%ld "
               "f=%.9g\n",
               d, (long long)d, rint(d), round(d), floor(d), ceil(d), lrint(d), (double)(float)d);
    }
    volatile int64_t iv = 0x7fffffffffffffffLL;
    volatile uint64_t uv = 0xffffffffffffffffULL;
    volatile int32_t i32 = -2147483647 - 1;
    printf("i2f: %.17g %.17g %.17g %.9g %.9g\n", (double)iv, (double)uv, (double)i32,
           (double)(float)iv, (double)(float)uv);
    volatile uint64_t u53 = (1ULL << 53) + 1;
    printf("u53: %.17g %.9g\n", (double)u53, (double)(float)u53);
    volatile double du = 1.8446744073709550e19;
    printf("d2u: %llu\n", (unsigned long long)du);
    volatile float fsub = 1e-40f;
    printf("float denorm %g %08x -> double %.17g\n", (double)fsub, fbits(fsub), (double)fsub);
    volatile double dd = 3.4028235677973366e38;
    printf("double->float overflow %g\n", (double)(float)dd);

    /* Rounding modes: libm functions honour them (they use /d instructions). */
    static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    static const char *names[] = {"nearest", "upward", "downward", "towardzero"};
    volatile double h25 = 2.5, h15 = 1.5, h35 = -3.5;
    for (int m = 0; m < 4; m++) {
        fesetround(modes[m]);
        printf("round %s: get=%d rint(2.5)=%g rint(-2.5)=%g nearbyint(1.5)=%g lrint(-3.5)=%ld\n",
               names[m], fegetround() == modes[m], rint(h25), rint(-h25), nearbyint(h15),
               lrint(h35));
    }
    fesetround(FE_TONEAREST);

    /* Accumulations that are sensitive to every rounding step. */
    double s = 0, k = 0, p = 1;
    for (int i = 1; i <= 100000; i++) {
        s += 1.0 / i;
        k += (i & 1 ? 1.0 : -1.0) / (2 * i - 1);
        p *= 1.0 + 1.0 / (i + 1e6);
    }
    printf("harmonic %.17g leibniz %.17g prod %.17g\n", s, 4 * k, p);
    float fs = 0;
    for (int i = 1; i <= 10000; i++)
        fs += 1.0f / (float)i;
    printf("fharmonic %.9g\n", (double)fs);
    double x = 0.5;
    for (int i = 0; i < 1000; i++)
        x = 3.9 * x * (1 - x);
    printf("logistic %.17g\n", x);
    double fm = fma(0.1, 10.0, -1.0);
    printf("fma %.17g copysign %g nextafter %.17g\n", fm, copysign(3.0, -0.0), nextafter(1.0, 2.0));
    return 0;
}
