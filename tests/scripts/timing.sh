#!/usr/bin/env bash
# Timing-model microbenchmarks with analytical answers (docs/timing.md has the
# table). Each program runs at two iteration counts under `profileme stat`;
# the difference of the two runs removes start-up and leaves the loop, whose
# per-iteration figures must land in the stated range.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/timing
mkdir -p "$out"
# User mode only (:u, perf's syntax after the PMU's terms), but for cycles:
# the kernel's timer ticks and faults are not the loop under test.
EVENTS=sim/cycles/,sim/instructions/u,sim/branches/u,sim/branch-misses/u,sim/dtb-misses/u,sim/loads/u,sim/killed/u,sim/wrong-path/u

build() { alpha_static "$root/tests/timing/$1.c" "$out/$1"; }

# Prints "cycles insns branches misses dtb loads killed wrongpath" for one run.
# A run is made once per script: several checks read the same one (their
# figures are different ratios of the same counts), kept in $out/m.*.
rm -f "$out"/m.*
measure() {
  local memo
  memo=$out/m.$(printf '%s\0' "$@" | md5sum | cut -c1-16)
  if [ ! -s "$memo" ]; then
    "$PROFILEME" stat -x, -e "$EVENTS" -- "$@" 2>&1 >/dev/null |
      awk -F, '{ v[$3] = $1 } END { printf "%s %s %s %s %s %s %s %s\n", v["sim/cycles/"], v["sim/instructions/u"],
        v["sim/branches/u"], v["sim/branch-misses/u"], v["sim/dtb-misses/u"], v["sim/loads/u"], v["sim/killed/u"], v["sim/wrong-path/u"] }' >"$memo"
  fi
  cat "$memo"
}

# check NAME PROG N1 N2 EXTRA-ARG METRIC LO HI UNIT
# METRIC is an awk expression over the differences dc di db dm dd dl dk dw and
# the iteration difference dn.
check() {
  local name=$1 prog=$2 n1=$3 n2=$4 extra=$5 metric=$6 lo=$7 hi=$8 what=$9
  build "$prog" || { echo "FAIL timing/$name: cannot build $prog"; return; }
  local a b f
  a=$(measure "$out/$prog" "$n1" $extra) && b=$(measure "$out/$prog" "$n2" $extra) || true
  # measure prints its line (blanks for missing counts) even when stat fails.
  f=($a $b)
  if [ "${#f[@]}" -ne 16 ]; then echo "FAIL timing/$name: profileme stat failed"; return; fi
  echo "$a $b" | awk -v n1="$n1" -v n2="$n2" -v lo="$lo" -v hi="$hi" -v name="$name" -v what="$what" "{
      dc = \$9 - \$1; di = \$10 - \$2; db = \$11 - \$3; dm = \$12 - \$4; dd = \$13 - \$5; dl = \$14 - \$6;
      dk = \$15 - \$7; dw = \$16 - \$8; dn = n2 - n1;
      v = $metric;
      if (v >= lo && v <= hi && (v \"\") !~ /nan|inf/) printf \"PASS timing/%s: %.3f %s (want %s..%s)\n\", name, v, what, lo, hi;
      else printf \"FAIL timing/%s: %.3f %s, want %s..%s\n\", name, v, what, lo, hi }"
}

check dependent-adds dep_adds 20000 60000 "" "di / dc" 0.95 1.10 "IPC (64 chained adds + 3 loop insns per iteration: 67/64 = 1.047 ideal)"
check independent-chains indep_adds 20000 60000 "" "di / dc" 3.0 4.05 "IPC"
# N independent add chains, 60 adds + 3 loop instructions per iteration
# (tests/timing/chains.c): each chain does at most one add per cycle (latency
# 1, no cross-cluster delay while it stays in its cluster), the four integer
# pipes at most four, and the fetch at most 63 instructions in 16 aligned
# blocks per iteration. IPC = 63 / max(60 / N, 16): 2.10, 3.15, then 3.94.
check chains-2 chains 20000 60000 2 "di / dc" 2.05 2.11 "IPC with 2 chains (63/30 = 2.10)"
check chains-3 chains 20000 60000 3 "di / dc" 3.08 3.16 "IPC with 3 chains (63/20 = 3.15)"
for n in 4 5 6; do
  check chains-$n chains 20000 60000 $n "di / dc" 3.86 3.94 "IPC with $n chains (63/16 = 3.94)"
done
check load-use-chain load_use 20000 60000 "" "dc / (dn * 32)" 2.9 3.4 "cycles per load"
check memory-chase mem_chase 20000 40000 "" "dc / (dn * 4)" 130 175 "cycles per load"
check random-branch-mispredicts branch_random 200000 400000 "" "dm / dn" 0.40 0.60 "mispredicts per iteration"
check random-branch-penalty branch_random 200000 400000 "" "(dc - dn * 5) / dm" 6 20 "cycles per mispredict"
check sorted-branch branch_random 200000 400000 sorted "dm / db" 0 0.01 "mispredicts per branch"
# A predictable loop does not mispredict: at most a few misses around the
# kernel's timer interrupts, which share the predictor (6 ticks in the extra
# 40,000 iterations). The figure is the difference of two runs, each with
# those few misses, so it can also fall a miss or two below zero (-1 in a
# sanitizer build's environment, whose longer paths move the stack).
check predictable-loop-mispredicts dep_adds 20000 60000 "" "dm / dn" -0.0005 0.0005 "mispredicts per iteration of a predictable loop"
check wrong-path-per-mispredict branch_random 200000 400000 "" "dw / dm" 1 80 "wrong-path instructions per mispredict"
check dtb-per-page dtb_pages 20000 40000 "" "dd / dn" 0.95 1.02 "DTB misses per load"

# Wrong paths only after mispredicts: over a whole run in user mode, the
# instructions fetched down wrong paths are at most 80 per mispredicted
# branch or jump (none without one).
build dep_adds
r=$("$PROFILEME" stat -x, -e sim/wrong-path/u,sim/branch-misses/u,sim/jump-misses/u -- "$out/dep_adds" 60000 2>&1 >/dev/null)
awk -F, '{ v[$3] = $1 } END { w = v["sim/wrong-path/u"]; m = v["sim/branch-misses/u"] + v["sim/jump-misses/u"];
  if (w != "" && w <= 80 * m) printf "PASS timing/wrong-path-only-after-mispredicts: %d wrong-path instructions after %d mispredicts\n", w, m;
  else printf "FAIL timing/wrong-path-only-after-mispredicts: %s wrong-path instructions after %d mispredicts\n", w, m }' <<<"$r"

# The steady state does not depend on what wrote the chains' registers before
# the loop (immediates, one dependent sequence, loads, shifts: other pipes and
# clusters) nor on where the stack is (environments of 3 and 3,003 bytes):
# five chains give the same IPC within 0.5% in all eight runs.
chains_ipc() {   # ENV HOW: the IPC of 5 chains over 40,000 iterations
  local a b
  a=$(env -i "$1" "$PROFILEME" stat -x, -e sim/cycles/,sim/instructions/u -- "$out/chains" 20000 5 "$2" 2>&1 >/dev/null |
      awk -F, '{ v[$3] = $1 } END { print v["sim/cycles/"], v["sim/instructions/u"] }')
  b=$(env -i "$1" "$PROFILEME" stat -x, -e sim/cycles/,sim/instructions/u -- "$out/chains" 60000 5 "$2" 2>&1 >/dev/null |
      awk -F, '{ v[$3] = $1 } END { print v["sim/cycles/"], v["sim/instructions/u"] }')
  echo "$a $b" | awk 'NF == 4 && $3 > $1 { printf "%.4f\n", ($4 - $2) / ($3 - $1) }'
}
build chains
long_env="A=$(printf '%3001s' '' | tr ' ' x)"
ipcs=$(for e in A=x "$long_env"; do for how in 0 1 2 3; do chains_ipc "$e" $how; done; done)
awk '{ n++; if (min == "" || $1 < min) min = $1; if ($1 > max) max = $1 }
  END { if (n == 8 && min >= 3.86 && max - min <= 0.005 * max)
          printf "PASS timing/chains-independent-of-history: 5 chains at %.3f..%.3f IPC over 4 register histories x 2 stacks\n", min, max;
        else printf "FAIL timing/chains-independent-of-history: %d runs, IPC %s..%s\n", n, min, max }' <<<"$ipcs"

# Traps are charged to the trapping instruction: every fate carrying an
# unaligned or DTB-miss trap must sit on a load or store (per the disassembly),
# and the unaligned ones on the one misaligned ldq of tests/timing/traps.c.
check_traps() {
  build traps || { echo "FAIL timing/traps-charged: cannot build"; return; }
  local dis=$out/traps.dis fates=$out/traps.fates
  "$PROFILEME" disasm "$out/traps" >"$dis" 2>/dev/null
  "$PROFILEME" stat --dump-fates 0:100000000 -e sim/unaligned/ -- "$out/traps" 3000 2>"$fates" >/dev/null
  perl -e '
    my %insn;
    open my $d, "<", $ARGV[0] or die;
    while (<$d>) { $insn{hex $1} = $2 if /^\s+([0-9a-f]+):\t(?:[0-9a-f]{2} ){4}\t(\S+)/ }
    open my $f, "<", $ARGV[1] or die;
    my ($una, $dtb, $bad, %unapc) = (0, 0, 0);
    while (<$f>) {
      next unless /^fate \d+ pc 0x([0-9a-f]+) .* flags 0x([0-9a-f]+)/;
      my ($pc, $fl) = (hex $1, hex $2);
      next unless $fl & 0x1800;
      next if $pc >= 0xfffffc0000000000;
      my $m = $insn{$pc} // "?";
      $bad++, print STDERR "trap on $m at ", sprintf("%x", $pc), "\n" unless $m =~ /^(ld|st)/;
      if ($fl & 0x800) { $una++; $unapc{$pc}++ } else { $dtb++ }
    }
    my @u = keys %unapc;
    if (!$bad && $una >= 3000 && $dtb >= 2900 && @u == 1 && $insn{$u[0]} eq "ldq") {
      print "PASS timing/traps-charged: $una unaligned traps all on the ldq, $dtb DTB misses all on loads\n";
    } else {
      print "FAIL timing/traps-charged: unaligned $una at ", scalar(@u), " PCs, dtb $dtb, $bad on non-memory instructions\n";
    }' "$dis" "$fates"
}
check_traps

# Deterministic: the same program, input and seed give the same counts.
build branch_random
a=$("$PROFILEME" stat -x, --seed 7 -e sim/cycles/,sim/branch-misses/,sim/killed/ -- "$out/branch_random" 50000 2>&1 >/dev/null)
b=$("$PROFILEME" stat -x, --seed 7 -e sim/cycles/,sim/branch-misses/,sim/killed/ -- "$out/branch_random" 50000 2>&1 >/dev/null)
if [ "$(grep -c '^[0-9][0-9]*,' <<<"$a")" = 3 ] && [ "$a" = "$b" ]; then echo "PASS timing/deterministic: two runs with --seed 7 count the same"
else echo "FAIL timing/deterministic: runs differ"; fi

# A raw event whose terms contain commas, inside an -e list (perf splits only
# outside /.../): cpu/event=1/ is the cycles input, equal to the ground truth.
r=$("$PROFILEME" stat -x, -e 'instructions,cpu/event=1,sl1=0/,sim/cycles/' -- "$out/branch_random" 5000 2>&1 >/dev/null)
raw=$(awk -F, '$3 == "cpu/event=1" { print $1 }' <<<"$r"); truth=$(awk -F, '$3 == "sim/cycles/" { print $1 }' <<<"$r")
if [ -n "$raw" ] && [ "$raw" = "$truth" ]; then echo "PASS timing/event-list-terms: cpu/event=1,sl1=0/ in a list counts $raw cycles, as sim/cycles/"
else echo "FAIL timing/event-list-terms: raw '$raw', sim/cycles '$truth': $(head -c 200 <<<"$r")"; fi

# stat through perf_event_open: four hardware events on two counters are
# multiplexed by the kernel on its tick and scaled by enabled/running as perf
# stat scales them. Each ran part of the time (the percentage is printed), and
# the scaled cycles and instructions fall within 3% of the exact sim/ counts.
r=$("$PROFILEME" stat -x, -e cycles,instructions,cache-misses,mbox-replays,sim/cycles/,sim/instructions/ \
    -- "$out/branch_random" 2000000 2>&1 >/dev/null)
awk -F, '{ v[$3] = $1; p[$3] = $5 }
  END {
    ok = 1; why = "";
    split("cycles instructions cache-misses mbox-replays", hw, " ");
    for (i = 1; i <= 4; i++) if (!(p[hw[i]] > 5 && p[hw[i]] < 95)) { ok = 0; why = why " " hw[i] " ran " p[hw[i]] "%" }
    ec = v["cycles"] / v["sim/cycles/"] - 1; ei = v["instructions"] / v["sim/instructions/"] - 1;
    if (ec < -0.03 || ec > 0.03 || ei < -0.03 || ei > 0.03) { ok = 0; why = why sprintf(" scaled errors %.4f %.4f", ec, ei) }
    if (ok) printf "PASS timing/stat-multiplexed: 4 events on 2 counters ran %s%%, %s%%, %s%%, %s%%; scaled cycles %+.3f%%, instructions %+.3f%% from sim/\n",
                   p["cycles"], p["instructions"], p["cache-misses"], p["mbox-replays"], 100 * ec, 100 * ei;
    else printf "FAIL timing/stat-multiplexed:%s\n", why }' <<<"$r"
