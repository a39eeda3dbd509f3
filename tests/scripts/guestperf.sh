#!/usr/bin/env bash
# Guest programs that call perf_event_open themselves (tests/guestperf/*.c,
# docs/guest-perf.md): each checks what it reads against Linux's ABI and
# prints PASS/FAIL lines, run here on the timed machine at the
# perf_event_paranoid and privilege it needs; qemu-alpha cannot be the
# oracle (it forwards the call to the host, which has no Alpha PMU). The
# counts are also compared with `profileme stat` on the same code.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/guestperf
mkdir -p "$out"
cd "$out"
src=$root/tests/guestperf

# build NAME: $out/NAME from tests/guestperf/NAME.c (with gp.h).
build() {
  local bin=$out/$1
  [ -x "$bin" ] && [ ! "$src/$1.c" -nt "$bin" ] && [ ! "$src/gp.h" -nt "$bin" ] && return 0
  "${ALPHA_CC:-alpha-linux-gnu-gcc}" -O2 -static -Wl,--no-relax -Wall -o "$bin" "$src/$1.c" 2>"$out/$1.build.err"
}

# run TAG NAME [RUN-OPTIONS...] -- [ARGS...]: the program's own lines
# (prefixed guestperf/TAG/), and a FAIL when it crashed or printed none.
run() {
  local tag=$1 name=$2; shift 2
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  if ! build "$name"; then echo "FAIL guestperf/$tag: cannot build $name.c"; head -3 "$out/$name.build.err"; return; fi
  local log=$out/$tag.out
  timeout 300 "$PROFILEME" run --timed "${opts[@]}" -- "$out/$name" "$@" >"$log" 2>"$out/$tag.err"
  local rc=$?
  sed -n 's/^\(PASS\|FAIL\) /\1 guestperf\/'"$tag"'\//p' "$log"
  grep -q '^PASS ' "$log" || echo "FAIL guestperf/$tag: no result lines (status $rc)"
  if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$log"; then echo "FAIL guestperf/$tag: status $rc without a FAIL line"; fi
}

run count count --paranoid 1 --
for p in -1 0 1 2 3; do run attr.p$p attr --paranoid "$p" -- "$p"; done
run attr.p3priv attr --paranoid 3 --privileged -- 3 priv
