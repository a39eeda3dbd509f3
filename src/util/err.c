/* The error table behind pm_strerror. */
#include "util/err.h"

const char *pm_strerror(int err)
{
  static const char *const msg[] = {
    [0] = "success",
    [-PM_ENOMEM] = "out of memory",
    [-PM_EIO] = "input/output error",
    [-PM_ENOENT] = "no such file or directory",
    [-PM_ENOEXEC] = "not an ELF file",
    [-PM_EARCH] = "not a 64-bit little-endian Alpha ELF file",
    [-PM_ECORRUPT] = "malformed or truncated file",
    [-PM_EFAULT] = "bad guest address",
    [-PM_EINVAL] = "invalid argument",
    [-PM_EINTERP] = "cannot load the program interpreter",
    [-PM_EPERM] = "permission denied",
    [-PM_ENOSPC] = "guest address space exhausted",
  };
  _Static_assert(sizeof msg / sizeof msg[0] == 1 - PM_ERR_MIN, "a message for every PM_E* code");
  if (err > 0 || err < PM_ERR_MIN) return "unknown error";
  return msg[-err];
}
