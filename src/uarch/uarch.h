/* The EV67 timing model's shared vocabulary: the configuration (every size and
 * latency in one const struct, and the table of the parameters a what-if
 * machine may change), the per-instruction record the functional core
 * hands over before an instruction commits, and the fate record the timing
 * model produces for every fetched instruction (including wrong-path ones),
 * which the PMU and the ground-truth counters consume. Cycle numbers are
 * absolute CPU cycles since reset. Sources for each value: docs/timing.md. */
#ifndef UARCH_H
#define UARCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "isa/isa.h"
#include "guest/cpu.h"

struct ev67_config {
  /* front end (HRM 2.1.1, 2.2) */
  unsigned fetch_width;          /* 4 aligned instructions per cycle (a power of two) */
  unsigned local_hist_entries;   /* 1024 x 10-bit local histories, index VPC[11:2] */
  unsigned local_hist_bits;      /* 10 */
  unsigned local_ctr_bits;       /* 3-bit local counters (1024 of them) */
  unsigned global_hist_bits;     /* 12-bit path history */
  unsigned global_entries;       /* 4096 x 2-bit global counters */
  unsigned choice_entries;       /* 4096 x 2-bit choice counters */
  unsigned ras_entries;          /* return stack: HRM silent, our choice */
  unsigned jump_entries;         /* indirect-jump target table (line predictor stand-in) */
  unsigned stwait_entries;       /* 1024 x 1-bit stWait table */
  /* window and queues (HRM 2.1.1.1, 2.1.1.6-7, Fig. 2-1) */
  unsigned inflight;             /* 80 instructions between map and retire */
  unsigned inum_group;           /* inums allocated in groups of 4 (fixed: the aligned quad) */
  unsigned iq_entries;           /* 20-entry integer queue */
  unsigned fq_entries;           /* 15-entry FP queue */
  unsigned int_phys_regs;        /* 80 */
  unsigned fp_phys_regs;         /* 72 */
  unsigned lq_entries, sq_entries;   /* 32 + 32 */
  unsigned map_width;            /* instructions mapped per cycle (4) */
  unsigned retire_width;         /* retires per cycle at most (11; the PMU counts 8) */
  unsigned cross_cluster;        /* 1-cycle Ebox cross-cluster delay */
  /* latencies (HRM Table 2-4) */
  unsigned lat_iadd, lat_ishf, lat_imul, lat_imisc, lat_ld_int, lat_ld_fp;
  unsigned lat_fadd, lat_fmul, lat_fdiv_s, lat_fdiv_t, lat_fsqrt_s, lat_fsqrt_t;
  unsigned lat_itof, lat_ftoi;
  /* caches and TLBs (HRM 2.1.5, 2.1.6, 4.3) */
  unsigned line_bytes;           /* 64 */
  unsigned l1i_bytes, l1i_ways, l1d_bytes, l1d_ways;
  unsigned bcache_bytes;         /* direct-mapped, 1-16 MB */
  unsigned bcache_latency;       /* load-to-use on an L1 miss that hits the B-cache */
  unsigned mem_latency;          /* on a B-cache miss: system dependent, our choice */
  unsigned itb_entries, dtb_entries;   /* 128 each, fully associative, round robin */
  unsigned tb_fill_cycles;       /* PALcode TB-fill cost (our choice from traps.c paths) */
  unsigned maf_entries;          /* 8 outstanding Icache/Dcache fills (miss address file) */
  /* abort penalties (HRM Table 2-1) */
  unsigned pen_branch, pen_jump, pen_mbox_order, pen_mbox_other, pen_dtb_miss, pen_itb_miss,
           pen_int_arith, pen_fp_arith;   /* mbox_other, int/fp_arith: not modelled */
  unsigned unaligned_fixup;      /* PAL entry/exit cycles around the unaligned fix-up (ours);
                                    the kernel path itself runs as instructions */
};

/* The defaults: the 21264/EV67 as the HRM describes it. */
extern const struct ev67_config ev67_default_config;

/* The parameters a what-if machine may change (`--uarch KEY=VALUE`): one row
 * per field the timing model honours, with its range and where the default
 * comes from. Fields without a row (inum_group, pen_mbox_other,
 * pen_int_arith, pen_fp_arith) are not modelled or fixed by the structure,
 * so they are not offered. */
#define EV67_PARAM_POW2  0x1u     /* a power of two */
#define EV67_PARAM_MUL4  0x2u     /* a multiple of 4 */
#define EV67_PARAM_BYTES 0x4u     /* a size: K, M and G suffixes accepted */
struct ev67_param {
  const char *key;                /* the field's name */
  size_t offset;                  /* offsetof(struct ev67_config, key) */
  unsigned min, max, flags;       /* accepted values; EV67_PARAM_* */
  const char *group;              /* "front end", "window", "latency", "memory", "penalty" */
  const char *what;               /* what it is, with its unit */
  const char *source;             /* where the default comes from (HRM section, or "ours: ...") */
  const char *limits;             /* why the range is what it is */
};
/* The table, in display order; *n gets its length. */
const struct ev67_param *ev67_params(size_t *n);
/* The row of key, or NULL. */
const struct ev67_param *ev67_param_find(const char *key);
/* The value of p in c. */
unsigned ev67_param_get(const struct ev67_config *c, const struct ev67_param *p);
/* Writes v as --uarch takes it ("64K" for a size of 65536 bytes, else the
 * number) into buf[len]. */
void ev67_param_value(const struct ev67_param *p, unsigned v, char *buf, size_t len);
/* Writes the accepted values as a phrase ("a power of two from 1 to 16"). */
void ev67_param_range(const struct ev67_param *p, char *buf, size_t len);

/* Sets parameters from "KEY=VALUE[,KEY=VALUE...]" (items separated by
 * commas or newlines, blanks around them skipped; an empty list changes
 * nothing). Each value is checked against its row only: call
 * ev67_config_check once every list is applied, since a relation may need
 * two of them (l1d_ways=3 then l1d_bytes=96K). Returns 0, or -1 with why (one
 * line: the item, what is wrong and why) in why[len]. */
int ev67_config_parse(struct ev67_config *c, const char *list, char *why, size_t len);
/* Checks the relations between parameters (cache geometry, fetch block in a
 * line, latencies that must not be inverted). Returns 0 or -1 with why. */
int ev67_config_check(const struct ev67_config *c, char *why, size_t len);
/* Writes "KEY=VALUE,..." for every parameter (all) or for those that differ
 * from ev67_default_config, in table order, into buf[len] (truncated, always
 * terminated). Returns the length it needed; an empty string for defaults. */
size_t ev67_config_format(const struct ev67_config *c, bool all, char *buf, size_t len);

/* struct uarch_insn (what the functional core knows about an instruction before
 * it commits) is defined by the core, in guest/cpu.h. */

/* Trap types as I_STAT[TRAP_TYPE] encodes them (HRM Table 5-12). */
enum ev67_trap {
  EV67_TRAP_REPLAY = 0, EV67_TRAP_DTB_DOUBLE3 = 2, EV67_TRAP_DTB_DOUBLE4 = 3,
  EV67_TRAP_FPDISABLED = 4, EV67_TRAP_UNALIGNED = 5, EV67_TRAP_DTB_MISS = 6,
  EV67_TRAP_DFAULT = 7, EV67_TRAP_OPCDEC = 8, EV67_TRAP_MCHK = 10, EV67_TRAP_ARITH = 12,
  EV67_TRAP_MT_FPCR = 14, EV67_TRAP_RESET = 15,
  EV67_TRAP_NONE = 0xFF
};
/* PMPC redirect cases (HRM Table 5-12): not TRAP_TYPE codes. */
#define EV67_PMPC_ITB_MISS  0x581
#define EV67_PMPC_IACV      0x481
#define EV67_PMPC_INTERRUPT 0x681

/* Fate flags. */
#define FATE_RETIRED      0x0001  /* retired (not aborted) */
#define FATE_KILLED_BM    0x0002  /* killed at or before map (PM_KILLED_BM) */
#define FATE_KILLED_AM    0x0004  /* killed after map */
#define FATE_WRONG_PATH   0x0008  /* fetched on a mispredicted path */
#define FATE_TRAP         0x0010  /* caused a trap (TRAP_TYPE / MIS) */
#define FATE_MISPREDICT   0x0020  /* conditional-branch mispredict (I_STAT[MIS]) */
#define FATE_JMP_MISPRED  0x0040  /* jump/return target mispredict (TRP, no MIS) */
#define FATE_TAKEN        0x0080  /* conditional branch taken (TAK) */
#define FATE_MAP_STALL    0x0100  /* stalled between fetch and map (PM_STALLED) */
#define FATE_ICM          0x0200  /* its fetch block requested an Icache fill (ICM) */
#define FATE_LSO          0x0400  /* load-store order replay (LSO) */
#define FATE_UNALIGNED    0x0800
#define FATE_DTB_MISS     0x1000
#define FATE_ITB_MISS     0x2000
#define FATE_SQUASHED_NOP 0x4000  /* a NOP squashed by the fetcher: counted as fetched */

/* Which level served a load. */
enum ev67_level { LVL_NONE, LVL_L1, LVL_BCACHE, LVL_MEM };

/* One fetched instruction's history. Cycles are absolute; a stage not reached
 * holds 0. `end` is the retire cycle, or the abort/trap cycle. */
struct uop_fate {
  uint64_t pc;
  uint64_t seq;                  /* fetch order */
  uint64_t fetch, slot, map, issue, complete, end;
  uint32_t flags;                /* FATE_* */
  uint8_t trap;                  /* enum ev67_trap, EV67_TRAP_NONE when none */
  uint8_t level;                 /* enum ev67_level for loads */
  uint16_t retire_delay;         /* cycles it held the retire pointer (inum retire delay) */
  uint16_t pmpc_redirect;        /* EV67_PMPC_* for redirect traps, else 0 */
  uint8_t kernel;                /* fetched in kernel mode */
};

#endif
