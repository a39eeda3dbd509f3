/* axp_disasm(): words to objdump's text, table-driven. Every expected string
 * was printed by alpha-linux-gnu-objdump 2.40 (-b binary -m alpha
 * --adjust-vma=0x120001000) for the same word at the same address, so the
 * table holds without objdump installed; tests/scripts/disasm.sh does the
 * large comparisons. */
#include <string.h>
#include "check.h"
#include "isa/disasm.h"

static const struct vec {
  uint32_t w;
  uint64_t pc;
  const char *text;
} vecs[] = {
  /* pseudo-ops (note the trailing tab of the operand-less ones) */
  { 0x2FFE0000, 0x120001000, "unop\t" },                  /* ldq_u zero,0(sp) */
  { 0x2FE11234, 0x120001004, "unop\t" },                  /* any base and displacement */
  { 0x47FF041F, 0x120001008, "nop\t" },
  { 0x47E0041F, 0x12000100c, "mov\tv0,zero" },
  { 0x47E10402, 0x120001010, "mov\tt0,t1" },              /* bis zero,t0,t1 */
  { 0x44210402, 0x120001014, "mov\tt0,t1" },              /* bis t0,t0,t1 */
  { 0x47E03401, 0x120001018, "mov\t0x1,t0" },
  { 0x47FF0405, 0x12000101c, "clr\tt4" },
  { 0x44440402, 0x120001020, "or\tt1,t3,t1" },            /* bis */
  { 0x45210102, 0x120001024, "andnot\ts0,t0,t1" },        /* bic */
  { 0x43E10002, 0x120001028, "sextl\tt0,t1" },
  { 0x43E10122, 0x12000102c, "negl\tt0,t1" },
  { 0x43E10522, 0x120001030, "negq\tt0,t1" },
  { 0x43E10D22, 0x120001034, "negq/v\tt0,t1" },
  { 0x47E10501, 0x120001038, "not\tt0,t0" },
  /* operate forms */
  { 0x44A0F005, 0x12000103c, "and\tt4,0x7,t4" },
  { 0x42250409, 0x120001040, "addq\ta1,t4,s0" },
  { 0x4001A002, 0x120001044, "addl\tv0,t0,t1" },          /* SBZ bits 15:13 set */
  { 0x47E03D84, 0x120001048, "implver\tt3" },
  { 0x47E23C24, 0x12000104c, "amask\t0x11,t3" },
  { 0x44223C24, 0x120001050, ".long 0x44223c24" },        /* amask needs Ra = zero */
  { 0x73E20001, 0x120001054, "sextb\tt1,t0" },
  { 0x70220001, 0x120001058, ".long 0x70220001" },        /* sextb needs Ra = zero */
  { 0x73E03001, 0x12000105c, ".long 0x73e03001" },        /* no literal sextb */
  { 0x70301783, 0x12000118c, "maxub8\tt0,0x80,t2" },
  /* memory formats */
  { 0x23DEFFF0, 0x120001060, "lda\tsp,-16(sp)" },
  { 0x27BBFFFF, 0x120001064, "ldah\tgp,-1(t12)" },        /* raw displacement */
  { 0x201F0005, 0x120001068, "lda\tv0,5" },               /* no base register */
  { 0x8C1E0008, 0x12000106c, "ldt\t$f0,8(sp)" },
  { 0x601FC000, 0x120001070, "rpcc\tv0" },
  { 0x6010C000, 0x120001074, "rpcc\tv0,a0" },
  { 0x63FF4000, 0x120001078, "mb" },
  { 0x63FF0000, 0x12000107c, "trapb" },
  { 0x63F08000, 0x120001080, "fetch\t(a0)" },
  { 0x60008000, 0x120001084, ".long 0x60008000" },        /* fetch needs Ra = zero */
  { 0x63F0F800, 0x120001088, "wh64\t(a0)" },
  /* jumps: jmp/jsr show the hinted address, ret/jcr the hint number */
  { 0x6BFA8001, 0x12000108c, "ret" },
  { 0x6BFA8000, 0x120001090, "ret\tzero,(ra),0" },
  { 0x6B5B4000, 0x120001094, "jsr\tra,(t12),0x120001098" },
  { 0x6B5B5FFF, 0x120001098, "jsr\tra,(t12),0x120009098" },
  { 0x6B5B6000, 0x12000109c, "jsr\tra,(t12),0x11fff90a0" },
  { 0x6BE00000, 0x1200010a0, "jmp\t(v0)" },
  { 0x6BE00010, 0x1200010a4, "jmp\tzero,(v0),0x1200010e8" },
  { 0x6B7BC000, 0x1200010a8, "jcr\tt12,(t12),0" },
  /* branches */
  { 0xC3FFFFFF, 0x1200010ac, "br\t0x1200010ac" },
  { 0xC3400001, 0x1200010b0, "br\tra,0x1200010b8" },
  { 0xD3400003, 0x1200010b4, "bsr\tra,0x1200010c4" },
  { 0xC4200005, 0x1200010b8, "fbeq\t$f1,0x1200010d0" },
  { 0xF4300000, 0x1200010bc, "bne\tt0,0x11fc010c0" },
  /* PALcode */
  { 0x00000083, 0x1200010c0, "callsys" },
  { 0x0000009E, 0x1200010c4, "rduniq" },
  { 0x0000009F, 0x1200010c8, "wruniq" },
  { 0x00000086, 0x1200010cc, "imb" },
  { 0x00000080, 0x1200010d0, "bpt" },
  { 0x00000081, 0x1200010d4, "bugchk" },
  { 0x000000AA, 0x1200010d8, "gentrap" },
  { 0x000000AE, 0x1200010dc, "call_pal\t0xae" },          /* clrfen has no name */
  { 0x00000000, 0x1200010e0, "halt" },
  { 0x00000002, 0x1200010e4, "draina" },
  { 0x04000000, 0x1200010e8, ".long 0x4000000" },
  { 0x64000000, 0x1200010ec, "pal19\t0" },
  { 0x7C00ABCD, 0x1200010f0, "pal1f\t0xabcd" },
  /* FP qualifiers */
  { 0x5BE15582, 0x1200010f4, "cvtst\t$f1,$f2" },
  { 0x5BE1D582, 0x1200010f8, "cvtst/s\t$f1,$f2" },
  { 0x5BE11582, 0x1200010fc, "cvtts\t$f1,$f2" },
  { 0x5BE1B582, 0x120001100, "cvtts/su\t$f1,$f2" },
  { 0x5BE17582, 0x120001104, ".long 0x5be17582" },        /* trap field 3 */
  { 0x5BE1A5E2, 0x120001108, "cvttq/svc\t$f1,$f2" },
  { 0x5BE1FDE2, 0x12000110c, "cvttq/svid\t$f1,$f2" },
  { 0x5BE1F7C2, 0x120001110, "cvtqt/sui\t$f1,$f2" },
  { 0x5BE1B7C2, 0x120001114, ".long 0x5be1b7c2" },        /* no cvtqt/su */
  { 0x582117C2, 0x120001118, ".long 0x582117c2" },        /* cvtqt needs Fa = $f31 */
  { 0x5822B403, 0x12000111c, "addt/su\t$f1,$f2,$f3" },
  { 0x5822BC03, 0x120001120, "addt/sud\t$f1,$f2,$f3" },
  { 0x5822FC03, 0x120001124, "addt/suid\t$f1,$f2,$f3" },
  { 0x58220403, 0x120001128, "addt/c\t$f1,$f2,$f3" },
  { 0x5822B003, 0x12000112c, "adds/su\t$f1,$f2,$f3" },
  { 0x5822B4C3, 0x120001130, "cmptlt/su\t$f1,$f2,$f3" },
  { 0x5822A4C3, 0x120001134, ".long 0x5822a4c3" },        /* compares: no /suc */
  { 0x5BE2B423, 0x120001138, "negt/su\t$f2,$f3" },
  { 0x5BE2BC23, 0x12000113c, "subt/sud\t$f31,$f2,$f3" },  /* no negt/sud */
  { 0x5FE1A602, 0x120001140, "cvtql/sv\t$f1,$f2" },
  { 0x5FE12602, 0x120001144, "cvtql/v\t$f1,$f2" },
  { 0x5FE14602, 0x120001148, ".long 0x5fe14602" },
  /* FP copies and moves */
  { 0x5FFF041F, 0x12000114c, "fnop\t" },
  { 0x5FFF0404, 0x120001150, "fclr\t$f4" },
  { 0x5FE10402, 0x120001154, "fabs\t$f1,$f2" },
  { 0x5C210402, 0x120001158, "fmov\t$f1,$f2" },
  { 0x5C220403, 0x12000115c, "cpys\t$f1,$f2,$f3" },
  { 0x5C210422, 0x120001160, "fneg\t$f1,$f2" },
  { 0x5C630483, 0x120001164, "mt_fpcr\t$f3" },
  { 0x5C620483, 0x120001168, ".long 0x5c620483" },        /* needs Fa = Fb = Fc */
  { 0x53E1B562, 0x12000116c, "sqrtt/su\t$f1,$f2" },
  { 0x503F0482, 0x120001170, "itoft\tt0,$f2" },
  { 0x503F1482, 0x120001174, ".long 0x503f1482" },        /* itoft takes no qualifier */
  { 0x701F0E01, 0x120001178, "ftoit\t$f0,t0" },
  { 0x70020E01, 0x12000117c, ".long 0x70020e01" },        /* ftoit needs Rb = zero */
  { 0x54221003, 0x120001180, "addf\t$f1,$f2,$f3" },       /* VAX */
  { 0x57E2B5E3, 0x120001184, "cvtgq/sv\t$f2,$f3" },
  { 0x57E29023, 0x120001188, "negf/s\t$f2,$f3" },
};

/* A symbol table of two functions, main at 0x120001000 and exit at 0x120002000. */
static const char *symbolize(void *ctx, uint64_t addr, uint64_t *off)
{
  (void)ctx;
  if (addr >= 0x120002000) {
    *off = addr - 0x120002000;
    return "exit";
  }
  if (addr >= 0x11fff0000) {
    *off = addr - 0x120001000;     /* below main: a negative offset */
    return "main";
  }
  return NULL;
}

int main(void)
{
  char buf[128];
  for (size_t i = 0; i < sizeof vecs / sizeof vecs[0]; i++) {
    const struct vec *v = &vecs[i];
    struct axp_insn d = axp_decode(v->w);
    int n = axp_disasm(&d, v->pc, buf, sizeof buf);
    CHECK(strcmp(buf, v->text) == 0 && n == (int)strlen(v->text),
          "disasm %08x at %" PRIx64 ": \"%s\" (got \"%s\")", v->w, v->pc, v->text, buf);
  }

  struct { uint32_t w; uint64_t pc; const char *text; } sym[] = {
    { 0x6B5B4000, 0x120001094, "jsr\tra,(t12),120001098 <main+0x98>" },
    { 0xC3400001, 0x120001ff8, "br\tra,120002000 <exit>" },
    { 0xD3400003, 0x120002000, "bsr\tra,120002010 <exit+0x10>" },
    { 0x6B5B6000, 0x12000109c, "jsr\tra,(t12),11fff90a0 <main-0x7f60>" },
    { 0xF4300000, 0x1200010bc, "bne\tt0,0x11fc010c0" },     /* no symbol: plain address */
  };
  for (size_t i = 0; i < sizeof sym / sizeof sym[0]; i++) {
    struct axp_insn d = axp_decode(sym[i].w);
    axp_disasm_sym(&d, sym[i].pc, buf, sizeof buf, symbolize, NULL);
    CHECK(strcmp(buf, sym[i].text) == 0, "disasm with symbols: \"%s\" (got \"%s\")",
          sym[i].text, buf);
  }

  /* snprintf contract: the full length is returned, the text truncated. */
  struct axp_insn d = axp_decode(0x5822FC03);
  char small[8];
  int n = axp_disasm(&d, 0, small, sizeof small);
  CHECK(n == (int)strlen("addt/suid\t$f1,$f2,$f3") && strcmp(small, "addt/su") == 0,
        "disasm truncates like snprintf (%d, \"%s\")", n, small);
  n = axp_disasm(&d, 0, NULL, 0);
  CHECK(n == (int)strlen("addt/suid\t$f1,$f2,$f3"), "disasm measures with a NULL buffer (%d)", n);
  CHECK(strcmp(axp_ireg_name(27), "t12") == 0 && strcmp(axp_ireg_name(31), "zero") == 0,
        "register names follow objdump ($27 = t12)");
  return check_done();
}
