/* /proc/self/maps, stat and cmdline where qemu-alpha (linux-user's
 * open_self_maps, open_self_stat, open_self_cmdline) and Linux agree, printed
 * in a form free of addresses: the mappings holding main (the program's text,
 * r-xp, its file), a large malloc block (anonymous rw-p), a local variable
 * ([stack]); a region reserved PROT_NONE and then mapped, unmapped and
 * protected in parts, listed whole after each step (splits and merges); a
 * file mapping split by mprotect (offsets, device and inode); a shared
 * anonymous mapping (/dev/zero (deleted), rw-s); a block moved by mremap;
 * stat's pid, comm, ppid and start of stack; cmdline against argv. Left
 * out: the [heap] name (qemu 7.2 names no heap), the program's and ld.so's
 * segments beyond the text (qemu reserves the holes between them, ---p),
 * the lines' order around the stack (qemu puts its stack elsewhere), and an
 * mprotect across a hole (Linux changes what lies before the hole, qemu
 * nothing); tests/guestsys/procfs_view.c checks those against Linux's rules. */
//@ args: one "two words" ""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

struct line {
  unsigned long start, end, off, ino;
  unsigned maj, min;
  char perms[5], name[512];
};

static struct line lines[4096];
static int nlines;

static void read_maps(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char buf[1024];
  nlines = 0;
  if (!f) { printf("maps: cannot open\n"); return; }
  while (nlines < 4096 && fgets(buf, sizeof buf, f)) {
    struct line *l = &lines[nlines];
    int pos = 0;
    if (sscanf(buf, "%lx-%lx %4s %lx %x:%x %lu %n", &l->start, &l->end, l->perms, &l->off, &l->maj, &l->min,
               &l->ino, &pos) < 7)
      continue;
    char *name = buf + pos;
    while (*name == ' ') name++;
    name[strcspn(name, "\n")] = 0;
    snprintf(l->name, sizeof l->name, "%s", name);
    nlines++;
  }
  fclose(f);
}

static struct line *containing(const void *p)
{
  unsigned long a = (unsigned long)p;
  for (int i = 0; i < nlines; i++)
    if (lines[i].start <= a && a < lines[i].end) return &lines[i];
  return NULL;
}

static const char *base(const char *p)
{
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* The lines inside [lo, hi), page numbers from lo. */
static void show_region(const char *what, unsigned long lo, unsigned long hi, const char *file)
{
  long pg = sysconf(_SC_PAGESIZE);
  read_maps();
  printf("%s:", what);
  for (int i = 0; i < nlines; i++) {
    struct line *l = &lines[i];
    if (l->end <= lo || l->start >= hi) continue;
    const char *kind = !l->name[0] ? "anon" : file && !strcmp(l->name, file) ? "file" : l->name;
    printf(" [%ld-%ld %s %lx %s]", (long)(l->start - lo) / pg, (long)(l->end - lo) / pg, l->perms,
           l->off / pg, kind);
  }
  printf("\n");
}

int main(int argc, char **argv)
{
  long pg = sysconf(_SC_PAGESIZE);
  printf("page size %ld\n", pg);

  /* cmdline: argv, each NUL-terminated. */
  char want[4096], got[4096];
  size_t wn = 0;
  for (int i = 0; i < argc; i++) {
    size_t l = strlen(argv[i]) + 1;
    memcpy(want + wn, argv[i], l);
    wn += l;
  }
  int fd = open("/proc/self/cmdline", O_RDONLY);
  ssize_t gn = fd >= 0 ? read(fd, got, sizeof got) : -1;
  if (fd >= 0) close(fd);
  printf("cmdline: %zd bytes, %s\n", gn, gn == (ssize_t)wn && !memcmp(want, got, wn) ? "equal to argv" : "DIFFERENT");

  /* The program's text, a large block, the stack. */
  char *big = malloc(4 << 20);
  int local = 0;
  read_maps();
  struct line *l = containing((void *)main);
  if (l) printf("main: %s, offset %lx, file %s\n", l->perms, l->off, !strcmp(base(l->name), base(argv[0])) ? "the program" : l->name);
  else printf("main: no line\n");
  l = containing(big);
  if (l) printf("big block: %s, inode %lu, %s\n", l->perms, l->ino, l->name[0] ? l->name : "anonymous");
  l = containing(&local);
  if (l) printf("local: %s %s\n", l->perms, l->name);
  unsigned long stack_lo = l ? l->start : 0, stack_hi = l ? l->end : 0;

  /* stat: pid, comm, ppid, startstack (fields 1, 2, 4, 28). */
  char st[4096];
  fd = open("/proc/self/stat", O_RDONLY);
  ssize_t sn = fd >= 0 ? read(fd, st, sizeof st - 1) : -1;
  if (fd >= 0) close(fd);
  if (sn > 0) {
    st[sn] = 0;
    char *rp = strrchr(st, ')');
    char comm[64] = "";
    int pid = atoi(st);
    char *lp = strchr(st, '(');
    if (lp && rp) snprintf(comm, sizeof comm, "%.*s", (int)(rp - lp - 1), lp + 1);
    long ppid = 0;
    unsigned long startstack = 0;
    int field = 3;
    for (char *s = strtok(rp + 2, " "); s; s = strtok(NULL, " "), field++) {
      if (field == 4) ppid = atol(s);
      if (field == 28) startstack = strtoul(s, NULL, 10);
    }
    char want_comm[16];
    snprintf(want_comm, sizeof want_comm, "%s", base(argv[0]));
    printf("stat: pid %s, comm %s, ppid %s, startstack %s\n", pid == getpid() ? "ok" : "WRONG",
           !strcmp(comm, want_comm) ? "ok" : comm, ppid == getppid() ? "ok" : "WRONG",
           startstack >= stack_lo && startstack < stack_hi ? "in the stack" : "OUTSIDE");
  }

  /* A region of 10 pages: reserved, mapped in the middle, cut and protected. */
  char *r = mmap(NULL, 10 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  unsigned long lo = (unsigned long)r, hi = lo + 10 * pg;
  show_region("reserved", lo, hi, NULL);
  mmap(r + pg, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  show_region("mapped 1-9", lo, hi, NULL);
  munmap(r + 3 * pg, 2 * pg);
  show_region("unmapped 3-5", lo, hi, NULL);
  mprotect(r + 6 * pg, pg, PROT_READ);
  show_region("page 6 read-only", lo, hi, NULL);
  mprotect(r + 6 * pg, pg, PROT_READ | PROT_WRITE);
  show_region("page 6 writable again", lo, hi, NULL);
  mmap(r + 3 * pg, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  show_region("hole filled", lo, hi, NULL);
  munmap(r, 10 * pg);
  show_region("all unmapped", lo, hi, NULL);

  /* A file of 4 pages, mapped privately and split by mprotect. */
  char path[256], real[4096];
  snprintf(path, sizeof path, "maps_file.%d", getpid());
  fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  char *zero = calloc(1, 4 * pg);
  if (write(fd, zero, 4 * pg) != 4 * pg) printf("write failed\n");
  free(zero);
  struct stat fst;
  fstat(fd, &fst);
  if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
  char *fm = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE, fd, 0);
  lo = (unsigned long)fm;
  show_region("file", lo, lo + 4 * pg, real);
  mprotect(fm + pg, pg, PROT_READ | PROT_WRITE);
  show_region("file page 1 writable", lo, lo + 4 * pg, real);
  read_maps();
  l = containing(fm);
  printf("file identity: inode %s, device %s\n", l && l->ino == (unsigned long)fst.st_ino ? "ok" : "WRONG",
         l && l->maj == major(fst.st_dev) && l->min == minor(fst.st_dev) ? "ok" : "WRONG");
  mprotect(fm + pg, pg, PROT_READ);
  show_region("file page 1 read-only again", lo, lo + 4 * pg, real);
  char *fs = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 2 * pg);
  show_region("file shared at page 2", (unsigned long)fs, (unsigned long)fs + 2 * pg, real);
  munmap(fs, 2 * pg);
  munmap(fm, 4 * pg);
  close(fd);
  unlink(path);

  /* Shared anonymous memory: a shmem object. */
  char *sh = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  sh[0] = 1;
  show_region("shared anonymous", (unsigned long)sh, (unsigned long)sh + 3 * pg, NULL);
  munmap(sh, 3 * pg);

  /* mremap: a block grown where it cannot stay moves, whole. */
  char *a = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *guard = mmap(a + 4 * pg, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  a[0] = 'x';
  char *b = mremap(a, 4 * pg, 8 * pg, MREMAP_MAYMOVE);
  printf("mremap: %s, byte %c\n", b != a ? "moved" : "in place", b[0]);
  show_region("moved block", (unsigned long)b, (unsigned long)b + 8 * pg, NULL);
  show_region("old place", (unsigned long)a, (unsigned long)a + 4 * pg, NULL);
  munmap(b, 8 * pg);
  if (guard != MAP_FAILED) munmap(guard, pg);
  free(big);
  return 0;
}
