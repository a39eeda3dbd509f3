/* The functional core's translated code against its interpreter: random
 * Alpha programs (a loop around a body of random instructions from the whole
 * table but VAX: operates with registers and literals, loads and stores at
 * random offsets, aligned or not, IEEE operates with random qualifiers on
 * special values, branches forward within the body, jumps through a
 * register, rduniq/wruniq, LL/SC, rpcc, traps) run twice from the same
 * state, once translated (jit_hot 1 to 3: from the first arrival at a block
 * start or after a few) and once interpreted (jit_hot 0), under the same budget, which is sometimes smaller
 * than the program. The interpreter is the oracle (itself checked against
 * qemu-alpha by the guest tests): the stop, pc, every register, the FP
 * control, the instruction count, the trap, the unaligned fix-ups and the
 * data pages must be the same. Then the warming build (axp_run_warm), whose
 * translated code describes loads, stores, control transfers and fetch
 * lines to the machine itself (jit.h): run translated and interpreted under
 * a hook that records what is described, with the room for translated code
 * drawn at random, both runs must describe the same accesses (pc, address,
 * frame), branches (pc, direction, target), CMOVs, NOP forms and fetch-line
 * changes in the same order, and count every instruction once (hooked, or
 * skipped, which includes those translated code described; a trapping
 * instruction may be described and does not retire).
 * Seeded: the same programs every run. */
#include "check.h"
#include "guest/cpu.h"
#include "guest/jit.h"
#include "guest/mem.h"
#include "guest/phys.h"
#include "isa/disasm.h"
#include "isa/fp.h"
#include "isa/isa.h"
#include <stdlib.h>
#include <string.h>

#define CODE 0x10000000ull
#define DATA 0x20000000ull
#define DATA_PAGES 4
#define PROGRAMS 3000

static uint64_t rng;
static uint64_t rnd(void)
{
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return rng;
}
static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

/* The table, for encodings. */
struct row { unsigned id, op, fn, fmask, fmt, sub; };
static const struct row rows[] = {
#define X(id, mn, op, fn, fm, fmt, sub, cls) { AXP_##id, op, fn, fm, AXP_FMT_##fmt, AXP_SUB_##sub },
#include "isa/alpha.def"
#undef X
};
#define NROWS (sizeof rows / sizeof rows[0])

static uint32_t opr(unsigned op, unsigned fn, unsigned ra, unsigned rb, unsigned rc)
{
  return op << 26 | ra << 21 | rb << 16 | fn << 5 | rc;
}
static uint32_t opl(unsigned op, unsigned fn, unsigned ra, unsigned lit, unsigned rc)
{
  return op << 26 | ra << 21 | lit << 13 | 1u << 12 | fn << 5 | rc;
}
static uint32_t mem(unsigned op, unsigned ra, unsigned rb, int disp)
{
  return op << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xFFFF);
}
static uint32_t bra(unsigned op, unsigned ra, int disp)
{
  return op << 26 | ra << 21 | ((uint32_t)disp & 0x1FFFFF);
}

/* Registers the body writes: r1-r8 (and $31); r9, r10 hold data addresses,
 * r11 a jump target, r12 the code's base, r13 the loop count. */
static unsigned dest(void) { return below(10) ? 1 + below(8) : 31; }
static unsigned src(void) { return below(8) ? below(14) : 31; }
static unsigned fdest(void) { return below(10) ? 1 + below(8) : 31; }
static unsigned fsrc(void) { return below(10) ? below(10) : 31; }

/* One random instruction at body slot i of n (the loop's tail at n); may
 * take two slots (a jump through r11), returned in *used. */
static void body_insn(uint32_t *w, unsigned i, unsigned n, unsigned *used)
{
  *used = 1;
  for (;;) {
    const struct row *r = &rows[below(NROWS)];
    if (r->sub == AXP_SUB_VAX || r->id == AXP_INVALID) continue;
    unsigned fwd = i + 1 + below(n - i);   /* a forward target in the body or the tail */
    int disp = (int)fwd - (int)(i + 1);
    switch (r->fmt) {
    case AXP_FMT_PAL: {
      static const unsigned fn[] = { 0x9E, 0x9F, 0x9E, 0x9F, 0xAA, 0x86 };  /* rduniq wruniq gentrap imb */
      w[0] = fn[below(6)];
      return;
    }
    case AXP_FMT_MEM: case AXP_FMT_FMEM: {
      if (r->id == AXP_LDA || r->id == AXP_LDAH) {
        w[0] = mem(r->op, dest(), src(), (int)(rnd() & 0xFFFF) - 0x8000);
        return;
      }
      bool fp = r->fmt == AXP_FMT_FMEM;
      bool store = r->id == AXP_STB || r->id == AXP_STW || r->id == AXP_STL || r->id == AXP_STQ ||
                   r->id == AXP_STQ_U || r->id == AXP_STL_C || r->id == AXP_STQ_C ||
                   r->id == AXP_STS || r->id == AXP_STT;
      unsigned ra = store ? (fp ? fsrc() : src()) : (fp ? fdest() : dest());
      int d = (int)below(0x1000) - 0x800;
      if (below(4)) d &= ~7;                 /* mostly aligned */
      w[0] = mem(r->op, ra, 9 + below(2), d);
      return;
    }
    case AXP_FMT_MFC:
      w[0] = r->op << 26 | dest() << 21 | src() << 16 | r->fn;
      return;
    case AXP_FMT_BRA:
      if (r->id == AXP_BR || r->id == AXP_BSR) {
        if (below(3)) continue;             /* fewer unconditional branches */
        w[0] = bra(r->op, dest(), disp);
      } else {
        w[0] = bra(r->op, src(), disp);
      }
      return;
    case AXP_FMT_FBRA:
      w[0] = bra(r->op, fsrc(), disp);
      return;
    case AXP_FMT_JMP:
      if (i + 1 >= n) continue;
      /* lda r11, target(r12); jmp Ra, (r11) */
      fwd = i + 2 + below(n - i - 1);
      w[0] = mem(0x08, 11, 12, (int)(4 * (1 + fwd)));
      w[1] = r->op << 26 | dest() << 21 | 11u << 16 | r->fn << 14;
      *used = 2;
      return;
    case AXP_FMT_OPR:
      if (below(3) == 0) w[0] = opl(r->op, r->fn, src(), (unsigned)below(256), dest());
      else w[0] = opr(r->op, r->fn, src(), src(), dest());
      return;
    case AXP_FMT_FPO: case AXP_FMT_ITOF: case AXP_FMT_FTOI: {
      /* Qualifiers in the bits the row leaves free: mostly /su or /sui
       * (no trap for a disabled exception), sometimes anything. */
      unsigned q = (below(5) ? (below(2) ? 0x500u : 0x700u) : (unsigned)below(8) << 8) | (unsigned)below(4) << 6;
      unsigned fn = (r->fn | (q & ~r->fmask)) & 0x7FF;
      unsigned ra = r->fmt == AXP_FMT_ITOF ? src() : fsrc();
      unsigned rc = r->fmt == AXP_FMT_FTOI ? dest() : fdest();
      w[0] = r->op << 26 | ra << 21 | fsrc() << 16 | fn << 5 | rc;
      return;
    }
    default:
      continue;
    }
  }
}

/* Writes a program: r13 = k; body; r13 -= 1; bne r13, body; callsys. */
static unsigned gen(uint32_t *w)
{
  unsigned n = 1 + below(60), k = 1 + below(10), at = 0;
  w[at++] = mem(0x08, 13, 31, (int)k);
  while (at < 1 + n) {
    unsigned used;
    uint32_t two[2];
    body_insn(two, at - 1, n, &used);
    if (at + used > 1 + n) continue;
    for (unsigned j = 0; j < used; j++) w[at++] = two[j];
  }
  w[at++] = opl(0x10, 0x29, 13, 1, 13);                 /* subq r13, 1, r13 */
  w[at] = bra(0x3D, 13, (int)1 - (int)(at + 1));        /* bne r13, body */
  at++;
  w[at++] = AXP_PAL_CALLSYS;
  return at;
}

/* What the warming build described, folded into hashes. */
struct rec {
  uint64_t ev, nev;         /* the significant instructions (below) */
  uint64_t lines, nlines;   /* the fetch-line changes */
  uint64_t last_line;
  uint64_t hooks, told;     /* cpu_timing.before and .warm calls */
  uint64_t rng;             /* draws the room */
  struct guest_mm *mm;      /* for the frames: each run has its own */
};

struct state {
  struct guest_mm *mm;
  struct axp_ctx c;
  struct cpu cpu;
  struct rec rec;
  struct cpu_timing timing;
};

static const uint64_t fspecial[] = {
  0, 0x8000000000000000ull, 0x3FF0000000000000ull, 0xBFF8000000000000ull, 0x7FF0000000000000ull,
  0xFFF0000000000000ull, 0x7FF8000000000000ull, 0x7FF4000000000000ull, 0x0000000000000001ull,
  0x000FFFFFFFFFFFFFull, 0x7FEFFFFFFFFFFFFFull, 0x4330000000000000ull, 0x43E0000000000000ull,
  0xC3E0000000000000ull, 0x3E9ABCDEF0000000ull,
};

static bool setup(struct state *s, struct physmem *ram, const uint32_t *code, unsigned len,
                  uint64_t seed, unsigned hot)
{
  memset(s, 0, sizeof *s);
  if (!(s->mm = mm_create(ram))) return false;
  axp_mm_init(s->mm);
  if (mm_map(s->mm, CODE, GUEST_PAGE_SIZE, GUEST_PROT_READ | GUEST_PROT_EXEC) ||
      mm_map(s->mm, DATA, DATA_PAGES * GUEST_PAGE_SIZE, GUEST_PROT_READ | GUEST_PROT_WRITE) ||
      mm_write(s->mm, CODE, code, 4 * len, false))
    return false;
  uint64_t r = seed;
  uint8_t page[GUEST_PAGE_SIZE];
  for (unsigned p = 0; p < DATA_PAGES; p++) {
    for (unsigned i = 0; i < sizeof page; i++) { r = r * 6364136223846793005ull + 1442695040888963407ull; page[i] = (uint8_t)(r >> 56); }
    if (mm_write(s->mm, DATA + p * GUEST_PAGE_SIZE, page, sizeof page, false)) return false;
  }
  for (unsigned i = 0; i < 31; i++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t v = r;
    switch (i % 4) {
    case 0: v = r >> 58; break;                 /* small */
    case 1: v = (uint64_t)(int64_t)(int32_t)(r >> 32); break;
    default: break;
    }
    s->c.r[i] = v;
    s->c.f[i] = i % 3 ? fspecial[(r >> 20) % (sizeof fspecial / sizeof fspecial[0])] : r;
  }
  s->c.r[31] = s->c.f[31] = 0;
  s->c.r[9] = DATA + 0x2000;
  s->c.r[10] = DATA + 0x5000 + (r >> 61);      /* sometimes misaligned */
  s->c.r[12] = CODE;
  s->c.pc = CODE;
  s->c.fpcr = AXP_FPCR_INITIAL;
  s->c.unique = 0x1234;
  s->cpu.jit_hot = (uint8_t)hot;
  return true;
}

static uint64_t fold(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001B3ull + (h >> 29); }

/* What functional warming must be told of: loads and stores (prefetches
 * and unops too), control transfers, CMOV (two retires) and the NOP forms of
 * BIS and CPYS (none); the other instructions only for their fetch line. */
static bool significant(const struct axp_insn *d)
{
  if (d->id == XID_NOP) return true;
  if (d->id >= AXP_NUM_IDS) return false;
  const struct axp_info *ai = &axp_info[d->id];
  if (ai->cls == AXP_CLS_ILD || ai->cls == AXP_CLS_FLD || ai->cls == AXP_CLS_IST || ai->cls == AXP_CLS_FST ||
      ai->cls == AXP_CLS_CMOV)
    return true;
  if (ai->format == AXP_FMT_BRA || ai->format == AXP_FMT_FBRA || ai->format == AXP_FMT_JMP) return true;
  if (d->id == AXP_BIS || d->id == AXP_CPYS)
    return d->ra == 31 && d->rb == 31 && !(d->flags & AXP_F_LIT) && d->rc >= 31;
  return false;
}

static void record(struct rec *r, const struct uarch_insn *ui)
{
  if (ui->pc >> 6 != r->last_line) {
    r->last_line = ui->pc >> 6;
    r->lines = fold(r->lines, r->last_line);
    r->nlines++;
  }
  if (!significant(ui->d)) return;
  const struct axp_info *ai = ui->d->id < AXP_NUM_IDS ? &axp_info[ui->d->id] : NULL;
  uint64_t h = fold(r->ev, ui->pc);
  if (!ai || ai->cls == AXP_CLS_ILD || ai->cls == AXP_CLS_FLD || ai->cls == AXP_CLS_IST || ai->cls == AXP_CLS_FST)
  {
    /* The frame as the page tables have it (the two runs' frames differ). */
    bool fault = false;
    uint64_t pa = mm_phys(r->mm, ui->ea, GUEST_PROT_READ, false, &fault);
    h = fold(fold(h, ui->ea), ui->pa_valid && ui->pa == pa ? ui->pa & GUEST_PAGE_MASK : ~0ull);
  }
  if (ai && (ai->format == AXP_FMT_BRA || ai->format == AXP_FMT_FBRA || ai->format == AXP_FMT_JMP))
    h = fold(fold(h, ui->taken), ui->next_pc);
  r->ev = h;
  r->nev++;
}
static bool rec_before(void *ctx, const struct uarch_insn *ui)
{
  struct rec *r = ctx;
  r->hooks++;
  record(r, ui);
  return false;
}
/* Translated code's events, as the timing model reads them (uarch/ev67.c,
 * ev67_warm_events). */
static void rec_warm(void *ctx, const struct jit_warm_event *ev, size_t n)
{
  struct rec *r = ctx;
  for (size_t i = 0; i < n; i++) {
    const struct axp_insn *d = ev[i].in;
    if (ev[i].id != d->id) r->nev += 1u << 20;   /* (fails the comparison): the id must be its instruction's */
    unsigned f = d->id < AXP_NUM_IDS ? axp_info[d->id].format : AXP_FMT_MEM;
    struct uarch_insn ui = { .pc = ev[i].pc, .d = d, .next_pc = ev[i].pc + 4 };
    if (f == AXP_FMT_BRA || f == AXP_FMT_FBRA || f == AXP_FMT_JMP) {
      ui.taken = ev[i].a != 0;
      if (ui.taken) ui.next_pc = ev[i].b;
    } else {
      ui.ea = ev[i].a;
      ui.pa = ev[i].b;
      ui.pa_valid = true;
    }
    r->told++;
    record(r, &ui);
  }
}
/* Sometimes none, sometimes a few instructions, mostly plenty. */
static uint64_t rec_room(void *ctx)
{
  struct rec *r = ctx;
  r->rng ^= r->rng << 13; r->rng ^= r->rng >> 7; r->rng ^= r->rng << 17;
  unsigned k = (unsigned)(r->rng % 8);
  return k == 0 ? 0 : k < 3 ? r->rng % 40 : UINT64_MAX;
}

/* Prints a program, for a failure. */
static void show(const uint32_t *code, unsigned len)
{
  for (unsigned i = 0; i < len; i++) {
    struct axp_insn d = axp_decode(code[i]);
    char buf[96];
    axp_disasm(&d, CODE + 4 * i, buf, sizeof buf);
    printf("    %llx: %08x  %s\n", (unsigned long long)(CODE + 4 * i), code[i], buf);
  }
}

static bool differ(struct state *a, struct state *b, int sa, int sb);

/* For a failure: the smallest budget at which the two runs differ, and the
 * instruction the interpreter ran last there. */
static void bisect(struct physmem *ram, const uint32_t *code, unsigned len, uint64_t seed, uint64_t budget)
{
  for (uint64_t n = 1; n <= budget; n++) {
    struct state a, b;
    if (!setup(&a, ram, code, len, seed, 1 + (unsigned)(seed % 3)) || !setup(&b, ram, code, len, seed, 0)) return;
    int sa = axp_run(&a.cpu, &a.c, a.mm, n), sb = axp_run(&b.cpu, &b.c, b.mm, n);
    bool d = differ(&a, &b, sa, sb);
    uint64_t pc = b.c.pc;
    mm_put(a.mm);
    mm_put(b.mm);
    pc_counts_free(&a.cpu.unaligned);
    pc_counts_free(&b.cpu.unaligned);
    if (d) {
      printf("    first difference at budget %llu; pc after: %llx (translated) %llx (interpreted)\n",
             (unsigned long long)n, (unsigned long long)a.c.pc, (unsigned long long)pc);
      return;
    }
  }
}

static bool same(struct state *a, struct state *b, int sa, int sb, unsigned prog, uint64_t budget)
{
  char what[96];
  snprintf(what, sizeof what, "program %u, budget %llu", prog, (unsigned long long)budget);
  bool ok = !differ(a, b, sa, sb);
  if (!ok) {
    CHECK(0, "%s: translated and interpreted runs agree (stop %d/%d, pc %llx/%llx, icount %llu/%llu)",
          what, sa, sb, (unsigned long long)a->c.pc, (unsigned long long)b->c.pc,
          (unsigned long long)a->cpu.icount, (unsigned long long)b->cpu.icount);
    for (unsigned i = 0; i < 32; i++)
      if (a->c.r[i] != b->c.r[i] || a->c.f[i] != b->c.f[i])
        printf("    r%u %llx/%llx f%u %llx/%llx\n", i, (unsigned long long)a->c.r[i],
               (unsigned long long)b->c.r[i], i, (unsigned long long)a->c.f[i], (unsigned long long)b->c.f[i]);
  }
  return ok;
}

static bool differ(struct state *a, struct state *b, int sa, int sb)
{
  bool ok = sa == sb && a->c.pc == b->c.pc && a->cpu.icount == b->cpu.icount &&
            !memcmp(a->c.r, b->c.r, sizeof a->c.r) && !memcmp(a->c.f, b->c.f, sizeof a->c.f) &&
            a->c.fpcr == b->c.fpcr && a->c.swcr == b->c.swcr && a->c.unique == b->c.unique &&
            a->c.lock_valid == b->c.lock_valid &&
            a->cpu.unaligned_fixups == b->cpu.unaligned_fixups;
  if (ok && sa == AXP_STOP_TRAP)
    ok = a->cpu.trap.sig == b->cpu.trap.sig && a->cpu.trap.code == b->cpu.trap.code &&
         a->cpu.trap.addr == b->cpu.trap.addr;
  for (unsigned p = 0; ok && p < DATA_PAGES; p++) {
    uint8_t x[GUEST_PAGE_SIZE], y[GUEST_PAGE_SIZE];
    ok = !mm_read(a->mm, DATA + p * GUEST_PAGE_SIZE, x, sizeof x, false) &&
         !mm_read(b->mm, DATA + p * GUEST_PAGE_SIZE, y, sizeof y, false) && !memcmp(x, y, sizeof x);
  }
  return !ok;
}

int main(void)
{
  rng = 0x9E3779B97F4A7C15ull;
  struct physmem *ram = phys_create(64ull << 20);
  if (!ram) { CHECK(0, "RAM"); return check_done(); }
  unsigned agree = 0, translated = 0, traps = 0, budgets = 0, programs = 0, warm_agree = 0, warm_translated = 0;
  uint64_t warm_told = 0;
  uint64_t insns = 0;
  for (unsigned prog = 0; prog < PROGRAMS; prog++) {
    uint32_t code[GUEST_PAGE_INSNS];
    unsigned len = gen(code);
    uint64_t seed = rnd();
    /* The whole program, then a budget that ends it early. */
    uint64_t full = 0;
    for (int pass = 0; pass < 2; pass++) {
      uint64_t budget = pass == 0 ? 100000 : 1 + rnd() % (full + 1);
      struct state a, b;
      /* Translated from the first arrival at a block, or after a few passes
       * of interpreting it. */
      unsigned hot = 1 + (unsigned)(seed % 3);
      if (!setup(&a, ram, code, len, seed, hot) || !setup(&b, ram, code, len, seed, 0)) {
        CHECK(0, "program %u: set-up", prog);
        return check_done();
      }
      int sa = axp_run(&a.cpu, &a.c, a.mm, budget);
      int sb = axp_run(&b.cpu, &b.c, b.mm, budget);
      if (pass == 0) full = b.cpu.icount;
      uint64_t blocks = 0, bytes = 0;
      if (a.mm->jit[0]) jit_counts(a.mm->jit[0], &blocks, &bytes);
      translated += blocks > 0;
      traps += sb == AXP_STOP_TRAP;
      budgets += sb == AXP_STOP_BUDGET;
      insns += b.cpu.icount;
      programs++;
      if (same(&a, &b, sa, sb, prog, budget)) agree++;
      else if (agree == programs - 1 || getenv("TEST_JIT_SHOW")) {
        show(code, len);
        bisect(ram, code, len, seed, budget);
      }
      mm_put(a.mm);
      mm_put(b.mm);
      pc_counts_free(&a.cpu.unaligned);
      pc_counts_free(&b.cpu.unaligned);
      if (agree + 20 < programs) goto out;   /* enough said */
      /* The warming build, translated against interpreted. */
      if (!setup(&a, ram, code, len, seed, hot) || !setup(&b, ram, code, len, seed, 0)) {
        CHECK(0, "program %u: set-up", prog);
        return check_done();
      }
      for (struct state *x = &a; x; x = x == &a ? &b : NULL) {
        x->rec.rng = seed | 1;
        x->rec.last_line = ~0ull;
        x->rec.mm = x->mm;
        x->timing = (struct cpu_timing){ .before = rec_before, .ctx = &x->rec, .room = rec_room, .warm = rec_warm };
        x->cpu.timing = &x->timing;
      }
      sa = axp_run_warm(&a.cpu, &a.c, a.mm, budget);
      sb = axp_run_warm(&b.cpu, &b.c, b.mm, budget);
      blocks = 0;
      if (a.mm->jit[1]) jit_counts(a.mm->jit[1], &blocks, &bytes);
      warm_translated += blocks > 0;
      warm_told += a.rec.told;
      bool w = !differ(&a, &b, sa, sb) && a.rec.ev == b.rec.ev && a.rec.nev == b.rec.nev &&
               a.rec.lines == b.rec.lines && a.rec.nlines == b.rec.nlines &&
               a.rec.hooks + a.cpu.warm_skipped == b.rec.hooks + b.cpu.warm_skipped &&
               a.rec.told <= a.cpu.warm_skipped && !b.rec.told &&
               /* a trapping instruction may have been described (not a fetch
                * from a page that is not executable), and did not retire */
               (b.rec.hooks + b.cpu.warm_skipped == b.cpu.icount ||
                (sb == AXP_STOP_TRAP && b.rec.hooks + b.cpu.warm_skipped == b.cpu.icount + 1));
      warm_agree += w;
      if (!w && warm_agree + 1 == programs) {
        printf("    warming: state %s, hashes %d %d, stops %d/%d\n", differ(&a, &b, sa, sb) ? "differs" : "same",
               a.rec.ev == b.rec.ev, a.rec.lines == b.rec.lines, sa, sb);
        printf("    warming: events %llu/%llu, lines %llu/%llu, hooks %llu/%llu, told %llu, skipped %llu/%llu, "
               "icount %llu/%llu\n", (unsigned long long)a.rec.nev, (unsigned long long)b.rec.nev,
               (unsigned long long)a.rec.nlines, (unsigned long long)b.rec.nlines,
               (unsigned long long)a.rec.hooks, (unsigned long long)b.rec.hooks, (unsigned long long)a.rec.told,
               (unsigned long long)a.cpu.warm_skipped, (unsigned long long)b.cpu.warm_skipped,
               (unsigned long long)a.cpu.icount, (unsigned long long)b.cpu.icount);
        show(code, len);
      }
      mm_put(a.mm);
      mm_put(b.mm);
      pc_counts_free(&a.cpu.unaligned);
      pc_counts_free(&b.cpu.unaligned);
    }
  }
out:
  CHECK_EQ_U64(warm_agree, programs, "warming build: %u runs described the same accesses, branches and fetch lines "
               "translated and interpreted, and counted each instruction once", programs);
  CHECK(warm_translated > programs / 2 && warm_told > 0,
        "most warming runs ran translated code (%u of %u), which described %llu instructions", warm_translated,
        programs, (unsigned long long)warm_told);
  CHECK_EQ_U64(agree, programs, "%u runs of %u random programs (%llu instructions): translated and interpreted agree",
               programs, PROGRAMS, (unsigned long long)insns);
  CHECK(translated > programs / 2, "most runs ran translated code (%u of %u)", translated, programs);
  CHECK(traps > programs / 20 && traps < programs * 3 / 4, "some end in a trap (%u)", traps);
  CHECK(budgets > programs / 4, "some end at the budget (%u)", budgets);
  phys_destroy(ram);
  return check_done();
}
