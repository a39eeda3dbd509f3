/* The interpreter loop, included twice by exec.c: once as axp_run
 * (functional only) and once as axp_run_timed (AXP_TIMED: the timing hook runs
 * before every instruction). One source, two builds, so the functional path
 * pays nothing for timing. AXP_JIT (the functional build) also runs hot
 * blocks as translated code: at each taken branch and page change it looks
 * for the block starting there (JIT_CHECK); after translated code returns,
 * the instruction it returned at is interpreted first (`resume`). */
int AXP_RUN_NAME(struct cpu *cpu, struct axp_ctx *c, struct guest_mm *mm, uint64_t budget)
{
  static const void *const labels[XID_COUNT] = {
    [AXP_INVALID] = &&L_UNDECODED,
  /* VAX rows decode for the disassembler only; predecode makes them illegal. */
#define LBL_BASE(id) &&L_##id
#define LBL_BWX(id) &&L_##id
#define LBL_FIX(id) &&L_##id
#define LBL_CIX(id) &&L_##id
#define LBL_MVI(id) &&L_##id
#define LBL_VAX(id) &&L_ILLEGAL
#define X(id, mn, op, fn, fm, fmt, sub, cls) [AXP_##id] = LBL_##sub(id),
#include "isa/alpha.def"
#undef X
    [XID_PAGE_END] = &&L_PAGE_END,
    [XID_ILLEGAL] = &&L_ILLEGAL,
    [XID_NOP] = &&L_NOP,
  };
  uint64_t *r = c->r, *f = c->f;
  uint64_t left = budget, npc = c->pc, page;
  struct guest_code *code;
  const struct axp_insn *in;
  int stop;
  bool after_jit;   /* entering npc from translated code (AXP_JIT) */

#define PC() (page + ((uint64_t)(in - code->in) << 2))
#if AXP_TIMED
  /* The timing build: describe the instruction to the timing model before it
   * commits; it may ask for an interrupt at this boundary. */
#define DISPATCH() do { \
    if (__builtin_expect(left == 0, 0)) goto stop_budget; \
    if (in->id != XID_PAGE_END) { \
      if (!(in->flags & DECODED)) predecode_slot(code, in); \
      if (timing_before(cpu, c, mm, in, PC())) goto stop_interrupt; } \
    left--; goto *labels[in->id]; } while (0)
#else
#define DISPATCH() do { \
    if (__builtin_expect(left == 0, 0)) goto stop_budget; \
    left--; goto *labels[in->id]; } while (0)
#endif
#define NEXT() do { in++; DISPATCH(); } while (0)
#if AXP_JIT
  /* At a block start: its translated code if any, or count the arrival. */
#define JIT_CHECK() do { unsigned s_ = (unsigned)(in - code->in); \
    if ((code->entry[AXP_JIT_MODE] && code->entry[AXP_JIT_MODE][s_]) || \
        (code->heat[s_] < cpu->jit_hot && ++code->heat[s_] == cpu->jit_hot)) goto jit; } while (0)
#else
#define JIT_CHECK() do { } while (0)
#endif
#define JUMP(target) do { uint64_t t_ = (target); \
    if ((t_ & ~GUEST_PAGE_MASK) == page) { \
      in = code->in + ((t_ & GUEST_PAGE_MASK) >> 2); JIT_CHECK(); DISPATCH(); } \
    npc = t_; goto new_page; } while (0)
#define RA r[in->ra]
#define RC r[in->rc]
#define RBV (in->flags & AXP_F_LIT ? (uint64_t)(uint32_t)in->imm : r[in->rb])
#define EA (r[in->rb] + (uint64_t)(int64_t)in->imm)
#define OP(expr) do { RC = (expr); NEXT(); } while (0)
#define TRAP_HERE() do { npc = PC(); goto stop_trap; } while (0)
#define TRAP_AFTER() do { npc = PC() + 4; goto stop_trap; } while (0)
  /* Loads and stores: TLB hit inline, else the slow path (which may skip the
   * instruction under UAC_NOFIX or raise a trap). */
#define LOAD(size, type, locked, assign) do { \
    uint64_t a_ = EA; type v_; \
    const uint8_t *h_ = mm_tlb_read(mm, a_, size); \
    if (__builtin_expect(h_ != NULL, 1)) memcpy(&v_, h_, size); \
    else { int s_ = slow_load(cpu, c, mm, a_, size, PC(), locked, &v_); \
      if (s_ < 0) { TRAP_HERE(); } else if (s_ > 0) { NEXT(); } } \
    assign; NEXT(); } while (0)
#define STORE(size, type, locked, value) do { \
    uint64_t a_ = EA; type v_ = (type)(value); \
    uint8_t *h_ = mm_tlb_write(mm, a_, size); \
    if (__builtin_expect(h_ != NULL, 1)) memcpy(h_, &v_, size); \
    else { int s_ = slow_store(cpu, c, mm, a_, size, PC(), locked, &v_); \
      if (s_ < 0) TRAP_HERE(); } } while (0)

new_page:
  after_jit = false;
enter: __attribute__((unused));   /* reached by goto only with AXP_JIT */
  page = npc & ~GUEST_PAGE_MASK;
  code = code_for(cpu, mm, npc);
  if (!code) {
    /* Instruction fetch from a page that is not executable: SIGSEGV at pc. */
    data_fault(cpu, mm, npc);
    stop = AXP_STOP_TRAP;
    goto out;
  }
  in = code->in + ((npc & GUEST_PAGE_MASK) >> 2);
  /* After translated code, npc's instruction is interpreted before any
   * block is looked for: translated code returns there when it cannot run
   * that instruction. */
  if (!after_jit) JIT_CHECK();
  DISPATCH();

#if AXP_JIT
jit:
  npc = PC();
  jit_go(cpu, mm, c, code, &npc, &left, AXP_JIT_MODE);
  after_jit = true;
  goto enter;
#endif

L_UNDECODED:
  if (!(in->flags & DECODED)) {
    predecode_slot(code, in);
    goto *labels[in->id];
  }
  /* fall through: cannot happen (decoded slots never keep id 0) */
L_ILLEGAL:
  set_trap(cpu, GSIG_ILL, ILL_ILLOPC, PC() + 4, 0);   /* regs->pc is past it (traps.c) */
  TRAP_AFTER();
L_PAGE_END:
  left++;   /* the sentinel is not an instruction */
  npc = page + GUEST_PAGE_SIZE;
  goto new_page;
L_NOP: NEXT();

  /* ---- PALcode ---- */
L_CALL_PAL:
  switch (in->imm) {
  case AXP_PAL_CALLSYS: npc = PC() + 4; stop = AXP_STOP_CALLSYS; goto out;
  case AXP_PAL_RDUNIQ: r[0] = c->unique; NEXT();
  case AXP_PAL_WRUNIQ: c->unique = r[16]; NEXT();
  case AXP_PAL_IMB: mm_code_flush(mm); NEXT();
  case AXP_PAL_CLRFEN: NEXT();
  case AXP_PAL_BPT: set_trap(cpu, GSIG_TRAP, TRAP_BRKPT, PC() + 4, 0); TRAP_AFTER();
  case AXP_PAL_BUGCHK: set_trap(cpu, GSIG_TRAP, TRAP_UNK, PC() + 4, 0); TRAP_AFTER();
  case AXP_PAL_GENTRAP: gentrap(cpu, (int64_t)r[16], PC() + 4); TRAP_AFTER();
  default: goto L_ILLEGAL;
  }

  /* ---- memory format ---- */
L_LDA: RA = EA; NEXT();
L_LDAH: RA = EA; NEXT();
L_LDBU: LOAD(1, uint8_t, false, RA = v_);
L_LDWU: LOAD(2, uint16_t, false, RA = v_);
L_LDL: LOAD(4, int32_t, false, RA = (uint64_t)(int64_t)v_);
L_LDQ: LOAD(8, uint64_t, false, RA = v_);
L_LDQ_U: {
    uint64_t a = EA & ~7ull; uint64_t v;
    const uint8_t *h = mm_tlb_read(mm, a, 8);
    if (h) memcpy(&v, h, 8);
    else if (mm_read(mm, a, &v, 8, true)) { data_fault(cpu, mm, a); TRAP_HERE(); }
    RA = v; NEXT();
  }
L_LDL_L: {
    uint64_t a = EA;
    c->lock_addr = a; c->lock_valid = true; c->lock_size = 4;
    LOAD(4, int32_t, true, RA = (uint64_t)(int64_t)v_; c->lock_value = (uint32_t)v_);
  }
L_LDQ_L: {
    uint64_t a = EA;
    c->lock_addr = a; c->lock_valid = true; c->lock_size = 8;
    LOAD(8, uint64_t, true, RA = v_; c->lock_value = v_);
  }
L_STB: STORE(1, uint8_t, false, RA); NEXT();
L_STW: STORE(2, uint16_t, false, RA); NEXT();
L_STL: STORE(4, uint32_t, false, RA); NEXT();
L_STQ: STORE(8, uint64_t, false, RA); NEXT();
L_STQ_U: {
    uint64_t a = EA & ~7ull, v = RA;
    uint8_t *h = mm_tlb_write(mm, a, 8);
    if (h) memcpy(h, &v, 8);
    else if (slow_store(cpu, c, mm, a, 8, PC(), false, &v) < 0) TRAP_HERE();
    NEXT();
  }
L_STL_C: L_STQ_C: {
    unsigned size = in->id == AXP_STL_C ? 4 : 8;
    uint64_t a = EA;
    if (a & (size - 1)) { set_trap(cpu, GSIG_BUS, BUS_ADRALN, a, 0); TRAP_HERE(); }
    /* Another CPU's store to the locked block clears the lock flag. CPUs run
     * in turns, so a store made while this one waited shows as a changed
     * value at the locked address (qemu's cmpxchg reading of ll/sc; a store
     * of the same value goes unseen). */
    bool ok = c->lock_valid && (c->lock_addr & ~15ull) == (a & ~15ull) && lock_intact(mm, c);
    c->lock_valid = false;
    if (ok) {
      if (size == 4) STORE(4, uint32_t, true, RA);
      else STORE(8, uint64_t, true, RA);
    }
    if (in->ra != 31) RA = ok;
    NEXT();
  }
L_LDS: LOAD(4, uint32_t, false, f[in->ra] = axp_fp_lds(v_));
L_LDT: LOAD(8, uint64_t, false, f[in->ra] = v_);
L_STS: STORE(4, uint32_t, false, axp_fp_sts(f[in->ra])); NEXT();
L_STT: STORE(8, uint64_t, false, f[in->ra]); NEXT();

  /* ---- branches ---- */
L_BR: L_BSR: { uint64_t n = PC() + 4; RA = n; JUMP(n + (uint64_t)(int64_t)in->imm); }
#define BCOND(cond) do { if (cond) JUMP(PC() + 4 + (uint64_t)(int64_t)in->imm); NEXT(); } while (0)
L_BEQ: BCOND(RA == 0);
L_BNE: BCOND(RA != 0);
L_BLT: BCOND((int64_t)RA < 0);
L_BLE: BCOND((int64_t)RA <= 0);
L_BGT: BCOND((int64_t)RA > 0);
L_BGE: BCOND((int64_t)RA >= 0);
L_BLBC: BCOND(!(RA & 1));
L_BLBS: BCOND(RA & 1);
L_FBEQ: BCOND(f_zero(f[in->ra]));
L_FBNE: BCOND(!f_zero(f[in->ra]));
L_FBLT: BCOND(f_lt(f[in->ra]));
L_FBGE: BCOND(!f_lt(f[in->ra]));
L_FBLE: BCOND(f_lt(f[in->ra]) || f_zero(f[in->ra]));
L_FBGT: BCOND(!f_lt(f[in->ra]) && !f_zero(f[in->ra]));
L_JMP: L_JSR: L_RET: L_JSR_COROUTINE: {
    uint64_t t = r[in->rb] & ~3ull;
    RA = PC() + 4;
    JUMP(t);
  }

  /* ---- memory-function ---- */
L_TRAPB: L_EXCB: L_MB: L_WMB: L_FETCH: L_FETCH_M: L_ECB: L_WH64: L_WH64EN: NEXT();
L_RPCC: RA = cpu->rpcc ? cpu->rpcc(cpu->rpcc_ctx) : ((cpu->icount + (budget - left)) & 0xFFFFFFFFull); NEXT();
L_RC: L_RS: goto L_ILLEGAL;   /* VAX compatibility, not in the EV6 user ISA */

  /* ---- integer arithmetic ---- */
L_ADDL: OP(axp_sext32(RA + RBV));
L_S4ADDL: OP(axp_sext32((RA << 2) + RBV));
L_S8ADDL: OP(axp_sext32((RA << 3) + RBV));
L_SUBL: OP(axp_sext32(RA - RBV));
L_S4SUBL: OP(axp_sext32((RA << 2) - RBV));
L_S8SUBL: OP(axp_sext32((RA << 3) - RBV));
L_ADDQ: OP(RA + RBV);
L_S4ADDQ: OP((RA << 2) + RBV);
L_S8ADDQ: OP((RA << 3) + RBV);
L_SUBQ: OP(RA - RBV);
L_S4SUBQ: OP((RA << 2) - RBV);
L_S8SUBQ: OP((RA << 3) - RBV);
L_CMPEQ: OP(RA == RBV);
L_CMPLT: OP((int64_t)RA < (int64_t)RBV);
L_CMPLE: OP((int64_t)RA <= (int64_t)RBV);
L_CMPULT: OP(RA < RBV);
L_CMPULE: OP(RA <= RBV);
L_CMPBGE: OP(axp_cmpbge(RA, RBV));
  /* /V forms write the result, then take an arithmetic trap (do_entArith). */
#define OVF(expr_ok, result) do { uint64_t res_ = (result); bool ok_ = (expr_ok); RC = res_; \
    if (!ok_) { set_trap(cpu, GSIG_FPE, AXP_FPE_FLTINV, PC() + 4, 0); TRAP_AFTER(); } NEXT(); } while (0)
L_ADDL_V: { int64_t s = (int64_t)(int32_t)RA + (int64_t)(int32_t)RBV; OVF(s == (int32_t)s, axp_sext32((uint64_t)s)); }
L_SUBL_V: { int64_t s = (int64_t)(int32_t)RA - (int64_t)(int32_t)RBV; OVF(s == (int32_t)s, axp_sext32((uint64_t)s)); }
L_ADDQ_V: { int64_t s; bool o = __builtin_add_overflow((int64_t)RA, (int64_t)RBV, &s); OVF(!o, (uint64_t)s); }
L_SUBQ_V: { int64_t s; bool o = __builtin_sub_overflow((int64_t)RA, (int64_t)RBV, &s); OVF(!o, (uint64_t)s); }
L_MULL: OP(axp_sext32((uint64_t)((uint32_t)RA * (uint32_t)RBV)));
L_MULQ: OP(RA * RBV);
L_UMULH: OP((uint64_t)(((unsigned __int128)RA * RBV) >> 64));
L_MULL_V: { int64_t s = (int64_t)(int32_t)RA * (int64_t)(int32_t)RBV; OVF(s == (int32_t)s, axp_sext32((uint64_t)s)); }
L_MULQ_V: { int64_t s; bool o = __builtin_mul_overflow((int64_t)RA, (int64_t)RBV, &s); OVF(!o, (uint64_t)s); }

  /* ---- logical, conditional move ---- */
L_AND: OP(RA & RBV);
L_BIC: OP(RA & ~RBV);
L_BIS: OP(RA | RBV);
L_ORNOT: OP(RA | ~RBV);
L_XOR: OP(RA ^ RBV);
L_EQV: OP(RA ^ ~RBV);
#define CMOV(cond) do { if (cond) RC = RBV; NEXT(); } while (0)
L_CMOVEQ: CMOV(RA == 0);
L_CMOVNE: CMOV(RA != 0);
L_CMOVLT: CMOV((int64_t)RA < 0);
L_CMOVGE: CMOV((int64_t)RA >= 0);
L_CMOVLE: CMOV((int64_t)RA <= 0);
L_CMOVGT: CMOV((int64_t)RA > 0);
L_CMOVLBS: CMOV(RA & 1);
L_CMOVLBC: CMOV(!(RA & 1));
L_AMASK: OP(RBV & ~(uint64_t)AXP_AMASK_EV67);
L_IMPLVER: OP(AXP_IMPLVER_EV6);

  /* ---- shifts and byte manipulation ---- */
L_SLL: OP(RA << (RBV & 63));
L_SRL: OP(RA >> (RBV & 63));
L_SRA: OP((uint64_t)((int64_t)RA >> (RBV & 63)));
L_EXTBL: OP(axp_extl(RA, RBV, AXP_W_B));
L_EXTWL: OP(axp_extl(RA, RBV, AXP_W_W));
L_EXTLL: OP(axp_extl(RA, RBV, AXP_W_L));
L_EXTQL: OP(axp_extl(RA, RBV, AXP_W_Q));
L_EXTWH: OP(axp_exth(RA, RBV, AXP_W_W));
L_EXTLH: OP(axp_exth(RA, RBV, AXP_W_L));
L_EXTQH: OP(axp_exth(RA, RBV, AXP_W_Q));
L_INSBL: OP(axp_insl(RA, RBV, AXP_W_B));
L_INSWL: OP(axp_insl(RA, RBV, AXP_W_W));
L_INSLL: OP(axp_insl(RA, RBV, AXP_W_L));
L_INSQL: OP(axp_insl(RA, RBV, AXP_W_Q));
L_INSWH: OP(axp_insh(RA, RBV, AXP_W_W));
L_INSLH: OP(axp_insh(RA, RBV, AXP_W_L));
L_INSQH: OP(axp_insh(RA, RBV, AXP_W_Q));
L_MSKBL: OP(axp_mskl(RA, RBV, AXP_W_B));
L_MSKWL: OP(axp_mskl(RA, RBV, AXP_W_W));
L_MSKLL: OP(axp_mskl(RA, RBV, AXP_W_L));
L_MSKQL: OP(axp_mskl(RA, RBV, AXP_W_Q));
L_MSKWH: OP(axp_mskh(RA, RBV, AXP_W_W));
L_MSKLH: OP(axp_mskh(RA, RBV, AXP_W_L));
L_MSKQH: OP(axp_mskh(RA, RBV, AXP_W_Q));
L_ZAP: OP(axp_zap(RA, RBV));
L_ZAPNOT: OP(axp_zapnot(RA, RBV));

  /* ---- 0x1C: BWX, CIX, MVI, FIX ---- */
L_SEXTB: OP((uint64_t)(int64_t)(int8_t)RBV);
L_SEXTW: OP((uint64_t)(int64_t)(int16_t)RBV);
L_CTPOP: OP(axp_ctpop(RBV));
L_CTLZ: OP(axp_ctlz(RBV));
L_CTTZ: OP(axp_cttz(RBV));
L_PERR: OP(axp_perr(RA, RBV));
L_UNPKBW: OP(axp_unpkbw(RBV));
L_UNPKBL: OP(axp_unpkbl(RBV));
L_PKWB: OP(axp_pkwb(RBV));
L_PKLB: OP(axp_pklb(RBV));
L_MINSB8: OP(axp_minmax(RA, RBV, 8, 1, 0));
L_MINSW4: OP(axp_minmax(RA, RBV, 16, 1, 0));
L_MINUB8: OP(axp_minmax(RA, RBV, 8, 0, 0));
L_MINUW4: OP(axp_minmax(RA, RBV, 16, 0, 0));
L_MAXSB8: OP(axp_minmax(RA, RBV, 8, 1, 1));
L_MAXSW4: OP(axp_minmax(RA, RBV, 16, 1, 1));
L_MAXUB8: OP(axp_minmax(RA, RBV, 8, 0, 1));
L_MAXUW4: OP(axp_minmax(RA, RBV, 16, 0, 1));
L_FTOIT: OP(f[in->ra]);
L_FTOIS: OP((uint64_t)(int64_t)(int32_t)axp_fp_sts(f[in->ra]));
L_ITOFT: f[in->rc] = r[in->ra]; NEXT();
L_ITOFS: f[in->rc] = axp_fp_lds((uint32_t)r[in->ra]); NEXT();

  /* ---- IEEE operate ---- */
  /* Software completion of raised exceptions; a trap if they are not disabled. */
#define FP_COMPLETE(exc) do { if (exc) { \
      int code_ = axp_fp_complete(in->fn, (exc), &c->fpcr, &c->swcr); \
      if (code_) { set_trap(cpu, GSIG_FPE, code_, PC() + 4, 0); TRAP_AFTER(); } } \
    NEXT(); } while (0)
L_ADDS: L_SUBS: L_MULS: L_DIVS: L_ADDT: L_SUBT: L_MULT: L_DIVT:
L_CMPTUN: L_CMPTEQ: L_CMPTLT: L_CMPTLE: L_CVTST: L_CVTTS: L_CVTTQ: L_CVTQS: L_CVTQT:
L_SQRTS: L_SQRTT: {
    enum axp_fpop op = AXP_FP_ADD; bool s = false;
    uint32_t exc = 0;
    axp_fp_op_of(in->id, &op, &s);
    f[in->rc] = axp_fp_operate(op, s, in->fn, f[in->ra], f[in->rb], c->fpcr, &exc);
    FP_COMPLETE(exc);
  }
L_CVTQL: {
    uint32_t exc = 0;
    f[in->rc] = axp_fp_cvtql_v(in->fn, f[in->rb], &exc);
    FP_COMPLETE(exc);
  }
L_CVTLQ: f[in->rc] = axp_fp_cvtlq(f[in->rb]); NEXT();
L_CPYS: f[in->rc] = (f[in->ra] & SIGN) | (f[in->rb] & ~SIGN); NEXT();
L_CPYSN: f[in->rc] = (~f[in->ra] & SIGN) | (f[in->rb] & ~SIGN); NEXT();
L_CPYSE: f[in->rc] = (f[in->ra] & 0xFFF0000000000000ull) | (f[in->rb] & 0x000FFFFFFFFFFFFFull); NEXT();
L_MT_FPCR: c->fpcr = f[in->ra] & AXP_FPCR_MASK; NEXT();
L_MF_FPCR: if (in->ra != 31) f[in->ra] = c->fpcr; NEXT();
#define FCMOV(cond) do { if (cond) f[in->rc] = f[in->rb]; NEXT(); } while (0)
L_FCMOVEQ: FCMOV(f_zero(f[in->ra]));
L_FCMOVNE: FCMOV(!f_zero(f[in->ra]));
L_FCMOVLT: FCMOV(f_lt(f[in->ra]));
L_FCMOVGE: FCMOV(!f_lt(f[in->ra]));
L_FCMOVLE: FCMOV(f_lt(f[in->ra]) || f_zero(f[in->ra]));
L_FCMOVGT: FCMOV(!f_lt(f[in->ra]) && !f_zero(f[in->ra]));

stop_budget:
  npc = PC();
  stop = AXP_STOP_BUDGET;
  goto out;
#if AXP_TIMED
stop_interrupt:
  npc = PC();
  stop = AXP_STOP_INTERRUPT;
  goto out;
#endif
stop_trap:
  left++;   /* the trapping instruction did not retire */
  stop = AXP_STOP_TRAP;
out:
  r[32] = 0;
  f[32] = 0;
  c->pc = npc;
  cpu->icount += budget - left;
  return stop;
}

#undef PC
#undef DISPATCH
#undef NEXT
#undef JIT_CHECK
#undef JUMP
#undef RA
#undef RC
#undef RBV
#undef EA
#undef OP
#undef TRAP_HERE
#undef TRAP_AFTER
#undef LOAD
#undef STORE
#undef BCOND
#undef OVF
#undef CMOV
#undef FCMOV
#undef FP_COMPLETE
#undef LBL_BASE
#undef LBL_BWX
#undef LBL_FIX
#undef LBL_CIX
#undef LBL_MVI
#undef LBL_VAX
