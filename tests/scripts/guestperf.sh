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
run nosplit nosplit --paranoid 1 --
for p in -1 0 1 2 3; do run attr.p$p attr --paranoid "$p" -- "$p"; done
run attr.p3priv attr --paranoid 3 --privileged -- 3 priv
run group group --paranoid 1 --
run ring ring --paranoid 1 --
run hup hup --paranoid 0 --
# the same on two CPUs: events follow their tasks across CPUs, children
# run beside their parents
run count.smp count --cpus 2 --paranoid 1 --
run inherit.smp inherit --cpus 2 --paranoid 1 --
run sig sig --paranoid 1 --
run inherit inherit --paranoid 1 --
run truth truth --paranoid 1 --
run exec exec --paranoid 1 --
run pm pm --


# The guest's own perf stat against profileme stat on the same program:
# the same PMU and window (exec to exit), so instructions agree to a few
# (the exec paths of the two parents differ slightly) and cycles to 3%.
if build selfstat && build loop; then
  "$PROFILEME" run --timed --paranoid 1 -- "$out/selfstat" "$out/loop" 1000000 >"$out/selfstat.out" 2>&1
  sed -n 's/^\(PASS\|FAIL\) /\1 guestperf\/selfstat\//p' "$out/selfstat.out"
  "$PROFILEME" stat -x, -e instructions,cycles -- "$out/loop" 1000000 2>"$out/stat.csv" >/dev/null
  read -r gi gc < <(awk '/^insns/ { print $2, $4 }' "$out/selfstat.out")
  si=$(awk -F, '$3 == "instructions" { print $1 }' "$out/stat.csv")
  sc=$(awk -F, '$3 == "cycles" { print $1 }' "$out/stat.csv")
  awk -v gi="${gi:-0}" -v si="${si:-0}" -v gc="${gc:-0}" -v sc="${sc:-0}" 'BEGIN {
    di = gi - si; if (di < 0) di = -di
    if (gi >= 2000000 && si >= 2000000 && di <= 100) printf "PASS guestperf/selfstat-vs-stat-instructions: guest %d, profileme stat %d\n", gi, si
    else printf "FAIL guestperf/selfstat-vs-stat-instructions: guest %d, profileme stat %d (want within 100)\n", gi, si
    dc = (gc - sc) / (sc ? sc : 1); if (dc < 0) dc = -dc
    if (sc > 0 && dc < 0.03) printf "PASS guestperf/selfstat-vs-stat-cycles: guest %d, profileme stat %d\n", gc, sc
    else printf "FAIL guestperf/selfstat-vs-stat-cycles: guest %d, profileme stat %d (want within 3%%)\n", gc, sc }'
else
  echo "FAIL guestperf/selfstat: cannot build selfstat.c or loop.c"
fi

# ProfileMe from inside the guest against `profileme record` of the same
# program and event (the same driver): the loop's two PCs get about the
# same number of samples (within 10% in all, each at least a quarter).
if build pmstat && build loop; then
  "$PROFILEME" run --timed -- "$out/pmstat" "$out/loop" 2000000 >"$out/pmstat.out" 2>&1
  sed -n 's/^\(PASS\|FAIL\) /\1 guestperf\/pmstat\//p' "$out/pmstat.out"
  rm -f "$out/pm.data"
  "$PROFILEME" record -q -e cpu/event=1,profileme=1/u -c 9973 -o "$out/pm.data" -- "$out/loop" 2000000 \
    >/dev/null 2>"$out/pm.rec.err"
  perf script -i "$out/pm.data" -F ip,sym 2>/dev/null | awk '$2 == "main" { print "REC", $1 }' >"$out/pm.rec"
  awk '$1 == "PC" { g[$2] += $3 } $1 == "REC" { r[$2]++ } END {
    for (p in r) if (r[p] > 50) { n++; rt += r[p]; gt += g[p]; if (rt_min == "" || r[p] < rt_min) rt_min = r[p]
                                  if (gm == "" || g[p] < gm) gm = g[p] }
    d = (gt - rt) / (rt ? rt : 1); if (d < 0) d = -d
    if (n == 2 && d < 0.10 && gm >= gt / 4 && rt_min >= rt / 4)
      printf "PASS guestperf/pmstat-vs-record: loop samples guest %d, record %d\n", gt, rt
    else printf "FAIL guestperf/pmstat-vs-record: loop samples guest %d, record %d over %d PCs (want 2 PCs, within 10%%)\n", gt, rt, n }' \
    "$out/pmstat.out" "$out/pm.rec"
else
  echo "FAIL guestperf/pmstat: cannot build pmstat.c or loop.c"
fi
