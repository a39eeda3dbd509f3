/* The EV67 defaults and the table of the parameters a what-if machine may
 * change. HRM = Alpha 21264/EV67 Hardware Reference Manual (DS-0028B-TE);
 * values marked "ours" are where the HRM is silent, each explained in
 * docs/timing.md. A range's upper bound is what the model's fixed-size
 * structures hold (ev67.c's rings of MAXQ entries, 8-bit latencies) or what
 * keeps a run practical; its row says which. */
#include "uarch/uarch.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ev67_config ev67_default_config = {
  .fetch_width = 4,            /* HRM 2.2 stage 0 */
  .local_hist_entries = 1024,  /* HRM 2.1.1.2 */
  .local_hist_bits = 10,
  .local_ctr_bits = 3,
  .global_hist_bits = 12,      /* HRM 2.1.1.2 */
  .global_entries = 4096,
  .choice_entries = 4096,
  .ras_entries = 12,           /* ours: HRM silent */
  .jump_entries = 1024,        /* ours: stands in for the line predictor on jumps */
  .stwait_entries = 1024,      /* HRM 2.11 */
  .inflight = 80,              /* HRM 2.1.1.1 */
  .inum_group = 4,             /* HRM 6.10.3.3 */
  .iq_entries = 20,            /* HRM 2.1.1.6 */
  .fq_entries = 15,            /* HRM 2.1.1.7 */
  .int_phys_regs = 80,         /* HRM Fig. 2-1 */
  .fp_phys_regs = 72,
  .lq_entries = 32,            /* HRM 2.1.6.1-2 */
  .sq_entries = 32,
  .map_width = 4,
  .retire_width = 11,          /* HRM 6.10.2.3.2: 11 per cycle at most (the PMU counts 8) */
  .cross_cluster = 1,          /* HRM Table 2-4 */
  .lat_iadd = 1, .lat_ishf = 1, .lat_imul = 7, .lat_imisc = 3,   /* HRM Table 2-4 */
  .lat_ld_int = 3, .lat_ld_fp = 4,
  .lat_fadd = 4, .lat_fmul = 4,
  .lat_fdiv_s = 12, .lat_fdiv_t = 15,   /* ours: HRM page not retrieved; commonly quoted */
  .lat_fsqrt_s = 18, .lat_fsqrt_t = 33, /* HRM Table 2-4 */
  .lat_itof = 4, .lat_ftoi = 3,
  .line_bytes = 64,
  .l1i_bytes = 64 * 1024, .l1i_ways = 2,   /* HRM 2.1.5 */
  .l1d_bytes = 64 * 1024, .l1d_ways = 2,
  .bcache_bytes = 4 * 1024 * 1024,         /* HRM 4.3: 1-16 MB; ours: 4 MB */
  .bcache_latency = 13,        /* HRM Table 2-4: Dcache miss, 6-cycle Bcache -> 13 */
  .mem_latency = 130,          /* ours: system dependent (HRM silent) */
  .itb_entries = 128, .dtb_entries = 128,  /* HRM 2.1.1.3, 2.1.6.4 */
  .tb_fill_cycles = 30,        /* ours: PALcode TB fill */
  .maf_entries = 8,            /* HRM 2.1.6.3 */
  .pen_branch = 7, .pen_jump = 8,          /* HRM Table 2-1 */
  .pen_mbox_order = 14, .pen_mbox_other = 13, .pen_dtb_miss = 13, .pen_itb_miss = 7,
  .pen_int_arith = 12, .pen_fp_arith = 13,
  .unaligned_fixup = 20,       /* ours: PAL entry/exit around the fix-up; the kernel's
                                  entUna/do_entUna instructions run in the timing model */
};

#define P(key, min, max, flags, group, what, source, limits) \
  { #key, offsetof(struct ev67_config, key), min, max, flags, group, what, source, limits }
#define POW2 EV67_PARAM_POW2
#define MUL4 EV67_PARAM_MUL4
#define BYTES EV67_PARAM_BYTES
#define KB 1024u
#define MB (1024u * 1024u)
/* The window's rings (ev67.c, MAXQ) hold 128 entries: 128 inum groups, LQ,
 * SQ and issue-queue entries, rename registers beyond the architectural
 * ones. Latencies live in 8 bits per instruction class. */
#define RING_LIMIT "the model's rings hold 128 entries (ev67.c MAXQ)"
#define LAT_LIMIT "a class latency is held in 8 bits"
#define PEN_LIMIT "ours: about five times the chip's at most"
/* Long waits stay well inside the 4096 cycles of pipe reservations the
 * model keeps (ev67.c RING). */
#define RESERVE_LIMIT "kept well inside the 4096 cycles of pipe reservations the model keeps (ev67.c RING)"
static const struct ev67_param params[] = {
  P(fetch_width, 1, 16, POW2, "front end", "instructions fetched per cycle, an aligned block",
    "HRM 2.2 stage 0", "fetch blocks are aligned and lie in one cache line"),
  P(map_width, 1, 16, 0, "front end", "instructions mapped per cycle, in order",
    "HRM 2.1.1.6-7 (4 per cycle)", "ours: four times the chip's at most"),
  P(retire_width, 1, 32, 0, "front end", "instructions retired per cycle at most",
    "HRM 6.10.2.3.2 (11 per cycle)", "ours: about three times the chip's at most"),
  P(local_hist_entries, 1, 65536, POW2, "predictor", "local history table entries (indexed by VPC)",
    "HRM 2.1.1.2, Fig. 2-3", "the index is a mask; at most 64K entries"),
  P(local_hist_bits, 1, 16, 0, "predictor", "bits of each local history; the local counters are 2^bits",
    "HRM 2.1.1.2, Fig. 2-3", "histories are 16-bit entries"),
  P(local_ctr_bits, 1, 8, 0, "predictor", "bits of each local saturating counter",
    "HRM 2.1.1.2, Fig. 2-3", "counters are 8-bit entries"),
  P(global_hist_bits, 1, 16, 0, "predictor", "bits of global path history",
    "HRM 2.1.1.2, Fig. 2-4", "it indexes the global and choice tables, of 64K entries at most"),
  P(global_entries, 1, 65536, POW2, "predictor", "global predictor counters (2-bit)",
    "HRM 2.1.1.2, Fig. 2-4", "the index is a mask; at most 64K entries"),
  P(choice_entries, 1, 65536, POW2, "predictor", "choice predictor counters (2-bit)",
    "HRM 2.1.1.2 (p. 2-5)", "the index is a mask; at most 64K entries"),
  P(ras_entries, 1, 256, 0, "predictor", "return-address stack entries",
    "ours: the HRM does not give the size", "ours: twenty times the default at most"),
  P(jump_entries, 1, 65536, POW2, "predictor", "indirect-jump target table entries (line predictor stand-in)",
    "ours: stands in for the line predictor on jumps", "the index is a mask; at most 64K entries"),
  P(stwait_entries, 1, 65536, POW2, "predictor", "stWait table bits (store-wait)",
    "HRM 2.11.1.2 (p. 2-32)", "the index is a mask; at most 64K entries"),
  P(inflight, 4, 512, MUL4, "window", "instructions in flight between map and retire (the window)",
    "HRM 2.1.1.1 (80: 20 groups of 4 inums)", "inums are allocated in groups of four, "
    "HRM 6.10.3.3; at most 512: " RING_LIMIT),
  P(iq_entries, 1, 128, 0, "window", "integer issue queue entries", "HRM 2.1.1.6", RING_LIMIT),
  P(fq_entries, 1, 128, 0, "window", "floating-point issue queue entries", "HRM 2.1.1.7", RING_LIMIT),
  P(int_phys_regs, 41, 168, 0, "window", "integer physical registers (rename: less 32 architectural, 8 PALshadow)",
    "HRM Fig. 2-1", "at least 41 (one rename register beyond the 40 held); at most 168: " RING_LIMIT),
  P(fp_phys_regs, 33, 160, 0, "window", "FP physical registers (rename: less 32 architectural)",
    "HRM Fig. 2-1", "at least 33 (one rename register beyond the 32 held); at most 160: " RING_LIMIT),
  P(lq_entries, 1, 128, 0, "window", "load queue entries", "HRM 2.1.6.1", RING_LIMIT),
  P(sq_entries, 1, 128, 0, "window", "store queue entries", "HRM 2.1.6.2", RING_LIMIT),
  P(cross_cluster, 0, 16, 0, "window", "cycles for a result to reach the other integer cluster "
    "(0: one cluster as far as operands go)", "HRM Table 2-4 (1)", "ours: sixteen times the chip's at most"),
  P(lat_iadd, 1, 255, 0, "latency", "integer add, logic, cmov halves (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_ishf, 1, 255, 0, "latency", "shifts and byte manipulation (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_imul, 1, 255, 0, "latency", "integer multiply (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_imisc, 1, 255, 0, "latency", "MVI and CIX (count) instructions (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_ld_int, 1, 255, 0, "latency", "integer load, Dcache hit, load to use (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_ld_fp, 1, 255, 0, "latency", "FP load, Dcache hit (cycles; not below lat_ld_int)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_fadd, 1, 255, 0, "latency", "FP add, compare, cmov (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_fmul, 1, 255, 0, "latency", "FP multiply (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_fdiv_s, 1, 255, 0, "latency", "FP divide, S format, not pipelined (cycles)",
    "ours: the commonly quoted figure (HRM page not retrieved)", LAT_LIMIT),
  P(lat_fdiv_t, 1, 255, 0, "latency", "FP divide, T format, not pipelined (cycles)",
    "ours: the commonly quoted figure (HRM page not retrieved)", LAT_LIMIT),
  P(lat_fsqrt_s, 1, 255, 0, "latency", "FP square root, S format, not pipelined (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_fsqrt_t, 1, 255, 0, "latency", "FP square root, T format, not pipelined (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_itof, 1, 255, 0, "latency", "integer to FP register transfer (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(lat_ftoi, 1, 255, 0, "latency", "FP to integer register transfer (cycles)", "HRM Table 2-4", LAT_LIMIT),
  P(line_bytes, 16, 1024, POW2 | BYTES, "memory", "cache line (block) size, every cache",
    "HRM 2.9 (64-byte transactions)", "addresses are masked"),
  P(l1i_bytes, 1 * KB, 1 * MB, BYTES, "memory", "Icache size", "HRM 2.1.5.1 (64 KB)",
    "with l1i_ways and line_bytes it must make a power-of-two number of sets"),
  P(l1i_ways, 1, 16, 0, "memory", "Icache associativity", "HRM 2.1.5.1 (2-way)", "ours: a fill searches every way"),
  P(l1d_bytes, 1 * KB, 1 * MB, BYTES, "memory", "Dcache size", "HRM 2.1.5.2 (64 KB)",
    "with l1d_ways and line_bytes it must make a power-of-two number of sets"),
  P(l1d_ways, 1, 16, 0, "memory", "Dcache associativity", "HRM 2.1.5.2 (2-way)", "ours: a fill searches every way"),
  P(bcache_bytes, 64 * KB, 64 * MB, POW2 | BYTES, "memory", "Bcache size, direct mapped",
    "ours: 4 MB of the 1-16 MB the HRM allows (HRM 4.3)",
    "the direct-mapped index is a mask"),
  P(bcache_latency, 1, 500, 0, "memory", "Dcache miss served by the Bcache, load to use (cycles; "
    "not below lat_ld_int)", "HRM Table 2-4 (13 with a 6-cycle Bcache)", RESERVE_LIMIT),
  P(mem_latency, 0, 2000, 0, "memory", "added on a Bcache miss (cycles)", "ours: system dependent, HRM silent",
    RESERVE_LIMIT),
  P(itb_entries, 1, 1024, 0, "memory", "ITB entries, fully associative", "HRM 2.1.1.3", "ours: eight times the chip's at most"),
  P(dtb_entries, 1, 1024, 0, "memory", "DTB entries, fully associative", "HRM 2.1.6.4", "ours: eight times the chip's at most"),
  P(tb_fill_cycles, 0, 500, 0, "memory", "PALcode TB fill (cycles)", "ours: a PALcode fill path", RESERVE_LIMIT),
  P(maf_entries, 1, 64, 0, "memory", "miss address file: fills in flight", "HRM 2.1.6.3", "ours: eight times the chip's at most; a miss searches every entry"),
  P(pen_branch, 1, 64, 0, "penalty", "conditional branch mispredict (cycles from fetch)",
    "HRM Table 2-1", PEN_LIMIT),
  P(pen_jump, 1, 64, 0, "penalty", "jump target mispredict (cycles from fetch)", "HRM Table 2-1", PEN_LIMIT),
  P(pen_mbox_order, 1, 64, 0, "penalty", "store-load order replay (cycles from fetch)", "HRM Table 2-1",
    PEN_LIMIT),
  P(pen_dtb_miss, 1, 64, 0, "penalty", "DTB miss trap (cycles from fetch)", "HRM Table 2-1", PEN_LIMIT),
  P(pen_itb_miss, 0, 64, 0, "penalty", "ITB miss (cycles)", "HRM Table 2-1", PEN_LIMIT),
  P(unaligned_fixup, 0, 500, 0, "penalty", "PAL entry and exit around the unaligned fix-up (cycles)",
    "ours: the kernel's fix-up itself runs as instructions", RESERVE_LIMIT),
};
#undef P

const struct ev67_param *ev67_params(size_t *n)
{
  *n = sizeof params / sizeof params[0];
  return params;
}

const struct ev67_param *ev67_param_find(const char *key)
{
  for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
    if (!strcmp(params[i].key, key)) return &params[i];
  return NULL;
}

unsigned ev67_param_get(const struct ev67_config *c, const struct ev67_param *p)
{
  unsigned v;
  memcpy(&v, (const char *)c + p->offset, sizeof v);
  return v;
}

static void param_put(struct ev67_config *c, const struct ev67_param *p, unsigned v)
{
  memcpy((char *)c + p->offset, &v, sizeof v);
}

/* Writes a size as the shortest exact K/M form ("64K", "4M", "48"). */
void ev67_param_value(const struct ev67_param *p, unsigned v, char *buf, size_t len)
{
  if ((p->flags & BYTES) && v && v % MB == 0) snprintf(buf, len, "%uM", v / MB);
  else if ((p->flags & BYTES) && v && v % KB == 0) snprintf(buf, len, "%uK", v / KB);
  else snprintf(buf, len, "%u", v);
}

/* The accepted values of p, as a phrase ("a power of two from 1 to 16"). */
void ev67_param_range(const struct ev67_param *p, char *buf, size_t len)
{
  char lo[24], hi[24];
  ev67_param_value(p, p->min, lo, sizeof lo);
  ev67_param_value(p, p->max, hi, sizeof hi);
  snprintf(buf, len, "%s from %s to %s", p->flags & POW2 ? "a power of two" : p->flags & MUL4 ? "a multiple of 4" : "a whole number",
           lo, hi);
}

/* Parses one value of p: decimal, with K, M or G for sizes. Returns 0 or -1 with why. */
static int parse_value(const struct ev67_param *p, const char *s, unsigned *out, char *why, size_t len)
{
  char range[96];
  ev67_param_range(p, range, sizeof range);
  char *end;
  if (*s < '0' || *s > '9') goto bad;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned long long unit = 1;
  if (p->flags & BYTES) {
    if (*end == 'K' || *end == 'k') unit = KB;
    else if (*end == 'M' || *end == 'm') unit = MB;
    else if (*end == 'G' || *end == 'g') unit = 1024ull * MB;
    if (unit > 1) end++;
  }
  if (*end) goto bad;
  if (v > 0xFFFFFFFFull / unit || v * unit < p->min || v * unit > p->max) {
    snprintf(why, len, "%s=%s: out of range: want %s (%s)", p->key, s, range, p->limits);
    return -1;
  }
  v *= unit;
  if (((p->flags & POW2) && (v & (v - 1))) || ((p->flags & MUL4) && v % 4)) {
    snprintf(why, len, "%s=%s: want %s (%s)", p->key, s, range, p->limits);
    return -1;
  }
  *out = (unsigned)v;
  return 0;
bad:
  snprintf(why, len, "%s=%s: not a number: want %s%s", p->key, s, range,
           p->flags & BYTES ? " (K, M and G suffixes accepted)" : "");
  return -1;
}

int ev67_config_parse(struct ev67_config *c, const char *list, char *why, size_t len)
{
  const char *s = list;
  while (*s) {
    while (*s == ',' || *s == ' ' || *s == '\t' || *s == '\n') s++;
    if (!*s) break;
    size_t n = strcspn(s, ",\n");
    char item[160];
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
    if (n >= sizeof item) {
      snprintf(why, len, "'%.40s...': too long for KEY=VALUE", s);
      return -1;
    }
    memcpy(item, s, n);
    item[n] = 0;
    s += n;
    while (*s && *s != ',' && *s != '\n') s++;
    char *eq = strchr(item, '=');
    if (!eq || eq == item || !eq[1 + strspn(eq + 1, " \t")]) {
      snprintf(why, len, "'%s': want KEY=VALUE ('profileme list --uarch' lists the keys)", item);
      return -1;
    }
    *eq = 0;
    char *val = eq + 1;
    for (char *k = eq; k > item && (k[-1] == ' ' || k[-1] == '\t'); k--) k[-1] = 0;
    while (*val == ' ' || *val == '\t') val++;
    const struct ev67_param *p = ev67_param_find(item);
    if (!p) {
      snprintf(why, len, "'%s': no such parameter ('profileme list --uarch' lists them)", item);
      return -1;
    }
    unsigned v;
    if (parse_value(p, val, &v, why, len)) return -1;
    param_put(c, p, v);
  }
  return 0;
}

/* The cache of name geometry (bytes, ways) must make a power-of-two number of sets. */
static int check_cache(const char *name, unsigned bytes, unsigned ways, unsigned line, char *why, size_t len)
{
  unsigned long long set_bytes = (unsigned long long)ways * line;
  unsigned long long sets = bytes / set_bytes;
  if (bytes % set_bytes || !sets || (sets & (sets - 1))) {
    snprintf(why, len, "%s_bytes=%u with %s_ways=%u and line_bytes=%u: %u bytes is not a power-of-two "
             "number of sets of %u ways of %u-byte lines (the set index is a mask)", name, bytes, name, ways,
             line, bytes, ways, line);
    return -1;
  }
  return 0;
}

int ev67_config_check(const struct ev67_config *c, char *why, size_t len)
{
  size_t n;
  const struct ev67_param *p = ev67_params(&n);
  for (size_t i = 0; i < n; i++) {
    unsigned v = ev67_param_get(c, &p[i]);
    if (v < p[i].min || v > p[i].max || ((p[i].flags & POW2) && (v & (v - 1))) || ((p[i].flags & MUL4) && v % 4)) {
      char range[96];
      ev67_param_range(&p[i], range, sizeof range);
      snprintf(why, len, "%s=%u: want %s (%s)", p[i].key, v, range, p[i].limits);
      return -1;
    }
  }
  if (4 * c->fetch_width > c->line_bytes) {
    snprintf(why, len, "fetch_width=%u with line_bytes=%u: a fetch block of %u bytes must lie in one cache line",
             c->fetch_width, c->line_bytes, 4 * c->fetch_width);
    return -1;
  }
  if (check_cache("l1i", c->l1i_bytes, c->l1i_ways, c->line_bytes, why, len) ||
      check_cache("l1d", c->l1d_bytes, c->l1d_ways, c->line_bytes, why, len))
    return -1;
  if (c->bcache_bytes < c->line_bytes) {
    snprintf(why, len, "bcache_bytes=%u: smaller than one line of %u bytes", c->bcache_bytes, c->line_bytes);
    return -1;
  }
  if (c->lat_ld_fp < c->lat_ld_int) {
    snprintf(why, len, "lat_ld_fp=%u below lat_ld_int=%u: an FP load is an integer load's Dcache access "
             "plus the transfer to the FP side", c->lat_ld_fp, c->lat_ld_int);
    return -1;
  }
  if (c->bcache_latency < c->lat_ld_int) {
    snprintf(why, len, "bcache_latency=%u below lat_ld_int=%u: a Dcache miss cannot be served sooner than a hit",
             c->bcache_latency, c->lat_ld_int);
    return -1;
  }
  return 0;
}

size_t ev67_config_format(const struct ev67_config *c, bool all, char *buf, size_t len)
{
  size_t n, used = 0;
  bool full = !len;              /* once an item does not fit, none is written after it */
  const struct ev67_param *p = ev67_params(&n);
  if (len) buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned v = ev67_param_get(c, &p[i]);
    if (!all && v == ev67_param_get(&ev67_default_config, &p[i])) continue;
    char val[24], item[96];
    ev67_param_value(&p[i], v, val, sizeof val);
    int k = snprintf(item, sizeof item, "%s%s=%s", used ? "," : "", p[i].key, val);
    if (!full && used + (size_t)k < len) memcpy(buf + used, item, (size_t)k + 1);
    else full = true;
    used += (size_t)k;
  }
  return used;
}
