/* ELF loader and initial stack; see loader.h. Sources: Linux fs/binfmt_elf.c
 * (segment mapping, create_elf_tables), arch/alpha/include/asm/elf.h (ELF_HWCAP,
 * ELF_PLATFORM, ELF_ET_DYN_BASE). */
#include "guest/loader.h"
#include "guest/cpu.h"
#include "util/err.h"
#include <elf.h>
#include <string.h>

#ifndef EM_ALPHA
#define EM_ALPHA 0x9026
#endif

/* The most an image may span, and the most its segments may map together:
 * mapping costs a page descriptor and a step per page of every segment (pages
 * shared by overlapping segments once per segment), so this bounds elf_load's
 * time and host memory whatever p_memsz says. Linux fails an image it cannot
 * commit memory for with ENOMEM. */
#define MAX_IMAGE_BYTES (4ull << 30)

int elf_check(const uint8_t *buf, size_t len)
{
  Elf64_Ehdr ehdr;
  const Elf64_Ehdr *eh = &ehdr;
  if (len < 4 || memcmp(buf, ELFMAG, SELFMAG) != 0) return PM_ENOEXEC;
  if (len < sizeof ehdr) return PM_ECORRUPT;
  memcpy(&ehdr, buf, sizeof ehdr);   /* the buffer need not be aligned */
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
      eh->e_machine != EM_ALPHA)
    return PM_EARCH;
  if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) return PM_ENOEXEC;
  if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 || eh->e_phnum > 256 ||
      eh->e_phoff > len || (len - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum)
    return PM_ECORRUPT;
  return 0;
}

/* The page-rounded bytes a PT_LOAD maps (its end is checked against
 * GUEST_TASK_SIZE already, so this does not overflow). */
static uint64_t seg_span(const Elf64_Phdr *ph)
{
  if (ph->p_memsz == 0) return 0;   /* not mapped at all */
  uint64_t end = (ph->p_vaddr + ph->p_memsz + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  return end - (ph->p_vaddr & ~GUEST_PAGE_MASK);
}

static int prot_of(uint32_t pf)
{
  return (pf & PF_R ? GUEST_PROT_READ : 0) | (pf & PF_W ? GUEST_PROT_WRITE : 0) |
         (pf & PF_X ? GUEST_PROT_EXEC : 0);
}

/* Maps [lo, hi) with prot; pages already mapped by an earlier segment keep their
 * contents and gain prot. */
static int map_range(struct guest_mm *mm, uint64_t lo, uint64_t hi, int prot)
{
  for (uint64_t a = lo; a < hi; a += GUEST_PAGE_SIZE) {
    struct guest_page *p = mm_page(mm, a);
    int err = p ? mm_protect(mm, a, GUEST_PAGE_SIZE, (p->prot & 7) | prot)
                : mm_map(mm, a, GUEST_PAGE_SIZE, prot);
    if (err) return err;
  }
  return 0;
}

int elf_load(struct guest_mm *mm, const uint8_t *buf, size_t len, int is_interp,
             struct elf_image *img)
{
  return elf_load_file(mm, buf, len, is_interp, NULL, img);
}

int elf_load_file(struct guest_mm *mm, const uint8_t *buf, size_t len, int is_interp,
                  const struct guest_vma *file, struct elf_image *img)
{
  int err = elf_check(buf, len);
  if (err) return err;
  Elf64_Ehdr ehdr;
  memcpy(&ehdr, buf, sizeof ehdr);
  const Elf64_Ehdr *eh = &ehdr;
  Elf64_Phdr ph[256];   /* elf_check bounds e_phnum by 256 */
  memcpy(ph, buf + eh->e_phoff, (size_t)eh->e_phnum * sizeof ph[0]);
  uint64_t lo = UINT64_MAX, hi = 0, mapped = 0;
  memset(img, 0, sizeof *img);
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_INTERP) {
      if (ph[i].p_offset > len || ph[i].p_filesz > len - ph[i].p_offset ||
          ph[i].p_filesz < 2 || ph[i].p_filesz > sizeof img->interp)
        return PM_ECORRUPT;
      memcpy(img->interp, buf + ph[i].p_offset, ph[i].p_filesz);
      if (img->interp[ph[i].p_filesz - 1] != '\0') return PM_ECORRUPT;
    }
    if (ph[i].p_type != PT_LOAD) continue;
    if (ph[i].p_filesz > ph[i].p_memsz || ph[i].p_offset > len ||
        ph[i].p_filesz > len - ph[i].p_offset || ph[i].p_memsz > GUEST_TASK_SIZE ||
        ph[i].p_vaddr > GUEST_TASK_SIZE - ph[i].p_memsz)
      return PM_ECORRUPT;
    mapped += seg_span(&ph[i]);   /* at most 256 * 4 TB: no overflow */
    if (ph[i].p_vaddr < lo) lo = ph[i].p_vaddr;
    if (ph[i].p_vaddr + ph[i].p_memsz > hi) hi = ph[i].p_vaddr + ph[i].p_memsz;
  }
  if (hi == 0) return PM_ECORRUPT;   /* nothing to load */
  if (mapped > MAX_IMAGE_BYTES) return PM_ENOMEM;
  lo &= ~GUEST_PAGE_MASK;
  hi = (hi + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
  if (hi - lo > MAX_IMAGE_BYTES) return PM_ENOSPC;
  uint64_t bias = 0;
  if (eh->e_type == ET_DYN) {
    uint64_t want = is_interp ? GUEST_UNMAPPED_BASE : GUEST_ET_DYN_BASE;
    uint64_t at = mm_find_free(mm, want, GUEST_TASK_SIZE, hi - lo);
    if (!at) return PM_ENOSPC;
    bias = at - lo;
  } else if (mm_find_free(mm, lo, hi, hi - lo) != lo) {
    return PM_ENOSPC;   /* overlaps something already mapped */
  }
  uint64_t start_code = UINT64_MAX, end_code = 0, start_data = 0, end_data = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0) continue;
    uint64_t va = ph[i].p_vaddr + bias;
    uint64_t plo = va & ~GUEST_PAGE_MASK;
    uint64_t phi = (va + ph[i].p_memsz + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
    int prot = prot_of(ph[i].p_flags);
    if ((err = map_range(mm, plo, phi, prot))) return err;
    /* The mappings elf_load makes (fs/binfmt_elf.c): the file part from the
     * segment's page at its page offset (replacing what an earlier segment
     * had in a shared page, as MAP_FIXED does), then the bss pages past it,
     * anonymous and writable. */
    uint64_t file_end = ph[i].p_filesz ? (va + ph[i].p_filesz + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK : plo;
    if (file_end > plo) {
      struct guest_vma v = file ? *file : (struct guest_vma){ 0 };
      v.prot = (uint8_t)prot;
      v.flags = prot & GUEST_PROT_WRITE ? VMA_ACCOUNT : 0;   /* elf_map: MAP_PRIVATE */
      v.pgoff = ph[i].p_offset - (ph[i].p_vaddr & GUEST_PAGE_MASK);
      if ((err = mm_vma_set(mm, plo, file_end - plo, &v))) return err;
    }
    if (phi > file_end) {
      int bss = GUEST_PROT_READ | GUEST_PROT_WRITE | (prot & GUEST_PROT_EXEC);
      if ((err = mm_protect(mm, file_end, phi - file_end, bss)) ||
          (err = mm_vma_set(mm, file_end, phi - file_end,
                            &(struct guest_vma){ .prot = (uint8_t)bss, .flags = VMA_ACCOUNT })))
        return err;
    }
    uint64_t k = ph[i].p_vaddr + bias;
    if ((ph[i].p_flags & PF_X) && k < start_code) start_code = k;
    if (start_data < k) start_data = k;
    k += ph[i].p_filesz;
    if ((ph[i].p_flags & PF_X) && end_code < k) end_code = k;
    if (end_data < k) end_data = k;
    if ((err = mm_write(mm, va, buf + ph[i].p_offset, ph[i].p_filesz, false))) return err;
    /* Zero the bss part of the last page holding file data; the pages after
     * it are fresh zero pages already. */
    uint64_t fend = va + ph[i].p_filesz, mend = va + ph[i].p_memsz;
    uint64_t zend = (fend + GUEST_PAGE_MASK) & ~GUEST_PAGE_MASK;
    if (zend > mend) zend = mend;
    static const uint8_t zeros[GUEST_PAGE_SIZE];
    if (ph[i].p_filesz && zend > fend && (err = mm_write(mm, fend, zeros, zend - fend, false)))
      return err;
    if ((ph[i].p_flags & PF_X) && !img->text_len) {
      img->text_addr = plo;
      img->text_len = phi - plo;
      img->text_off = ph[i].p_offset & ~GUEST_PAGE_MASK;
    }
    if (ph[i].p_offset <= eh->e_phoff &&
        eh->e_phoff - ph[i].p_offset < ph[i].p_filesz)
      img->phdr = va + (eh->e_phoff - ph[i].p_offset);
  }
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_PHDR) img->phdr = ph[i].p_vaddr + bias;
  img->start_code = start_code == UINT64_MAX ? 0 : start_code;
  img->end_code = end_code;
  img->start_data = start_data;
  img->end_data = end_data;
  img->entry = eh->e_entry + bias;
  img->phnum = eh->e_phnum;
  img->base = bias;
  img->end = hi + bias;
  return 0;
}

/* A downward-growing writer over the guest stack. */
struct sp_writer { struct guest_mm *mm; uint64_t sp; int err; };

static uint64_t push_bytes(struct sp_writer *w, const void *p, size_t n)
{
  w->sp -= n;
  if (mm_write(w->mm, w->sp, p, n, false)) w->err = 1;
  return w->sp;
}

static uint64_t push_str(struct sp_writer *w, const char *s)
{
  return push_bytes(w, s, strlen(s) + 1);
}

uint64_t elf_setup_stack(struct guest_mm *mm, const struct stack_args *sa)
{
  uint64_t top = GUEST_STACK_TOP;
  const uint64_t bottom = top - GUEST_STACK_SIZE;
  if (mm_map(mm, bottom, GUEST_STACK_SIZE, GUEST_PROT_READ | GUEST_PROT_WRITE) ||
      mm_vma_set(mm, bottom, GUEST_STACK_SIZE,
                 &(struct guest_vma){ .prot = GUEST_PROT_READ | GUEST_PROT_WRITE,
                                      .flags = VMA_GROWSDOWN | VMA_ACCOUNT }))   /* VM_STACK_FLAGS */
    return 0;
  struct sp_writer w = { mm, top, 0 };
  uint64_t zero = 0;
  push_bytes(&w, &zero, 8);
  uint64_t execfn = push_str(&w, sa->execfn);
  uint64_t envs[sa->envc + 1], args[sa->argc + 1];
  for (int i = sa->envc - 1; i >= 0; i--) envs[i] = push_str(&w, sa->envp[i]);
  for (int i = sa->argc - 1; i >= 0; i--) args[i] = push_str(&w, sa->argv[i]);
  /* create_elf_tables: arg_start is the lowest string, the arguments end
   * where the environment starts, which ends before the file name. */
  uint64_t p = w.sp;
  mm->arg_start = p;
  for (int i = 0; i < sa->argc; i++) p += strlen(sa->argv[i]) + 1;
  mm->arg_end = mm->env_start = p;
  for (int i = 0; i < sa->envc; i++) p += strlen(sa->envp[i]) + 1;
  mm->env_end = p;
  mm->stack_vm_start = (mm->arg_start & ~GUEST_PAGE_MASK) - (128u << 10);
  if (mm->stack_vm_start < bottom) mm->stack_vm_start = bottom;
  uint64_t platform = push_str(&w, "ev67");
  w.sp &= ~15ull;
  uint64_t random = push_bytes(&w, sa->random16, 16);
  uint64_t aux[][2] = {
    { AT_PHDR, sa->exe->phdr }, { AT_PHENT, sizeof(Elf64_Phdr) },
    { AT_PHNUM, sa->exe->phnum }, { AT_PAGESZ, GUEST_PAGE_SIZE },
    { AT_BASE, sa->interp ? sa->interp->base : 0 }, { AT_FLAGS, 0 },
    { AT_ENTRY, sa->exe->entry }, { AT_UID, 0 }, { AT_EUID, 0 }, { AT_GID, 0 },
    { AT_EGID, 0 }, { AT_HWCAP, AXP_AMASK_EV67 }, { AT_CLKTCK, 100 },
    { AT_PLATFORM, platform }, { AT_SECURE, 0 }, { AT_RANDOM, random },
    { AT_EXECFN, execfn }, { AT_NULL, 0 },
  };
  size_t nwords = 1 + (size_t)sa->argc + 1 + (size_t)sa->envc + 1 + 2 * (sizeof aux / sizeof aux[0]);
  w.sp = (w.sp - nwords * 8) & ~15ull;
  uint64_t sp = w.sp, argc = (uint64_t)sa->argc;
  uint64_t envp = sp + 8 * ((uint64_t)sa->argc + 2), auxv = envp + 8 * ((uint64_t)sa->envc + 1);
  args[sa->argc] = envs[sa->envc] = 0;   /* the NULLs ending argv and envp */
  if (mm_write(mm, sp, &argc, 8, false) ||
      mm_write(mm, sp + 8, args, ((size_t)sa->argc + 1) * 8, false) ||
      mm_write(mm, envp, envs, ((size_t)sa->envc + 1) * 8, false) ||
      mm_write(mm, auxv, aux, sizeof aux, false) || w.err || sp < top - GUEST_STACK_SIZE / 2)
    return 0;
  mm->start_stack = sp;
  return sp;
}
