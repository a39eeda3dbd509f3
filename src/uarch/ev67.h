/* The EV67 out-of-order timing model. Driven by the functional core one
 * correct-path instruction at a time, in program order, before the instruction
 * commits; it returns the instruction's fetch-to-retire history and fate and
 * emits, in fetch order, a fate for every instruction the chip would have
 * fetched: wrong-path instructions after a mispredict (decoded from guest memory
 * through the fetch callback, never executed) and younger instructions killed
 * by a trap. It never writes architectural state. See docs/timing.md. */
#ifndef UARCH_EV67_H
#define UARCH_EV67_H
#include <stdbool.h>
#include <stdint.h>
#include "uarch/uarch.h"
#include "uarch/memsys.h"

struct ev67;

/* Returns the decoded instruction at pc for a speculative fetch, or NULL when
 * pc cannot be fetched (unmapped, not executable). */
typedef const struct axp_insn *(*ev67_fetch_fn)(void *ctx, uint64_t pc);
/* Receives every fate, in fetch order. */
typedef void (*ev67_fate_fn)(void *ctx, const struct uop_fate *f);

/* Ground truth, counted exactly. */
struct ev67_stats {
  uint64_t fetched, retired, killed, wrong_path, squashed_nops;
  uint64_t cond_branches, cond_mispredicts, jumps, jump_mispredicts;
  uint64_t loads, stores, dcache_misses, bcache_misses, dtb_misses, itb_misses;
  uint64_t icache_misses, unaligned, replays, map_stalls, traps;
};

/* Returns a model for cfg, or NULL. fetch and sink may be NULL (no wrong-path
 * fetch, no fate stream). */
struct ev67 *ev67_create(const struct ev67_config *cfg, ev67_fetch_fn fetch,
                         ev67_fate_fn sink, void *ctx);
void ev67_destroy(struct ev67 *m);
/* The ITB's translation for Icache fills (memsys_set_xlate); data accesses
 * bring their physical address in uarch_insn.pa. */
void ev67_set_xlate(struct ev67 *m, memsys_xlate_fn fn, void *ctx);

/* Times one correct-path instruction. Returns its fate (valid until the next
 * call). For an instruction that traps and is re-executed (DTB miss, replay)
 * this is the fate of the instance that completes. */
const struct uop_fate *ev67_step(struct ev67 *m, const struct uarch_insn *in);

/* Drains the pipeline and spends cycles outside it (kernel work, PALcode);
 * the next instruction is fetched after them. */
void ev67_stall(struct ev67 *m, uint64_t cycles);

/* Functional warming (sampled simulation, docs/sampled.md): updates, for one
 * correct-path instruction in program order, every structure whose state
 * outlives a detailed window, as ev67_step would leave it: the Icache and ITB
 * (once per fetch line, with the Istream prefetch of a miss), the DTB, Dcache
 * and Bcache (loads and stores, presented at `cycle`, an estimate of the
 * time), the tournament predictor, jump table and return stack (the same
 * bpred_update as ev67_step, so the predictor state is identical), and the
 * stWait table's clearing. It times nothing, emits no fate and leaves the
 * pipeline alone (ev67_stall drains it before a detailed window resumes).
 * Returns true when the access takes the unaligned trap (nothing was
 * accessed; the kernel's fix-up follows, as after ev67_step). */
bool ev67_warm(struct ev67 *m, const struct uarch_insn *in, uint64_t cycle);
/* A warm stretch's clock (the machine's estimate): n instructions after
 * its start it is base + ((n * rate + frac) >> shift), rate in cycles per
 * instruction in fixed point; an event of translated code with `left`
 * instructions of its budget left is n0 - left instructions in. The model
 * works it out only for the events whose structures look at time. */
struct ev67_warm_clock {
  uint64_t base, n0, rate, frac;
  unsigned shift;
};
static inline uint64_t ev67_warm_cycle(const struct ev67_warm_clock *clk, uint64_t n)
{
  return clk->base + ((n * clk->rate + clk->frac) >> clk->shift);
}
/* The same for n of translated code's events (guest/jit.h; an access's b
 * already its physical address), on the clock clk. */
void ev67_warm_events(struct ev67 *m, unsigned asn, const struct jit_warm_event *ev,
                      const struct ev67_warm_clock *clk, size_t n);
/* What warming saw, counted exactly as ev67_stats counts it in detail
 * (retired, loads, stores, branches and their mispredicts, cache, TB and
 * unaligned counts; the timing-only fields stay 0), per mode. */
const struct ev67_stats *ev67_warm_stats(const struct ev67 *m, bool kernel);

/* The cycle of the last retirement (the model's notion of "now"). */
uint64_t ev67_now(const struct ev67 *m);

/* The ground truth of the instructions stepped in user mode (kernel false)
 * or kernel mode; wrong-path and killed instructions count in the mode of
 * the path they were fetched on. */
const struct ev67_stats *ev67_stats(const struct ev67 *m, bool kernel);

#endif
