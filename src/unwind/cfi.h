/* The DWARF CFI interpreter behind unwind.h (internal to this layer): an index
 * of the FDEs of one DSO's .eh_frame and .debug_frame, and the rule row (CFA
 * and register rules) that the CFI gives at one address. Every byte read is
 * bounds-checked: the sections may hold anything. */
#ifndef UNWIND_CFI_H
#define UNWIND_CFI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFI_NCOLS   65        /* DWARF columns: r0-r31, f0-f31, 64 = pc */
#define CFI_COL_PC  64

/* One CFI section: its bytes at link-time address vaddr. */
struct cfi_sec {
  const uint8_t *data;
  size_t len;
  uint64_t vaddr;
  bool eh;                    /* .eh_frame (else .debug_frame) */
};

/* Where one FDE lies: [lo, hi) link-time, at offset off of section sec. */
struct cfi_fde {
  uint64_t lo, hi;
  uint32_t off;
  uint8_t sec;
};

/* The FDEs of up to two sections, sorted by lo. */
struct cfi_index {
  struct cfi_sec sec[2];
  int nsec;
  struct cfi_fde *fde;
  size_t n;
};

enum cfi_rule_kind {
  CFI_UNSPEC, CFI_UNDEF, CFI_SAME, CFI_OFFSET, CFI_VAL_OFFSET, CFI_REG, CFI_EXPR, CFI_VAL_EXPR
};

struct cfi_rule {
  int64_t n;                  /* offset, register, or the expression's offset in its section */
  uint32_t len;               /* expression length */
  uint8_t kind;               /* enum cfi_rule_kind */
};

/* The rules at one address. */
struct cfi_row {
  struct cfi_rule reg[CFI_NCOLS];
  bool cfa_expr;
  uint16_t cfa_reg;           /* CFA = cfa_reg + cfa_off, unless cfa_expr */
  int64_t cfa_off;
  uint32_t cfa_expr_off, cfa_expr_len;
  unsigned ra;                /* the return address column */
  bool signal;                /* CIE augmentation "S": a signal frame */
  const struct cfi_sec *sec;  /* where the expressions are */
};

/* Builds the FDE index of the sections given (malformed entries are skipped;
 * the walk stops at the first unreadable length). Returns 0, or PM_ENOMEM. */
int cfi_index_build(struct cfi_index *ix, const struct cfi_sec *secs, int nsec);
void cfi_index_free(struct cfi_index *ix);

/* The FDE covering link-time address pc, or NULL. */
const struct cfi_fde *cfi_find(const struct cfi_index *ix, uint64_t pc);

/* Runs the CIE's and FDE's instructions up to pc. Returns false for CFI that
 * is malformed or unsupported there. */
bool cfi_row_at(const struct cfi_index *ix, const struct cfi_fde *f, uint64_t pc,
                struct cfi_row *row);

/* Reads a 64-bit little-endian word at addr; false when it cannot. */
typedef bool (*cfi_read_fn)(void *ctx, uint64_t addr, uint64_t *val);

/* Evaluates a DWARF expression (the subset CFI uses: constants, breg, plus,
 * minus, deref...) with initial stack value push (when has_push). val/known
 * are the registers by DWARF column. Returns false when it needs an unknown
 * register, unreadable memory, or an operation outside the subset. */
bool cfi_eval_expr(const uint8_t *p, size_t len, const uint64_t *val, const bool *known,
                   bool has_push, uint64_t push, cfi_read_fn rd, void *rctx, uint64_t *out,
                   bool *need_reg);

#endif
