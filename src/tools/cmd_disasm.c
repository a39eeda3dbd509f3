/* `profileme disasm PROG [SYMBOL]`: the listing `objdump -d` prints for an Alpha
 * ELF file (executable, shared library or relocatable object), built on
 * axp_disasm(). To compare line for line with objdump 2.40 it follows objdump's
 * rules for labels:
 *  - symbols: named, defined, not section/file symbols (except .plt and .got
 *    ones); .symtab, or .dynsym when there is no .symtab; dynamic names carry
 *    their version ("abort@@GLIBC_2.0");
 *  - per listed section, symbols sorted by value with objdump's tie-breaks
 *    (this section first, functions, objects, globals, larger size, name);
 *  - a block starts at each symbol; an address is labelled with the nearest
 *    symbol at or below it, from the same section in relocatable files;
 *  - runs of 8 or more zero bytes print as "\t...", bytes under an object
 *    symbol print as 16-byte hex/ASCII lines.
 * Relocations are not applied: a .o shows its unrelocated fields, as objdump
 * does without -r. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "isa/disasm.h"
#include "tools/commands.h"
#include "util/err.h"

/* Symbol flags, named after the BFD flags objdump sorts on. */
enum {
  SF_LOCAL = 1, SF_GLOBAL = 2, SF_FUNCTION = 4, SF_OBJECT = 8, SF_SECTION = 16,
  SF_FILE = 32, SF_DEBUGGING = 64
};

struct sym {
  const char *name;
  const char *version;  /* dynamic symbols' version name, or NULL */
  bool hidden;          /* non-default version: "name@ver", else "name@@ver" */
  size_t shndx;         /* defining section; 0 for absolute symbols */
  const char *secname;
  uint64_t value, size;
  unsigned flags;       /* SF_* */
  bool insec;           /* sort key: defined in a section named like the listed one */
};

struct sec {
  const char *name;
  size_t idx;
  uint64_t vma, size;
  const uint8_t *data;
};

struct listing {
  const char *path;
  Elf *elf;
  bool has_reloc;       /* relocatable: labels come from the listed section */
  bool rel;             /* ET_REL: symbol values are section offsets */
  struct sym *syms;
  long nsyms;
  const struct sec *cur;
  const char *only;     /* SYMBOL argument, or NULL */
  bool printing;        /* inside the requested symbol's blocks */
  enum { UNTIL_END, UNTIL_FUNCTION, UNTIL_NEXT } until;  /* ...which end there */
  bool found;
  char label[1024];     /* symbolizer result */
};

static void usage(FILE *f)
{
  fprintf(f,
          "usage: profileme disasm PROG [SYMBOL]\n"
          "Prints the disassembly of the code sections of an Alpha ELF file\n"
          "(executable, shared library or relocatable object) in the format of\n"
          "objdump -d. With SYMBOL, only the blocks of that symbol.\n");
}

/* Returns the name of section `idx`, or "" if it has none. */
static const char *section_name(Elf *elf, size_t idx)
{
  size_t shstrndx;
  GElf_Shdr sh;
  Elf_Scn *scn = elf_getscn(elf, idx);
  if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
    return "";
  const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
  return name ? name : "";
}

/* Returns the first section of type `type`, or NULL. */
static Elf_Scn *find_section(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn))
    if (gelf_getshdr(scn, sh) && sh->sh_type == type)
      return scn;
  return NULL;
}

/* Version names of dynamic symbols, as BFD gives them to objdump: .gnu.version
 * holds a 15-bit index per symbol; indexes up to `ndef` are definitions
 * (.gnu.version_d), larger ones references (.gnu.version_r). */
#define NVERSIONS 0x8000
struct versions {
  Elf_Data *versym;
  const char **name;     /* by version index, NVERSIONS entries */
  unsigned ndef;
  bool base_flag;        /* definition 1 is the file's base version */
};

/* Records the name of every version index the file defines or references. */
static void name_versions(Elf *elf, struct versions *v, Elf_Data *def, size_t defstr,
                          Elf_Data *ref, size_t refstr)
{
  GElf_Verdef vd;
  GElf_Verdaux vda;
  GElf_Verneed vn;
  GElf_Vernaux va;
  for (int off = 0; def && gelf_getverdef(def, off, &vd); off += (int)vd.vd_next) {
    if (vd.vd_ndx < NVERSIONS && gelf_getverdaux(def, off + (int)vd.vd_aux, &vda))
      v->name[vd.vd_ndx] = elf_strptr(elf, defstr, vda.vda_name);
    if (vd.vd_ndx == 1)
      v->base_flag = vd.vd_flags & VER_FLG_BASE;
    v->ndef = vd.vd_ndx > v->ndef ? vd.vd_ndx : v->ndef;
    if (!vd.vd_next)
      break;
  }
  for (int off = 0; ref && gelf_getverneed(ref, off, &vn); off += (int)vn.vn_next) {
    for (int a = off + (int)vn.vn_aux; gelf_getvernaux(ref, a, &va); a += (int)va.vna_next) {
      v->name[va.vna_other & 0x7FFF] = elf_strptr(elf, refstr, va.vna_name);
      if (!va.vna_next)
        break;
    }
    if (!vn.vn_next)
      break;
  }
}

/* Fills *v from the version sections, if the file has them. */
static void load_versions(Elf *elf, struct versions *v)
{
  GElf_Shdr sh, shd, shr;
  memset(v, 0, sizeof *v);
  Elf_Scn *vs = find_section(elf, SHT_GNU_versym, &sh);
  Elf_Scn *ds = find_section(elf, SHT_GNU_verdef, &shd);
  Elf_Scn *rs = find_section(elf, SHT_GNU_verneed, &shr);
  if (!vs || (!ds && !rs))
    return;
  Elf_Data *def = ds ? elf_getdata(ds, NULL) : NULL, *ref = rs ? elf_getdata(rs, NULL) : NULL;
  v->versym = elf_getdata(vs, NULL);
  v->name = calloc(NVERSIONS, sizeof *v->name);
  if (!v->versym || !v->name)
    return;
  name_versions(elf, v, def, ds ? shd.sh_link : 0, ref, rs ? shr.sh_link : 0);
}

/* Sets the version of dynamic symbol `i` as objdump prints it. */
static void set_version(const struct versions *v, size_t i, struct sym *s)
{
  GElf_Versym vs;
  if (!v->name || !gelf_getversym(v->versym, (int)i, &vs))
    return;
  unsigned num = vs & 0x7FFF;
  s->hidden = vs & 0x8000;
  if (num == 0)
    return;
  if (num == 1 && (num > v->ndef || v->base_flag)) {
    s->version = "Base";
  } else if (num <= v->ndef) {
    s->version = v->name[num];
  } else {
    s->hidden = true;
    s->version = v->name[num] ? v->name[num] : "<corrupt>";
  }
}

/* Returns the SF_* flags of an ELF symbol. */
static unsigned sym_flags(const GElf_Sym *es)
{
  unsigned f = 0;
  switch (GELF_ST_BIND(es->st_info)) {
  case STB_LOCAL:  f |= SF_LOCAL; break;
  case STB_GLOBAL: f |= SF_GLOBAL; break;
  default: break;
  }
  switch (GELF_ST_TYPE(es->st_info)) {
  case STT_SECTION: f |= SF_SECTION | SF_DEBUGGING; break;
  case STT_FILE:    f |= SF_FILE | SF_DEBUGGING; break;
  case STT_FUNC:
  case STT_GNU_IFUNC: f |= SF_FUNCTION; break;
  case STT_OBJECT:  f |= SF_OBJECT; break;
  default: break;
  }
  return f;
}

/* Converts an ELF symbol into *s. Returns false for the symbols objdump drops. */
static bool make_sym(struct listing *l, const GElf_Sym *es, const char *name, struct sym *s)
{
  memset(s, 0, sizeof *s);
  if (es->st_shndx == SHN_UNDEF || es->st_shndx == SHN_COMMON)
    return false;
  s->flags = sym_flags(es);
  if (es->st_shndx == SHN_ABS) {
    s->secname = "*ABS*";
  } else if (es->st_shndx < SHN_LORESERVE) {
    s->shndx = es->st_shndx;
    s->secname = section_name(l->elf, s->shndx);
  } else {
    return false;
  }
  if ((s->flags & SF_SECTION) && (!name || !*name))
    name = s->secname;
  if (!name || !*name)
    return false;
  if ((s->flags & (SF_DEBUGGING | SF_SECTION)) && strncmp(name, ".plt", 4) != 0 &&
      strncmp(name, ".got", 4) != 0)
    return false;
  s->name = name;
  s->value = es->st_value;
  s->size = es->st_size;
  if (l->rel && s->shndx) {
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(l->elf, s->shndx);
    if (scn && gelf_getshdr(scn, &sh))
      s->value += sh.sh_addr;
  }
  return true;
}

/* Reads the symbol table objdump would use. Returns 0 or PM_ENOMEM. */
static int load_symbols(struct listing *l)
{
  GElf_Shdr sh;
  GElf_Sym es;
  struct versions v = { 0 };
  Elf_Scn *scn = find_section(l->elf, SHT_SYMTAB, &sh);
  if (!scn || sh.sh_entsize == 0 || sh.sh_size / sh.sh_entsize < 2) {
    scn = find_section(l->elf, SHT_DYNSYM, &sh);
    if (scn)
      load_versions(l->elf, &v);
  }
  Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
  size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
  l->syms = calloc(n ? n : 1, sizeof *l->syms);
  if (!l->syms) {
    free(v.name);
    return PM_ENOMEM;
  }
  for (size_t i = 1; i < n; i++) {
    if (!gelf_getsym(d, (int)i, &es))
      continue;
    struct sym *s = &l->syms[l->nsyms];
    if (!make_sym(l, &es, elf_strptr(l->elf, sh.sh_link, es.st_name), s))
      continue;
    set_version(&v, i, s);
    l->nsyms++;
  }
  free(v.name);
  return 0;
}

/* Returns true if the file has relocations against its symbol table (BFD's
 * HAS_RELOC), which makes objdump label addresses within the listed section. */
static bool file_has_reloc(Elf *elf)
{
  GElf_Shdr sh, link;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
      continue;
    Elf_Scn *ls = elf_getscn(elf, sh.sh_link);
    if (ls && gelf_getshdr(ls, &link) && link.sh_type == SHT_SYMTAB)
      return true;
  }
  return false;
}

/* Returns true for names objdump sorts after the others at one address:
 * compiler markers and names that look like files ("foo.o", "libc.a"). */
static bool sorts_late(const struct sym *s, bool file)
{
  size_t n = strlen(s->name);
  if (!file)
    return strstr(s->name, "gnu_compiled") || strstr(s->name, "gcc2_compiled");
  return (s->flags & SF_FILE) ||
         (n > 2 && s->name[n - 2] == '.' && (s->name[n - 1] == 'o' || s->name[n - 1] == 'a'));
}

/* objdump's symbol order (compare_symbols in binutils/objdump.c). */
static int sym_cmp(const void *pa, const void *pb)
{
  const struct sym *a = pa, *b = pb;
  if (a->value != b->value)
    return a->value > b->value ? 1 : -1;
  if (a->insec != b->insec)
    return a->insec ? -1 : 1;
  for (int file = 0; file < 2; file++)
    if (sorts_late(a, file) != sorts_late(b, file))
      return sorts_late(a, file) ? 1 : -1;
  static const struct { unsigned flag; int first; } order[] = {
    { SF_DEBUGGING, 1 }, { SF_SECTION, 1 }, { SF_FUNCTION, -1 }, { SF_OBJECT, -1 },
    { SF_LOCAL, 1 }, { SF_GLOBAL, -1 },
  };
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if ((a->flags & order[i].flag) != (b->flags & order[i].flag))
      return (a->flags & order[i].flag) ? order[i].first : -order[i].first;
  if (a->size != b->size)
    return a->size > b->size ? -1 : 1;
  if ((a->name[0] == '.') != (b->name[0] == '.'))
    return a->name[0] == '.' ? 1 : -1;
  return strcmp(a->name, b->name);
}

/* objdump's sym_ok: may symbol i label an address of the listed section? */
static bool sym_ok(const struct listing *l, bool want_section, long i)
{
  return !want_section || l->syms[i].shndx == l->cur->idx;
}

/* Returns the index of the symbol objdump labels `vma` with, or -1 (objdump's
 * find_symbol_for_address, without the dynamic-relocation refinement). */
static long find_sym(const struct listing *l, uint64_t vma, bool require_sec)
{
  long min = 0, max = l->nsyms, place, i;
  if (l->nsyms < 1)
    return -1;
  while (min + 1 < max) {
    long mid = (min + max) / 2;
    if (l->syms[mid].value > vma) {
      max = mid;
    } else if (l->syms[mid].value < vma) {
      min = mid;
    } else {
      min = mid;
      break;
    }
  }
  place = min;
  while (place > 0 && l->syms[place].value == l->syms[place - 1].value)
    place--;
  for (min = place; min < max && l->syms[min].value == l->syms[place].value; min++)
    if (sym_ok(l, true, min))
      return min;
  bool want = require_sec || (l->has_reloc && vma >= l->cur->vma &&
                              vma < l->cur->vma + l->cur->size);
  if (sym_ok(l, want, place))
    return place;
  long newplace = l->nsyms;
  for (i = min - 1; i >= 0; i--) {
    if (!sym_ok(l, want, i))
      continue;
    if (newplace == l->nsyms)
      newplace = i;
    if (l->syms[i].value != l->syms[newplace].value)
      break;
    newplace = i;
  }
  if (newplace != l->nsyms)
    return newplace;
  for (i = place + 1; i < l->nsyms; i++)
    if (sym_ok(l, want, i))
      return i;
  return -1;
}

/* Writes "name", "name@ver" or "name@@ver" into l->label. */
static const char *label_of(struct listing *l, const struct sym *s)
{
  if (s->version && *s->version)
    snprintf(l->label, sizeof l->label, "%s%s%s", s->name, s->hidden ? "@" : "@@", s->version);
  else
    snprintf(l->label, sizeof l->label, "%s", s->name);
  return l->label;
}

/* The axp_symbolizer for branch and jump-hint targets. */
static const char *symbolize(void *ctx, uint64_t addr, uint64_t *off)
{
  struct listing *l = ctx;
  if (l->nsyms < 1)
    return NULL;
  long i = find_sym(l, addr, false);
  if (i < 0) {
    *off = addr - l->cur->vma;
    return l->cur->name;
  }
  *off = addr - l->syms[i].value;
  return label_of(l, &l->syms[i]);
}

/* Prints a block header: "\n0000000120000abc <main>:\n". */
static void print_block_header(struct listing *l, uint64_t addr, long si)
{
  uint64_t value = si >= 0 ? l->syms[si].value : l->cur->vma;
  const char *name = si >= 0 ? label_of(l, &l->syms[si]) : l->cur->name;
  printf("\n%016" PRIx64 " <%s", addr, name);
  if (addr > value)
    printf("+0x%" PRIx64, addr - value);
  else if (addr < value)
    printf("-0x%" PRIx64, value - addr);
  printf(">:\n");
}

/* Returns how many leading characters of a 16-digit address objdump drops in
 * this section: whole groups of 4 zeros common to every address. */
static int addr_skip(const struct sec *s)
{
  char buf[32];
  int n = 0;
  snprintf(buf, sizeof buf, "%016" PRIx64, s->vma + s->size);
  while (buf[n] == '0')
    n++;
  if (buf[n] == '\0' && s->vma != 0)
    n = 0;
  return n ? (n - 1) & -4 : 0;
}

static void print_addr(uint64_t addr, int skip)
{
  char buf[32], *p;
  snprintf(buf, sizeof buf, "%016" PRIx64, addr);
  for (p = buf + skip; *p == '0'; p++)
    *p = ' ';
  if (*p == '\0')
    *--p = '0';
  printf("%s:\t", buf + skip);
}

/* Prints one line of object bytes: up to 16 in hex, then as ASCII. Returns the
 * number of bytes shown. */
static uint64_t print_data_line(const struct sec *s, uint64_t off, uint64_t stop)
{
  uint64_t n = stop - off < 16 ? stop - off : 16;
  char ascii[17];
  for (uint64_t j = 0; j < 16; j++) {
    if (j < n) {
      uint8_t c = s->data[off + j];
      printf("%02x ", c);
      ascii[j] = c >= 0x20 && c < 0x7F ? (char)c : '.';
    } else {
      printf("   ");
    }
  }
  ascii[n] = '\0';
  printf("    %s\n", ascii);
  return n;
}

/* Prints one instruction line. Returns the number of bytes consumed. */
static uint64_t print_insn_line(struct listing *l, uint64_t off, uint64_t stop)
{
  const struct sec *s = l->cur;
  if (stop - off < 4)
    return print_data_line(s, off, stop);
  const uint8_t *p = s->data + off;
  uint32_t w = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
  struct axp_insn d = axp_decode(w);
  char text[1200];
  axp_disasm_sym(&d, s->vma + off, text, sizeof text, symbolize, l);
  printf("%02x %02x %02x %02x \t%s\n", p[0], p[1], p[2], p[3], text);
  return 4;
}

/* Lists bytes [start, stop) of the current section (objdump's
 * disassemble_bytes): instructions, or data lines under an object symbol. */
static void list_bytes(struct listing *l, uint64_t start, uint64_t stop, bool insns, int skip)
{
  const struct sec *s = l->cur;
  uint64_t off = start;
  while (off < stop) {
    uint64_t z = off;
    while (z < stop && s->data[z] == 0)
      z++;
    if (z - off >= 8 || (z == stop && z - off < 3)) {
      if (z != stop)
        z = off + ((z - off) & ~(uint64_t)3);
      printf("\t...\n");
      off = z;
      continue;
    }
    print_addr(s->vma + off, skip);
    off += insns ? print_insn_line(l, off, stop) : print_data_line(s, off, stop);
  }
}

/* Returns true if the block starting at addr under symbol sym holds data:
 * sym is an object (not function) symbol of this section at or below addr. */
static bool is_data(const struct sym *sym, const struct sec *s, uint64_t addr)
{
  if (sym->shndx != s->idx || sym->value > addr || (sym->flags & SF_FUNCTION))
    return false;
  return (sym->flags & SF_OBJECT) || strstr(sym->name, "gnu_compiled") ||
         strstr(sym->name, "gcc2_compiled");
}

/* Decides whether the block at offset off, labelled by symbol si, is printed
 * when the user asked for one symbol, as objdump --disassemble=SYMBOL does:
 * printing starts at a block labelled SYMBOL and lasts st_size bytes from
 * there (*end is cut), to the next function symbol for a function without a
 * size, or for that one block for other symbols. */
static bool want_block(struct listing *l, long si, uint64_t off, uint64_t *end)
{
  if (!l->only)
    return true;
  if (si < 0)
    return l->printing;
  const struct sym *s = &l->syms[si];
  if (l->printing) {
    if (l->until == UNTIL_NEXT || (l->until == UNTIL_FUNCTION && (s->flags & SF_FUNCTION)))
      l->printing = false;
  } else if (strcmp(s->name, l->only) == 0) {
    l->printing = l->found = true;
    l->until = !(s->flags & SF_FUNCTION) ? UNTIL_NEXT : s->size ? UNTIL_END : UNTIL_FUNCTION;
    if (l->until == UNTIL_END && off + s->size < *end)
      *end = off + s->size;
  }
  return l->printing;
}

/* Returns the symbol labelling the block after the one that starts at addr
 * under si (objdump's nextsym): si itself while it lies ahead, else the next
 * symbol of this section with a higher value. *place walks the sorted table. */
static long next_label(const struct listing *l, long si, uint64_t addr, long *place)
{
  if (si < 0 || l->syms[si].value > addr)
    return si;
  for (; *place < l->nsyms; (*place)++) {
    const struct sym *n = &l->syms[*place];
    if (strcmp(n->secname, l->cur->name) == 0 && n->value > l->syms[si].value)
      return *place;
  }
  return -1;
}

/* Lists one code section (objdump's disassemble_section): a block per label,
 * each from its address to the next label or `end`. */
static void list_section(struct listing *l, const struct sec *s)
{
  int skip = addr_skip(s);
  uint64_t off = 0, end = s->size;
  l->cur = s;
  printf("\nDisassembly of section %s:\n", s->name);
  for (long i = 0; i < l->nsyms; i++)
    l->syms[i].insec = strcmp(l->syms[i].secname, s->name) == 0;
  qsort(l->syms, (size_t)l->nsyms, sizeof *l->syms, sym_cmp);
  long si = find_sym(l, s->vma, true), place = si;
  while (off < end) {
    uint64_t addr = s->vma + off, stop = end;
    long next = next_label(l, si, addr, &place);
    if (next >= 0)
      stop = l->syms[next].value - s->vma;
    if (stop > end || stop <= off)
      stop = end;
    if (want_block(l, si, off, &end)) {
      stop = stop < end ? stop : end;
      print_block_header(l, addr, si);
      list_bytes(l, off, stop, si < 0 || !is_data(&l->syms[si], s, addr), skip);
    }
    off = stop;
    si = next;
  }
}

/* Opens path as an Alpha ELF file, filling eh. Returns 0 or a PM_E* code. */
static int open_alpha_elf(const char *path, int *fd, Elf **elf, GElf_Ehdr *eh)
{
  *elf = NULL;
  *fd = open(path, O_RDONLY);
  if (*fd < 0)
    return errno == ENOENT || errno == ENOTDIR ? PM_ENOENT
         : errno == EACCES ? PM_EPERM : PM_EIO;
  elf_version(EV_CURRENT);
  *elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
  if (!*elf || elf_kind(*elf) != ELF_K_ELF || !gelf_getehdr(*elf, eh))
    return PM_ENOEXEC;
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
      eh->e_machine != EM_ALPHA)
    return PM_EARCH;
  return 0;
}

/* Lists every code section: SHF_EXECINSTR with contents. */
static void list_file(struct listing *l)
{
  GElf_Shdr sh;
  printf("\n%s:     file format elf64-alpha\n\n", l->path);
  for (Elf_Scn *scn = elf_nextscn(l->elf, NULL); scn; scn = elf_nextscn(l->elf, scn)) {
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
        sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !d->d_buf || d->d_size < sh.sh_size)
      continue;
    struct sec s = { section_name(l->elf, elf_ndxscn(scn)), elf_ndxscn(scn),
                     sh.sh_addr, sh.sh_size, d->d_buf };
    l->printing = false;
    list_section(l, &s);
  }
}

/* ---- one instruction at a time (disasm_file_*, commands.h) ---- */

struct disasm_file {
  struct listing l;
  int fd;
  struct sec *secs;     /* the code sections */
  size_t nsecs;
};

struct disasm_file *disasm_file_open(const char *path)
{
  struct disasm_file *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  GElf_Ehdr eh;
  GElf_Shdr sh;
  f->l.path = path;
  int err = open_alpha_elf(path, &f->fd, &f->l.elf, &eh);
  f->l.rel = !err && eh.e_type == ET_REL;
  if (!err)
    err = load_symbols(&f->l);
  for (Elf_Scn *scn = NULL; !err && (scn = elf_nextscn(f->l.elf, scn));) {
    if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || !d->d_buf || d->d_size < sh.sh_size)
      continue;
    struct sec *n = realloc(f->secs, (f->nsecs + 1) * sizeof *n);
    if (!n) {
      err = PM_ENOMEM;
      break;
    }
    f->secs = n;
    f->secs[f->nsecs++] = (struct sec){ section_name(f->l.elf, elf_ndxscn(scn)), elf_ndxscn(scn),
                                        sh.sh_addr, sh.sh_size, d->d_buf };
  }
  if (err) {
    disasm_file_close(f);
    return NULL;
  }
  f->l.has_reloc = file_has_reloc(f->l.elf);
  return f;
}

bool disasm_file_insn(struct disasm_file *f, uint64_t vma, char *buf, size_t len)
{
  const struct sec *s = NULL;
  for (size_t i = 0; i < f->nsecs && !s; i++)
    if (vma >= f->secs[i].vma && vma - f->secs[i].vma + 4 <= f->secs[i].size)
      s = &f->secs[i];
  if (!s)
    return false;
  if (f->l.cur != s) {    /* the labels' order depends on the listed section */
    f->l.cur = s;
    for (long i = 0; i < f->l.nsyms; i++)
      f->l.syms[i].insec = strcmp(f->l.syms[i].secname, s->name) == 0;
    qsort(f->l.syms, (size_t)f->l.nsyms, sizeof *f->l.syms, sym_cmp);
  }
  const uint8_t *p = s->data + (vma - s->vma);
  uint32_t w = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
  struct axp_insn d = axp_decode(w);
  axp_disasm_sym(&d, vma, buf, len, symbolize, &f->l);
  return true;
}

void disasm_file_close(struct disasm_file *f)
{
  if (!f)
    return;
  free(f->l.syms);
  free(f->secs);
  if (f->l.elf)
    elf_end(f->l.elf);
  if (f->fd >= 0)
    close(f->fd);
  free(f);
}

int cmd_disasm(int argc, char **argv)
{
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    usage(stdout);
    return 0;
  }
  if (argc < 2 || argc > 3) {
    usage(stderr);
    return 1;
  }
  struct listing l = { .path = argv[1], .only = argc == 3 ? argv[2] : NULL };
  GElf_Ehdr eh;
  int fd, err = open_alpha_elf(l.path, &fd, &l.elf, &eh);
  l.rel = !err && eh.e_type == ET_REL;
  if (!err)
    err = load_symbols(&l);
  bool ok = !err;
  if (ok) {
    l.has_reloc = file_has_reloc(l.elf);
    list_file(&l);
    ok = !l.only || l.found;
    if (!ok)
      fprintf(stderr, "profileme disasm: %s: no symbol %s in a code section\n", l.path, l.only);
  } else {
    fprintf(stderr, "profileme disasm: %s: %s\n", l.path, pm_strerror(err));
  }
  free(l.syms);
  if (l.elf)
    elf_end(l.elf);
  if (fd >= 0)
    close(fd);
  return ok ? 0 : 1;
}
