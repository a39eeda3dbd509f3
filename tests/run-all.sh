#!/usr/bin/env bash
# Runs every test group and prints the total. Each group (a unit-test binary in
# $BUILD/unit, or a script tests/scripts/*.sh) prints one line per check:
# "PASS name" or "FAIL name: why". Anything else it prints is passed through.
# Groups run side by side, TEST_JOBS at a time (default: the number of CPUs;
# TEST_JOBS=1 runs them one after another). Each group's output is kept apart
# and printed whole, in the order below, as soon as it and those before it
# have ended, with its counts and its time. A group that builds something
# another group also uses takes a lock for it (tests/lib/common.bash locked,
# tests/realprogs/build.sh, tests/thirdparty/build.sh).
# The last line is "N passed, N failed"; the exit status is 0 only if none failed.
set -u
. "$(dirname "$0")/lib/common.bash"
cd "$root"
export BUILD PROFILEME
jobs=${TEST_JOBS:-$(nproc)}
case $jobs in ''|*[!0-9]*|0) echo "run-all: TEST_JOBS must be a positive number, not '$jobs'" >&2; exit 2 ;; esac
tmp=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

# The groups, the scripts first: they take minutes where the unit tests take
# seconds, so the long ones start early and the short ones fill the gaps.
names=() cmds=()
for s in tests/scripts/*.sh; do
  [ -e "$s" ] && { names+=("$(basename "$s" .sh)"); cmds+=("$s"); }
done
for t in "$BUILD"/unit/*; do
  [ -x "$t" ] && { names+=("unit/$(basename "$t")"); cmds+=("$t"); }
done

# start I: runs group I in the background; its output, status and time go to
# $tmp/I.{log,rc,secs}.
start() {
  local i=$1
  ( t0=$SECONDS
    case ${names[$i]} in
      unit/*) "${cmds[$i]}" ;;
      *) bash "${cmds[$i]}" ;;
    esac >"$tmp/$i.log" 2>&1
    rc=$?
    echo $((SECONDS - t0)) >"$tmp/$i.secs"
    echo "$rc" >"$tmp/$i.status" && mv "$tmp/$i.status" "$tmp/$i.rc" ) &
}
# report I: prints group I's output and counts, and adds them to the totals.
pass=0 fail=0
report() {
  local i=$1 name=${names[$1]} log=$tmp/$1.log p f rc
  rc=$(cat "$tmp/$i.rc")
  echo "== $name"
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log")
  grep -v '^PASS ' "$log"
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "FAIL $name: exited with status $rc"; f=1
  fi
  echo "   $name: $p passed, $f failed ($(cat "$tmp/$i.secs") s)"
  pass=$((pass + p)); fail=$((fail + f))
}

# A group has ended when its .rc file is there (written last, whole: it is
# renamed into place), so the count
# of those, not the shell's job table, says how many still run.
n=${#names[@]} next=0 shown=0
while [ "$shown" -lt "$n" ]; do
  ended=$(find "$tmp" -name '*.rc' | wc -l)
  while [ $((next - ended)) -lt "$jobs" ] && [ "$next" -lt "$n" ]; do
    start "$next"; next=$((next + 1))
  done
  while [ "$shown" -lt "$n" ] && [ -e "$tmp/$shown.rc" ]; do
    report "$shown"; shown=$((shown + 1))
  done
  [ "$shown" -lt "$n" ] && sleep 0.2
done
wait
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
