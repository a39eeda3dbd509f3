/* Guest address space: mapping, demand-zero pages, protections, the TLB's
 * alignment rule, fork copy versus MAP_SHARED sharing, free-range search. */
#include "check.h"
#include "guest/mem.h"
#include "guest/phys.h"
#include "util/err.h"

/* Guest pages are frames of the RAM: counted against phys_free_frames, their
 * bytes visible through the kernel's direct map (phys_frame), their physical
 * address the frame's; fork copies into new frames and shares MAP_SHARED
 * ones; every frame comes back on unmap and exit; no frame left is OOM. */
static void test_frames(void)
{
  const uint64_t base = 0x120000000ull, P = GUEST_PAGE_SIZE;
  struct physmem *ram = phys_create(64ull << 20);
  struct guest_mm *mm = mm_create(ram);
  if (!ram || !mm) { CHECK(0, "RAM and address space"); return; }
  const uint64_t all = phys_free_frames(ram);
  CHECK_EQ_U64(mm_map(mm, base, 16 * P, GUEST_PROT_READ | GUEST_PROT_WRITE), 0, "map 16 pages");
  CHECK_EQ_U64(phys_free_frames(ram), all, "mapping takes no frame (demand-zero)");
  bool fault = false;
  CHECK(mm_phys(mm, base + 5, GUEST_PROT_READ, false, &fault) == ((base + 5) | MM_PA_UNBACKED) && !fault,
        "an untouched page has no physical address yet");
  uint64_t v = 0xabcdef, r = 0;
  CHECK_EQ_U64(mm_write(mm, base + 8, &v, 8, true), 0, "first touch");
  CHECK_EQ_U64(phys_free_frames(ram), all - 1, "takes one frame");
  uint64_t pa = mm_phys(mm, base + 8, GUEST_PROT_READ, false, &fault);
  CHECK(pa % P == 8 && pa < 64ull << 20 && phys_frame_used(ram, pa / P), "its physical address is in an allocated frame");
  memcpy(&r, phys_frame(ram, pa / P) + 8, 8);
  CHECK_EQ_U64(r, v, "the frame holds the page's bytes (direct map)");
  CHECK_EQ_U64(mm_phys(mm, base + P, GUEST_PROT_WRITE, true, &fault) % P, 0, "a store's translation faults the page in");
  CHECK(fault && phys_free_frames(ram) == all - 2, "and says so");

  /* Fork: private pages copied into new frames, shared ones shared. */
  CHECK_EQ_U64(mm_share(mm, base + 2 * P, P), 0, "page 2 shared");
  v = 77;
  mm_write(mm, base + 2 * P, &v, 8, true);
  uint64_t before = phys_free_frames(ram);
  struct guest_mm *child = mm_fork(mm);
  CHECK(child != NULL, "fork");
  if (!child) return;
  CHECK_EQ_U64(phys_free_frames(ram), before - 2, "fork copies the two private pages only");
  uint64_t cpa = mm_phys(child, base + 8, GUEST_PROT_READ, false, &fault);
  CHECK(cpa != pa && mm_read(child, base + 8, &r, 8, true) == 0 && r == 0xabcdef, "a private copy: other frame, same bytes");
  {
    const uint8_t *ph = mm_host(mm, base, GUEST_PROT_READ), *ch = mm_host(child, base, GUEST_PROT_READ);
    CHECK(ph && ch && ph != ch && memcmp(ph, ch, P) == 0, "the copy's whole frame is the parent's page, byte for byte");
  }
  CHECK_EQ_U64(mm_phys(child, base + 2 * P, GUEST_PROT_READ, false, &fault),
               mm_phys(mm, base + 2 * P, GUEST_PROT_READ, false, &fault), "the shared page is one frame");
  mm_unmap(mm, base + 2 * P, P);
  CHECK(mm_read(child, base + 2 * P, &r, 8, true) == 0 && r == 77, "which outlives the parent's unmap");
  mm_put(child);
  CHECK_EQ_U64(phys_free_frames(ram), before + 1, "the child's exit frees its copies and the last reference");

  /* Fragmentation made by the guest: every other page unmapped. */
  for (uint64_t i = 0; i < 16; i++) mm_write(mm, base + i * P, &v, 1, true);
  uint64_t pfn[16];
  for (uint64_t i = 0; i < 16; i++) pfn[i] = mm_phys(mm, base + i * P, 0, false, &fault) / P;
  for (uint64_t i = 1; i < 16; i += 2) mm_unmap(mm, base + i * P, P);
  unsigned holes = 0;
  for (uint64_t i = 1; i < 16; i += 2) holes += !phys_frame_used(ram, pfn[i]);
  CHECK_EQ_U64(holes, 8, "unmapping frees the frames: holes between the pages still mapped");

  /* Overcommit and out of memory. */
  CHECK_EQ_U64(mm_map(mm, 0x20000000000ull, 128ull << 20, GUEST_PROT_READ | GUEST_PROT_WRITE),
               (uint64_t)(int64_t)PM_ENOMEM, "a writable mapping larger than the RAM: ENOMEM");
  CHECK_EQ_U64(mm_map(mm, 0x20000000000ull, 64ull << 20, GUEST_PROT_READ | GUEST_PROT_WRITE), 0, "as large as the RAM maps");
  uint64_t touched = 0;
  while (mm_write(mm, 0x20000000000ull + touched * P, &v, 1, true) == 0) touched++;
  CHECK(mm->oom && phys_free_frames(ram) == 0, "touching it all runs out of frames: oom (%llu pages)",
        (unsigned long long)touched);
  mm->oom = false;
  CHECK(mm_fork(mm) == NULL && !mm->oom, "a fork with no frames fails, nobody is OOM");
  mm_put(mm);
  CHECK_EQ_U64(phys_free_frames(ram), all, "exit returns every frame");
  CHECK_EQ_U64(phys_max_free_order(ram), PHYS_MAX_ORDER - 1, "and they coalesce again");
  phys_destroy(ram);
}

/* The executor caches a page's code keyed on (mm, map_gen): a child that
 * exits and a new child allocated at its address, doing the same mappings,
 * must not meet the same generation (a fork_wait run on two CPUs once ran
 * the freed mm's code cache). */
static void test_generations(void)
{
  struct physmem *ram = phys_create(16ull << 20);
  const uint64_t base = 0x120000000ull, P = GUEST_PAGE_SIZE;
  uint64_t seen[2] = { 0, 0 };
  for (int i = 0; i < 2; i++) {
    struct guest_mm *mm = mm_create(ram);
    if (!mm) { CHECK(0, "mm_create"); break; }
    mm_map(mm, base, 2 * P, GUEST_PROT_READ | GUEST_PROT_EXEC);
    mm_unmap(mm, base + P, P);
    mm_protect(mm, base, P, GUEST_PROT_READ);
    seen[i] = mm->map_gen;
    mm_put(mm);
  }
  CHECK(seen[0] != seen[1], "two address spaces doing the same unmaps never share a mapping generation (%llu, %llu)",
        (unsigned long long)seen[0], (unsigned long long)seen[1]);
  phys_destroy(ram);
}

int main(void)
{
  test_frames();
  test_generations();
  struct physmem *ram = phys_create(64ull << 20);
  struct guest_mm *mm = mm_create(ram);
  CHECK(mm != NULL, "mm_create");
  const uint64_t base = 0x120000000ull, P = GUEST_PAGE_SIZE;
  CHECK_EQ_U64(mm_map(mm, base, 4 * P, GUEST_PROT_READ | GUEST_PROT_WRITE), 0, "map 4 pages");
  CHECK_EQ_U64(mm_map(mm, base + 1, P, GUEST_PROT_READ), (uint64_t)(int64_t)PM_EINVAL, "unaligned map refused");
  uint64_t v = 0x1122334455667788ull, r = 0;
  CHECK_EQ_U64(mm_read(mm, base + 100, &r, 8, true), 0, "demand-zero read");
  CHECK_EQ_U64(r, 0, "fresh page reads zero");
  CHECK_EQ_U64(mm_write(mm, base + P - 4, &v, 8, true), 0, "write across a page boundary");
  CHECK_EQ_U64(mm_read(mm, base + P - 4, &r, 8, true), 0, "read across a page boundary");
  CHECK_EQ_U64(r, v, "cross-page value");
  /* The TLB hits aligned accesses only after the slow path filled it. */
  CHECK(mm_tlb_read(mm, base + 2 * P, 8) == NULL, "cold TLB misses");
  CHECK(mm_host(mm, base + 2 * P, GUEST_PROT_READ) != NULL, "slow path fills");
  CHECK(mm_tlb_read(mm, base + 2 * P + 8, 8) != NULL, "aligned access hits");
  CHECK(mm_tlb_read(mm, base + 2 * P + 4, 8) == NULL, "misaligned quadword misses");
  CHECK(mm_tlb_read(mm, base + 2 * P + 4, 4) != NULL, "aligned longword hits");
  /* Protection. */
  CHECK_EQ_U64(mm_protect(mm, base, P, GUEST_PROT_READ), 0, "mprotect read-only");
  CHECK_EQ_U64(mm_write(mm, base, &v, 8, true), (uint64_t)(int64_t)PM_EFAULT, "write to read-only page faults");
  CHECK_EQ_U64(mm_write(mm, base, &v, 8, false), 0, "loader writes ignore protection");
  CHECK(mm_tlb_write(mm, base, 8) == NULL, "no write TLB entry for a read-only page");
  CHECK_EQ_U64(mm_protect(mm, base + 10 * P, P, GUEST_PROT_READ), (uint64_t)(int64_t)PM_EFAULT, "mprotect of unmapped fails");
  /* Free-range search skips mapped pages, finds holes, respects limits. */
  CHECK_EQ_U64(mm_find_free(mm, base, base + 100 * P, 2 * P), base + 4 * P, "first hole after mapping");
  CHECK_EQ_U64(mm_find_free(mm, base, base + 5 * P, 2 * P), 0, "no hole below limit");
  CHECK_EQ_U64(mm_find_free(mm, 0x20000000000ull, GUEST_TASK_SIZE, 1ull << 30), 0x20000000000ull, "empty region");
  /* Fork copies private pages and shares MAP_SHARED ones. */
  CHECK_EQ_U64(mm_map(mm, base + 8 * P, P, GUEST_PROT_READ | GUEST_PROT_WRITE), 0, "map shared page");
  CHECK_EQ_U64(mm_share(mm, base + 8 * P, P), 0, "mark shared");
  struct guest_mm *child = mm_fork(mm);
  CHECK(child != NULL, "fork");
  uint64_t a = 7, b = 9;
  mm_write(child, base + 3 * P, &a, 8, true);
  mm_write(child, base + 8 * P, &b, 8, true);
  mm_read(mm, base + 3 * P, &r, 8, true);
  CHECK_EQ_U64(r, 0, "private page not shared after fork");
  mm_read(mm, base + 8 * P, &r, 8, true);
  CHECK_EQ_U64(r, 9, "shared page shared after fork");
  mm_put(child);
  mm_read(mm, base + 8 * P, &r, 8, true);
  CHECK_EQ_U64(r, 9, "shared page survives the child");
  CHECK_EQ_U64(mm_unmap(mm, base, 4 * P), 0, "unmap");
  CHECK(!mm_is_mapped(mm, base, 1), "unmapped");
  CHECK(mm_host(mm, base, 0) == NULL, "no host memory after unmap");
  char s[8];
  const char str[] = "abc";
  mm_write(mm, base + 8 * P, str, 4, true);
  CHECK_EQ_U64(mm_read_str(mm, base + 8 * P, s, sizeof s), 3, "read_str length");
  CHECK_EQ_U64(mm_read_str(mm, base + 8 * P, s, 2), (uint64_t)(int64_t)PM_EINVAL, "read_str too long");
  CHECK(mm_page(mm, GUEST_TASK_SIZE) == NULL, "beyond TASK_SIZE is unmapped");
  CHECK_EQ_U64(mm_map(mm, 0x20000000000ull, 1ull << 40, 0), (uint64_t)(int64_t)PM_ENOMEM,
               "a 1 TB mapping fails with ENOMEM instead of exhausting the host");
  CHECK_EQ_U64(mm_map(mm, 0x20000000000ull, 1ull << 30, GUEST_PROT_READ), 0, "1 GB maps");
  mm_put(mm);
  phys_destroy(ram);
  return check_done();
}
