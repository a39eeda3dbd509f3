/* Guest address space: mapping, demand-zero pages, protections, the TLB's
 * alignment rule, fork copy versus MAP_SHARED sharing, free-range search. */
#include "check.h"
#include "guest/mem.h"
#include "util/err.h"

int main(void)
{
  struct guest_mm *mm = mm_create();
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
  return check_done();
}
