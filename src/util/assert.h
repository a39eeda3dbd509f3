/* Invariant checks, live in debug builds and gone from the release build.
 * PM_DEBUG switches them on: `DEBUG=1 make` (build-debug/), `SAN=1 make`
 * (build-san/) and `make fuzz` define it; plain `make` does not.
 *
 *  PM_ASSERT(c)  an invariant the code relies on and a comment states. Debug:
 *                aborts when c is false. Release: nothing at all; c is not
 *                evaluated (it stands behind a constant `0 &&`, folded away by
 *                the compiler at any -O, so the names in it still count as used
 *                and helpers called only from checks raise no warning). c must
 *                have no side effects.
 *  PM_NEVER(c)   a case believed impossible that the code still handles:
 *                `if (PM_NEVER(n > cap)) return PM_EINVAL;`. The value is c
 *                (as 0 or 1) in every build, so the defensive branch stays in
 *                release; debug also aborts when c is true.
 *  PM_ALWAYS(c)  the same for a condition believed always true:
 *                `if (!PM_ALWAYS(p)) return NULL;`. Debug aborts when c is false.
 *
 * A failure prints "file:line: function: PM_ASSERT(expression) failed" on
 * stderr (stdout flushed first, so PASS/FAIL lines before it survive) and
 * calls abort(). Lineage: SQLite's assert/ALWAYS/NEVER (sqliteInt.h) and Lua's
 * lua_assert (llimits.h). */
#ifndef UTIL_ASSERT_H
#define UTIL_ASSERT_H

#ifdef PM_DEBUG
#include <stdio.h>
#include <stdlib.h>

__attribute__((cold)) _Noreturn static inline void
pm_assert_fail(const char *kind, const char *expr, const char *file, int line, const char *func)
{
  fflush(stdout);
  fprintf(stderr, "%s:%d: %s: %s(%s) failed\n", file, line, func, kind, expr);
  fflush(stderr);
  abort();
}

#define PM_ASSERT(c) \
  (__builtin_expect(!!(c), 1) ? (void)0 : pm_assert_fail("PM_ASSERT", #c, __FILE__, __LINE__, __func__))
#define PM_NEVER(c) \
  (__builtin_expect(!!(c), 0) ? (pm_assert_fail("PM_NEVER", #c, __FILE__, __LINE__, __func__), 1) : 0)
#define PM_ALWAYS(c) \
  (__builtin_expect(!!(c), 1) ? 1 : (pm_assert_fail("PM_ALWAYS", #c, __FILE__, __LINE__, __func__), 0))

#else

#define PM_ASSERT(c) ((void)(0 && (c)))
#define PM_NEVER(c) (!!(c))
#define PM_ALWAYS(c) (!!(c))

#endif
#endif
