/* PERF_SAMPLE_DATA_SRC values as perf prints them (tools/perf/util/mem-events.c),
 * for mem report and script. */
#ifndef ANALYSIS_DATASRC_H
#define ANALYSIS_DATASRC_H
#include <stddef.h>
#include <stdint.h>

/* perf's text for the parts of a PERF_SAMPLE_DATA_SRC value (util/mem-events.c):
 * op "LOAD", level "L1 or L1 hit", snoop "None", TLB "L1 miss", lock "No",
 * blocked " N/A"; and the whole as perf script prints it
 * ("|OP LOAD|LVL L1 or L1 hit|SNP N/A|TLB L1 hit|LCK N/A|BLK  N/A"). Each
 * writes at most len bytes including the NUL. */
void mem_op_str(uint64_t ds, char *buf, size_t len);
void mem_lvl_str(uint64_t ds, char *buf, size_t len);
void mem_snoop_str(uint64_t ds, char *buf, size_t len);
void mem_tlb_str(uint64_t ds, char *buf, size_t len);
void mem_lock_str(uint64_t ds, char *buf, size_t len);
void mem_blk_str(uint64_t ds, char *buf, size_t len);
void mem_info_str(uint64_t ds, char *buf, size_t len);

#endif
