/* One error table for host-side operations: functions return 0 or a negative
 * PM_E* code; pm_strerror() names it. Guest-visible errors (errno values given to
 * the guest) are a separate matter handled by the syscall layer. */
#ifndef PM_ERR_H
#define PM_ERR_H

enum pm_err {
  PM_OK = 0,
  PM_ENOMEM = -1,    /* host allocation failed */
  PM_EIO = -2,       /* host I/O error (errno kept by the caller if needed) */
  PM_ENOENT = -3,    /* file not found */
  PM_ENOEXEC = -4,   /* not an ELF file */
  PM_EARCH = -5,     /* ELF, but not a 64-bit little-endian Alpha file */
  PM_ECORRUPT = -6,  /* malformed or truncated file */
  PM_EFAULT = -7,    /* guest address not mapped or not accessible */
  PM_EINVAL = -8,    /* invalid argument */
  PM_EINTERP = -9,   /* the program interpreter (PT_INTERP) could not be loaded */
  PM_EPERM = -10,    /* permission denied */
  PM_ENOSPC = -11,   /* guest address space exhausted */
  PM_ERR_MIN = PM_ENOSPC  /* the last code above */
};

/* Returns a static description of a PM_E* code (or "unknown error"). */
const char *pm_strerror(int err);

#endif
