/* Floating-point text conversion: printf %f %e %g %a of doubles, floats and
 * long doubles (IEEE quad on Alpha, done in software by libgcc/glibc), and
 * strtod/strtof/strtold parsing with round trips. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double values[] = {
    0.0, -0.0, 1.0, -1.5, 0.1, 1.0 / 3, 2.0 / 3, 123456.789, 1e-5, 1e21, 1.7976931348623157e308,
    2.2250738585072014e-308, 4.9406564584124654e-324, 3.141592653589793, 2.718281828459045,
    9007199254740993.0, 0.000123456789, 5e-324 * 3, 1e100, 6.02214076e23,
};

int main(void)
{
    for (unsigned i = 0; i < sizeof values / sizeof values[0]; i++) {
        double d = values[i];
        printf("%g|%e|%.3f|%a|%.17g|%12.4e|%-10.2g|%+.0f\n", d, d, d, d, d, d, d, d);
    }
    printf("%f %f %f %F\n", INFINITY, -INFINITY, NAN, INFINITY);
    printf("%.30f\n", 0.1);
    printf("%.0f %.0f %.0f %.0f\n", 0.5, 1.5, 2.5, -0.5);
    printf("%.20e\n", 1e300 * 1e8);
    printf("%#g %#.0f %#x %#o\n", 1.0, 2.0, 255, 8);
    printf("%f\n", 1e300);
    float f = 16777217.0f;
    printf("float %.9g %a %g\n", (double)f, (double)(1.0f / 3), (double)FLT_MAX);

    /* long double is IEEE binary128 on Alpha Linux, emulated in software. */
    long double ld = 1.0L / 3;
    printf("ld %.35Lg\n", ld);
    printf("ld %La\n", ld);
    printf("ld %.25Le %Lf\n", (long double)3.141592653589793238462643383279502884L, 1e30L);
    long double acc = 0;
    for (int i = 1; i <= 200; i++)
        acc += 1.0L / ((long double)i * i);
    printf("ld zeta2 %.33Lg sqrt %.33Lg\n", acc, sqrtl(6 * acc));
    printf("ld max %Lg min %Lg eps %Lg\n", LDBL_MAX, LDBL_MIN, LDBL_EPSILON);
    long double fact = 1;
    for (int i = 1; i <= 30; i++)
        fact *= i;
    printf("ld 30! %.0Lf\n", fact);
    printf("ld cvt %lld %.17g %.9g\n", (long long)(fact / 1e20L), (double)ld, (double)(float)ld);

    static const char *inputs[] = {
        "0", "1e-400", "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
        "1.7976931348623158e308", "1.7976931348623159e308", "0x1.fffffffffffffp1023", "0x1p-1074",
        "  -12.5e+3xyz", "inf", "-Infinity", "nan", "nan(123)", "1e", ".5", "123456789012345678901234567890",
        "3.14159265358979323846264338327950288", "0.1000000000000000055511151231257827",
        "100000000000000016777215", "100000000000000016777216",
    };
    for (unsigned i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        char *end;
        double d = strtod(inputs[i], &end);
        float fl = strtof(inputs[i], NULL);
        long double l = strtold(inputs[i], NULL);
        printf("strtod(\"%s\") = %.17g [%a] rest=\"%s\" f=%.9g ld=%.36Lg\n", inputs[i], d, d, end,
               (double)fl, l);
    }

    /* Every double printed with %.17g must read back exactly. */
    unsigned long long x = 88172645463325252ULL;
    int bad = 0;
    char buf[64];
    for (int i = 0; i < 3000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        double d;
        unsigned long long bits = x & 0x7fefffffffffffffULL;
        memcpy(&d, &bits, sizeof d);
        snprintf(buf, sizeof buf, "%.17g", d);
        if (strtod(buf, NULL) != d)
            bad++;
        snprintf(buf, sizeof buf, "%a", d);
        if (strtod(buf, NULL) != d)
            bad++;
    }
    printf("round trips failed: %d\n", bad);
    double sum = 0;
    for (int i = 0; i < 2000; i++) {
        snprintf(buf, sizeof buf, "%.6f", i * 1.001 - 700);
        sum += atof(buf);
    }
    printf("sum %.10f\n", sum);
    return 0;
}
