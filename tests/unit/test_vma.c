/* The mapping list of an address space (guest/mem.h struct guest_vma,
 * guest/vma.c): mm_map, mm_unmap, mm_protect and mm_share keep it as
 * Linux's mm/mmap.c keeps vm_area_structs; the cases are the edges of
 * split and merge (__split_vma, vma_merge): a change in the middle, at an
 * edge, across entries and holes, files at contiguous and other offsets,
 * shared and special mappings, fork's copy, the peaks, the grown stack. */
#include "check.h"
#include "guest/mem.h"
#include "guest/phys.h"
#include "util/err.h"
#include <stdlib.h>
#include <string.h>

#define P GUEST_PAGE_SIZE
static const uint64_t base = 0x20000000000ull;
static const int RW = GUEST_PROT_READ | GUEST_PROT_WRITE, R = GUEST_PROT_READ, RX = GUEST_PROT_READ | GUEST_PROT_EXEC;

/* The list as "start-end perms offset name;" with page numbers from base. */
static const char *show(struct guest_mm *mm)
{
  static char buf[2048];
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < mm->nvma && n < sizeof buf - 100; i++) {
    const struct guest_vma *v = &mm->vma[i];
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%llu-%llu %c%c%c%c %llu %s;",
                          (unsigned long long)((v->start - base) / P), (unsigned long long)((v->end - base) / P),
                          v->prot & 1 ? 'r' : '-', v->prot & 2 ? 'w' : '-', v->prot & 4 ? 'x' : '-',
                          v->flags & VMA_SHARED ? 's' : 'p', (unsigned long long)(v->pgoff / P),
                          v->path ? v->path : "");
  }
  return buf;
}

#define LIST(mm, want, what) do { const char *g_ = show(mm); \
    CHECK(!strcmp(g_, want), "%s: %s", what, g_); } while (0)

static struct guest_vma file(const char *path, uint64_t ino, uint64_t pgoff, int prot)
{
  return (struct guest_vma){ .path = (char *)path, .dev = 0xfe00, .ino = ino, .pgoff = pgoff, .prot = (uint8_t)prot };
}

static void test_anonymous(struct guest_mm *mm)
{
  CHECK_EQ_U64(mm_map(mm, base + 2 * P, 8 * P, RW), 0, "map 8 pages");
  LIST(mm, "2-10 rw-p 0 ;", "one mapping");
  mm_map(mm, base + 10 * P, 2 * P, RW);
  LIST(mm, "2-12 rw-p 0 ;", "an adjacent anonymous mapping of equal prot merges (after)");
  mm_map(mm, base, 2 * P, RW);
  LIST(mm, "0-12 rw-p 0 ;", "and before");
  mm_map(mm, base + 12 * P, 2 * P, RW);
  mm_protect(mm, base + 12 * P, 2 * P, R);
  LIST(mm, "0-12 rw-p 0 ;12-14 r--p 0 ;", "a different prot does not merge");
  mm_unmap(mm, base + 4 * P, 2 * P);
  LIST(mm, "0-4 rw-p 0 ;6-12 rw-p 0 ;12-14 r--p 0 ;", "unmapping the middle splits");
  mm_protect(mm, base + 8 * P, P, R);
  LIST(mm, "0-4 rw-p 0 ;6-8 rw-p 0 ;8-9 r--p 0 ;9-12 rw-p 0 ;12-14 r--p 0 ;", "protecting one page splits in three");
  mm_protect(mm, base + 8 * P, P, RW);
  LIST(mm, "0-4 rw-p 0 ;6-12 rw-p 0 ;12-14 r--p 0 ;", "and protecting it back merges the three again");
  mm_protect(mm, base + 11 * P, 2 * P, R);
  LIST(mm, "0-4 rw-p 0 ;6-11 rw-p 0 ;11-14 r--p 0 ;", "a change across two entries splits one and merges into the other");
  mm_map(mm, base + 4 * P, 2 * P, RW);
  LIST(mm, "0-11 rw-p 0 ;11-14 r--p 0 ;", "filling the hole merges both sides");
  mm_unmap(mm, base + 2 * P, 10 * P);
  LIST(mm, "0-2 rw-p 0 ;12-14 r--p 0 ;", "one unmap over entries and their edges");
  mm_unmap(mm, base + 20 * P, 4 * P);
  LIST(mm, "0-2 rw-p 0 ;12-14 r--p 0 ;", "unmapping nothing changes nothing");
  mm_map(mm, base + P, 12 * P, RX);
  LIST(mm, "0-1 rw-p 0 ;1-13 r-xp 0 ;13-14 r--p 0 ;", "a fixed mapping over parts of two replaces them");
  mm_unmap(mm, base, 14 * P);
  LIST(mm, "", "all gone");
}

static void test_files(struct guest_mm *mm)
{
  struct guest_vma lib = file("/lib/libc.so", 7, 0, RX);
  mm_map(mm, base, 10 * P, RX);
  CHECK_EQ_U64(mm_vma_set(mm, base, 10 * P, &lib), 0, "name a file mapping");
  LIST(mm, "0-10 r-xp 0 /lib/libc.so;", "a file mapping");
  mm_protect(mm, base + 6 * P, 2 * P, 0);
  LIST(mm, "0-6 r-xp 0 /lib/libc.so;6-8 ---p 6 /lib/libc.so;8-10 r-xp 8 /lib/libc.so;",
       "a split file mapping: each part at its own offset (ld.so's holes)");
  mm_protect(mm, base + 6 * P, 2 * P, RX);
  LIST(mm, "0-10 r-xp 0 /lib/libc.so;", "protected back, the contiguous parts merge");
  mm_map(mm, base + 10 * P, 2 * P, RX);
  struct guest_vma far = file("/lib/libc.so", 7, 40 * P, RX);
  mm_vma_set(mm, base + 10 * P, 2 * P, &far);
  LIST(mm, "0-10 r-xp 0 /lib/libc.so;10-12 r-xp 40 /lib/libc.so;", "the same file at a far offset does not merge");
  struct guest_vma next = file("/lib/libc.so", 7, 10 * P, RX);
  mm_vma_set(mm, base + 10 * P, 2 * P, &next);
  LIST(mm, "0-12 r-xp 0 /lib/libc.so;", "at the next offset it does");
  struct guest_vma other = file("/lib/libm.so", 8, 12 * P, RX);
  mm_map(mm, base + 12 * P, 2 * P, RX);
  mm_vma_set(mm, base + 12 * P, 2 * P, &other);
  LIST(mm, "0-12 r-xp 0 /lib/libc.so;12-14 r-xp 12 /lib/libm.so;", "another file does not merge");
  mm_map(mm, base + 14 * P, 2 * P, RX);
  LIST(mm, "0-12 r-xp 0 /lib/libc.so;12-14 r-xp 12 /lib/libm.so;14-16 r-xp 0 ;", "nor does an anonymous mapping");
  mm_map(mm, base + 4 * P, 2 * P, RX);
  LIST(mm, "0-4 r-xp 0 /lib/libc.so;4-6 r-xp 0 ;6-12 r-xp 6 /lib/libc.so;12-14 r-xp 12 /lib/libm.so;14-16 r-xp 0 ;",
       "an anonymous mapping fixed in the middle of a file's cuts it at the right offsets");
  mm_unmap(mm, base, 16 * P);
}

static void test_shared(struct guest_mm *mm)
{
  mm_map(mm, base, 4 * P, RW);
  mm_map(mm, base + 4 * P, 4 * P, RW);
  CHECK_EQ_U64(mm_share(mm, base + 4 * P, 4 * P), 0, "share the second half");
  LIST(mm, "0-4 rw-p 0 ;4-8 rw-s 0 ;", "a shared mapping does not merge with a private one");
  struct guest_vma zero = { .path = "/dev/zero (deleted)", .dev = 1, .ino = 1001, .prot = RW, .flags = VMA_SHARED };
  mm_vma_set(mm, base + 4 * P, 4 * P, &zero);
  mm_map(mm, base + 8 * P, 4 * P, RW);
  mm_share(mm, base + 8 * P, 4 * P);
  zero.ino = 1002;
  mm_vma_set(mm, base + 8 * P, 4 * P, &zero);
  LIST(mm, "0-4 rw-p 0 ;4-8 rw-s 0 /dev/zero (deleted);8-12 rw-s 0 /dev/zero (deleted);",
       "two shared anonymous mappings are two objects: no merge");
  mm_protect(mm, base + 5 * P, P, R);
  LIST(mm, "0-4 rw-p 0 ;4-5 rw-s 0 /dev/zero (deleted);5-6 r--s 1 /dev/zero (deleted);6-8 rw-s 2 /dev/zero (deleted);"
           "8-12 rw-s 0 /dev/zero (deleted);", "a shared object's parts keep their offsets");
  mm_protect(mm, base + 5 * P, P, RW);
  LIST(mm, "0-4 rw-p 0 ;4-8 rw-s 0 /dev/zero (deleted);8-12 rw-s 0 /dev/zero (deleted);", "and merge back");
  struct guest_vma ring = { .path = "anon_inode:[perf_event]", .dev = 15, .ino = 9, .prot = RW,
                            .flags = VMA_SHARED | VMA_SPECIAL };
  mm_map(mm, base + 12 * P, 3 * P, RW);
  mm_vma_set(mm, base + 12 * P, 3 * P, &ring);
  mm_map(mm, base + 15 * P, 3 * P, RW);
  mm_vma_set(mm, base + 15 * P, 3 * P, &ring);
  CHECK(mm->nvma == 5, "two perf buffers side by side stay two (VM_SPECIAL): %s", show(mm));

  /* Fork copies the list, names and all, except the special mappings. */
  struct guest_mm *child = mm_fork(mm);
  CHECK(child != NULL, "fork");
  if (!child) return;
  LIST(child, "0-4 rw-p 0 ;4-8 rw-s 0 /dev/zero (deleted);8-12 rw-s 0 /dev/zero (deleted);",
       "the child's list: the perf buffers are not inherited (VM_DONTCOPY)");
  mm_unmap(mm, base, 12 * P);
  LIST(child, "0-4 rw-p 0 ;4-8 rw-s 0 /dev/zero (deleted);8-12 rw-s 0 /dev/zero (deleted);",
       "and is its own: the parent's unmap leaves it");
  mm_put(child);
  mm_unmap(mm, base, 18 * P);
  LIST(mm, "", "all gone");
}

/* What Linux also compares: VM_ACCOUNT (a private mapping once writable
 * stays charged) and the anon_vma (two mappings both faulted in before they
 * met are two objects). */
static void test_flags(struct guest_mm *mm)
{
  mm_map(mm, base, 4 * P, R);
  mm_map(mm, base + 4 * P, 4 * P, R);
  LIST(mm, "0-8 r--p 0 ;", "two read-only mappings merge");
  mm_protect(mm, base + 2 * P, 2 * P, RW);
  mm_protect(mm, base + 2 * P, 2 * P, R);
  LIST(mm, "0-2 r--p 0 ;2-4 r--p 0 ;4-8 r--p 0 ;",
       "made writable and read-only again, a part stays charged (VM_ACCOUNT) and apart");
  CHECK(mm->vma[1].flags & VMA_ACCOUNT, "the charged part is VMA_ACCOUNT");
  mm_unmap(mm, base, 8 * P);

  uint8_t b = 1;
  mm_map(mm, base, 4 * P, RW);
  mm_write(mm, base, &b, 1, true);
  mm_map(mm, base + 8 * P, 4 * P, RW);
  mm_write(mm, base + 8 * P, &b, 1, true);
  CHECK(mm->vma[0].anon && mm->vma[1].anon && mm->vma[0].anon != mm->vma[1].anon,
        "each mapping touched gets an anon_vma of its own");
  mm_map(mm, base + 4 * P, 4 * P, RW);
  LIST(mm, "0-8 rw-p 0 ;8-12 rw-p 0 ;",
       "a new mapping between two faulted ones merges with one only (is_mergeable_anon_vma)");
  mm_map(mm, base + 12 * P, 4 * P, RW);
  LIST(mm, "0-8 rw-p 0 ;8-16 rw-p 0 ;", "an untouched one merges with a touched one");
  mm_protect(mm, base + 9 * P, P, R);
  mm_protect(mm, base + 9 * P, P, RW);
  LIST(mm, "0-8 rw-p 0 ;8-16 rw-p 0 ;", "the parts of one object merge back");
  mm_unmap(mm, base, 16 * P);
}

/* The peaks (VmPeak, VmHWM), resident pages, and the stack's shown start. */
static void test_counts(struct guest_mm *mm)
{
  uint64_t rss0 = mm->rss_pages;
  mm_map(mm, base, 100 * P, RW);
  uint8_t b = 1;
  for (int i = 0; i < 10; i++) mm_write(mm, base + (uint64_t)i * 2 * P, &b, 1, true);
  CHECK_EQ_U64(mm->rss_pages - rss0, 10, "ten pages touched are resident");
  CHECK_EQ_U64(mm_resident(mm, base, base + 100 * P), 10, "mm_resident counts them");
  CHECK_EQ_U64(mm_resident(mm, base + 2 * P, base + 6 * P), 2, "in a part, the part's");
  mm_unmap(mm, base, 10 * P);
  CHECK_EQ_U64(mm->rss_pages - rss0, 5, "unmapping five of them");
  CHECK(mm->hiwater_rss - rss0 >= 10, "the resident peak stays");
  CHECK(mm->hiwater_vm >= 100, "the mapped peak stays (%llu)", (unsigned long long)mm->hiwater_vm);
  mm_unmap(mm, base, 100 * P);

  /* A growsdown stack of 64 pages, its initial VMA from page 56: shown from
   * there until a page below is touched. */
  const uint64_t s = base + 200 * P;
  mm_map(mm, s, 64 * P, RW);
  struct guest_vma st = { .prot = RW, .flags = VMA_GROWSDOWN };
  mm_vma_set(mm, s, 64 * P, &st);
  mm->stack_vm_start = s + 56 * P;
  const struct guest_vma *v = mm_vma_find(mm, s + 60 * P);
  CHECK(v && v->start == s && (v->flags & VMA_GROWSDOWN), "the stack mapping");
  CHECK_EQ_U64(mm_vma_shown_start(mm, v), s + 56 * P, "shown from where it starts before growing");
  mm_write(mm, s + 40 * P + 8, &b, 1, true);
  CHECK_EQ_U64(mm_vma_shown_start(mm, v), s + 40 * P, "grown down to the lowest page touched");
  mm_map(mm, s - 4 * P, 4 * P, RW);
  CHECK(mm->nvma == 2, "an anonymous mapping below does not merge with the stack (VM_GROWSDOWN)");
  CHECK(mm_vma_find(mm, s - P) && !mm_vma_find(mm, s + 64 * P), "lookups inside and past the end");
  mm->stack_vm_start = 0;
  mm_unmap(mm, s - 4 * P, 68 * P);
}

int main(void)
{
  struct physmem *ram = phys_create(64ull << 20);
  struct guest_mm *mm = ram ? mm_create(ram) : NULL;
  if (!mm) { CHECK(0, "RAM and address space"); return check_done(); }
  test_anonymous(mm);
  test_files(mm);
  test_shared(mm);
  test_flags(mm);
  test_counts(mm);
  mm_put(mm);
  phys_destroy(ram);
  return check_done();
}
