/* One error table for host-side operations: functions return 0 or a negative
 * PM_E* code; pm_strerror() names it. Guest-visible errors (errno values given to
 * the guest) are a separate matter handled by the syscall layer; the layers'
 * conventions are in docs/errors.md.
 *
 * The codes lie in a range of their own, -(PM_ERR_BASE + n): below -4095, where
 * Linux keeps every negated errno (MAX_ERRNO, the range IS_ERR_VALUE and a
 * syscall return reserve), so a PM_E* code never equals -errno in the host's
 * numbering or Alpha's. Code that meets both vocabularies (a syscall handler
 * calling mm_read_str, a tool printing either) can tell them apart, and a code
 * leaking where an errno was due cannot pass for a wrong errno (PM_EFAULT as
 * -7 read E2BIG on Alpha). Compare codes by name only, never by value. */
#ifndef PM_ERR_H
#define PM_ERR_H
#include <stdbool.h>

#define PM_ERR_BASE 4096   /* MAX_ERRNO + 1 */

enum pm_err {
  PM_OK = 0,
  PM_ENOMEM = -(PM_ERR_BASE + 1),     /* host allocation failed */
  PM_EIO = -(PM_ERR_BASE + 2),        /* host I/O error (errno kept by the caller if needed) */
  PM_ENOENT = -(PM_ERR_BASE + 3),     /* file not found */
  PM_ENOEXEC = -(PM_ERR_BASE + 4),    /* not an ELF file */
  PM_EARCH = -(PM_ERR_BASE + 5),      /* ELF, but not a 64-bit little-endian Alpha file */
  PM_ECORRUPT = -(PM_ERR_BASE + 6),   /* malformed or truncated file */
  PM_EFAULT = -(PM_ERR_BASE + 7),     /* guest address not mapped or not accessible */
  PM_EINVAL = -(PM_ERR_BASE + 8),     /* invalid argument */
  PM_EINTERP = -(PM_ERR_BASE + 9),    /* the program interpreter (PT_INTERP) could not be loaded */
  PM_EPERM = -(PM_ERR_BASE + 10),     /* permission denied */
  PM_ENOSPC = -(PM_ERR_BASE + 11),    /* guest address space exhausted */
  PM_ERR_MAX = PM_ENOMEM,             /* the first code above (closest to 0) */
  PM_ERR_MIN = PM_ENOSPC              /* the last code above */
};

/* Whether err is one of the PM_E* codes (0 is not). */
static inline bool pm_is_err(long err)
{
  return err >= PM_ERR_MIN && err <= PM_ERR_MAX;
}

/* Returns a static description of err: a PM_E* code, 0, or a negated host
 * errno (-4095..-1, as strerror names it); else "unknown error". */
const char *pm_strerror(int err);

#endif
