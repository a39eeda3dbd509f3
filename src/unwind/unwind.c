/* The stack walk of unwind.h over the CFI of cfi.h, and the per-DSO cache:
 * each DSO's .eh_frame and .debug_frame are copied out of its ELF file and
 * indexed once, on first use; a DSO that cannot be read is remembered as
 * having no CFI. */
#include "unwind/unwind.h"
#include "unwind/cfi.h"
#include "util/err.h"
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DSO_MAX_LOADS 16

struct dso {
  char *path;
  uint8_t *eh, *df;            /* copies of the sections */
  struct cfi_index ix;
  uint64_t entry;              /* e_entry, link-time; 0 for none */
  struct seg { uint64_t off, vaddr, filesz; } load[DSO_MAX_LOADS];
  int nload;
  bool no_cfi;                 /* the file could not be read */
  uint8_t *file;               /* the file, mapped (NULL for unw_dso_add's DSOs) */
  size_t file_len;
};

#define ROW_CACHE 1024

struct row_ent {
  bool valid;
  uint32_t dso;                /* index in unw.dso */
  uint64_t vpc;
  enum unw_status state;       /* UNW_NSTATUS: row holds the rules */
  struct cfi_row row;
};

struct unw {
  char *symfs;
  struct dso *dso;
  size_t n, cap;
  struct row_ent *rows;        /* ROW_CACHE entries; emptied when a DSO changes or moves */
};

struct unw *unw_create(const char *symfs)
{
  struct unw *u = calloc(1, sizeof *u);
  if (!u) return NULL;
  if (!(u->rows = calloc(ROW_CACHE, sizeof *u->rows))) { free(u); return NULL; }
  if (symfs && *symfs && !(u->symfs = strdup(symfs))) { free(u); return NULL; }
  return u;
}

static void dso_free(struct dso *d)
{
  cfi_index_free(&d->ix);
  free(d->eh);
  free(d->df);
  free(d->path);
  if (d->file) munmap(d->file, d->file_len);
}

void unw_destroy(struct unw *u)
{
  if (!u) return;
  for (size_t i = 0; i < u->n; i++) dso_free(&u->dso[i]);
  free(u->dso);
  free(u->rows);
  free(u->symfs);
  free(u);
}

static struct dso *dso_lookup(struct unw *u, const char *path)
{
  for (size_t i = 0; i < u->n; i++)
    if (!strcmp(u->dso[i].path, path)) return &u->dso[i];
  return NULL;
}

/* A new, empty cache slot for path (or the existing one, emptied). */
static struct dso *dso_slot(struct unw *u, const char *path)
{
  for (size_t i = 0; i < ROW_CACHE; i++) u->rows[i].valid = false;   /* rows point into DSOs */
  struct dso *d = dso_lookup(u, path);
  if (d) {
    dso_free(d);
  } else {
    if (u->n == u->cap) {
      size_t cap = u->cap ? 2 * u->cap : 8;
      struct dso *nd = realloc(u->dso, cap * sizeof *nd);
      if (!nd) return NULL;
      u->dso = nd; u->cap = cap;
    }
    d = &u->dso[u->n++];
  }
  memset(d, 0, sizeof *d);
  if (!(d->path = strdup(path))) { u->n--; return NULL; }
  return d;
}

static uint8_t *dup_bytes(const void *p, size_t n)
{
  uint8_t *c = malloc(n ? n : 1);
  if (c && n) memcpy(c, p, n);
  return c;
}

/* Indexes the copies d->eh (at eh_vaddr) and d->df. */
static int dso_index(struct dso *d, size_t eh_len, uint64_t eh_vaddr, size_t df_len)
{
  struct cfi_sec secs[2];
  int n = 0;
  if (d->eh) secs[n++] = (struct cfi_sec){ d->eh, eh_len, eh_vaddr, true };
  if (d->df) secs[n++] = (struct cfi_sec){ d->df, df_len, 0, false };
  return cfi_index_build(&d->ix, secs, n);
}

int unw_dso_add(struct unw *u, const char *path, const uint8_t *eh_frame, size_t eh_len,
                uint64_t eh_vaddr, const uint8_t *debug_frame, size_t df_len, uint64_t entry)
{
  struct dso *d = dso_slot(u, path);
  if (!d) return PM_ENOMEM;
  d->entry = entry;
  if ((eh_frame && !(d->eh = dup_bytes(eh_frame, eh_len))) ||
      (debug_frame && !(d->df = dup_bytes(debug_frame, df_len))))
    return PM_ENOMEM;
  return dso_index(d, eh_frame ? eh_len : 0, eh_vaddr, debug_frame ? df_len : 0);
}

/* Copies section s's bytes (NULL for NOBITS or an unreadable one). */
static uint8_t *sec_copy(Elf_Scn *s, size_t *len)
{
  Elf_Data *data = elf_getdata(s, NULL);
  *len = 0;
  if (!data || !data->d_buf || data->d_type != ELF_T_BYTE) return NULL;
  *len = data->d_size;
  return dup_bytes(data->d_buf, data->d_size);
}

/* Reads d's sections, entry point and segments from its ELF file. */
static void dso_read_elf(struct dso *d, Elf *e)
{
  GElf_Ehdr eh;
  size_t shstrndx, nph;
  if (!gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx) != 0) return;
  d->entry = eh.e_entry;
  if (elf_getphdrnum(e, &nph) == 0)
    for (size_t i = 0; i < nph && d->nload < DSO_MAX_LOADS; i++) {
      GElf_Phdr ph;
      if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
        d->load[d->nload++] = (struct seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
    }
  size_t eh_len = 0, df_len = 0;
  uint64_t eh_vaddr = 0;
  for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS) continue;
    const char *name = elf_strptr(e, shstrndx, sh.sh_name);
    if (!name) continue;
    if (!strcmp(name, ".eh_frame") && !d->eh) {
      d->eh = sec_copy(s, &eh_len);
      eh_vaddr = sh.sh_addr;
    } else if (!strcmp(name, ".debug_frame") && !d->df) {
      d->df = sec_copy(s, &df_len);
    }
  }
  if (dso_index(d, eh_len, eh_vaddr, df_len) != 0) d->no_cfi = true;
}

/* The cached DSO for path, loaded from its file on first use. */
static struct dso *dso_get(struct unw *u, const char *path)
{
  struct dso *d = dso_lookup(u, path);
  if (d) return d;
  if (!(d = dso_slot(u, path))) return NULL;
  char buf[4096];
  snprintf(buf, sizeof buf, "%s%s", u->symfs ? u->symfs : "", path);
  int fd = open(buf, O_RDONLY | O_CLOEXEC);
  Elf *e = NULL;
  if (fd >= 0 && elf_version(EV_CURRENT) != EV_NONE) e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if (e && elf_kind(e) == ELF_K_ELF) dso_read_elf(d, e);
  else d->no_cfi = true;
  if (e) elf_end(e);
  /* Kept mapped to read the code (epilogue checks). */
  off_t len = fd >= 0 && !d->no_cfi ? lseek(fd, 0, SEEK_END) : 0;
  if (len > 0) {
    void *p = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) { d->file = p; d->file_len = (size_t)len; }
  }
  if (fd >= 0) close(fd);
  return d;
}

/* Link-time address of run-time address addr in mapping m of d. */
static uint64_t to_vaddr(const struct dso *d, const struct unw_map *m, uint64_t addr)
{
  uint64_t base = m->pgoff;                /* where the file offset pgoff lies */
  for (int i = 0; i < d->nload; i++)
    /* The segment whose file bytes (rounded down to its alignment, 64 KB at
     * most on Alpha) hold pgoff: link-time address of file offset x is
     * vaddr - off + x there. */
    if (m->pgoff >= (d->load[i].off & ~0xffffull) && m->pgoff < d->load[i].off + d->load[i].filesz) {
      base = d->load[i].vaddr - d->load[i].off + m->pgoff;
      break;
    }
  return addr - m->start + base;
}

/* The instruction word at link-time address vaddr of d, from its file. */
static bool dso_insn(const struct dso *d, uint64_t vaddr, uint32_t *w)
{
  for (int i = 0; i < d->nload; i++) {
    const struct seg *g = &d->load[i];
    if (vaddr < g->vaddr || vaddr - g->vaddr >= g->filesz || g->filesz - (vaddr - g->vaddr) < 4)
      continue;
    uint64_t off = g->off + (vaddr - g->vaddr);
    if (!d->file || off > d->file_len || d->file_len - off < 4) return false;
    const uint8_t *p = d->file + off;
    *w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return true;
  }
  return false;
}

/* Whether instruction w writes integer register r (loads, lda/ldah, operates). */
static bool writes_reg(uint32_t w, unsigned r)
{
  unsigned op = w >> 26;
  if (op == 0x08 || op == 0x09 || op == 0x0a || op == 0x0c || (op >= 0x20 && op <= 0x2b &&
      op != 0x24 && op != 0x25 && op != 0x26 && op != 0x27))
    return ((w >> 21) & 31) == r;
  if ((op >= 0x10 && op <= 0x13) || op == 0x1c) return (w & 31) == r;
  return false;
}

/* GCC's Alpha epilogues reload the frame pointer before they restore sp, yet
 * their CFI keeps the CFA on r15 until the ret: between the two, r15 holds
 * the caller's fp and the CFA from it would be wrong. Frame 0 can be there:
 * it is when the straight-line code from vpc reaches a ret with no write to
 * r15 first (at most 16 instructions; any branch ends the scan, trusting the
 * CFI). The CFA is then the sp the ret will see: the code sets it once, with
 * "lda $30, d($rb)" from a register it does not write before (*sp_reg = rb,
 * *sp_disp = d; *sp_reg = 32 when it cannot tell). */
static bool fp_reloaded(const struct dso *d, uint64_t vpc, unsigned *sp_reg, int32_t *sp_disp)
{
  uint32_t written = 0;            /* registers the code writes before the lda */
  *sp_reg = 32;
  for (int i = 0; i < 16; i++) {
    uint32_t w;
    if (!dso_insn(d, vpc + 4u * (unsigned)i, &w)) return false;
    unsigned op = w >> 26, ra = (w >> 21) & 31, rb = (w >> 16) & 31;
    if (op == 0x1a) return ((w >> 14) & 3) == 2;      /* ret: r15 was not written */
    if (op >= 0x30 || op == 0x00) return false;       /* branches, call_pal */
    if (writes_reg(w, 15)) return false;
    if (writes_reg(w, 30)) {
      bool first = *sp_reg == 32 && written == 0;
      *sp_reg = 33;                                    /* set more than once: unknown */
      if (first && op == 0x08 && ra == 30 && !(written & (1u << rb)) && rb != 15) {
        *sp_reg = rb;
        *sp_disp = (int16_t)(w & 0xffff);
      }
      written |= 1u << 30;
      continue;
    }
    for (unsigned r = 0; r < 31; r++)
      if (writes_reg(w, r)) written |= 1u << r;
  }
  return false;
}

/* Whether vpc lies in the code without CFI that holds d's entry point, after
 * it: the entry code (_start, ld.so's _dl_start_user), the outermost frame. */
static bool in_entry_code(const struct dso *d, uint64_t vpc)
{
  if (!d->entry || vpc < d->entry) return false;
  for (size_t i = 0; i < d->ix.n; i++) {
    const struct cfi_fde *f = &d->ix.fde[i];
    if (f->hi > d->entry && f->lo <= vpc) return false;  /* CFI between entry and vpc */
  }
  return vpc - d->entry < 0x1000;
}

/* Code without CFI: glibc's _dl_runtime_resolve on Alpha (the lazy-binding
 * stub every first call through the PLT runs) is hand-written assembly with
 * no FDE. Its rule is read from the code itself, as GDB's Alpha heuristic
 * unwinder does, and only where the code leaves no doubt:
 * - the routine starts at an "ldah $gp, X($27)" (an entry's ldgp) right
 *   after a ret, jmp, br or padding nop, at most STUB_SCAN instructions
 *   before vpc, with no FDE in between;
 * - the code from there to vpc is straight-line (calls allowed: they keep
 *   sp and the saved slots), moves sp only by "lda $30, d($30)", and
 *   keeps ra in $26 or in one "stq $26, k($30)" slot;
 * - from vpc on, the routine reaches its ret or jmp within STUB_SCAN
 *   instructions with no branch back into [start, vpc].
 * The row: CFA = sp + the frame size so far, ra in $26 or at its slot,
 * the callee-saved registers the code writes unknown. False otherwise (the
 * chain then ends as "no CFI"). */
#define STUB_SCAN 64
#define INSN_NOP  0x47ff041fu   /* bis $31, $31, $31 */
#define INSN_UNOP 0x2ffe0000u   /* ldq_u $31, 0($30) */

static bool ends_routine(uint32_t w)
{
  unsigned op = w >> 26;
  return (op == 0x1a && ((w >> 14) & 3) != 1) || (op == 0x30 && ((w >> 21) & 31) == 31) ||
         w == INSN_NOP || w == INSN_UNOP;
}

static bool stub_start(const struct dso *d, uint64_t vpc, uint64_t *start)
{
  for (unsigned i = 0; i <= STUB_SCAN && vpc >= 4u * i + 4; i++) {
    uint64_t a = vpc - 4u * i;
    uint32_t w, prev;
    if ((i && cfi_find(&d->ix, a)) || !dso_insn(d, a, &w)) return false;
    bool ldgp = (w >> 26) == 0x09 && ((w >> 21) & 31) == UNW_REG_GP && ((w >> 16) & 31) == 27;
    if (ldgp) {
      *start = a;
      return dso_insn(d, a - 4, &prev) && ends_routine(prev);
    }
  }
  return false;
}

/* Whether the code from vpc reaches the routine's end with no branch back
 * into [start, vpc]. */
static bool stub_tail_ok(const struct dso *d, uint64_t start, uint64_t vpc)
{
  for (unsigned i = 0; i < STUB_SCAN; i++) {
    uint64_t a = vpc + 4u * i;
    uint32_t w;
    if (!dso_insn(d, a, &w)) return false;
    unsigned op = w >> 26;
    if (op == 0x1a) {
      if (((w >> 14) & 3) != 1) return true;            /* ret, jmp: the end */
      continue;                                          /* jsr: a call */
    }
    if (op >= 0x30 && op != 0x34) {                     /* branches, not bsr */
      int64_t disp = (int64_t)((uint64_t)(w & 0x1fffff) << 43) >> 41;
      uint64_t t = a + 4 + (uint64_t)disp;
      if (t >= start && t <= vpc) return false;
      if (op == 0x30 && ((w >> 21) & 31) == 31) return true;   /* br: the end */
    }
  }
  return false;
}

static bool stub_row(const struct dso *d, uint64_t vpc, struct cfi_row *row)
{
  uint64_t start;
  if (!stub_start(d, vpc, &start) || !stub_tail_ok(d, start, vpc)) return false;
  enum { RA_REG, RA_SAVED, RA_LOST } ra = RA_REG;
  int64_t off = 0, slot = 0;                             /* CFA = sp + off; ra at CFA + slot */
  uint32_t written = 0;
  for (uint64_t a = start; a < vpc; a += 4) {
    uint32_t w;
    if (!dso_insn(d, a, &w)) return false;
    unsigned op = w >> 26, rd = (w >> 21) & 31, rb = (w >> 16) & 31;
    int64_t disp = (int16_t)(w & 0xffff);
    bool call = op == 0x34 || (op == 0x1a && ((w >> 14) & 3) == 1);
    if (op == 0x00 || (op >= 0x30 && !call) || (op == 0x1a && !call)) return false;
    if (op == 0x08 && rd == UNW_REG_SP && rb == UNW_REG_SP) {
      if ((off -= disp) < 0) return false;
      continue;
    }
    if (op == 0x2d && rd == 26 && rb == UNW_REG_SP && ra == RA_REG) { ra = RA_SAVED; slot = disp - off; continue; }
    if (op == 0x29 && rd == 26 && rb == UNW_REG_SP) { ra = ra == RA_SAVED && disp - off == slot ? RA_REG : RA_LOST; continue; }
    if (op == 0x2d && rb == UNW_REG_SP && ra == RA_SAVED && disp - off == slot && rd != 26) ra = RA_LOST;
    bool w26 = call ? rd == 26 : writes_reg(w, 26);
    if ((call ? rd == UNW_REG_SP : writes_reg(w, UNW_REG_SP))) return false;
    if (w26 && ra == RA_REG) ra = RA_LOST;
    for (unsigned r = 9; r <= 15; r++)
      if (call ? rd == r : writes_reg(w, r)) written |= 1u << r;
  }
  if (ra == RA_LOST) return false;
  memset(row, 0, sizeof *row);
  row->cfa_reg = UNW_REG_SP;
  row->cfa_off = off;
  row->ra = 26;
  row->reg[26] = ra == RA_SAVED ? (struct cfi_rule){ .kind = CFI_OFFSET, .n = slot } : (struct cfi_rule){ .kind = CFI_SAME };
  for (unsigned r = 9; r <= 15; r++)
    if (written & (1u << r)) row->reg[r].kind = CFI_UNDEF;
  return true;
}

/* What the CFI says at vpc of d: the row, or how the chain ends there. */
static void row_compute(const struct dso *d, uint64_t vpc, struct row_ent *e)
{
  const struct cfi_fde *f = cfi_find(&d->ix, vpc);
  if (!f) e->state = in_entry_code(d, vpc) ? UNW_COMPLETE : stub_row(d, vpc, &e->row) ? UNW_NSTATUS : UNW_TRUNC_NOCFI;
  else if (d->entry && d->entry >= f->lo && d->entry < f->hi) e->state = UNW_COMPLETE;  /* _start */
  else if (!cfi_row_at(&d->ix, f, vpc, &e->row)) e->state = UNW_TRUNC_BADCFI;
  else if (e->row.reg[e->row.ra].kind == CFI_UNDEF) e->state = UNW_COMPLETE;
  else e->state = UNW_NSTATUS;
}

/* The cached row for vpc of d: samples return to the same call sites over
 * and over, and running the CFI is most of a step's cost. */
static const struct row_ent *row_lookup(struct unw *u, struct dso *d, uint64_t vpc)
{
  uint32_t di = (uint32_t)(d - u->dso);
  uint64_t h = (vpc >> 2) * 0x9e3779b97f4a7c15ull + di;
  struct row_ent *e = &u->rows[(h >> 40) % ROW_CACHE];
  if (e->valid && e->dso == di && e->vpc == vpc) return e;
  row_compute(d, vpc, e);
  e->valid = true; e->dso = di; e->vpc = vpc;
  return e;
}

/* The registers of one frame, by DWARF column. */
struct frame {
  uint64_t v[CFI_NCOLS];
  bool known[CFI_NCOLS];
};

static bool stack_read(void *ctx, uint64_t addr, uint64_t *val)
{
  const struct unw_stack *st = ctx;
  if (!st || !st->data || addr < st->addr || addr - st->addr > st->size ||
      st->size - (addr - st->addr) < 8)
    return false;
  const uint8_t *p = st->data + (addr - st->addr);
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  *val = v;
  return true;
}

/* Registers the Alpha ABI preserves across calls (r9-r15; the gp is reloaded
 * by the caller but kept for expressions): with no rule they keep their value. */
static bool callee_saved(unsigned col)
{
  return (col >= 9 && col <= 15) || col == UNW_REG_GP;
}

/* How one step failed, or UNW_NSTATUS when it succeeded. */
static enum unw_status eval_rule(const struct cfi_row *row, unsigned col, const struct frame *cur,
                                 uint64_t cfa, const struct unw_stack *st, struct frame *next)
{
  const struct cfi_rule *r = &row->reg[col];
  bool need = false;
  uint64_t v = 0;
  next->known[col] = false;
  switch (r->kind) {
  case CFI_UNSPEC:
    if (!callee_saved(col) && col != row->ra) return UNW_NSTATUS;
    __attribute__((fallthrough));   /* the ABI's same-value rule */
  case CFI_SAME:
    next->v[col] = cur->v[col];
    next->known[col] = cur->known[col];
    return next->known[col] || col != row->ra ? UNW_NSTATUS : UNW_TRUNC_REG;
  case CFI_UNDEF: return UNW_NSTATUS;
  case CFI_OFFSET:
    if (!stack_read((void *)st, cfa + (uint64_t)r->n, &v))
      return col == row->ra ? UNW_TRUNC_STACK : UNW_NSTATUS;
    break;
  case CFI_VAL_OFFSET: v = cfa + (uint64_t)r->n; break;
  case CFI_REG:
    if (!cur->known[r->n]) return col == row->ra ? UNW_TRUNC_REG : UNW_NSTATUS;
    v = cur->v[r->n];
    break;
  case CFI_EXPR: case CFI_VAL_EXPR:
    if (!cfi_eval_expr(row->sec->data + r->n, r->len, cur->v, cur->known, true, cfa,
                       stack_read, (void *)st, &v, &need) ||
        (r->kind == CFI_EXPR && !stack_read((void *)st, v, &v)))
      return col != row->ra ? UNW_NSTATUS : need ? UNW_TRUNC_REG : UNW_TRUNC_STACK;
    break;
  default: return UNW_TRUNC_BADCFI;
  }
  next->v[col] = v;
  next->known[col] = true;
  return UNW_NSTATUS;
}

/* The CFA of row in frame cur. */
static enum unw_status eval_cfa(const struct cfi_row *row, const struct frame *cur,
                                const struct unw_stack *st, uint64_t *cfa)
{
  if (!row->cfa_expr) {
    if (!cur->known[row->cfa_reg]) return UNW_TRUNC_REG;
    *cfa = cur->v[row->cfa_reg] + (uint64_t)row->cfa_off;
    return UNW_NSTATUS;
  }
  bool need;
  if (cfi_eval_expr(row->sec->data + row->cfa_expr_off, row->cfa_expr_len, cur->v, cur->known,
                    false, 0, stack_read, (void *)st, cfa, &need))
    return UNW_NSTATUS;
  return need ? UNW_TRUNC_REG : UNW_TRUNC_STACK;
}

/* One step from frame cur at pc (looked up at lookup_pc) to its caller.
 * Returns UNW_NSTATUS and fills next, or how the chain ends. */
static enum unw_status step(struct unw *u, const struct frame *cur, uint64_t lookup_pc,
                            const struct unw_stack *st, unw_find_map_fn find_map, void *ctx,
                            struct frame *next, bool at_call, bool *signal)
{
  struct unw_map m;
  if (!find_map || !find_map(ctx, lookup_pc, &m) || !m.path) return UNW_TRUNC_NOMAP;
  struct dso *d = dso_get(u, m.path);
  if (!d || d->no_cfi) return UNW_TRUNC_NOCFI;
  uint64_t vpc = to_vaddr(d, &m, lookup_pc);
  const struct row_ent *e = row_lookup(u, d, vpc);
  if (e->state != UNW_NSTATUS) return e->state;
  const struct cfi_row *row = &e->row;
  uint64_t cfa;
  unsigned sp_reg;
  int32_t sp_disp = 0;
  enum unw_status s;
  if (!at_call && !row->cfa_expr && row->cfa_reg == 15 && fp_reloaded(d, vpc, &sp_reg, &sp_disp)) {
    if (sp_reg >= 31 || !cur->known[sp_reg]) return UNW_TRUNC_BADCFI;
    cfa = cur->v[sp_reg] + (uint64_t)(int64_t)sp_disp;
  } else if ((s = eval_cfa(row, cur, st, &cfa)) != UNW_NSTATUS) {
    return s;
  }
  memset(next->known, 0, sizeof next->known);
  /* The integer registers and the pc column: FP registers never locate a
   * frame, and are left unknown. */
  for (unsigned col = 0; col < CFI_NCOLS; col = col == 30 ? CFI_COL_PC : col + 1) {
    if (col == UNW_REG_SP) continue;
    s = eval_rule(row, col, cur, cfa, st, next);
    if (s != UNW_NSTATUS) return s;
  }
  next->v[31] = 0;
  next->known[31] = true;
  /* The caller's sp is the CFA, unless the CFI says where it is (signal
   * frames: the interrupted sp is in the sigcontext). */
  uint8_t spk = row->reg[UNW_REG_SP].kind;
  if (spk == CFI_UNSPEC || spk == CFI_SAME) {
    next->v[UNW_REG_SP] = cfa;
    next->known[UNW_REG_SP] = true;
  } else if ((s = eval_rule(row, UNW_REG_SP, cur, cfa, st, next)) != UNW_NSTATUS) {
    return s;
  } else if (!next->known[UNW_REG_SP]) {
    return UNW_TRUNC_STACK;
  }
  next->v[CFI_COL_PC] = next->v[row->ra];
  next->known[CFI_COL_PC] = next->known[row->ra];
  if (!next->known[CFI_COL_PC]) return UNW_TRUNC_REG;
  /* At a call the return address register holds that call's own return
   * address: CFI that still finds the caller's there is wrong. */
  uint8_t k = row->reg[row->ra].kind;
  if (at_call && (k == CFI_UNSPEC || k == CFI_SAME) && next->v[CFI_COL_PC] == cur->v[CFI_COL_PC])
    return UNW_TRUNC_LOOP;
  *signal = row->signal;
  return UNW_NSTATUS;
}

void unw_unwind(struct unw *u, const struct unw_regs *regs, const struct unw_stack *stack,
                unw_find_map_fn find_map, void *ctx, unsigned max_depth, struct unw_result *res)
{
  struct frame fr[2];
  memset(fr, 0, sizeof fr);          /* a step copies unknown values along too */
  res->n = 0;
  res->status = UNW_TRUNC_REG;
  if (!(regs->mask & (1ull << UNW_REG_PC))) return;
  for (unsigned i = 0; i < UNW_REG_PC; i++)
    if (regs->mask & (1ull << i)) { fr[0].v[i] = regs->r[i]; fr[0].known[i] = true; }
  fr[0].v[31] = 0; fr[0].known[31] = true;             /* r31 reads zero */
  fr[0].v[CFI_COL_PC] = regs->r[UNW_REG_PC];
  fr[0].known[CFI_COL_PC] = true;
  if (max_depth > UNW_MAX_DEPTH) max_depth = UNW_MAX_DEPTH;
  bool after_signal = true;          /* frame 0's pc is where it stopped, not a return address */
  unsigned same_sp = 0;              /* frames in a row with the same sp */
  for (int c = 0;; c ^= 1) {
    struct frame *cur = &fr[c], *next = &fr[c ^ 1];
    uint64_t pc = cur->v[CFI_COL_PC];
    if (pc == 0 && res->n > 0) { res->status = UNW_COMPLETE; return; }
    if (res->n == max_depth) { res->status = UNW_TRUNC_DEPTH; return; }
    res->pc[res->n++] = pc;
    bool sig = false;
    enum unw_status s = step(u, cur, after_signal ? pc : pc - 4, stack, find_map, ctx, next,
                             !after_signal, &sig);
    if (s != UNW_NSTATUS) { res->status = s; return; }
    after_signal = sig;
    /* The stack grows down: a caller's sp is never below its callee's, and a
     * frame with the same sp and pc as one before repeats it. */
    uint64_t sp0 = cur->known[UNW_REG_SP] ? cur->v[UNW_REG_SP] : 0;
    uint64_t sp1 = next->v[UNW_REG_SP];
    if (cur->known[UNW_REG_SP] && sp1 < sp0) { res->status = UNW_TRUNC_LOOP; return; }
    same_sp = cur->known[UNW_REG_SP] && sp1 == sp0 ? same_sp + 1 : 0;
    for (unsigned k = 0; k < same_sp && k < res->n; k++)
      if (res->pc[res->n - 1 - k] == next->v[CFI_COL_PC]) { res->status = UNW_TRUNC_LOOP; return; }
  }
}

const char *unw_status_str(enum unw_status st)
{
  static const char *const names[UNW_NSTATUS] = {
    "complete", "missing register", "outside the stack dump", "no mapping", "no CFI",
    "bad CFI", "loop", "depth limit",
  };
  return (unsigned)st < UNW_NSTATUS ? names[st] : "?";
}
