/* The DWARF unwinder (unwind/unwind.h).
 *
 * Without arguments: hand-made .eh_frame sections whose frames are known by
 * construction (saved return address, frame pointer, outermost frame) and
 * hostile ones (truncated dumps, missing registers, loops, bad CFI, depth).
 *
 * With arguments (tests/scripts/unwind.sh): SYSROOT [-mN] PROG... runs each Alpha
 * program on the machine with a hook before every instruction and the
 * machine's true call stack (guest/shadow.h: a shadow of bsr/jsr and ret,
 * signal frames, threads), samples the
 * registers and the stack every few hundred instructions, unwinds, and
 * compares: every unwind must be the true stack, or a prefix of it marked
 * as truncated. Prints the share of complete unwinds. */
#include "check.h"
#include "guest/os.h"
#include "guest/loader.h"
#include "guest/mem.h"
#include "guest/shadow.h"
#include "unwind/unwind.h"
#include "util/err.h"
#include <dwarf.h>
#include <elf.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- hand-made CFI ---- */

struct buf { uint8_t b[1024]; size_t n; };

static void put(struct buf *b, const void *p, size_t n) { memcpy(b->b + b->n, p, n); b->n += n; }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }

#define EH_VADDR 0x100000ull

/* A CIE ("zR", pcrel sdata4, code align 4, data align -8, RA r26, CFA = r30)
 * followed by extra initial instructions. Returns its offset. */
static size_t cie(struct buf *b, const uint8_t *ins, size_t nins)
{
  size_t at = b->n;
  uint8_t body[64] = { 0, 0, 0, 0, 1, 'z', 'R', 0, 4, 0x78, 26, 1, 0x1b, DW_CFA_def_cfa_register, 30 };
  size_t n = 15;
  if (nins) memcpy(body + n, ins, nins);
  n += nins;
  while ((n + 4) % 8) body[n++] = DW_CFA_nop;
  put32(b, (uint32_t)n);
  put(b, body, n);
  return at;
}

/* An FDE of the CIE at cie_at for [lo, lo + len) with instructions ins. */
static void fde(struct buf *b, size_t cie_at, uint32_t lo, uint32_t len, const uint8_t *ins, size_t nins)
{
  size_t start = b->n;
  uint8_t body[128];
  size_t n = 0;
  uint32_t cptr = (uint32_t)(start + 4 - cie_at);
  memcpy(body, &cptr, 4); n = 4;
  int32_t rel = (int32_t)(lo - (EH_VADDR + start + 4 + n));
  memcpy(body + n, &rel, 4); n += 4;
  memcpy(body + n, &len, 4); n += 4;
  body[n++] = 0;                               /* augmentation length */
  if (nins) memcpy(body + n, ins, nins);
  n += nins;
  while ((n + 4) % 8) body[n++] = DW_CFA_nop;
  put32(b, (uint32_t)n);
  put(b, body, n);
}

/* The fake DSO: F1 [0x1000, +0x100) saves ra at cfa-32 and r15 at cfa-24
 * (frame 32 from 0x1008); F2 [0x2000) keeps ra at cfa-16, r15 at cfa-8
 * and from 0x2010 uses r15 as its CFA register; F3 [0x3000) is outermost
 * (RA undefined, from its CIE); F4 [0x4000) has an unknown opcode; F5
 * [0x5000) finds ra at the CFA itself with no frame; F6 [0x6000) has its
 * CFA below sp. */
static void fake_dso(struct unw *u)
{
  struct buf b = { .n = 0 };
  size_t c1 = cie(&b, NULL, 0);
  static const uint8_t undef26[] = { DW_CFA_undefined, 26 };
  size_t c2 = cie(&b, undef26, sizeof undef26);
  static const uint8_t f1[] = { DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset, 32,
                                DW_CFA_offset | 26, 4, DW_CFA_offset | 15, 3 };
  static const uint8_t f2[] = { DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset, 16,
                                DW_CFA_offset | 26, 2, DW_CFA_offset | 15, 1,
                                DW_CFA_advance_loc | 2, DW_CFA_def_cfa_register, 15 };
  static const uint8_t f4[] = { 0x3f };
  static const uint8_t f5[] = { DW_CFA_offset | 26, 0 };
  static const uint8_t f6[] = { DW_CFA_def_cfa_sf, 30, 2 };
  /* F8: ra at a factored offset of 2^62 + 1 (times -8 overflows int64_t). */
  static const uint8_t f8[] = { DW_CFA_offset | 26, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80,
                                0x80, 0x80, 0x40 };
  fde(&b, c1, 0x1000, 0x100, f1, sizeof f1);
  fde(&b, c1, 0x2000, 0x100, f2, sizeof f2);
  fde(&b, c2, 0x3000, 0x100, NULL, 0);
  fde(&b, c1, 0x4000, 0x100, f4, sizeof f4);
  fde(&b, c1, 0x5000, 0x100, f5, sizeof f5);
  fde(&b, c1, 0x6000, 0x100, f6, sizeof f6);
  fde(&b, c1, 0x8000, 0x100, f8, sizeof f8);
  /* F7: a signal frame (CIE "zRS", return column 64 = pc) whose saved pc,
   * ra and sp lie at cfa+16, +24, +32, as glibc's restorer describes the
   * sigcontext. */
  size_t at = b.n;
  static const uint8_t c3[] = { 0, 0, 0, 0, 1, 'z', 'R', 'S', 0, 4, 0x78, 64, 1, 0x1b,
                                DW_CFA_def_cfa_register, 30,
                                DW_CFA_offset_extended_sf, 64, 0x7e,
                                DW_CFA_offset_extended_sf, 26, 0x7d,
                                DW_CFA_offset_extended_sf, 30, 0x7c, DW_CFA_nop };
  put32(&b, sizeof c3);
  put(&b, c3, sizeof c3);
  fde(&b, at, 0x7000, 0x100, NULL, 0);
  put32(&b, 0);
  CHECK_EQ_U64(unw_dso_add(u, "fake", b.b, b.n, EH_VADDR, NULL, 0, 0), 0, "fake: unw_dso_add");
}

/* Maps [0, 0x10000) of "fake" at run-time 0x20000000 (bias 0x20000000). */
#define BIAS 0x20000000ull
static bool fake_map(void *ctx, uint64_t addr, struct unw_map *m)
{
  (void)ctx;
  if (addr < BIAS || addr >= BIAS + 0x10000) return false;
  *m = (struct unw_map){ "fake", BIAS, 0 };
  return true;
}

#define SP 0x11fff0000ull

static void put64(uint8_t *st, uint64_t off, uint64_t v) { memcpy(st + off, &v, 8); }

static void run(struct unw *u, uint64_t pc, uint64_t mask, const uint64_t *r, const uint8_t *st,
                uint64_t size, unsigned depth, struct unw_result *res)
{
  struct unw_regs regs = { .mask = mask | (1ull << UNW_REG_PC) | (1ull << UNW_REG_SP) };
  for (int i = 0; i < UNW_NREGS; i++) regs.r[i] = r ? r[i] : 0;
  regs.r[UNW_REG_PC] = pc;
  regs.r[UNW_REG_SP] = SP;
  struct unw_stack stack = { st, SP, size };
  unw_unwind(u, &regs, &stack, fake_map, NULL, depth, res);
}

static void test_synthetic(void)
{
  struct unw *u = unw_create(NULL);
  fake_dso(u);
  uint8_t st[256] = { 0 };
  uint64_t r[UNW_NREGS] = { 0 };
  struct unw_result res;
  const uint64_t no_fp = (1ull << 29) - 1 - 0xfe00;   /* r0-r28 but r9-r15 */

  /* F1 (frame 32, ra at sp+0) called from F3, the outermost frame. */
  put64(st, 0, BIAS + 0x3010);
  run(u, BIAS + 0x1050, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_COMPLETE && res.n == 2 && res.pc[0] == BIAS + 0x1050 &&
        res.pc[1] == BIAS + 0x3010, "synthetic: F1 <- F3 complete (status %s, n %u)",
        unw_status_str(res.status), res.n);
  run(u, BIAS + 0x1004, no_fp | (1ull << 26), (uint64_t[UNW_NREGS]){ [26] = BIAS + 0x3020 },
      st, sizeof st, 64, &res);
  CHECK(res.status == UNW_COMPLETE && res.n == 2 && res.pc[1] == BIAS + 0x3020,
        "synthetic: in F1's prologue the return address is still in r26");
  run(u, BIAS + 0x1004, no_fp & ~(1ull << 26), r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_REG && res.n == 1,
        "synthetic: prologue without r26 sampled: truncated, missing register");
  run(u, BIAS + 0x1050, no_fp, r, st, 4, 64, &res);
  CHECK(res.status == UNW_TRUNC_STACK && res.n == 1,
        "synthetic: return address outside a 4-byte dump: truncated (%s)", unw_status_str(res.status));
  run(u, BIAS + 0x1050, no_fp, r, st, sizeof st, 1, &res);
  CHECK(res.status == UNW_TRUNC_DEPTH && res.n == 1, "synthetic: depth limit 1");

  /* F2 with its CFA in r15: unknown when r15 is not sampled... */
  put64(st, 0, BIAS + 0x3010);
  run(u, BIAS + 0x2050, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_REG && res.n == 1 && res.pc[0] == BIAS + 0x2050,
        "synthetic: F2's CFA needs r15, not sampled: truncated after frame 0");
  /* ...known when sampled... */
  r[15] = SP + 64;
  put64(st, 64, BIAS + 0x3030);            /* ra at cfa-16 = r15 + 0 */
  run(u, BIAS + 0x2050, no_fp | (1ull << 15), r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_COMPLETE && res.n == 2 && res.pc[1] == BIAS + 0x3030,
        "synthetic: F2 with r15 sampled: complete");
  /* ...and when a callee (F1) saved it: F1 <- F2 <- F3 without r15. */
  put64(st, 0, BIAS + 0x2044);             /* F1's ra, into F2 */
  put64(st, 8, SP + 64);                   /* F1 saved r15 at cfa-24 */
  run(u, BIAS + 0x1050, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_COMPLETE && res.n == 3 && res.pc[1] == BIAS + 0x2044 &&
        res.pc[2] == BIAS + 0x3030, "synthetic: r15 saved by a callee unwinds F2 (status %s, n %u)",
        unw_status_str(res.status), res.n);

  /* Hostile: a return address to itself at the same sp, a CFA below sp, an
   * unknown opcode, no FDE, no mapping, a return address of 0. */
  put64(st, 0, BIAS + 0x5014);
  run(u, BIAS + 0x5010, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_LOOP && res.n == 2, "synthetic: a frame repeating itself is a loop (%s, n %u)",
        unw_status_str(res.status), res.n);
  run(u, BIAS + 0x6010, no_fp | (1ull << 26), (uint64_t[UNW_NREGS]){ [26] = BIAS + 0x1000 },
      st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_LOOP && res.n == 1, "synthetic: a CFA below sp is a loop");
  run(u, BIAS + 0x4010, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_BADCFI && res.n == 1, "synthetic: unknown CFA opcode is bad CFI");
  run(u, BIAS + 0x9000, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_NOCFI && res.n == 1, "synthetic: no FDE");
  run(u, 0x1234, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_NOMAP && res.n == 1, "synthetic: no mapping");
  put64(st, 0, 0);
  run(u, BIAS + 0x1050, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_COMPLETE && res.n == 1, "synthetic: return address 0 ends the chain");
  /* A return address at (2^62 + 1) * -8 from the CFA: a clear truncation. */
  run(u, BIAS + 0x8010, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_STACK && res.n == 1, "synthetic: a huge factored offset is outside the dump");
  /* Through a signal frame: the interrupted pc is F1's first instruction
   * (looked up as it is: pc - 4 has no FDE), its ra comes from the
   * sigcontext, and the interrupted sp too. */
  memset(st, 0, sizeof st);
  put64(st, 16, BIAS + 0x1000);
  put64(st, 24, BIAS + 0x3040);
  put64(st, 32, SP + 128);
  run(u, BIAS + 0x7010, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_COMPLETE && res.n == 3 && res.pc[1] == BIAS + 0x1000 &&
        res.pc[2] == BIAS + 0x3040, "synthetic: through a signal frame (%s, n %u)",
        unw_status_str(res.status), res.n);
  /* The same F1 <- F3 through .debug_frame (CIE id ~0, absolute addresses,
   * no augmentation) of DSO "df". */
  struct buf df = { .n = 0 };
  static const uint8_t dcie[] = { 0xff, 0xff, 0xff, 0xff, 1, 0, 4, 0x78, 26,
                                  DW_CFA_def_cfa_register, 30, DW_CFA_nop };
  put32(&df, sizeof dcie);
  put(&df, dcie, sizeof dcie);
  static const uint8_t dfde[] = { 0, 0, 0, 0,                          /* CIE at offset 0 */
                                  0x00, 0x10, 0, 0, 0, 0, 0, 0,        /* 0x1000 */
                                  0x00, 0x01, 0, 0, 0, 0, 0, 0,        /* + 0x100 */
                                  DW_CFA_advance_loc | 2, DW_CFA_def_cfa_offset, 32,
                                  DW_CFA_offset | 26, 4, DW_CFA_nop };
  put32(&df, sizeof dfde);
  put(&df, dfde, sizeof dfde);
  static const uint8_t dfde3[] = { 0, 0, 0, 0, 0x00, 0x30, 0, 0, 0, 0, 0, 0, 0x00, 0x01, 0, 0, 0, 0, 0, 0,
                                   DW_CFA_undefined, 26, DW_CFA_nop, DW_CFA_nop };
  put32(&df, sizeof dfde3);
  put(&df, dfde3, sizeof dfde3);
  CHECK_EQ_U64(unw_dso_add(u, "fake", NULL, 0, 0, df.b, df.n, 0), 0, "debug_frame: unw_dso_add");
  memset(st, 0, sizeof st);
  put64(st, 0, BIAS + 0x3010);
  run(u, BIAS + 0x1050, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_COMPLETE && res.n == 2 && res.pc[1] == BIAS + 0x3010,
        "debug_frame: F1 <- F3 complete (%s, n %u)", unw_status_str(res.status), res.n);
  run(u, BIAS + 0x2050, no_fp, r, st, sizeof st, 64, &res);
  CHECK(res.status == UNW_TRUNC_NOCFI && res.n == 1,
        "debug_frame: replacing the DSO dropped its .eh_frame rows (no F2 now)");
  struct unw_regs none = { .mask = 0 };
  unw_unwind(u, &none, NULL, fake_map, NULL, 64, &res);
  CHECK(res.status == UNW_TRUNC_REG && res.n == 0, "synthetic: no PC sampled: nothing");

  unw_destroy(u);
}

/* ---- real programs on the machine ---- */

#define MAXMAP 64
#define DUMP   (64 * 1024)
#define MAXTASK 16

struct probe {
  struct os *os;
  struct unw *u;
  struct { uint64_t start, end, pgoff; char path[512]; } map[MAXMAP];
  int nmap;
  int tids[MAXTASK];             /* threads seen */
  int ntid;
  uint64_t icount, every;
  uint64_t dump;                 /* stack bytes copied: DUMP, or $UNWIND_DUMP (perf's default: 8192) */
  uint8_t stack[DUMP];
  uint64_t ret[SHADOW_MAX];      /* the true return addresses, innermost first */
  /* results, per register mask: [0] r0-r30 sampled, [1] without r9-r15 */
  uint64_t samples[2], complete[2], trunc[2][UNW_NSTATUS], wrong[2], frames[2];
  uint64_t first_wrong_pc;
  uint64_t ns[2];                /* host time in unw_unwind: a figure, never checked */
};

static bool probe_map(void *ctx, uint64_t addr, struct unw_map *m)
{
  struct probe *p = ctx;
  for (int i = p->nmap; i-- > 0;)
    if (addr >= p->map[i].start && addr < p->map[i].end) {
      *m = (struct unw_map){ p->map[i].path, p->map[i].start, p->map[i].pgoff };
      return true;
    }
  return false;
}

static void probe_task(void *ctx, const struct task_event *e)
{
  struct probe *p = ctx;
  if (e->kind == TEV_EXEC) p->nmap = 0;
  if (e->kind != TEV_MMAP || p->nmap == MAXMAP) return;
  p->map[p->nmap].start = e->addr;
  p->map[p->nmap].end = e->addr + e->len;
  p->map[p->nmap].pgoff = e->pgoff;
  snprintf(p->map[p->nmap].path, sizeof p->map[0].path, "%s", e->path);
  p->nmap++;
}

/* Unwinds the state before the instruction at pc and checks it against the
 * shadow stack, with mask k. */
static void probe_sample(struct probe *p, const uint64_t *ret, int depth, struct task *t, uint64_t pc,
                         int k, uint64_t mask, uint64_t size)
{
  struct unw_regs regs = { .mask = mask | (1ull << UNW_REG_PC) };
  memcpy(regs.r, t->ctx.r, 31 * sizeof regs.r[0]);
  regs.r[UNW_REG_PC] = pc;
  struct unw_stack st = { p->stack, t->ctx.r[30], size };
  struct unw_result res;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unw_unwind(p->u, &regs, &st, probe_map, p, UNW_MAX_DEPTH, &res);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  p->ns[k] += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec));
  p->samples[k]++;
  p->frames[k] += res.n;
  bool ok = res.n >= 1 && res.n <= (unsigned)depth + 1;
  for (unsigned i = 1; ok && i < res.n; i++) ok = res.pc[i] == ret[i - 1];
  if (ok && res.status == UNW_COMPLETE) ok = res.n == (unsigned)depth + 1;
  if (getenv("UNWIND_DEBUG") && k == atoi(getenv("UNWIND_DEBUG")) && (!ok || res.status != UNW_COMPLETE)) {
    printf("debug: %s %s depth %d:", ok ? "ok" : "WRONG", unw_status_str(res.status), depth);
    for (unsigned i = 0; i < res.n; i++) printf(" %" PRIx64, res.pc[i]);
    printf(" | true %" PRIx64, pc);
    for (int i = 0; i < depth; i++) printf(" %" PRIx64, ret[i]);
    printf("\n");
  }
  if (!ok) {
    if (!p->wrong[k] && k == 0) p->first_wrong_pc = pc;
    p->wrong[k]++;
  } else if (res.status == UNW_COMPLETE) {
    p->complete[k]++;
  } else {
    p->trunc[k][res.status]++;
  }
}

/* Before each instruction (the machine's shadow, guest/shadow.h, is
 * stepped after this hook: it holds the stack before the instruction). */
static bool probe_before(void *ctx, const struct uarch_insn *ui)
{
  struct probe *p = ctx;
  struct task *t = p->os->current;
  if (!t) return false;
  int known = 0;
  for (int i = 0; i < p->ntid; i++) known |= p->tids[i] == t->tid;
  if (!known && p->ntid < MAXTASK) p->tids[p->ntid++] = t->tid;
  if (++p->icount % p->every != 0) return false;
  int depth = shadow_read(t, p->ret, SHADOW_MAX);
  if (depth <= 0) return false;
  /* The dump: from sp up, at most p->dump bytes, less where the stack's
   * mapping ends (a thread's stack is not below GUEST_STACK_TOP). */
  uint64_t sp = t->ctx.r[30], size = 0;
  while (size < p->dump) {         /* page by page, up to the first unmapped one */
    uint64_t chunk = GUEST_PAGE_SIZE - ((sp + size) & (GUEST_PAGE_SIZE - 1));
    if (chunk > p->dump - size) chunk = p->dump - size;
    if (mm_read(t->mm, sp + size, p->stack + size, chunk, false) != 0) break;
    size += chunk;
  }
  const uint64_t all = (1ull << 31) - 1, sampleable = all & ~0xfe00ull;
  probe_sample(p, p->ret, depth, t, ui->pc, 0, all, size);
  probe_sample(p, p->ret, depth, t, ui->pc, 1, sampleable, size);
  return false;
}

/* ---- code without CFI: ld.so's lazy-binding stub ---- */

/* glibc 2.36's _dl_runtime_resolve_new (Debian's alpha ld.so, which has no
 * FDE for it) after a ret and padding: ldgp, a 112-byte frame, ra saved at
 * 0(sp), the call to _dl_fixup, ra and sp restored, jmp. */
static const uint32_t resolve_stub[] = {
  0x6bfa8001, 0x47ff041f, 0x2ffe0000,     /* 0x00 ret; nop; unop */
  0x27bb0003,                             /* 0x0c ldah gp,3(t12) */
  0x23deff90,                             /* 0x10 lda sp,-112(sp) */
  0xb75e0000,                             /* 0x14 stq ra,0(sp) */
  0xb61e0010,                             /* 0x18 stq a0,16(sp) */
  0xd3400040,                             /* 0x1c bsr ra,_dl_fixup */
  0x47e0041b,                             /* 0x20 mov v0,t12 */
  0xa75e0000,                             /* 0x24 ldq ra,0(sp) */
  0xa61e0010,                             /* 0x28 ldq a0,16(sp) */
  0x23de0070,                             /* 0x2c lda sp,112(sp) */
  0x6bfb0000,                             /* 0x30 jmp (t12) */
};

/* Writes an ELF file whose one PT_LOAD (vaddr = file offset) holds four
 * copies of the stub: as it is at 0x100; at 0x200 after an add instead of
 * the padding (no routine start); at 0x300 with a branch back to 0x314
 * before its jmp; at 0x400 storing a0 over ra's slot. */
static bool stub_file(char *path)
{
  _Alignas(8) uint8_t img[0x500] = { 0 };
  Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
  memcpy(eh->e_ident, ELFMAG, SELFMAG);
  eh->e_ident[EI_CLASS] = ELFCLASS64;
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_ident[EI_VERSION] = EV_CURRENT;
  eh->e_type = ET_DYN;
  eh->e_machine = EM_ALPHA;
  eh->e_version = EV_CURRENT;
  eh->e_phoff = sizeof *eh;
  eh->e_ehsize = sizeof *eh;
  eh->e_phentsize = sizeof(Elf64_Phdr);
  eh->e_phnum = 1;
  Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof *eh);
  *ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = sizeof img, .p_memsz = sizeof img,
                      .p_align = 0x10000 };
  for (int c = 1; c <= 4; c++) memcpy(img + 0x100 * c, resolve_stub, sizeof resolve_stub);
  static const uint32_t add = 0x40220401;          /* addq t0,t1,t0 */
  memcpy(img + 0x208, &add, 4);
  static const uint32_t bne = 0xf43ffff8;          /* bne t0,.-28 (0x314) */
  memcpy(img + 0x330, &bne, 4);
  memcpy(img + 0x334, &resolve_stub[12], 4);
  static const uint32_t clobber = 0xb61e0000;      /* stq a0,0(sp) */
  memcpy(img + 0x418, &clobber, 4);
  int fd = mkstemp(path);
  if (fd < 0) return false;
  bool ok = write(fd, img, sizeof img) == (ssize_t)sizeof img;
  close(fd);
  return ok;
}

static const char *stub_path;
static bool stub_map(void *ctx, uint64_t addr, struct unw_map *m)
{
  (void)ctx;
  if (addr < BIAS || addr >= BIAS + 0x500) return false;
  *m = (struct unw_map){ stub_path, BIAS, 0 };
  return true;
}

static void stub_run(struct unw *u, uint64_t pc, uint64_t ra, const uint8_t *st, struct unw_result *res)
{
  struct unw_regs regs = { .mask = (1ull << 29) - 1 - 0xfe00 + (1ull << UNW_REG_PC) + (1ull << UNW_REG_SP) };
  regs.r[26] = ra;
  regs.r[UNW_REG_PC] = BIAS + pc;
  regs.r[UNW_REG_SP] = SP;
  struct unw_stack stack = { st, SP, 256 };
  unw_unwind(u, &regs, &stack, stub_map, NULL, 8, res);
}

/* The stub's rule comes from its code: the caller's return address is in
 * ra at the entry and after the reload, at 0(sp) in between; code that is
 * not that shape keeps "no CFI". R is the caller's return address (no map
 * covers it: the chain ends there as "no mapping"). */
static void test_stub(void)
{
  char path[] = "/tmp/test_unwind_stub.XXXXXX";
  CHECK(stub_file(path), "stub: ELF file written");
  stub_path = path;
  struct unw *u = unw_create(NULL);
  uint8_t st[256] = { 0 };
  const uint64_t R = 0x30000010, junk = BIAS + 0x120;
  put64(st, 0, R);
  struct unw_result res;
  static const struct { uint32_t pc; uint64_t ra; const char *what; } ok[] = {
    { 0x10c, R, "at the entry (ra in its register)" },
    { 0x118, 0, "past the frame's allocation and ra's store" },
    { 0x11c, 0, "at the call to _dl_fixup" },
    { 0x124, junk, "after the call (ra clobbered, its slot holds it)" },
    { 0x12c, R, "after ra's reload" },
    { 0x130, R, "after sp's restore" },
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    stub_run(u, ok[i].pc, ok[i].ra, st, &res);
    CHECK(res.n == 2 && res.pc[1] == R && res.status == UNW_TRUNC_NOMAP, "stub: %s: caller found (n %u, %s)",
          ok[i].what, res.n, unw_status_str(res.status));
  }
  /* Frame 1: _dl_fixup (a leaf here: ra in its register) returned to 0x120. */
  stub_run(u, 0x120, 0, st, &res);
  CHECK(res.n == 2 && res.pc[1] == R, "stub: from after the call");
  stub_run(u, 0x218, 0, st, &res);
  CHECK(res.n == 1 && res.status == UNW_TRUNC_NOCFI, "stub: no routine start before it: no CFI (%s)",
        unw_status_str(res.status));
  stub_run(u, 0x318, 0, st, &res);
  CHECK(res.n == 1 && res.status == UNW_TRUNC_NOCFI, "stub: a branch back before its end: no CFI (%s)",
        unw_status_str(res.status));
  stub_run(u, 0x41c, 0, st, &res);
  CHECK(res.n == 1 && res.status == UNW_TRUNC_NOCFI, "stub: ra's slot overwritten: no CFI (%s)",
        unw_status_str(res.status));
  unw_destroy(u);
  unlink(path);
}

static void test_program(const char *sysroot, const char *path, unsigned min_sampleable)
{
  struct probe *p = calloc(1, sizeof *p);
  struct os_opts oo = { .sysroot = sysroot, .seed = 1 };
  p->os = os_create(&oo);
  p->u = unw_create(NULL);
  p->every = 211;
  p->dump = getenv("UNWIND_DUMP") ? strtoull(getenv("UNWIND_DUMP"), NULL, 0) : DUMP;
  if (p->dump > DUMP) p->dump = DUMP;
  os_shadow_enable(p->os);
  p->os->hooks.task = probe_task;
  p->os->hooks.ctx = p;
  struct cpu_timing hook = { .before = probe_before, .ctx = p };
  p->os->cpus[0].timing = &hook;
  p->os->log = fopen("/dev/null", "w");
  char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
  char detail[256] = "";
  int rc = os_spawn(p->os, path, 1, argv, envp, detail, sizeof detail);
  CHECK_EQ_U64(rc, 0, "%s: spawn (%s)", path, detail);
  if (rc == 0) {
    os_announce(p->os, p->os->tasks);
    os_run(p->os);
  }
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  for (int k = 0; k < 2; k++) {
    const char *what = k ? "r9-r15 not sampled" : "r0-r30 sampled";
    uint64_t n = p->samples[k];
    printf("unwind %s (%s, %d threads): %" PRIu64 " samples, %" PRIu64 " complete (%.1f%%), %.1f frames/sample,"
           " %.1f us/sample; truncated:", name, what, p->ntid, n, p->complete[k],
           n ? 100.0 * p->complete[k] / n : 0.0, n ? (double)p->frames[k] / n : 0.0,
           n ? p->ns[k] / 1000.0 / n : 0.0);
    for (int s = 1; s < UNW_NSTATUS; s++)
      if (p->trunc[k][s]) printf(" %s %" PRIu64, unw_status_str(s), p->trunc[k][s]);
    printf("\n");
    CHECK(n > 100, "%s (%s): samples taken", name, what);
    CHECK_EQ_U64(p->wrong[k], 0, "%s (%s): no wrong frame (first at pc 0x%" PRIx64 ")", name, what,
                 p->first_wrong_pc);
  }
  /* Below the measured shares (docs/callgraph.md), to catch regressions. */
  CHECK(p->samples[0] && p->complete[0] * 100 >= p->samples[0] * 95,
        "%s: at least 95%% of unwinds complete with r0-r30", name);
  CHECK(p->samples[1] && p->complete[1] * 100 >= p->samples[1] * min_sampleable,
        "%s: at least %u%% of unwinds complete without r9-r15", name, min_sampleable);
  fclose(p->os->log);
  p->os->log = stderr;
  os_destroy(p->os);
  unw_destroy(p->u);
  free(p);
}

int main(int argc, char **argv)
{
  if (argc < 3) {
    test_synthetic();
    test_stub();
    return check_done();
  }
  /* "-mN": the programs after it must unwind completely without r9-r15 in
   * N% of the samples (default 60; code with a frame pointer needs r15). */
  unsigned min_sampleable = 60;
  for (int i = 2; i < argc; i++) {
    if (!strncmp(argv[i], "-m", 2)) min_sampleable = (unsigned)atoi(argv[i] + 2);
    else test_program(argv[1], argv[i], min_sampleable);
  }
  return check_done();
}
