/* Call chains for the analysis commands, as Linux perf's util/callchain.c
 * and machine.c (thread__resolve_callchain) build them: a sample's frames
 * come from PERF_SAMPLE_CALLCHAIN (with its PERF_CONTEXT_* markers) or from
 * an unwinder over the sample's user registers and stack dump, through one
 * interface (cc_sample_frames), so any unwinder (x86-64 through elfutils,
 * Alpha's own) plugs in the same way. A call tree per report entry (perf's
 * callchain_node radix tree, kept as a trie and compressed when printed)
 * prints in perf report's graph and folded formats. Nothing here prints to
 * stdout except the cc_print_* functions, which write to the FILE given. */
#ifndef ANALYSIS_CALLCHAIN_H
#define ANALYSIS_CALLCHAIN_H
#include "analysis/session.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One frame: its address and the cpumode it resolves in. */
struct cc_frame { uint64_t ip; uint16_t cpumode; };

/* A growing list of frames, callee first (frame 0 is the sampled ip). */
struct cc_frames {
  struct cc_frame *f;
  size_t n, cap;
  bool bad;                      /* a bogus PERF_CONTEXT marker: chain dropped, as perf does */
  bool truncated;                /* the unwinder stopped early (marked, never a guessed frame):
                                    the dwarf unwinder's status, or a recorded user chain
                                    ending with an empty PERF_CONTEXT_USER context */
};
void cc_frames_free(struct cc_frames *fr);
/* Appends a frame. Returns 0 or PM_ENOMEM. */
int cc_frames_push(struct cc_frames *fr, uint64_t ip, uint16_t cpumode);

/* An unwinder: appends the user frames of smp (callee first, the sampled pc
 * first) to out from its regs_user and stack dump. Returns 0 (no frame is
 * an answer too) or PM_E*. */
struct cc_unwinder {
  int (*unwind)(void *ctx, struct session *s, const struct pd_sample *smp, struct cc_frames *out);
  void (*destroy)(void *ctx);    /* may be NULL */
  void *ctx;
};

/* The unwinder for the file's architecture (its "arch" header feature):
 * x86-64 through elfutils (unwind_x86.h); the Alpha DWARF unwinder plugs in
 * here (src/analysis/unwinders.c), and the commands need no change. Returns
 * false, with *uw zeroed, when the architecture has none or on ENOMEM. */
bool cc_unwinder_for(struct session *s, struct cc_unwinder *uw);
/* Frees what cc_unwinder_for made (a zeroed one is fine). */
void cc_unwinder_release(struct cc_unwinder *uw);

/* The frames of a sample, callee first, as perf builds its callchain cursor:
 * the PERF_SAMPLE_CALLCHAIN entries (markers switch the cpumode, an unknown
 * marker drops the whole chain), then, when uw is given and the sample has
 * user registers and a stack, the unwinder's frames. A sample without
 * either gives no frames. out is reset first. Returns 0 or PM_ENOMEM. */
int cc_sample_frames(struct session *s, const struct pd_sample *smp, const struct cc_unwinder *uw,
                     struct cc_frames *out);

/* Whether the events of the file carry chains (CALLCHAIN) or what an
 * unwinder needs (REGS_USER and STACK_USER). */
bool cc_file_has_chains(const struct session *s, bool *dwarf);

/* ---- call trees ---- */

/* A frame's identity in a tree: its symbol, or its address when unresolved
 * (perf's CCKEY_FUNCTION). */
struct cc_key {
  const struct sym_dso *dso;
  const struct sym_symbol *sym;
  uint64_t ip;                   /* unresolved frames only; 0 otherwise */
};
void cc_key_of(struct session *s, uint32_t pid, const struct cc_frame *f, struct cc_key *k);

struct cc_forest;              /* all the trees of a report, one root each */
struct cc_forest *cc_forest_create(void);
void cc_forest_destroy(struct cc_forest *t);
/* A new empty tree; returns its root id, or 0 on ENOMEM. */
uint32_t cc_tree_new(struct cc_forest *t);
/* Adds a chain of n keys (root-most first, in the order it displays) with
 * period to tree root. Returns 0 or PM_ENOMEM. */
int cc_tree_add(struct cc_forest *t, uint32_t root, const struct cc_key *keys, size_t n, uint64_t period);

/* The longest chain added to tree root (0 for none). */
uint32_t cc_tree_max_depth(const struct cc_forest *t, uint32_t root);

/* perf report's callchain parameters (callchain_param). */
enum cc_mode { CC_GRAPH_ABS, CC_GRAPH_REL, CC_FLAT, CC_FOLDED, CC_NONE };
enum cc_value { CC_PERCENT, CC_PERIOD, CC_COUNT };
struct cc_param {
  enum cc_mode mode;
  double min_percent;            /* perf's threshold (0.5) */
  bool caller;                   /* ORDER_CALLER: root first */
  bool order_set;
  enum cc_value value;
  unsigned print_limit;          /* 0: all */
  unsigned max_stack;            /* 127, perf's sysctl default */
};
/* Parses perf's -g/--call-graph value "graph,0.5,caller,function,percent"
 * (any subset, any order). Returns 0, or -1 for an unknown word. */
int cc_param_parse(struct cc_param *p, char *arg);

/* Prints tree root of a report entry as perf's hist_entry_callchain__fprintf
 * does: total is the event's total period, parent the entry's period (its
 * Children period in children mode); skip_first drops the first entry of a
 * lone root (perf does when sorting by symbol first). */
void cc_print(FILE *f, struct cc_forest *t, uint32_t root, const struct cc_param *p, uint64_t total,
              uint64_t parent, bool skip_first);

/* The frame name perf prints (callchain_list__sym_name): the symbol, or the
 * address in hex. */
void cc_key_name(const struct cc_key *k, char *buf, size_t len);

/* Walks every leaf-ward path of tree root with a count (the chains that end
 * at a node, root-most first): fn(ctx, keys, n, hits). For folded stacks. */
typedef int (*cc_path_fn)(void *ctx, const struct cc_key *const *keys, size_t n, uint64_t hits, uint64_t count);
int cc_tree_paths(struct cc_forest *t, uint32_t root, cc_path_fn fn, void *ctx);

#endif
