/* ELF loading for Alpha Linux programs (the kernel's binfmt_elf, in small): maps
 * PT_LOAD segments into an address space, finds PT_INTERP, and builds the initial
 * stack (argc, argv, envp, auxv) exactly as arch/alpha's create_elf_tables does.
 * Every field read from the file is bounds-checked: the loader takes any bytes. */
#ifndef GUEST_LOADER_H
#define GUEST_LOADER_H
#include <stddef.h>
#include <stdint.h>
#include "guest/mem.h"

#define GUEST_STACK_TOP      0x120000000ull    /* arch/alpha STACK_TOP */
#define GUEST_STACK_SIZE     (8ull << 20)      /* RLIMIT_STACK default */
#define GUEST_UNMAPPED_BASE  0x20000000000ull  /* TASK_UNMAPPED_BASE = TASK_SIZE/2 */
#define GUEST_ET_DYN_BASE    (GUEST_UNMAPPED_BASE + 0x1000000)

struct elf_image {
  uint64_t entry;       /* relocated entry point */
  uint64_t phdr;        /* guest address of the program headers */
  uint64_t phnum;
  uint64_t base;        /* load bias (0 for ET_EXEC) */
  uint64_t end;         /* highest address used, page rounded (brk start) */
  char interp[256];     /* PT_INTERP, or "" */
  uint64_t text_addr, text_len, text_off;   /* first executable PT_LOAD, page aligned */
  /* binfmt_elf's mm fields: the lowest executable p_vaddr, the highest end of
   * an executable segment's file part, the highest p_vaddr, the highest end of
   * any file part (all relocated; 0 without executable segments). */
  uint64_t start_code, end_code, start_data, end_data;
};

/* Loads the ELF image in buf (len bytes) into mm. is_interp picks the
 * interpreter's placement for ET_DYN. Returns 0 or PM_E* (PM_ENOEXEC,
 * PM_EARCH, PM_ECORRUPT, PM_ENOSPC; PM_ENOMEM also when its PT_LOADs map more
 * than 4 GB together, checked before anything is mapped). */
int elf_load(struct guest_mm *mm, const uint8_t *buf, size_t len, int is_interp,
             struct elf_image *img);
/* elf_load naming the mappings as Linux's elf_map makes them: each PT_LOAD's
 * file part a private mapping of file (its path, dev and ino; NULL: left
 * anonymous) at the segment's page offset, its bss pages past the file part
 * anonymous read-write (vm_brk_flags), executable if the segment is. */
int elf_load_file(struct guest_mm *mm, const uint8_t *buf, size_t len, int is_interp,
                  const struct guest_vma *file, struct elf_image *img);

/* Checks the ELF header only: 0 if buf starts an Alpha ELF executable or shared
 * object, else PM_ENOEXEC / PM_EARCH / PM_ECORRUPT. */
int elf_check(const uint8_t *buf, size_t len);

struct stack_args {
  int argc;
  char *const *argv;
  int envc;
  char *const *envp;
  const char *execfn;
  const struct elf_image *exe, *interp;  /* interp may be NULL */
  const uint8_t *random16;               /* AT_RANDOM bytes */
};

/* Maps the stack and writes the initial process stack. Returns the initial sp
 * (pointing at argc), or 0 when it does not fit. Records in mm what Linux's
 * mm_struct has of it: the argument and environment strings' bounds, the
 * initial sp, and where the stack VMA starts before it grows: 128 KB below
 * the page of the lowest string (setup_arg_pages' stack_expand). */
uint64_t elf_setup_stack(struct guest_mm *mm, const struct stack_args *sa);

#endif
