/* The EV67 PMU registers a ProfileMe sample carries (PERF_SAMPLE_RAW, see
 * uapi/pm_raw.h): the fields of PCTR_CTL and of I_STAT as the hardware lays
 * them out, for the PMU model that sets them and the tools that decode them.
 * The IPR indices and the interrupt bits stay with the model (pmu/ev67_pmu.h). */
#ifndef UAPI_EV67_REGS_H
#define UAPI_EV67_REGS_H

/* PCTR_CTL (HRM Fig. 5-25, Table 5-15):
 *  63      48 47        28  27   26  25         6  5   4   3:2  1   0
 * | SEXT[47] | PCTR0[19:0] |PMS |PMK | PCTR1[19:0] | 0 |SL0| SL1 |VAL|TAK| */
#define EV67_PCTR0_SHIFT        28
#define EV67_PCTR1_SHIFT        6
#define EV67_PCTR_MASK          0xFFFFFu          /* 20-bit counters */
#define EV67_PCTR_PM_STALLED    (1ull << 27)
#define EV67_PCTR_PM_KILLED_BM  (1ull << 26)
#define EV67_PCTR_SL0           (1ull << 4)       /* 1 = ProfileMe */
#define EV67_PCTR_SL1_SHIFT     2
#define EV67_PCTR_VAL           (1ull << 1)
#define EV67_PCTR_TAK           (1ull << 0)

/* I_STAT ProfileMe fields (HRM Fig. 5-23, Table 5-12). */
#define EV67_I_STAT_MIS         (1ull << 40)
#define EV67_I_STAT_TRP         (1ull << 39)
#define EV67_I_STAT_LSO         (1ull << 38)
#define EV67_I_STAT_TT_SHIFT    34                /* TRAP_TYPE[3:0] at [37:34] */
#define EV67_I_STAT_ICM         (1ull << 33)
#define EV67_I_STAT_OVR_SHIFT   30                /* OVR[2:0] at [32:30] */

#endif
