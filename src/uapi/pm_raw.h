/* The ProfileMe PERF_SAMPLE_RAW payload, version 1: what the Alpha PMU driver
 * reports for each ProfileMe sample, uapi-style (fixed layout, little-endian,
 * no padding). PERF_SAMPLE_RAW is `u32 size; u8 data[size]`; this payload
 * starts right after the size word with a u32 version, so every 64-bit field
 * lands 8-byte aligned in the record, and 4 + sizeof = 56 bytes is a multiple
 * of 8 (no pad bytes). Readers must check version and size. docs/profileme-raw.md
 * documents every field. */
#ifndef UAPI_PM_RAW_H
#define UAPI_PM_RAW_H
#include <stdint.h>

#define PM_RAW_VERSION 1

struct pm_raw_v1 {
  uint32_t version;    /* PM_RAW_VERSION */
  uint64_t pmpc;       /* PMPC IPR: the profiled instruction's PC (redirect offsets for ITB miss, IACV, interrupt) */
  uint64_t i_stat;     /* I_STAT IPR (MIS, TRP, LSO, TRAP_TYPE, ICM, OVR) */
  uint64_t pctr_ctl;   /* PCTR_CTL at window close (PCTR0, PCTR1, PM_STALLED, PM_KILLED_BM, SL0/SL1, VAL, TAK) */
  uint64_t status;     /* PM_ST_* bits, decoded by the driver from the registers */
  uint64_t pctr0;      /* PCTR0 window count (OVR already subtracted) */
  uint64_t pctr1;      /* PCTR1 window count */
} __attribute__((packed));

/* status bits: one per DCPI ProfileMe attribute (dcpiprofileme(1)). */
#define PM_ST_RETIRED     (1ull << 0)   /* retired (not in the shadow of a trap) */
#define PM_ST_VALID       (1ull << 1)   /* retired and did not trap */
#define PM_ST_EARLY_KILL  (1ull << 2)   /* killed at or before map (PM_KILLED_BM) */
#define PM_ST_LATE_KILL   (1ull << 3)   /* killed after map */
#define PM_ST_TRAP        (1ull << 4)   /* caused a trap (I_STAT TRP) */
#define PM_ST_MISPREDICT  (1ull << 5)   /* conditional-branch mispredict (I_STAT MIS) */
#define PM_ST_TAKEN       (1ull << 6)   /* conditional branch taken (TAK) */
#define PM_ST_MAP_STALL   (1ull << 7)   /* stalled between fetch and map (PM_STALLED) */
#define PM_ST_NYP         (1ull << 8)   /* its fetch block requested an Icache fill (ICM) */
#define PM_ST_LDSTORDER   (1ull << 9)   /* load-store order replay (LSO) */
#define PM_ST_DTB_MISS    (1ull << 10)  /* TRAP_TYPE DTB single or double miss */
#define PM_ST_UNALIGNED   (1ull << 11)  /* TRAP_TYPE unaligned */
#define PM_ST_REPLAY      (1ull << 12)  /* TRAP_TYPE replay */
#define PM_ST_ITB_MISS    (1ull << 13)  /* PMPC redirect: ITB miss */
#define PM_ST_ARITH       (1ull << 14)  /* TRAP_TYPE arithmetic */
#define PM_ST_JMP_MISPRED (1ull << 15)  /* trapped jump/return (TRP without MIS on a jump) */
#define PM_ST_KERNEL      (1ull << 16)  /* the profiled instruction ran in kernel mode */
#define PM_ST_TRAP_TYPE(s) (((s) >> 32) & 0xF)   /* I_STAT TRAP_TYPE when PM_ST_TRAP */

/* config bits of the `cpu` PMU (sysfs-style format attributes). */
#define PM_CFG_EVENT_MASK  0xFFull        /* config:0-7   event (1 cycles, 2 instructions, 3 bcache, 4 mbox) */
#define PM_CFG_PROFILEME   (1ull << 8)    /* config:8     ProfileMe mode */
#define PM_CFG_RANDOM      (1ull << 9)    /* config:9     randomized sampling interval */
#define PM_CFG_SL1_SHIFT   10             /* config:10-11 SL1 counter selection in ProfileMe mode */
/* config1 filters: keep only samples with any of these (0 = keep all) */
#define PM_FILT_RETIRED    (1ull << 0)
#define PM_FILT_MISPREDICT (1ull << 1)
#define PM_FILT_TRAP       (1ull << 2)
/* config2: perf mem's load latency threshold (the sysfs format term ldlat) */
#define PM_LDLAT_MASK      0xffffull

#endif
