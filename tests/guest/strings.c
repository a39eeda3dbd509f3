/* string.h and friends at every alignment and length (glibc's Alpha
 * memcpy/strlen/memchr use ldq_u, cmpbge, ext/ins/msk), snprintf with
 * truncation, strtol/strtoul in several bases with overflow. */
//@ isa
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char src[512], dst[512], ref[512];

/* Folds the bytes of a buffer into a checksum. */
static uint32_t sum(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    while (n--)
        h = (h ^ *p++) * 16777619u;
    return h;
}

/* Byte-at-a-time reference copy, for checking memmove. */
static void ref_move(unsigned char *d, const unsigned char *s, size_t n)
{
    unsigned char tmp[512];
    for (size_t i = 0; i < n; i++)
        tmp[i] = s[i];
    for (size_t i = 0; i < n; i++)
        d[i] = tmp[i];
}

int main(void)
{
    for (int i = 0; i < 512; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    int bad = 0;
    uint32_t h = 0;
    for (int so = 0; so < 8; so++)
        for (int dof = 0; dof < 8; dof++)
            for (int n = 0; n < 80; n += (n < 20 ? 1 : 7)) {
                memset(dst, 0xaa, sizeof dst);
                memcpy(dst + dof, src + so, (size_t)n);
                memset(ref, 0xaa, sizeof ref);
                ref_move(ref + dof, src + so, (size_t)n);
                bad += memcmp(dst, ref, sizeof dst) != 0;
                /* Overlapping moves in both directions. */
                memcpy(dst, src, sizeof dst);
                memcpy(ref, src, sizeof ref);
                memmove(dst + dof + 3, dst + so, (size_t)n);
                ref_move(ref + dof + 3, ref + so, (size_t)n);
                bad += memcmp(dst, ref, sizeof dst) != 0;
                memmove(dst + so, dst + dof + 5, (size_t)n);
                ref_move(ref + so, ref + dof + 5, (size_t)n);
                bad += memcmp(dst, ref, sizeof dst) != 0;
                memset(dst + dof, so, (size_t)n);
                h = h * 31 + sum(dst, sizeof dst);
            }
    printf("memcpy/memmove/memset mismatches=%d hash=%08x\n", bad, h);

    char buf[300];
    size_t lens = 0;
    for (int off = 0; off < 16; off++)
        for (int n = 0; n < 70; n++) {
            memset(buf, 'x', sizeof buf);
            buf[off + n] = 0;
            lens += strlen(buf + off) == (size_t)n;
            lens += strnlen(buf + off, 40) == (size_t)(n < 40 ? n : 40);
            char *p = memchr(buf + off, 0, 100);
            lens += p == buf + off + n;
            lens += strchr(buf + off, 0) == buf + off + n;
            if (n > 0)
                buf[off + n / 2] = 'y';
            lens += strchr(buf + off, 'y') == (n ? buf + off + n / 2 : NULL);
            lens += strrchr(buf + off, 'x') == (n > 1 ? buf + off + n - 1 - (n == 2) : NULL);
        }
    printf("strlen-family checks passed: %zu of %d\n", lens, 16 * 70 * 6);

    const char *a = "The quick brown fox jumps over the lazy dog";
    printf("strstr=%s|strpbrk=%s|strspn=%zu|strcspn=%zu\n", strstr(a, "fox"), strpbrk(a, "zq"),
           strspn(a, "The "), strcspn(a, "xyz"));
    printf("cmp: %d %d %d %d %d\n", strcmp("abc", "abd") < 0, strcmp("abc", "abc"),
           strncmp("abcdef", "abcxyz", 3), memcmp("\x80", "\x01", 1) > 0, strcasecmp("HeLLo", "hello"));
    char copy[64];
    strcpy(copy, "alpha");
    strcat(copy, "-beta");
    strncat(copy, "-gammadelta", 6);
    printf("copy=%s len=%zu\n", copy, strlen(copy));
    char *dup = strdup(a);
    char *save, *tok;
    int ntok = 0;
    for (tok = strtok_r(dup, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
        printf("%s%s", ntok++ ? "," : "tokens:", tok);
    printf(" (%d)\n", ntok);
    free(dup);
    for (char *p = copy; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    printf("upper=%s\n", copy);
    char *st = stpcpy(copy, "stp");
    printf("stpcpy end=%td\n", st - copy);

    char small[10];
    int r = snprintf(small, sizeof small, "%s-%d-%x", "abcdef", 12345, 0xbeef);
    printf("snprintf r=%d buf=%s\n", r, small);
    r = snprintf(NULL, 0, "%08.3f|%-5s|%5s|%c|%%|%lld|%llu|%p", 3.14159, "ab", "cd", 'Z',
                 (long long)LLONG_MIN, (unsigned long long)ULLONG_MAX, (void *)0);
    printf("snprintf size=%d\n", r);
    snprintf(buf, sizeof buf, "%08.3f|%-5s|%5s|%c|%%|%lld|%llu|%+d|% d|%o|%X|%hhd|%hd|%zu", 3.14159,
             "ab", "cd", 'Z', (long long)LLONG_MIN, (unsigned long long)ULLONG_MAX, 5, 6, 511,
             0xabcdef, 300, 70000, (size_t)12);
    printf("%s\n", buf);

    static const struct {
        const char *s;
        int base;
    } nums[] = {
        {"12345", 10}, {"-987654321", 10}, {"0x7fffffffffffffff", 16}, {"0x8000000000000000", 16},
        {"-9223372036854775808", 10}, {"-9223372036854775809", 0}, {"777", 8}, {"0777", 0},
        {"0x1F", 0}, {"z", 36}, {"  +42abc", 10}, {"", 10}, {"18446744073709551615", 10},
        {"18446744073709551616", 10}, {"-1", 10}, {"1010", 2},
    };
    for (unsigned i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        char *end;
        errno = 0;
        long v = strtol(nums[i].s, &end, nums[i].base);
        int e1 = errno;
        errno = 0;
        unsigned long u = strtoul(nums[i].s, NULL, nums[i].base);
        int e2 = errno;
        printf("strtol(\"%s\",%d)=%ld erange=%d rest=\"%s\" strtoul=%lu erange=%d\n", nums[i].s,
               nums[i].base, v, e1 == ERANGE, end, u, e2 == ERANGE);
    }
    printf("atoi=%d atol=%ld\n", atoi("  -77x"), atol("123456789012"));
    return 0;
}
