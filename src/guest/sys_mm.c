/* Memory system calls: brk, mmap and its kin, mincore, memfd. A mapping is
 * guest pages (guest/mem.h) with host memory behind them, made on first
 * touch; a MAP_SHARED file mapping stands on a host MAP_SHARED one so that
 * stores reach the file. A perf buffer (nosplit) is never split: munmap,
 * mprotect and mremap take all of it or fail. */
#include "guest/syscall.h"
#include "guest/procfs.h"
#include "guest/synthfs.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a

static int prot_of(uint64_t p) { return (int)(p & 7); }

int64_t sys_brk(ARGS)
{
  UNUSED;
  struct guest_mm *mm = t->mm;
  uint64_t want = a[0];
  if (want < mm->brk_start) return (int64_t)mm->brk;
  uint64_t old_end = (mm->brk + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  uint64_t new_end = (want + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  if (new_end > old_end) {
    if (mm_find_free(mm, old_end, new_end, new_end - old_end) != old_end) return -ENOMEM;
    if (mm_map(mm, old_end, new_end - old_end, GUEST_PROT_READ | GUEST_PROT_WRITE)) return -ENOMEM;
  } else if (new_end < old_end) {
    mm_unmap(mm, new_end, old_end - new_end);
  }
  mm->brk = want;
  return (int64_t)want;
}

int64_t sys_getpagesize(ARGS) { UNUSED; return GUEST_PAGE_SIZE; }

/* MAP_SHARED of a file: guest pages point into a host MAP_SHARED mapping, so
 * stores reach the file and other mappings. Only whole guest pages inside the
 * file's host-page-rounded size are backed; the rest stays private. */
static int64_t map_shared_file(struct guest_mm *mm, int h, uint64_t addr, uint64_t len,
                               uint64_t off, bool want_write)
{
  struct stat st;
  int fl = fcntl(h, F_GETFL);
  if (want_write && (fl & O_ACCMODE) != O_RDWR) return -EACCES;
  if (fstat(h, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= off) return 0;
  uint64_t hp = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t avail = (((uint64_t)st.st_size - off + hp - 1) / hp) * hp;
  uint64_t n = (avail < len ? avail : len) & ~GUEST_PAGE_MASK;
  if (!n) return 0;
  int prot = (fl & O_ACCMODE) == O_RDWR ? PROT_READ | PROT_WRITE : PROT_READ;
  void *base = mmap(NULL, n, prot, MAP_SHARED, h, (off_t)off);
  if (base == MAP_FAILED) return 0;
  struct guest_ext *ext = calloc(1, sizeof *ext);
  if (!ext) { munmap(base, n); return -ENOMEM; }
  ext->base = base;
  ext->len = n;
  ext->readonly = !(prot & PROT_WRITE);
  if (mm_back_ext(mm, addr, n, base, ext)) return -ENOMEM;
  return (int64_t)n;
}

/* Names the new mapping [addr, addr+len) as Linux's maps shows it: a file
 * by its path (the guest's name for a synthesized one), device and inode at
 * offset off; a shared anonymous mapping (or a shared one of /dev/zero) as
 * the shmem object shmem_zero_setup makes, "/dev/zero (deleted)" on device
 * 00:01 with an inode of its own; a private mapping of /dev/zero is
 * anonymous (mmap_zero). Nothing to do for a private anonymous one. */
static void name_mapping(struct os *m, struct guest_mm *mm, int h, uint64_t addr, uint64_t len,
                         uint64_t off, int prot, bool shared, bool noreserve)
{
  /* accountable_mapping: private and writable, without MAP_NORESERVE. */
  uint8_t flags = shared ? VMA_SHARED : noreserve ? VMA_NORESERVE : (prot & 2) ? VMA_ACCOUNT : 0;
  struct guest_vma v = { .prot = (uint8_t)(prot & 7), .flags = flags, .pgoff = off };
  char path[PATH_MAX];
  struct stat st;
  bool zero = h >= 0 && fstat(h, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 5);
  if (h < 0 || zero) {
    if (!shared) {
      if (noreserve) (void)mm_vma_set(mm, addr, len, &v);
      return;
    }
    v.path = "/dev/zero (deleted)";
    v.dev = makedev(0, 1);
    v.ino = procfs_new_ino(m);
    v.pgoff = 0;
  } else {
    if (sys_fd_path(h, path) <= 0) return;
    const char *g = synthfs_guest_path(m->synth, path);
    v.path = g ? (char *)g : path;
    if (fstat(h, &st) == 0) { v.dev = st.st_dev; v.ino = st.st_ino; }
  }
  (void)mm_vma_set(mm, addr, len, &v);   /* (no memory for the name: it stays anonymous) */
}

/* do_mmap's choice of address: MAP_FIXED(_NOREPLACE) takes addr as given
 * (EEXIST if NOREPLACE alone finds it in use, EINVAL if replacing it would
 * split a no-split mapping), else the hint if free, else the lowest free
 * range from mmap_base. */
int64_t sys_mmap_addr(struct guest_mm *mm, uint64_t addr, uint64_t len, uint64_t flags)
{
  bool fixed = flags & 0x100, noreplace = flags & 0x200000;
  if (fixed || noreplace) {
    if (addr & GUEST_PAGE_MASK) return -EINVAL;
    if (addr + len > GUEST_TASK_SIZE || addr + len < addr) return -ENOMEM;
    if (noreplace && !fixed && mm_find_free(mm, addr, addr + len, len) != addr) return -EEXIST;
    if (fixed && mm_would_split(mm, addr, len)) return -EINVAL;
    return (int64_t)addr;
  }
  uint64_t hint = addr & ~GUEST_PAGE_MASK;
  if (!hint || mm_find_free(mm, hint, hint + len, len) != hint)
    hint = mm_find_free(mm, mm->mmap_base, GUEST_TASK_SIZE, len);
  return hint ? (int64_t)hint : -ENOMEM;
}

int64_t sys_mmap(ARGS)
{
  UNUSED;
  struct guest_mm *mm = t->mm;
  uint64_t addr = a[0], len = (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK, flags = a[3], off = a[5];
  if (!a[1] || len < a[1] || len > GUEST_TASK_SIZE) return -EINVAL;
  if (off & GUEST_PAGE_MASK) return -EINVAL;
  bool anon = flags & 0x10;
  int h = -1;
  if (!anon) {
    h = sys_hostfd(t, a[4]);
    if (h < 0) return h;
  }
  int64_t at = sys_mmap_addr(mm, addr, len, flags);
  if (at < 0) return at;
  addr = (uint64_t)at;
  if (mm_map(mm, addr, len, prot_of(a[2]))) return -ENOMEM;
  if ((flags & 3) == 1 && mm_share(mm, addr, len)) return -ENOMEM;   /* MAP_SHARED */
  name_mapping(m, mm, h, addr, len, off, prot_of(a[2]), (flags & 3) == 1, flags & 0x10000 /* MAP_NORESERVE */);
  if (!anon && (a[2] & 4) && m->hooks.task) {   /* an executable file mapping: perf's MMAP2 */
    char path[PATH_MAX];
    if (sys_fd_path(h, path) > 0) {
      struct task_event e = { .kind = TEV_MMAP, .t = t, .addr = addr, .len = len, .pgoff = off,
                              .prot = (uint32_t)a[2], .flags = (uint32_t)(flags & 3), .path = path };
      m->hooks.task(m->hooks.ctx, &e);
    }
  }
  uint64_t backed = 0;
  if (!anon && (flags & 3) == 1) {
    int64_t r = map_shared_file(mm, h, addr, len, off, (a[2] & 2) != 0);
    if (r < 0) { mm_unmap(mm, addr, len); return r; }
    backed = (uint64_t)r;
  }
  if (!anon && backed < len) {
    uint8_t *buf = malloc(SYS_IOBUF);
    if (!buf) return -ENOMEM;
    for (uint64_t done = backed; done < len;) {
      ssize_t r = pread(h, buf, len - done > SYS_IOBUF ? SYS_IOBUF : len - done, (off_t)(off + done));
      if (r <= 0) break;
      mm_write(mm, addr + done, buf, (size_t)r, false);
      done += (uint64_t)r;
    }
    free(buf);
  }
  return (int64_t)addr;
}

int64_t sys_munmap(ARGS)
{
  UNUSED;
  if (a[0] & GUEST_PAGE_MASK || !a[1]) return -EINVAL;
  if (mm_would_split(t->mm, a[0], (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK)) return -EINVAL;
  return mm_unmap(t->mm, a[0], (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK) ? -EINVAL : 0;
}

int64_t sys_mprotect(ARGS)
{
  UNUSED;
  if (a[0] & GUEST_PAGE_MASK) return -EINVAL;
  if (a[2] & 2)   /* a read-only shared file mapping cannot become writable */
    for (uint64_t p = a[0]; p < a[0] + a[1]; p += GUEST_PAGE_SIZE) {
      struct guest_page *pg = mm_page(t->mm, p);
      if (pg && pg->ext && pg->ext->readonly) return -EACCES;
    }
  uint64_t len = (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  if (a[1] && mm_would_split(t->mm, a[0], len)) return -EINVAL;
  /* do_mprotect_pkey changes the mappings in turn and stops with ENOMEM at
   * the first hole: what lies before it is changed. */
  uint64_t done = 0;
  while (done < len && mm_page(t->mm, a[0] + done)) done += GUEST_PAGE_SIZE;
  if (done && mm_protect(t->mm, a[0], done, prot_of(a[2]))) return -ENOMEM;
  return done < len ? -ENOMEM : 0;
}

int64_t sys_madvise(ARGS)
{
  UNUSED;
  if (a[2] == 6) {   /* MADV_DONTNEED on Alpha: private anonymous pages read back as zero */
    for (uint64_t p = a[0] & ~GUEST_PAGE_MASK; p < a[0] + a[1]; p += GUEST_PAGE_SIZE) {
      struct guest_page *pg = mm_page(t->mm, p);
      if (pg && pg->host) memset(pg->host, 0, GUEST_PAGE_SIZE);
      if (pg) mm_code_written(t->mm, p);
    }
  }
  return 0;
}

static int64_t do_mremap(struct guest_mm *mm, uint64_t old, uint64_t olen, uint64_t nlen, bool maymove,
                         bool fixed, uint64_t fixed_to, struct guest_vma *attr);

int64_t sys_mremap(ARGS)
{
  UNUSED;
  struct guest_mm *mm = t->mm;
  uint64_t old = a[0], olen = (a[1] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  uint64_t nlen = (a[2] + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK, flags = a[3], fixed_to = a[4];
  bool maymove = flags & 1, fixed = flags & 2;
  if ((old & GUEST_PAGE_MASK) || !nlen || (flags & ~3ull) || (fixed && !maymove)) return -EINVAL;
  if (fixed && (fixed_to & GUEST_PAGE_MASK)) return -EINVAL;
  /* Shrinking in place unmaps the tail, found or not (Linux does this before
   * it looks the mapping up); it may not split a perf buffer. */
  if (!fixed && nlen <= olen) {
    if (nlen < olen) {
      if (mm_would_split(mm, old + nlen, olen - nlen)) return -EINVAL;
      mm_unmap(mm, old + nlen, olen - nlen);
    }
    return (int64_t)old;
  }
  if (!mm_is_mapped(mm, old, olen)) return -EFAULT;
  /* vma_to_resize: the old range lies in one mapping, whose name the new
   * pages take, at the offsets that follow. */
  const struct guest_vma *src = mm_vma_find(mm, old);
  if (!src || src->end < old + olen) return -EFAULT;
  struct guest_vma attr = *src;
  if (attr.path && !(attr.path = strdup(attr.path))) return -ENOMEM;
  if (attr.path) attr.pgoff += old - src->start;
  int64_t r = do_mremap(mm, old, olen, nlen, maymove, fixed, fixed_to, &attr);
  free(attr.path);
  return r;
}

/* The rest of mremap once the old range is known to be one mapping, attr
 * (its name at old). */
static int64_t do_mremap(struct guest_mm *mm, uint64_t old, uint64_t olen, uint64_t nlen, bool maymove,
                         bool fixed, uint64_t fixed_to, struct guest_vma *attr)
{
  struct guest_page *first = mm_page(mm, old);
  if (first->ext && first->ext->nosplit) {
    /* A perf buffer: VM_DONTEXPAND (growing is EFAULT), and a move takes all
     * of it or nothing (moving a part would split it). */
    if (nlen > olen) return -EFAULT;
    if (nlen < olen || mm_would_split(mm, old, olen)) return -EINVAL;
  }
  if (!fixed && mm_find_free(mm, old + olen, old + nlen, nlen - olen) == old + olen) {
    if (mm_map(mm, old + olen, nlen - olen, first->prot & 7)) return -ENOMEM;
    if (attr->path || attr->flags) {
      attr->pgoff += olen;
      (void)mm_vma_set(mm, old + olen, nlen - olen, attr);   /* merges with the mapping it extends */
    }
    return (int64_t)old;
  }
  if (!maymove) return -ENOMEM;
  uint64_t to;
  if (fixed) {
    /* MREMAP_FIXED: what lies at the target goes first (it may not overlap the source). */
    if (fixed_to < old + olen && old < fixed_to + nlen) return -EINVAL;
    if (fixed_to + nlen > GUEST_TASK_SIZE || fixed_to + nlen < fixed_to) return -EINVAL;
    if (mm_would_split(mm, fixed_to, nlen)) return -EINVAL;
    mm_unmap(mm, fixed_to, nlen);
    to = fixed_to;
  } else {
    to = mm_find_free(mm, mm->mmap_base, GUEST_TASK_SIZE, nlen);
    if (!to) return -ENOMEM;
  }
  if (mm_map(mm, to, nlen, first->prot & 7)) return -ENOMEM;
  if (attr->path || attr->flags) (void)mm_vma_set(mm, to, nlen, attr);
  /* Move the pages' memory over: host buffer, sharing and the file mapping
   * it may belong to (the new pages are fresh, with none of their own). */
  uint64_t moved = olen < nlen ? olen : nlen;
  for (uint64_t o = 0; o < moved; o += GUEST_PAGE_SIZE) {
    struct guest_page *s = mm_page(mm, old + o), *d = mm_page(mm, to + o);
    if (!s || !d) continue;
    d->host = s->host;
    d->shared = s->shared;
    d->ext = s->ext;
    d->prot = s->prot;
    s->host = NULL;
    s->shared = 0;
    s->ext = NULL;
  }
  mm_unmap(mm, old, olen);
  return (int64_t)to;
}

int64_t sys_msync(ARGS) { UNUSED; return 0; }

/* mincore: a mapped page is resident once touched (it has host memory). */
int64_t sys_mincore(ARGS)
{
  UNUSED;
  if (a[0] & GUEST_PAGE_MASK) return -EINVAL;
  uint64_t pages = (a[1] + GUEST_PAGE_MASK) >> GUEST_PAGE_SHIFT;
  if (a[0] + a[1] < a[0] || a[0] + a[1] > GUEST_TASK_SIZE) return -ENOMEM;
  uint8_t v[512];
  for (uint64_t i = 0; i < pages; i += sizeof v) {
    uint64_t k = pages - i < sizeof v ? pages - i : sizeof v;
    for (uint64_t j = 0; j < k; j++) {
      struct guest_page *pg = mm_page(t->mm, a[0] + ((i + j) << GUEST_PAGE_SHIFT));
      if (!pg || !pg->prot) return -ENOMEM;
      v[j] = pg->host ? 1 : 0;
    }
    if (sys_put(t, a[2] + i, v, (size_t)k)) return -EFAULT;
  }
  return 0;
}

int64_t sys_memfd_create(ARGS)
{
  UNUSED;
  char name[256];
  long n = mm_read_str(t->mm, a[0], name, sizeof name);
  if (n < 0) return n == PM_EINVAL ? -EINVAL : -EFAULT;
  if (a[1] & ~(uint64_t)(MFD_CLOEXEC | MFD_ALLOW_SEALING)) return -EINVAL;
  return sys_install(t, memfd_create(name, (unsigned)a[1] | MFD_CLOEXEC), a[1] & MFD_CLOEXEC);
}
