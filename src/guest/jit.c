/* The translator of guest/jit.h for x86-64 hosts: Alpha blocks to host code
 * in one executable arena per address space, filled front to back and
 * emptied whole when full (the executor drops every block pointer first).
 *
 * Every guest register write goes to axp_ctx at once, so an exit anywhere
 * needs no write-back and the interpreter finds everything where it left
 * it; within a block, host registers also keep copies of recently used
 * integer registers (write-through), so that an instruction reads its
 * operands from registers rather than from the store it depends on.
 * Host registers while it runs:
 *   rbx  &ctx->r[0] (the FP registers at rbx + 8*33)
 *   rbp  the struct jit_frame
 *   r12  guest_mm.tlb_r (tlb_w follows it)
 *   r15  the budget left (frame.left while translated code runs)
 *   r8-r11, r13, r14  copies of guest registers (r8-r11 lost at a C call)
 *   rax, rcx, rdx, rsi, rdi  scratch
 * (rbx, rbp, r12-r15 are callee-saved, so C helpers keep them.) The stack
 * is 16-byte aligned inside translated code, so it may call C helpers.
 *
 * Each block begins with its budget check (sub n from left; if that borrows,
 * give it back and leave for the interpreter at the block's start), then its
 * instructions, then out-of-line exit stubs: a TLB miss or an untranslated
 * instruction gives back the instructions not run and leaves with
 * JIT_EXIT_INTERP; a branch leaves with JIT_EXIT_NEXT through a jump that
 * jit_link can later point straight at the target's block when the target
 * is in the same page. Every exit sets frame.pc. */
#include "guest/jit.h"
#include "guest/cpu.h"
#include "guest/mem.h"
#include "isa/fp.h"
#include "isa/intops.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <sys/mman.h>

/* The arena's size: address space reserved, pages touched as code is
 * written (a few MB for the largest programs measured, docs/performance.md). */
#define ARENA_BYTES (64u << 20)
/* Room a block may need per guest instruction: its code, warm event and
 * exit stub. */
#define BYTES_PER_INSN 256
#define BLOCK_SLACK 512
/* Entries of the jump cache, indexed by pc bits 2 and up. */
#define JUMP_SIZE 4096

struct jump { uint64_t pc; const void *entry; };

struct jit_cache {
  struct jump *jump;
  uint8_t *base, *end;
  uint8_t *start;          /* the first block's place (after the shared code) */
  uint8_t *next;           /* where the next block goes */
  void (*enter)(struct jit_frame *, const void *);
  uint8_t *exit_next, *exit_interp;
  uint64_t generation;
  uint64_t blocks, bytes;
  const bool *hooked;      /* a warming cache's hooked ids (jit_create), else NULL */
  uint8_t *warm_flush;     /* the shared call to frame.warm_flush (write_shared) */
};

/* ---- x86-64 encoding ---- */

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };
enum { CC_O, CC_NO, CC_B, CC_AE, CC_E, CC_NE, CC_BE, CC_A, CC_S, CC_NS, CC_P, CC_NP,
       CC_L, CC_GE, CC_LE, CC_G };
enum { ALU_ADD = 0, ALU_OR = 1, ALU_AND = 4, ALU_SUB = 5, ALU_XOR = 6, ALU_CMP = 7 };
enum { SH_SHL = 4, SH_SHR = 5, SH_SAR = 7 };

struct emit { uint8_t *p; };

static void put1(struct emit *e, unsigned v) { *e->p++ = (uint8_t)v; }
static void put4(struct emit *e, uint32_t v) { memcpy(e->p, &v, 4); e->p += 4; }
static void put8(struct emit *e, uint64_t v) { memcpy(e->p, &v, 8); e->p += 8; }
static bool is_s8(int64_t v) { return v >= -128 && v <= 127; }
static bool is_s32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/* REX: w = 64-bit operand size; r, x, b = the registers in ModRM.reg, SIB.index
 * and ModRM.rm/SIB.base; byte = an 8-bit operand in a register numbered 4-7
 * (spl..dil need a REX, else they are ah..bh). */
static void rex(struct emit *e, int w, int r, int x, int b, bool byte)
{
  unsigned v = 0x40 | (w ? 8 : 0) | (r & 8 ? 4 : 0) | (x & 8 ? 2 : 0) | (b & 8 ? 1 : 0);
  if (v != 0x40 || byte) put1(e, v);
}
/* An opcode of one byte, or two written 0x0Fxx. */
static void opc(struct emit *e, unsigned op)
{
  if (op > 0xFF) put1(e, op >> 8);
  put1(e, op & 0xFF);
}
/* ModRM (and SIB) for [base + disp]. */
static void modrm_mem(struct emit *e, int reg, int base, int32_t disp)
{
  int rm = base & 7, mod = disp == 0 && rm != 5 ? 0 : is_s8(disp) ? 1 : 2;
  put1(e, mod << 6 | (reg & 7) << 3 | rm);
  if (rm == 4) put1(e, 0x24);
  if (mod == 1) put1(e, (uint8_t)disp);
  else if (mod == 2) put4(e, (uint32_t)disp);
}
/* ModRM and SIB for [base + index + disp]. */
static void modrm_idx(struct emit *e, int reg, int base, int index, int32_t disp)
{
  int mod = disp == 0 && (base & 7) != 5 ? 0 : is_s8(disp) ? 1 : 2;
  put1(e, mod << 6 | (reg & 7) << 3 | 4);
  put1(e, (index & 7) << 3 | (base & 7));
  if (mod == 1) put1(e, (uint8_t)disp);
  else if (mod == 2) put4(e, (uint32_t)disp);
}
static void op_mem(struct emit *e, int w, unsigned op, int reg, int base, int32_t disp)
{
  rex(e, w, reg, 0, base, false);
  opc(e, op);
  modrm_mem(e, reg, base, disp);
}
static void op_idx(struct emit *e, int w, unsigned op, int reg, int base, int index, int32_t disp)
{
  rex(e, w, reg, index, base, false);
  opc(e, op);
  modrm_idx(e, reg, base, index, disp);
}
static void op_reg(struct emit *e, int w, unsigned op, int reg, int rm)
{
  rex(e, w, reg, 0, rm, false);
  opc(e, op);
  put1(e, 0xC0 | (reg & 7) << 3 | (rm & 7));
}

static void mov_rm(struct emit *e, int r, int base, int32_t d) { op_mem(e, 1, 0x8B, r, base, d); }
static void mov_mr(struct emit *e, int base, int32_t d, int r) { op_mem(e, 1, 0x89, r, base, d); }
static void mov_rr(struct emit *e, int dst, int src) { op_reg(e, 1, 0x89, src, dst); }
static void mov32_rr(struct emit *e, int dst, int src) { op_reg(e, 0, 0x89, src, dst); }
static void xor32_rr(struct emit *e, int r) { op_reg(e, 0, 0x31, r, r); }
static void alu_rr(struct emit *e, int op, int dst, int src) { op_reg(e, 1, (unsigned)op * 8 + 1, src, dst); }
/* op dst, imm32 (sign-extended); w = 0 for the 32-bit form. */
static void alu_ri(struct emit *e, int w, int op, int dst, int32_t imm)
{
  op_reg(e, w, is_s8(imm) ? 0x83 : 0x81, op, dst);
  if (is_s8(imm)) put1(e, (uint8_t)imm); else put4(e, (uint32_t)imm);
}
static void shift_ri(struct emit *e, int w, int kind, int r, unsigned n)
{
  op_reg(e, w, 0xC1, kind, r);
  put1(e, n);
}
static void shift_rcl(struct emit *e, int kind, int r) { op_reg(e, 1, 0xD3, kind, r); }
static void not_r(struct emit *e, int r) { op_reg(e, 1, 0xF7, 2, r); }
static void neg_r(struct emit *e, int r) { op_reg(e, 1, 0xF7, 3, r); }
static void movsxd_rr(struct emit *e, int dst, int src) { op_reg(e, 1, 0x63, dst, src); }
static void movsx8_rr(struct emit *e, int dst, int src) { op_reg(e, 1, 0x0FBE, dst, src); }
static void movsx16_rr(struct emit *e, int dst, int src) { op_reg(e, 1, 0x0FBF, dst, src); }
static void movzx8_rr(struct emit *e, int dst, int src)
{
  rex(e, 0, dst, 0, src, (src & 7) >= 4);
  opc(e, 0x0FB6);
  put1(e, 0xC0 | (dst & 7) << 3 | (src & 7));
}
static void movzx16_rr(struct emit *e, int dst, int src) { op_reg(e, 0, 0x0FB7, dst, src); }
static void setcc(struct emit *e, int cc, int r)
{
  rex(e, 0, 0, 0, r, (r & 7) >= 4);
  opc(e, 0x0F90u + (unsigned)cc);
  put1(e, 0xC0 | (r & 7));
}
static void cmov(struct emit *e, int cc, int dst, int src) { op_reg(e, 1, 0x0F40u + (unsigned)cc, dst, src); }
static void test_rr(struct emit *e, int a, int b) { op_reg(e, 1, 0x85, b, a); }
static void test32_ri(struct emit *e, int r, uint32_t imm) { op_reg(e, 0, 0xF7, 0, r); put4(e, imm); }
static void imul_rr(struct emit *e, int dst, int src) { op_reg(e, 1, 0x0FAF, dst, src); }
static void mul_r(struct emit *e, int src) { op_reg(e, 1, 0xF7, 4, src); }
static void lea_rm(struct emit *e, int dst, int base, int32_t d) { op_mem(e, 1, 0x8D, dst, base, d); }
/* r = imm, in the shortest form. */
static void mov_ri(struct emit *e, int r, uint64_t imm)
{
  if (imm == 0) {
    xor32_rr(e, r);
  } else if (imm <= 0xFFFFFFFFu) {
    rex(e, 0, 0, 0, r, false);
    put1(e, 0xB8 + (r & 7));
    put4(e, (uint32_t)imm);
  } else if (is_s32((int64_t)imm)) {
    op_reg(e, 1, 0xC7, 0, r);
    put4(e, (uint32_t)imm);
  } else {
    rex(e, 1, 0, 0, r, false);
    put1(e, 0xB8 + (r & 7));
    put8(e, imm);
  }
}
static void push_r(struct emit *e, int r) { rex(e, 0, 0, 0, r, false); put1(e, 0x50 + (r & 7)); }
static void pop_r(struct emit *e, int r) { rex(e, 0, 0, 0, r, false); put1(e, 0x58 + (r & 7)); }
/* Jumps with a 32-bit displacement; they return the displacement's address. */
static uint8_t *jcc(struct emit *e, int cc)
{
  opc(e, 0x0F80u + (unsigned)cc);
  uint8_t *site = e->p;
  put4(e, 0);
  return site;
}
static uint8_t *jmp(struct emit *e)
{
  put1(e, 0xE9);
  uint8_t *site = e->p;
  put4(e, 0);
  return site;
}
static void set_rel32(uint8_t *site, const void *target)
{
  int32_t rel = (int32_t)((const uint8_t *)target - (site + 4));
  memcpy(site, &rel, 4);
}
static void jmp_to(struct emit *e, const void *target) { set_rel32(jmp(e), target); }

/* ---- a block ---- */

/* An exit stub to write after the block's code. */
struct stub {
  uint8_t *site;        /* the jump to it (rel32) */
  uint64_t pc;          /* where the interpreter goes on */
  uint32_t refund;      /* instructions of the block not run */
  bool interp;          /* JIT_EXIT_INTERP, else JIT_EXIT_NEXT */
  bool linkable;        /* a NEXT exit to a block of the same page */
};

/* A block being translated. */
struct block {
  struct emit e;
  struct jit_cache *jc;
  uint64_t page;
  unsigned n;           /* instructions in the block */
  struct stub stubs[2 * JIT_MAX_INSNS + 2];
  unsigned nstubs;
  /* The register copies: the guest register each host register holds
   * (pool registers only; -1: none), and when it was last used (LRU). */
  int8_t holds[16];
  uint32_t used[16], clock;
};

/* ---- the frame and the guest registers ---- */

#define F_LEFT ((int32_t)offsetof(struct jit_frame, left))
#define F_PC ((int32_t)offsetof(struct jit_frame, pc))
#define F_KIND ((int32_t)offsetof(struct jit_frame, kind))
#define F_LINK ((int32_t)offsetof(struct jit_frame, link))
#define F_R ((int32_t)offsetof(struct jit_frame, r))
#define F_TLBR ((int32_t)offsetof(struct jit_frame, tlb_r))
/* guest_mm.tlb_w, from r12 (tlb_r) */
#define TLB_W ((int32_t)(offsetof(struct guest_mm, tlb_w) - offsetof(struct guest_mm, tlb_r)))
#define F_JUMP ((int32_t)offsetof(struct jit_frame, jump))
#define F_WPOS ((int32_t)offsetof(struct jit_frame, warm_pos))
#define F_WEND ((int32_t)offsetof(struct jit_frame, warm_end))
#define F_WFLUSH ((int32_t)offsetof(struct jit_frame, warm_flush))
#define F_WCTX ((int32_t)offsetof(struct jit_frame, warm_ctx))
#define F_RAM ((int32_t)offsetof(struct jit_frame, ram))
#define F_RAMB ((int32_t)offsetof(struct jit_frame, ram_bytes))
#define EV(field) ((int32_t)offsetof(struct jit_warm_event, field))
/* The jump cache entry of pc, as an offset from its start. */
static int32_t jump_off(uint64_t pc) { return (int32_t)(((pc >> 2) & (JUMP_SIZE - 1)) * sizeof(struct jump)); }
/* Offsets from rbx (axp_ctx.r). */
#define CTX(field) ((int32_t)(offsetof(struct axp_ctx, field) - offsetof(struct axp_ctx, r)))
#define GREG(i) ((int32_t)(8 * (i)))
#define FREG(i) (CTX(f) + (int32_t)(8 * (i)))

/* The pool of host registers that keep copies of guest registers. */
static const int pool[] = { R13, R14, R8, R9, R10, R11 };
#define NPOOL (sizeof pool / sizeof pool[0])

static void cache_clear(struct block *b)
{
  memset(b->holds, -1, sizeof b->holds);
}
/* After a call into C: r8-r11 are the callee's. */
static void cache_clear_caller_saved(struct block *b)
{
  b->holds[R8] = b->holds[R9] = b->holds[R10] = b->holds[R11] = -1;
}
/* The pool register holding guest register g, or -1. */
static int cache_find(struct block *b, unsigned g)
{
  for (unsigned i = 0; i < NPOOL; i++)
    if (b->holds[pool[i]] == (int)g) { b->used[pool[i]] = ++b->clock; return pool[i]; }
  return -1;
}
/* A pool register to hold guest register g from now on: a free one or the
 * least recently used (never one used by the instruction being translated:
 * it uses fewer registers than the pool has, and each use makes it the most
 * recent). */
static int cache_take(struct block *b, unsigned g)
{
  int v = pool[0];
  for (unsigned i = 0; i < NPOOL; i++) {
    int r = pool[i];
    if (b->holds[r] < 0) { v = r; break; }
    if (b->used[r] < b->used[v]) v = r;
  }
  b->holds[v] = (int8_t)g;
  b->used[v] = ++b->clock;
  return v;
}

/* x = r[g] ($31 reads 0). */
static void ld_g(struct block *b, int x, unsigned g)
{
  struct emit *e = &b->e;
  if (g == 31) { xor32_rr(e, x); return; }
  int h = cache_find(b, g);
  if (h >= 0) { mov_rr(e, x, h); return; }
  mov_rm(e, x, RBX, GREG(g));
  mov_rr(e, cache_take(b, g), x);
}
/* The register that holds r[g], loaded into the pool if need be: for an
 * operand the instruction only reads. */
static int reg_g(struct block *b, unsigned g)
{
  int h = cache_find(b, g);
  if (h < 0) mov_rm(&b->e, h = cache_take(b, g), RBX, GREG(g));
  return h;
}
/* r[g] = x, in axp_ctx and in the pool; writes to $31 (slot 32 after
 * predecode) vanish. */
static void st_g(struct block *b, unsigned g, int x)
{
  if (g >= 31) return;
  mov_mr(&b->e, RBX, GREG(g), x);
  int h = cache_find(b, g);
  mov_rr(&b->e, h >= 0 ? h : cache_take(b, g), x);
}
static void ld_f(struct block *b, int x, unsigned g)
{
  if (g == 31) xor32_rr(&b->e, x);
  else mov_rm(&b->e, x, RBX, FREG(g));
}
static void st_f(struct block *b, unsigned g, int x)
{
  if (g < 31) mov_mr(&b->e, RBX, FREG(g), x);
}
static bool lit(const struct axp_insn *in) { return in->flags & AXP_F_LIT; }
static uint64_t litv(const struct axp_insn *in) { return (uint32_t)in->imm; }
/* x = Rbv (the literal or Rb). */
static void ld_b(struct block *b, int x, const struct axp_insn *in)
{
  if (lit(in)) mov_ri(&b->e, x, litv(in));
  else ld_g(b, x, in->rb);
}
/* op x, Rbv. */
static void alu_b(struct block *b, int op, int x, const struct axp_insn *in)
{
  if (lit(in)) alu_ri(&b->e, 1, op, x, (int32_t)litv(in));
  else if (in->rb == 31) alu_ri(&b->e, 1, op, x, 0);
  else alu_rr(&b->e, op, x, reg_g(b, in->rb));
}
/* call fn (through rax, which it clobbers with r8-r11 and the scratch
 * registers). */
static void call_fn(struct block *b, uint64_t fn)
{
  mov_ri(&b->e, RAX, fn);
  put1(&b->e, 0xFF);
  put1(&b->e, 0xD0);
  cache_clear_caller_saved(b);
}

/* The warm event of a warming cache (jit.h) for instruction in at pc, with
 * a in rcx and b in r8 already (r8 is lost to the pool); uses rdx and rdi,
 * keeps every other register. A full buffer goes to the shared flush call,
 * which keeps them too. */
static void warm_event(struct block *b, const struct axp_insn *in, uint64_t pc)
{
  struct emit *e = &b->e;
  mov_rm(e, RDX, RBP, F_WPOS);
  mov_ri(e, RDI, (uint64_t)(uintptr_t)in);
  mov_mr(e, RDX, EV(in), RDI);
  mov_ri(e, RDI, pc);
  mov_mr(e, RDX, EV(pc), RDI);
  mov_mr(e, RDX, EV(a), RCX);
  mov_mr(e, RDX, EV(b), R8);
  mov_mr(e, RDX, EV(left), R15);
  op_mem(e, 0, 0xC7, 0, RDX, EV(id));     /* mov dword [rdx + id], imm32 */
  put4(e, in->id);
  alu_ri(e, 1, ALU_ADD, RDX, (int32_t)sizeof(struct jit_warm_event));
  mov_mr(e, RBP, F_WPOS, RDX);
  op_mem(e, 1, 0x3B, RDX, RBP, F_WEND);   /* cmp rdx, [rbp + warm_end] */
  uint8_t *room = jcc(e, CC_B);
  put1(e, 0xE8);                          /* call warm_flush (shared) */
  uint8_t *site = e->p;
  put4(e, 0);
  set_rel32(site, b->jc->warm_flush);
  set_rel32(room, e->p);
  b->holds[R8] = -1;
}
/* The same with a = b = 0. */
static void warm_event0(struct block *b, const struct axp_insn *in, uint64_t pc)
{
  xor32_rr(&b->e, RCX);
  xor32_rr(&b->e, R8);
  warm_event(b, in, pc);
}

/* ---- C helpers for the operations not worth inline code ---- */

typedef uint64_t (*helper2)(uint64_t a, uint64_t b);
static uint64_t h_cmpbge(uint64_t a, uint64_t b) { return axp_cmpbge(a, b); }
static uint64_t h_zap(uint64_t a, uint64_t b) { return axp_zap(a, b); }
static uint64_t h_zapnot(uint64_t a, uint64_t b) { return axp_zapnot(a, b); }
static uint64_t h_inswh(uint64_t a, uint64_t b) { return axp_insh(a, b, AXP_W_W); }
static uint64_t h_inslh(uint64_t a, uint64_t b) { return axp_insh(a, b, AXP_W_L); }
static uint64_t h_insqh(uint64_t a, uint64_t b) { return axp_insh(a, b, AXP_W_Q); }
static uint64_t h_mskwh(uint64_t a, uint64_t b) { return axp_mskh(a, b, AXP_W_W); }
static uint64_t h_msklh(uint64_t a, uint64_t b) { return axp_mskh(a, b, AXP_W_L); }
static uint64_t h_mskqh(uint64_t a, uint64_t b) { return axp_mskh(a, b, AXP_W_Q); }
static uint64_t h_ctpop(uint64_t a, uint64_t b) { (void)a; return axp_ctpop(b); }
static uint64_t h_ctlz(uint64_t a, uint64_t b) { (void)a; return axp_ctlz(b); }
static uint64_t h_cttz(uint64_t a, uint64_t b) { (void)a; return axp_cttz(b); }
static uint64_t h_perr(uint64_t a, uint64_t b) { return axp_perr(a, b); }
static uint64_t h_unpkbw(uint64_t a, uint64_t b) { (void)a; return axp_unpkbw(b); }
static uint64_t h_unpkbl(uint64_t a, uint64_t b) { (void)a; return axp_unpkbl(b); }
static uint64_t h_pkwb(uint64_t a, uint64_t b) { (void)a; return axp_pkwb(b); }
static uint64_t h_pklb(uint64_t a, uint64_t b) { (void)a; return axp_pklb(b); }
static uint64_t h_minsb8(uint64_t a, uint64_t b) { return axp_minmax(a, b, 8, 1, 0); }
static uint64_t h_minsw4(uint64_t a, uint64_t b) { return axp_minmax(a, b, 16, 1, 0); }
static uint64_t h_minub8(uint64_t a, uint64_t b) { return axp_minmax(a, b, 8, 0, 0); }
static uint64_t h_minuw4(uint64_t a, uint64_t b) { return axp_minmax(a, b, 16, 0, 0); }
static uint64_t h_maxsb8(uint64_t a, uint64_t b) { return axp_minmax(a, b, 8, 1, 1); }
static uint64_t h_maxsw4(uint64_t a, uint64_t b) { return axp_minmax(a, b, 16, 1, 1); }
static uint64_t h_maxub8(uint64_t a, uint64_t b) { return axp_minmax(a, b, 8, 0, 1); }
static uint64_t h_maxuw4(uint64_t a, uint64_t b) { return axp_minmax(a, b, 16, 0, 1); }
static uint64_t h_ftois(uint64_t a, uint64_t b) { (void)b; return (uint64_t)(int64_t)(int32_t)axp_fp_sts(a); }
static uint64_t h_itofs(uint64_t a, uint64_t b) { (void)b; return axp_fp_lds((uint32_t)a); }
static uint64_t h_lds(uint64_t a, uint64_t b) { (void)b; return axp_fp_lds((uint32_t)a); }
static uint64_t h_sts(uint64_t a, uint64_t b) { (void)b; return axp_fp_sts(a); }

static uint64_t h_cvtlq(uint64_t a, uint64_t b) { (void)b; return axp_fp_cvtlq(a); }

/* An IEEE operate instruction, key = id | fn << 16 | ra << 32 | rb << 40 |
 * rc << 48, on the context whose registers are r: writes Fc and returns 0,
 * or, when the operation raised an exception, writes nothing and returns 1:
 * the interpreter runs the instruction again (on the same inputs, so to the
 * same result) and does what the exception asks. */
static uint64_t h_fpop(uint64_t *r, uint64_t key)
{
  struct axp_ctx *c = (struct axp_ctx *)(void *)((char *)r - offsetof(struct axp_ctx, r));
  unsigned id = key & 0xFFFF, fn = (key >> 16) & 0xFFFF;
  unsigned ra = (key >> 32) & 0xFF, rb = (key >> 40) & 0xFF, rc = (key >> 48) & 0xFF;
  uint32_t exc = 0;
  uint64_t v;
  if (id == AXP_CVTQL) {
    v = axp_fp_cvtql_v(fn, c->f[rb], &exc);
  } else {
    enum axp_fpop op = AXP_FP_ADD;
    bool s = false;
    axp_fp_op_of(id, &op, &s);
    v = axp_fp_operate(op, s, fn, c->f[ra], c->f[rb], c->fpcr, &exc);
  }
  if (exc) return 1;
  c->f[rc] = v;
  return 0;
}

/* A C function's address, for call_fn (any prototype: void (*)(void) is
 * the type a function pointer may be cast through). */
static uint64_t fn_addr(void (*fn)(void))
{
  uint64_t a;
  _Static_assert(sizeof fn == sizeof a, "function pointers are 8 bytes");
  memcpy(&a, &fn, sizeof a);
  return a;
}
#define FN(f) fn_addr((void (*)(void))(f))

/* The helper of an integer operate instruction computed in C, or NULL. */
static helper2 helper_of(unsigned id, const struct axp_insn *in)
{
  switch (id) {
  case AXP_CMPBGE: return h_cmpbge;
  case AXP_ZAP: return lit(in) ? NULL : h_zap;
  case AXP_ZAPNOT: return lit(in) ? NULL : h_zapnot;
  case AXP_INSWH: return h_inswh;
  case AXP_INSLH: return h_inslh;
  case AXP_INSQH: return h_insqh;
  case AXP_MSKWH: return h_mskwh;
  case AXP_MSKLH: return h_msklh;
  case AXP_MSKQH: return h_mskqh;
  case AXP_CTPOP: return h_ctpop;
  case AXP_CTLZ: return h_ctlz;
  case AXP_CTTZ: return h_cttz;
  case AXP_PERR: return h_perr;
  case AXP_UNPKBW: return h_unpkbw;
  case AXP_UNPKBL: return h_unpkbl;
  case AXP_PKWB: return h_pkwb;
  case AXP_PKLB: return h_pklb;
  case AXP_MINSB8: return h_minsb8;
  case AXP_MINSW4: return h_minsw4;
  case AXP_MINUB8: return h_minub8;
  case AXP_MINUW4: return h_minuw4;
  case AXP_MAXSB8: return h_maxsb8;
  case AXP_MAXSW4: return h_maxsw4;
  case AXP_MAXUB8: return h_maxub8;
  case AXP_MAXUW4: return h_maxuw4;
  default: return NULL;
  }
}

/* ---- what the translator handles ---- */

enum kind { K_NONE, K_PLAIN, K_COND, K_UNCOND };

/* How instruction in fits a block: K_NONE leaves it to the interpreter
 * (and ends the block before it), K_COND is a conditional branch (a side
 * exit), K_UNCOND ends the block after it. */
static enum kind kind_of(const struct axp_insn *in)
{
  switch (in->id) {
  case XID_NOP:
  case AXP_TRAPB: case AXP_EXCB: case AXP_MB: case AXP_WMB: case AXP_FETCH: case AXP_FETCH_M:
  case AXP_ECB: case AXP_WH64: case AXP_WH64EN:
  case AXP_LDA: case AXP_LDAH:
  case AXP_LDBU: case AXP_LDWU: case AXP_LDL: case AXP_LDQ: case AXP_LDQ_U:
  case AXP_STB: case AXP_STW: case AXP_STL: case AXP_STQ: case AXP_STQ_U:
  case AXP_LDS: case AXP_LDT: case AXP_STS: case AXP_STT:
  case AXP_ADDL: case AXP_S4ADDL: case AXP_S8ADDL: case AXP_SUBL: case AXP_S4SUBL: case AXP_S8SUBL:
  case AXP_ADDQ: case AXP_S4ADDQ: case AXP_S8ADDQ: case AXP_SUBQ: case AXP_S4SUBQ: case AXP_S8SUBQ:
  case AXP_CMPEQ: case AXP_CMPLT: case AXP_CMPLE: case AXP_CMPULT: case AXP_CMPULE:
  case AXP_AND: case AXP_BIC: case AXP_BIS: case AXP_ORNOT: case AXP_XOR: case AXP_EQV:
  case AXP_CMOVEQ: case AXP_CMOVNE: case AXP_CMOVLT: case AXP_CMOVGE: case AXP_CMOVLE:
  case AXP_CMOVGT: case AXP_CMOVLBS: case AXP_CMOVLBC:
  case AXP_SLL: case AXP_SRL: case AXP_SRA:
  case AXP_EXTBL: case AXP_EXTWL: case AXP_EXTLL: case AXP_EXTQL:
  case AXP_EXTWH: case AXP_EXTLH: case AXP_EXTQH:
  case AXP_INSBL: case AXP_INSWL: case AXP_INSLL: case AXP_INSQL:
  case AXP_MSKBL: case AXP_MSKWL: case AXP_MSKLL: case AXP_MSKQL:
  case AXP_ZAP: case AXP_ZAPNOT: case AXP_SEXTB: case AXP_SEXTW:
  case AXP_MULL: case AXP_MULQ: case AXP_UMULH: case AXP_AMASK: case AXP_IMPLVER:
  case AXP_FTOIT: case AXP_ITOFT: case AXP_FTOIS: case AXP_ITOFS:
  case AXP_CPYS: case AXP_CPYSN: case AXP_CPYSE:
  case AXP_CVTQL: case AXP_CVTLQ: case AXP_MT_FPCR: case AXP_MF_FPCR:
  case AXP_FCMOVEQ: case AXP_FCMOVNE: case AXP_FCMOVLT: case AXP_FCMOVGE: case AXP_FCMOVLE:
  case AXP_FCMOVGT:
    return K_PLAIN;
  case AXP_CALL_PAL:
    return in->imm == AXP_PAL_RDUNIQ || in->imm == AXP_PAL_WRUNIQ ? K_PLAIN : K_NONE;
  case AXP_BEQ: case AXP_BNE: case AXP_BLT: case AXP_BLE: case AXP_BGT: case AXP_BGE:
  case AXP_BLBC: case AXP_BLBS:
  case AXP_FBEQ: case AXP_FBNE: case AXP_FBLT: case AXP_FBGE: case AXP_FBLE: case AXP_FBGT:
    return K_COND;
  case AXP_BR: case AXP_BSR: case AXP_JMP: case AXP_JSR: case AXP_RET: case AXP_JSR_COROUTINE:
    return K_UNCOND;
  default: {
    enum axp_fpop op;
    bool s;
    return helper_of(in->id, in) || axp_fp_op_of(in->id, &op, &s) ? K_PLAIN : K_NONE;
  }
  }
}

/* ---- one block ---- */

static void add_stub(struct block *b, uint8_t *site, uint64_t pc, uint32_t refund, bool interp)
{
  b->stubs[b->nstubs++] = (struct stub){
    .site = site, .pc = pc, .refund = refund, .interp = interp,
    .linkable = !interp && (pc & ~GUEST_PAGE_MASK) == b->page,
  };
}

/* A NEXT exit to pc, written in place: through a jump jit_link can point at
 * the target's block when it is in this page. */
static void exit_next(struct block *b, uint64_t pc)
{
  struct emit *e = &b->e;
  if ((pc & ~GUEST_PAGE_MASK) == b->page) {
    uint8_t *site = jmp(e);
    set_rel32(site, e->p);              /* until linked: on to the exit below */
    mov_ri(e, RAX, pc);
    mov_mr(e, RBP, F_PC, RAX);
    /* lea rax, [rip + (site - next)] */
    put1(e, 0x48); put1(e, 0x8D); put1(e, 0x05);
    put4(e, (uint32_t)(int32_t)(site - (e->p + 4)));
    mov_mr(e, RBP, F_LINK, RAX);
  } else {
    /* Another page: through the jump cache. */
    mov_ri(e, RAX, pc);
    mov_rm(e, RCX, RBP, F_JUMP);
    op_mem(e, 1, 0x3B, RAX, RCX, jump_off(pc));           /* cmp rax, [jump + pc's entry] */
    uint8_t *miss = jcc(e, CC_NE);
    op_mem(e, 0, 0xFF, 4, RCX, jump_off(pc) + 8);         /* jmp [jump + pc's entry + 8] */
    set_rel32(miss, e->p);
    mov_mr(e, RBP, F_PC, RAX);
  }
  jmp_to(e, b->jc->exit_next);
}

/* A NEXT exit to the pc in rax: through the jump cache. */
static void exit_indirect(struct block *b)
{
  struct emit *e = &b->e;
  mov32_rr(e, RDX, RAX);                                  /* edx = pc's entry offset */
  shift_ri(e, 0, SH_SHL, RDX, 2);
  alu_ri(e, 0, ALU_AND, RDX, (JUMP_SIZE - 1) * (int32_t)sizeof(struct jump));
  mov_rm(e, RCX, RBP, F_JUMP);
  op_idx(e, 1, 0x3B, RAX, RCX, RDX, 0);                   /* cmp rax, [jump + rdx] */
  uint8_t *miss = jcc(e, CC_NE);
  op_idx(e, 0, 0xFF, 4, RCX, RDX, 8);                     /* jmp [jump + rdx + 8] */
  set_rel32(miss, e->p);
  mov_mr(e, RBP, F_PC, RAX);
  jmp_to(e, b->jc->exit_next);
}
_Static_assert(sizeof(struct jump) == 16, "exit_indirect scales pc >> 2 by 16 as pc << 2");

static void exit_interp(struct block *b, uint64_t pc)
{
  mov_ri(&b->e, RAX, pc);
  mov_mr(&b->e, RBP, F_PC, RAX);
  jmp_to(&b->e, b->jc->exit_interp);
}

/* rax = the effective address of a memory-format instruction. */
static void ea(struct block *b, const struct axp_insn *in)
{
  if (in->rb == 31) mov_ri(&b->e, RAX, (uint64_t)(int64_t)in->imm);
  else lea_rm(&b->e, RAX, reg_g(b, in->rb), in->imm);
}

/* rax = the host address of the access of `size` bytes at guest rax, through
 * the read or the write TLB; a miss (which includes a misaligned address:
 * the tag keeps the low bits) leaves for the interpreter at instruction k. */
static void tlb(struct block *b, bool write, unsigned size, uint64_t pc, unsigned k)
{
  int32_t base = write ? TLB_W : 0;
  struct emit *e = &b->e;
  mov32_rr(e, RCX, RAX);                                /* ecx = entry offset: */
  shift_ri(e, 0, SH_SHR, RCX, GUEST_PAGE_SHIFT - 4);    /* ((a >> 13) & 511) * 16 */
  alu_ri(e, 0, ALU_AND, RCX, (GUEST_TLB_SIZE - 1) << 4);
  mov_rr(e, RDX, RAX);
  alu_ri(e, 1, ALU_AND, RDX, (int32_t)(~GUEST_PAGE_MASK | (size - 1)));
  op_idx(e, 1, 0x3B, RDX, R12, RCX, base);              /* cmp rdx, [tlb + rcx] (tag) */
  add_stub(b, jcc(e, CC_NE), pc, b->n - k, true);
  op_idx(e, 1, 0x03, RAX, R12, RCX, base + 8);          /* add rax, [tlb + rcx + 8] (addend) */
}

_Static_assert(sizeof(struct guest_tlb_entry) == 16 &&
               offsetof(struct guest_tlb_entry, tag) == 0 &&
               offsetof(struct guest_tlb_entry, addend) == 8, "the TLB layout translated code reads");

/* Integer operate instructions. */
static void operate(struct block *b, const struct axp_insn *in)
{
  struct emit *e = &b->e;
  unsigned id = in->id, rc = in->rc;
  if (rc >= 31) return;   /* no effect but its result, which goes nowhere */
  helper2 h = helper_of(id, in);
  if (h) {
    ld_g(b, RDI, in->ra);
    ld_b(b, RSI, in);
    call_fn(b, FN(h));
    st_g(b, rc, RAX);
    return;
  }
  switch (id) {
  case AXP_ADDL: case AXP_ADDQ: case AXP_SUBL: case AXP_SUBQ:
  case AXP_S4ADDL: case AXP_S4ADDQ: case AXP_S4SUBL: case AXP_S4SUBQ:
  case AXP_S8ADDL: case AXP_S8ADDQ: case AXP_S8SUBL: case AXP_S8SUBQ: {
    bool sub = id == AXP_SUBL || id == AXP_SUBQ || id == AXP_S4SUBL || id == AXP_S4SUBQ ||
               id == AXP_S8SUBL || id == AXP_S8SUBQ;
    bool l = id == AXP_ADDL || id == AXP_SUBL || id == AXP_S4ADDL || id == AXP_S4SUBL ||
             id == AXP_S8ADDL || id == AXP_S8SUBL;
    unsigned sh = id == AXP_S4ADDL || id == AXP_S4ADDQ || id == AXP_S4SUBL || id == AXP_S4SUBQ ? 2
                : id == AXP_S8ADDL || id == AXP_S8ADDQ || id == AXP_S8SUBL || id == AXP_S8SUBQ ? 3 : 0;
    ld_g(b, RAX, in->ra);
    if (sh) shift_ri(e, 1, SH_SHL, RAX, sh);
    alu_b(b, sub ? ALU_SUB : ALU_ADD, RAX, in);
    if (l) movsxd_rr(e, RAX, RAX);
    break;
  }
  case AXP_CMPEQ: case AXP_CMPLT: case AXP_CMPLE: case AXP_CMPULT: case AXP_CMPULE: {
    int cc = id == AXP_CMPEQ ? CC_E : id == AXP_CMPLT ? CC_L : id == AXP_CMPLE ? CC_LE
           : id == AXP_CMPULT ? CC_B : CC_BE;
    ld_g(b, RCX, in->ra);
    xor32_rr(e, RAX);
    alu_b(b, ALU_CMP, RCX, in);
    setcc(e, cc, RAX);
    break;
  }
  case AXP_AND: case AXP_BIS: case AXP_XOR:
    if (in->ra == 31 && id != AXP_AND) {
      ld_b(b, RAX, in);
    } else {
      ld_g(b, RAX, in->ra);
      alu_b(b, id == AXP_AND ? ALU_AND : id == AXP_BIS ? ALU_OR : ALU_XOR, RAX, in);
    }
    break;
  case AXP_BIC: case AXP_ORNOT: case AXP_EQV:
    ld_b(b, RCX, in);
    not_r(e, RCX);
    ld_g(b, RAX, in->ra);
    alu_rr(e, id == AXP_BIC ? ALU_AND : id == AXP_ORNOT ? ALU_OR : ALU_XOR, RAX, RCX);
    break;
  case AXP_CMOVEQ: case AXP_CMOVNE: case AXP_CMOVLT: case AXP_CMOVGE: case AXP_CMOVLE:
  case AXP_CMOVGT: case AXP_CMOVLBS: case AXP_CMOVLBC: {
    int cc = id == AXP_CMOVEQ ? CC_E : id == AXP_CMOVNE ? CC_NE : id == AXP_CMOVLT ? CC_L
           : id == AXP_CMOVGE ? CC_GE : id == AXP_CMOVLE ? CC_LE : id == AXP_CMOVGT ? CC_G
           : id == AXP_CMOVLBS ? CC_NE : CC_E;
    ld_g(b, RDX, in->ra);
    ld_b(b, RCX, in);
    ld_g(b, RAX, rc);                       /* the old value stays unless moved */
    if (id == AXP_CMOVLBS || id == AXP_CMOVLBC) test32_ri(e, RDX, 1);
    else test_rr(e, RDX, RDX);
    cmov(e, cc, RAX, RCX);
    break;
  }
  case AXP_SLL: case AXP_SRL: case AXP_SRA: {
    int k = id == AXP_SLL ? SH_SHL : id == AXP_SRL ? SH_SHR : SH_SAR;
    ld_g(b, RAX, in->ra);
    if (lit(in)) {
      if (litv(in) & 63) shift_ri(e, 1, k, RAX, litv(in) & 63);
    } else {
      ld_g(b, RCX, in->rb);
      shift_rcl(e, k, RAX);                 /* x86 takes the count mod 64 as Alpha does */
    }
    break;
  }
  case AXP_EXTBL: case AXP_EXTWL: case AXP_EXTLL: case AXP_EXTQL:
  case AXP_EXTWH: case AXP_EXTLH: case AXP_EXTQH: {
    bool high = id == AXP_EXTWH || id == AXP_EXTLH || id == AXP_EXTQH;
    ld_g(b, RAX, in->ra);
    if (lit(in)) {
      unsigned s = (unsigned)(litv(in) & 7) * 8;
      if (high) s = (64 - s) & 63;
      if (s) shift_ri(e, 1, high ? SH_SHL : SH_SHR, RAX, s);
    } else {
      ld_g(b, RCX, in->rb);
      alu_ri(e, 0, ALU_AND, RCX, 7);
      shift_ri(e, 0, SH_SHL, RCX, 3);
      if (high) neg_r(e, RCX);              /* (64 - 8*pos) mod 64 */
      shift_rcl(e, high ? SH_SHL : SH_SHR, RAX);
    }
    if (id == AXP_EXTBL) movzx8_rr(e, RAX, RAX);
    else if (id == AXP_EXTWL || id == AXP_EXTWH) movzx16_rr(e, RAX, RAX);
    else if (id == AXP_EXTLL || id == AXP_EXTLH) mov32_rr(e, RAX, RAX);
    break;
  }
  case AXP_INSBL: case AXP_INSWL: case AXP_INSLL: case AXP_INSQL:
    ld_g(b, RAX, in->ra);
    if (id == AXP_INSBL) movzx8_rr(e, RAX, RAX);
    else if (id == AXP_INSWL) movzx16_rr(e, RAX, RAX);
    else if (id == AXP_INSLL) mov32_rr(e, RAX, RAX);
    if (lit(in)) {
      if (litv(in) & 7) shift_ri(e, 1, SH_SHL, RAX, (unsigned)(litv(in) & 7) * 8);
    } else {
      ld_g(b, RCX, in->rb);
      alu_ri(e, 0, ALU_AND, RCX, 7);
      shift_ri(e, 0, SH_SHL, RCX, 3);
      shift_rcl(e, SH_SHL, RAX);
    }
    break;
  case AXP_MSKBL: case AXP_MSKWL: case AXP_MSKLL: case AXP_MSKQL: {
    uint64_t w = id == AXP_MSKBL ? AXP_W_B : id == AXP_MSKWL ? AXP_W_W : id == AXP_MSKLL ? AXP_W_L : AXP_W_Q;
    ld_g(b, RAX, in->ra);
    if (lit(in)) {
      mov_ri(e, RDX, ~(w << ((litv(in) & 7) * 8)));
    } else {
      ld_g(b, RCX, in->rb);
      alu_ri(e, 0, ALU_AND, RCX, 7);
      shift_ri(e, 0, SH_SHL, RCX, 3);
      mov_ri(e, RDX, w);
      shift_rcl(e, SH_SHL, RDX);
      not_r(e, RDX);
    }
    alu_rr(e, ALU_AND, RAX, RDX);
    break;
  }
  case AXP_ZAP: case AXP_ZAPNOT: {          /* literal forms; the others have helpers */
    uint64_t m = axp_bytemask(litv(in) & 0xFF);
    if (id == AXP_ZAP) m = ~m;
    ld_g(b, RAX, in->ra);
    if (m == AXP_W_L) mov32_rr(e, RAX, RAX);
    else if (m == AXP_W_W) movzx16_rr(e, RAX, RAX);
    else if (m == AXP_W_B) movzx8_rr(e, RAX, RAX);
    else if (m != AXP_W_Q) { mov_ri(e, RDX, m); alu_rr(e, ALU_AND, RAX, RDX); }
    break;
  }
  case AXP_SEXTB: case AXP_SEXTW:
    ld_b(b, RAX, in);
    if (id == AXP_SEXTB) movsx8_rr(e, RAX, RAX);
    else movsx16_rr(e, RAX, RAX);
    break;
  case AXP_MULL: case AXP_MULQ:
    ld_g(b, RAX, in->ra);
    ld_b(b, RCX, in);
    imul_rr(e, RAX, RCX);
    if (id == AXP_MULL) movsxd_rr(e, RAX, RAX);   /* the low 32 bits of the product, sign-extended */
    break;
  case AXP_UMULH:
    ld_g(b, RAX, in->ra);
    ld_b(b, RCX, in);
    mul_r(e, RCX);
    mov_rr(e, RAX, RDX);
    break;
  case AXP_AMASK:
    ld_b(b, RAX, in);
    alu_ri(e, 1, ALU_AND, RAX, (int32_t)~(uint32_t)AXP_AMASK_EV67);
    break;
  case AXP_IMPLVER:
    mov_ri(e, RAX, AXP_IMPLVER_EV6);
    break;
  default:
    PM_ASSERT(!"operate: an id kind_of accepts and operate does not write");
    return;
  }
  st_g(b, rc, RAX);
}

/* Loads and stores (memory format, TLB hits only); warm: described to the
 * warming once the TLB has hit (a warm event). */
static void memop(struct block *b, const struct axp_insn *in, uint64_t pc, unsigned k, bool warm)
{
  struct emit *e = &b->e;
  unsigned id = in->id;
  if (id == AXP_LDA || id == AXP_LDAH) {
    ea(b, in);
    st_g(b, in->ra, RAX);
    if (warm) warm_event0(b, in, pc);
    return;
  }
  if (id == AXP_STS) {
    /* The register's S-format memory image first, kept in rsi across the
     * address and the TLB look-up (which use rax, rcx and rdx). */
    ld_f(b, RDI, in->ra);
    call_fn(b, FN(h_sts));
    mov_rr(e, RSI, RAX);
  }
  ea(b, in);
  if (id == AXP_LDQ_U || id == AXP_STQ_U) alu_ri(e, 1, ALU_AND, RAX, -8);
  unsigned size = id == AXP_LDBU || id == AXP_STB ? 1 : id == AXP_LDWU || id == AXP_STW ? 2
                : id == AXP_LDL || id == AXP_STL || id == AXP_LDS || id == AXP_STS ? 4 : 8;
  bool store = id == AXP_STB || id == AXP_STW || id == AXP_STL || id == AXP_STQ ||
               id == AXP_STQ_U || id == AXP_STS || id == AXP_STT;
  if (warm) mov_rr(e, RDI, RAX);          /* the address, kept past the TLB (rax, rcx, rdx) */
  tlb(b, store, size, pc, k);
  if (warm) {
    /* b: the physical address, when the host address is in the RAM */
    mov_rr(e, RCX, RDI);
    mov_rr(e, R8, RAX);
    op_mem(e, 1, 0x2B, R8, RBP, F_RAM);   /* sub r8, [rbp + ram] */
    op_mem(e, 1, 0x3B, R8, RBP, F_RAMB);  /* cmp r8, [rbp + ram_bytes] */
    uint8_t *in_ram = jcc(e, CC_B);
    mov_ri(e, R8, JIT_WARM_UNKNOWN);
    set_rel32(in_ram, e->p);
    warm_event(b, in, pc);                 /* keeps rax (the host address) and rsi */
  }
  switch (id) {
  case AXP_LDBU: op_mem(e, 0, 0x0FB6, RAX, RAX, 0); st_g(b, in->ra, RAX); break;
  case AXP_LDWU: op_mem(e, 0, 0x0FB7, RAX, RAX, 0); st_g(b, in->ra, RAX); break;
  case AXP_LDL: op_mem(e, 1, 0x63, RAX, RAX, 0); st_g(b, in->ra, RAX); break;
  case AXP_LDQ: case AXP_LDQ_U: mov_rm(e, RAX, RAX, 0); st_g(b, in->ra, RAX); break;
  case AXP_LDT: mov_rm(e, RAX, RAX, 0); st_f(b, in->ra, RAX); break;
  case AXP_LDS:
    op_mem(e, 0, 0x8B, RDI, RAX, 0);
    call_fn(b, FN(h_lds));
    st_f(b, in->ra, RAX);
    break;
  case AXP_STB:
    ld_g(b, RCX, in->ra);
    op_mem(e, 0, 0x88, RCX, RAX, 0);
    break;
  case AXP_STW:
    ld_g(b, RCX, in->ra);
    put1(e, 0x66);
    op_mem(e, 0, 0x89, RCX, RAX, 0);
    break;
  case AXP_STL:
    ld_g(b, RCX, in->ra);
    op_mem(e, 0, 0x89, RCX, RAX, 0);
    break;
  case AXP_STQ: case AXP_STQ_U:
    ld_g(b, RCX, in->ra);
    mov_mr(e, RAX, 0, RCX);
    break;
  case AXP_STT:
    ld_f(b, RCX, in->ra);
    mov_mr(e, RAX, 0, RCX);
    break;
  case AXP_STS:
    op_mem(e, 0, 0x89, RSI, RAX, 0);
    break;
  default:
    PM_ASSERT(!"memop: an id kind_of accepts and memop does not write");
  }
}

/* Flags for an FP condition on the raw bits in rax (exec.c f_zero, f_lt):
 * +-0 is zero; "less" is the sign bit set on a non-zero value, i.e. above
 * 1<<63 unsigned. Clobbers rax and rsi. Returns the condition code that
 * holds when cond (an FBxx or FCMOVxx id) does. */
static int fp_cond(struct emit *e, unsigned id)
{
  switch (id) {
  case AXP_FBEQ: case AXP_FBNE: case AXP_FCMOVEQ: case AXP_FCMOVNE:
    alu_rr(e, ALU_ADD, RAX, RAX);         /* shifts the sign out: zero iff +-0 */
    return id == AXP_FBEQ || id == AXP_FCMOVEQ ? CC_E : CC_NE;
  case AXP_FBLT: case AXP_FBGE: case AXP_FCMOVLT: case AXP_FCMOVGE:
    mov_ri(e, RSI, 0x8000000000000000ull);
    alu_rr(e, ALU_CMP, RAX, RSI);
    return id == AXP_FBLT || id == AXP_FCMOVLT ? CC_A : CC_BE;
  default:
    /* le: less or zero, i.e. f - 1 >= (1<<63) - 1 unsigned (f = 0 wraps) */
    lea_rm(e, RAX, RAX, -1);
    mov_ri(e, RSI, 0x7FFFFFFFFFFFFFFFull);
    alu_rr(e, ALU_CMP, RAX, RSI);
    return id == AXP_FBLE || id == AXP_FCMOVLE ? CC_AE : CC_B;
  }
}

/* Conditional branches: the taken path is a side exit. */
static void cond_branch(struct block *b, const struct axp_insn *in, uint64_t pc, unsigned k, bool warm)
{
  struct emit *e = &b->e;
  unsigned id = in->id;
  int cc;
  if (id == AXP_BLBC || id == AXP_BLBS) {
    test32_ri(e, reg_g(b, in->ra), 1);
    cc = id == AXP_BLBS ? CC_NE : CC_E;
  } else if (id == AXP_FBEQ || id == AXP_FBNE || id == AXP_FBLT || id == AXP_FBGE ||
             id == AXP_FBLE || id == AXP_FBGT) {
    ld_f(b, RAX, in->ra);
    cc = fp_cond(e, id);
  } else {
    int h = reg_g(b, in->ra);
    test_rr(e, h, h);
    cc = id == AXP_BEQ ? CC_E : id == AXP_BNE ? CC_NE : id == AXP_BLT ? CC_L
       : id == AXP_BLE ? CC_LE : id == AXP_BGT ? CC_G : CC_GE;
  }
  uint64_t target = pc + 4 + (uint64_t)(int64_t)in->imm;
  if (warm) {
    setcc(e, cc, RCX);
    movzx8_rr(e, RCX, RCX);
    mov_ri(e, R8, target);
    warm_event(b, in, pc);                 /* keeps rcx (taken) */
    test_rr(e, RCX, RCX);
    cc = CC_NE;
  }
  add_stub(b, jcc(e, cc), target, b->n - k - 1, false);
}

/* Whether the k-th instruction of a block, in at pc, gives a warm event
 * (jit.h). The NOP forms of BIS and CPYS are the timing model's
 * (uarch/ev67.c, classify): every other BIS (mov, or) is a plain retire. */
static bool warm_hooks(const struct jit_cache *jc, const struct axp_insn *in, uint64_t pc, unsigned k)
{
  if (!jc->hooked) return false;
  if (k == 0 || (pc & 63) == 0) return true;
  if (in->id == AXP_BIS || in->id == AXP_CPYS)
    return in->ra == 31 && in->rb == 31 && !lit(in) && in->rc >= 31;
  return jc->hooked[in->id];
}

static void insn_op(struct block *b, const struct axp_insn *in, uint64_t pc, unsigned k, bool warm);

/* One instruction, the k-th of the block, at pc. Loads, stores and control
 * transfers give their warm events inside their code; the others after it,
 * once nothing can leave for the interpreter at them. */
static void insn(struct block *b, const struct axp_insn *in, uint64_t pc, unsigned k)
{
  bool warm = warm_hooks(b->jc, in, pc, k);
  unsigned id = in->id;
  if (id == XID_NOP) {
    if (warm) {
      ea(b, in);
      mov_rr(&b->e, RCX, RAX);
      mov_ri(&b->e, R8, JIT_WARM_UNKNOWN);
      warm_event(b, in, pc);
    }
    return;
  }
  unsigned f = id < AXP_NUM_IDS ? axp_info[id].format : AXP_FMT_OPR;
  bool inside = (f == AXP_FMT_MEM || f == AXP_FMT_FMEM || f == AXP_FMT_BRA || f == AXP_FMT_FBRA ||
                 f == AXP_FMT_JMP) &&
                id != AXP_FETCH && id != AXP_FETCH_M && id != AXP_ECB && id != AXP_WH64 &&
                id != AXP_WH64EN && id != AXP_TRAPB && id != AXP_EXCB && id != AXP_MB && id != AXP_WMB;
  insn_op(b, in, pc, k, warm && inside);
  if (warm && !inside) warm_event0(b, in, pc);
}

static void insn_op(struct block *b, const struct axp_insn *in, uint64_t pc, unsigned k, bool warm)
{
  struct emit *e = &b->e;
  unsigned id = in->id;
  switch (id) {
  case AXP_TRAPB: case AXP_EXCB: case AXP_MB: case AXP_WMB: case AXP_FETCH: case AXP_FETCH_M:
  case AXP_ECB: case AXP_WH64: case AXP_WH64EN:
    return;
  case AXP_CALL_PAL:
    if (in->imm == AXP_PAL_RDUNIQ) {
      mov_rm(e, RAX, RBX, CTX(unique));
      st_g(b, 0, RAX);
    } else {
      ld_g(b, RAX, 16);
      mov_mr(e, RBX, CTX(unique), RAX);
    }
    return;
  case AXP_LDA: case AXP_LDAH:
  case AXP_LDBU: case AXP_LDWU: case AXP_LDL: case AXP_LDQ: case AXP_LDQ_U:
  case AXP_STB: case AXP_STW: case AXP_STL: case AXP_STQ: case AXP_STQ_U:
  case AXP_LDS: case AXP_LDT: case AXP_STS: case AXP_STT:
    memop(b, in, pc, k, warm);
    return;
  case AXP_FTOIT:
    ld_f(b, RAX, in->ra);
    st_g(b, in->rc, RAX);
    return;
  case AXP_ITOFT:
    ld_g(b, RAX, in->ra);
    st_f(b, in->rc, RAX);
    return;
  case AXP_FTOIS:
    ld_f(b, RDI, in->ra);
    call_fn(b, FN(h_ftois));
    st_g(b, in->rc, RAX);
    return;
  case AXP_ITOFS:
    ld_g(b, RDI, in->ra);
    call_fn(b, FN(h_itofs));
    st_f(b, in->rc, RAX);
    return;
  case AXP_CPYS: case AXP_CPYSN: case AXP_CPYSE: {
    /* fc = sign (and exponent for cpyse) of fa, the rest of fb */
    uint64_t hi = id == AXP_CPYSE ? 0xFFF0000000000000ull : 0x8000000000000000ull;
    ld_f(b, RAX, in->ra);
    if (id == AXP_CPYSN) not_r(e, RAX);
    mov_ri(e, RDX, hi);
    alu_rr(e, ALU_AND, RAX, RDX);
    ld_f(b, RCX, in->rb);
    not_r(e, RDX);
    alu_rr(e, ALU_AND, RCX, RDX);
    alu_rr(e, ALU_OR, RAX, RCX);
    st_f(b, in->rc, RAX);
    return;
  }
  case AXP_CVTLQ:
    ld_f(b, RDI, in->rb);
    call_fn(b, FN(h_cvtlq));
    st_f(b, in->rc, RAX);
    return;
  case AXP_MF_FPCR:
    mov_rm(e, RAX, RBX, CTX(fpcr));
    st_f(b, in->ra, RAX);
    return;
  case AXP_MT_FPCR:
    ld_f(b, RAX, in->ra);
    mov_ri(e, RDX, AXP_FPCR_MASK);
    alu_rr(e, ALU_AND, RAX, RDX);
    mov_mr(e, RBX, CTX(fpcr), RAX);
    return;
  case AXP_FCMOVEQ: case AXP_FCMOVNE: case AXP_FCMOVLT: case AXP_FCMOVGE: case AXP_FCMOVLE:
  case AXP_FCMOVGT: {
    if (in->rc >= 31) return;
    ld_f(b, RCX, in->rb);
    ld_f(b, RDX, in->rc);
    ld_f(b, RAX, in->ra);
    cmov(e, fp_cond(e, id), RDX, RCX);
    st_f(b, in->rc, RDX);
    return;
  }
  case AXP_BEQ: case AXP_BNE: case AXP_BLT: case AXP_BLE: case AXP_BGT: case AXP_BGE:
  case AXP_BLBC: case AXP_BLBS:
  case AXP_FBEQ: case AXP_FBNE: case AXP_FBLT: case AXP_FBGE: case AXP_FBLE: case AXP_FBGT:
    cond_branch(b, in, pc, k, warm);
    return;
  case AXP_BR: case AXP_BSR:
    if (in->ra < 31) {
      mov_ri(e, RAX, pc + 4);
      st_g(b, in->ra, RAX);
    }
    if (warm) {
      mov_ri(e, RCX, 1);
      mov_ri(e, R8, pc + 4 + (uint64_t)(int64_t)in->imm);
      warm_event(b, in, pc);
    }
    exit_next(b, pc + 4 + (uint64_t)(int64_t)in->imm);
    return;
  case AXP_JMP: case AXP_JSR: case AXP_RET: case AXP_JSR_COROUTINE:
    ld_g(b, RAX, in->rb);                   /* before Ra is written: Ra may be Rb */
    alu_ri(e, 1, ALU_AND, RAX, -4);
    if (in->ra < 31) {
      mov_ri(e, RCX, pc + 4);
      st_g(b, in->ra, RCX);
    }
    if (warm) {
      mov_rr(e, R8, RAX);
      mov_ri(e, RCX, 1);
      warm_event(b, in, pc);               /* keeps rax (the target) */
    }
    exit_indirect(b);
    return;
  default: {
    enum axp_fpop op;
    bool s;
    if (id == AXP_CVTQL || axp_fp_op_of(id, &op, &s)) {
      /* In C; an exception leaves the instruction to the interpreter. */
      mov_rr(e, RDI, RBX);
      mov_ri(e, RSI, (uint64_t)id | (uint64_t)in->fn << 16 | (uint64_t)in->ra << 32 |
                     (uint64_t)in->rb << 40 | (uint64_t)in->rc << 48);
      call_fn(b, FN(h_fpop));
      test_rr(e, RAX, RAX);
      add_stub(b, jcc(e, CC_NE), pc, b->n - k, true);
      return;
    }
    operate(b, in);
    return;
  }
  }
}

/* Writes the shared code at the arena's start: the entry trampoline, the
 * epilogue, the two exits and the warm flush call. */
static void write_shared(struct jit_cache *jc)
{
  struct emit ee = { jc->base }, *e = &ee;
  void *enter = e->p;
  static const int saved[] = { RBX, RBP, R12, R13, R14, R15 };
  for (unsigned i = 0; i < 6; i++) push_r(e, saved[i]);
  alu_ri(e, 1, ALU_SUB, RSP, 8);          /* 6 pushes + return address: realign to 16 */
  mov_rr(e, RBP, RDI);
  mov_rm(e, RBX, RBP, F_R);
  mov_rm(e, R12, RBP, F_TLBR);
  mov_rm(e, R15, RBP, F_LEFT);
  put1(e, 0xFF); put1(e, 0xE6);           /* jmp rsi */
  uint8_t *epilogue = e->p;
  mov_mr(e, RBP, F_LEFT, R15);
  alu_ri(e, 1, ALU_ADD, RSP, 8);
  for (unsigned i = 6; i-- > 0;) pop_r(e, saved[i]);
  put1(e, 0xC3);                          /* ret */
  jc->exit_next = e->p;
  op_mem(e, 1, 0xC7, 0, RBP, F_KIND);     /* mov qword [rbp+kind], NEXT */
  put4(e, JIT_EXIT_NEXT);
  jmp_to(e, epilogue);
  jc->exit_interp = e->p;
  op_mem(e, 1, 0xC7, 0, RBP, F_KIND);
  put4(e, JIT_EXIT_INTERP);
  jmp_to(e, epilogue);
  /* warm_event's full buffer: frame.warm_flush(warm_ctx), keeping the
   * caller-saved registers but rdx and rdi (7 pushes after the return
   * address: the stack is aligned for the call). */
  jc->warm_flush = e->p;
  static const int kept[] = { RAX, RCX, RSI, R8, R9, R10, R11 };
  for (unsigned i = 0; i < 7; i++) push_r(e, kept[i]);
  mov_rm(e, RDI, RBP, F_WCTX);
  op_mem(e, 0, 0xFF, 2, RBP, F_WFLUSH);   /* call [rbp + warm_flush] */
  for (unsigned i = 7; i-- > 0;) pop_r(e, kept[i]);
  put1(e, 0xC3);                          /* ret */
  memcpy(&jc->enter, &enter, sizeof enter);
  jc->start = (uint8_t *)(((uintptr_t)e->p + 63) & ~(uintptr_t)63);
  jc->next = jc->start;
}

struct jit_cache *jit_create(const bool *hooked)
{
  struct jit_cache *jc = calloc(1, sizeof *jc);
  if (!jc) return NULL;
  jc->hooked = hooked;
  void *p = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) { free(jc); return NULL; }
  jc->base = p;
  jc->end = jc->base + ARENA_BYTES;
  if (!(jc->jump = malloc(JUMP_SIZE * sizeof *jc->jump))) {
    munmap(p, ARENA_BYTES);
    free(jc);
    return NULL;
  }
  jit_forget(jc);
  write_shared(jc);
  return jc;
}

void jit_destroy(struct jit_cache *jc)
{
  if (!jc) return;
  munmap(jc->base, ARENA_BYTES);
  free(jc->jump);
  free(jc);
}

void jit_reset(struct jit_cache *jc)
{
  jit_forget(jc);
  jc->next = jc->start;
  jc->generation++;
}

void jit_remember(struct jit_cache *jc, uint64_t pc, const void *entry)
{
  struct jump *j = &jc->jump[(pc >> 2) & (JUMP_SIZE - 1)];
  j->pc = pc;
  j->entry = entry;
}

void jit_forget(struct jit_cache *jc)
{
  /* ~0 is no pc (pcs are 4-aligned) */
  for (unsigned i = 0; i < JUMP_SIZE; i++) jc->jump[i] = (struct jump){ ~(uint64_t)0, NULL };
}

uint64_t jit_generation(const struct jit_cache *jc) { return jc->generation; }

void jit_counts(const struct jit_cache *jc, uint64_t *blocks, uint64_t *bytes)
{
  *blocks = jc->blocks;
  *bytes = jc->bytes;
}

void jit_run(struct jit_cache *jc, struct jit_frame *f, const void *entry)
{
  f->jump = jc->jump;
  jc->enter(f, entry);
}

void jit_link(uint8_t *site, const void *entry)
{
  set_rel32(site, entry);
}

const void *jit_translate(struct jit_cache *jc, uint64_t page, unsigned first,
                          jit_slot_fn slot, void *ctx, bool *full)
{
  /* Its extent: up to an unconditional branch (included) or an instruction
   * left to the interpreter (excluded), the page's end or the longest block. */
  unsigned n = 0;
  bool term = false;
  for (unsigned i = first; i < GUEST_PAGE_INSNS && n < JIT_MAX_INSNS; i++) {
    enum kind k = kind_of(slot(ctx, i));
    if (k == K_NONE) break;
    n++;
    if (k == K_UNCOND) { term = true; break; }
  }
  if (!n) return NULL;
  if ((size_t)(jc->end - jc->next) < (size_t)n * BYTES_PER_INSN + BLOCK_SLACK) {
    *full = true;
    return NULL;
  }
  struct block bb, *b = &bb;
  b->e.p = jc->next;
  b->jc = jc;
  b->page = page;
  b->n = n;
  b->nstubs = 0;
  b->clock = 0;
  cache_clear(b);
  struct emit *e = &b->e;
  uint8_t *entry = e->p;
  uint64_t pc0 = page + 4 * (uint64_t)first;
  /* The budget: take the block's length, or leave it to the interpreter. */
  alu_ri(e, 1, ALU_SUB, R15, (int32_t)n);
  uint8_t *budget = jcc(e, CC_B);
  for (unsigned k = 0; k < n; k++) insn(b, slot(ctx, first + k), pc0 + 4 * k, k);
  if (!term) {
    uint64_t pc = pc0 + 4 * n;
    if (first + n < GUEST_PAGE_INSNS && kind_of(slot(ctx, first + n)) == K_NONE) exit_interp(b, pc);
    else exit_next(b, pc);
  }
  /* Out of line: the budget exit, then the stubs. */
  set_rel32(budget, e->p);
  alu_ri(e, 1, ALU_ADD, R15, (int32_t)n);
  exit_interp(b, pc0);
  for (unsigned i = 0; i < b->nstubs; i++) {
    const struct stub *s = &b->stubs[i];
    set_rel32(s->site, e->p);
    if (s->refund) alu_ri(e, 1, ALU_ADD, R15, (int32_t)s->refund);
    if (s->interp) exit_interp(b, s->pc);
    else exit_next(b, s->pc);
  }
  PM_ASSERT(e->p <= jc->next + (size_t)n * BYTES_PER_INSN + BLOCK_SLACK);
  jc->next = (uint8_t *)(((uintptr_t)e->p + 15) & ~(uintptr_t)15);
  jc->blocks++;
  jc->bytes += (uint64_t)(e->p - entry);
  return entry;
}

#else   /* not x86-64: everything is interpreted */

struct jit_cache *jit_create(const bool *hooked) { (void)hooked; return NULL; }
void jit_destroy(struct jit_cache *jc) { (void)jc; }
const void *jit_translate(struct jit_cache *jc, uint64_t page, unsigned first,
                          jit_slot_fn slot, void *ctx, bool *full)
{
  (void)jc; (void)page; (void)first; (void)slot; (void)ctx; (void)full;
  return NULL;
}
void jit_reset(struct jit_cache *jc) { (void)jc; }
uint64_t jit_generation(const struct jit_cache *jc) { (void)jc; return 0; }
void jit_run(struct jit_cache *jc, struct jit_frame *f, const void *entry)
{
  (void)jc; (void)entry;
  f->kind = JIT_EXIT_INTERP;
}
void jit_link(uint8_t *site, const void *entry) { (void)site; (void)entry; }
void jit_remember(struct jit_cache *jc, uint64_t pc, const void *entry) { (void)jc; (void)pc; (void)entry; }
void jit_forget(struct jit_cache *jc) { (void)jc; }
void jit_counts(const struct jit_cache *jc, uint64_t *blocks, uint64_t *bytes)
{
  (void)jc;
  *blocks = *bytes = 0;
}

#endif
