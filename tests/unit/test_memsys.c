/* The EV67 memory hierarchy against analytical answers: hits and misses of
 * sequential walks, set conflicts under round-robin replacement, Bcache reuse,
 * memory-bound pointer chasing, DTB reach, ASN tagging, fills in flight, MAF
 * capacity, functional warming's fills, writebacks and Bcache inclusion. Ends with a speed figure. */
#include <time.h>
#include "check.h"
#include "uarch/memsys.h"

static const struct ev67_config *cfg = &ev67_default_config;
#define H   (cfg->lat_ld_int)
#define B   (cfg->bcache_latency)
#define MEM (cfg->bcache_latency + cfg->mem_latency)
#define TB  (cfg->tb_fill_cycles)
#define GAP 1000u               /* longer than any miss: fills are done */
#define BASE 0x120000000ull
#define KB 1024ull
#define MB (1024ull * 1024)

static struct mem_access ld(struct memsys *ms, unsigned asn, uint64_t va, uint64_t cycle)
{
  struct mem_access a;
  memsys_data(ms, asn, va, 8, false, cycle, &a);
  return a;
}

static struct mem_access st(struct memsys *ms, uint64_t va, uint64_t cycle)
{
  struct mem_access a;
  memsys_data(ms, 1, va, 8, true, cycle, &a);
  return a;
}

static void test_create(void)
{
  struct ev67_config bad = *cfg;
  bad.line_bytes = 48;
  CHECK(memsys_create(&bad) == NULL, "create refuses a 48-byte line");
  bad = *cfg;
  bad.bcache_bytes = 3 * MB;
  CHECK(memsys_create(&bad) == NULL, "create refuses a 3 MB Bcache");
  bad = *cfg;
  bad.maf_entries = 0;
  CHECK(memsys_create(&bad) == NULL, "create refuses an empty MAF");
}

/* 32 KB walked by quadwords: one miss per 64-byte line, everything else hits. */
static void test_sequential(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP, misses = 0, bad_hits = 0;
  for (uint64_t off = 0; off < 32 * KB; off += 8, t += GAP) {
    struct mem_access a = ld(ms, 1, BASE + off, t);
    if (a.l1_miss) misses++;
    else if (a.latency != H || a.level != LVL_L1) bad_hits++;
  }
  const struct memsys_stats *s = memsys_stats(ms);
  CHECK_EQ_U64(misses, 32 * KB / 64, "sequential 32 KB: one miss per line");
  CHECK_EQ_U64(bad_hits, 0, "sequential 32 KB: every other access hits in lat_ld_int");
  CHECK_EQ_U64(s->dc_misses, 512, "sequential 32 KB: dc_misses");
  CHECK_EQ_U64(s->dc_accesses, 4096, "sequential 32 KB: dc_accesses");
  CHECK_EQ_U64(s->bc_misses, 512, "sequential 32 KB: cold Bcache misses every line");
  CHECK_EQ_U64(s->dtb_misses, 4, "sequential 32 KB: one DTB miss per 8 KB page");
  memsys_destroy(ms);
}

/* Three lines 32 KB apart share a Dcache row; two ways, round robin: each
 * fill evicts the line needed two accesses later, so all miss. Two fit. */
static void test_set_conflict(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP, misses = 0, bc_hits = 0;
  for (int round = 0; round < 21; round++)
    for (int k = 0; k < 3; k++, t += GAP) {
      struct mem_access a = ld(ms, 1, BASE + (uint64_t)k * 32 * KB, t);
      if (round == 0) continue;
      misses += a.l1_miss;
      bc_hits += a.level == LVL_BCACHE && a.latency == B;
    }
  CHECK_EQ_U64(misses, 60, "3 lines in one 2-way row: every access misses after warm-up");
  CHECK_EQ_U64(bc_hits, 60, "3 lines in one 2-way row: served by the Bcache in bcache_latency");
  uint64_t hits = 0;
  for (int round = 0; round < 21; round++)
    for (int k = 0; k < 2; k++, t += GAP) {
      struct mem_access a = ld(ms, 1, BASE + 1 * MB + (uint64_t)k * 32 * KB, t);
      if (round) hits += !a.l1_miss;
    }
  CHECK_EQ_U64(hits, 40, "2 lines in one 2-way row: every access hits after warm-up");
  memsys_destroy(ms);
}

/* 1 MB: too big for the Dcache, fits the Bcache (and exactly the 128-entry DTB). */
static void test_bcache_reuse(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP, pass1_mem = 0, pass2_bc = 0;
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t off = 0; off < 1 * MB; off += 64, t += GAP) {
      struct mem_access a = ld(ms, 1, BASE + off, t);
      if (pass == 0) pass1_mem += a.level == LVL_MEM && a.bc_miss;
      else pass2_bc += a.l1_miss && !a.bc_miss && !a.tlb_miss && a.level == LVL_BCACHE &&
                       a.latency == B;
    }
  CHECK_EQ_U64(pass1_mem, MB / 64, "1 MB first pass: every line from memory");
  CHECK_EQ_U64(pass2_bc, MB / 64, "1 MB second pass: every line misses L1, hits Bcache, 13 cycles");
  memsys_destroy(ms);
}

/* A dependent chase over 64 MB of lines in LCG order (full period 2^20): the
 * 4 MB Bcache cannot hold it, so the second pass still goes to memory. */
static void test_pointer_chase(void)
{
  struct memsys *ms = memsys_create(cfg);
  const uint64_t n = 64 * MB / 64;
  uint64_t t = 0, idx = 0, mem = 0, tlb = 0, lat_mem = 0;
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t i = 0; i < n; i++) {
      idx = (idx * 1664525u + 1013904223u) & (n - 1);
      struct mem_access a = ld(ms, 1, BASE + idx * 64 + 8, t);
      t += a.latency + 1;
      if (pass == 1) {
        mem += a.level == LVL_MEM;
        tlb += a.tlb_miss;
        lat_mem += a.latency == MEM + (a.tlb_miss ? TB : 0);
      }
    }
  CHECK(mem >= n * 99 / 100, "64 MB chase: >= 99%% of second-pass accesses from memory (%llu/%llu)",
        (unsigned long long)mem, (unsigned long long)n);
  CHECK(tlb >= n * 95 / 100, "64 MB chase: >= 95%% DTB misses (%llu/%llu)",
        (unsigned long long)tlb, (unsigned long long)n);
  CHECK_EQ_U64(lat_mem, mem, "64 MB chase: a memory access costs bcache+mem (+TB fill)");
  memsys_destroy(ms);
}

/* DTB reach: 128 entries of 8 KB, round robin. */
static void test_dtb(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP, miss2 = 0;
  const uint64_t pages = 64 * MB / (8 * KB);
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t p = 0; p < pages; p++, t += GAP) {
      struct mem_access a = ld(ms, 1, BASE + p * 8 * KB, t);
      if (pass == 1) miss2 += a.tlb_miss;
    }
  CHECK_EQ_U64(memsys_stats(ms)->dtb_misses, 2 * pages, "8192 pages: every access misses the DTB");
  CHECK_EQ_U64(miss2, pages, "8192 pages: the second pass misses too");
  memsys_destroy(ms);

  ms = memsys_create(cfg);
  uint64_t first = 0, later = 0;
  for (int pass = 0; pass < 10; pass++)
    for (uint64_t p = 0; p < 100; p++, t += GAP) {
      struct mem_access a = ld(ms, 1, BASE + p * 8 * KB + (uint64_t)pass * 64, t);
      if (pass == 0) first += a.tlb_miss;
      else later += a.tlb_miss;
    }
  CHECK_EQ_U64(first, 100, "100 pages: first pass misses each page");
  CHECK_EQ_U64(later, 0, "100 pages: later passes hit");
  CHECK_EQ_U64(ld(ms, 1, BASE + 99 * 8 * KB + 9 * 64, t).latency, H, "DTB and Dcache hit: lat_ld_int");
  struct mem_access a = ld(ms, 1, BASE + 200 * 8 * KB, t += GAP);
  CHECK(a.tlb_miss && a.latency == TB + MEM, "DTB miss adds tb_fill_cycles (got %u)", a.latency);
  memsys_flush_tbs(ms);
  CHECK(ld(ms, 1, BASE, t += GAP).tlb_miss, "flush_tbs empties the DTB");
  memsys_destroy(ms);
}

/* Address-space numbers tag the TBs and the Icache; the ASM bit matches all. */
static void test_asn(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP, p = BASE + 5 * 8 * KB;
  CHECK(ld(ms, 1, p, t += GAP).tlb_miss, "ASN 1: first access misses the DTB");
  struct mem_access a = ld(ms, 2, p, t += GAP);
  CHECK(a.tlb_miss, "ASN 2: same page, own DTB entry");
  CHECK(!a.l1_miss && a.latency == TB + H, "ASN 2: the Dcache line is shared (VA as PA)");
  CHECK(!ld(ms, 1, p, t += GAP).tlb_miss, "ASN 1 hits its entry");
  CHECK(!ld(ms, 2, p, t += GAP).tlb_miss, "ASN 2 hits its entry");
  CHECK(!ld(ms, 257, p, t += GAP).tlb_miss, "ASNs compare in 8 bits (257 is 1)");
  uint64_t k = 0xfffffc0000310000ull;
  CHECK(ld(ms, MEMSYS_ASN_GLOBAL, k, t += GAP).tlb_miss, "global page: first access misses");
  CHECK(!ld(ms, 7, k, t += GAP).tlb_miss, "global entry matches any ASN");

  struct mem_access f;
  memsys_fetch(ms, 1, BASE, t += GAP, &f);
  CHECK(f.l1_miss && f.tlb_miss, "fetch ASN 1: Icache and ITB miss");
  memsys_fetch(ms, 2, BASE, t += GAP, &f);
  CHECK(f.l1_miss && f.tlb_miss, "fetch ASN 2, same pc: Icache and ITB miss (ASN-tagged)");
  uint64_t itb = memsys_stats(ms)->itb_accesses;
  memsys_fetch(ms, 1, BASE, t += GAP, &f);
  CHECK(!f.l1_miss && f.latency == 0, "fetch ASN 1 again: Icache hit, no extra cycles");
  CHECK_EQ_U64(memsys_stats(ms)->itb_accesses, itb, "an Icache hit does not consult the ITB");
  memsys_destroy(ms);
}

static void test_icache(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP, miss1 = 0, hit2 = 0;
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t pc = BASE; pc < BASE + 64 * KB; pc += 16, t += GAP) {
      struct mem_access f;
      memsys_fetch(ms, 3, pc, t, &f);
      if (pass == 0) miss1 += f.l1_miss;
      else hit2 += !f.l1_miss && f.latency == 0;
    }
  const struct memsys_stats *s = memsys_stats(ms);
  CHECK_EQ_U64(miss1, 64 * KB / 64, "64 KB of code: one Icache miss per line");
  CHECK_EQ_U64(hit2, 64 * KB / 16, "64 KB of code fits the Icache: second pass hits");
  CHECK_EQ_U64(s->itb_accesses, 1024, "ITB consulted on Icache misses only");
  CHECK_EQ_U64(s->itb_misses, 8, "one ITB miss per 8 KB page");
  memsys_flush_icache(ms);
  struct mem_access f;
  memsys_fetch(ms, 3, BASE + 64, t += GAP, &f);
  CHECK(f.l1_miss && !f.tlb_miss && f.level == LVL_BCACHE && f.latency == B,
        "after imb: Icache miss served by the Bcache (latency %u)", f.latency);
  memsys_destroy(ms);
}

/* A second access to a line being filled pays only the rest of the fill. */
static void test_in_flight(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = 10000, a0 = BASE + 0x1000;
  ld(ms, 1, BASE, 1000);                        /* the page's DTB entry */
  struct mem_access a = ld(ms, 1, a0, t);
  CHECK(a.l1_miss && !a.merged && a.latency == MEM, "cold line: bcache + memory latency");
  a = ld(ms, 1, a0 + 8, t + 50);
  CHECK(a.merged && a.l1_miss && a.level == LVL_MEM && a.latency == MEM - 50,
        "same line 50 cycles later: remaining %u cycles", a.latency);
  a = ld(ms, 1, a0 + 16, t + MEM - 1);
  CHECK(a.merged && a.latency == H, "one cycle before the fill: never less than a hit");
  a = ld(ms, 1, a0 + 24, t + MEM);
  CHECK(!a.merged && !a.l1_miss && a.latency == H, "fill complete: plain hit");
  CHECK_EQ_U64(memsys_stats(ms)->dc_misses, 2, "merges are not new misses");
  CHECK_EQ_U64(memsys_stats(ms)->dc_merges, 2, "merges counted");

  /* Evicted from the Dcache while in flight: the MAF entry still merges. */
  t = 20000;
  uint64_t x = BASE + 0x2000;
  for (int k = 0; k < 3; k++) ld(ms, 1, x + (uint64_t)k * 32 * KB + 0x100, 2000);
  ld(ms, 1, x, t);
  ld(ms, 1, x + 32 * KB, t + 1);
  ld(ms, 1, x + 64 * KB, t + 2);                /* round robin evicts x */
  uint64_t bc = memsys_stats(ms)->bc_accesses;
  a = ld(ms, 1, x, t + 3);
  CHECK(a.merged && a.latency == MEM - 3, "evicted while in flight: MAF merge, %u cycles left",
        a.latency);
  CHECK_EQ_U64(memsys_stats(ms)->bc_accesses, bc, "a MAF merge does not read the Bcache");

  /* Out-of-order issue: an access presented before the miss's own cycle
   * pays the whole fill, not the distance to its end. */
  t = 30000;
  ld(ms, 1, BASE + 0x3000, t + 100);
  a = ld(ms, 1, BASE + 0x3008, t);
  CHECK(a.merged && a.latency == MEM, "earlier-cycle access to a line in flight: full latency");
  memsys_destroy(ms);
}

/* Eight outstanding misses (HRM 2.1.6.3); the ninth waits for the first fill. */
static void test_maf(void)
{
  struct memsys *ms = memsys_create(cfg);
  ld(ms, 1, BASE, 1000);
  const uint64_t t = 10000;
  unsigned ok = 0;
  for (uint64_t k = 1; k <= 8; k++) {
    struct mem_access a = ld(ms, 1, BASE + k * 64, t);
    ok += a.latency == MEM && !a.maf_wait;
  }
  CHECK_EQ_U64(ok, 8, "8 concurrent misses: each pays memory latency only");
  struct mem_access a = ld(ms, 1, BASE + 3 * 64 + 8, t);
  CHECK(a.merged && !a.maf_wait && a.latency == MEM, "a miss to a line in flight merges, no wait");
  a = ld(ms, 1, BASE + 9 * 64, t);
  CHECK(a.maf_wait && a.latency == 2 * MEM, "9th concurrent miss waits for a MAF entry (%u)",
        a.latency);
  a = ld(ms, 1, BASE + 10 * 64, t + 10);
  CHECK(a.maf_wait && a.latency == 2 * MEM - 10, "10th waits for the next free entry (%u)",
        a.latency);
  a = ld(ms, 1, BASE + 11 * 64, t + 3 * MEM);
  CHECK(!a.maf_wait && a.latency == MEM, "after the fills complete: no wait");
  CHECK_EQ_U64(memsys_stats(ms)->maf_waits, 2, "maf_waits");
  memsys_destroy(ms);
}

/* Functional warming's misses (memsys_set_functional) never wait for the
 * MAF: many presented in the same cycle leave at most its eight entries in
 * flight, none more than a miss ahead, so a timed miss once those are done
 * pays memory latency only; the same misses timed queue (the check can
 * fail: 56 of 64 wait, the last ready seven memory latencies on). */
static void test_functional(void)
{
  struct memsys *ms = memsys_create(cfg);
  const uint64_t t = 10000;
  memsys_set_functional(ms, true);
  unsigned misses = 0, late = 0;
  for (uint64_t k = 0; k < 64; k++) {
    struct mem_access a = ld(ms, 1, BASE + k * 64, t);
    misses += a.bc_miss;
    late += a.latency > MEM + (a.tlb_miss ? TB : 0);
  }
  memsys_set_functional(ms, false);
  CHECK_EQ_U64(misses, 64, "64 warmed misses in one cycle: each a B-cache miss");
  CHECK(memsys_stats(ms)->maf_waits == 0 && late == 0, "warmed misses never wait for the MAF (%u late)", late);
  struct mem_access a = ld(ms, 1, BASE + 100 * 64, t + MEM);
  CHECK(!a.maf_wait && a.latency == MEM, "a timed miss a memory latency later: no wait (%u)", a.latency);
  a = ld(ms, 1, BASE + 63 * 64, t + MEM + 1);
  CHECK(!a.l1_miss && a.latency == H, "a warmed line: a hit once filled (%u)", a.latency);
  memsys_destroy(ms);
  ms = memsys_create(cfg);
  for (uint64_t k = 0; k < 64; k++) a = ld(ms, 1, BASE + k * 64, t);
  CHECK(memsys_stats(ms)->maf_waits == 56 && a.latency > 7 * MEM,
        "the same misses timed: 56 of 64 wait for the MAF, the last %u cycles", a.latency);
  memsys_destroy(ms);
}

/* Write-back, write-allocate Dcache; Bcache inclusion. */
static void test_writeback(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP;
  struct mem_access a = st(ms, BASE, t += GAP);
  CHECK(a.l1_miss, "store miss allocates");
  CHECK(!ld(ms, 1, BASE + 8, t += GAP).l1_miss, "load after store hits the allocated line");
  ld(ms, 1, BASE + 32 * KB, t += GAP);
  CHECK_EQ_U64(memsys_stats(ms)->dc_writebacks, 0, "no writeback while the row has room");
  ld(ms, 1, BASE + 64 * KB, t += GAP);
  CHECK_EQ_U64(memsys_stats(ms)->dc_writebacks, 1, "dirty line evicted: one Dcache writeback");
  ld(ms, 1, BASE + 96 * KB, t += GAP);
  CHECK_EQ_U64(memsys_stats(ms)->dc_writebacks, 1, "clean victims are not written back");
  ld(ms, 1, BASE + 4 * MB, t += GAP);
  CHECK_EQ_U64(memsys_stats(ms)->bc_writebacks, 1, "Bcache conflict evicts the dirty block");

  /* Inclusion: a Bcache conflict takes the line out of the Dcache too. */
  uint64_t x = BASE + 0x40;
  ld(ms, 1, x, t += GAP);
  CHECK(!ld(ms, 1, x, t += GAP).l1_miss, "x resident");
  uint64_t inv = memsys_stats(ms)->bc_back_invals;
  ld(ms, 1, x + 8 * MB, t += GAP);
  CHECK_EQ_U64(memsys_stats(ms)->bc_back_invals, inv + 1, "Bcache eviction back-invalidates");
  a = ld(ms, 1, x, t += GAP);
  CHECK(a.l1_miss && a.level == LVL_MEM, "x was dropped from the Dcache with its Bcache block");

  /* Inclusion with fills in flight: y misses, a conflicting miss takes its
   * Bcache block, y again merges with its own fill. y and its conflict
   * cannot both be in the Dcache afterwards. */
  uint64_t y = BASE + 0x80;
  t += GAP;
  ld(ms, 1, y, t);
  ld(ms, 1, y + 4 * MB, t + 1);
  a = ld(ms, 1, y, t + 2);
  bool y_hit = !ld(ms, 1, y, t + GAP).l1_miss, c_hit = !ld(ms, 1, y + 4 * MB, t + GAP + 1).l1_miss;
  CHECK(a.merged && !(y_hit && c_hit), "a merge after a Bcache conflict keeps the Dcache a subset "
        "(merged %d, y hits %d, its conflict hits %d)", a.merged, y_hit, c_hit);
  memsys_destroy(ms);
}

static void test_cross_line(void)
{
  struct memsys *ms = memsys_create(cfg);
  struct mem_access a;
  memsys_data(ms, 1, BASE + 60, 8, false, GAP, &a);
  CHECK_EQ_U64(memsys_stats(ms)->dc_accesses, 2, "an access across a line touches two lines");
  CHECK_EQ_U64(memsys_stats(ms)->dc_misses, 2, "both lines fill");
  CHECK(a.latency == TB + MEM, "crossing access reports the slower line (%u)", a.latency);
  memsys_data(ms, 1, BASE + 8 * KB - 4, 8, false, 2 * GAP, &a);
  CHECK(a.tlb_miss, "an access across a page consults the DTB for the next page");
  memsys_destroy(ms);
}

static double now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Speed: random loads and stores over 32 KB (hits) and over 4 MB (L1 and DTB
 * misses, Bcache hits). */
static void bench(void)
{
  struct memsys *ms = memsys_create(cfg);
  const int n = 4000000;
  uint64_t x = 1, sum = 0;
  for (int w = 0; w < 2; w++) {
    uint64_t span = w ? 4 * MB : 32 * KB;
    double t0 = now_ns();
    for (int i = 0; i < n; i++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      struct mem_access a;
      memsys_data(ms, 1, BASE + ((x >> 20) & (span - 1) & ~7ull), 8, i & 1, (uint64_t)i * 4, &a);
      sum += a.latency;
    }
    printf("# memsys_data over %llu KB: %.1f ns/access (checksum %llu)\n",
           (unsigned long long)(span / KB), (now_ns() - t0) / n, (unsigned long long)sum);
  }
  memsys_destroy(ms);
}

static struct mem_access ldp(struct memsys *ms, unsigned asn, uint64_t va, uint64_t pa, uint64_t cycle)
{
  struct mem_access a;
  memsys_data_pa(ms, asn, va, pa, 8, false, cycle, &a);
  return a;
}

/* An ITB for the tests: ASN 2's code at va is at physical va + 1 MB. */
static uint64_t xlate_asn2(void *ctx, unsigned asn, uint64_t va)
{
  (void)ctx;
  return asn == 2 ? va + MB : va;
}

/* Where the 21264 uses physical addresses (HRM 2.1.5): Dcache virtually
 * indexed and physically tagged, one synonym at a time; Bcache and fills
 * physical; Icache virtual with ASNs, filled from the physical line. */
static void test_physical(void)
{
  struct memsys *ms = memsys_create(cfg);
  uint64_t t = GAP, P = 0x4000000;   /* a physical line, index bits 13-14 zero */
  CHECK_EQ_U64(ldp(ms, 1, BASE, P, t += GAP).level, LVL_MEM, "pa P: from memory");
  CHECK_EQ_U64(ldp(ms, 2, BASE, P + 0x20000, t += GAP).level, LVL_MEM,
               "the same va in another process, another frame: from memory, no false hit");
  CHECK(!ldp(ms, 1, BASE, P, t += GAP).l1_miss, "both lines live in the set's two ways");
  CHECK(!ldp(ms, 3, BASE + 32 * KB, P, t += GAP).l1_miss,
        "another va with the same index and frame hits: the tag is physical");
  struct mem_access a = ldp(ms, 3, BASE + 8 * KB, P, t += GAP);
  CHECK(a.l1_miss && a.level == LVL_BCACHE && memsys_stats(ms)->dc_aliases == 1,
        "a synonym under another index misses the Dcache, moves the line, hits the Bcache");
  a = ldp(ms, 1, BASE, P, t += GAP);
  CHECK(a.l1_miss && a.level == LVL_BCACHE && a.latency == B && memsys_stats(ms)->dc_aliases == 2,
        "and back: one copy at a time");

  /* Bcache inclusion finds a Dcache copy under any of its synonym sets. */
  struct mem_access w;
  uint64_t Q = 0x6000000;
  memsys_data_pa(ms, 1, BASE + 16 * KB + 0x40, Q + 0x40, 8, true, t += GAP, &w);
  uint64_t inv = memsys_stats(ms)->bc_back_invals, wb = memsys_stats(ms)->bc_writebacks;
  ldp(ms, 1, BASE + 0x40 + 0x100000, Q + 0x40 + cfg->bcache_bytes, t += GAP);   /* the same Bcache block */
  CHECK(memsys_stats(ms)->bc_back_invals == inv + 1 && memsys_stats(ms)->bc_writebacks == wb + 1,
        "a Bcache eviction invalidates the dirty Dcache copy stored under another index");
  CHECK_EQ_U64(ldp(ms, 1, BASE + 16 * KB + 0x40, Q + 0x40, t += GAP).level, LVL_MEM, "which then comes from memory");

  /* The Icache: tagged by va and ASN, filled from the translated line. */
  memsys_set_xlate(ms, xlate_asn2, NULL);
  uint64_t pc = 0x200000000ull;
  ldp(ms, 1, 0x300000000ull, pc + MB, t += GAP);   /* data at ASN 2's code's frame */
  struct mem_access f;
  memsys_fetch(ms, 1, pc, t += GAP, &f);
  CHECK(f.l1_miss && f.level == LVL_MEM, "ASN 1's code: Icache miss from memory");
  memsys_fetch(ms, 2, pc, t += GAP, &f);
  CHECK(f.l1_miss && f.level == LVL_BCACHE,
        "ASN 2's code at the same va misses the Icache and fills from its own frame, in the Bcache");
  memsys_fetch(ms, 2, pc, t += GAP, &f);
  CHECK(!f.l1_miss, "then hits");
  memsys_destroy(ms);
}

int main(void)
{
  test_physical();
  test_create();
  test_sequential();
  test_set_conflict();
  test_bcache_reuse();
  test_pointer_chase();
  test_dtb();
  test_asn();
  test_icache();
  test_in_flight();
  test_maf();
  test_functional();
  test_writeback();
  test_cross_line();
  bench();
  return check_done();
}
