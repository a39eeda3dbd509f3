/* The PM_E* codes (src/util/err.h): a range of their own below every negated
 * errno, each with a message, and pm_strerror naming both vocabularies. */
#include "check.h"
#include "util/err.h"
#include <errno.h>
#include <string.h>

int main(void)
{
  CHECK(PM_ERR_MAX < -4095 && PM_ERR_MIN <= PM_ERR_MAX, "the codes lie below -MAX_ERRNO (%d..%d)",
        PM_ERR_MIN, PM_ERR_MAX);
  int named = 0, in_range = 0;
  for (int e = PM_ERR_MAX; e >= PM_ERR_MIN; e--) {
    in_range += pm_is_err(e);
    named += strcmp(pm_strerror(e), "unknown error") != 0;
  }
  CHECK(in_range == PM_ERR_MAX - PM_ERR_MIN + 1 && named == in_range,
        "every code from PM_ERR_MAX to PM_ERR_MIN is one, with a message (%d of %d)", named, in_range);
  int errno_taken = 0;
  for (int e = 1; e <= 4095; e++) errno_taken += pm_is_err(-e);
  CHECK(errno_taken == 0 && !pm_is_err(0) && !pm_is_err(1), "no -errno, 0 or 1 is a PM_E* code");
  CHECK(!pm_is_err(PM_ERR_MIN - 1) && !pm_is_err(PM_ERR_MAX + 1), "the range ends at PM_ERR_MIN and PM_ERR_MAX");
  CHECK(pm_is_err(PM_EFAULT) && PM_EFAULT != -EFAULT && PM_EINVAL != -ENOEXEC,
        "PM_EFAULT is not -EFAULT, PM_EINVAL not -ENOEXEC");
  CHECK(!strcmp(pm_strerror(PM_EFAULT), "bad guest address"), "PM_EFAULT: %s", pm_strerror(PM_EFAULT));
  CHECK(!strcmp(pm_strerror(PM_ENOSPC), "guest address space exhausted"), "PM_ENOSPC: %s", pm_strerror(PM_ENOSPC));
  CHECK(!strcmp(pm_strerror(0), "success"), "0: %s", pm_strerror(0));
  CHECK(!strcmp(pm_strerror(-EFAULT), strerror(EFAULT)), "-EFAULT is strerror's: %s", pm_strerror(-EFAULT));
  CHECK(!strcmp(pm_strerror(-ENOMEM), strerror(ENOMEM)), "-ENOMEM is strerror's: %s", pm_strerror(-ENOMEM));
  CHECK(!strcmp(pm_strerror(1), "unknown error") && !strcmp(pm_strerror(PM_ERR_MIN - 1), "unknown error") &&
        !strcmp(pm_strerror(-4096), "unknown error"),
        "a positive value, -4096 and codes past the table are unknown errors");
  return check_done();
}
