/* The guest's view of the machine's perf files, read as perf's pmu.c and
 * libpfm4 read them: the PMU directories of /sys/bus/event_source/devices
 * listed with readdir (getdents64), each device's type, format/ and events/
 * files read with open/read, the format terms parsed into config bit
 * ranges ("config:0-7", "config1:0") and every event's terms
 * ("event=0x1,profileme=1") encoded through them, the links readlink
 * gives, stat's file types, the perf sysctls of /proc/sys/kernel and the
 * CPU count glibc reads from /sys/devices/system/cpu/online.
 * Output, one fact a line (tests/scripts/guest_sysfs.sh compares it with
 * `profileme list --sysfs` and the machine's options):
 *   file PATH: CONTENT            every type/format/events file, as list --sysfs
 *   mux PMU: MS                   devices/PMU/perf_event_mux_interval_ms
 *   encode PMU/EVENT: config=0x.. config1=0x.. config2=0x..
 *   link PATH -> TARGET
 *   sysctl NAME: VALUE
 *   cpus online=LIST nprocs=N
 *   check NAME: ok | FAILED (why)
 * Built for Alpha with alpha-linux-gnu-gcc, run in the machine. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEVICES "/sys/bus/event_source/devices"
#define MAXN 64

static int failures;

static void check(const char *name, int ok, const char *why)
{
    printf("check %s: %s%s%s%s\n", name, ok ? "ok" : "FAILED", ok ? "" : " (", ok ? "" : why,
           ok ? "" : ")");
    failures += !ok;
}

/* Reads a whole small file; returns its length or -errno. */
static int slurp(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int e = errno;
    close(fd);
    if (n < 0) return -e;
    buf[n] = 0;
    return (int)n;
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The sorted names in a directory (not . and ..); returns how many, or -1. */
static int list_dir(const char *path, char **names)
{
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAXN)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp);
    return n;
}

/* A format term as perf's pmu.c keeps it: which config word, and its bits. */
struct term {
    char name[64];
    int word;          /* 0 config, 1 config1, 2 config2 */
    uint64_t bits;     /* the field's bits in that word */
};

/* Parses "config1:0-7" (also "config:5", "config:0-3,8" lists). */
static int parse_format(const char *s, struct term *t)
{
    if (!strncmp(s, "config2:", 8)) t->word = 2, s += 8;
    else if (!strncmp(s, "config1:", 8)) t->word = 1, s += 8;
    else if (!strncmp(s, "config:", 7)) t->word = 0, s += 7;
    else return -1;
    t->bits = 0;
    for (;;) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (end == s || lo < 0 || lo > 63) return -1;
        if (*end == '-') {
            s = end + 1;
            hi = strtol(s, &end, 10);
            if (end == s || hi < lo || hi > 63) return -1;
        }
        for (long b = lo; b <= hi; b++) t->bits |= 1ull << b;
        s = end;
        if (*s != ',') break;
        s++;
    }
    return *s == '\n' || *s == 0 ? 0 : -1;
}

/* Puts value v into the field's bits, low bit first (pmu_format_value). */
static uint64_t deposit(uint64_t bits, uint64_t v)
{
    uint64_t r = 0;
    for (int b = 0; b < 64; b++)
        if (bits >> b & 1) {
            if (v & 1) r |= 1ull << b;
            v >>= 1;
        }
    return r;
}

/* Encodes an event's terms ("event=0x1,profileme=1") through the formats. */
static int encode(const char *terms, const struct term *f, int nf, uint64_t cfg[3])
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", terms);
    buf[strcspn(buf, "\n")] = 0;
    cfg[0] = cfg[1] = cfg[2] = 0;
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        uint64_t v = 1;   /* a bare term means 1, as in perf */
        if (eq) *eq = 0, v = strtoull(eq + 1, NULL, 0);
        int k;
        for (k = 0; k < nf && strcmp(f[k].name, tok); k++) {}
        if (k == nf) return -1;
        cfg[f[k].word] |= deposit(f[k].bits, v);
    }
    return 0;
}

/* Prints every file of one PMU directory, returns 0 if all read. */
static int show_pmu(const char *pmu)
{
    char path[512], buf[256], *names[MAXN];
    struct term fmt[MAXN];
    int nf = 0, bad = 0;
    snprintf(path, sizeof path, DEVICES "/%s/type", pmu);
    if (slurp(path, buf, sizeof buf) <= 0) return -1;
    printf("file %s: %.*s\n", path, (int)strcspn(buf, "\n"), buf);
    snprintf(path, sizeof path, DEVICES "/%s/perf_event_mux_interval_ms", pmu);
    if (slurp(path, buf, sizeof buf) > 0) printf("mux %s: %.*s\n", pmu, (int)strcspn(buf, "\n"), buf);
    snprintf(path, sizeof path, DEVICES "/%s/format", pmu);
    int n = list_dir(path, names);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, DEVICES "/%s/format/%s", pmu, names[i]);
        if (slurp(path, buf, sizeof buf) <= 0) bad = 1;
        printf("file %s: %.*s\n", path, (int)strcspn(buf, "\n"), buf);
        snprintf(fmt[nf].name, sizeof fmt[nf].name, "%s", names[i]);
        if (parse_format(buf, &fmt[nf]) == 0) nf++;
        else bad = 1;
        free(names[i]);
    }
    snprintf(path, sizeof path, DEVICES "/%s/events", pmu);
    n = list_dir(path, names);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, DEVICES "/%s/events/%s", pmu, names[i]);
        if (slurp(path, buf, sizeof buf) <= 0) bad = 1;
        printf("file %s: %.*s\n", path, (int)strcspn(buf, "\n"), buf);
        uint64_t c[3];
        if (encode(buf, fmt, nf, c)) bad = 1;
        else printf("encode %s/%s: config=0x%llx config1=0x%llx config2=0x%llx\n", pmu, names[i],
                    (unsigned long long)c[0], (unsigned long long)c[1], (unsigned long long)c[2]);
        free(names[i]);
    }
    return bad ? -1 : 0;
}

static void show_sysctls(void)
{
    static const char *const names[] = {
        "perf_event_paranoid", "perf_event_max_sample_rate", "perf_event_max_stack",
        "perf_event_max_contexts_per_stack", "perf_event_mlock_kb", "perf_cpu_time_max_percent",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/proc/sys/kernel/%s", names[i]);
        int n = slurp(path, buf, sizeof buf);
        if (n > 0) printf("sysctl %s: %.*s\n", names[i], (int)strcspn(buf, "\n"), buf);
        else printf("sysctl %s: unreadable (%s)\n", names[i], strerror(-n));
    }
}

/* What the files look like to stat, readlink and a writer. */
static void checks(void)
{
    char buf[256];
    struct stat st;
    if (access(DEVICES "/cpu", F_OK)) {   /* a functional machine: no PMU driver */
        printf("pmu cpu absent\n");
        return;
    }
    ssize_t n = readlink(DEVICES "/cpu", buf, sizeof buf - 1);
    if (n > 0) buf[n] = 0, printf("link %s -> %s\n", DEVICES "/cpu", buf);
    n = readlink(DEVICES "/software", buf, sizeof buf - 1);
    if (n > 0) buf[n] = 0, printf("link %s -> %s\n", DEVICES "/software", buf);
    check("stat devices/cpu is a directory", stat(DEVICES "/cpu", &st) == 0 && S_ISDIR(st.st_mode), "stat");
    check("lstat devices/cpu is a link", lstat(DEVICES "/cpu", &st) == 0 && S_ISLNK(st.st_mode), "lstat");
    check("type is a read-only regular file", stat(DEVICES "/cpu/type", &st) == 0 &&
          S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0444, "mode");
    char a[64], b[64];
    check("/sys/devices/cpu/type (libpfm4's path) reads as devices/cpu/type",
          slurp("/sys/devices/cpu/type", a, sizeof a) > 0 && slurp(DEVICES "/cpu/type", b, sizeof b) > 0 &&
          !strcmp(a, b), "differs");
    /* An x86 host's cpu PMU has branch-instructions; the machine's has not. */
    int e = slurp(DEVICES "/cpu/events/branch-instructions", buf, sizeof buf);
    check("no host event shows through", e == -ENOENT, "exists");
    e = slurp("/usr/../sys/devices/cpu/../cpu/./events//cycles", buf, sizeof buf);
    check("a path with .. and // reaches the same file", e > 0 && !strcmp(buf, "event=0x1\n"), "content");
    int fd = open("/proc/sys/kernel/perf_event_paranoid", O_WRONLY);
    check("perf_event_paranoid cannot be written", fd < 0 && errno == EACCES, "open for writing");
    if (fd >= 0) close(fd);
    fd = open(DEVICES "/cpu/events/new", O_WRONLY | O_CREAT, 0644);
    check("no file can be made among the PMU's", fd < 0 && errno == EACCES, "created");
    if (fd >= 0) close(fd);
    check("access(perf_event_paranoid) as libpfm4 detects perf",
          access("/proc/sys/kernel/perf_event_paranoid", F_OK) == 0, "access");
    /* lseek and pread work as on a sysfs file */
    fd = open(DEVICES "/cpu/format/sl1", O_RDONLY);
    char c[8] = { 0 };
    check("pread at an offset", fd >= 0 && pread(fd, c, 3, 9) == 3 && !memcmp(c, "-11", 3), "pread");
    if (fd >= 0) close(fd);
    /* Inside the directory: relative paths, and getcwd names it as Linux
     * does (the link resolved). */
    char cwd[256];
    check("chdir into devices/cpu/events", chdir(DEVICES "/cpu/events") == 0, "chdir");
    check("getcwd there is /sys/devices/cpu/events", getcwd(cwd, sizeof cwd) &&
          !strcmp(cwd, "/sys/devices/cpu/events"), cwd);
    check("a relative open reads events/instructions",
          slurp("instructions", buf, sizeof buf) > 0 && !strcmp(buf, "event=0x2\n"), "content");
    fd = open("new", O_WRONLY | O_CREAT, 0644);
    check("no file can be made there by a relative path", fd < 0 && errno == EACCES, "created");
    if (fd >= 0) close(fd);
    fd = open(DEVICES "/cpu/format", O_RDONLY | O_DIRECTORY);
    int fd2 = fd >= 0 ? openat(fd, "event", O_RDWR) : -1;
    check("openat(format dirfd, \"event\", O_RDWR) is refused", fd >= 0 && fd2 < 0 && errno == EACCES, "opened");
    if (fd2 >= 0) close(fd2);
    if (fd >= 0) close(fd);
    check("chdir back to /", chdir("/") == 0, "chdir");
}

int main(void)
{
    char *pmus[MAXN];
    int n = list_dir(DEVICES, pmus);
    check("readdir " DEVICES, n > 0, "no PMU");
    for (int i = 0; i < n; i++) {
        if (show_pmu(pmus[i])) check(pmus[i], 0, "a file did not read or parse");
        free(pmus[i]);
    }
    show_sysctls();
    char online[64];
    if (slurp("/sys/devices/system/cpu/online", online, sizeof online) > 0)
        printf("cpus online=%.*s nprocs=%ld conf=%ld\n", (int)strcspn(online, "\n"), online,
               sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF));
    checks();
    return failures != 0;
}
