/* The invariant checks of src/util/assert.h in both of their builds, whatever
 * this binary's build is: the header is included once with PM_DEBUG (the
 * debug and sanitizer builds' macros) and once without (the release
 * build's). Debug: PM_ASSERT evaluates its condition once and a false one
 * aborts, with file:line, function and expression on stderr (each failure
 * runs in a forked child whose stderr is read back); PM_NEVER/PM_ALWAYS
 * return their condition and abort on the impossible value. Release:
 * PM_ASSERT does not evaluate its condition (a side effect that must not
 * happen) and a false one does nothing; PM_NEVER/PM_ALWAYS return their
 * condition and never abort. tests/scripts/asserts.sh checks that the
 * checks are in the debug builds' profileme and not in the release one. */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#ifdef PM_DEBUG
static const bool built_debug = true;
#else
static const bool built_debug = false;
#endif

static int evaluated;
/* A condition with a side effect: counts its evaluations. */
static bool counted(bool v)
{
  evaluated++;
  return v;
}

/* Runs fn in a child with stderr into a pipe; returns its wait status and
 * puts what it wrote in buf. */
static int in_child(void (*fn)(void), char *buf, size_t len)
{
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 2);
    fn();
    _exit(0);
  }
  close(fd[1]);
  size_t n = 0;
  ssize_t r;
  while (n + 1 < len && (r = read(fd[0], buf + n, len - 1 - n)) > 0) n += (size_t)r;
  buf[n] = 0;
  close(fd[0]);
  int st = -1;
  waitpid(pid, &st, 0);
  return st;
}

static bool aborted(int st) { return st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT; }
static bool exited0(int st) { return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0; }

/* ---- the debug build's macros ---- */
#ifndef PM_DEBUG
#define PM_DEBUG 1
#endif
#include "util/assert.h"

/* Each on one line, with that line's number. */
static void debug_assert_false(void) { int two = 2; PM_ASSERT(two + two == 5); } static const int assert_line = __LINE__;
static void debug_never_true(void) { if (PM_NEVER(evaluated >= 0)) _exit(3); } static const int never_line = __LINE__;
static void debug_always_false(void) { if (!PM_ALWAYS(evaluated < 0)) _exit(3); } static const int always_line = __LINE__;

static void test_debug(void)
{
  char msg[512], want[256];
  evaluated = 0;
  PM_ASSERT(counted(true));
  CHECK_EQ_U64(evaluated, 1, "debug: PM_ASSERT evaluates its condition once");
  evaluated = 0;
  int v = PM_NEVER(counted(false));
  CHECK(v == 0 && evaluated == 1, "debug: PM_NEVER(false) is 0, condition evaluated once");
  v = PM_ALWAYS(counted(true));
  CHECK(v == 1 && evaluated == 2, "debug: PM_ALWAYS(true) is 1, condition evaluated once");
  char *some = getenv("PATH") ? msg : msg + 1, *none = evaluated < 0 ? msg : NULL;
  CHECK(PM_ALWAYS(some) == 1 && PM_NEVER(none) == 0, "debug: pointers as conditions");

  int st = in_child(debug_assert_false, msg, sizeof msg);
  snprintf(want, sizeof want, "test_assert.c:%d: debug_assert_false: PM_ASSERT(two + two == 5) failed\n", assert_line);
  CHECK(aborted(st), "debug: a false PM_ASSERT aborts (status %#x)", st);
  CHECK(strstr(msg, want) != NULL, "debug: the message names file:line, function and expression: %.*s",
        (int)strcspn(msg, "\n"), msg);
  st = in_child(debug_never_true, msg, sizeof msg);
  snprintf(want, sizeof want, "test_assert.c:%d: debug_never_true: PM_NEVER(evaluated >= 0) failed\n", never_line);
  CHECK(aborted(st) && strstr(msg, want), "debug: PM_NEVER(true) aborts: %.*s", (int)strcspn(msg, "\n"), msg);
  st = in_child(debug_always_false, msg, sizeof msg);
  snprintf(want, sizeof want, "test_assert.c:%d: debug_always_false: PM_ALWAYS(evaluated < 0) failed\n", always_line);
  CHECK(aborted(st) && strstr(msg, want), "debug: PM_ALWAYS(false) aborts: %.*s", (int)strcspn(msg, "\n"), msg);
}

/* ---- the release build's macros ---- */
#undef PM_ASSERT
#undef PM_NEVER
#undef PM_ALWAYS
#undef UTIL_ASSERT_H
#undef PM_DEBUG
#include "util/assert.h"

static void release_assert_false(void) { PM_ASSERT(counted(false)); }
static void release_never_true(void) { if (!PM_NEVER(counted(true))) _exit(3); }
static void release_always_false(void) { if (PM_ALWAYS(counted(false))) _exit(3); }

static void test_release(void)
{
  char msg[512];
  evaluated = 0;
  PM_ASSERT(counted(true));
  PM_ASSERT(counted(false));
  CHECK_EQ_U64(evaluated, 0, "release: PM_ASSERT does not evaluate its condition");
  int v = PM_NEVER(counted(true)), w = PM_NEVER(counted(false));
  CHECK(v == 1 && w == 0 && evaluated == 2, "release: PM_NEVER is its condition, evaluated once");
  v = PM_ALWAYS(counted(false));
  w = PM_ALWAYS(counted(true));
  CHECK(v == 0 && w == 1 && evaluated == 4, "release: PM_ALWAYS is its condition, evaluated once");
  int st = in_child(release_assert_false, msg, sizeof msg);
  CHECK(exited0(st) && !msg[0], "release: a false PM_ASSERT does nothing (status %#x)", st);
  st = in_child(release_never_true, msg, sizeof msg);
  CHECK(exited0(st) && !msg[0], "release: PM_NEVER(true) returns 1, no abort (status %#x)", st);
  st = in_child(release_always_false, msg, sizeof msg);
  CHECK(exited0(st) && !msg[0], "release: PM_ALWAYS(false) returns 0, no abort (status %#x)", st);
}

int main(void)
{
  printf("# this binary's build: PM_DEBUG %s\n", built_debug ? "on" : "off");
  test_debug();
  test_release();
  return check_done();
}
