#!/usr/bin/env bash
# Real programs built from Debian source packages (tests/realprogs/build.sh):
# lua 5.4 runs every tests/realprogs/*.lua script, and bzip2 compresses a
# generated 1 MiB file at -9 and -1 and decompresses qemu's result, each as
# a dynamic and a static binary, under qemu-alpha (the oracle, cached) and
# under "$PROFILEME run --". Stdout (the compressed bytes for bzip2) and the
# exit status must match qemu's; decompression must give back the input.
# sqlite's speedtest1 runs its main test set at --size 1 (about 190 M
# instructions) with --verify, on an in-memory database (memdb) and on a
# file in the run's directory (file); its output, each test's result hash
# included, must match qemu's once the elapsed times (host time under qemu,
# guest time here) are blanked.
# Checks: realprogs/lua.VARIANT/SCRIPT.lua, realprogs/bzip2.VARIANT/compress-N,
# realprogs/bzip2.VARIANT/decompress-N and realprogs/speedtest1.dyn/{memdb,file}.
# Environment: BUILD, PROFILEME, REALPROGS_JOBS (default 2),
# REALPROGS_TIMEOUT (seconds allowed to the emulator per run, default 300),
# REALPROGS_DIR and PROFILEME_CACHE (where the programs are: build.sh). The
# runs and the oracle's cached outputs go to $BUILD/realprogs. Prints the
# build's last line ("realprogs: cached in DIR", "...built in N s...").
set -u
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
export BUILD PROFILEME
export RP   # the programs (tests/realprogs/build.sh), to the --one runs
QEMU=${QEMU_ALPHA:-qemu-alpha}
out=$BUILD/realprogs
work=$out/runs
oracle=$root/tests/lib/qemu-oracle.pl
timeout_s=${REALPROGS_TIMEOUT:-300}
guest_env=(PATH=/usr/bin:/bin HOME=/home/guest LC_ALL=C)
. "$root/tests/lib/runner.bash"
input=$out/input.dat

# Runs the oracle for run $1 (a file prefix) on binary $2 with arguments
# $3..., unless the cached output's key (binary, arguments, input files'
# hashes) is unchanged.
oracle_run() {
  local prefix=$1 bin=$2; shift 2
  local key arg
  key="$(sha256sum <"$bin") $QEMU_VERSION"
  for arg in "$@"; do
    key+=" $arg"
    [ -f "$arg" ] && key+=" $(sha256sum <"$arg")"
  done
  if [ -f "$prefix.qemu.key" ] && [ "$(cat "$prefix.qemu.key")" = "$key" ] &&
     [ -f "$prefix.qemu.status" ]; then
    return 0
  fi
  rm -f "$prefix.qemu.key"
  run_in_tmp "$prefix.qemu" timeout -k 5 120 "$oracle" "$bin" "$@"
  [ "$(cat "$prefix.qemu.status")" = 0 ] && printf '%s' "$key" >"$prefix.qemu.key"
}

# Runs binary $2 with arguments $3... under the emulator as run $1; compares
# with the oracle and prints the check's PASS/FAIL line (name $check).
compare_run() {
  local prefix=$1 bin=$2; shift 2
  local st exp
  exp=$(cat "$prefix.qemu.status")
  if [ "$exp" != 0 ]; then
    echo "FAIL $check: qemu failed (status $exp)"
    show_stderr "$prefix.qemu.err"
    return 1
  fi
  run_in_tmp "$prefix.pm" timeout -k 5 "$timeout_s" "$PROFILEME" run -- "$bin" "$@"
  st=$(cat "$prefix.pm.status")
  local qout=$prefix.qemu.out pout=$prefix.pm.out
  if [ -n "${out_filter:-}" ]; then
    sed -E "$out_filter" "$qout" >"$prefix.qemu.cmp"
    sed -E "$out_filter" "$pout" >"$prefix.pm.cmp"
    qout=$prefix.qemu.cmp pout=$prefix.pm.cmp
  fi
  if [ "$st" = 124 ]; then
    echo "FAIL $check: timed out after $timeout_s s"
    show_stderr "$prefix.pm.err"
  elif ! cmp -s "$qout" "$pout"; then
    echo "FAIL $check: output differs from qemu-alpha (exit status $st)"
    show_diff "$qout" "$pout"
    show_stderr "$prefix.pm.err"
  elif [ "$st" != "$exp" ]; then
    echo "FAIL $check: exit status $st, expected $exp"
    show_stderr "$prefix.pm.err"
  else
    return 0
  fi
  return 1
}

# Runs one item: PROG.VARIANT:WHAT, where WHAT is a lua script name, a
# bzip2 level or speedtest1's database (memdb or file).
one() {
  local prog=${1%%:*} what=${1#*:}
  local bin=$RP/$prog
  local prefix=$work/$prog.$what
  if [ "${prog%%.*}" = speedtest1 ]; then
    check=realprogs/$prog/$what
    [ -x "$PROFILEME" ] || { echo "FAIL $check: emulator $PROFILEME not found (run make first)"; return; }
    local db=--memdb
    [ "$what" = file ] && db=test.db   # in the run's fresh directory
    # Each test's line ends with its elapsed time: host time under qemu.
    out_filter='s/[0-9]+\.[0-9]+s$/TIME/'
    oracle_run "$prefix" "$bin" --size 1 --verify "$db"
    compare_run "$prefix" "$bin" --size 1 --verify "$db" && echo "PASS $check"
    return
  fi
  if [ "${prog%%.*}" = lua ]; then
    check=realprogs/$prog/$what
    [ -x "$PROFILEME" ] || { echo "FAIL $check: emulator $PROFILEME not found (run make first)"; return; }
    local script=$root/tests/realprogs/$what
    oracle_run "$prefix" "$bin" "$script"
    compare_run "$prefix" "$bin" "$script" && echo "PASS $check"
    return
  fi
  local level=$what
  check=realprogs/$prog/compress-$level
  if [ ! -x "$PROFILEME" ]; then
    echo "FAIL $check: emulator $PROFILEME not found (run make first)"
    echo "FAIL realprogs/$prog/decompress-$level: emulator $PROFILEME not found (run make first)"
    return
  fi
  oracle_run "$prefix.c" "$bin" "-$level" -c "$input"
  # A second opinion on the oracle: the host's bzip2 1.0.8 writes the same bytes.
  if command -v bzip2 >/dev/null && ! bzip2 "-$level" -c "$input" | cmp -s - "$prefix.c.qemu.out"; then
    echo "note: qemu's $prog -$level output differs from the host bzip2's"
  fi
  compare_run "$prefix.c" "$bin" "-$level" -c "$input" && echo "PASS $check"
  check=realprogs/$prog/decompress-$level
  if [ "$(cat "$prefix.c.qemu.status")" != 0 ]; then
    echo "FAIL $check: no compressed file from qemu to decompress"
    return
  fi
  # Decompress qemu's compressed bytes, so this check stands on its own.
  cp -f "$prefix.c.qemu.out" "$prefix.bz2"
  oracle_run "$prefix.d" "$bin" -d -c "$prefix.bz2"
  if ! cmp -s "$prefix.d.qemu.out" "$input"; then
    echo "FAIL $check: qemu's own round trip does not give back the input"
    return
  fi
  compare_run "$prefix.d" "$bin" -d -c "$prefix.bz2" && echo "PASS $check"
}

if [ "${1:-}" = --one ]; then
  one "$2" >"$work/results/$2.res" 2>&1
  exit 0
fi

if ! command -v "$QEMU" >/dev/null; then
  echo "FAIL realprogs: $QEMU not found (install qemu-user)"
  exit 1
fi
QEMU_VERSION=$("$QEMU" --version | head -n 1)
export QEMU_VERSION
mkdir -p "$work"
if ! RP=$(bash "$root/tests/realprogs/build.sh" 2>"$out/build.err"); then
  echo "FAIL realprogs/build: building lua and bzip2 failed"
  tail -n 15 "$out/build.err" | sed 's/^/    /'
  exit 1
fi
tail -n 1 "$out/build.err"
[ -f "$input" ] || bash "$root/tests/realprogs/input.sh" "$input"
[ ! -x "$PROFILEME" ] && echo "note: $PROFILEME does not exist, so every realprogs check fails"

items=()
for v in dyn static; do
  for s in "$root"/tests/realprogs/*.lua; do
    items+=("lua.$v:${s##*/}")
  done
  items+=("bzip2.$v:9" "bzip2.$v:1")
done
items+=(speedtest1.dyn:memdb speedtest1.dyn:file)
start=$SECONDS
printf '%s\n' "${items[@]}" | run_jobs "$self" "$work/results" "${REALPROGS_JOBS:-2}" realprogs
echo "realprogs: ${#items[@]} runs in $((SECONDS - start)) s"

# SOURCE_DATE_EPOCH sets where the guest's CLOCK_REALTIME starts: lua's
# os.time() reads it, and lua, which seeds its string hashes from time(),
# does the same work in two runs (the same instruction count), which the
# host's clock does not give. A bad value is refused with exit status 2.
lua=$RP/lua.dyn
t=$(SOURCE_DATE_EPOCH=1700000000 "$PROFILEME" run -- "$lua" -e 'print(os.time())' 2>&1)
if [ "$t" = 1700000000 ]; then echo "PASS realprogs/source-date-epoch: os.time() is $t"
else echo "FAIL realprogs/source-date-epoch: os.time() printed '$t', not 1700000000"; fi
n1=$(SOURCE_DATE_EPOCH=1700000000 "$PROFILEME" run --stats -- "$lua" tests/realprogs/strings.lua 2>&1 >/dev/null | grep -o '[0-9]* instructions' | head -1)
n2=$(SOURCE_DATE_EPOCH=1700000000 "$PROFILEME" run --stats -- "$lua" tests/realprogs/strings.lua 2>&1 >/dev/null | grep -o '[0-9]* instructions' | head -1)
if [ -n "$n1" ] && [ "$n1" = "$n2" ]; then echo "PASS realprogs/source-date-epoch-same-work: two lua runs, $n1 each"
else echo "FAIL realprogs/source-date-epoch-same-work: '$n1' and '$n2'"; fi
e=$(SOURCE_DATE_EPOCH=soon "$PROFILEME" run -- "$lua" -e 'print(1)' 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && [[ $e == *"SOURCE_DATE_EPOCH must be seconds since 1970"* ]]; then echo "PASS realprogs/source-date-epoch-bad: exit 2: $e"
else echo "FAIL realprogs/source-date-epoch-bad: exit $rc: $e"; fi
