#!/usr/bin/env bash
# Runs every test group and prints the total. Each group (a unit-test binary in
# $BUILD/unit, or a script tests/scripts/*.sh) prints one line per check:
# "PASS name" or "FAIL name: why". Anything else it prints is passed through.
# The last line is "N passed, N failed"; the exit status is 0 only if none failed.
set -u
. "$(dirname "$0")/lib/common.bash"
cd "$root"
export BUILD PROFILEME
pass=0; fail=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
run_group() {
  local name=$1; shift
  echo "== $name"
  "$@" >"$log" 2>&1
  local rc=$?
  local p f
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  grep -v '^PASS ' "$log"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: exited with status $rc"; f=1
  fi
  echo "   $name: $p passed, $f failed"
  pass=$((pass + p)); fail=$((fail + f))
}
for t in "$BUILD"/unit/*; do
  [ -x "$t" ] && run_group "unit/$(basename "$t")" "$t"
done
for s in tests/scripts/*.sh; do
  [ -e "$s" ] && run_group "$(basename "$s" .sh)" bash "$s"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
