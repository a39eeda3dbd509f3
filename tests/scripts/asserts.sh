#!/usr/bin/env bash
# The invariant checks (src/util/assert.h) are compiled into the debug and
# sanitizer builds' profileme and out of the release one: the debug binary
# holds the failure messages' kinds and expressions, the release binary none
# of them. The build's mode comes from $BUILD/unit/test_assert (built with
# the same flags; it tests the macros themselves), else from $BUILD's name
# (build-debug, build-san: debug).
set -u
. "$(dirname "$0")/../lib/common.bash"
if [ ! -x "$PROFILEME" ]; then echo "FAIL asserts: $PROFILEME not built"; exit 1; fi
mode=
if [ -x "$BUILD/unit/test_assert" ]; then
  mode=$("$BUILD/unit/test_assert" | sed -n 's/^# this binary.s build: PM_DEBUG \(on\|off\)$/\1/p')
fi
if [ -z "$mode" ]; then
  case $(basename "$BUILD") in build-debug*|build-san*) mode=on ;; *) mode=off ;; esac
fi
# Strings only a live check puts in the binary: the kinds, and the
# expression of memsys.c's Dcache-inclusion check.
strs=(PM_ASSERT PM_NEVER "bc_holds(ms, line) && dc_copies(ms, line) == 1")
found=0
for s in "${strs[@]}"; do
  grep -qaF -- "$s" "$PROFILEME" && found=$((found + 1))
done
if [ "$mode" = on ]; then
  if [ "$found" -eq "${#strs[@]}" ]; then echo "PASS asserts/debug-build: the checks are in $(basename "$BUILD")/profileme"
  else echo "FAIL asserts/debug-build: $found of ${#strs[@]} check strings in $PROFILEME (PM_DEBUG on)"; fi
else
  if [ "$found" -eq 0 ]; then echo "PASS asserts/release-build: no check in $(basename "$BUILD")/profileme"
  else echo "FAIL asserts/release-build: $found of ${#strs[@]} check strings in $PROFILEME (PM_DEBUG off)"; fi
fi
