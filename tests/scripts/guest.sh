#!/usr/bin/env bash
# Guest programs against the qemu-alpha oracle. Every tests/guest/NAME.c is
# built for Alpha as $BUILD/guest/NAME.dyn and NAME.static (programs tagged
# "//@ isa" also as NAME.ev56.dyn and NAME.ev67.dyn, and every one as
# NAME.smp.dyn, which runs on a machine of 2 CPUs), and each binary runs in a
# fresh temporary directory under qemu-alpha and under "$PROFILEME run --".
# Stdout and the exit status must match (stderr too for "//@ stderr").
# One line per binary: "PASS guest/NAME.VARIANT" or "FAIL guest/...: why",
# followed on failure by a few indented diff lines.
#
# Tags, one per line anywhere in NAME.c:
#   //@ args: A "B C"   arguments (shell words) given to the program
#   //@ isa             also build the -mcpu=ev56 and -mcpu=ev67 variants
#   //@ exec            the program execs Alpha binaries: run qemu inside
#                       tests/lib/qemu-oracle.pl's binfmt_misc namespace
#   //@ stderr          compare stderr as well
#   //@ status: N       expected exit status when NAME.expected is used
# A file tests/guest/NAME.expected replaces the qemu oracle's stdout.
#
# Caches: binaries are rebuilt only when NAME.c is newer; qemu's output is
# kept in NAME.VARIANT.qemu.{out,err,status} and rerun only when the key
# (binary hash, arguments, qemu version) changes. Tests run GUEST_JOBS
# (default 2) at a time; the output order is that of the sorted names.
# Environment: BUILD, PROFILEME, GUEST_JOBS, GUEST_TIMEOUT (seconds allowed
# to the emulator, default 30, 120 for a sanitizer build), GUEST_FILTER (a regex on NAME.VARIANT),
# ALPHA_CC (default alpha-linux-gnu-gcc), QEMU_ALPHA (default qemu-alpha).
set -u
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
export BUILD PROFILEME
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
QEMU=${QEMU_ALPHA:-qemu-alpha}
out=$BUILD/guest
src=$root/tests/guest
oracle=$root/tests/lib/qemu-oracle.pl
# (a sanitizer build runs several times slower: malloc_stress alone takes
# 20-30 s there, more when the host is busy)
case $BUILD in *san*) timeout_s=${GUEST_TIMEOUT:-120} ;; *) timeout_s=${GUEST_TIMEOUT:-30} ;; esac
# The fixed environment every guest program starts with.
guest_env=(PATH=/usr/bin:/bin HOME=/home/guest LC_ALL=C)
. "$root/tests/lib/runner.bash"

# Prints the value of tag $2 in source $1 (empty if absent); status 1 if absent.
tag() {
  local line
  line=$(grep -m1 "^//@ $2\\b" "$1") || return 1
  line=${line#"//@ $2"}
  line=${line#:}
  printf '%s' "${line# }"
}

# Builds the binary for test id $1 (NAME.VARIANT) if missing or older than its
# source. Prints the compiler's first lines and returns 1 on failure.
build() {
  local id=$1 name=${1%%.*} variant=${1#*.}
  local c=$src/$name.c bin=$out/$id flags=()
  [ -x "$bin" ] && [ "$bin" -nt "$c" ] && return 0
  case $variant in
    dyn|smp.dyn) ;;
    static) flags=(-static -Wl,--no-relax) ;;
    ev56.dyn) flags=(-mcpu=ev56) ;;
    ev67.dyn) flags=(-mcpu=ev67) ;;
  esac
  if ! "$CC" -O2 "${flags[@]}" -o "$bin.tmp.$$" "$c" -lm -lpthread >"$bin.cc.log" 2>&1; then
    rm -f "$bin.tmp.$$"
    head -n 8 "$bin.cc.log"
    return 1
  fi
  mv -f "$bin.tmp.$$" "$bin"
}

# Fills the qemu cache for test id $1 unless its key is unchanged.
oracle_run() {
  local id=$1 name=${1%%.*} bin=$out/$1 key mode=()
  tag "$src/$name.c" exec >/dev/null && mode=(--binfmt)
  key="$(sha256sum <"$bin") ${mode[*]} $QEMU_VERSION $(tag "$src/$name.c" args)"
  if [ -f "$bin.qemu.key" ] && [ "$(cat "$bin.qemu.key")" = "$key" ] &&
     [ -f "$bin.qemu.status" ]; then
    return 0
  fi
  rm -f "$bin.qemu.key"
  eval "local args=($(tag "$src/$name.c" args))"
  run_in_tmp "$bin.qemu" timeout -k 5 30 "$oracle" "${mode[@]}" "$bin" "${args[@]}"
  printf '%s' "$key" >"$bin.qemu.key"
}

# Builds and runs one test id; prints its PASS/FAIL line (and details).
one() {
  local id=$1 name=${1%%.*} bin=$out/$1 c=$src/${1%%.*}.c
  local msg
  if ! msg=$(build "$id"); then
    echo "FAIL guest/$id: does not compile"
    printf '%s\n' "$msg" | sed 's/^/    /'
    return
  fi
  if [ ! -x "$PROFILEME" ]; then
    echo "FAIL guest/$id: emulator $PROFILEME not found (run make first)"
    return
  fi
  local exp_out exp_status oracle_name=qemu-alpha
  if [ -f "$src/$name.expected" ]; then
    oracle_name=$name.expected
    exp_out=$src/$name.expected
    exp_status=$(tag "$c" status) || exp_status=0
  else
    oracle_run "$id"
    exp_out=$bin.qemu.out
    exp_status=$(cat "$bin.qemu.status")
    if [ "$exp_status" = 125 ] || [ "$exp_status" = 124 ]; then
      echo "FAIL guest/$id: the qemu oracle failed (status $exp_status): $(head -c 300 "$bin.qemu.err")"
      rm -f "$bin.qemu.key"
      return
    fi
  fi
  eval "local args=($(tag "$c" args))"
  local pm_opts=()
  [[ $id == *.smp.dyn ]] && pm_opts=(--cpus 2)
  run_in_tmp "$bin.pm" timeout -k 5 "$timeout_s" "$PROFILEME" run "${pm_opts[@]}" -- "$bin" "${args[@]}"
  local st
  st=$(cat "$bin.pm.status")
  if [ "$st" = 124 ] && [ "$exp_status" != 124 ]; then
    echo "FAIL guest/$id: timed out after $timeout_s s"
    show_stderr "$bin.pm.err" 5
  elif ! cmp -s "$exp_out" "$bin.pm.out"; then
    echo "FAIL guest/$id: stdout differs from $oracle_name (exit status $st, expected $exp_status)"
    show_diff "$exp_out" "$bin.pm.out"
    show_stderr "$bin.pm.err"
  elif [ "$st" != "$exp_status" ]; then
    echo "FAIL guest/$id: exit status $st, expected $exp_status"
    show_stderr "$bin.pm.err" 5
  elif tag "$c" stderr >/dev/null && ! cmp -s "$bin.qemu.err" "$bin.pm.err"; then
    echo "FAIL guest/$id: stderr differs"
    show_diff "$bin.qemu.err" "$bin.pm.err"
  else
    echo "PASS guest/$id"
  fi
}

if [ "${1:-}" = --one ]; then
  one "$2" >"$out/results/$2.res" 2>&1
  exit 0
fi

if ! command -v "$CC" >/dev/null; then
  echo "FAIL guest: $CC not found (install gcc-alpha-linux-gnu)"
  exit 1
fi
if ! command -v "$QEMU" >/dev/null; then
  echo "FAIL guest: $QEMU not found (install qemu-user)"
  exit 1
fi
QEMU_VERSION=$("$QEMU" --version | head -n 1)
export QEMU_VERSION
mkdir -p "$out"

ids=()
for c in "$src"/*.c; do
  name=$(basename "$c" .c)
  ids+=("$name.dyn" "$name.static" "$name.smp.dyn")
  if tag "$c" isa >/dev/null; then
    ids+=("$name.ev56.dyn" "$name.ev67.dyn")
  fi
done
if [ -n "${GUEST_FILTER:-}" ]; then
  kept=()
  for id in "${ids[@]}"; do
    [[ $id =~ $GUEST_FILTER ]] && kept+=("$id")
  done
  ids=("${kept[@]}")
fi
[ ! -x "$PROFILEME" ] && echo "note: $PROFILEME does not exist, so every guest check fails"

start=$SECONDS
printf '%s\n' "${ids[@]}" | run_jobs "$self" "$out/results" "${GUEST_JOBS:-2}" guest
echo "guest: ${#ids[@]} binaries in $((SECONDS - start)) s"
