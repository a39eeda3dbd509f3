/* The EV67 memory hierarchy (see memsys.h). HRM = Alpha 21264/EV67 Hardware
 * Reference Manual, DS-0028B-TE. Invariants: a valid Dcache line is also in
 * the Bcache (the Dcache is kept a subset of the Bcache, HRM 4.5.1); a line is
 * installed in its caches when its miss is presented and carries the cycle its
 * fill completes, so a later access before then pays only the rest; a MAF
 * entry is busy while its ready cycle is after the current cycle. The Icache
 * is not kept a subset (software keeps it coherent with imb, HRM 4.5.1).
 * Dcache tags, Bcache tags and MAF lines are physical; a Dcache set is chosen
 * by virtual address bits, and a physical line is in at most one of the sets
 * its virtual index may name (the synonyms; HRM 2.1.5.2). */
#include <stdlib.h>
#include <string.h>
#include "uarch/memsys.h"
#include "util/assert.h"

#define PAGE_SHIFT 13          /* 8 KB pages; an entry maps one (HRM 2.1.1.3, 2.1.6.4) */
#define ASN_BITS 9             /* 8-bit ASN plus the ASM bit */
#define ASN_ASM  0x100u        /* the ASN field of a global (ASM) entry or line */
#define TB_EMPTY UINT64_MAX    /* never a key: vpn < 2^51, so keys < 2^60 */

/* A line's tag word: the line address with its state in the offset bits. */
#define T_VALID     0x1u
#define T_DIRTY     0x2u
#define T_LVL_SHIFT 2          /* enum ev67_level of the fill, 2 bits */
#define T_LVL_MASK  (0x3u << T_LVL_SHIFT)
#define T_MATCH     (~(uint64_t)(T_DIRTY | T_LVL_MASK))  /* address and valid bit */

struct line {
  uint64_t tag;      /* line address | T_*; 0 when invalid */
  uint64_t ready;    /* cycle the fill completes; at or before "now" = resident */
  uint32_t lat;      /* the fill's latency from its request (ready - request) */
  uint32_t asn;      /* Icache only: ASN field of the line (HRM 2.1.5.1 tags) */
};

struct cache {
  struct line *lines;   /* sets x ways, set-major */
  uint8_t *rr;          /* per set: the way the next allocation takes */
  unsigned ways;
  uint64_t set_mask;
};

/* A fully associative TB: keys in an array walked round-robin for
 * replacement, found through a small chained hash; mru_key short-cuts
 * repeated lookups of one page. */
struct tb {
  uint64_t *key;        /* vpn << ASN_BITS | ASN field, or TB_EMPTY */
  int32_t *next;        /* hash chain through entries, -1 ends */
  int32_t *head;        /* buckets */
  unsigned n, rr, nbuckets, hshift;
  uint64_t mru_key;     /* last key that hit (may name a global entry) */
};

struct maf {
  uint64_t line, ready;
  uint32_t lat;
  uint8_t level;
};

struct memsys {
  struct ev67_config cfg;
  unsigned line_shift;
  uint64_t line_mask;   /* ~(line_bytes - 1) */
  struct cache dc, ic;
  uint64_t *bc;         /* direct-mapped Bcache tags: line | T_VALID | T_DIRTY */
  uint64_t bc_mask;
  struct tb dtb, itb;
  struct maf *maf;
  unsigned nmaf;
  unsigned dc_synonyms;  /* Dcache sets a physical line may be in: 2^(index bits above the page) */
  memsys_xlate_fn xlate;
  void *xlate_ctx;
  bool functional;      /* memsys_set_functional */
  struct memsys_stats st;
};

/* The outcome of presenting an L1 miss to the MAF / Bcache / memory. */
struct fill {
  uint64_t ready;
  uint32_t lat;
  uint8_t level;
};

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static unsigned log2u(uint64_t x)
{
  unsigned n = 0;
  while (x >>= 1) n++;
  return n;
}

/* Returns the ASN field stored in TB keys and Icache lines. */
static unsigned asn_field(unsigned asn)
{
  return (asn & MEMSYS_ASN_GLOBAL) ? ASN_ASM : (asn & 0xffu);
}

/* Returns the cycles still to wait for a fill completing at ready whose
 * latency from its request was lat. An access presented before that request
 * (out-of-order issue) would have started the fill itself: it pays lat. */
static unsigned remaining(uint64_t ready, uint32_t lat, uint64_t cycle)
{
  PM_ASSERT(ready >= cycle);   /* asked only of fills still in flight or just requested */
  uint64_t r = ready - cycle;
  return r > lat ? lat : (unsigned)r;
}

/* ---- translation buffers ---- */

static unsigned tb_hash(const struct tb *t, uint64_t key)
{
  return (unsigned)((key * 0x9E3779B97F4A7C15ull) >> t->hshift);
}

static void tb_clear(struct tb *t)
{
  for (unsigned i = 0; i < t->n; i++) t->key[i] = TB_EMPTY;
  memset(t->head, 0xff, t->nbuckets * sizeof *t->head);
  t->mru_key = TB_EMPTY;
}

static bool tb_init(struct tb *t, unsigned n)
{
  unsigned buckets = 1;
  while (buckets < 2 * n) buckets <<= 1;
  t->n = n;
  t->nbuckets = buckets;
  t->rr = 0;   /* entry 0 is the first written after reset (HRM 5.2.1) */
  t->hshift = 64 - log2u(buckets);
  t->key = malloc(n * sizeof *t->key);
  t->next = malloc(n * sizeof *t->next);
  t->head = malloc(buckets * sizeof *t->head);
  if (!t->key || !t->next || !t->head) return false;
  tb_clear(t);
  return true;
}

static void tb_free(struct tb *t)
{
  free(t->key);
  free(t->next);
  free(t->head);
}

/* Returns the entry holding key, or -1. */
static int tb_find(const struct tb *t, uint64_t key)
{
  for (int32_t i = t->head[tb_hash(t, key)]; i >= 0; i = t->next[i])
    if (t->key[i] == key) return i;
  return -1;
}

/* Writes key into the round-robin victim entry (the PALcode fill). */
static void tb_insert(struct tb *t, uint64_t key)
{
  unsigned v = t->rr;
  t->rr = v + 1 == t->n ? 0 : v + 1;
  if (t->key[v] != TB_EMPTY) {
    int32_t *p = &t->head[tb_hash(t, t->key[v])];
    while (*p != (int32_t)v) {
      PM_ASSERT(*p >= 0);   /* a key in use is on its bucket's chain */
      p = &t->next[*p];
    }
    *p = t->next[v];
  }
  unsigned h = tb_hash(t, key);
  t->key[v] = key;
  t->next[v] = t->head[h];
  t->head[h] = (int32_t)v;
}

/* Whether the page is mapped by an entry of this ASN or a global one (a
 * hit becomes the MRU key; nothing else changes). */
static bool tb_hit(struct tb *t, uint64_t va, unsigned asnf)
{
  uint64_t vpn = va >> PAGE_SHIFT, key = vpn << ASN_BITS | asnf;
  if (key == t->mru_key) return true;
  if (tb_find(t, key) >= 0 ||
      (asnf != ASN_ASM && tb_find(t, vpn << ASN_BITS | ASN_ASM) >= 0)) {
    t->mru_key = key;
    return true;
  }
  return false;
}

/* Returns true when the page is mapped by an entry of this ASN or a global
 * one; on a miss installs the translation and returns false. */
static bool tb_lookup(struct tb *t, uint64_t va, unsigned asnf)
{
  if (tb_hit(t, va, asnf)) return true;
  uint64_t key = (va >> PAGE_SHIFT) << ASN_BITS | asnf;
  tb_insert(t, key);
  t->mru_key = key;
  return false;
}

/* ---- caches ---- */

static bool cache_init(struct cache *c, unsigned bytes, unsigned ways, unsigned line_bytes)
{
  if (!ways || ways > 255 || bytes % (ways * line_bytes)) return false;
  uint64_t sets = bytes / (ways * line_bytes);
  if (!is_pow2(sets)) return false;
  c->ways = ways;
  c->set_mask = sets - 1;
  c->lines = calloc(sets * ways, sizeof *c->lines);
  c->rr = calloc(sets, 1);
  return c->lines && c->rr;
}

static struct line *cache_set(const struct memsys *ms, const struct cache *c, uint64_t addr)
{
  return &c->lines[((addr >> ms->line_shift) & c->set_mask) * c->ways];
}

/* Returns the way a fill into set takes: an invalid way if there is one, else
 * the round-robin one (one allocation bit per row of two blocks, HRM 2.1.5.2);
 * the pointer then moves past it. */
static struct line *cache_victim(struct cache *c, struct line *set)
{
  uint64_t si = (uint64_t)(set - c->lines) / c->ways;
  unsigned v = c->rr[si];
  PM_ASSERT(si <= c->set_mask && v < c->ways);
  for (unsigned w = 0; w < c->ways; w++)
    if (!(set[w].tag & T_VALID)) {
      v = w;
      break;
    }
  c->rr[si] = (uint8_t)(v + 1 == c->ways ? 0 : v + 1);
  return &set[v];
}

/* The k-th address whose virtual index names a set physical line `line` may
 * be in: its page offset bits with k in the index bits above the page. */
static uint64_t synonym(uint64_t line, unsigned k)
{
  return (line & (((uint64_t)1 << PAGE_SHIFT) - 1)) | (uint64_t)k << PAGE_SHIFT;
}

/* For the checks of the invariants above: whether the Bcache holds physical
 * line `line`, and in how many Dcache lines it is, over all the sets its
 * virtual index may name. */
static bool bc_holds(const struct memsys *ms, uint64_t line)
{
  return (ms->bc[(line >> ms->line_shift) & ms->bc_mask] & ~(uint64_t)T_DIRTY) == (line | T_VALID);
}

static unsigned dc_copies(const struct memsys *ms, uint64_t line)
{
  unsigned n = 0;
  for (unsigned k = 0; k < ms->dc_synonyms; k++) {
    const struct line *set = cache_set(ms, &ms->dc, synonym(line, k));
    for (unsigned w = 0; w < ms->dc.ways; w++)
      n += (set[w].tag & T_MATCH) == (line | T_VALID);
  }
  return n;
}

/* Writes a dirty Dcache victim into the Bcache (through the victim buffer,
 * HRM 2.1.4.1; its occupancy is not modelled). */
static void dc_writeback(struct memsys *ms, uint64_t line)
{
  uint64_t *b = &ms->bc[(line >> ms->line_shift) & ms->bc_mask];
  ms->st.dc_writebacks++;
  if ((*b & ~(uint64_t)T_DIRTY) == (line | T_VALID))
    *b |= T_DIRTY;
  else
    ms->st.bc_writebacks++;   /* not resident: straight to memory */
}

/* Evicts the Bcache block tag: invalidates its Dcache copy to keep the
 * Dcache a subset (HRM 4.5.1) and counts a writeback if either copy is dirty. */
static void bc_evict(struct memsys *ms, uint64_t tag)
{
  uint64_t line = tag & ms->line_mask;
  bool dirty = tag & T_DIRTY;
  for (unsigned k = 0; k < ms->dc_synonyms; k++) {
    struct line *set = cache_set(ms, &ms->dc, synonym(line, k));
    for (unsigned w = 0; w < ms->dc.ways; w++)
      if ((set[w].tag & T_MATCH) == (line | T_VALID)) {
        dirty |= set[w].tag & T_DIRTY;
        set[w].tag = 0;
        ms->st.bc_back_invals++;
      }
  }
  if (dirty) ms->st.bc_writebacks++;
}

/* Presents an L1 miss for line at cycle. Merges with a fill of the same line
 * in flight (HRM 2.8.1: a miss to a block already in the MAF is discarded);
 * otherwise takes a free MAF entry, or waits for the first to free when all
 * are busy (HRM 2.1.6.3), and reads the Bcache, then memory. Returns true
 * when it merged. */
static bool fill_line(struct memsys *ms, uint64_t line, uint64_t cycle, struct fill *f,
                      struct mem_access *o)
{
  unsigned free_i = ms->nmaf, early = 0;
  for (unsigned i = 0; i < ms->nmaf; i++) {
    const struct maf *m = &ms->maf[i];
    if (m->ready <= cycle) {
      if (free_i == ms->nmaf) free_i = i;
      continue;
    }
    if (m->line == line) {
      /* The fill lands in the Bcache: should a conflicting miss presented
       * since have taken the block (and the line's Dcache copies with it),
       * the line takes it back, so that the copy this merge installs keeps
       * the Dcache a subset of the Bcache. */
      uint64_t *b = &ms->bc[(line >> ms->line_shift) & ms->bc_mask];
      if ((*b & ~(uint64_t)T_DIRTY) != (line | T_VALID)) {
        if (*b & T_VALID) bc_evict(ms, *b);
        *b = line | T_VALID;
      }
      *f = (struct fill){ m->ready, m->lat, m->level };
      return true;
    }
    if (m->ready < ms->maf[early].ready) early = i;
  }
  uint64_t start = cycle;
  if (free_i == ms->nmaf) {
    /* every entry busy: wait for the first to free (warming never queues:
     * the oldest fill makes room) */
    PM_ASSERT(ms->maf[early].ready > cycle);
    free_i = early;
    if (!ms->functional) {
      start = ms->maf[early].ready;
      o->maf_wait = true;
      ms->st.maf_waits++;
      ms->st.maf_wait_cycles += start - cycle;
    }
  }
  uint64_t *b = &ms->bc[(line >> ms->line_shift) & ms->bc_mask];
  unsigned flat = ms->cfg.bcache_latency;
  f->level = LVL_BCACHE;
  ms->st.bc_accesses++;
  if ((*b & ~(uint64_t)T_DIRTY) != (line | T_VALID)) {
    ms->st.bc_misses++;
    flat += ms->cfg.mem_latency;
    f->level = LVL_MEM;
    if (*b & T_VALID) bc_evict(ms, *b);
    *b = line | T_VALID;
  }
  f->ready = start + flat;
  f->lat = (uint32_t)(f->ready - cycle);
  PM_ASSERT(f->ready >= cycle && bc_holds(ms, line));
  ms->maf[free_i] = (struct maf){ line, f->ready, f->lat, f->level };
  return false;
}

/* Reports an access served by a fill: in flight or just requested. */
static void report_fill(struct mem_access *o, unsigned lat, uint8_t level, bool merged)
{
  o->latency += lat;
  o->level = level;
  o->l1_miss = true;
  o->bc_miss = level == LVL_MEM;
  o->merged = merged;
}

/* One line of a data access. o starts zeroed. */
/* A Dcache miss for physical line `line` in set home: a copy of the line under
 * another virtual index (a synonym) leaves that set, written back if dirty,
 * so that the fill is its only copy. */
static void dc_unalias(struct memsys *ms, uint64_t line, const struct line *home)
{
  if (ms->dc_synonyms < 2) return;
  for (unsigned k = 0; k < ms->dc_synonyms; k++) {
    struct line *set = cache_set(ms, &ms->dc, synonym(line, k));
    if (set == home) continue;
    for (unsigned w = 0; w < ms->dc.ways; w++)
      if ((set[w].tag & T_MATCH) == (line | T_VALID)) {
        if (set[w].tag & T_DIRTY) dc_writeback(ms, line);
        set[w].tag = 0;
        ms->st.dc_aliases++;
      }
  }
}

static void data_line(struct memsys *ms, unsigned asnf, uint64_t va, uint64_t pa, bool store,
                      uint64_t cycle, struct mem_access *o)
{
  ms->st.dtb_accesses++;
  if (!tb_lookup(&ms->dtb, va, asnf)) {
    /* The PALcode fill runs first; the access is replayed after it. */
    ms->st.dtb_misses++;
    o->tlb_miss = true;
    o->latency = ms->cfg.tb_fill_cycles;
    cycle += ms->cfg.tb_fill_cycles;
  }
  uint64_t line = pa & ms->line_mask;
  unsigned hit = ms->cfg.lat_ld_int;
  struct line *set = cache_set(ms, &ms->dc, va);
  ms->st.dc_accesses++;
  for (unsigned w = 0; w < ms->dc.ways; w++) {
    struct line *l = &set[w];
    if ((l->tag & T_MATCH) != (line | T_VALID)) continue;
    PM_ASSERT(bc_holds(ms, line));   /* the Dcache is a subset of the Bcache */
    if (store) l->tag |= T_DIRTY;
    if (l->ready <= cycle) {
      o->latency += hit;
      o->level = LVL_L1;
      return;
    }
    unsigned r = remaining(l->ready, l->lat, cycle);
    ms->st.dc_merges++;
    report_fill(o, r > hit ? r : hit, (uint8_t)((l->tag & T_LVL_MASK) >> T_LVL_SHIFT), true);
    return;
  }
  dc_unalias(ms, line, set);
  struct fill f;
  bool merged = fill_line(ms, line, cycle, &f, o);
  if (merged) ms->st.dc_merges++;
  else ms->st.dc_misses++;
  struct line *v = cache_victim(&ms->dc, set);
  if ((v->tag & (T_VALID | T_DIRTY)) == (T_VALID | T_DIRTY)) dc_writeback(ms, v->tag & ms->line_mask);
  v->tag = line | T_VALID | (store ? T_DIRTY : 0) | (uint64_t)f.level << T_LVL_SHIFT;
  v->ready = f.ready;
  v->lat = f.lat;
  /* The fill is in the Bcache too, and the line's only Dcache copy. */
  PM_ASSERT(bc_holds(ms, line) && dc_copies(ms, line) == 1);
  unsigned r = remaining(f.ready, f.lat, cycle);
  report_fill(o, r > hit ? r : hit, f.level, merged);
}

void memsys_data_pa(struct memsys *ms, unsigned asn, uint64_t va, uint64_t pa, unsigned size,
                    bool store, uint64_t cycle, struct mem_access *out)
{
  unsigned asnf = asn_field(asn);
  uint64_t last = va + (size ? size - 1 : 0);
  *out = (struct mem_access){ 0 };
  if (store) ms->st.stores++;
  else ms->st.loads++;
  data_line(ms, asnf, va, pa, store, cycle, out);
  if ((last ^ va) & ms->line_mask) {
    struct mem_access o2 = { 0 };
    data_line(ms, asnf, last, pa + (last - va), store, cycle, &o2);
    if (o2.latency > out->latency) out->latency = o2.latency;
    if (o2.level > out->level) out->level = o2.level;
    out->tlb_miss |= o2.tlb_miss;
    out->l1_miss |= o2.l1_miss;
    out->bc_miss |= o2.bc_miss;
    out->merged |= o2.merged;
    out->maf_wait |= o2.maf_wait;
  }
}

/* The set scans here and in memsys_warm_fetch_hit repeat data_line's and
 * memsys_fetch's on purpose: LTO inlines these into warming's event loop,
 * and with a way-finding helper shared with the general paths it stopped
 * doing so (stat --sampled on the demo 4.3 -> 4.4-4.8 CPU s). */
bool memsys_warm_hit(struct memsys *ms, unsigned asn, uint64_t va, uint64_t pa, unsigned size,
                     bool store, uint64_t cycle)
{
  if (((va + (size ? size - 1 : 0)) ^ va) & ms->line_mask) return false;
  uint64_t line = pa & ms->line_mask;
  struct line *set = cache_set(ms, &ms->dc, va);
  for (unsigned w = 0; w < ms->dc.ways; w++) {
    struct line *l = &set[w];
    if ((l->tag & T_MATCH) != (line | T_VALID)) continue;
    if (l->ready > cycle || !tb_hit(&ms->dtb, va, asn_field(asn))) return false;
    PM_ASSERT(bc_holds(ms, line));
    /* what memsys_data_pa counts for the same hit */
    if (store) {
      ms->st.stores++;
      l->tag |= T_DIRTY;
    } else {
      ms->st.loads++;
    }
    ms->st.dtb_accesses++;
    ms->st.dc_accesses++;
    return true;
  }
  return false;
}

void memsys_data(struct memsys *ms, unsigned asn, uint64_t va, unsigned size, bool store,
                 uint64_t cycle, struct mem_access *out)
{
  memsys_data_pa(ms, asn, va, va, size, store, cycle, out);
}

void memsys_set_functional(struct memsys *ms, bool on) { ms->functional = on; }

void memsys_set_xlate(struct memsys *ms, memsys_xlate_fn fn, void *ctx)
{
  ms->xlate = fn;
  ms->xlate_ctx = ctx;
}

void memsys_fetch(struct memsys *ms, unsigned asn, uint64_t pc, uint64_t cycle,
                  struct mem_access *out)
{
  unsigned asnf = asn_field(asn);
  uint64_t line = pc & ms->line_mask;
  struct line *set = cache_set(ms, &ms->ic, pc);
  *out = (struct mem_access){ .level = LVL_L1 };
  ms->st.ic_accesses++;
  for (unsigned w = 0; w < ms->ic.ways; w++) {
    struct line *l = &set[w];
    if ((l->tag & T_MATCH) != (line | T_VALID) || (l->asn != asnf && l->asn != ASN_ASM))
      continue;
    if (l->ready > cycle) {
      ms->st.ic_merges++;
      report_fill(out, remaining(l->ready, l->lat, cycle),
                  (uint8_t)((l->tag & T_LVL_MASK) >> T_LVL_SHIFT), true);
    }
    return;
  }
  /* The ITB is consulted only on an Icache miss (HRM 2.1.1.3). */
  ms->st.itb_accesses++;
  if (!tb_lookup(&ms->itb, pc, asnf)) {
    ms->st.itb_misses++;
    out->tlb_miss = true;
    out->latency = ms->cfg.tb_fill_cycles;
    cycle += ms->cfg.tb_fill_cycles;
  }
  /* The fill reads the Bcache and memory at the ITB's physical address. */
  uint64_t pline = ms->xlate ? ms->xlate(ms->xlate_ctx, asn, pc) & ms->line_mask : line;
  struct fill f;
  bool merged = fill_line(ms, pline, cycle, &f, out);
  if (merged) ms->st.ic_merges++;
  else ms->st.ic_misses++;
  struct line *v = cache_victim(&ms->ic, set);
  v->tag = line | T_VALID | (uint64_t)f.level << T_LVL_SHIFT;
  v->ready = f.ready;
  v->lat = f.lat;
  v->asn = asnf;
  report_fill(out, remaining(f.ready, f.lat, cycle), f.level, merged);
}

bool memsys_warm_fetch_hit(struct memsys *ms, unsigned asn, uint64_t pc, uint64_t cycle)
{
  unsigned asnf = asn_field(asn);
  uint64_t line = pc & ms->line_mask;
  const struct line *set = cache_set(ms, &ms->ic, pc);
  for (unsigned w = 0; w < ms->ic.ways; w++) {
    const struct line *l = &set[w];
    if ((l->tag & T_MATCH) != (line | T_VALID) || (l->asn != asnf && l->asn != ASN_ASM)) continue;
    if (l->ready > cycle) return false;
    ms->st.ic_accesses++;   /* what memsys_fetch counts for the same hit */
    return true;
  }
  return false;
}

void memsys_flush_icache(struct memsys *ms)
{
  memset(ms->ic.lines, 0, (ms->ic.set_mask + 1) * ms->ic.ways * sizeof *ms->ic.lines);
}

void memsys_flush_tbs(struct memsys *ms)
{
  tb_clear(&ms->itb);
  tb_clear(&ms->dtb);
}

const struct memsys_stats *memsys_stats(const struct memsys *ms)
{
  return &ms->st;
}

void memsys_destroy(struct memsys *ms)
{
  if (!ms) return;
  free(ms->dc.lines);
  free(ms->dc.rr);
  free(ms->ic.lines);
  free(ms->ic.rr);
  free(ms->bc);
  tb_free(&ms->dtb);
  tb_free(&ms->itb);
  free(ms->maf);
  free(ms);
}

struct memsys *memsys_create(const struct ev67_config *cfg)
{
  unsigned lb = cfg->line_bytes;
  if (!is_pow2(lb) || lb < 16 || !is_pow2(cfg->bcache_bytes) || cfg->bcache_bytes < lb ||
      !cfg->itb_entries || !cfg->dtb_entries || !cfg->maf_entries)
    return NULL;
  struct memsys *ms = calloc(1, sizeof *ms);
  if (!ms) return NULL;
  ms->cfg = *cfg;
  ms->line_shift = log2u(lb);
  ms->line_mask = ~(uint64_t)(lb - 1);
  ms->bc_mask = cfg->bcache_bytes / lb - 1;
  ms->nmaf = cfg->maf_entries;
  {
    uint64_t way_bytes = cfg->l1d_ways ? cfg->l1d_bytes / cfg->l1d_ways : 0;
    ms->dc_synonyms = way_bytes > ((uint64_t)1 << PAGE_SHIFT) ? (unsigned)(way_bytes >> PAGE_SHIFT) : 1;
  }
  ms->bc = calloc(ms->bc_mask + 1, sizeof *ms->bc);
  ms->maf = calloc(ms->nmaf, sizeof *ms->maf);
  bool ok = ms->bc && ms->maf && cache_init(&ms->dc, cfg->l1d_bytes, cfg->l1d_ways, lb) &&
            cache_init(&ms->ic, cfg->l1i_bytes, cfg->l1i_ways, lb) &&
            tb_init(&ms->dtb, cfg->dtb_entries) && tb_init(&ms->itb, cfg->itb_entries);
  if (!ok) {
    memsys_destroy(ms);
    return NULL;
  }
  return ms;
}
