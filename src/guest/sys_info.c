/* System information calls: uname, sysinfo, gethostname, getrandom, and
 * Alpha's osf_getsysinfo/osf_setsysinfo (the IEEE FP control word, the
 * unaligned-access control; arch/alpha/kernel/osf_sys.c). They describe the
 * modelled machine (Linux 6.1 on alpha, its RAM), the host only by name. */
#include "guest/syscall.h"
#include "guest/kimage.h"
#include "guest/phys.h"
#include "isa/fp.h"
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define ARGS struct os *m, struct task *t, const uint64_t *a
#define UNUSED (void)m; (void)t; (void)a

int64_t sys_uname(ARGS)
{
  UNUSED;
  struct utsname u;
  memset(&u, 0, sizeof u);
  uname(&u);
  char buf[6 * 65];
  memset(buf, 0, sizeof buf);
  snprintf(buf, 65, "Linux");
  snprintf(buf + 65, 65, "%s", u.nodename);
  snprintf(buf + 130, 65, "6.1.0-profileme");
  snprintf(buf + 195, 65, "#1 SMP");
  snprintf(buf + 260, 65, "alpha");
  snprintf(buf + 325, 65, "(none)");
  return sys_put(t, a[0], buf, sizeof buf);
}

int64_t sys_gethostname(ARGS)
{
  UNUSED;
  char name[65] = "";
  gethostname(name, sizeof name - 1);
  size_t n = strlen(name) + 1;
  if (n > a[1]) return -EINVAL;
  return sys_put(t, a[0], name, n);
}

int64_t sys_sysinfo(ARGS)
{
  UNUSED;
  uint64_t b[14] = { 0 };
  b[0] = os_now(m) / 1000000000ull + 1;   /* booted a second before the program */
  /* The machine's RAM (--ram); Linux's totalram counts the pages the buddy
   * allocator manages, without the kernel's reserved memory. */
  struct physmem *ram = os_phys(m);
  b[4] = ram ? phys_frames(ram) * PHYS_PAGE - KIMAGE_PHYS_BYTES : 0;   /* totalram, in mem_unit bytes */
  b[5] = ram ? phys_free_frames(ram) * PHYS_PAGE : 0;   /* freeram */
  uint8_t buf[112];
  memset(buf, 0, sizeof buf);
  memcpy(buf, b, 8 * 4);
  memcpy(buf + 32, &b[4], 8);
  memcpy(buf + 40, &b[5], 8);
  uint16_t procs = 1;
  memcpy(buf + 80, &procs, 2);
  uint32_t unit = 1;
  memcpy(buf + 104, &unit, 4);
  return sys_put(t, a[0], buf, sizeof buf);
}

int64_t sys_getrandom(ARGS)
{
  UNUSED;
  uint64_t n = a[1] > 65536 ? 65536 : a[1];
  for (uint64_t i = 0; i < n; i += 8) {
    uint64_t v = os_random(m);
    if (sys_put(t, a[0] + i, &v, n - i < 8 ? n - i : 8)) return -EFAULT;
  }
  return (int64_t)n;
}

int64_t sys_osf_getsysinfo(ARGS)
{
  UNUSED;
  switch (a[0]) {
  case 45: {   /* GSI_IEEE_FP_CONTROL: refresh the status from the FPCR first (EV6) */
    uint64_t w = (t->ctx.swcr & ~(uint64_t)AXP_SWCR_STATUS_MASK) |
                 (axp_fp_fpcr_to_swcr(t->ctx.fpcr) & AXP_SWCR_STATUS_MASK) |
                 (t->ctx.swcr & AXP_SWCR_STATUS_MASK);
    w &= AXP_SWCR_MASK;
    return sys_put(t, a[1], &w, 8);
  }
  case 46: {   /* GSI_IEEE_STATE_AT_SIGNAL */
    uint64_t w = 0;
    return sys_put(t, a[1], &w, 8);
  }
  case 8: {    /* GSI_UACPROC */
    uint32_t w = t->ctx.uac;
    if (a[2] < 4) return -EINVAL;
    if (sys_put(t, a[1], &w, 4)) return -EFAULT;
    return 1;
  }
  default:
    return -EOPNOTSUPP;
  }
}

int64_t sys_osf_setsysinfo(ARGS)
{
  UNUSED;
  switch (a[0]) {
  case 14: {   /* SSI_IEEE_FP_CONTROL */
    uint64_t w;
    if (sys_get(t, a[1], &w, 8)) return -EFAULT;
    t->ctx.swcr = w & AXP_SWCR_MASK;
    t->ctx.fpcr = (t->ctx.fpcr & AXP_FPCR_DYN_MASK) | axp_fp_swcr_to_fpcr(t->ctx.swcr);
    return 0;
  }
  case 1001: { /* SSI_IEEE_RAISE_EXCEPTION */
    uint64_t e;
    if (sys_get(t, a[1], &e, 8)) return -EFAULT;
    e &= AXP_SWCR_STATUS_MASK;
    t->ctx.swcr |= e;
    t->ctx.fpcr |= axp_fp_swcr_to_fpcr(t->ctx.swcr) & AXP_FPCR_STATUS_MASK;
    if (t->ctx.fpcr & AXP_FPCR_STATUS_MASK) t->ctx.fpcr |= AXP_FPCR_SUM;
    uint64_t enabled = (e >> 16) & t->ctx.swcr & AXP_SWCR_ENA_MASK;
    if (enabled) {
      int code = enabled & AXP_SWCR_ENA_INV ? 7 : enabled & AXP_SWCR_ENA_DZE ? 3 :
                 enabled & AXP_SWCR_ENA_OVF ? 4 : enabled & AXP_SWCR_ENA_UNF ? 5 : 6;
      signal_send(m, t, NULL, GSIG_FPE, code, 0, 0);
    }
    return 0;
  }
  case 1: {    /* SSI_NVPAIRS: {SSIN_UACPROC=6, bits} pairs */
    for (uint64_t i = 0; i < a[2]; i++) {
      uint64_t pair[2];
      if (sys_get(t, a[1] + 16 * i, pair, sizeof pair)) return -EFAULT;
      if (pair[0] == 6) t->ctx.uac = (uint32_t)pair[1] & 7;
      else return -EOPNOTSUPP;
    }
    return 0;
  }
  default:
    return -EOPNOTSUPP;
  }
}

/* Calls that need a capability the guest's user never has (CAP_SYS_ADMIN,
 * CAP_SYS_BOOT: --privileged gives CAP_PERFMON only): Linux checks it
 * first and refuses with EPERM (may_mount, reboot, swapon, sethostname). */
int64_t sys_no_cap(ARGS)
{
  UNUSED;
  return -EPERM;
}
