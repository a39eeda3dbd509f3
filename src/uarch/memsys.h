/* The 21264/EV67 memory hierarchy for the timing model: Icache and Dcache
 * (64 KB, 2-way, 64-byte lines, round-robin), a direct-mapped unified Bcache,
 * memory behind it, ITB and DTB (128 entries, fully associative, round-robin,
 * 8 KB pages, ASN-tagged) and the 8-entry miss address file. Every size and
 * latency comes from the ev67_config given to memsys_create; all state is
 * allocated there, nothing is allocated per access. Cycles are absolute and
 * calls should come in roughly increasing cycle order (out-of-order issue is
 * tolerated, see docs/timing.md "Memory hierarchy"). Addresses are as the
 * 21264 uses them (HRM 2.1.5): the Icache is virtually indexed and tagged
 * (with the ASN), the Dcache virtually indexed and physically tagged (one of
 * the synonyms of a physical line at a time, HRM 2.1.5.2), the Bcache, the
 * MAF and memory physical; the TBs are looked up by virtual page. Physical
 * addresses come with each data access and, for fetches, from a translation
 * callback (the identity when none is set). */
#ifndef UARCH_MEMSYS_H
#define UARCH_MEMSYS_H
#include <stdbool.h>
#include <stdint.h>
#include "uarch/uarch.h"

struct memsys;

/* An asn with this bit set names a translation or Icache line with the ASM
 * bit (HRM 2.1.1.3): it matches in every address space (kernel pages). Other
 * ASNs are compared in their low 8 bits, as the hardware's 8-bit ASN field. */
#define MEMSYS_ASN_GLOBAL 0x80000000u

/* What one access cost and where it was served. */
struct mem_access {
  unsigned latency;  /* data: load-to-use cycles from the issue cycle (an L1 hit is
                        cfg->lat_ld_int; the caller adds FP's extra cycle);
                        fetch: extra cycles before the block can be fetched (0 on a
                        hit). Includes tb_fill_cycles on a TB miss and any wait for
                        a free MAF entry. */
  uint8_t level;     /* enum ev67_level: LVL_L1, LVL_BCACHE or LVL_MEM */
  bool tlb_miss;     /* DTB (data) or ITB (fetch) miss; the entry is now installed */
  bool l1_miss;      /* the line was not in the Dcache/Icache (also true when merged) */
  bool bc_miss;      /* the line comes from memory */
  bool merged;       /* the line's fill was already in flight: remaining latency only */
  bool maf_wait;     /* the miss waited for a free MAF entry */
};

/* Ground truth, counted exactly. A data access that crosses a line counts
 * once in loads/stores and once per line in dc_accesses. */
struct memsys_stats {
  uint64_t loads, stores;
  uint64_t dc_accesses, dc_misses, dc_merges, dc_writebacks;
  uint64_t ic_accesses, ic_misses, ic_merges;
  uint64_t bc_accesses, bc_misses, bc_writebacks;
  uint64_t bc_back_invals;      /* Dcache lines invalidated to keep the Dcache a subset */
  uint64_t dc_aliases;          /* a line found under another virtual index (a synonym) and moved */
  uint64_t dtb_accesses, dtb_misses, itb_accesses, itb_misses;
  uint64_t maf_waits, maf_wait_cycles;
};

/* Returns a cold hierarchy sized by cfg (copied), or NULL when a size is not
 * a power of two or an allocation fails. */
struct memsys *memsys_create(const struct ev67_config *cfg);
void memsys_destroy(struct memsys *ms);

/* A data load or store of size bytes at va (physical address pa), issued at
 * cycle, in address space asn: DTB, Dcache, Bcache, memory. Stores
 * write-allocate and dirty the line. An access that crosses a line boundary
 * touches both lines (the second at pa plus the same distance) and reports
 * the slower. Fills *out. */
void memsys_data_pa(struct memsys *ms, unsigned asn, uint64_t va, uint64_t pa, unsigned size,
                    bool store, uint64_t cycle, struct mem_access *out);
/* Functional warming's common case, without memsys_data_pa's report: an
 * access within one line to a page the DTB maps and a line the Dcache
 * holds, filled. Does (and counts) what memsys_data_pa does for it
 * and returns true; anything else returns false having changed nothing. */
bool memsys_warm_hit(struct memsys *ms, unsigned asn, uint64_t va, uint64_t pa, unsigned size,
                     bool store, uint64_t cycle);
/* The same with pa = va (tests of the hierarchy alone). */
void memsys_data(struct memsys *ms, unsigned asn, uint64_t va, unsigned size, bool store,
                 uint64_t cycle, struct mem_access *out);

/* The physical address of virtual address va in address space asn, for the
 * fills of Icache misses (the ITB's translation). */
typedef uint64_t (*memsys_xlate_fn)(void *ctx, unsigned asn, uint64_t va);
/* Sets the translation (NULL: the identity). */
void memsys_set_xlate(struct memsys *ms, memsys_xlate_fn fn, void *ctx);

/* An instruction fetch of the aligned block holding pc at cycle: Icache, and
 * on an Icache miss only the ITB (HRM 2.1.1.3), then Bcache and memory.
 * Fills *out. */
void memsys_fetch(struct memsys *ms, unsigned asn, uint64_t pc, uint64_t cycle,
                  struct mem_access *out);
/* Functional warming's common case: a fetch from a line the Icache holds,
 * filled. Counts it as memsys_fetch does and returns true; else false,
 * having changed nothing. */
bool memsys_warm_fetch_hit(struct memsys *ms, unsigned asn, uint64_t pc, uint64_t cycle);

/* Functional warming's accesses (ev67_warm): with `on`, a miss never waits
 * for a MAF entry; with all eight busy it takes the oldest's. Warming
 * presents its accesses at estimated cycles, faster than misses are served
 * in a missing phase: queued, its fills ran thousands of cycles ahead of the
 * clock, and the next detailed window or timed kernel path waited for them.
 * So at most eight fills are in flight, none more than a miss ahead, as
 * the exact machine would have them. */
void memsys_set_functional(struct memsys *ms, bool on);

/* Invalidates the whole Icache (CALL_PAL imb). */
void memsys_flush_icache(struct memsys *ms);

/* Invalidates every ITB and DTB entry, global ones included (tbia). */
void memsys_flush_tbs(struct memsys *ms);

/* Returns the counters (owned by ms, live). */
const struct memsys_stats *memsys_stats(const struct memsys *ms);

#endif
