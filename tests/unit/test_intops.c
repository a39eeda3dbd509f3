/* Byte-manipulation, CIX and MVI semantics against the Alpha Architecture
 * Handbook's definitions, with the values measured under qemu in the reference
 * notes (Ra = 0x8877665544332211). */
#include "check.h"
#include "isa/intops.h"

int main(void)
{
  const uint64_t ra = 0x8877665544332211ull;
  CHECK_EQ_U64(axp_exth(ra, 1, AXP_W_Q), 0x1100000000000000ull, "extqh(ra,1)");
  CHECK_EQ_U64(axp_exth(ra, 7, AXP_W_W), 0x1100, "extwh(ra,7)");
  CHECK_EQ_U64(axp_exth(ra, 0, AXP_W_L), 0x44332211, "extlh pos 0 keeps ra masked");
  CHECK_EQ_U64(axp_insh(ra, 1, AXP_W_Q), 0x88, "insqh(ra,1)");
  CHECK_EQ_U64(axp_insh(ra, 0, AXP_W_Q), 0, "insqh pos 0 is 0");
  CHECK_EQ_U64(axp_mskh(ra, 1, AXP_W_Q), 0x8877665544332200ull, "mskqh(ra,1)");
  CHECK_EQ_U64(axp_mskh(ra, 0, AXP_W_Q), ra, "mskqh pos 0 keeps ra");
  CHECK_EQ_U64(axp_extl(ra, 3, AXP_W_B), 0x44, "extbl(ra,3)");
  CHECK_EQ_U64(axp_extl(ra, 6, AXP_W_L), 0x8877, "extll(ra,6) runs off the top");
  CHECK_EQ_U64(axp_insl(0xABCD, 7, AXP_W_W), 0xCD00000000000000ull, "inswl(x,7) drops the spill");
  CHECK_EQ_U64(axp_insh(0xABCD, 7, AXP_W_W), 0xAB, "inswh(x,7) is the spill");
  CHECK_EQ_U64(axp_mskl(ra, 2, AXP_W_W), 0x8877665500002211ull, "mskwl(ra,2)");
  CHECK_EQ_U64(axp_zap(ra, 0x0F), 0x8877665500000000ull, "zap low four bytes");
  CHECK_EQ_U64(axp_zapnot(ra, 0x03), 0x2211, "zapnot keeps two bytes");
  CHECK_EQ_U64(axp_cmpbge(0x0000000000000000ull, 0), 0xFF, "cmpbge equal bytes");
  CHECK_EQ_U64(axp_cmpbge(0x00000000000000FFull, 0x0101010101010101ull), 0x01, "cmpbge finds the byte >= 1");
  CHECK_EQ_U64(axp_ctlz(0), 64, "ctlz(0)");
  CHECK_EQ_U64(axp_cttz(0), 64, "cttz(0)");
  CHECK_EQ_U64(axp_ctlz(1), 63, "ctlz(1)");
  CHECK_EQ_U64(axp_ctpop(ra), 26, "ctpop: 2+6+4+4+2+4+2+2 bits");
  CHECK_EQ_U64(axp_perr(0x0000000000000A05ull, 0x000000000000030Aull), 12, "perr");
  CHECK_EQ_U64(axp_unpkbw(0x44332211), 0x0044003300220011ull, "unpkbw");
  CHECK_EQ_U64(axp_pkwb(0x0044003300220011ull), 0x44332211, "pkwb inverts unpkbw");
  CHECK_EQ_U64(axp_unpkbl(0x2211), 0x0000002200000011ull, "unpkbl");
  CHECK_EQ_U64(axp_pklb(0x0000002200000011ull), 0x2211, "pklb inverts unpkbl");
  CHECK_EQ_U64(axp_minmax(0x80, 0x7F, 8, 1, 0), 0x80, "minsb8: 0x80 is -128");
  CHECK_EQ_U64(axp_minmax(0x80, 0x7F, 8, 0, 0), 0x7F, "minub8");
  CHECK_EQ_U64(axp_minmax(0x8000, 0x0001, 16, 1, 1), 0x0001, "maxsw4");
  CHECK_EQ_U64(axp_minmax(0x8000, 0x0001, 16, 0, 1), 0x8000, "maxuw4");
  CHECK_EQ_U64(axp_sext32(0x80000000ull), 0xFFFFFFFF80000000ull, "sext32");
  return check_done();
}
