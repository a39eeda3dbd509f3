/* ELF loader on crafted files: headers at addresses that are not 8-aligned
 * (checked by the SAN=1 build: only UBSan sees a misaligned read), and a bss
 * that must be zeroed only in its file-backed page, and segments that would
 * make loading cost time and host memory in proportion to p_memsz. */
#include "check.h"
#include "guest/loader.h"
#include "guest/mem.h"
#include "guest/phys.h"
#include "util/err.h"
#include <elf.h>
#include <string.h>

#ifndef EM_ALPHA
#define EM_ALPHA 0x9026
#endif

#define BASE 0x120000000ull
#define P    GUEST_PAGE_SIZE

/* Room for 256 program headers after the ELF header, plus a spare byte so
 * that the file can start at an odd host address. */
static _Alignas(8) uint8_t store[2 * GUEST_PAGE_SIZE + 1];

/* Writes an ET_EXEC header at f with nph program headers at phoff; memcpy, as
 * the loader must read them, since f and phoff need not be aligned. */
static void put_ehdr(uint8_t *f, uint64_t phoff, int nph)
{
  Elf64_Ehdr eh;
  memset(&eh, 0, sizeof eh);
  memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_ALPHA;
  eh.e_version = EV_CURRENT;
  eh.e_entry = BASE + 0x1000;
  eh.e_phoff = phoff;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = (Elf64_Half)nph;
  memcpy(f, &eh, sizeof eh);
}

/* One RAM for all the address spaces of these tests (freed at exit). */
static struct physmem *ram(void)
{
  static struct physmem *p;
  if (!p) p = phys_create(256ull << 20);
  return p;
}

static uint64_t err_u64(int err) { return (uint64_t)(int64_t)err; }

static void put_load(uint8_t *f, uint64_t phoff, int i, uint64_t vaddr, uint64_t off,
                     uint64_t filesz, uint64_t memsz, uint32_t flags)
{
  Elf64_Phdr ph = {
    .p_type = PT_LOAD, .p_flags = flags, .p_offset = off, .p_vaddr = vaddr,
    .p_paddr = vaddr, .p_filesz = filesz, .p_memsz = memsz, .p_align = 0x10000,
  };
  memcpy(f + phoff + (uint64_t)i * sizeof ph, &ph, sizeof ph);
}

/* e_phoff 67, in a file at an aligned address (the program headers are
 * misaligned) and then at an odd one (the ELF header is too). */
static void test_misaligned_headers(int shift)
{
  uint8_t *f = store + shift;
  const uint64_t phoff = sizeof(Elf64_Ehdr) + 3, len = P;
  memset(store, 0x5a, sizeof store);
  put_ehdr(f, phoff, 1);
  put_load(f, phoff, 0, BASE, 0, len, len, PF_R | PF_X);
  CHECK_EQ_U64(elf_check(f, len), 0, "misaligned +%d: elf_check accepts e_phoff 67", shift);
  struct guest_mm *mm = mm_create(ram());
  struct elf_image img;
  CHECK_EQ_U64(elf_load(mm, f, len, 0, &img), 0, "misaligned +%d: elf_load loads it", shift);
  CHECK_EQ_U64(img.phdr, BASE + phoff, "misaligned +%d: AT_PHDR points at the headers", shift);
  CHECK_EQ_U64(img.phnum, 1, "misaligned +%d: one program header", shift);
  CHECK_EQ_U64(img.entry, BASE + 0x1000, "misaligned +%d: entry", shift);
  uint8_t b = 0;
  mm_read(mm, BASE + len - 1, &b, 1, false);
  CHECK_EQ_U64(b, 0x5a, "misaligned +%d: file data loaded", shift);
  mm_put(mm);
}

/* A data segment with 0x300 file bytes and 64 pages of bss: the rest of the
 * file's page reads zero although the file holds bytes there, and only that
 * page gets host memory. */
static void test_bss_tail(void)
{
  uint8_t *f = store;
  const uint64_t filesz = 0x300, memsz = filesz + 64 * P, len = P;
  memset(store, 0xaa, sizeof store);
  put_ehdr(f, sizeof(Elf64_Ehdr), 1);
  put_load(f, sizeof(Elf64_Ehdr), 0, BASE, 0, filesz, memsz, PF_R | PF_W);
  struct guest_mm *mm = mm_create(ram());
  struct elf_image img;
  CHECK_EQ_U64(elf_load(mm, f, len, 0, &img), 0, "bss: elf_load");
  CHECK_EQ_U64(mm->pages_touched, 1, "bss: only the file-backed page has host memory");
  CHECK(mm_is_mapped(mm, BASE, memsz), "bss: mapped to the end of p_memsz");
  CHECK_EQ_U64(img.end, (BASE + memsz + P - 1) & ~(P - 1), "bss: brk starts after it");
  uint8_t tail[P - filesz], zero[P - filesz], b = 1;
  memset(zero, 0, sizeof zero);
  mm_read(mm, BASE + filesz, tail, sizeof tail, false);
  CHECK(memcmp(tail, zero, sizeof tail) == 0, "bss: rest of the file page zeroed");
  mm_read(mm, BASE + filesz - 1, &b, 1, false);
  CHECK_EQ_U64(b, 0xaa, "bss: last file byte kept");
  mm_read(mm, BASE + memsz - 1, &b, 1, false);
  CHECK_EQ_U64(b, 0, "bss: last byte reads zero");
  mm_put(mm);
}

/* Segments Linux could not back either: ENOMEM at once, nothing mapped. */
static void test_huge_segments(void)
{
  uint8_t *f = store;
  memset(store, 0, sizeof store);
  struct guest_mm *mm = mm_create(ram());
  struct elf_image img;

  put_ehdr(f, sizeof(Elf64_Ehdr), 1);
  put_load(f, sizeof(Elf64_Ehdr), 0, BASE, 0, 0x100, 1ull << 40, PF_R | PF_W);
  CHECK_EQ_U64(elf_load(mm, f, P, 0, &img), err_u64(PM_ENOMEM), "huge: a 1 TB bss is ENOMEM");
  CHECK_EQ_U64(mm->pages_mapped, 0, "huge: nothing mapped for it");

  /* 256 segments of 4 GB each over the same range: the image spans 4 GB,
   * but mapping them one after another would walk 2^27 pages. */
  const int n = 256;
  const uint64_t phoff = sizeof(Elf64_Ehdr), each = (4ull << 30) - 2 * P;
  put_ehdr(f, phoff, n);
  for (int i = 0; i < n; i++) put_load(f, phoff, i, BASE, 0, 0, each, PF_R | PF_W);
  CHECK_EQ_U64(elf_load(mm, f, sizeof store, 0, &img), err_u64(PM_ENOMEM),
               "huge: 256 overlapping 4 GB segments are ENOMEM");
  CHECK_EQ_U64(mm->pages_mapped, 0, "huge: nothing mapped for them");
  mm_put(mm);

  /* A large bss within the limit still loads, with no page touched. */
  mm = mm_create(ram());
  put_ehdr(f, phoff, 1);
  put_load(f, phoff, 0, BASE, 0, 0, 1ull << 30, PF_R | PF_W);
  CHECK_EQ_U64(elf_load(mm, f, P, 0, &img), 0, "huge: a 1 GB bss loads");
  CHECK_EQ_U64(mm->pages_mapped, (1ull << 30) / P, "huge: its pages are mapped");
  CHECK_EQ_U64(mm->pages_touched, 0, "huge: none touched");
  mm_put(mm);
}

int main(void)
{
  test_misaligned_headers(0);
  test_misaligned_headers(1);
  test_bss_tail();
  test_huge_segments();
  return check_done();
}
