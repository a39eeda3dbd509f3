/* PERF_SAMPLE_DATA_SRC as text; see datasrc.h. */
#include "analysis/datasrc.h"
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>

/* Appends to buf (length kept in *l) like scnprintf. */
static void add(char *buf, size_t len, size_t *l, const char *s)
{
  if (*l + 1 >= len) return;
  int n = snprintf(buf + *l, len - *l, "%s", s);
  *l += n < 0 ? 0 : (size_t)n < len - *l ? (size_t)n : len - *l - 1;
}

/* Appends the names of the set bits of m (bit i names[i]) joined by " or ";
 * *any says whether a name is already there. */
static void add_bits(char *buf, size_t len, size_t *l, uint64_t m, const char *const *names, size_t n, bool *any)
{
  for (size_t i = 0; m && i < n; i++, m >>= 1) {
    if (!(m & 1)) continue;
    if (*any) add(buf, len, l, " or ");
    add(buf, len, l, names[i]);
    *any = true;
  }
}

void mem_op_str(uint64_t ds, char *buf, size_t len)
{
  union perf_mem_data_src d = { .val = ds };
  unsigned op = d.mem_op;
  snprintf(buf, len, "%s", op & PERF_MEM_OP_NA ? "N/A" : op & PERF_MEM_OP_LOAD ? "LOAD" :
           op & PERF_MEM_OP_STORE ? "STORE" : op & PERF_MEM_OP_PFETCH ? "PFETCH" :
           op & PERF_MEM_OP_EXEC ? "EXEC" : "No");
}

void mem_lvl_str(uint64_t ds, char *buf, size_t len)
{
  static const char *const lvl[] = { "N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
    "Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached" };
  static const char *const hops[] = { NULL, "core, same node", "node, same socket", "socket, same board", "board" };
  union perf_mem_data_src d = { .val = ds };
  uint64_t m = d.mem_lvl;
  bool hit = m & PERF_MEM_LVL_HIT, miss = m & PERF_MEM_LVL_MISS;
  size_t l = 0;
  bool any = false;
  buf[0] = '\0';
  m &= ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
  if (d.mem_remote) add(buf, len, &l, "Remote ");
  if (d.mem_hops && d.mem_hops < 5) {
    add(buf, len, &l, hops[d.mem_hops]);
    add(buf, len, &l, " ");
  } else {
    add_bits(buf, len, &l, m, lvl, sizeof lvl / sizeof lvl[0], &any);
  }
  if (d.mem_lvl_num) {
    static const char *const num[16] = { [9] = "CXL", [10] = "I/O", [11] = "Any cache", [12] = "LFB/MAB",
                                         [13] = "RAM", [14] = "PMEM", [15] = "N/A" };
    char tmp[8];
    if (any) add(buf, len, &l, " or ");
    snprintf(tmp, sizeof tmp, "L%u", (unsigned)d.mem_lvl_num);
    add(buf, len, &l, num[d.mem_lvl_num] ? num[d.mem_lvl_num] : tmp);
  }
  if (!l) add(buf, len, &l, "N/A");
  if (hit) add(buf, len, &l, " hit");
  if (miss) add(buf, len, &l, " miss");
}

void mem_snoop_str(uint64_t ds, char *buf, size_t len)
{
  static const char *const snoop[] = { "N/A", "None", "Hit", "Miss", "HitM" };
  static const char *const snoopx[] = { "Fwd", "Peer" };
  union perf_mem_data_src d = { .val = ds };
  size_t l = 0;
  bool any = false;
  buf[0] = '\0';
  add_bits(buf, len, &l, d.mem_snoop, snoop, 5, &any);
  add_bits(buf, len, &l, d.mem_snoopx, snoopx, 2, &any);
  if (!l) add(buf, len, &l, "N/A");
}

void mem_tlb_str(uint64_t ds, char *buf, size_t len)
{
  static const char *const tlb[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
  union perf_mem_data_src d = { .val = ds };
  uint64_t m = d.mem_dtlb;
  bool hit = m & PERF_MEM_TLB_HIT, miss = m & PERF_MEM_TLB_MISS;
  size_t l = 0;
  bool any = false;
  buf[0] = '\0';
  add_bits(buf, len, &l, m & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS), tlb, 7, &any);
  if (!l) add(buf, len, &l, "N/A");
  if (hit) add(buf, len, &l, " hit");
  if (miss) add(buf, len, &l, " miss");
}

void mem_lock_str(uint64_t ds, char *buf, size_t len)
{
  union perf_mem_data_src d = { .val = ds };
  snprintf(buf, len, "%s", d.mem_lock & PERF_MEM_LOCK_NA ? "N/A" : d.mem_lock & PERF_MEM_LOCK_LOCKED ? "Yes" : "No");
}

void mem_blk_str(uint64_t ds, char *buf, size_t len)
{
  union perf_mem_data_src d = { .val = ds };
  if (!d.mem_blk || (d.mem_blk & PERF_MEM_BLK_NA)) {
    snprintf(buf, len, " N/A");
    return;
  }
  snprintf(buf, len, "%s%s", d.mem_blk & PERF_MEM_BLK_DATA ? " Data" : "", d.mem_blk & PERF_MEM_BLK_ADDR ? " Addr" : "");
}

void mem_info_str(uint64_t ds, char *buf, size_t len)
{
  char op[16], lvl[128], snp[64], tlb[64], lck[8], blk[16];
  mem_op_str(ds, op, sizeof op);
  mem_lvl_str(ds, lvl, sizeof lvl);
  mem_snoop_str(ds, snp, sizeof snp);
  mem_tlb_str(ds, tlb, sizeof tlb);
  mem_lock_str(ds, lck, sizeof lck);
  mem_blk_str(ds, blk, sizeof blk);
  snprintf(buf, len, "|OP %s|LVL %s|SNP %s|TLB %s|LCK %s|BLK %s", op, lvl, snp, tlb, lck, blk);
}
