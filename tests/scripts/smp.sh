#!/usr/bin/env bash
# Several CPUs and the kernel's perf on them (issue: the kernel owns perf).
# Oracles: the sim/ ground truth, analytical answers (two CPU-bound threads on
# two CPUs take half the time of one), counts that must agree with each other
# (per-CPU counts sum to the system-wide count; an inherited count is the
# whole workload's), and Linux perf reading the files.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/smp
mkdir -p "$out"
cd "$out"
pass() { echo "PASS smp/$1"; }
fail() { echo "FAIL smp/$1: $2"; }
for p in spin2 forkwork sys2 atomic2 pin2; do
  alpha_static "$root/tests/smp/$p.c" "$out/$p" || { fail build "cannot build $p"; exit 0; }
done
# stat_csv ARGS...: profileme stat -x, output (stderr) only.
stat_csv() { "$PROFILEME" stat -x, "$@" 2>&1 >/dev/null; }
# field CSV EVENT: the value of EVENT in stat -x, output.
field() { awk -F, -v e="$2" '$3 == e { print $1; exit }' <<<"$1"; }

# Two CPU-bound threads: about half the simulated time on two CPUs (elapsed
# guest time = the run's cycles on the CPU that finished last), the same
# output, and per-task perf counts equal to the exact ground truth.
t1=$("$PROFILEME" stat --cpus 1 -e sim/cycles/ -- ./spin2 1000000 2>&1 >/dev/null | awk '/seconds time elapsed/ { print $1 }')
t2=$("$PROFILEME" stat --cpus 2 -e sim/cycles/ -- ./spin2 1000000 2>&1 >/dev/null | awk '/seconds time elapsed/ { print $1 }')
if awk -v a="$t1" -v b="$t2" 'BEGIN { r = b / a; exit !(a > 0 && r > 0.45 && r < 0.6) }'; then
  pass "two-threads-half-time: $t1 s on 1 CPU, $t2 s on 2 ($(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b / a }'))"
else fail two-threads-half-time "$t1 s on 1 CPU, $t2 s on 2"; fi
# (The PMU counts retirements up to the cycle the task leaves its CPU; sim/
# counts instructions as they are stepped, so the few in flight at a switch
# may differ: within 1e-5.)
r=$(stat_csv --cpus 2 -e cycles,instructions,sim/cycles/,sim/instructions/ -- ./spin2 1000000)
if awk -v c="$(field "$r" cycles)" -v sc="$(field "$r" sim/cycles/)" -v i="$(field "$r" instructions)" \
       -v si="$(field "$r" sim/instructions/)" 'BEGIN { d1 = (c - sc) / sc; d2 = (i - si) / si;
       exit !(sc > 0 && si > 0 && d1 * d1 < 1e-10 && d2 * d2 < 1e-10) }'; then
  pass "per-task-counts-exact: cycles $(field "$r" cycles) and instructions $(field "$r" instructions) on 2 CPUs, sim/ $(field "$r" sim/cycles/) and $(field "$r" sim/instructions/)"
else fail per-task-counts-exact "$r"; fi

# sched_setaffinity is honoured: two CPU-bound threads pinned to one CPU of
# two take the time of one CPU (about twice the time they take free), run
# only on that CPU, and the calls fail as Linux's do (pin2.c).
elapsed() { "$PROFILEME" stat --cpus 2 -e sim/cycles/ -- ./pin2 600000 "$1" 2>&1 >"$out/pin2.$1.out" | awk '/seconds time elapsed/ { print $1 }'; }
tf=$(elapsed -) tp=$(elapsed 1)
if awk -v a="$tf" -v b="$tp" 'BEGIN { r = b / a; exit !(a > 0 && r > 1.8 && r < 2.2) }'; then
  pass "affinity-pinned-time: $tf s free, $tp s both pinned to CPU 1 ($(awk -v a="$tf" -v b="$tp" 'BEGIN { printf "%.3f", b / a }'))"
else fail affinity-pinned-time "$tf s free, $tp s pinned"; fi
exp_pin='cpus seen: 0x2 0x2
moves: 0 1 0 1
getaffinity: 0, 1 CPUs
set CPU 7: -1 Invalid argument
set pid 999999: -1 No such process
get 4 bytes: -1 Invalid argument
get 16 bytes: 8'
if [ "$(cat "$out/pin2.1.out")" = "$exp_pin" ]; then pass "affinity-pinned-cpus: both threads only on CPU 1, the main one moves at once; errors as Linux"
else fail affinity-pinned-cpus "$(tr '\n' ';' <"$out/pin2.1.out")"; fi
if grep -q '^cpus seen: 0x[123] 0x[123]$' "$out/pin2.-.out" && grep -q '^moves: 0 1 0 1$' "$out/pin2.-.out"; then
  pass "affinity-free: $(head -n 2 "$out/pin2.-.out" | tr '\n' ';')"
else fail affinity-free "$(tr '\n' ';' <"$out/pin2.-.out")"; fi

# ll/sc across CPUs: another CPU's store to the locked location makes st*_c
# fail, so atomic increments from two threads are never lost (without that,
# 600000 increments ended at 489120), and a mutex-protected count too.
for c in 2 4; do
  r=$("$PROFILEME" run --cpus $c ./atomic2 300000 2>&1); st=$?
  if [ "$st" = 0 ] && [ "$r" = "atomic 600000 locked 37500" ]; then pass "atomics-cpus$c: $r"
  else fail "atomics-cpus$c" "status $st: $r"; fi
done

# Deterministic on two CPUs: the same run twice counts the same; three
# CPU-bound threads on two CPUs take turns on both (cpu-migrations).
ev=sim/cycles/,sim/instructions/,context-switches,cpu-migrations
a=$(stat_csv --cpus 2 --seed 3 -e $ev -- ./spin2 600000 3)
b=$(stat_csv --cpus 2 --seed 3 -e $ev -- ./spin2 600000 3)
if [ "$a" = "$b" ] && [ "$(field "$a" cpu-migrations)" -gt 0 ]; then
  pass "deterministic: two runs on 2 CPUs count the same ($(field "$a" context-switches) context switches, $(field "$a" cpu-migrations) migrations)"
else fail deterministic "$a / $b"; fi

# A page first touched by one thread is one page fault, whichever CPUs run
# the threads of that address space.
f1=$(field "$(stat_csv --cpus 1 -e page-faults -- ./spin2 10000)" page-faults)
f2=$(field "$(stat_csv --cpus 2 -e page-faults -- ./spin2 10000)" page-faults)
if [ -n "$f1" ] && [ "$f1" = "$f2" ] && [ "$f1" -gt 0 ]; then pass "page-faults-once: $f1 on 1 CPU and on 2"
else fail page-faults-once "$f1 on 1 CPU, $f2 on 2"; fi

# Per-CPU counts (-A) sum to the system-wide count (-a); the same run twice.
a=$(stat_csv --cpus 2 -a -e instructions -- ./spin2 500000)
A=$(stat_csv --cpus 2 -a -A -e instructions -- ./spin2 500000)
sum=$(awk -F, '$4 == "instructions" { s += $2 } END { print s + 0 }' <<<"$A")
ncpu=$(grep -c '^CPU[01],' <<<"$A")
if [ "$ncpu" = 2 ] && [ "$sum" = "$(field "$a" instructions)" ] && [ "$sum" -gt 0 ]; then
  pass "per-cpu-sums-to-system-wide: CPU0 + CPU1 = $sum instructions"
else fail per-cpu-sums-to-system-wide "sum $sum ($ncpu CPU lines), system-wide '$(field "$a" instructions)'"; fi

# Inherit: the parent's count includes its exited children. forkwork runs 4
# processes of N loop iterations (at least 3 instructions each); the count
# with inherit is within 0.1% of the system-wide count, and grows from N=3000
# to N=300000 by more than 4 x 297000 x 3 instructions, which one process
# alone cannot do.
inh=$(field "$(stat_csv --cpus 2 -e instructions -- ./forkwork 300000)" instructions)
sys=$(field "$(stat_csv --cpus 2 -a -e instructions -- ./forkwork 300000)" instructions)
small=$(field "$(stat_csv --cpus 2 -e instructions -- ./forkwork 3000)" instructions)
if awk -v i="$inh" -v s="$sys" -v m="$small" 'BEGIN { d = (s - i) / s; w = i - m;
     exit !(i > 0 && d > -1e-5 && d < 0.001 && w > 4 * 297000 * 3) }'; then
  pass "inherit-includes-children: $inh instructions with inherit, $sys system-wide"
else fail inherit-includes-children "inherited $inh, system-wide $sys, small run $small"; fi

# Multiplexing on two CPUs: four hardware events on two counters, each CPU
# rotating on its own tick; scaled cycles within 3% of sim/.
r=$(stat_csv --cpus 2 -e cycles,instructions,cache-misses,mbox-replays,sim/cycles/ -- ./spin2 2000000)
if awk -F, '{ v[$3] = $1; p[$3] = $5 } END { e = v["cycles"] / v["sim/cycles/"] - 1;
     exit !(p["cycles"] > 5 && p["cycles"] < 95 && e > -0.03 && e < 0.03) }' <<<"$r"; then
  pass "multiplexed-on-two-cpus: $(awk -F, '$3 == "cycles" { printf "cycles ran %s%%", $5 }' <<<"$r"), scaled within 3% of sim/"
else fail multiplexed-on-two-cpus "$r"; fi

# record -a on two CPUs: samples from both CPUs, each with the workload's
# pid; Linux perf reads the file and agrees on the CPUs.
rm -f sw.data
if "$PROFILEME" record -q --cpus 2 -a --privileged -o sw.data -- ./spin2 1000000 >/dev/null 2>rec.err; then
  cpus=$(perf script -i sw.data -F pid,cpu 2>/dev/null | awk '{ gsub(/[][]/, "", $2); n[$2 + 0]++; p[$1]++ }
         END { for (c in n) printf "%s:%d ", c, n[c]; printf "| pids %d", length(p) }')
  ours=$("$PROFILEME" report -i sw.data --stdio --sort cpu 2>/dev/null | grep -c '^ .*%  00[01]')
  if [[ $cpus == *"0:"*"1:"* || $cpus == *"1:"*"0:"* ]] && [[ $cpus == *"| pids 1" ]] && [ "$ours" = 2 ]; then
    pass "record-system-wide: samples per CPU $cpus (perf script); report --sort cpu shows both"
  else fail record-system-wide "perf script: '$cpus'; report --sort cpu rows: $ours"; fi
else fail record-system-wide "record failed: $(head -c 300 rec.err)"; fi

# --switch-events: PERF_RECORD_SWITCH for the workload's tasks, and
# SWITCH_CPU_WIDE with -a; Linux perf reads both, and on each CPU every task
# switched in is switched out by the end of the run.
sw_check() {
  local name=$1 type=$2; shift 2
  rm -f swe.data
  if ! "$PROFILEME" record -q --cpus 2 --switch-events "$@" -o swe.data -- ./spin2 200000 >/dev/null 2>rec.err; then
    fail "$name" "record failed: $(head -c 200 rec.err)"; return
  fi
  local r
  r=$(perf script -i swe.data --show-switch-events 2>/dev/null | awk -v t="$type" '
    $5 == t { c = $3; gsub(/[][]/, "", c); if ($6 == "IN") in_[c]++; else if ($6 == "OUT") out[c]++ }
    END { ok = 1; for (c in in_) { n++; if (in_[c] != out[c]) ok = 0; s = s sprintf("CPU%d %d in %d out; ", c, in_[c], out[c]) }
          printf "%d %d %s", ok, n, s }')
  set -- $r
  if [ "$1" = 1 ] && [ "$2" = 2 ]; then pass "$name: ${r#* * }"
  else fail "$name" "$r"; fi
}
sw_check switch-events PERF_RECORD_SWITCH
sw_check switch-events-cpu-wide PERF_RECORD_SWITCH_CPU_WIDE -a --privileged

# The header says how many CPUs and their topology, as Linux perf reads it.
hdr=$(perf report -i sw.data --header-only -I 2>/dev/null)
if grep -q '^# nrcpus avail : 2' <<<"$hdr" && grep -q '^# CPU 1: Core ID 0, Socket ID -1' <<<"$hdr"; then
  pass "header-nrcpus-topology: perf reads nrcpus avail 2 and the topology of CPU 1"
else fail header-nrcpus-topology "$(grep -i 'nrcpus\|CPU [01]:' <<<"$hdr" | head -4)"; fi

# User-only and kernel-only ProfileMe recordings on each CPU (of two
# CPU-bound threads, and of two threads making system calls): every sample's
# mode matches its ip's (kernel ips are the synthetic kernel's), on the CPU
# asked for.
for mode in u k; do
  for c in 0 1; do
    rm -f m.data
    prog=(./spin2 300000); [ $mode = k ] && prog=(./sys2 20000)
    if ! "$PROFILEME" record -q --cpus 2 -C $c --privileged -e cycles:p$mode -c 2003 -o m.data -- "${prog[@]}" \
         >/dev/null 2>rec.err; then
      fail "mode-$mode-cpu$c" "record failed: $(head -c 200 rec.err)"; continue
    fi
    bad=$(perf script -i m.data -F cpu,ip 2>/dev/null | awk -v m=$mode -v c=$c '
      { gsub(/[][]/, "", $1); k = ($2 ~ /^fffffc/); n++;
        if ($1 + 0 != c || (m == "u" && k) || (m == "k" && !k)) bad++ }
      END { printf "%d %d", bad + 0, n + 0 }')
    set -- $bad
    if [ "$1" = 0 ] && [ "$2" -gt 0 ]; then pass "mode-$mode-cpu$c: $2 samples, all in mode :$mode on CPU $c"
    else fail "mode-$mode-cpu$c" "$1 of $2 samples on the wrong CPU or mode"; fi
  done
done

# Bad input: perf-like messages and exit status 2, never a run.
bad_input() {
  local name=$1; shift
  "$PROFILEME" "$@" >/dev/null 2>bad.err
  local st=$?
  if [ "$st" = 2 ] && [ -s bad.err ]; then pass "bad-input-$name: status 2, '$(head -n 1 bad.err)'"
  else fail "bad-input-$name" "status $st: $(head -c 200 bad.err)"; fi
}
bad_input cpus-0 run --cpus 0 ./spin2 10
bad_input cpus-9 stat --cpus 9 ./spin2 10
bad_input cpu-list-past-the-machine record --cpus 2 -C 0,5 -o bad.data ./spin2 10
bad_input cpu-list-syntax stat --cpus 2 -a -C 1-x ./spin2 10
bad_input per-thread-with-cpu-list record --per-thread -C 0 -o bad.data ./spin2 10
bad_input no-aggr-without-cpus stat -A ./spin2 10
