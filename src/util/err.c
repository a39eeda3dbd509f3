/* The error table behind pm_strerror. */
#include "util/err.h"
#include <string.h>

const char *pm_strerror(int err)
{
  static const char *const msg[] = {
    [-PM_ENOMEM - PM_ERR_BASE] = "out of memory",
    [-PM_EIO - PM_ERR_BASE] = "input/output error",
    [-PM_ENOENT - PM_ERR_BASE] = "no such file or directory",
    [-PM_ENOEXEC - PM_ERR_BASE] = "not an ELF file",
    [-PM_EARCH - PM_ERR_BASE] = "not a 64-bit little-endian Alpha ELF file",
    [-PM_ECORRUPT - PM_ERR_BASE] = "malformed or truncated file",
    [-PM_EFAULT - PM_ERR_BASE] = "bad guest address",
    [-PM_EINVAL - PM_ERR_BASE] = "invalid argument",
    [-PM_EINTERP - PM_ERR_BASE] = "cannot load the program interpreter",
    [-PM_EPERM - PM_ERR_BASE] = "permission denied",
    [-PM_ENOSPC - PM_ERR_BASE] = "guest address space exhausted",
  };
  _Static_assert(PM_ERR_MAX == -(PM_ERR_BASE + 1), "the codes start right below -MAX_ERRNO");
  _Static_assert(sizeof msg / sizeof msg[0] == (size_t)(-PM_ERR_MIN - PM_ERR_BASE + 1),
                 "a message for every PM_E* code");
  if (err == 0) return "success";
  if (pm_is_err(err)) return msg[-err - PM_ERR_BASE] ? msg[-err - PM_ERR_BASE] : "unknown error";
  if (err < 0 && err > -PM_ERR_BASE) return strerror(-err);
  return "unknown error";
}
