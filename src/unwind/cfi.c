/* DWARF CFI (DWARF 4 section 6.4, and the LSB's .eh_frame): CIE and FDE
 * parsing with the augmentations GCC and glibc emit ("zR", "zPLR", "zRS"),
 * the pointer encodings, and the DW_CFA_* instructions. A cursor never reads
 * past its end; a failed read sets its error flag and yields 0, so parsers
 * check once at the points that matter. */
#include "unwind/cfi.h"
#include "util/err.h"
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

struct cur {
  const uint8_t *base;        /* the section */
  size_t pos, end;            /* [pos, end) may be read */
  uint64_t vaddr;             /* link-time address of base */
  bool err;
};

static uint64_t rd_le(struct cur *c, unsigned n)
{
  if (c->err || c->end - c->pos < n) { c->err = true; return 0; }
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v |= (uint64_t)c->base[c->pos + i] << (8 * i);
  c->pos += n;
  return v;
}

static uint64_t rd_uleb(struct cur *c)
{
  uint64_t v = 0;
  for (unsigned shift = 0;; shift += 7) {
    uint8_t b = (uint8_t)rd_le(c, 1);
    if (c->err) return 0;
    if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
}

static int64_t rd_sleb(struct cur *c)
{
  uint64_t v = 0;
  unsigned shift = 0;
  uint8_t b;
  do {
    b = (uint8_t)rd_le(c, 1);
    if (c->err) return 0;
    if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
    shift += 7;
  } while (b & 0x80);
  if (shift < 64 && (b & 0x40)) v |= ~0ull << shift;
  return (int64_t)v;
}

/* Reads a pointer in encoding enc (DW_EH_PE_*). Relative to the text or data
 * segment, indirect and aligned pointers are not needed for unwinding and are
 * refused (only a personality may use them, and it is skipped). */
static uint64_t rd_ptr(struct cur *c, uint8_t enc)
{
  if (enc == DW_EH_PE_omit) return 0;
  uint64_t at = c->vaddr + c->pos, v;
  switch (enc & 0x0f) {
  case DW_EH_PE_absptr: v = rd_le(c, 8); break;
  case DW_EH_PE_uleb128: v = rd_uleb(c); break;
  case DW_EH_PE_udata2: v = rd_le(c, 2); break;
  case DW_EH_PE_udata4: v = rd_le(c, 4); break;
  case DW_EH_PE_udata8: case DW_EH_PE_sdata8: v = rd_le(c, 8); break;
  case DW_EH_PE_sleb128: v = (uint64_t)rd_sleb(c); break;
  case DW_EH_PE_sdata2: v = (uint64_t)(int64_t)(int16_t)rd_le(c, 2); break;
  case DW_EH_PE_sdata4: v = (uint64_t)(int64_t)(int32_t)rd_le(c, 4); break;
  default: c->err = true; return 0;
  }
  switch (enc & 0x70) {
  case DW_EH_PE_absptr: break;
  case DW_EH_PE_pcrel: v += at; break;
  default: c->err = true; return 0;
  }
  return v;
}

/* What a CIE says. */
struct cie {
  uint64_t code_align;
  int64_t data_align;
  unsigned ra;
  uint8_t fde_enc;
  bool aug_z, signal;
  size_t insn, insn_end;      /* its initial instructions */
};

/* An entry's header: its length and id. Returns false at the end of the
 * section or on a length that does not fit. */
static bool entry_head(struct cur *c, size_t *end, uint64_t *id, size_t *id_pos, bool *dw64)
{
  uint64_t len = rd_le(c, 4);
  *dw64 = len == 0xffffffffu;
  if (*dw64) len = rd_le(c, 8);
  if (c->err || len == 0 || len > c->end - c->pos) return false;
  *end = c->pos + len;
  *id_pos = c->pos;
  *id = rd_le(c, *dw64 ? 8 : 4);
  return !c->err && c->pos <= *end;
}

static bool is_cie_id(const struct cfi_sec *s, uint64_t id, bool dw64)
{
  return s->eh ? id == 0 : id == (dw64 ? ~0ull : 0xffffffffull);
}

/* Parses the CIE at offset off of s. */
static bool parse_cie(const struct cfi_sec *s, size_t off, struct cie *ci)
{
  struct cur c = { s->data, off, s->len, s->vaddr, false };
  size_t end, id_pos;
  uint64_t id;
  bool dw64;
  if (off >= s->len || !entry_head(&c, &end, &id, &id_pos, &dw64) || !is_cie_id(s, id, dw64))
    return false;
  c.end = end;
  memset(ci, 0, sizeof *ci);
  ci->fde_enc = DW_EH_PE_absptr;      /* .debug_frame, and "eh" CIEs without 'R' */
  unsigned version = (unsigned)rd_le(&c, 1);
  if (version != 1 && version != 3 && version != 4) return false;
  const char *aug = (const char *)s->data + c.pos;
  size_t alen = strnlen(aug, c.end - c.pos);
  if (alen == c.end - c.pos) return false;
  c.pos += alen + 1;
  if (version == 4) {
    unsigned asz = (unsigned)rd_le(&c, 1), segsz = (unsigned)rd_le(&c, 1);
    if (asz != 8 || segsz != 0) return false;
  }
  ci->code_align = rd_uleb(&c);
  ci->data_align = rd_sleb(&c);
  ci->ra = version == 1 ? (unsigned)rd_le(&c, 1) : (unsigned)rd_uleb(&c);
  if (c.err || ci->ra >= CFI_NCOLS) return false;
  size_t aug_end = c.pos;
  for (size_t i = 0; i < alen; i++) {
    char a = aug[i];
    if (i == 0 && a == 'z') {
      uint64_t n = rd_uleb(&c);
      if (c.err || n > c.end - c.pos) return false;
      ci->aug_z = true;
      aug_end = c.pos + n;
    } else if (!ci->aug_z) {
      return false;                    /* "eh" and other pre-'z' augmentations */
    } else if (a == 'R') {
      ci->fde_enc = (uint8_t)rd_le(&c, 1);
    } else if (a == 'P') {
      uint8_t enc = (uint8_t)rd_le(&c, 1);
      rd_ptr(&c, enc & 0x0f);          /* the personality: skipped, its base does not matter */
    } else if (a == 'L') {
      rd_le(&c, 1);
    } else if (a == 'S') {
      ci->signal = true;
    } else {
      break;                           /* unknown: the 'z' length skips the rest */
    }
    if (c.err) return false;
  }
  if (ci->aug_z) c.pos = aug_end;
  if (c.err || c.pos > c.end) return false;
  ci->insn = c.pos;
  ci->insn_end = c.end;
  return true;
}

/* Parses the FDE at off: its CIE, range and instructions. */
static bool parse_fde(const struct cfi_sec *s, size_t off, struct cie *ci, uint64_t *lo,
                      uint64_t *hi, size_t *insn, size_t *insn_end)
{
  struct cur c = { s->data, off, s->len, s->vaddr, false };
  size_t end, id_pos;
  uint64_t id;
  bool dw64;
  if (!entry_head(&c, &end, &id, &id_pos, &dw64) || is_cie_id(s, id, dw64)) return false;
  c.end = end;
  uint64_t cie_off = s->eh ? (uint64_t)id_pos - id : id;
  if (s->eh && id > id_pos) return false;
  if (cie_off >= s->len || !parse_cie(s, (size_t)cie_off, ci)) return false;
  *lo = rd_ptr(&c, ci->fde_enc);
  uint64_t range = rd_ptr(&c, ci->fde_enc & 0x0f);
  if (ci->aug_z) {
    uint64_t n = rd_uleb(&c);
    if (c.err || n > c.end - c.pos) return false;
    c.pos += n;
  }
  if (c.err || range == 0 || *lo + range < *lo) return false;
  *hi = *lo + range;
  *insn = c.pos;
  *insn_end = c.end;
  return true;
}

static int fde_cmp(const void *a, const void *b)
{
  const struct cfi_fde *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : x->hi < y->hi ? -1 : x->hi > y->hi;
}

int cfi_index_build(struct cfi_index *ix, const struct cfi_sec *secs, int nsec)
{
  memset(ix, 0, sizeof *ix);
  size_t cap = 0;
  for (int i = 0; i < nsec && i < 2; i++) {
    ix->sec[ix->nsec] = secs[i];
    if (secs[i].len > UINT32_MAX) ix->sec[ix->nsec].len = UINT32_MAX;
    cap += ix->sec[ix->nsec].len / 16 + 1;     /* an FDE takes at least 16 bytes */
    ix->nsec++;
  }
  ix->fde = malloc(cap * sizeof *ix->fde);
  if (!ix->fde) return PM_ENOMEM;
  for (int si = 0; si < ix->nsec; si++) {
    const struct cfi_sec *s = &ix->sec[si];
    struct cur c = { s->data, 0, s->len, s->vaddr, false };
    size_t end, id_pos;
    uint64_t id;
    bool dw64;
    while (c.pos < c.end && ix->n < cap) {
      size_t off = c.pos;
      if (!entry_head(&c, &end, &id, &id_pos, &dw64)) break;
      c.pos = end;
      struct cie ci;
      uint64_t lo, hi;
      size_t a, b;
      if (is_cie_id(s, id, dw64) || !parse_fde(s, off, &ci, &lo, &hi, &a, &b)) continue;
      ix->fde[ix->n++] = (struct cfi_fde){ lo, hi, (uint32_t)off, (uint8_t)si };
    }
  }
  qsort(ix->fde, ix->n, sizeof *ix->fde, fde_cmp);
  return 0;
}

void cfi_index_free(struct cfi_index *ix)
{
  free(ix->fde);
  memset(ix, 0, sizeof *ix);
}

const struct cfi_fde *cfi_find(const struct cfi_index *ix, uint64_t pc)
{
  size_t lo = 0, hi = ix->n;
  while (lo < hi) {                        /* the last FDE with lo <= pc */
    size_t mid = lo + (hi - lo) / 2;
    if (ix->fde[mid].lo <= pc) lo = mid + 1; else hi = mid;
  }
  /* Ranges should not overlap; if they do, an earlier one may still cover pc. */
  for (size_t i = lo; i-- > 0 && lo - i <= 4;)
    if (pc < ix->fde[i].hi) return &ix->fde[i];
  return NULL;
}

#define CFI_STATE_MAX 16

/* The interpreter's state: the current row, the CIE's row for DW_CFA_restore,
 * and the remember_state stack. */
struct interp {
  struct cfi_row *row;
  const struct cfi_row *init;
  struct cfi_row saved[CFI_STATE_MAX];
  int nsaved;
  const struct cie *ci;
  const struct cfi_sec *s;
};

/* A factored offset: wraps like the hardware would rather than overflow (a
 * nonsense offset only leads outside the stack dump). */
static int64_t fac(uint64_t v, int64_t align)
{
  return (int64_t)(v * (uint64_t)align);
}

static bool set_rule(struct cfi_row *row, uint64_t reg, uint8_t kind, int64_t n, uint32_t len)
{
  if (reg >= CFI_NCOLS) return true;        /* a column we do not track */
  row->reg[reg] = (struct cfi_rule){ n, len, kind };
  return true;
}

/* Reads a block (uleb length + bytes) for an expression; returns its length. */
static bool rd_block(struct cur *c, int64_t *off, uint32_t *len)
{
  uint64_t n = rd_uleb(c);
  if (c->err || n > c->end - c->pos || n > UINT32_MAX) return false;
  *off = (int64_t)c->pos;
  *len = (uint32_t)n;
  c->pos += n;
  return true;
}

/* Runs one instruction at c. *loc advances; returns false on bad CFI, and sets
 * *stop when the next row would start beyond pc. */
static bool step(struct interp *in, struct cur *c, uint64_t *loc, uint64_t pc, bool *stop)
{
  struct cfi_row *row = in->row;
  const struct cie *ci = in->ci;
  uint8_t op = (uint8_t)rd_le(c, 1), lo6 = op & 0x3f;
  uint64_t adv = 0, reg, u;
  int64_t off, s;
  uint32_t len;
  bool advance = false;
  switch (op & 0xc0) {
  case DW_CFA_advance_loc: adv = lo6 * ci->code_align; advance = true; break;
  case DW_CFA_offset:
    return set_rule(row, lo6, CFI_OFFSET, fac(rd_uleb(c), ci->data_align), 0) && !c->err;
  case DW_CFA_restore: return lo6 >= CFI_NCOLS || (row->reg[lo6] = in->init->reg[lo6], true);
  default:
    switch (op) {
    case DW_CFA_nop: return true;
    case DW_CFA_set_loc: {
      uint64_t to = rd_ptr(c, ci->fde_enc);
      if (c->err || to < *loc) return false;
      adv = to - *loc; advance = true; break;
    }
    case DW_CFA_advance_loc1: adv = rd_le(c, 1) * ci->code_align; advance = true; break;
    case DW_CFA_advance_loc2: adv = rd_le(c, 2) * ci->code_align; advance = true; break;
    case DW_CFA_advance_loc4: adv = rd_le(c, 4) * ci->code_align; advance = true; break;
    case DW_CFA_offset_extended:
      reg = rd_uleb(c);
      return set_rule(row, reg, CFI_OFFSET, fac(rd_uleb(c), ci->data_align), 0) && !c->err;
    case DW_CFA_restore_extended:
      reg = rd_uleb(c);
      if (reg < CFI_NCOLS) row->reg[reg] = in->init->reg[reg];
      return !c->err;
    case DW_CFA_undefined: return set_rule(row, rd_uleb(c), CFI_UNDEF, 0, 0) && !c->err;
    case DW_CFA_same_value: return set_rule(row, rd_uleb(c), CFI_SAME, 0, 0) && !c->err;
    case DW_CFA_register:
      reg = rd_uleb(c); u = rd_uleb(c);
      if (u >= CFI_NCOLS) return false;
      return set_rule(row, reg, CFI_REG, (int64_t)u, 0) && !c->err;
    case DW_CFA_remember_state:
      if (in->nsaved == CFI_STATE_MAX) return false;
      in->saved[in->nsaved++] = *row;
      return true;
    case DW_CFA_restore_state:
      if (in->nsaved == 0) return false;
      *row = in->saved[--in->nsaved];
      return true;
    case DW_CFA_def_cfa:
      reg = rd_uleb(c); u = rd_uleb(c);
      if (reg >= CFI_NCOLS) return false;
      row->cfa_expr = false; row->cfa_reg = (uint16_t)reg; row->cfa_off = (int64_t)u;
      return !c->err;
    case DW_CFA_def_cfa_sf:
      reg = rd_uleb(c); s = rd_sleb(c);
      if (reg >= CFI_NCOLS) return false;
      row->cfa_expr = false; row->cfa_reg = (uint16_t)reg; row->cfa_off = fac((uint64_t)s, ci->data_align);
      return !c->err;
    case DW_CFA_def_cfa_register:
      reg = rd_uleb(c);
      if (reg >= CFI_NCOLS || row->cfa_expr) return false;
      row->cfa_reg = (uint16_t)reg;
      return !c->err;
    case DW_CFA_def_cfa_offset:
      if (row->cfa_expr) return false;
      row->cfa_off = (int64_t)rd_uleb(c);
      return !c->err;
    case DW_CFA_def_cfa_offset_sf:
      if (row->cfa_expr) return false;
      row->cfa_off = fac((uint64_t)rd_sleb(c), ci->data_align);
      return !c->err;
    case DW_CFA_def_cfa_expression:
      if (!rd_block(c, &off, &len)) return false;
      row->cfa_expr = true; row->cfa_expr_off = (uint32_t)off; row->cfa_expr_len = len;
      return true;
    case DW_CFA_expression: case DW_CFA_val_expression:
      reg = rd_uleb(c);
      if (!rd_block(c, &off, &len)) return false;
      return set_rule(row, reg, op == DW_CFA_expression ? CFI_EXPR : CFI_VAL_EXPR, off, len);
    case DW_CFA_offset_extended_sf:
      reg = rd_uleb(c);
      return set_rule(row, reg, CFI_OFFSET, fac((uint64_t)rd_sleb(c), ci->data_align), 0) && !c->err;
    case DW_CFA_val_offset:
      reg = rd_uleb(c);
      return set_rule(row, reg, CFI_VAL_OFFSET, fac(rd_uleb(c), ci->data_align), 0) && !c->err;
    case DW_CFA_val_offset_sf:
      reg = rd_uleb(c);
      return set_rule(row, reg, CFI_VAL_OFFSET, fac((uint64_t)rd_sleb(c), ci->data_align), 0) && !c->err;
    case DW_CFA_GNU_args_size: rd_uleb(c); return !c->err;
    case DW_CFA_GNU_negative_offset_extended:
      reg = rd_uleb(c);
      return set_rule(row, reg, CFI_OFFSET, fac(0 - rd_uleb(c), ci->data_align), 0) && !c->err;
    default: return false;
    }
  }
  if (c->err) return false;
  if (advance) {
    if (*loc + adv < *loc || *loc + adv > pc) { *stop = true; return true; }
    *loc += adv;
  }
  return true;
}

/* Runs the instructions in [a, b) of s until the row for pc is reached. */
static bool run(struct interp *in, size_t a, size_t b, uint64_t loc, uint64_t pc)
{
  struct cur c = { in->s->data, a, b, in->s->vaddr, false };
  bool stop = false;
  while (c.pos < c.end && !stop)
    if (!step(in, &c, &loc, pc, &stop)) return false;
  return true;
}

bool cfi_row_at(const struct cfi_index *ix, const struct cfi_fde *f, uint64_t pc,
                struct cfi_row *row)
{
  const struct cfi_sec *s = &ix->sec[f->sec];
  struct cie ci;
  uint64_t lo, hi;
  size_t a, b;
  if (!parse_fde(s, f->off, &ci, &lo, &hi, &a, &b) || pc < lo || pc >= hi) return false;
  static const struct cfi_row empty;   /* const: no mutable global */
  struct interp *in = malloc(sizeof *in);
  if (!in) return false;
  struct cfi_row init = empty;
  init.ra = ci.ra;
  init.signal = ci.signal;
  init.sec = s;
  init.cfa_reg = 30;                     /* the Alpha ABI: CFA = sp on entry */
  in->row = &init; in->init = &empty; in->nsaved = 0; in->ci = &ci; in->s = s;
  bool ok = run(in, ci.insn, ci.insn_end, lo, ~0ull);
  if (ok) {
    *row = init;
    in->row = row; in->init = &init; in->nsaved = 0;
    ok = run(in, a, b, lo, pc);
  }
  free(in);
  return ok;
}

/* ---- expressions ---- */

#define EXPR_STACK 16
#define EXPR_OPS   64

bool cfi_eval_expr(const uint8_t *p, size_t len, const uint64_t *val, const bool *known,
                   bool has_push, uint64_t push, cfi_read_fn rd, void *rctx, uint64_t *out,
                   bool *need_reg)
{
  uint64_t st[EXPR_STACK];
  int sp = 0;
  struct cur c = { p, 0, len, 0, false };
  *need_reg = false;
  if (has_push) st[sp++] = push;
  for (int nops = 0; c.pos < c.end; nops++) {
    if (nops == EXPR_OPS) return false;
    uint8_t op = (uint8_t)rd_le(&c, 1);
    uint64_t v = 0;
    bool push_v = true;
    if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
      v = op - DW_OP_lit0;
    } else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
      unsigned r = op - DW_OP_breg0;
      if (!known[r]) { *need_reg = true; return false; }
      v = val[r] + (uint64_t)rd_sleb(&c);
    } else {
      switch (op) {
      case DW_OP_const1u: v = rd_le(&c, 1); break;
      case DW_OP_const1s: v = (uint64_t)(int64_t)(int8_t)rd_le(&c, 1); break;
      case DW_OP_const2u: v = rd_le(&c, 2); break;
      case DW_OP_const2s: v = (uint64_t)(int64_t)(int16_t)rd_le(&c, 2); break;
      case DW_OP_const4u: v = rd_le(&c, 4); break;
      case DW_OP_const4s: v = (uint64_t)(int64_t)(int32_t)rd_le(&c, 4); break;
      case DW_OP_const8u: case DW_OP_const8s: v = rd_le(&c, 8); break;
      case DW_OP_constu: v = rd_uleb(&c); break;
      case DW_OP_consts: v = (uint64_t)rd_sleb(&c); break;
      case DW_OP_bregx: {
        uint64_t r = rd_uleb(&c);
        if (r >= CFI_NCOLS) return false;
        if (!known[r]) { *need_reg = true; return false; }
        v = val[r] + (uint64_t)rd_sleb(&c);
        break;
      }
      default:
        push_v = false;
        if (op == DW_OP_nop) break;
        if (sp < 1) return false;
        switch (op) {
        case DW_OP_dup: if (sp == EXPR_STACK) return false; st[sp] = st[sp - 1]; sp++; break;
        case DW_OP_drop: sp--; break;
        case DW_OP_deref: if (!rd(rctx, st[sp - 1], &st[sp - 1])) return false; break;
        case DW_OP_plus_uconst: st[sp - 1] += rd_uleb(&c); break;
        case DW_OP_neg: st[sp - 1] = -st[sp - 1]; break;
        case DW_OP_not: st[sp - 1] = ~st[sp - 1]; break;
        default:
          if (sp < 2) return false;
          switch (op) {
          case DW_OP_over: if (sp == EXPR_STACK) return false; st[sp] = st[sp - 2]; sp++; break;
          case DW_OP_swap: v = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = v; break;
          case DW_OP_plus: st[sp - 2] += st[sp - 1]; sp--; break;
          case DW_OP_minus: st[sp - 2] -= st[sp - 1]; sp--; break;
          case DW_OP_mul: st[sp - 2] *= st[sp - 1]; sp--; break;
          case DW_OP_and: st[sp - 2] &= st[sp - 1]; sp--; break;
          case DW_OP_or: st[sp - 2] |= st[sp - 1]; sp--; break;
          case DW_OP_xor: st[sp - 2] ^= st[sp - 1]; sp--; break;
          default: return false;
          }
        }
      }
    }
    if (c.err) return false;
    if (push_v) {
      if (sp == EXPR_STACK) return false;
      st[sp++] = v;
    }
  }
  if (sp < 1) return false;
  *out = st[sp - 1];
  return true;
}
