/* The math library: elementary functions in double, float and long double
 * precision (libm's Alpha code uses /d rounding and FP compares), printed
 * with enough digits to catch a wrong last bit. */
#include <math.h>
#include <stdio.h>

typedef double (*fn1)(double);

static const struct {
    const char *name;
    fn1 f;
} funcs[] = {
    {"sin", sin}, {"cos", cos}, {"tan", tan}, {"asin", asin}, {"acos", acos}, {"atan", atan},
    {"sinh", sinh}, {"cosh", cosh}, {"tanh", tanh}, {"exp", exp}, {"exp2", exp2},
    {"expm1", expm1}, {"log", log}, {"log2", log2}, {"log10", log10}, {"log1p", log1p},
    {"sqrt", sqrt}, {"cbrt", cbrt}, {"erf", erf}, {"erfc", erfc}, {"lgamma", lgamma},
    {"tgamma", tgamma}, {"floor", floor}, {"ceil", ceil}, {"round", round}, {"trunc", trunc},
    {"fabs", fabs}, {"asinh", asinh}, {"atanh", atanh}, {"j0", j0}, {"y0", y0},
};

/* Prints d, writing every NaN as "nan": the sign of a default NaN differs between
 * qemu 7.2 (+) and the Alpha kernel's soft-fp (-), so it is not tested. */
static void pd(double d)
{
    if (isnan(d))
        printf(" nan");
    else
        printf(" %.17g", d);
}

static const double args[] = {-0.75, 0.0, 1e-10, 0.1, 0.5, 0.9999, 1.0, 2.0, 3.5, 10.0, 100.0, 1e6};

int main(void)
{
    for (unsigned i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
        printf("%-6s", funcs[i].name);
        for (unsigned j = 0; j < sizeof args / sizeof args[0]; j++)
            pd(funcs[i].f(args[j]));
        printf("\n");
    }
    printf("pow");
    pd(pow(2, 0.5)), pd(pow(10, -3)), pd(pow(-8, 1.0 / 3)), pd(pow(1.0000001, 1e7));
    pd(pow(-2, 63)), pd(pow(0, -1));
    printf("\n");
    printf("atan2 %.17g %.17g %.17g %.17g\n", atan2(1, -1), atan2(-0.0, -1), atan2(3, 4), atan2(0, 0));
    printf("hypot %.17g %.17g fmod %.17g %.17g remainder %.17g %.17g\n", hypot(3, 4),
           hypot(1e300, 1e300), fmod(10, 3.3), fmod(-7.5, 2), remainder(10, 3.3), remainder(7.5, 2));
    int e;
    double m = frexp(1234.5678, &e);
    double ip;
    double fp = modf(-3.75, &ip);
    printf("frexp %.17g %d ldexp %.17g modf %g %g scalbn %g logb %g ilogb %d\n", m, e,
           ldexp(0.75, 1000), fp, ip, scalbn(1.5, -1070), logb(1e-310), ilogb(1e300));
    printf("sincos-large %.17g %.17g %.17g\n", sin(1e22), cos(1e300), tan(1e15));

    float fa[] = {0.3f, 1.7f, 25.0f, -4.2f};
    for (unsigned i = 0; i < 4; i++)
        printf("float %.9g: sinf %.9g expf %.9g logf %.9g powf %.9g sqrtf %.9g atanf %.9g\n",
               (double)fa[i], (double)sinf(fa[i]), (double)expf(fa[i]), (double)logf(fabsf(fa[i])),
               (double)powf(fabsf(fa[i]), 1.3f), (double)sqrtf(fabsf(fa[i])), (double)atanf(fa[i]));

    long double la[] = {0.3L, 1.7L, 25.0L};
    for (unsigned i = 0; i < 3; i++)
        printf("ldouble %.3Lg: sinl %.33Lg expl %.33Lg logl %.33Lg sqrtl %.33Lg\n", la[i],
               sinl(la[i]), expl(la[i]), logl(la[i]), sqrtl(la[i]));
    printf("powl %.33Lg\n", powl(2.0L, 0.5L));

    /* Series that feed results back into the library, so an error compounds. */
    double x = 0.7;
    for (int i = 0; i < 2000; i++)
        x = sin(x) + cos(x * 1.3) - exp(-x) * 0.5 + log1p(fabs(x)) * 0.1;
    printf("chain %.17g\n", x);
    double s = 0;
    for (int i = 1; i < 3000; i++)
        s += pow(i, -1.5) * atan(i) + sqrt(i) * 1e-6 - cbrt(i) * 1e-7 + tanh(i * 0.001);
    printf("sum %.17g\n", s);
    return 0;
}
