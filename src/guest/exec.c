/* The functional core: a threaded interpreter over instructions predecoded once
 * per 8 KB code page. Each page's cache holds 1024 decoded slots plus a sentinel
 * that sends execution to the next page; slots start undecoded (id 0) and are
 * decoded on first execution. Stores to a page with code reset its slots (the
 * page never has a write-TLB entry), imb resets all of them. Memory accesses
 * use the software TLB (one compare, one add) and fall back to mm_host.
 * The functional build (axp_run) also runs hot blocks as translated code
 * (guest/jit.h): the page's cache counts the taken branches that reach each
 * slot and holds the blocks translated from it, dropped with its slots. */
#include "guest/cpu.h"
#include "guest/jit.h"
#include "guest/shadow.h"
#include "isa/isa.h"
#include "isa/intops.h"
#include "isa/fp.h"
#include <stdlib.h>
#include <string.h>


#define DECODED 0x80   /* axp_insn.flags: the slot holds a decoded instruction */

struct guest_code {
  struct axp_insn in[GUEST_PAGE_INSNS + 1];
  const uint8_t *host;   /* the page's bytes */
  uint64_t page;
  /* The translated block starting at each slot, or NULL, in the functional
   * [0] and the warming [1] cache (allocated with the page's first block). */
  const void **entry[2];
  unsigned blocks[2];    /* entries set since the last reset */
  struct guest_mm *mm;   /* the address space (whose jump cache may point at the blocks) */
  uint8_t heat[GUEST_PAGE_INSNS];   /* arrivals at each slot, counted up to cpu.jit_hot */
};

/* Alpha (OSF) signal numbers and the si_codes the executor raises. */
#define GSIG_ILL  4
#define GSIG_TRAP 5
#define GSIG_FPE  8
#define GSIG_BUS  10
#define GSIG_SEGV 11
#define GSIG_KILL 9
#define SI_KERNEL 0x80
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRALN  1
#define ILL_ILLOPC  1
#define TRAP_BRKPT  1
#define TRAP_UNK    5   /* Linux 6.1 traps.c: bugchk and unknown gentrap codes */

static void code_reset(struct guest_code *gc)
{
  memset(gc->in, 0, sizeof gc->in);
  gc->in[GUEST_PAGE_INSNS].id = XID_PAGE_END;
  memset(gc->heat, 0, sizeof gc->heat);
  for (int i = 0; i < 2; i++) {
    if (!gc->blocks[i]) continue;
    memset(gc->entry[i], 0, GUEST_PAGE_INSNS * sizeof *gc->entry[i]);
    if (gc->mm->jit[i]) jit_forget(gc->mm->jit[i]);   /* it may point at them */
    gc->blocks[i] = 0;
  }
}

static void code_free(struct guest_code *gc)
{
  if (gc) {
    free(gc->entry[0]);
    free(gc->entry[1]);
  }
  free(gc);
}

void axp_mm_init(struct guest_mm *mm)
{
  mm->code_free = code_free;
  mm->code_reset = code_reset;
  mm->jit_free = jit_destroy;
}

/* Fills a slot from the instruction word: decode, then send writes to $31 to the
 * sink slot and turn prefetch loads into nops, so the handlers need no checks. */
static void predecode(struct axp_insn *in, uint32_t w)
{
  *in = axp_decode(w);
  const struct axp_info *ai = &axp_info[in->id];
  if (in->id == AXP_INVALID || ai->subset == AXP_SUB_VAX) {
    in->id = XID_ILLEGAL;
  } else {
    switch (ai->format) {
    case AXP_FMT_MEM:
      if ((ai->cls == AXP_CLS_ILD || ai->cls == AXP_CLS_LDA) && in->ra == 31)
        in->id = XID_NOP;
      break;
    case AXP_FMT_FMEM:
      if (ai->cls == AXP_CLS_FLD && in->ra == 31) in->id = XID_NOP;
      break;
    case AXP_FMT_BRA: case AXP_FMT_JMP:
      /* br, bsr and the jumps write Ra; a conditional branch reads it, and
       * must read $31 as zero, not the sink's last value. */
      if (in->ra == 31 && (ai->format == AXP_FMT_JMP || in->id == AXP_BR || in->id == AXP_BSR))
        in->ra = 32;
      break;
    case AXP_FMT_MFC:
      if (in->ra == 31) in->ra = 32;   /* rpcc */
      break;
    case AXP_FMT_OPR: case AXP_FMT_FPO: case AXP_FMT_ITOF: case AXP_FMT_FTOI:
      if (in->rc == 31) in->rc = 32;
      break;
    default:
      break;
    }
  }
  in->flags |= DECODED;
}

/* Returns the code cache of the page holding pc, creating it; NULL when the page
 * is not mapped executable. */
static struct guest_code *code_for(struct cpu *cpu, struct guest_mm *mm, uint64_t pc)
{
  uint64_t page = pc & ~GUEST_PAGE_MASK;
  if (cpu->fc_mm == mm && cpu->fc_gen == mm->map_gen && cpu->fc_page == page)
    return cpu->fc_code;
  struct guest_page *p = mm_page(mm, page);
  if (!p || !(p->prot & GUEST_PROT_EXEC)) return NULL;
  if (!p->code) {
    struct guest_code *gc = malloc(sizeof *gc);
    const uint8_t *host = mm_host(mm, page, 0);
    if (!gc || !host) { free(gc); return NULL; }
    gc->entry[0] = gc->entry[1] = NULL;
    gc->blocks[0] = gc->blocks[1] = 0;
    gc->mm = mm;
    code_reset(gc);
    gc->host = host;
    gc->page = page;
    mm_code_attach(mm, page, gc);
  }
  cpu->fc_mm = mm;
  cpu->fc_gen = mm->map_gen;
  cpu->fc_page = page;
  cpu->fc_code = p->code;
  return p->code;
}

static void pc_counts_add(struct pc_counts *pcs, uint64_t pc)
{
  if (pcs->used * 2 >= pcs->cap) {
    uint32_t ncap = pcs->cap ? pcs->cap * 2 : 64;
    uint64_t *npc = calloc(ncap, sizeof *npc), *ncount = calloc(ncap, sizeof *ncount);
    if (!npc || !ncount) { free(npc); free(ncount); return; }
    for (uint32_t i = 0; i < pcs->cap; i++) {
      if (!pcs->count[i]) continue;
      uint32_t j = (uint32_t)(pcs->pc[i] >> 2) & (ncap - 1);
      while (ncount[j]) j = (j + 1) & (ncap - 1);
      npc[j] = pcs->pc[i];
      ncount[j] = pcs->count[i];
    }
    free(pcs->pc); free(pcs->count);
    pcs->pc = npc; pcs->count = ncount; pcs->cap = ncap;
  }
  uint32_t j = (uint32_t)(pc >> 2) & (pcs->cap - 1);
  while (pcs->count[j] && pcs->pc[j] != pc) j = (j + 1) & (pcs->cap - 1);
  if (!pcs->count[j]) { pcs->pc[j] = pc; pcs->used++; }
  pcs->count[j]++;
}

uint64_t pc_counts_get(const struct pc_counts *pcs, uint64_t pc)
{
  if (!pcs->cap) return 0;
  uint32_t j = (uint32_t)(pc >> 2) & (pcs->cap - 1);
  while (pcs->count[j]) {
    if (pcs->pc[j] == pc) return pcs->count[j];
    j = (j + 1) & (pcs->cap - 1);
  }
  return 0;
}

void pc_counts_free(struct pc_counts *pcs)
{
  free(pcs->pc);
  free(pcs->count);
  memset(pcs, 0, sizeof *pcs);
}

static void set_trap(struct cpu *cpu, int sig, int code, uint64_t addr, int64_t trapno)
{
  cpu->trap = (struct axp_trap){ sig, code, addr, trapno };
}

/* Memory fault on a data access (or an instruction fetch) at a: SIGSEGV,
 * mapped-but-forbidden is ACCERR. */
/* A fault the kernel cannot resolve: SIGSEGV, or when the page was mapped
 * but the RAM had no frame for it, the OOM killer's SIGKILL (Linux:
 * VM_FAULT_OOM, pagefault_out_of_memory; the victim is the faulting process,
 * the largest one when a single program runs). */
static void data_fault(struct cpu *cpu, struct guest_mm *mm, uint64_t a)
{
  if (mm->oom) {
    mm->oom = false;
    set_trap(cpu, GSIG_KILL, SI_KERNEL, a, 0);
    return;
  }
  set_trap(cpu, GSIG_SEGV, mm_page(mm, a) ? SEGV_ACCERR : SEGV_MAPERR, a, 0);
}

/* Unaligned-access policy (arch/alpha/kernel/traps.c do_entUnaUser). Returns 0 to
 * fix the access up, 1 to skip it (UAC_NOFIX), -1 after raising SIGBUS. */
static int unaligned(struct cpu *cpu, struct axp_ctx *c, uint64_t a, uint64_t pc, bool locked)
{
  if (locked || (c->uac & AXP_UAC_SIGBUS)) {
    set_trap(cpu, GSIG_BUS, BUS_ADRALN, a, 0);
    return -1;
  }
  if (c->uac & AXP_UAC_NOFIX) return 1;
  cpu->unaligned_fixups++;
  cpu->unaligned_last_pc = pc;
  cpu->unaligned_last_va = a;
  pc_counts_add(&cpu->unaligned, pc);
  return 0;
}

/* The slow load path. Returns 0 with *out filled, 1 to skip the instruction,
 * -1 after raising a trap. */
static int slow_load(struct cpu *cpu, struct axp_ctx *c, struct guest_mm *mm, uint64_t a,
                     unsigned size, uint64_t pc, bool locked, void *out)
{
  if (a & (size - 1)) {
    int r = unaligned(cpu, c, a, pc, locked);
    if (r) return r;
  }
  if (mm_read(mm, a, out, size, true) == 0) return 0;
  data_fault(cpu, mm, a);
  return -1;
}

static int slow_store(struct cpu *cpu, struct axp_ctx *c, struct guest_mm *mm, uint64_t a,
                      unsigned size, uint64_t pc, bool locked, const void *in)
{
  if (a & (size - 1)) {
    int r = unaligned(cpu, c, a, pc, locked);
    if (r) return r;
  }
  struct guest_page *p = mm_page(mm, a), *q = mm_page(mm, a + size - 1);
  if (p && q && (p->prot & q->prot & GUEST_PROT_WRITE) && mm_write(mm, a, in, size, true) == 0)
    return 0;
  data_fault(cpu, mm, p && (p->prot & GUEST_PROT_WRITE) ? a + size - 1 : a);
  return -1;
}

/* gentrap's a0 -> signal and si_code (traps.c do_entIF, case 2). */
static void gentrap(struct cpu *cpu, int64_t a0, uint64_t pc)
{
  int sig = GSIG_FPE, code;
  switch (a0) {
  case -1: code = 2; break;   /* GEN_INTOVF: FPE_INTOVF */
  case -2: code = 1; break;   /* GEN_INTDIV: FPE_INTDIV */
  case -3: code = 4; break;   /* GEN_FLTOVF */
  case -4: code = 3; break;   /* GEN_FLTDIV */
  case -5: code = 5; break;   /* GEN_FLTUND */
  case -6: code = 7; break;   /* GEN_FLTINV */
  case -7: code = 6; break;   /* GEN_FLTINE: FPE_FLTRES */
  case -11: code = 0; break;  /* GEN_ROPRAND */
  default: sig = GSIG_TRAP; code = TRAP_UNK; break;
  }
  set_trap(cpu, sig, code, pc, a0);
}

/* FP branch and fcmov conditions on raw register bits: +-0 are zero, the sign
 * bit decides lt/ge (Alpha Architecture Handbook 4.9). */
static inline bool f_zero(uint64_t f) { return (f << 1) == 0; }
static inline bool f_lt(uint64_t f) { return (f >> 63) && !f_zero(f); }

#define SIGN 0x8000000000000000ull

/* Decodes slot `in` of page `code` in place. */
static void predecode_slot(struct guest_code *code, const struct axp_insn *in)
{
  uint32_t w;
  memcpy(&w, code->host + ((uint64_t)(in - code->in) << 2), 4);
  predecode((struct axp_insn *)in, w);
}

const struct axp_insn *axp_fetch_decoded(struct cpu *cpu, struct guest_mm *mm, uint64_t pc)
{
  struct guest_code *code = code_for(cpu, mm, pc);
  if (!code) return NULL;
  const struct axp_insn *in = code->in + ((pc & GUEST_PAGE_MASK) >> 2);
  if (!(in->flags & DECODED)) predecode_slot(code, in);
  return in;
}

/* Access size of the naturally-aligned-only loads and stores (0 otherwise). */
static unsigned aligned_size(int id)
{
  switch (id) {
  case AXP_LDWU: case AXP_STW: return 2;
  case AXP_LDL: case AXP_STL: case AXP_LDS: case AXP_STS: case AXP_LDL_L: case AXP_STL_C: return 4;
  case AXP_LDQ: case AXP_STQ: case AXP_LDT: case AXP_STT: case AXP_LDQ_L: case AXP_STQ_C: return 8;
  default: return 0;
  }
}

/* The direction a conditional branch will take, from the registers. */
static bool branch_taken(const struct axp_ctx *c, const struct axp_insn *in)
{
  uint64_t a = c->r[in->ra], fa = c->f[in->ra];
  switch (in->id) {
  case AXP_BEQ: return a == 0;
  case AXP_BNE: return a != 0;
  case AXP_BLT: return (int64_t)a < 0;
  case AXP_BLE: return (int64_t)a <= 0;
  case AXP_BGT: return (int64_t)a > 0;
  case AXP_BGE: return (int64_t)a >= 0;
  case AXP_BLBC: return !(a & 1);
  case AXP_BLBS: return a & 1;
  case AXP_FBEQ: return f_zero(fa);
  case AXP_FBNE: return !f_zero(fa);
  case AXP_FBLT: return f_lt(fa);
  case AXP_FBGE: return !f_lt(fa);
  case AXP_FBLE: return f_lt(fa) || f_zero(fa);
  case AXP_FBGT: return !f_lt(fa) && !f_zero(fa);
  default: return true;
  }
}

/* True when the locked address still holds what the ld*_l read. */
static bool lock_intact(struct guest_mm *mm, const struct axp_ctx *c)
{
  uint64_t v = 0;
  if (mm_read(mm, c->lock_addr, &v, c->lock_size, false)) return false;
  return c->lock_size == 4 ? (uint32_t)v == (uint32_t)c->lock_value : v == c->lock_value;
}

/* Builds the pre-commit description of `in` at pc and hands it to the hook. */
static bool timing_before(struct cpu *cpu, const struct axp_ctx *c, struct guest_mm *mm,
                          const struct axp_insn *in, uint64_t pc)
{
  struct uarch_insn ui = { .pc = pc, .d = in, .next_pc = pc + 4, .asn = cpu->asn };
  if (in->id < AXP_NUM_IDS) {
    switch (axp_info[in->id].format) {
    case AXP_FMT_MEM: case AXP_FMT_FMEM: {
      uint64_t ea = c->r[in->rb] + (uint64_t)(int64_t)in->imm;
      if (in->id == AXP_LDQ_U || in->id == AXP_STQ_U) ea &= ~7ull;
      unsigned sz = aligned_size(in->id);
      ui.ea = ea;
      ui.unaligned = sz && (ea & (sz - 1));
      /* The frame the access reaches; a first touch takes its frame now, as
       * the fault before the access would. */
      unsigned cls = axp_info[in->id].cls;
      if (cls == AXP_CLS_ILD || cls == AXP_CLS_FLD || cls == AXP_CLS_IST || cls == AXP_CLS_FST) {
        int prot = cls == AXP_CLS_IST || cls == AXP_CLS_FST ? GUEST_PROT_WRITE : GUEST_PROT_READ;
        ui.pa = mm_phys(mm, ea, prot, true, &ui.fault);
        ui.pa_valid = true;
      }
      break;
    }
    case AXP_FMT_BRA: case AXP_FMT_FBRA:
      ui.taken = branch_taken(c, in);
      if (ui.taken) ui.next_pc = pc + 4 + (uint64_t)(int64_t)in->imm;
      break;
    case AXP_FMT_JMP:
      ui.taken = true;
      ui.next_pc = c->r[in->rb] & ~3ull;
      break;
    default:
      break;
    }
  } else if (in->id == XID_NOP) {
    ui.ea = c->r[in->rb] + (uint64_t)(int64_t)in->imm;
    ui.pa = mm_phys(mm, ui.ea, GUEST_PROT_READ, false, &ui.fault);   /* a prefetch faults in nothing */
    ui.pa_valid = true;
  }
  bool stop = cpu->timing->before(cpu->timing->ctx, &ui);
  /* An interrupt here stops before the instruction: it runs (and is
   * stepped) when the task resumes. */
  if (__builtin_expect(cpu->shadow_on, 0) && !stop && cpu->task) shadow_step(cpu->task, pc, in->raw, c->r);
  return stop;
}

/* ---- translated code (guest/jit.h) ---- */

static const struct axp_insn *jit_slot(void *ctx, unsigned i)
{
  struct guest_code *code = ctx;
  const struct axp_insn *in = &code->in[i];
  if (!(in->flags & DECODED)) predecode_slot(code, in);
  return in;
}

/* The ids the warming build describes to its hook (warm_filter below);
 * defined with it. */
static const bool warm_hooked[XID_COUNT];

/* The block starting at slot s of code, translated now in the cache of
 * `mode` (0 functional, 1 warming); NULL when it cannot be (its first
 * instruction is the interpreter's, or there is no code cache: not an
 * x86-64 host, or no executable memory; then the slot stays hot and
 * untranslated, and only another slot reaching the threshold tries again). */
static const void *jit_block(struct guest_mm *mm, struct guest_code *code, unsigned s, int mode)
{
  struct jit_cache **jc = &mm->jit[mode];
  if (!*jc && !(*jc = jit_create(mode ? warm_hooked : NULL))) return NULL;
  if (!code->entry[mode] && !(code->entry[mode] = calloc(GUEST_PAGE_INSNS, sizeof *code->entry[mode])))
    return NULL;
  bool full = false;
  const void *e = jit_translate(*jc, code->page, s, jit_slot, code, &full);
  if (full) {
    /* Start the cache afresh: every page forgets its blocks first. */
    mm_code_flush(mm);
    jit_reset(*jc);
    e = jit_translate(*jc, code->page, s, jit_slot, code, &full);
  }
  if (e) {
    code->entry[mode][s] = e;
    code->blocks[mode]++;
  }
  return e;
}

/* The warm events of translated code (jit.h) in the warming build, to the
 * machine's cpu_timing.warm with each access's physical address: those
 * translated code could not give (a prefetch's, one outside the RAM) are
 * the page tables' (a TLB hit, or a prefetch, touches no page for the first
 * time here). Events wait in a buffer no longer than one
 * jit_run: no mapping or decoded page changes in between. */
#define WARM_EVENTS 256
struct warm_ctx {
  struct cpu *cpu;
  struct guest_mm *mm;
  struct jit_frame *f;
  struct jit_warm_event buf[WARM_EVENTS];
};

/* jit_frame.warm_flush: the buffer's events, in order. */
static void warm_flush(void *ctx)
{
  struct warm_ctx *w = ctx;
  struct jit_warm_event *end = w->f->warm_pos;
  if (end == w->buf) return;
  for (struct jit_warm_event *ev = w->buf; ev < end; ev++)
    if (__builtin_expect(ev->b == JIT_WARM_UNKNOWN, 0)) {
      bool fault;
      ev->b = mm_phys(w->mm, ev->a, GUEST_PROT_READ, false, &fault);
    }
  w->cpu->timing->warm(w->cpu->timing->ctx, w->buf, (size_t)(end - w->buf));
  w->cpu->warm_line = end[-1].pc >> 6;
  w->f->warm_pos = w->buf;
}

/* Runs translated code from *npc, the start of a block in code, from block to
 * block while the next one is translated (or hot enough to be), linking
 * direct branches within a page as it finds their targets. Returns with
 * *npc the instruction the interpreter must run next and *left the budget.
 * The warming build (mode 1) runs no more than the machine's room, and
 * counts what it ran in cpu->warm_skipped. */
static void jit_go(struct cpu *cpu, struct guest_mm *mm, struct axp_ctx *c,
                   struct guest_code *code, uint64_t *npc, uint64_t *left, int mode)
{
  uint64_t budget = *left;
  if (mode) {
    uint64_t room = cpu->timing->room ? cpu->timing->room(cpu->timing->ctx) : 0;
    if (room < budget) budget = room;
    if (!budget) return;
    cpu->warm_budget0 = budget;
  }
  unsigned s = (unsigned)((*npc & GUEST_PAGE_MASK) >> 2);
  const void *e = code->entry[mode] ? code->entry[mode][s] : NULL;
  if (!e && !(e = jit_block(mm, code, s, mode))) return;
  if (mm->jit_map_gen != mm->map_gen) {
    /* Pages were unmapped or changed since the jump caches were filled. */
    for (int i = 0; i < 2; i++)
      if (mm->jit[i]) jit_forget(mm->jit[i]);
    mm->jit_map_gen = mm->map_gen;
  }
  struct jit_cache *jc = mm->jit[mode];
  jit_remember(jc, *npc, e);
  struct jit_frame f = { .left = budget, .pc = *npc, .r = c->r, .tlb_r = mm->tlb_r };
  struct warm_ctx events, *wc = NULL;   /* its buffer left uninitialised */
  if (mode) {
    wc = &events;
    wc->cpu = cpu;
    wc->mm = mm;
    wc->f = &f;
    f.warm_pos = wc->buf;
    f.warm_end = wc->buf + WARM_EVENTS;
    f.warm_flush = warm_flush;
    f.warm_ctx = wc;
    f.ram = mm->ram;
    f.ram_bytes = mm->ram_bytes;
  }
  for (;;) {
    f.link = NULL;
    jit_run(jc, &f, e);
    if (wc) warm_flush(wc);
    if (f.kind != JIT_EXIT_NEXT || !(code = code_for(cpu, mm, f.pc))) break;
    s = (unsigned)((f.pc & GUEST_PAGE_MASK) >> 2);
    e = code->entry[mode] ? code->entry[mode][s] : NULL;
    if (!e) {
      if (code->heat[s] >= cpu->jit_hot || ++code->heat[s] < cpu->jit_hot) break;
      uint64_t gen = jit_generation(jc);
      if (!(e = jit_block(mm, code, s, mode))) break;
      if (jit_generation(jc) != gen) f.link = NULL;   /* the exit's block is gone */
    }
    /* A link site comes only from a direct branch to this same page. */
    if (f.link) jit_link(f.link, e);
    jit_remember(jc, f.pc, e);
  }
  *npc = f.pc;
  *left -= budget - f.left;
  if (mode) cpu->warm_skipped += budget - f.left;
}

#define AXP_RUN_NAME axp_run
#define AXP_TIMED 0
#define AXP_JIT 1
#define AXP_JIT_MODE 0
#include "guest/exec_loop.h"
#undef AXP_RUN_NAME
#undef AXP_TIMED
#undef AXP_JIT
#undef AXP_JIT_MODE
#define AXP_RUN_NAME axp_run_timed
#define AXP_TIMED 1
#define AXP_JIT 0
#include "guest/exec_loop.h"
#undef AXP_RUN_NAME
#undef AXP_TIMED
#undef AXP_JIT

/* ---- the warming build (sampled simulation, docs/sampled.md) ----
 * Functional warming has work only at memory accesses, control transfers
 * and the first instruction of each 64-byte fetch line; CMOV and the NOP
 * forms of BIS and CPYS go to the hook too, which counts their retires as
 * the timing model does. The other instructions, plain operates, skip the
 * hook and are counted in cpu->warm_skipped, which the hook adds to what
 * it saw. */
#define WARM_PLAIN_NONE 0
#define WARM_PLAIN_PAL 0
#define WARM_PLAIN_LDA 1
#define WARM_PLAIN_ILD 0
#define WARM_PLAIN_IST 0
#define WARM_PLAIN_FLD 0
#define WARM_PLAIN_FST 0
#define WARM_PLAIN_IBR 0
#define WARM_PLAIN_FBR 0
#define WARM_PLAIN_JSR 0
#define WARM_PLAIN_MISC 1
#define WARM_PLAIN_RPCC 1
#define WARM_PLAIN_IADD 1
#define WARM_PLAIN_ILOG 1
#define WARM_PLAIN_ISHF 1
#define WARM_PLAIN_CMOV 0
#define WARM_PLAIN_IMUL 1
#define WARM_PLAIN_IMISC 1
#define WARM_PLAIN_FADD 1
#define WARM_PLAIN_FMUL 1
#define WARM_PLAIN_FDIV 1
#define WARM_PLAIN_FSQRT 1
#define WARM_PLAIN_FCMOV 1
#define WARM_PLAIN_MXFPCR 1
#define WARM_PLAIN_ITOF 1
#define WARM_PLAIN_FTOI 1
static const bool warm_plain[XID_COUNT] = {
#define X(id, mn, op, fn, fm, fmt, sub, cls) [AXP_##id] = WARM_PLAIN_##cls && AXP_##id != AXP_BIS && AXP_##id != AXP_CPYS,
#include "isa/alpha.def"
#undef X
};
/* The same for translated code (jit.h), which also knows BIS's and CPYS's
 * NOP forms from their operands. */
static const bool warm_hooked[XID_COUNT] = {
#define X(id, mn, op, fn, fm, fmt, sub, cls) [AXP_##id] = !WARM_PLAIN_##cls || AXP_##id == AXP_BIS || AXP_##id == AXP_CPYS,
#include "isa/alpha.def"
#undef X
  [XID_NOP] = true,
};

static inline bool warm_filter(struct cpu *cpu, const struct axp_ctx *c, struct guest_mm *mm,
                               const struct axp_insn *in, uint64_t pc)
{
  if (warm_plain[in->id] && (pc >> 6) == cpu->warm_line) {
    cpu->warm_skipped++;
    return false;
  }
  cpu->warm_line = pc >> 6;
  return timing_before(cpu, c, mm, in, pc);
}

#define timing_before warm_filter
#define AXP_RUN_NAME axp_run_warm
#define AXP_TIMED 1
#define AXP_JIT 1     /* the warming cache's code describes what it runs */
#define AXP_JIT_MODE 1
#include "guest/exec_loop.h"
#undef timing_before
#undef AXP_RUN_NAME
#undef AXP_TIMED
#undef AXP_JIT
#undef AXP_JIT_MODE
