/* libFuzzer harness for the ELF loader: any bytes go through elf_check and
 * elf_load into a fresh address space (as the executable, then as an
 * interpreter into a second one), and a successful load gets its initial stack
 * built. The loader promises to take any bytes: a crash, a sanitizer report or
 * an inconsistent result here is a loader bug. */
#include "guest/cpu.h"
#include "guest/loader.h"
#include "guest/mem.h"
#include "guest/phys.h"
#include "util/err.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Loads data into a new address space and, if that worked, builds a stack.
 * Returns elf_load's result. */
static int load_one(const uint8_t *data, size_t size, int is_interp)
{
  struct physmem *ram = phys_create(64ull << 20);
  struct guest_mm *mm = mm_create(ram);
  if (!mm) abort();
  axp_mm_init(mm);
  struct elf_image img;
  int err = elf_load(mm, data, size, is_interp, &img);
  if (err != 0 && !pm_is_err(err)) abort();   /* outside the error table */
  if (err == 0) {
    if (img.interp[sizeof img.interp - 1] != '\0') abort();
    static const uint8_t rnd[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    char *argv[] = { "prog", "arg1", NULL };
    char *envp[] = { "PATH=/bin", "HOME=/", NULL };
    struct stack_args sa = {
      .argc = 2, .argv = argv, .envc = 2, .envp = envp, .execfn = "/prog",
      .exe = &img, .interp = is_interp ? &img : NULL, .random16 = rnd,
    };
    uint64_t sp = elf_setup_stack(mm, &sa);
    if (sp) {
      uint64_t argc = 0;
      if (mm_read(mm, sp, &argc, sizeof argc, false) != 0 || argc != 2) abort();
    }
  }
  mm_put(mm);
  phys_destroy(ram);
  return err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* elf_check must agree with elf_load on what it rejects. */
  int chk = elf_check(data, size);
  if (chk != 0 && !pm_is_err(chk)) abort();
  int err = load_one(data, size, 0);
  if (chk != 0 && err != chk) abort();
  if (chk == 0) load_one(data, size, 1);
  return 0;
}
