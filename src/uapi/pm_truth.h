/* Ground truth per instruction (`record --truth`): for each (process, PC,
 * mode) the exact number of fetched instructions the EV67 saw there and of
 * each ProfileMe status (PM_ST_* of pm_raw.h) those instances had, counted
 * from every fate of the timing model, as the ProfileMe sampler would have
 * reported it had it picked that instance. With these a sampled profile can
 * be judged against the exact figures (samples x period against the count).
 *
 * Counters, per entry: PM_TRUTH_FETCHED (every fate: wrong path, killed and
 * squashed NOPs included, what PCTR0 counts in ProfileMe mode); then for
 * each status bit b < PM_TRUTH_NBITS, PM_TRUTH_ALL(b) instances with bit b
 * and PM_TRUTH_RET(b) instances with bit b that also retired (what a
 * precise event, which keeps retired samples only, can see of bit b).
 *
 * In perf.data: header feature bit PM_TRUTH_FEAT (far above the features
 * perf 6.1 knows, which it skips), payload little-endian:
 *   u32 version (1), u32 ncounters (PM_TRUTH_NCOUNTS), u64 nentries, then
 *   per entry: u64 pc; s32 pid; u32 flags (PM_TRUTH_KERNEL); u64 mask (bit i:
 *   counter i present, non-zero); u64 counts[popcount(mask)], in index order.
 * docs/profiling.md describes it. */
#ifndef UAPI_PM_TRUTH_H
#define UAPI_PM_TRUTH_H
#include <stdint.h>

#define PM_TRUTH_VERSION 1
#define PM_TRUTH_FEAT    250        /* header feature bit (perf 6.1 knows 1..31) */
#define PM_TRUTH_NBITS   16         /* PM_ST_RETIRED .. PM_ST_JMP_MISPRED (KERNEL is the mode) */
#define PM_TRUTH_FETCHED 0
#define PM_TRUTH_ALL(b)  (1 + 2 * (b))   /* interleaved: a fate's counts share cache lines */
#define PM_TRUTH_RET(b)  (2 + 2 * (b))
#define PM_TRUTH_NCOUNTS (1 + 2 * PM_TRUTH_NBITS)
#define PM_TRUTH_KERNEL  1u         /* flags: fetched in kernel mode */

struct pm_truth_entry {
  uint64_t pc;
  int32_t pid;                    /* the process the CPU ran (0: none, the idle loop) */
  uint32_t flags;                 /* PM_TRUTH_KERNEL */
  uint64_t n[PM_TRUTH_NCOUNTS];
};

#endif
