/* The guest's /proc (guest/procfs.h), checked from inside the machine
 * against what the program knows of itself: its ids (getpid, getppid,
 * gettid of each thread), its name (prctl PR_GET_NAME / PR_SET_NAME), its
 * argv and environ, the addresses of its code, heap, stack and of the
 * mappings it makes, and the maps lines Linux's rules give for those
 * (mm/mmap.c's splits and merges, mprotect stopping at a hole, the [heap]
 * and [stack] names). Prints "check NAME ok" or "check NAME FAILED: why"
 * for each, then the files whose text tests/scripts/guest_procfs.sh holds
 * against Linux 6.1's sources: status's field names in order, cpuinfo,
 * kallsyms (between "begin NAME" and "end NAME" lines). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static long pg;
int main(int argc, char **argv);

static void check(const char *name, int ok, const char *fmt, ...)
{
  if (ok) { printf("check %s ok\n", name); return; }
  printf("check %s FAILED: ", name);
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
}

/* The whole of a file (NUL bytes kept), its length in *n; NULL on error (errno). */
static char *slurp(const char *path, size_t *n)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  size_t cap = 65536, len = 0;
  char *b = malloc(cap + 1);
  for (ssize_t r; (r = read(fd, b + len, cap - len)) > 0;) {
    len += (size_t)r;
    if (len == cap) b = realloc(b, (cap *= 2) + 1);
  }
  close(fd);
  b[len] = 0;
  if (n) *n = len;
  return b;
}

/* The value of "Key:\t..." in a status text (a static copy), or NULL. */
static const char *field(const char *text, const char *key)
{
  static char v[4096];
  size_t kl = strlen(key);
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
    if (!strncmp(l, key, kl) && l[kl] == ':') {
      const char *s = l + kl + 1;
      while (*s == '\t' || *s == ' ') s++;
      snprintf(v, sizeof v, "%.*s", (int)strcspn(s, "\n"), s);
      return v;
    }
  return NULL;
}

static long status_num(const char *path, const char *key)
{
  char *s = slurp(path, NULL);
  const char *v = s ? field(s, key) : NULL;
  long r = v ? atol(v) : -1;
  free(s);
  return r;
}

/* ---- maps ---- */

struct line { unsigned long start, end, off, ino; unsigned maj, min; char perms[5], name[512]; };
static struct line lines[4096];
static int nlines;

static void read_maps(const char *path)
{
  char *s = slurp(path, NULL);
  nlines = 0;
  for (char *l = s; l && *l && nlines < 4096;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = 0;
    struct line *m = &lines[nlines];
    int pos = 0;
    if (sscanf(l, "%lx-%lx %4s %lx %x:%x %lu %n", &m->start, &m->end, m->perms, &m->off, &m->maj, &m->min,
               &m->ino, &pos) >= 7) {
      /* The name starts at column 73 when there is one (seq_pad). */
      snprintf(m->name, sizeof m->name, "%s", strlen(l) > 73 ? l + 73 : "");
      nlines++;
    }
    l = nl ? nl + 1 : NULL;
  }
  free(s);
}

static struct line *containing(unsigned long a)
{
  for (int i = 0; i < nlines; i++)
    if (lines[i].start <= a && a < lines[i].end) return &lines[i];
  return NULL;
}

/* The lines in [lo, hi) as "[a-b perms]" in pages from lo. */
static const char *region(unsigned long lo, unsigned long hi)
{
  static char out[4096];
  size_t n = 0;
  read_maps("/proc/self/maps");
  out[0] = 0;
  for (int i = 0; i < nlines; i++) {
    struct line *l = &lines[i];
    if (l->end <= lo || l->start >= hi) continue;
    n += (size_t)snprintf(out + n, sizeof out - n, "[%ld-%ld %s]", ((long)l->start - (long)lo) / pg,
                          ((long)l->end - (long)lo) / pg, l->perms);
  }
  return out;
}

static void check_region(const char *name, unsigned long lo, unsigned long hi, const char *want)
{
  const char *got = region(lo, hi);
  check(name, !strcmp(got, want), "got %s, want %s", got, want);
}

static void test_maps(int argc, char **argv)
{
  (void)argc;
  char *small = malloc(64), *big = malloc(4 << 20);
  int local = 1;
  read_maps("/proc/self/maps");
  struct line *l = containing((unsigned long)main);
  const char *b0 = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  const char *bn = l ? (strrchr(l->name, '/') ? strrchr(l->name, '/') + 1 : l->name) : "";
  check("maps.text", l && !strcmp(l->perms, "r-xp") && !strcmp(bn, b0), "%s %s", l ? l->perms : "-", l ? l->name : "no line");
  struct stat st;
  check("maps.text-identity", l && stat(l->name, &st) == 0 && st.st_ino == l->ino && major(st.st_dev) == l->maj &&
        minor(st.st_dev) == l->min, "inode %lu dev %x:%x", l ? l->ino : 0, l ? l->maj : 0, l ? l->min : 0);
  l = containing((unsigned long)small);
  check("maps.heap", l && !strcmp(l->name, "[heap]") && !strcmp(l->perms, "rw-p"), "%s '%s'",
        l ? l->perms : "-", l ? l->name : "no line");
  l = containing((unsigned long)big);
  check("maps.big-block", l && !strcmp(l->perms, "rw-p") && !l->name[0] && !l->ino && !l->maj && !l->off,
        "%s '%s'", l ? l->perms : "-", l ? l->name : "no line");
  l = containing((unsigned long)&local);
  check("maps.stack", l && !strcmp(l->name, "[stack]") && !strcmp(l->perms, "rw-p"), "'%s'", l ? l->name : "no line");
  /* The lines are sorted and do not overlap. */
  int sorted = 1;
  for (int i = 1; i < nlines; i++) if (lines[i].start < lines[i - 1].end) sorted = 0;
  check("maps.sorted", sorted && nlines > 5, "%d lines", nlines);

  /* Splits and merges of an anonymous region, the same file through every
   * view: /proc/self, /proc/PID, /proc/thread-self, task/TID. */
  char *r = mmap(NULL, 10 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned long lo = (unsigned long)r, hi = lo + 10 * pg;
  check_region("maps.reserved", lo, hi, "[0-10 ---p]");
  mmap(r + pg, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  check_region("maps.fixed", lo, hi, "[0-1 ---p][1-9 rw-p][9-10 ---p]");
  munmap(r + 3 * pg, 2 * pg);
  check_region("maps.unmap-middle", lo, hi, "[0-1 ---p][1-3 rw-p][5-9 rw-p][9-10 ---p]");
  mprotect(r + 6 * pg, pg, PROT_READ);
  check_region("maps.protect-split", lo, hi, "[0-1 ---p][1-3 rw-p][5-6 rw-p][6-7 r--p][7-9 rw-p][9-10 ---p]");
  mprotect(r + 6 * pg, pg, PROT_READ | PROT_WRITE);
  check_region("maps.protect-merge", lo, hi, "[0-1 ---p][1-3 rw-p][5-9 rw-p][9-10 ---p]");
  errno = 0;
  int e = mprotect(r + 2 * pg, 6 * pg, PROT_READ | PROT_EXEC) ? errno : 0;
  check("maps.protect-hole-errno", e == ENOMEM, "errno %d", e);
  check_region("maps.protect-hole", lo, hi, "[0-1 ---p][1-2 rw-p][2-3 r-xp][5-9 rw-p][9-10 ---p]");
  mmap(r + 3 * pg, 2 * pg, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  /* Page 2 was writable once: charged (VM_ACCOUNT), it does not merge with
   * the new read-only mapping beside it. */
  check_region("maps.fill-account", lo, hi, "[0-1 ---p][1-2 rw-p][2-3 r-xp][3-5 r-xp][5-9 rw-p][9-10 ---p]");
  mprotect(r + 3 * pg, 2 * pg, PROT_READ | PROT_WRITE);
  mprotect(r + 3 * pg, 2 * pg, PROT_READ | PROT_EXEC);
  check_region("maps.fill-merge", lo, hi, "[0-1 ---p][1-2 rw-p][2-5 r-xp][5-9 rw-p][9-10 ---p]");
  char own[64];
  snprintf(own, sizeof own, "/proc/%d/maps", getpid());
  /* (read into static buffers: a malloc between the reads could move the heap) */
  static char a[3][1 << 17];
  const char *views[3] = { "/proc/self/maps", own, "/proc/thread-self/maps" };
  for (int i = 0; i < 3; i++) {
    int vfd = open(views[i], O_RDONLY);
    ssize_t got = 0;
    for (ssize_t rr; vfd >= 0 && (rr = read(vfd, a[i] + got, sizeof a[i] - 1 - (size_t)got)) > 0;) got += rr;
    a[i][got] = 0;
    if (vfd >= 0) close(vfd);
  }
  check("maps.views", a[0][0] && !strcmp(a[0], a[1]) && !strcmp(a[0], a[2]), "self, pid and thread-self differ");
  munmap(r, 10 * pg);
  check_region("maps.unmapped", lo, hi, "");

  /* A file: split by mprotect at its offsets; shared at an offset. */
  char path[64];
  snprintf(path, sizeof path, "procfs_file.%d", getpid());
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  char *z = calloc(1, 4 * pg);
  if (write(fd, z, 4 * pg) != 4 * pg) printf("write failed\n");
  free(z);
  char *fm = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
  mprotect(fm + pg, pg, PROT_READ | PROT_WRITE);
  read_maps("/proc/self/maps");
  struct line *l1 = containing((unsigned long)fm + pg), *l2 = containing((unsigned long)fm + 2 * pg);
  check("maps.file-offsets", l1 && l2 && l1->off == (unsigned long)pg && l2->off == 2 * (unsigned long)pg &&
        !strcmp(l1->perms, "rw-p") && strstr(l1->name, path), "%lx %lx", l1 ? l1->off : 0, l2 ? l2->off : 0);
  munmap(fm, 4 * pg);
  char *sh = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  read_maps("/proc/self/maps");
  l = containing((unsigned long)sh);
  check("maps.shared-anon", l && !strcmp(l->perms, "rw-s") && !strcmp(l->name, "/dev/zero (deleted)") &&
        l->maj == 0 && l->min == 1 && l->ino, "%s '%s'", l ? l->perms : "-", l ? l->name : "no line");
  munmap(sh, 2 * pg);
  close(fd);
  unlink(path);
  free(big);
  free(small);
}

/* ---- status, stat, statm, task/, threads ---- */

static pthread_barrier_t bar;
static int tids[3];

static void *thread_main(void *arg)
{
  int i = (int)(long)arg;
  tids[i] = (int)syscall(SYS_gettid);
  char own[64];
  snprintf(own, sizeof own, "check-thread-%d", i);
  long pid = status_num("/proc/thread-self/status", "Pid"), tgid = status_num("/proc/thread-self/status", "Tgid");
  check(own, pid == tids[i] && tgid == getpid(), "thread-self Pid %ld Tgid %ld, tid %d", pid, tgid, tids[i]);
  pthread_barrier_wait(&bar);   /* the main thread looks now */
  pthread_barrier_wait(&bar);
  return NULL;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* The numeric names of a directory, sorted; their count. */
static int numbers(const char *dir, int *out, int max)
{
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && n < max) out[n++] = atoi(e->d_name);
  closedir(d);
  qsort(out, (size_t)n, sizeof *out, cmp_int);
  return n;
}

static void test_status(int argc, char **argv)
{
  char *s = slurp("/proc/self/status", NULL);
  check("status.open", s != NULL, "errno %d", errno);
  if (!s) return;
  char name[16] = "";
  prctl(PR_GET_NAME, name);
  check("status.ids", atol(field(s, "Pid")) == getpid() && atol(field(s, "Tgid")) == getpid() &&
        atol(field(s, "PPid")) == getppid(), "Pid %s", field(s, "Pid"));
  check("status.name", !strcmp(field(s, "Name"), name), "Name %s, comm %s", field(s, "Name"), name);
  check("status.state", !strcmp(field(s, "State"), "R (running)"), "%s", field(s, "State"));
  check("status.threads-1", atol(field(s, "Threads")) == 1, "%s", field(s, "Threads"));
  long vmsize = atol(field(s, "VmSize")), vmrss = atol(field(s, "VmRSS"));
  /* Print the keys in order for the script. */
  printf("status-keys");
  for (const char *l = s; *l; l = strchr(l, '\n') + 1) printf(" %.*s", (int)strcspn(l, ":"), l);
  printf("\n");
  free(s);

  /* stat: 52 fields, the same ids and sizes. */
  size_t n;
  char *st = slurp("/proc/self/stat", &n);
  char *rp = st ? strrchr(st, ')') : NULL;
  unsigned long f[64] = { 0 };
  int nf = 2;
  char state = 0;
  if (rp) {
    char *save;
    for (char *t = strtok_r(rp + 2, " \n", &save); t && nf < 64; t = strtok_r(NULL, " \n", &save)) {
      nf++;
      if (nf == 3) state = t[0];
      else f[nf] = strtoul(t, NULL, 10);
    }
  }
  char comm[64];
  snprintf(comm, sizeof comm, "%d (%s) ", getpid(), name);
  check("stat.fields", nf == 52, "%d fields", nf);
  check("stat.ids", st && !strncmp(st, comm, strlen(comm)) && state == 'R' && (long)f[4] == getppid() &&
        f[20] == 1, "%.60s", st ? st : "");
  check("stat.sizes", f[23] == (unsigned long)vmsize * 1024 && (long)f[24] * pg / 1024 >= vmrss - 64 &&
        (long)f[24] * pg / 1024 <= vmrss + 64, "vsize %lu VmSize %ld, rss %lu VmRSS %ld", f[23], vmsize, f[24], vmrss);
  read_maps("/proc/self/maps");
  struct line *sl = containing(f[28]);
  check("stat.startstack", sl && !strcmp(sl->name, "[stack]"), "startstack %lx", f[28]);
  check("stat.code", f[26] <= (unsigned long)main && (unsigned long)main < f[27], "%lx-%lx", f[26], f[27]);
  int heap_ok = 0;
  for (int i = 0; i < nlines; i++)
    if (!strcmp(lines[i].name, "[heap]")) heap_ok = lines[i].start <= f[47] && f[47] <= lines[i].end;
  check("stat.start_brk", heap_ok, "start_brk %lx", f[47]);
  /* arg_start..arg_end (fields 48, 49) hold argv's strings. */
  size_t want = 0;
  for (int i = 0; i < argc; i++) want += strlen(argv[i]) + 1;
  check("stat.args", f[49] - f[48] == want && (char *)f[48] == argv[0], "%lu bytes at %lx", f[49] - f[48], f[48]);
  free(st);
  /* statm against a status read just before it (no malloc between). */
  static char sb[8192], mb[256];
  int sfd = open("/proc/self/status", O_RDONLY), mfd = open("/proc/self/statm", O_RDONLY);
  ssize_t sr = read(sfd, sb, sizeof sb - 1), mr = read(mfd, mb, sizeof mb - 1);
  close(sfd);
  close(mfd);
  sb[sr > 0 ? sr : 0] = 0;
  mb[mr > 0 ? mr : 0] = 0;
  unsigned long size = 0, res = 0, shared = 0, text = 0, data = 0;
  long vs = field(sb, "VmSize") ? atol(field(sb, "VmSize")) : -1, rs = field(sb, "VmRSS") ? atol(field(sb, "VmRSS")) : -1;
  long fs = field(sb, "RssFile") ? atol(field(sb, "RssFile")) + atol(field(sb, "RssShmem")) : -1;
  long ds = field(sb, "VmData") ? atol(field(sb, "VmData")) + atol(field(sb, "VmStk")) : -1;
  check("statm", sscanf(mb, "%lu %lu %lu %lu 0 %lu", &size, &res, &shared, &text, &data) == 5 &&
        (long)(size * pg / 1024) == vs && (long)(res * pg / 1024) == rs && (long)(shared * pg / 1024) == fs &&
        (long)(data * pg / 1024) == ds, "%s against VmSize %ld VmRSS %ld", mb, vs, rs);

  /* PR_SET_NAME: the name everywhere. */
  prctl(PR_SET_NAME, "renamed-by-prctl");   /* 16 bytes: cut to 15 */
  s = slurp("/proc/self/status", NULL);
  char *cm = slurp("/proc/self/comm", NULL);
  st = slurp("/proc/self/stat", NULL);
  check("status.prctl-name", s && !strcmp(field(s, "Name"), "renamed-by-prct") && cm &&
        !strcmp(cm, "renamed-by-prct\n") && st && strstr(st, "(renamed-by-prct)"), "%s", s ? field(s, "Name") : "");
  free(s); free(cm); free(st);
  prctl(PR_SET_NAME, name);

  /* Threads: counted, listed in task/, each with its own status. */
  pthread_t th[3];
  pthread_barrier_init(&bar, NULL, 4);
  for (long i = 0; i < 3; i++) pthread_create(&th[i], NULL, thread_main, (void *)i);
  pthread_barrier_wait(&bar);
  check("status.threads-4", status_num("/proc/self/status", "Threads") == 4, "%ld",
        status_num("/proc/self/status", "Threads"));
  int got[16], wantt[4] = { getpid(), tids[0], tids[1], tids[2] };
  qsort(wantt, 4, sizeof *wantt, cmp_int);
  int k = numbers("/proc/self/task", got, 16);
  check("task.list", k == 4 && !memcmp(got, wantt, sizeof wantt), "%d entries", k);
  int ok = 1;
  for (int i = 0; i < 3; i++) {
    char p[96];
    snprintf(p, sizeof p, "/proc/%d/task/%d/status", getpid(), tids[i]);
    if (status_num(p, "Pid") != tids[i] || status_num(p, "Tgid") != getpid()) ok = 0;
    snprintf(p, sizeof p, "/proc/%d/status", tids[i]);   /* a thread's own /proc/TID, not listed */
    if (status_num(p, "Pid") != tids[i]) ok = 0;
  }
  check("task.status", ok, "a thread's status is wrong");
  k = numbers("/proc", got, 16);
  check("proc.threads-hidden", k == 1 && got[0] == getpid(), "%d numeric entries", k);
  pthread_barrier_wait(&bar);
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  check("status.threads-joined", status_num("/proc/self/status", "Threads") == 1 &&
        numbers("/proc/self/task", got, 16) == 1, "threads left");
}

/* ---- /proc itself, other processes, links, errors ---- */

static void test_proc(int argc, char **argv)
{
  /* cmdline and environ */
  char want[8192];
  size_t wn = 0, n;
  for (int i = 0; i < argc; i++) { memcpy(want + wn, argv[i], strlen(argv[i]) + 1); wn += strlen(argv[i]) + 1; }
  char *c = slurp("/proc/self/cmdline", &n);
  check("cmdline", c && n == wn && !memcmp(c, want, wn), "%zu bytes, want %zu", n, wn);
  free(c);
  wn = 0;
  for (char **e = environ; *e; e++) { memcpy(want + wn, *e, strlen(*e) + 1); wn += strlen(*e) + 1; }
  c = slurp("/proc/self/environ", &n);
  check("environ", c && n == wn && !memcmp(c, want, wn), "%zu bytes, want %zu", n, wn);
  free(c);

  /* Links. */
  char l[4096], w[4096];
  ssize_t k = readlink("/proc/self", l, sizeof l - 1);
  l[k > 0 ? k : 0] = 0;
  snprintf(w, sizeof w, "%d", getpid());
  check("link.self", !strcmp(l, w), "'%s'", l);
  k = readlink("/proc/thread-self", l, sizeof l - 1);
  l[k > 0 ? k : 0] = 0;
  snprintf(w, sizeof w, "%d/task/%d", getpid(), getpid());
  check("link.thread-self", !strcmp(l, w), "'%s'", l);
  k = readlink("/proc/self/cwd", l, sizeof l - 1);
  l[k > 0 ? k : 0] = 0;
  check("link.cwd", getcwd(w, sizeof w) && !strcmp(l, w), "'%s' vs '%s'", l, w);
  k = readlink("/proc/self/root", l, sizeof l - 1);
  l[k > 0 ? k : 0] = 0;
  check("link.root", !strcmp(l, "/"), "'%s'", l);
  int fd = open("procfs_link_target", O_RDWR | O_CREAT | O_TRUNC, 0644);
  snprintf(w, sizeof w, "/proc/self/fd/%d", fd);
  k = readlink(w, l, sizeof l - 1);
  l[k > 0 ? k : 0] = 0;
  char cwd[4096];
  snprintf(w, sizeof w, "%s/procfs_link_target", getcwd(cwd, sizeof cwd));
  check("link.fd", !strcmp(l, w), "'%s'", l);
  if (write(fd, "hello", 5) != 5) printf("write failed\n");
  snprintf(w, sizeof w, "/dev/fd/%d", fd);
  int fd2 = open(w, O_RDONLY);
  char hb[8] = "";
  check("dev-fd", fd2 >= 0 && read(fd2, hb, 5) == 5 && !memcmp(hb, "hello", 5), "fd %d", fd2);
  if (fd2 >= 0) close(fd2);
  /* fd/ lists the open fds: 0, 1, 2, fd, and the directory's own. */
  int nums[64], nn = numbers("/proc/self/fd", nums, 64);
  check("fd.list", nn == 5 && nums[0] == 0 && nums[1] == 1 && nums[2] == 2 && nums[3] == fd, "%d entries", nn);
  close(fd);
  unlink("procfs_link_target");
  struct stat st1, st2;
  check("exe", stat("/proc/self/exe", &st1) == 0 && stat(argv[0], &st2) == 0 && st1.st_ino == st2.st_ino,
        "errno %d", errno);

  /* Relative lookups from a /proc directory, as a dirfd and as the cwd. */
  int dfd = open("/proc/self", O_RDONLY | O_DIRECTORY);
  int sfd = dfd >= 0 ? openat(dfd, "status", O_RDONLY) : -1;
  char buf[4096] = "";
  ssize_t r = sfd >= 0 ? read(sfd, buf, sizeof buf - 1) : 0;
  buf[r > 0 ? r : 0] = 0;
  check("relative.dirfd", sfd >= 0 && field(buf, "Pid") && atol(field(buf, "Pid")) == getpid(), "fd %d", sfd);
  if (sfd >= 0) close(sfd);
  if (dfd >= 0) close(dfd);
  char here[4096];
  if (!getcwd(here, sizeof here)) here[0] = 0;
  int okc = chdir("/proc/self") == 0;
  char there[4096] = "";
  if (!getcwd(there, sizeof there)) there[0] = 0;
  snprintf(w, sizeof w, "/proc/%d", getpid());
  long pid_rel = status_num("status", "Pid");
  check("relative.cwd", okc && !strcmp(there, w) && pid_rel == getpid(), "cwd '%s', Pid %ld", there, pid_rel);
  okc = chdir(here);

  /* /proc lists the guest's processes: this one, then its child; a zombie;
   * gone once reaped. Host pids are never there (nor pid 1: the guest has none). */
  int pipe1[2], pipe2[2];
  if (pipe(pipe1) || pipe(pipe2)) return;
  pid_t child = fork();
  if (child == 0) {
    char x;
    close(pipe1[1]);
    if (write(pipe2[1], "r", 1) != 1) _exit(2);
    if (read(pipe1[0], &x, 1) != 1) _exit(3);
    _exit(7);
  }
  char x;
  if (read(pipe2[0], &x, 1) != 1) return;
  int pids[64], np = numbers("/proc", pids, 64);
  int wantp[2] = { getpid(), child };
  qsort(wantp, 2, sizeof *wantp, cmp_int);
  check("proc.list", np == 2 && pids[0] == wantp[0] && pids[1] == wantp[1], "%d numeric entries", np);
  DIR *d = opendir("/proc");
  int self = 0, tself = 0, cpuinfo = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    self |= !strcmp(e->d_name, "self") && e->d_type == DT_LNK;
    tself |= !strcmp(e->d_name, "thread-self") && e->d_type == DT_LNK;
    cpuinfo |= !strcmp(e->d_name, "cpuinfo");
  }
  if (d) closedir(d);
  check("proc.names", self && tself && cpuinfo, "self %d thread-self %d cpuinfo %d", self, tself, cpuinfo);
  char cp[64];
  snprintf(cp, sizeof cp, "/proc/%d/status", child);
  const char *state = "";
  char *cs = NULL;
  for (int i = 0; i < 1000; i++) {   /* until the child waits in read */
    free(cs);
    cs = slurp(cp, NULL);
    state = cs ? field(cs, "State") : "";
    if (state && !strcmp(state, "S (sleeping)")) break;
    usleep(1000);
  }
  check("child.status", cs && atol(field(cs, "PPid")) == getpid() && !strcmp(field(cs, "State"), "S (sleeping)"),
        "PPid %s State %s", cs ? field(cs, "PPid") : "", cs ? field(cs, "State") : "");
  free(cs);
  snprintf(cp, sizeof cp, "/proc/%d/cmdline", child);
  c = slurp(cp, &n);
  check("child.cmdline", c && n > 0 && !strcmp(c, argv[0]), "'%s'", c ? c : "");
  free(c);
  if (write(pipe1[1], "go", 1) != 1) return;
  snprintf(cp, sizeof cp, "/proc/%d/status", child);
  cs = NULL;
  for (int i = 0; i < 1000; i++) {   /* until it has exited (not reaped) */
    free(cs);
    cs = slurp(cp, NULL);
    if (cs && !strcmp(field(cs, "State"), "Z (zombie)")) break;
    usleep(1000);
  }
  check("child.zombie", cs && !strcmp(field(cs, "State"), "Z (zombie)") && !field(cs, "VmSize"), "State %s",
        cs ? field(cs, "State") : "");
  free(cs);
  snprintf(cp, sizeof cp, "/proc/%d/stat", child);
  cs = slurp(cp, NULL);
  char *rp = cs ? strrchr(cs, ')') : NULL;
  int code = -1;
  if (rp) { char *last = strrchr(cs, ' '); code = atoi(last + 1); }
  check("child.zombie-stat", rp && rp[2] == 'Z' && code == 7 << 8, "%s", cs ? cs : "");
  free(cs);
  int status;
  waitpid(child, &status, 0);
  snprintf(cp, sizeof cp, "/proc/%d/status", child);
  errno = 0;
  check("child.reaped", open(cp, O_RDONLY) < 0 && errno == ENOENT, "errno %d", errno);

  /* Errors. */
  errno = 0;
  check("enoent.pid", open("/proc/999999/status", O_RDONLY) < 0 && errno == ENOENT, "errno %d", errno);
  errno = 0;
  check("enoent.host-pid-1", open("/proc/1/status", O_RDONLY) < 0 && errno == ENOENT, "errno %d", errno);
  errno = 0;
  check("enoent.entry", open("/proc/self/no-such-entry", O_RDONLY) < 0 && errno == ENOENT, "errno %d", errno);
  errno = 0;
  check("eacces.write", open("/proc/self/status", O_WRONLY) < 0 && errno == EACCES, "errno %d", errno);
  errno = 0;
  int ue = unlink("/proc/self/status") ? errno : 0;
  check("eperm.unlink", ue == (geteuid() ? EACCES : EPERM), "errno %d", ue);
  errno = 0;
  ue = mkdir("/proc/self/new", 0755) ? errno : 0;
  check("eperm.mkdir", ue == (geteuid() ? EACCES : EPERM), "errno %d", ue);
  check("status.still-there", status_num("/proc/self/status", "Pid") == getpid(), "gone");
}

/* ---- machine files ---- */

static void dump(const char *name, const char *path)
{
  size_t n;
  char *s = slurp(path, &n);
  printf("begin %s\n", name);
  if (s) fwrite(s, 1, n, stdout);
  printf("end %s\n", name);
  free(s);
}

static void test_machine(void)
{
  char *ci = slurp("/proc/cpuinfo", NULL);
  check("cpuinfo.model", ci && strstr(ci, "cpu model\t\t: EV67\n"), "no EV67");
  char want[64];
  snprintf(want, sizeof want, "cpus detected\t\t: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
  check("cpuinfo.cpus", ci && strstr(ci, want), "want %s", want);
  free(ci);
  size_t n = 1;
  char *mo = slurp("/proc/modules", &n);
  check("modules", mo && n == 0, "%zu bytes", n);
  free(mo);
  char *kr = slurp("/proc/sys/kernel/kptr_restrict", NULL);
  check("kptr_restrict", kr && !strcmp(kr, "0\n"), "'%s'", kr ? kr : "");
  free(kr);
  dump("cpuinfo", "/proc/cpuinfo");
  dump("kallsyms", "/proc/kallsyms");
  dump("paranoid", "/proc/sys/kernel/perf_event_paranoid");
  dump("status", "/proc/self/status");
}

int main(int argc, char **argv)
{
  pg = sysconf(_SC_PAGESIZE);
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_maps(argc, argv);
  test_status(argc, argv);
  test_proc(argc, argv);
  test_machine();
  return 0;
}
