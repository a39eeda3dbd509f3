/* Alpha disassembler: one decoded instruction becomes the text GNU objdump 2.40
 * (`alpha-linux-gnu-objdump -d`) prints after the raw bytes: mnemonic, a tab,
 * operands. The output is byte-for-byte objdump's, including its quirks: OSF
 * register names ($27 is "t12"), its aliases (mov, negq, unop, fabs, jcr...),
 * the trailing tab of operand-less pseudo-ops ("unop\t", "nop\t", "fnop\t") and
 * ".long 0x..." for words its table rejects. Pure: no globals, no printing. */
#ifndef AXP_DISASM_H
#define AXP_DISASM_H
#include <stddef.h>
#include <stdint.h>
#include "isa/isa.h"

/* Names the code address `addr` for a branch or jump-hint target. Returns the
 * symbol name (owned by the callee, valid until the next call) and sets *off to
 * addr minus the symbol's value, modulo 2^64; or returns NULL when nothing
 * suitable is known. The text is "<name+0x..>" when the symbol's value is below
 * addr as unsigned numbers, "<name-0x..>" when above, as in objdump. */
typedef const char *(*axp_symbolizer)(void *ctx, uint64_t addr, uint64_t *off);

/* Writes the text of `d`, located at `pc`, into buf (at most len bytes including
 * the NUL). Branch targets print as objdump prints them without symbols:
 * "0x1200004a0". Returns the length of the full text, like snprintf. */
int axp_disasm(const struct axp_insn *d, uint64_t pc, char *buf, size_t len);

/* Same, but targets print as objdump prints them with a symbol table:
 * "1200004a0 <main+0x20>". When `sym` is NULL or returns NULL for a target,
 * that target prints as in axp_disasm. */
int axp_disasm_sym(const struct axp_insn *d, uint64_t pc, char *buf, size_t len,
                   axp_symbolizer sym, void *ctx);

/* Returns objdump's name of integer register r (0-31): "v0", "t12", "zero"... */
const char *axp_ireg_name(unsigned r);

#endif
