#!/usr/bin/env bash
# `make bench`: speed figures. Builds the kernels in
# bench/ for Alpha into $BUILD/bench/ (loop static, with -Wl,--no-relax for the
# binutils relaxation bug; libc and hello dynamic), runs each under
# `profileme run --stats` and under qemu-alpha, best of BENCH_REPS runs
# (default 3), and prints guest instructions (from --stats), wall times, MIPS
# and qemu_time / profileme_time (above 1: profileme is faster). Then the timed
# machine (timing model + PMU, `profileme stat`) against the functional core,
# and ProfileMe sampling (`profileme record`). Second, the functional core
# against qemu-alpha on real code: lua, bzip2 and sqlite's speedtest1 (the
# realprogs builds, tests/realprogs/build.sh) and the bundled demo, each run
# alternately under both, as time ratios (goal: profileme at most 2.5x
# qemu-alpha's time). Figures, not a pass/fail test; it fails only if a
# program cannot be built or run.
#   BENCH_LOOP_ITERS (default 350000000), BENCH_LIBC_ROUNDS (default 4),
#   BENCH_TIMED_LOOP_ITERS (default 20000000), BENCH_SQLITE_SIZE (default 5),
#   BENCH_REAL=0 skips the real-code table
set -euo pipefail
. "$(dirname "$0")/../tests/lib/common.bash"
cd "$root"
CC_ALPHA=${ALPHA_CC:-alpha-linux-gnu-gcc}
QEMU=${QEMU_ALPHA:-qemu-alpha}
SYSROOT=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
REPS=${BENCH_REPS:-3}
out=$BUILD/bench
mkdir -p "$out"

"$CC_ALPHA" -O2 -Wall -static -Wl,--no-relax -o "$out/loop" bench/loop.c
for k in libc hello; do
  "$CC_ALPHA" -O2 -Wall -o "$out/$k" "bench/$k.c"
done
"$CC_ALPHA" -O2 -Wall -static -Wl,--no-relax -o "$out/spin2" tests/smp/spin2.c

now() { date +%s.%N; }
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT

# best_time CMD...: runs CMD REPS times (stdout discarded, stderr kept in $tmp)
# and prints the shortest wall time in seconds.
best_time() {
  local best= t0 t1 i
  for ((i = 0; i < REPS; i++)); do
    t0=$(now)
    "$@" >/dev/null 2>"$tmp" || { cat "$tmp" >&2; echo "bench: failed: $*" >&2; exit 1; }
    t1=$(now)
    best=$(awk -v a="$t0" -v b="$t1" -v m="$best" \
                'BEGIN { d = b - a; if (m != "" && m + 0 < d) d = m; printf "%.4f", d }')
  done
  echo "$best"
}

printf 'profileme bench: %s, %s cores, best of %s runs\n' \
  "$(date -u +%Y-%m-%d)" "$(nproc)" "$REPS"
printf '%-8s %14s %10s %10s %10s %10s\n' \
  workload "guest insns" "pm wall s" "pm MIPS" "qemu s" "qemu/pm"

# bench_one NAME ARGS...: one row of the table.
bench_one() {
  local name=$1; shift
  local prog=$out/$name pm q insns
  pm=$(best_time "$PROFILEME" run --stats "$prog" "$@")
  insns=$(sed -n 's/^profileme: \([0-9]*\) instructions.*/\1/p' "$tmp")
  [ -n "$insns" ] || { echo "bench: no --stats line for $name" >&2; exit 1; }
  q=$(best_time "$QEMU" -L "$SYSROOT" "$prog" "$@")
  awk -v n="$name" -v i="$insns" -v p="$pm" -v q="$q" 'BEGIN {
    printf "%-8s %14.0f %10.3f %10.1f %10.3f %10.2f\n", n, i, p, i / p / 1e6, q, q / p }'
}

bench_one loop "${BENCH_LOOP_ITERS:-350000000}"
bench_one libc "${BENCH_LIBC_ROUNDS:-4}"
bench_one hello
echo "MIPS = guest instructions / profileme wall time (start-up included)."

# The functional core against qemu-alpha on real code: the same binary and
# arguments under `profileme run` and qemu-alpha, the two alternated in this
# run so that both see the same load, best of REPS each, wall and CPU time
# (user + system: this machine is shared, and CPU time moves less with the
# load). pm/qemu is profileme's time over qemu's (goal: at most 2.5).
if [ "${BENCH_REAL:-1}" != 0 ]; then
  rp=$(bash tests/realprogs/build.sh 2>"$tmp") || { cat "$tmp" >&2; echo "bench: realprogs build failed" >&2; exit 1; }
  "$CC_ALPHA" -O2 -Wall -o "$out/demo" workloads/demo.c
  [ -f "$out/input.dat" ] || bash tests/realprogs/input.sh "$out/input.dat"
  # cpu_time CMD...: runs CMD once; prints "wall cpu" in seconds.
  cpu_time() {
    local TIMEFORMAT='%R %U %S' t
    t=$( { time "$@" >/dev/null 2>"$tmp.err"; } 2>&1 ) ||
      { cat "$tmp.err" >&2; echo "bench: failed: $*" >&2; exit 1; }
    awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.3f %.3f\n", a[1], a[2] + a[3] }'
  }
  printf '\nfunctional core against qemu-alpha on real code (best of %s, alternated)\n' "$REPS"
  printf '%-10s %14s %8s %8s %8s %8s %10s %10s\n' \
    workload "guest insns" "pm s" "qemu s" "pm cpu" "qemu cpu" "pm/qemu" "cpu ratio"
  bench_real() {
    local name=$1; shift
    local i pw= pc= qw= qc= w c insns
    for ((i = 0; i < REPS; i++)); do
      read -r w c < <(cpu_time "$PROFILEME" run "$@")
      pw=$(awk -v a="$w" -v m="$pw" 'BEGIN { print (m != "" && m + 0 < a) ? m : a }')
      pc=$(awk -v a="$c" -v m="$pc" 'BEGIN { print (m != "" && m + 0 < a) ? m : a }')
      read -r w c < <(cpu_time "$QEMU" -L "$SYSROOT" "$@")
      qw=$(awk -v a="$w" -v m="$qw" 'BEGIN { print (m != "" && m + 0 < a) ? m : a }')
      qc=$(awk -v a="$c" -v m="$qc" 'BEGIN { print (m != "" && m + 0 < a) ? m : a }')
    done
    "$PROFILEME" run --stats "$@" >/dev/null 2>"$tmp"
    insns=$(sed -n 's/^profileme: \([0-9]*\) instructions.*/\1/p' "$tmp")
    awk -v n="$name" -v i="$insns" -v pw="$pw" -v qw="$qw" -v pc="$pc" -v qc="$qc" 'BEGIN {
      printf "%-10s %14.0f %8.3f %8.3f %8.3f %8.3f %9.2fx %9.2fx\n", n, i, pw, qw, pc, qc, pw / qw, pc / qc }' |
      tee -a "$tmp.real"
  }
  : >"$tmp.real"
  bench_real lua "$rp/lua.dyn" tests/realprogs/bench.lua
  bench_real bzip2 "$rp/bzip2.dyn" -9 -c "$out/input.dat"
  bench_real speedtest1 "$rp/speedtest1.dyn" --size "${BENCH_SQLITE_SIZE:-5}" --memdb
  bench_real demo "$out/demo"
  awk '{ w += log($(NF - 1) + 0); c += log($NF + 0); n++ }
    END { printf "geometric mean pm/qemu: wall %.2fx, cpu %.2fx (goal <= 2.5x)\n", exp(w / n), exp(c / n) }' "$tmp.real"
  rm -f "$tmp.real" "$tmp.err"
fi

# The timed machine: the EV67 timing model with the PMU counting (stat with two
# hardware events), against the functional core on the same binary.
printf '\n%-8s %14s %10s %10s %10s\n' timed "guest insns" "timed s" "timed MIPS" "slowdown"
bench_timed() {
  local name=$1; shift
  local prog=$out/$name t f insns
  t=$(best_time "$PROFILEME" stat -e cycles,instructions -- "$prog" "$@")
  insns=$(sed -n 's/^ *\([0-9,]*\) *instructions.*/\1/p' "$tmp" | tr -d ,)
  f=$(best_time "$PROFILEME" run "$prog" "$@")
  awk -v n="$name" -v i="$insns" -v t="$t" -v f="$f" 'BEGIN {
    printf "%-8s %14.0f %10.3f %10.1f %9.1fx\n", n, i, t, i / t / 1e6, t / f }'
}
bench_timed loop "${BENCH_TIMED_LOOP_ITERS:-20000000}"
bench_timed libc 1
echo "slowdown = timed wall time / functional-only wall time on the same run."

# The trace unit (docs/trace.md): `run --trace` (trace// on the program, its
# AUX area drained and given back by the tool) against `run` on the same
# binary. Goals: at most 1 trace byte per guest instruction (AUX bytes, page
# padding included), tracing on at most 10x the functional run. Off costs
# nothing: the functional executor runs without a hook unless a unit is on.
printf '\n%-8s %14s %10s %10s %12s %10s\n' trace "guest insns" "off s" "on s" "bytes/insn" slowdown
bench_trace() {
  local name=$1; shift
  local prog=$out/$name off on insns bpi
  off=$(best_time "$PROFILEME" run "$prog" "$@")
  on=$(best_time "$PROFILEME" run --stats --trace "$prog" "$@")
  insns=$(sed -n 's/^profileme: \([0-9]*\) instructions.*/\1/p' "$tmp")
  bpi=$(sed -n 's/^profileme: trace: .*, \([0-9.]*\) bytes\/instruction.*/\1/p' "$tmp")
  awk -v n="$name" -v i="$insns" -v f="$off" -v t="$on" -v b="$bpi" 'BEGIN {
    printf "%-8s %14.0f %10.3f %10.3f %12.3f %9.1fx\n", n, i, f, t, b, t / f }'
}
bench_trace loop "${BENCH_TRACE_LOOP_ITERS:-20000000}"
bench_trace libc 1
echo "slowdown = run --trace wall time / run wall time (goals: bytes/insn <= 1, slowdown <= 10x)."

# Several CPUs: the same two-thread CPU-bound program on a timed machine of
# one and of two CPUs. The simulator runs the CPUs in turn, so its speed per
# guest instruction should not drop with more CPUs (goal: within 25%), while
# the simulated time halves.
printf '\n%-8s %14s %10s %10s %12s\n' cpus "guest insns" "timed s" "timed MIPS" "guest ms"
bench_cpus() {
  local n=$1 t insns ms
  t=$(best_time "$PROFILEME" stat --cpus "$n" -e instructions -- "$out/spin2" "${BENCH_SPIN_ITERS:-3000000}")
  insns=$(sed -n 's/^ *\([0-9,]*\) *instructions.*/\1/p' "$tmp" | tr -d ,)
  ms=$(awk '/seconds time elapsed/ { print $1 * 1000 }' "$tmp")
  awk -v n="$n" -v i="$insns" -v t="$t" -v ms="$ms" 'BEGIN {
    printf "%-8s %14.0f %10.3f %10.1f %12.3f\n", n, i, t, i / t / 1e6, ms }'
  echo "$insns $t" >"$tmp.cpus$n"
}
bench_cpus 1
bench_cpus 2
read -r i1 t1 <"$tmp.cpus1"; read -r i2 t2 <"$tmp.cpus2"; rm -f "$tmp.cpus1" "$tmp.cpus2"
awk -v i1="$i1" -v t1="$t1" -v i2="$i2" -v t2="$t2" 'BEGIN {
  printf "speed on 2 CPUs / speed on 1 CPU: %.2f (host time per guest instruction; goal >= 0.75)\n", (i2 / t2) / (i1 / t1) }'

# ProfileMe sampling: profileme record with its default event (cycles:p) on
# the same libc run; MIPS counts the instructions stat retired above.
rec=$(mktemp -d); trap 'rm -f "$tmp"; rm -rf "$rec"' EXIT
r=$(best_time "$PROFILEME" record -q -o "$rec/perf.data" -- "$out/libc" 1)
insns=$("$PROFILEME" stat -x, -e instructions -- "$out/libc" 1 2>&1 >/dev/null | cut -d, -f1)
awk -v i="$insns" -v r="$r" 'BEGIN {
  printf "\nrecord   %14.0f %10.3f %10.1f   (libc, ProfileMe sampling)\n", i, r, i / r / 1e6 }'


# Register and stack sampling: file bytes per sample of the same libc run
# without call chains, with -g (the kernel's chain, user pc) and with
# --call-graph dwarf (all user registers and 8 KB of stack per sample), and
# with --unwind-at-record (the kernel unwinds: the whole user chain in the
# callchain, no registers or stack), and the record time each takes; then
# the ratio of dwarf's bytes per sample to record-time unwinding's (goal:
# at least 10).
printf '\n%-38s %10s %10s %14s\n' "record mode" "record s" samples "bytes/sample"
for mode in "" "-g" "--call-graph dwarf" "--call-graph dwarf --unwind-at-record"; do
  t=$(best_time "$PROFILEME" record -q -m 256 $mode -o "$rec/cg.data" -- "$out/libc" 1)
  n=$("$PROFILEME" script -i "$rec/cg.data" -F ip 2>/dev/null | grep -c .)
  b=$(stat -c %s "$rec/cg.data")
  awk -v m="${mode:-(none)}" -v t="$t" -v n="$n" -v b="$b" 'BEGIN {
    printf "%-38s %10.3f %10d %14.0f\n", m, t, n, n ? b / n : 0 }' | tee -a "$rec/modes"
done
awk '/^--call-graph dwarf --unwind-at-record/ { u = $NF; next } /^--call-graph dwarf/ { d = $NF }
  END { printf "bytes per sample: dwarf %.0f, unwound at record %.0f: ratio %.1f (goal >= 10)\n", d, u, u ? d / u : 0 }' \
  "$rec/modes"

# Ground truth per instruction: record --truth against the same record
# without it, the two alternated in this run so that both see the same load
# (best of REPS each; goal: ratio at most 1.20).
bt= bp=
for ((i = 0; i < REPS; i++)); do
  p=$(REPS=1 best_time "$PROFILEME" record -q -o "$rec/plain.data" -- "$out/libc" 1)
  t=$(REPS=1 best_time "$PROFILEME" record -q --truth -o "$rec/truth.data" -- "$out/libc" 1)
  bp=$(awk -v a="$p" -v m="$bp" 'BEGIN { print (m != "" && m + 0 < a) ? m : a }')
  bt=$(awk -v a="$t" -v m="$bt" 'BEGIN { print (m != "" && m + 0 < a) ? m : a }')
done
awk -v p="$bp" -v t="$bt" 'BEGIN {
  printf "record --truth %.3f s, without %.3f s: ratio %.2f (libc; goal <= 1.20)\n", t, p, t / p }'

# Call graphs: `report -g --stdio` against Linux perf's on the same x86-64
# files of tests/callgraph/cg.c, recorded here by perf (frame pointers, and
# --call-graph dwarf, which both unwind through elfutils), when perf can
# record; time per sample and perf's time / ours (goal >= 2). perf is timed
# as run by default and with --no-inline (its inline expansion of every
# frame is extra work we do not do).
cgdir=$rec/cg
mkdir -p "$cgdir"
if command -v perf >/dev/null && cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$cgdir/cg" tests/callgraph/cg.c &&
   perf record -q -e cpu-clock:u -g -o "$cgdir/fp.data" -- "$cgdir/cg" "${BENCH_CG_ROUNDS:-600}" >/dev/null 2>&1 &&
   perf record -q -e cpu-clock:u --call-graph dwarf -o "$cgdir/dw.data" -- "$cgdir/cg" "${BENCH_CG_DWARF_ROUNDS:-150}" >/dev/null 2>&1; then
  printf '\n%-10s %8s %12s %12s %12s %8s %8s\n' "report -g" samples "ours us/smp" "perf us/smp" "noinl us/smp" perf/us noinl/us
  for f in fp dw; do
    n=$(perf report -D -i "$cgdir/$f.data" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE(')
    o=$(best_time "$PROFILEME" report -i "$cgdir/$f.data" --stdio -g)
    p=$(best_time perf report -i "$cgdir/$f.data" --stdio -g)
    q=$(best_time perf report --no-inline -i "$cgdir/$f.data" --stdio -g)
    awk -v f="$f" -v n="$n" -v o="$o" -v p="$p" -v q="$q" 'BEGIN {
      printf "%-10s %8d %12.1f %12.1f %12.1f %7.1fx %7.1fx\n", f, n, o / n * 1e6, p / n * 1e6, q / n * 1e6, p / o, q / o }'
  done
  echo "perf/us = perf report -g time / ours on the same file (goal >= 2); noinl: perf --no-inline."
else
  echo "report -g bench: perf cannot record here; skipped"
fi

# Sampled simulation (docs/sampled.md): record and stat with --sampled
# against the exact mode and the functional run of the same program, in the
# same run (goals: sampled record at least 10x faster than exact record,
# at most 3x the functional run). The demo workload (workloads/demo.c,
# 557 M instructions), the libc kernel and bzip2 -9 of 1 MiB (734 M, with
# the real-code table); the exact runs once each
# (BENCH_SAMPLED_REPS, default 1: they take minutes).
"$CC_ALPHA" -O2 -g -Wall -o "$out/demo" workloads/demo.c
printf '\n%-8s %10s %10s %10s %10s %10s %9s %9s %9s\n' sampled "run s" "rec s" "rec -s s" "stat s" "stat -s s" "rec x" "rec/run" "stat x"
bench_sampled() {
  local name=$1 prog=$2; shift 2
  local f r rs st ss
  f=$(best_time "$PROFILEME" run "$prog" "$@")
  r=$(REPS=${BENCH_SAMPLED_REPS:-1} best_time "$PROFILEME" record -q -o "$rec/x.data" -- "$prog" "$@")
  rs=$(best_time "$PROFILEME" record -q --sampled -o "$rec/s.data" -- "$prog" "$@")
  st=$(REPS=${BENCH_SAMPLED_REPS:-1} best_time "$PROFILEME" stat -e cycles,instructions -- "$prog" "$@")
  ss=$(best_time "$PROFILEME" stat --sampled -e cycles,instructions -- "$prog" "$@")
  awk -v n="$name" -v f="$f" -v r="$r" -v rs="$rs" -v st="$st" -v ss="$ss" 'BEGIN {
    printf "%-8s %10.2f %10.2f %10.2f %10.2f %10.2f %8.1fx %8.1fx %8.1fx\n", n, f, r, rs, st, ss, r / rs, rs / f, st / ss }'
}
bench_sampled demo "$out/demo"
bench_sampled libc "$out/libc" 1
# A real program, when the real-code table ran (its exact runs take 3 min).
[ "${BENCH_REAL:-1}" != 0 ] && bench_sampled bzip2 "$rp/bzip2.dyn" -9 -c "$out/input.dat"
echo "rec x = exact record / record --sampled (goal >= 10); rec/run = record --sampled / run (goal <= 3); stat x likewise."
echo "workers: --workers (parallel detailed windows, pFSA) is not implemented: see docs/sampled.md, \"Parallel\"."
