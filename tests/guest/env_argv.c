/* Program arguments and environment as the loader lays them out: argc,
 * argv[] contents (the runner passes the arguments given on the args line
 * below), argv[argc] == NULL, environ sorted (qemu 7.2 reverses its order,
 * Linux keeps it), getenv/setenv/unsetenv/putenv/clearenv, and the auxv
 * values a program can see through getauxval (not AT_PLATFORM or AT_HWCAP,
 * which an Alpha kernel sets and qemu 7.2 does not). */
//@ args: first "two words" --flag=x "" last
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

/* Orders C strings held by pointer. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints the environment, sorted. */
static void show_env(const char *tag)
{
    char *vars[256];
    int n = 0;
    for (char **e = environ; *e && n < 256; e++)
        vars[n++] = *e;
    qsort(vars, (size_t)n, sizeof vars[0], cmp_str);
    printf("%s (%d):", tag, n);
    for (int i = 0; i < n; i++)
        printf(" %s", vars[i]);
    printf("\n");
}

int main(int argc, char **argv, char **envp)
{
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    printf("argc=%d argv[0] basename starts with env_argv: %d\n", argc, strncmp(base, "env_argv", 8) == 0);
    for (int i = 1; i < argc; i++)
        printf("argv[%d]=[%s] len=%zu\n", i, argv[i], strlen(argv[i]));
    printf("argv[argc] is NULL: %d, envp == environ: %d\n", argv[argc] == NULL, envp == environ);
    show_env("environ");
    printf("HOME=%s PATH=%s MISSING=%s\n", getenv("HOME"), getenv("PATH"),
           getenv("MISSING") ? getenv("MISSING") : "(null)");

    setenv("NEWVAR", "one", 0);
    setenv("NEWVAR", "two", 0);
    printf("setenv no-overwrite: %s\n", getenv("NEWVAR"));
    setenv("NEWVAR", "three", 1);
    printf("setenv overwrite: %s\n", getenv("NEWVAR"));
    static char put[] = "PUTVAR=from-putenv";
    putenv(put);
    put[7] = 'F';
    printf("putenv shares the string: %s\n", getenv("PUTVAR"));
    unsetenv("HOME");
    printf("after unsetenv HOME: %s\n", getenv("HOME") ? getenv("HOME") : "(null)");
    show_env("modified");
    clearenv();
    printf("after clearenv: environ empty=%d\n", environ == NULL || environ[0] == NULL);
    setenv("ONLY", "1", 1);
    show_env("rebuilt");

    /* Values from the auxiliary vector. */
    printf("AT_PAGESZ=%lu sysconf=%ld getpagesize=%d\n", getauxval(AT_PAGESZ), sysconf(_SC_PAGESIZE),
           getpagesize());
    printf("AT_PHDR set=%d AT_PHENT=%lu AT_ENTRY set=%d AT_RANDOM set=%d AT_SECURE=%lu\n",
           getauxval(AT_PHDR) != 0, getauxval(AT_PHENT), getauxval(AT_ENTRY) != 0,
           getauxval(AT_RANDOM) != 0, getauxval(AT_SECURE));
    printf("AT_UID matches getuid=%d AT_EGID matches getegid=%d\n", getauxval(AT_UID) == getuid(),
           getauxval(AT_EGID) == getegid());
    return 0;
}
