/* A user-stack unwinder for Alpha from DWARF CFI (.eh_frame and .debug_frame),
 * for perf's --call-graph dwarf: from a sample's user registers and the copy
 * of its user stack, it walks the frames of the program and of every shared
 * library it maps (libc, ld.so), reading each DSO's CFI once (a per-DSO
 * cache in struct unw). elfutils 0.188 parses CFI but has no Alpha backend
 * (dwarf_cfi_addrframe fails for want of the ABI's initial CFI), so the CFI
 * interpreter is ours; libelf only finds the sections. Nothing here prints.
 *
 * Registers are indexed by the perf uapi enum (PERF_REG_ALPHA_*): r0-r28 are
 * 0-28, gp 29, sp 30, pc 31, equal to the hardware and DWARF numbers (DWARF
 * names the pc column 64). Registers not in the mask are unknown: a frame
 * whose CFA or return address needs one ends the chain as truncated. r9-r15
 * cannot be sampled (they live in switch_stack); once a frame saved them on
 * the stack they are known again in its callers. A frame is never invented:
 * every address returned was computed from CFI and sampled data.
 *
 * Addresses returned: pc[0] is the sampled PC; pc[i], i > 0, is a return
 * address as it was found (the instruction after the call: Alpha's bsr/jsr
 * leave pc + 4 in ra). Look up the calling symbol at pc[i] - 4 (perf subtracts
 * 1; either lands in the call instruction). The unwinder itself finds the
 * caller's CFI at pc[i] - 4, except after a signal frame (CIE augmentation
 * "S"), where the saved pc is the interrupted instruction itself. */
#ifndef UNWIND_UNWIND_H
#define UNWIND_UNWIND_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNW_NREGS     32      /* PERF_REG_ALPHA_MAX */
#define UNW_REG_GP    29
#define UNW_REG_SP    30
#define UNW_REG_PC    31
#define UNW_MAX_DEPTH 256     /* the most frames one call returns (perf's default is 127) */

/* A sample's user registers: r[i] is valid when bit i of mask is set. */
struct unw_regs {
  uint64_t r[UNW_NREGS];
  uint64_t mask;
};

/* The copy of the user stack: size bytes from guest address addr (SP at the
 * sample), as PERF_SAMPLE_STACK_USER gives it. */
struct unw_stack {
  const uint8_t *data;
  uint64_t addr, size;
};

/* The mapping covering an address, as an MMAP2 record gives it: the file
 * (opened by path; or a DSO added with unw_dso_add), the run-time start of
 * the mapping and the file offset mapped there. */
struct unw_map {
  const char *path;
  uint64_t start, pgoff;
};

/* Finds the mapping covering run-time address addr; false when none. */
typedef bool (*unw_find_map_fn)(void *ctx, uint64_t addr, struct unw_map *map);

/* How an unwind ended. */
enum unw_status {
  UNW_COMPLETE,        /* the outermost frame: the CFI says the return address is
                          undefined, it is 0, or the frame is the entry point's (_start) */
  UNW_TRUNC_REG,       /* the CFA or return address needs a register not sampled */
  UNW_TRUNC_STACK,     /* they need memory outside the stack dump */
  UNW_TRUNC_NOMAP,     /* no mapping covers the PC */
  UNW_TRUNC_NOCFI,     /* the PC's DSO has no CFI for it (or cannot be read) */
  UNW_TRUNC_BADCFI,    /* the CFI for the PC is malformed or unsupported */
  UNW_TRUNC_LOOP,      /* the chain goes back down the stack or repeats a frame */
  UNW_TRUNC_DEPTH,     /* max_depth frames were reached */
  UNW_NSTATUS
};

struct unw_result {
  uint64_t pc[UNW_MAX_DEPTH];
  unsigned n;                  /* frames in pc[] (at least 1 when the PC was sampled) */
  enum unw_status status;
};

struct unw;

/* Creates an unwinder with an empty DSO cache. DSO files are opened under
 * symfs (NULL or "" for none). Returns NULL on ENOMEM. */
struct unw *unw_create(const char *symfs);
void unw_destroy(struct unw *u);

/* Adds (or replaces) the DSO named path from the raw bytes of its CFI
 * sections, at the link-time addresses they would have (debug_frame holds
 * absolute addresses); entry is the ELF entry point (0 for none). The bytes
 * are copied. For tests and fuzzing, and for DSOs that are not files.
 * Returns 0, or PM_ENOMEM. */
int unw_dso_add(struct unw *u, const char *path, const uint8_t *eh_frame, size_t eh_len,
                uint64_t eh_vaddr, const uint8_t *debug_frame, size_t df_len, uint64_t entry);

/* Unwinds at most max_depth frames (capped at UNW_MAX_DEPTH) from regs and
 * stack; fills res. A sample without a PC gives n = 0, UNW_TRUNC_REG. */
void unw_unwind(struct unw *u, const struct unw_regs *regs, const struct unw_stack *stack,
                unw_find_map_fn find_map, void *ctx, unsigned max_depth, struct unw_result *res);

/* A short name of a status ("complete", "missing register", ...). */
const char *unw_status_str(enum unw_status st);

#endif
