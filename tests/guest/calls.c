/* Calling convention and control flow: more than six integer and FP
 * arguments (the rest go on the stack), variadic functions mixing int,
 * double and long double (va_arg over the Alpha register save area),
 * structs passed and returned by value (small in registers, large through
 * memory), deep recursion, function pointer tables, switch jump tables,
 * computed goto, alloca and variable-length arrays. */
#include <alloca.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Returns a weighted sum of ten mixed integer and FP arguments. */
__attribute__((noinline)) static double many(int a, double b, long c, float d, short e, double f,
                                              char g, double h, long i, double j)
{
    return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;
}

/* Sums n variadic values described by fmt: 'i' int, 'l' long, 'd' double, 'L' long double. */
static double vsum(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    double s = 0;
    for (const char *p = fmt; *p; p++) {
        switch (*p) {
        case 'i': s += va_arg(ap, int); break;
        case 'l': s += (double)va_arg(ap, long); break;
        case 'd': s += va_arg(ap, double); break;
        case 'L': s += (double)va_arg(ap, long double); break;
        }
    }
    va_end(ap);
    return s;
}

/* Formats through a va_list passed on, and a copy of it. */
static int vformat(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int r = vsnprintf(buf, n, fmt, ap);
    char tmp[128];
    int r2 = vsnprintf(tmp, sizeof tmp, fmt, aq);
    va_end(aq);
    va_end(ap);
    return r == r2 && strcmp(buf, tmp) == 0 ? r : -1;
}

struct small { int32_t x, y; };
struct pairf { double re, im; };
struct big { long v[10]; char tag[16]; };

__attribute__((noinline)) static struct small add_small(struct small a, struct small b)
{
    return (struct small){a.x + b.x, a.y * b.y};
}

__attribute__((noinline)) static struct pairf cmul(struct pairf a, struct pairf b)
{
    return (struct pairf){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

__attribute__((noinline)) static struct big make_big(struct big in, int k)
{
    for (int i = 0; i < 10; i++)
        in.v[i] = in.v[i] * k + i;
    snprintf(in.tag, sizeof in.tag, "big*%d", k);
    return in;
}

/* Ackermann's function: deep, non-tail recursion. */
static long ack(long m, long n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ack(m - 1, 1);
    return ack(m - 1, ack(m, n - 1));
}

static long op_add(long a, long b) { return a + b; }
static long op_sub(long a, long b) { return a - b; }
static long op_mul(long a, long b) { return a * b; }
static long op_div(long a, long b) { return b ? a / b : 0; }

/* A dense switch: compiled to a jump table. */
__attribute__((noinline)) static int classify(int v)
{
    switch (v) {
    case 0: return 10;
    case 1: return 21;
    case 2: return 32;
    case 3: return 43;
    case 4: return 54;
    case 5: return 65;
    case 6: return 76;
    case 7: return 87;
    case 8: return 98;
    case 9: return 109;
    case 10: return 120;
    default: return -1;
    }
}

/* A tiny bytecode interpreter using computed goto; returns the accumulator. */
static long run_bytecode(const unsigned char *code)
{
    static void *labels[] = {&&op_halt, &&op_inc, &&op_dbl, &&op_jnz};
    long acc = 0, counter = 5;
    const unsigned char *pc = code;
#define NEXT goto *labels[*pc++]
    NEXT;
op_inc:
    acc++;
    NEXT;
op_dbl:
    acc *= 2;
    NEXT;
op_jnz:
    if (--counter)
        pc = code;
    NEXT;
op_halt:
    return acc;
#undef NEXT
}

/* Uses a VLA and alloca sized by n; returns a checksum. */
__attribute__((noinline)) static long stack_arrays(int n)
{
    long vla[n];
    long *al = alloca((size_t)n * sizeof *al);
    for (int i = 0; i < n; i++) {
        vla[i] = i * 3;
        al[i] = vla[i] ^ (i << 4);
    }
    long s = 0;
    for (int i = 0; i < n; i++)
        s += al[i] * (i + 1);
    return s;
}

int main(void)
{
    printf("many=%.17g\n", many(1, 2.5, 3, 4.25f, 5, 6.125, 7, 8.0625, 9, 10.5));
    printf("vsum=%.17g\n", vsum("idldLidLdl", 1, 2.5, 3L, 4.25, 5.5L, 6, 7.75, 8.125L, 9.0, 10L));
    printf("vsum many=%.17g\n", vsum("dddddddddddiiiii", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,
                                     11.0, 12, 13, 14, 15, 16));
    char buf[128];
    int r = vformat(buf, sizeof buf, "%d|%s|%.3f|%c|%lx|%Lg", -42, "str", 3.14159, 'q', 0xabcdefUL, 2.5L);
    printf("vformat r=%d [%s]\n", r, buf);

    struct small s = add_small((struct small){3, 4}, (struct small){5, 6});
    printf("small struct: %d %d\n", s.x, s.y);
    struct pairf z = {1, 1};
    for (int i = 0; i < 10; i++)
        z = cmul(z, (struct pairf){0.5, 1.25});
    printf("complex power: %.17g %.17g\n", z.re, z.im);
    struct big b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < 10; i++)
        b.v[i] = i * i;
    struct big b2 = make_big(b, 3);
    printf("big struct: %ld %ld %s (original %ld)\n", b2.v[0], b2.v[9], b2.tag, b.v[9]);

    printf("ack(2,3)=%ld ack(3,5)=%ld\n", ack(2, 3), ack(3, 5));
    long (*ops[])(long, long) = {op_add, op_sub, op_mul, op_div};
    long acc = 100;
    for (int i = 0; i < 12; i++)
        acc = ops[i % 4](acc, i + 1);
    printf("function pointers: %ld\n", acc);
    int cs = 0;
    for (int i = -2; i < 14; i++)
        cs = cs * 3 + classify(i);
    printf("switch: %d\n", cs);
    static const unsigned char prog[] = {1, 2, 1, 3, 0};
    printf("computed goto: %ld\n", run_bytecode(prog));
    printf("vla/alloca: %ld %ld\n", stack_arrays(10), stack_arrays(5000));
    return 0;
}
