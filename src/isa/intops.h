/* Integer semantics that are more than one C operator: the byte-manipulation
 * group, CIX counts and MVI multimedia operations, as pure inline functions
 * (Alpha Architecture Handbook 4.6-4.7, 4.13). `pos` is always Rb<2:0>. */
#ifndef AXP_INTOPS_H
#define AXP_INTOPS_H
#include <stdint.h>

/* Width masks for the b/w/l/q forms. */
#define AXP_W_B 0xFFull
#define AXP_W_W 0xFFFFull
#define AXP_W_L 0xFFFFFFFFull
#define AXP_W_Q 0xFFFFFFFFFFFFFFFFull

/* EXTxL: the field starting at byte pos, zero-extended. */
static inline uint64_t axp_extl(uint64_t a, uint64_t b, uint64_t w)
{
  return (a >> ((b & 7) * 8)) & w;
}
/* EXTxH: left shift by (64 - 8*pos) mod 64, then mask (pos 0 keeps a). */
static inline uint64_t axp_exth(uint64_t a, uint64_t b, uint64_t w)
{
  return (a << ((64 - (b & 7) * 8) & 63)) & w;
}
/* INSxL: the low field of a moved to byte pos. */
static inline uint64_t axp_insl(uint64_t a, uint64_t b, uint64_t w)
{
  return (a & w) << ((b & 7) * 8);
}
/* INSxH: the part of the field that spills above bit 63 (0 when pos is 0). */
static inline uint64_t axp_insh(uint64_t a, uint64_t b, uint64_t w)
{
  unsigned s = (b & 7) * 8;
  return s ? (a & w) >> (64 - s) : 0;
}
/* MSKxL: a with the field at byte pos cleared. */
static inline uint64_t axp_mskl(uint64_t a, uint64_t b, uint64_t w)
{
  return a & ~(w << ((b & 7) * 8));
}
/* MSKxH: a with the spilled-over high part of the field cleared. */
static inline uint64_t axp_mskh(uint64_t a, uint64_t b, uint64_t w)
{
  unsigned s = (b & 7) * 8;
  return s ? a & ~(w >> (64 - s)) : a;
}
/* Expands an 8-bit byte mask into a 64-bit mask of whole bytes. */
static inline uint64_t axp_bytemask(uint64_t m)
{
  uint64_t r = 0;
  for (int i = 0; i < 8; i++)
    if (m & (1u << i)) r |= 0xFFull << (8 * i);
  return r;
}
static inline uint64_t axp_zap(uint64_t a, uint64_t b) { return a & ~axp_bytemask(b & 0xFF); }
static inline uint64_t axp_zapnot(uint64_t a, uint64_t b) { return a & axp_bytemask(b & 0xFF); }
/* CMPBGE: bit i set when byte i of a >= byte i of b, unsigned. */
static inline uint64_t axp_cmpbge(uint64_t a, uint64_t b)
{
  uint64_t r = 0;
  for (int i = 0; i < 8; i++)
    if (((a >> (8 * i)) & 0xFF) >= ((b >> (8 * i)) & 0xFF)) r |= 1u << i;
  return r;
}
static inline uint64_t axp_ctlz(uint64_t b) { return b ? (uint64_t)__builtin_clzll(b) : 64; }
static inline uint64_t axp_cttz(uint64_t b) { return b ? (uint64_t)__builtin_ctzll(b) : 64; }
static inline uint64_t axp_ctpop(uint64_t b) { return (uint64_t)__builtin_popcountll(b); }

/* PERR: sum of absolute differences of the eight bytes. */
static inline uint64_t axp_perr(uint64_t a, uint64_t b)
{
  uint64_t s = 0;
  for (int i = 0; i < 8; i++) {
    int x = (int)((a >> (8 * i)) & 0xFF), y = (int)((b >> (8 * i)) & 0xFF);
    s += (uint64_t)(x > y ? x - y : y - x);
  }
  return s;
}
static inline uint64_t axp_unpkbw(uint64_t b)
{
  uint64_t r = 0;
  for (int i = 0; i < 4; i++) r |= ((b >> (8 * i)) & 0xFF) << (16 * i);
  return r;
}
static inline uint64_t axp_unpkbl(uint64_t b)
{
  return (b & 0xFF) | ((b >> 8) & 0xFF) << 32;
}
static inline uint64_t axp_pkwb(uint64_t b)
{
  uint64_t r = 0;
  for (int i = 0; i < 4; i++) r |= ((b >> (16 * i)) & 0xFF) << (8 * i);
  return r;
}
static inline uint64_t axp_pklb(uint64_t b)
{
  return (b & 0xFF) | ((b >> 32) & 0xFF) << 8;
}
/* MIN/MAX over lanes of `bits` width, signed or not; want_max selects MAX. */
static inline uint64_t axp_minmax(uint64_t a, uint64_t b, int bits, int is_signed, int want_max)
{
  uint64_t r = 0, m = (1ull << bits) - 1;
  for (int i = 0; i < 64; i += bits) {
    uint64_t x = (a >> i) & m, y = (b >> i) & m;
    int64_t sx = (int64_t)(x << (64 - bits)) >> (64 - bits);
    int64_t sy = (int64_t)(y << (64 - bits)) >> (64 - bits);
    int less = is_signed ? sx < sy : x < y;
    r |= (want_max ? (less ? y : x) : (less ? x : y)) << i;
  }
  return r;
}
static inline uint64_t axp_sext32(uint64_t v) { return (uint64_t)(int64_t)(int32_t)(uint32_t)v; }

#endif
