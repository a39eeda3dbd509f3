/* The EV67 defaults. HRM = Alpha 21264/EV67 Hardware Reference Manual
 * (DS-0028B-TE); values marked "ours" are where the HRM is silent, each
 * explained in docs/timing.md. */
#include "uarch/uarch.h"

const struct ev67_config ev67_default_config = {
  .fetch_width = 4,            /* HRM 2.2 stage 0 */
  .local_hist_entries = 1024,  /* HRM 2.1.1.2 */
  .local_hist_bits = 10,
  .local_ctr_bits = 3,
  .global_hist_bits = 12,      /* HRM 2.1.1.2 */
  .global_entries = 4096,
  .choice_entries = 4096,
  .ras_entries = 12,           /* ours: HRM silent */
  .jump_entries = 1024,        /* ours: stands in for the line predictor on jumps */
  .stwait_entries = 1024,      /* HRM 2.11 */
  .inflight = 80,              /* HRM 2.1.1.1 */
  .inum_group = 4,             /* HRM 6.10.3.3 */
  .iq_entries = 20,            /* HRM 2.1.1.6 */
  .fq_entries = 15,            /* HRM 2.1.1.7 */
  .int_phys_regs = 80,         /* HRM Fig. 2-1 */
  .fp_phys_regs = 72,
  .lq_entries = 32,            /* HRM 2.1.6.1-2 */
  .sq_entries = 32,
  .map_width = 4,
  .retire_width = 8,           /* HRM 6.10.2.3.2: 11 peak, 8 counted per cycle */
  .cross_cluster = 1,          /* HRM Table 2-4 */
  .lat_iadd = 1, .lat_ishf = 1, .lat_imul = 7, .lat_imisc = 3,   /* HRM Table 2-4 */
  .lat_ld_int = 3, .lat_ld_fp = 4,
  .lat_fadd = 4, .lat_fmul = 4,
  .lat_fdiv_s = 12, .lat_fdiv_t = 15,   /* ours: HRM page not retrieved; commonly quoted */
  .lat_fsqrt_s = 18, .lat_fsqrt_t = 33, /* HRM Table 2-4 */
  .lat_itof = 4, .lat_ftoi = 3,
  .line_bytes = 64,
  .l1i_bytes = 64 * 1024, .l1i_ways = 2,   /* HRM 2.1.5 */
  .l1d_bytes = 64 * 1024, .l1d_ways = 2,
  .bcache_bytes = 4 * 1024 * 1024,         /* HRM 4.3: 1-16 MB; ours: 4 MB */
  .bcache_latency = 13,        /* HRM Table 2-4: Dcache miss, 6-cycle Bcache -> 13 */
  .mem_latency = 130,          /* ours: system dependent (HRM silent) */
  .itb_entries = 128, .dtb_entries = 128,  /* HRM 2.1.1.3, 2.1.6.4 */
  .tb_fill_cycles = 30,        /* ours: PALcode TB fill */
  .maf_entries = 8,            /* HRM 2.1.6.3 */
  .pen_branch = 7, .pen_jump = 8,          /* HRM Table 2-1 */
  .pen_mbox_order = 14, .pen_mbox_other = 13, .pen_dtb_miss = 13, .pen_itb_miss = 7,
  .pen_int_arith = 12, .pen_fp_arith = 13,
  .unaligned_fixup = 20,       /* ours: PAL entry/exit around the fix-up; the kernel's
                                  entUna/do_entUna instructions run in the timing model */
};
