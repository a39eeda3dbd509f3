/* The mapping list of an address space (struct guest_vma, mem.h): what Linux
 * keeps as vm_area_structs and /proc/PID/maps prints. A sorted array: a
 * lookup is a binary search, a change moves the entries after it (programs
 * have at most thousands of mappings). Splits and merges follow mm/mmap.c:
 * a change to part of a mapping splits it at the part's edges (__split_vma:
 * a file mapping's second half starts at the later offset); afterwards each
 * changed entry merges with a neighbour that ends or starts where it does
 * when both have the same prot and flags and are both anonymous, or map the
 * same file at contiguous offsets, and have compatible anon_vmas: not two
 * different ones (vma_merge, is_mergeable_vma, is_mergeable_anon_vma). An
 * anonymous mapping gets its anon_vma when a page of it is first touched; a
 * private file mapping's copied-on-write pages, which would give it one in
 * Linux, are not told apart here. Linux also compares the struct file: two
 * opens of one file count as the same file here. */
#include "guest/mem.h"
#include "util/err.h"
#include <stdlib.h>
#include <string.h>

static uint64_t pages(uint64_t start, uint64_t end) { return (end - start) >> GUEST_PAGE_SHIFT; }

/* Room for `more` entries. */
static int reserve(struct guest_mm *mm, size_t more)
{
  if (mm->nvma + more <= mm->vma_cap) return 0;
  size_t cap = mm->vma_cap ? mm->vma_cap : 16;
  while (cap < mm->nvma + more) cap *= 2;
  struct guest_vma *v = realloc(mm->vma, cap * sizeof *v);
  if (!v) return PM_ENOMEM;
  mm->vma = v;
  mm->vma_cap = cap;
  return 0;
}

/* The index of the first entry that ends above addr (nvma if none). */
static size_t first_after(const struct guest_mm *mm, uint64_t addr)
{
  size_t lo = 0, hi = mm->nvma;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (mm->vma[mid].end <= addr) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void insert_at(struct guest_mm *mm, size_t i, const struct guest_vma *v)
{
  memmove(&mm->vma[i + 1], &mm->vma[i], (mm->nvma - i) * sizeof *v);
  mm->vma[i] = *v;
  mm->nvma++;
}

static void remove_at(struct guest_mm *mm, size_t i, size_t n)
{
  for (size_t k = i; k < i + n; k++) free(mm->vma[k].path);
  memmove(&mm->vma[i], &mm->vma[i + n], (mm->nvma - i - n) * sizeof mm->vma[0]);
  mm->nvma -= n;
}

/* Splits the entry strictly containing addr (if any) in two at addr; the
 * caller reserved room. Returns 0 or PM_ENOMEM (the path's copy). */
static int split_at(struct guest_mm *mm, uint64_t addr)
{
  size_t i = first_after(mm, addr);
  if (i == mm->nvma || mm->vma[i].start >= addr) return 0;
  struct guest_vma hi = mm->vma[i];
  if (hi.path && !(hi.path = strdup(hi.path))) return PM_ENOMEM;
  if (hi.path) hi.pgoff += addr - hi.start;
  hi.start = addr;
  mm->vma[i].end = addr;
  insert_at(mm, i + 1, &hi);
  return 0;
}

static bool same_file(const struct guest_vma *a, const struct guest_vma *b)
{
  if (!a->path || !b->path) return !a->path && !b->path && !a->ino && !b->ino;
  return a->dev == b->dev && a->ino == b->ino && !strcmp(a->path, b->path);
}

static bool mergeable(const struct guest_vma *a, const struct guest_vma *b)
{
  return a->end == b->start && a->prot == b->prot && a->flags == b->flags &&
         !(a->flags & VMA_SPECIAL) && same_file(a, b) &&
         (!a->path || a->pgoff + (a->end - a->start) == b->pgoff) &&
         (!a->anon || !b->anon || a->anon == b->anon);
}

/* Merges the entries from lo - 1 to hi + 1 (indices before the merges)
 * with their neighbours where mergeable. */
static void merge_range(struct guest_mm *mm, size_t lo, size_t hi)
{
  size_t j = lo ? lo - 1 : 0;
  while (j + 1 < mm->nvma && j <= hi) {
    if (mergeable(&mm->vma[j], &mm->vma[j + 1])) {
      mm->vma[j].end = mm->vma[j + 1].end;
      if (!mm->vma[j].anon) mm->vma[j].anon = mm->vma[j + 1].anon;
      remove_at(mm, j + 1, 1);
      if (hi) hi--;
    } else {
      j++;
    }
  }
}

/* Splits at start and end and returns the index range [*i0, *i1) of the
 * entries inside. */
static int isolate(struct guest_mm *mm, uint64_t start, uint64_t end, size_t *i0, size_t *i1)
{
  if (reserve(mm, 3)) return PM_ENOMEM;
  if (split_at(mm, start) || split_at(mm, end)) return PM_ENOMEM;
  *i0 = first_after(mm, start);
  size_t k = *i0;
  while (k < mm->nvma && mm->vma[k].start < end) k++;
  *i1 = k;
  return 0;
}

static void note_peak(struct guest_mm *mm, uint64_t total)
{
  if (total > mm->hiwater_vm) mm->hiwater_vm = total;
}

/* The pages the list maps, and the peak (raw sizes; procfs shows the stack's
 * grown part only). */
static uint64_t total_pages(const struct guest_mm *mm)
{
  uint64_t n = 0;
  for (size_t i = 0; i < mm->nvma; i++) n += pages(mm->vma[i].start, mm->vma[i].end);
  return n;
}

int mm_vma_set(struct guest_mm *mm, uint64_t start, uint64_t len, const struct guest_vma *a)
{
  uint64_t end = start + len;
  if ((start | len) & GUEST_PAGE_MASK || !len || end < start) return PM_EINVAL;
  struct guest_vma v = *a;
  v.start = start;
  v.end = end;
  if (!v.path) v.pgoff = 0;
  if (v.path && !(v.path = strdup(v.path))) return PM_ENOMEM;
  size_t i0, i1;
  if (isolate(mm, start, end, &i0, &i1)) { free(v.path); return PM_ENOMEM; }
  remove_at(mm, i0, i1 - i0);
  insert_at(mm, i0, &v);
  merge_range(mm, i0, i0);
  note_peak(mm, total_pages(mm));
  return 0;
}

int vma_remove(struct guest_mm *mm, uint64_t start, uint64_t end)
{
  size_t i0, i1;
  if (end <= start) return 0;
  note_peak(mm, total_pages(mm));   /* update_hiwater_vm before unmapping */
  if (isolate(mm, start, end, &i0, &i1)) return PM_ENOMEM;
  remove_at(mm, i0, i1 - i0);
  return 0;
}

/* Sets prot (set_prot) or adds flags to [start, end)'s entries, then merges. */
static int change(struct guest_mm *mm, uint64_t start, uint64_t end, bool set_prot, int prot, unsigned flags)
{
  size_t i0, i1;
  if (end <= start) return 0;
  if (isolate(mm, start, end, &i0, &i1)) return PM_ENOMEM;
  for (size_t k = i0; k < i1; k++) {
    struct guest_vma *v = &mm->vma[k];
    /* mprotect_fixup: a private mapping made writable is charged. */
    if (set_prot && (prot & GUEST_PROT_WRITE) && !(v->flags & (VMA_ACCOUNT | VMA_SHARED | VMA_NORESERVE)))
      v->flags |= VMA_ACCOUNT;
    if (set_prot) v->prot = (uint8_t)(prot & 7);
    v->flags |= (uint8_t)flags;
    if (flags & VMA_SHARED) v->flags &= (uint8_t)~VMA_ACCOUNT;   /* shared memory is not charged */
  }
  if (i1 > i0) merge_range(mm, i0, i1 - 1);
  return 0;
}

int vma_protect(struct guest_mm *mm, uint64_t start, uint64_t end, int prot)
{
  return change(mm, start, end, true, prot, 0);
}

int vma_share(struct guest_mm *mm, uint64_t start, uint64_t end)
{
  return change(mm, start, end, false, 0, VMA_SHARED);
}

int vma_copy(struct guest_mm *dst, const struct guest_mm *src)
{
  if (reserve(dst, src->nvma)) return PM_ENOMEM;
  for (size_t i = 0; i < src->nvma; i++) {
    struct guest_vma v = src->vma[i];
    if (v.flags & VMA_SPECIAL) continue;   /* VM_DONTCOPY */
    if (v.path && !(v.path = strdup(v.path))) return PM_ENOMEM;
    dst->vma[dst->nvma++] = v;
  }
  dst->start_code = src->start_code;
  dst->end_code = src->end_code;
  dst->start_data = src->start_data;
  dst->end_data = src->end_data;
  dst->start_stack = src->start_stack;
  dst->stack_vm_start = src->stack_vm_start;
  dst->arg_start = src->arg_start;
  dst->arg_end = src->arg_end;
  dst->env_start = src->env_start;
  dst->env_end = src->env_end;
  dst->hiwater_vm = total_pages(dst);   /* dup_mmap: the child starts its own peaks */
  dst->anon_next = src->anon_next;
  return 0;
}

void vma_free(struct guest_mm *mm)
{
  for (size_t i = 0; i < mm->nvma; i++) free(mm->vma[i].path);
  free(mm->vma);
  mm->vma = NULL;
  mm->nvma = mm->vma_cap = 0;
}

void vma_touch(struct guest_mm *mm, uint64_t addr)
{
  size_t i = first_after(mm, addr);
  if (i < mm->nvma && mm->vma[i].start <= addr && !mm->vma[i].path && !mm->vma[i].anon)
    mm->vma[i].anon = ++mm->anon_next;
}

const struct guest_vma *mm_vma_find(const struct guest_mm *mm, uint64_t addr)
{
  size_t i = first_after(mm, addr);
  return i < mm->nvma && mm->vma[i].start <= addr ? &mm->vma[i] : NULL;
}

uint64_t mm_vma_shown_start(struct guest_mm *mm, const struct guest_vma *v)
{
  if (!(v->flags & VMA_GROWSDOWN) || !mm->stack_vm_start) return v->start;
  uint64_t top = mm->stack_vm_start;
  if (top < v->start) top = v->start;
  if (top > v->end) top = v->end;
  for (uint64_t a = v->start; a < top; a += GUEST_PAGE_SIZE) {
    const struct guest_page *p = mm_page(mm, a);
    if (p && p->host) return a;
  }
  return top;
}
