/* perf's machine model, small: threads (tid -> pid, comm), processes (pid ->
 * maps sorted by start, never overlapping: a new map cuts older ones, as
 * perf's maps__fixup_overlappings does), DSOs by path with lazily loaded
 * symbol tables. Symbol tables follow perf's dso__load_sym: functions from
 * .symtab (else .dynsym), duplicates at one address reduced by
 * choose_best_symbol, zero sizes extended to the next symbol. Data objects
 * are kept in a second table for data addresses. PLT entries are synthesized
 * as perf does (add_plt_symbols). */
#include "analysis/symbols.h"
#include "guest/kimage.h"
#include "perfdata/perfdata.h"
#include "perfdata/records.h"
#include "util/err.h"
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SRC_CACHE 1024

struct seg { uint64_t vaddr, memsz, off, filesz; };
struct src_entry { uint64_t vaddr; const char *file; unsigned line; uint8_t state; };  /* 0 empty, 1 found, 2 none */

struct sym_dso_int {
  bool loaded;
  int fd, dbg_fd;
  Elf *elf;                          /* the file mapped: text, segments */
  Elf *dbg;                          /* separate debug file (symbols, DWARF), or NULL */
  bool exec;                         /* ET_EXEC: link-time == run-time addresses */
  struct seg *segs;
  size_t nsegs;
  struct sym_symbol *funcs, *objs;
  size_t nfuncs, nobjs;
  Dwarf *dw;
  bool dw_tried;
  struct src_entry *src;             /* SRC_CACHE entries, allocated on first use */
};

/* Open-addressing table from a non-zero 64-bit key to a pointer. */
struct ptab { uint64_t *keys; void **vals; size_t cap, n; };

struct proc { uint32_t pid; struct sym_map *maps; size_t n, cap; };
struct thread { uint32_t tid, pid; const char *comm; };

struct sym_machine {
  char *symfs;
  struct ptab strings;               /* hash -> first of a chain of interned strings */
  struct ptab threads, procs, dsos;  /* tid+1, pid+1, interned path pointer */
  struct sym_dso kernel;
  struct sym_dso_int kernel_in;
  struct pooled { char *s; size_t next; } *pool;   /* every interned string */
  size_t npool, pool_cap;
};

/* ---- small tables ---- */

static uint64_t mix64(uint64_t x)
{
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* Returns the slot of key (0 < key) in t: its own, or the empty one to use. */
static size_t ptab_slot(const struct ptab *t, uint64_t key)
{
  size_t i = mix64(key) & (t->cap - 1);
  while (t->keys[i] && t->keys[i] != key) i = (i + 1) & (t->cap - 1);
  return i;
}

static void *ptab_get(const struct ptab *t, uint64_t key)
{
  if (!t->cap) return NULL;
  size_t i = ptab_slot(t, key);
  return t->keys[i] ? t->vals[i] : NULL;
}

/* Sets key to val. Returns 0 or PM_ENOMEM. */
static int ptab_put(struct ptab *t, uint64_t key, void *val)
{
  if ((t->n + 1) * 2 > t->cap) {
    struct ptab nt = { calloc(t->cap ? t->cap * 2 : 64, 8), calloc(t->cap ? t->cap * 2 : 64, sizeof(void *)),
                       t->cap ? t->cap * 2 : 64, 0 };
    if (!nt.keys || !nt.vals) { free(nt.keys); free(nt.vals); return PM_ENOMEM; }
    for (size_t i = 0; i < t->cap; i++)
      if (t->keys[i]) {
        size_t j = ptab_slot(&nt, t->keys[i]);
        nt.keys[j] = t->keys[i];
        nt.vals[j] = t->vals[i];
        nt.n++;
      }
    free(t->keys); free(t->vals);
    *t = nt;
  }
  size_t i = ptab_slot(t, key);
  if (!t->keys[i]) t->n++;
  t->keys[i] = key;
  t->vals[i] = val;
  return 0;
}

static void ptab_free(struct ptab *t, bool free_vals)
{
  for (size_t i = 0; free_vals && i < t->cap; i++)
    if (t->keys[i]) free(t->vals[i]);
  free(t->keys); free(t->vals);
  memset(t, 0, sizeof *t);
}

/* Returns the interned copy of s (equal strings, equal pointers), or NULL on
 * ENOMEM. The table maps a hash to the index+1 of the first pool entry with
 * that hash; entries with one hash are chained through `next`. */
static const char *intern(struct sym_machine *m, const char *s)
{
  uint64_t h = 14695981039346656037ull;
  for (const char *p = s; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
  h |= 1;
  size_t first = (uintptr_t)ptab_get(&m->strings, h);
  for (size_t i = first; i; i = m->pool[i - 1].next)
    if (!strcmp(m->pool[i - 1].s, s)) return m->pool[i - 1].s;
  if (m->npool == m->pool_cap) {
    size_t cap = m->pool_cap ? m->pool_cap * 2 : 64;
    struct pooled *p = realloc(m->pool, cap * sizeof *p);
    if (!p) return NULL;
    m->pool = p;
    m->pool_cap = cap;
  }
  char *copy = strdup(s);
  if (!copy || ptab_put(&m->strings, h, (void *)(uintptr_t)(m->npool + 1))) { free(copy); return NULL; }
  m->pool[m->npool++] = (struct pooled){ copy, first };
  return copy;
}

/* ---- ELF symbol tables ---- */

struct raw_sym { struct sym_symbol s; uint8_t bind, type; uint32_t order; };

static int raw_cmp(const void *pa, const void *pb)
{
  const struct raw_sym *a = pa, *b = pb;
  if (a->s.start != b->s.start) return a->s.start < b->s.start ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

static unsigned underscores(const char *s)
{
  unsigned n = 0;
  while (s[n] == '_') n++;
  return n;
}

/* perf's choose_best_symbol: true if a is preferred to b at one address.
 * A tie keeps the symbol that came first in the table, as perf's
 * symbols__fixup_duplicate does (libc's __libc_start_main@@GLIBC_2.34 and
 * @GLIBC_2.2.5 are the same length: perf names the first). */
static bool better(const struct raw_sym *a, const struct raw_sym *b)
{
  bool az = a->s.end == a->s.start, bz = b->s.end == b->s.start;
  if (az != bz) return bz;
  if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK)) return b->bind == STB_WEAK;
  if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL)) return a->bind == STB_GLOBAL;
  unsigned ua = underscores(a->s.name), ub = underscores(b->s.name);
  if (ua != ub) return ua < ub;
  return strlen(a->s.name) > strlen(b->s.name);
}

/* Sorts raw, keeps the best symbol per address, extends zero sizes to the
 * next symbol. Returns the final table (owned) and its length in *n. */
static struct sym_symbol *finish_table(struct raw_sym *raw, size_t *n)
{
  for (size_t i = 0; i < *n; i++) raw[i].order = (uint32_t)i;   /* the table's order, for ties */
  qsort(raw, *n, sizeof *raw, raw_cmp);
  size_t k = 0;
  for (size_t i = 0; i < *n; i++) {
    if (k && raw[k - 1].s.start == raw[i].s.start) {
      if (better(&raw[i], &raw[k - 1])) raw[k - 1] = raw[i];
      continue;
    }
    raw[k++] = raw[i];
  }
  struct sym_symbol *out = calloc(k ? k : 1, sizeof *out);
  if (!out) { *n = 0; return NULL; }
  for (size_t i = 0; i < k; i++) {
    out[i] = raw[i].s;
    if (out[i].end == out[i].start)
      out[i].end = i + 1 < k ? raw[i + 1].s.start : (out[i].start | 0xFFF) + 0x1001;
  }
  *n = k;
  return out;
}

/* Returns the first section of type `type`, or NULL. */
static Elf_Scn *find_section(Elf *elf, GElf_Word type, GElf_Shdr *sh)
{
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn))
    if (gelf_getshdr(scn, sh) && sh->sh_type == type) return scn;
  return NULL;
}

/* Whether section idx holds code. */
static bool exec_section(Elf *elf, size_t idx)
{
  GElf_Shdr sh;
  Elf_Scn *scn = elf_getscn(elf, idx);
  return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Whether elf has a .symtab with symbols. */
static bool has_symtab(Elf *elf)
{
  GElf_Shdr sh;
  return find_section(elf, SHT_SYMTAB, &sh) && sh.sh_entsize && sh.sh_size / sh.sh_entsize >= 2;
}

/* Returns the section named name, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
  size_t shstr;
  if (elf_getshdrstrndx(elf, &shstr)) return NULL;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    const char *n = gelf_getshdr(scn, sh) ? elf_strptr(elf, shstr, sh->sh_name) : NULL;
    if (n && !strcmp(n, name)) return scn;
  }
  return NULL;
}

/* The layout of .plt: its header and entry sizes, as perf 6.3 and later
 * take them (perf 6.1 had the same table, x86 from sh_entsize alone). Alpha's
 * .plt has sh_entsize 0, and perf none for it; binutils' elf64-alpha.c lays it
 * out as a 36-byte header and 4-byte entries (the secure PLT, read-only) or a
 * 32-byte header and 12-byte entries (the old PLT, writable). */
static bool plt_layout(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *header, uint64_t *entry)
{
  switch (eh->e_machine) {
  case EM_ARM: *header = 20; *entry = 12; break;
  case EM_AARCH64: case EM_LOONGARCH: *header = 32; *entry = 16; break;
  case EM_SPARC: *header = 48; *entry = 12; break;
  case EM_SPARCV9: *header = 128; *entry = 32; break;
  case EM_386: case EM_X86_64:
    *entry = plt->sh_entsize == 8 || plt->sh_entsize == 16 ? plt->sh_entsize : plt->sh_addralign == 8 ? 8 : 16;
    *header = *entry;
    break;
  case EM_ALPHA:
    if (plt->sh_flags & SHF_WRITE) { *header = 32; *entry = 12; }
    else { *header = 36; *entry = 4; }
    break;
  default: *header = *entry = plt->sh_entsize; break;
  }
  return *entry != 0;
}

struct plt_rel { uint64_t slot, addend; uint32_t sym, type; };

static int plt_rel_cmp(const void *pa, const void *pb)
{
  const struct plt_rel *a = pa, *b = pb;
  return a->slot < b->slot ? -1 : a->slot > b->slot;
}

/* The name perf 6.3 gives an x86-64 IRELATIVE slot: the function at its
 * addend (the IFUNC resolver, or the preferred alias at its address), or
 * NULL when no IFUNC is there. */
static const char *ifunc_name(const struct raw_sym *f, size_t nf, uint64_t addr)
{
  const struct raw_sym *best = NULL;
  bool ifunc = false;
  for (size_t i = 0; i < nf; i++)
    if (f[i].s.start == addr) {
      ifunc |= f[i].type == STT_GNU_IFUNC;
      if (!best || better(&f[i], best)) best = &f[i];
    }
  return ifunc ? best->s.name : NULL;
}

/* Reads .rela.plt (or .rel.plt) into a new array, *n entries. */
static struct plt_rel *read_plt_rels(Elf_Data *rd, const GElf_Shdr *rsh, size_t *n)
{
  *n = rsh->sh_size / rsh->sh_entsize;
  struct plt_rel *r = calloc(*n ? *n : 1, sizeof *r);
  for (size_t i = 0; r && i < *n; i++) {
    GElf_Rela ra = { 0 };
    GElf_Rel rl;
    if (rsh->sh_type == SHT_RELA) { if (!gelf_getrela(rd, (int)i, &ra)) { free(r); return NULL; } }
    else if (gelf_getrel(rd, (int)i, &rl)) { ra.r_offset = rl.r_offset; ra.r_info = rl.r_info; }
    else { free(r); return NULL; }
    r[i] = (struct plt_rel){ ra.r_offset, (uint64_t)ra.r_addend, (uint32_t)GELF_R_SYM(ra.r_info),
                             (uint32_t)GELF_R_TYPE(ra.r_info) };
  }
  return r;
}

/* perf's dso__synthesize_plt_symbols: one "NAME@plt" function per entry of
 * .rela.plt (or .rel.plt) of the file mapped, NAME its .dynsym symbol. Named
 * by perf 6.3's rules, which put right what 6.1 gets wrong on x86: there the
 * link editor does not write IRELATIVE relocations in .plt order, so they are
 * sorted by GOT slot first (entry i jumps through the i-th slot, as objdump's
 * labels show), and an IRELATIVE slot is named by the IFUNC at its addend
 * (6.1: "@plt", and the wrong name on every entry after the first such slot);
 * a PLT with one entry per relocation and no room for more has no header;
 * a slot with no name is "offset_0xOFF@plt". Appends to *f (*nf used);
 * names are interned in m. */
static void add_plt_symbols(struct sym_machine *m, Elf *elf, struct raw_sym **f, size_t *nf)
{
  GElf_Ehdr eh;
  GElf_Shdr rsh, psh, dsh;
  Elf_Scn *rel = section_named(elf, ".rela.plt", &rsh);
  if (!rel) rel = section_named(elf, ".rel.plt", &rsh);
  Elf_Scn *dyn = find_section(elf, SHT_DYNSYM, &dsh);
  uint64_t header, entry;
  if (!rel || !dyn || !gelf_getehdr(elf, &eh) || rsh.sh_link != elf_ndxscn(dyn) || !rsh.sh_entsize ||
      (rsh.sh_type != SHT_RELA && rsh.sh_type != SHT_REL) || !section_named(elf, ".plt", &psh) ||
      !plt_layout(&eh, &psh, &header, &entry))
    return;
  size_t n = rsh.sh_size / rsh.sh_entsize;
  if (n * entry == psh.sh_size) header = 0;
  if (n > (psh.sh_size > header ? (psh.sh_size - header) / entry : 0)) return;   /* more slots than entries */
  Elf_Data *rd = elf_getdata(rel, NULL), *sd = elf_getdata(dyn, NULL);
  struct plt_rel *r = rd && sd ? read_plt_rels(rd, &rsh, &n) : NULL;
  if (!r) return;
  bool x86 = eh.e_machine == EM_X86_64 || eh.e_machine == EM_386;
  if (x86) qsort(r, n, sizeof *r, plt_rel_cmp);
  struct raw_sym *g = realloc(*f, (*nf + n) * sizeof *g);
  if (g) *f = g;
  size_t base = *nf;
  for (size_t i = 0; g && i < n; i++) {
    GElf_Sym es;
    const char *name = gelf_getsym(sd, (int)r[i].sym, &es) ? elf_strptr(elf, dsh.sh_link, es.st_name) : NULL;
    uint64_t start = psh.sh_addr + header + i * entry;
    if ((!name || !*name) && eh.e_machine == EM_X86_64 && r[i].type == R_X86_64_IRELATIVE && rsh.sh_type == SHT_RELA)
      name = ifunc_name(*f, base, r[i].addend);
    char buf[1024];
    if (name && *name) snprintf(buf, sizeof buf, "%s@plt", name);
    else snprintf(buf, sizeof buf, "offset_%#" PRIx64 "@plt", psh.sh_offset + header + i * entry);
    const char *s = intern(m, buf);
    if (!s) break;
    (*f)[(*nf)++] = (struct raw_sym){ { start, start + entry, s }, STB_GLOBAL, STT_FUNC, 0 };
  }
  free(r);
}

/* Reads functions and objects of the symbol table perf would use in elf, and
 * the PLT entries of the file mapped, runtime. */
static void load_elf_symbols(struct sym_machine *m, struct sym_dso_int *in, Elf *elf, Elf *runtime)
{
  GElf_Shdr sh;
  Elf_Scn *scn = find_section(elf, SHT_SYMTAB, &sh);
  if (!scn || !sh.sh_entsize || sh.sh_size / sh.sh_entsize < 2) scn = find_section(elf, SHT_DYNSYM, &sh);
  Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
  size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
  struct raw_sym *f = calloc(n ? n : 1, sizeof *f), *o = calloc(n ? n : 1, sizeof *o);
  size_t nf = 0, no = 0;
  for (size_t i = 1; f && o && i < n; i++) {
    GElf_Sym es;
    if (!gelf_getsym(d, (int)i, &es) || es.st_shndx == SHN_UNDEF || es.st_shndx >= SHN_LORESERVE)
      continue;
    const char *name = elf_strptr(elf, sh.sh_link, es.st_name);
    if (!name || !*name) continue;
    unsigned type = GELF_ST_TYPE(es.st_info);
    struct raw_sym r = { { es.st_value, es.st_value + es.st_size, name }, GELF_ST_BIND(es.st_info), (uint8_t)type, 0 };
    if (type == STT_FUNC || type == STT_GNU_IFUNC ||
        (type == STT_NOTYPE && name[0] != '$' && strncmp(name, ".L", 2) && exec_section(elf, es.st_shndx)))
      f[nf++] = r;
    else if (type == STT_OBJECT && es.st_size)
      o[no++] = r;
  }
  if (f && o && nf) add_plt_symbols(m, runtime, &f, &nf);
  if (f && o) {
    in->funcs = finish_table(f, &nf);
    in->objs = finish_table(o, &no);
    in->nfuncs = in->funcs ? nf : 0;
    in->nobjs = in->objs ? no : 0;
  }
  free(f);
  free(o);
}

static void load_segments(struct sym_dso_int *in)
{
  size_t n;
  if (elf_getphdrnum(in->elf, &n) || !n) return;
  in->segs = calloc(n, sizeof *in->segs);
  for (size_t i = 0; in->segs && i < n; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(in->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
      in->segs[in->nsegs++] = (struct seg){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz };
  }
}

/* Opens path as an ELF file. Returns it with its descriptor in *fd, or NULL. */
static Elf *open_elf(const char *path, int *fd)
{
  *fd = open(path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return NULL;
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
  GElf_Ehdr eh;
  if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh)) return elf;
  if (elf) elf_end(elf);
  close(*fd);
  *fd = -1;
  return NULL;
}

/* Finds the separate debug file of a file without .symtab, where perf looks:
 * /usr/lib/debug/.build-id/xx/yyyy.debug, then /usr/lib/debug/PATH.debug
 * (both under symfs). */
static void open_debug_file(const char *symfs, const char *path, const char *file, struct sym_dso_int *in)
{
  uint8_t id[20];
  size_t n = pd_elf_build_id(file, id);
  char buf[4200];
  if (n) {
    int k = snprintf(buf, sizeof buf, "%s/usr/lib/debug/.build-id/%02x/", symfs, id[0]);
    for (size_t i = 1; i < n && k > 0 && (size_t)k + 3 < sizeof buf; i++) k += snprintf(buf + k, sizeof buf - (size_t)k, "%02x", id[i]);
    snprintf(buf + k, sizeof buf - (size_t)k, ".debug");
    if ((in->dbg = open_elf(buf, &in->dbg_fd)) && has_symtab(in->dbg)) return;
    if (in->dbg) { elf_end(in->dbg); close(in->dbg_fd); in->dbg = NULL; }
  }
  snprintf(buf, sizeof buf, "%s/usr/lib/debug%s.debug", symfs, path);
  if ((in->dbg = open_elf(buf, &in->dbg_fd)) && has_symtab(in->dbg)) return;
  if (in->dbg) { elf_end(in->dbg); close(in->dbg_fd); in->dbg = NULL; }
}

/* Loads dso's ELF file once; a missing or non-ELF file leaves it empty. */
static void dso_load(struct sym_machine *m, struct sym_dso *dso)
{
  struct sym_dso_int *in = dso->in;
  if (in->loaded) return;
  in->loaded = true;
  if (dso->kernel || dso->path[0] == '[') return;
  size_t len = strlen(m->symfs) + strlen(dso->path) + 1;
  char *path = malloc(len);
  if (!path) return;
  snprintf(path, len, "%s%s", m->symfs, dso->path);
  in->elf = open_elf(path, &in->fd);
  if (in->elf) {
    GElf_Ehdr eh;
    gelf_getehdr(in->elf, &eh);
    in->exec = eh.e_type == ET_EXEC;
    load_segments(in);
    if (!has_symtab(in->elf)) open_debug_file(m->symfs, dso->path, path, in);
    load_elf_symbols(m, in, in->dbg ? in->dbg : in->elf, in->elf);
  }
  free(path);
}

static void dso_free(struct sym_dso *dso, bool kernel)
{
  struct sym_dso_int *in = dso->in;
  if (in->dw) dwarf_end(in->dw);
  if (in->elf) elf_end(in->elf);
  if (in->dbg) elf_end(in->dbg);
  if (in->fd >= 0) close(in->fd);
  if (in->dbg_fd >= 0) close(in->dbg_fd);
  free(in->segs);
  free(in->src);
  if (!kernel) { free(in->funcs); free(in->objs); free(in); free(dso); }
}

/* Returns the symbol of tab containing vaddr, or NULL. */
static const struct sym_symbol *table_find(const struct sym_symbol *tab, size_t n, uint64_t vaddr)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tab[mid].start <= vaddr) lo = mid + 1;
    else hi = mid;
  }
  if (!lo || vaddr >= tab[lo - 1].end) return NULL;
  return &tab[lo - 1];
}

/* ---- DSOs, threads and maps ---- */

static struct sym_dso *dso_get(struct sym_machine *m, const char *path)
{
  const char *p = intern(m, path);
  if (!p) return NULL;
  struct sym_dso *dso = ptab_get(&m->dsos, (uintptr_t)p);
  if (dso) return dso;
  dso = calloc(1, sizeof *dso);
  struct sym_dso_int *in = calloc(1, sizeof *in);
  if (!dso || !in || ptab_put(&m->dsos, (uintptr_t)p, dso)) { free(dso); free(in); return NULL; }
  const char *slash = strrchr(p, '/');
  dso->path = p;
  dso->short_name = p[0] == '[' || !slash ? p : slash + 1;
  dso->in = in;
  in->fd = in->dbg_fd = -1;
  return dso;
}

static struct thread *thread_get(struct sym_machine *m, uint32_t pid, uint32_t tid)
{
  struct thread *t = ptab_get(&m->threads, (uint64_t)tid + 1);
  if (t) return t;
  char name[16];
  snprintf(name, sizeof name, ":%d", (int32_t)tid);
  t = calloc(1, sizeof *t);
  if (!t || !(t->comm = intern(m, name)) || ptab_put(&m->threads, (uint64_t)tid + 1, t)) { free(t); return NULL; }
  t->tid = tid;
  t->pid = pid;
  return t;
}

static struct proc *proc_get(struct sym_machine *m, uint32_t pid, bool create)
{
  struct proc *p = ptab_get(&m->procs, (uint64_t)pid + 1);
  if (p || !create) return p;
  p = calloc(1, sizeof *p);
  if (!p || ptab_put(&m->procs, (uint64_t)pid + 1, p)) { free(p); return NULL; }
  p->pid = pid;
  return p;
}

static int maps_reserve(struct proc *p, size_t extra)
{
  if (p->n + extra <= p->cap) return 0;
  size_t cap = p->cap ? p->cap * 2 : 16;
  while (cap < p->n + extra) cap *= 2;
  struct sym_map *nm = realloc(p->maps, cap * sizeof *nm);
  if (!nm) return PM_ENOMEM;
  p->maps = nm;
  p->cap = cap;
  return 0;
}

/* Inserts map nm into p, cutting the parts of older maps it covers. */
static int maps_insert(struct proc *p, struct sym_map nm)
{
  if (nm.end <= nm.start || maps_reserve(p, 2)) return nm.end <= nm.start ? 0 : PM_ENOMEM;
  size_t k = 0, at = p->n;
  struct sym_map tail = { 0 };
  bool has_tail = false;
  for (size_t i = 0; i < p->n; i++) {
    struct sym_map o = p->maps[i];
    if (o.end <= nm.start || o.start >= nm.end) { p->maps[k++] = o; continue; }
    if (o.end > nm.end) {        /* the part after the new map survives */
      tail = o;
      tail.pgoff += nm.end - o.start;
      tail.start = nm.end;
      has_tail = true;
    }
    if (o.start < nm.start) {    /* the part before it survives */
      o.end = nm.start;
      p->maps[k++] = o;
    }
  }
  p->n = k;
  for (at = 0; at < p->n && p->maps[at].start < nm.start; at++) {}
  memmove(&p->maps[at + 1], &p->maps[at], (p->n - at) * sizeof nm);
  p->maps[at] = nm;
  p->n++;
  if (has_tail) {
    memmove(&p->maps[at + 2], &p->maps[at + 1], (p->n - at - 1) * sizeof nm);
    p->maps[at + 1] = tail;
    p->n++;
  }
  return 0;
}

static const struct sym_map *maps_find(const struct proc *p, uint64_t addr)
{
  size_t lo = 0, hi = p ? p->n : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->maps[mid].start <= addr) lo = mid + 1;
    else hi = mid;
  }
  if (!lo || addr >= p->maps[lo - 1].end) return NULL;
  return &p->maps[lo - 1];
}

struct sym_machine *sym_machine_create(const char *symfs)
{
  struct sym_machine *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->symfs = strdup(symfs ? symfs : "");
  size_t nk;
  const struct ksym *ks = kimage_symbols(&nk);
  struct sym_symbol *kt = calloc(nk ? nk : 1, sizeof *kt);
  if (!m->symfs || !kt) { free(kt); free(m->symfs); free(m); return NULL; }
  for (size_t i = 0; i < nk; i++) kt[i] = (struct sym_symbol){ ks[i].addr, ks[i].addr + ks[i].size, ks[i].name };
  m->kernel = (struct sym_dso){ "[kernel.kallsyms]", "[kernel.kallsyms]", true, &m->kernel_in };
  m->kernel_in = (struct sym_dso_int){ .loaded = true, .fd = -1, .dbg_fd = -1, .funcs = kt, .nfuncs = nk };
  return m;
}

void sym_machine_destroy(struct sym_machine *m)
{
  if (!m) return;
  for (size_t i = 0; i < m->dsos.cap; i++)
    if (m->dsos.keys[i]) dso_free(m->dsos.vals[i], false);
  free(m->kernel_in.funcs);
  for (size_t i = 0; i < m->procs.cap; i++)
    if (m->procs.keys[i]) free(((struct proc *)m->procs.vals[i])->maps);
  ptab_free(&m->procs, true);
  ptab_free(&m->threads, true);
  ptab_free(&m->dsos, false);
  ptab_free(&m->strings, false);
  for (size_t i = 0; i < m->npool; i++) free(m->pool[i].s);
  free(m->pool);
  free(m->symfs);
  free(m);
}

static int on_mmap(struct sym_machine *m, const struct perf_event_header *rec)
{
  struct pd_mmap_rec mm;
  if (!pd_read_mmap(rec, &mm)) return PM_ECORRUPT;
  char path[4096];
  snprintf(path, sizeof path, "%s", mm.filename);
  uint16_t mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
  if (mm.pid == UINT32_MAX || mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL)
    return 0;   /* the kernel resolves through the kernel image */
  struct proc *p = proc_get(m, mm.pid, true);
  struct sym_dso *dso = dso_get(m, path);
  if (!p || !dso) return PM_ENOMEM;
  return maps_insert(p, (struct sym_map){ mm.start, mm.start + mm.len, mm.pgoff, dso });
}

static int on_fork(struct sym_machine *m, const struct perf_event_header *rec)
{
  struct pd_task_rec f;
  if (!pd_read_task(rec, &f)) return PM_ECORRUPT;
  struct thread *parent = thread_get(m, f.ppid, f.ptid), *child = thread_get(m, f.pid, f.tid);
  if (!parent || !child) return PM_ENOMEM;
  child->pid = f.pid;
  child->comm = parent->comm;
  if (f.pid == f.ppid) return 0;
  struct proc *pp = proc_get(m, f.ppid, false), *cp = proc_get(m, f.pid, true);
  if (!cp) return PM_ENOMEM;
  if (!pp || cp->n) return 0;
  if (maps_reserve(cp, pp->n)) return PM_ENOMEM;
  memcpy(cp->maps, pp->maps, pp->n * sizeof *pp->maps);
  cp->n = pp->n;
  return 0;
}

static int on_comm(struct sym_machine *m, const struct perf_event_header *rec)
{
  struct pd_comm_rec c;
  if (!pd_read_comm(rec, &c)) return PM_ECORRUPT;
  char comm[64];
  snprintf(comm, sizeof comm, "%s", c.comm);
  struct thread *t = thread_get(m, c.pid, c.tid);
  if (!t || !(t->comm = intern(m, comm))) return PM_ENOMEM;
  t->pid = c.pid;
  return 0;
}

int sym_machine_record(struct sym_machine *m, const struct perf_event_header *rec)
{
  struct pd_task_rec x;
  switch (rec->type) {
  case PERF_RECORD_COMM: return on_comm(m, rec);
  case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2: return on_mmap(m, rec);
  case PERF_RECORD_FORK: return on_fork(m, rec);
  case PERF_RECORD_EXIT: return pd_read_task(rec, &x) ? 0 : PM_ECORRUPT;
  default: return 0;
  }
}

const char *sym_comm(struct sym_machine *m, uint32_t pid, uint32_t tid)
{
  struct thread *t = thread_get(m, pid, tid);
  return t ? t->comm : ":?";
}

/* Link-time address of file offset fo in dso (fo itself when no segment
 * holds it). With `mem`, segments count up to their memory size (bss). */
static uint64_t file_to_vaddr(const struct sym_dso_int *in, uint64_t fo, bool mem)
{
  for (size_t i = 0; i < in->nsegs; i++) {
    const struct seg *s = &in->segs[i];
    if (fo >= s->off && fo - s->off < (mem ? s->memsz : s->filesz)) return fo - s->off + s->vaddr;
  }
  return fo;
}

static char level_of(uint16_t cpumode)
{
  switch (cpumode) {
  case PERF_RECORD_MISC_KERNEL: return 'k';
  case PERF_RECORD_MISC_HYPERVISOR: return 'H';
  case PERF_RECORD_MISC_GUEST_KERNEL: return 'g';
  case PERF_RECORD_MISC_GUEST_USER: return 'u';
  default: return '.';
  }
}

/* Fills loc's map, dso, addr and vaddr for address a (no symbol yet). */
static void locate(struct sym_machine *m, uint32_t pid, uint16_t cpumode, uint64_t a, bool data,
                   struct sym_loc *loc)
{
  memset(loc, 0, sizeof *loc);
  loc->level = level_of(cpumode);
  loc->addr = loc->vaddr = a;
  if (loc->level == 'k' || loc->level == 'g') {
    loc->dso = &m->kernel;
    return;
  }
  const struct sym_map *map = maps_find(proc_get(m, pid, false), a);
  if (!map) return;
  loc->map = map;
  loc->dso = map->dso;
  loc->addr = a - map->start + map->pgoff;
  dso_load(m, map->dso);
  loc->vaddr = file_to_vaddr(map->dso->in, loc->addr, data);
}

void sym_resolve(struct sym_machine *m, uint32_t pid, uint16_t cpumode, uint64_t ip, struct sym_loc *loc)
{
  locate(m, pid, cpumode, ip, false, loc);
  if (loc->dso) loc->sym = table_find(loc->dso->in->funcs, loc->dso->in->nfuncs, loc->vaddr);
}

/* Whether link-time address a lies in a loaded segment of in. */
static bool in_segments(const struct sym_dso_int *in, uint64_t a)
{
  for (size_t i = 0; i < in->nsegs; i++)
    if (a >= in->segs[i].vaddr && a - in->segs[i].vaddr < in->segs[i].memsz) return true;
  return false;
}

void sym_resolve_data(struct sym_machine *m, uint32_t pid, uint16_t cpumode, uint64_t addr,
                      struct sym_loc *loc)
{
  locate(m, pid, cpumode, addr, true, loc);
  if (loc->dso) {
    loc->sym = table_find(loc->dso->in->objs, loc->dso->in->nobjs, loc->vaddr);
    if (loc->map || loc->dso->kernel) return;
  }
  const struct proc *p = proc_get(m, pid, false);
  for (size_t i = 0; p && i < p->n; i++) {
    struct sym_dso *d = p->maps[i].dso;
    dso_load(m, d);
    if (!d->in->exec || !in_segments(d->in, addr)) continue;
    loc->dso = d;
    loc->map = &p->maps[i];
    loc->vaddr = loc->addr = addr;
    loc->sym = table_find(d->in->objs, d->in->nobjs, addr);
    return;
  }
}

const struct sym_symbol *sym_dso_find(struct sym_dso *dso, uint64_t vaddr)
{
  return table_find(dso->in->funcs, dso->in->nfuncs, vaddr);
}

size_t sym_dso_read(struct sym_dso *dso, uint64_t vaddr, void *buf, size_t len)
{
  struct sym_dso_int *in = dso->in;
  if (dso->kernel) {
    size_t n = 0;
    for (; n + 4 <= len && table_find(in->funcs, in->nfuncs, vaddr + n); n += 4) {
      uint32_t w = kimage_word(vaddr + n);
      memcpy((char *)buf + n, &w, 4);
    }
    return n;
  }
  size_t size;
  const char *image = in->elf ? elf_rawfile(in->elf, &size) : NULL;
  for (size_t i = 0; image && i < in->nsegs; i++) {
    const struct seg *s = &in->segs[i];
    if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz) continue;
    uint64_t off = s->off + (vaddr - s->vaddr), avail = s->filesz - (vaddr - s->vaddr);
    if (off >= size) return 0;
    if (avail > size - off) avail = size - off;
    size_t n = len < avail ? len : (size_t)avail;
    memcpy(buf, image + off, n);
    return n;
  }
  return 0;
}

bool sym_dso_insn(struct sym_dso *dso, uint64_t vaddr, uint32_t *word)
{
  uint8_t b[4];
  if (sym_dso_read(dso, vaddr, b, 4) != 4) return false;
  *word = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  return true;
}

/* The compilation unit DIE holding vaddr: through .debug_aranges, else by
 * asking every CU. Returns false when none does. */
static bool find_cu(Dwarf *dw, uint64_t vaddr, Dwarf_Die *cu)
{
  if (dwarf_addrdie(dw, vaddr, cu)) return true;
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, vaddr) == 1) return true;
    off = next;
  }
  return false;
}

bool sym_dso_srcline(struct sym_dso *dso, uint64_t vaddr, const char **file, unsigned *line)
{
  struct sym_dso_int *in = dso->in;
  if (!in->elf) return false;
  if (!in->dw_tried) {
    in->dw_tried = true;
    in->dw = dwarf_begin_elf(in->dbg ? in->dbg : in->elf, DWARF_C_READ, NULL);
    in->src = calloc(SRC_CACHE, sizeof *in->src);
  }
  if (!in->dw || !in->src) return false;
  struct src_entry *e = &in->src[mix64(vaddr) & (SRC_CACHE - 1)];
  if (e->state && e->vaddr == vaddr) {
    *file = e->file;
    *line = e->line;
    return e->state == 1;
  }
  Dwarf_Die cu;
  Dwarf_Line *l;
  int ln;
  e->vaddr = vaddr;
  e->state = 2;
  if (find_cu(in->dw, vaddr, &cu) && (l = dwarf_getsrc_die(&cu, vaddr)) && dwarf_lineno(l, &ln) == 0 &&
      (e->file = dwarf_linesrc(l, NULL, NULL)) && ln > 0) {
    e->line = (unsigned)ln;
    e->state = 1;
  }
  *file = e->file;
  *line = e->line;
  return e->state == 1;
}

void sym_column(char level, const struct sym_symbol *sym, uint64_t addr, char *buf, size_t len)
{
  if (sym) snprintf(buf, len, "[%c] %s", level, sym->name);
  else if (!addr) snprintf(buf, len, "[%c] %016" PRIx64, level, addr);   /* perf's "%-#.*llx": no 0x for 0 */
  else snprintf(buf, len, "[%c] 0x%016" PRIx64, level, addr);
}
