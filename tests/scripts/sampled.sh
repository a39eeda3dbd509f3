#!/usr/bin/env bash
# Sampled simulation (docs/sampled.md) against the exact mode on the same
# programs: stat --sampled's estimates and their 95% intervals against the
# exact counts, instructions counted exactly, record --sampled's sample
# shares per function against the exact mode's, determinism, several CPUs and
# system-wide, call graphs, the trace unit's exact execution counts, and the
# options' errors. The long acceptance measurements are in
# scripts/sampled-accuracy.sh and `make bench`.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/sampled
mkdir -p "$out"
cd "$out"

alpha_static "$root/tests/sampled/phases.c" "$out/phases" && alpha_static "$root/tests/smp/spin2.c" "$out/spin2" ||
  { echo "FAIL sampled/build: cannot build the workloads"; exit 0; }
# spin2 needs pthreads; alpha_static links statically, which brings them in.

pm() { env -i "$PROFILEME" "$@"; }
S=--sampled=1000,2000,20000     # a period short enough for many units in 28M instructions
E=sim/cycles/,instructions,sim/bcache-misses/,sim/branch-misses/,sim/replays/
# val FILE EVENT: the count of EVENT in stat -x, output FILE; ci: its noise column.
val() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }
ci() { awk -F, -v e="$2" '$3 == e && $4 ~ /%$/ { sub(/%/, "", $4); print $4 }' "$1"; }

# ---- stat: estimates and intervals against the exact counts ----
pm stat -x, -e "$E" ./phases 4 >/dev/null 2>exact.stat
for s in 1 2 3 4 5; do pm stat --seed $s "$S" -x, -e "$E" ./phases 4 >/dev/null 2>smp$s.stat; done
x=$(val exact.stat sim/cycles/)
covered=0 worst=0
for s in 1 2 3 4 5; do
  read -r ok err < <(awk -v x="$x" -v v="$(val smp$s.stat sim/cycles/)" -v c="$(ci smp$s.stat sim/cycles/)" 'BEGIN {
    e = (v - x) / x * 100; if (e < 0) e = -e; print (c != "" && e <= c) ? 1 : 0, e }')
  covered=$((covered + ok))
  worst=$(awk -v a="$worst" -v b="$err" 'BEGIN { print (b > a) ? b : a }')
done
if [ "$covered" -ge 4 ] && awk -v w="$worst" 'BEGIN { exit !(w < 5) }'; then
  echo "PASS sampled/stat-cycles: the 95% interval covers the exact cycles ($x) for $covered of 5 seeds, worst error $worst%"
else
  echo "FAIL sampled/stat-cycles: covered for $covered of 5 seeds (want 4), worst error $worst% (want < 5%)"
fi
# An unbiased estimate: the mean error over the seeds is small against each one's.
awk -F, -v x="$x" 'FNR == 1 { n++ } $3 == "sim/cycles/" { t += $1 } END {
  m = (t / n - x) / x * 100; if (m < 0) m = -m
  if (m < 2) printf "PASS sampled/stat-cycles-mean: mean of %d seeds %.2f%% from the exact count\n", n, m
  else printf "FAIL sampled/stat-cycles-mean: mean of %d seeds %.2f%% from the exact count (want < 2%%)\n", n, m }' smp?.stat
xm=$(val exact.stat sim/bcache-misses/); vm=$(val smp1.stat sim/bcache-misses/); cm=$(ci smp1.stat sim/bcache-misses/)
if awk -v x="$xm" -v v="$vm" -v c="$cm" 'BEGIN { e = (v - x) / x * 100; if (e < 0) e = -e; exit !(c != "" && e <= 2 * c && e < 10) }'; then
  echo "PASS sampled/stat-bcache: B-cache misses $vm against $xm exact (+-$cm%)"
else
  echo "FAIL sampled/stat-bcache: B-cache misses $vm against $xm exact (+-$cm%)"
fi
# Instructions are not estimated: warming counts them. Only the
# interrupts differ (the exact model times an interrupted instruction twice).
xi=$(val exact.stat instructions); vi=$(val smp1.stat instructions)
if awk -v x="$xi" -v v="$vi" 'BEGIN { d = v - x; if (d < 0) d = -d; exit !(d * 10000 <= x) }'; then
  echo "PASS sampled/stat-instructions: $vi retired against $xi exact (within 0.01%)"
else
  echo "FAIL sampled/stat-instructions: $vi retired against $xi exact"
fi
if [ -z "$(ci smp1.stat instructions)" ] && [ -n "$(ci smp1.stat sim/cycles/)" ]; then
  echo "PASS sampled/stat-csv-noise: the CSV has perf's noise column for estimates, none for instructions"
else
  echo "FAIL sampled/stat-csv-noise: $(grep -E 'cycles|instructions' smp1.stat | tr '\n' ' ')"
fi
pm stat --seed 1 "$S" -e sim/cycles/,instructions ./phases 4 >/dev/null 2>plain.stat
if grep -q 'sim/cycles/ *( +- *[0-9.]*% )' plain.stat && ! grep -q 'instructions.*( +-' plain.stat &&
   grep -q 'sampled: [0-9]* units of 1000 instructions (2000 warm-up) every 20000' plain.stat; then
  echo "PASS sampled/stat-output: perf's ( +- x% ) column on cycles, and the units line"
else
  echo "FAIL sampled/stat-output: $(cat plain.stat)"
fi
pm stat --seed 1 "$S" -x, -e "$E" ./phases 4 >/dev/null 2>again.stat
if cmp -s smp1.stat again.stat && ! cmp -s smp1.stat smp2.stat; then
  echo "PASS sampled/stat-deterministic: the same seed gives the same estimates, another seed other units"
else
  echo "FAIL sampled/stat-deterministic: same seed differs, or two seeds agree"
fi

# ---- record: every sample in detail, shares as the exact mode's ----
pm record -q -c 20011 -o exact.data ./phases 4 >/dev/null 2>rec.err || cat rec.err
pm record -q "$S" -c 20011 -o smp.data ./phases 4 >/dev/null 2>rec.err || cat rec.err
# Each function's share of the samples against its share in the exact
# mode's file, within 4 standard errors of the difference of two binomial
# shares (n samples each).
"$PROFILEME" dcpi -i exact.data --by sym -x, >exact.dcpi 2>/dev/null
"$PROFILEME" dcpi -i smp.data --by sym -x, >smp.dcpi 2>/dev/null
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) h[FILENAME, $i] = i; next }
         NR == FNR { a[$h[FILENAME, "symbol"]] = $h[FILENAME, "samples"]; na += $h[FILENAME, "samples"]; next }
         { b[$h[FILENAME, "symbol"]] = $h[FILENAME, "samples"]; nb += $h[FILENAME, "samples"] }
         END { bad = 0; worst = 0; checked = 0
               for (s in a) { if (s !~ /^(chase|branchy|adds|stores)/) continue
                 p = a[s] / na; q = b[s] / nb; m = (a[s] + b[s]) / (na + nb); se = sqrt(m * (1 - m) * (1 / na + 1 / nb))
                 d = q - p; if (d < 0) d = -d
                 checked++; if (d > worst) worst = d; if (d > 4 * se) { bad++; printf "  %s: sampled %.4f, exact %.4f (se %.4f)\n", s, q, p, se } }
               if (checked == 4 && !bad && na >= 1000 && nb >= 1000)
                 printf "PASS sampled/record-shares: the 4 functions'"'"' sample shares within 4 standard errors of the exact mode'"'"'s (%d and %d samples, worst %.2f pp)\n", nb, na, worst * 100
               else printf "FAIL sampled/record-shares: %d of %d functions off, %d and %d samples\n", bad, checked, nb, na }' exact.dcpi smp.dcpi
n_exact=$("$PROFILEME" script -i exact.data -F ip 2>/dev/null | grep -c .)
n_smp=$("$PROFILEME" script -i smp.data -F ip 2>/dev/null | grep -c .)
if awk -v a="$n_exact" -v b="$n_smp" 'BEGIN { d = (b - a) / a; if (d < 0) d = -d; exit !(a > 1000 && d < 0.05) }'; then
  echo "PASS sampled/record-count: $n_smp samples against $n_exact exact (the warm countdown's fetch estimate within 5%)"
else
  echo "FAIL sampled/record-count: $n_smp samples against $n_exact exact"
fi
# Mispredicted-branch samples, a status only the timing model gives:
# branchy's share against the exact mode's, as above.
read -r mp ms me mx < <(awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) h[FILENAME, $i] = i; next }
  $h[FILENAME, "symbol"] ~ /^branchy/ { if (NR == FNR) { me = $h[FILENAME, "mispredict"]; mx = $h[FILENAME, "samples"] }
                                        else { mp = $h[FILENAME, "mispredict"]; ms = $h[FILENAME, "samples"] } }
  END { print mp, ms, me, mx }' exact.dcpi smp.dcpi)
if awk -v mp="$mp" -v ms="$ms" -v me="$me" -v mx="$mx" 'BEGIN { m = (mp + me) / (ms + mx); se = sqrt(m * (1 - m) * (1 / ms + 1 / mx))
     d = mp / ms - me / mx; if (d < 0) d = -d; exit !(ms > 100 && me > 5 && d <= 4 * se) }'; then
  echo "PASS sampled/record-mispredicts: branchy's mispredicted samples $mp of $ms against $me of $mx exact"
else
  echo "FAIL sampled/record-mispredicts: branchy's mispredicted samples $mp of $ms against $me of $mx exact"
fi
# (the same -o: the file's header holds the command line)
mv smp.data smp1.data
pm record -q "$S" -c 20011 -o smp.data ./phases 4 >/dev/null 2>&1
if cmp -s smp.data smp1.data; then echo "PASS sampled/record-deterministic: two runs, the same perf.data"
else echo "FAIL sampled/record-deterministic: two runs differ"; fi
# Without -q, record says how much it timed in detail: at least the units
# themselves (U = 1000 each), and at most the units with their warm-ups
# ((U + W) / P = 15%) plus W = 2000 detailed instructions for each
# ProfileMe selection, two per sample kept here (about half of phases'
# fetched instructions do not retire, and precise events keep the retired
# ones). A warm-up that outstays its W broke that bound (37.6%, against
# 30.7% now).
pm record "$S" -c 20011 -o smp2.data ./phases 4 >/dev/null 2>rec2.err
line=$(grep 'sampled: .* units; .* timed in detail' rec2.err)
kept=$(sed -n 's/.*Captured and wrote .* (\([0-9]*\) samples).*/\1/p' rec2.err)
if awk -v l="$line" -v k="${kept:-0}" 'BEGIN { n = split(l, w, " "); for (i = 1; i <= n; i++) {
       if (w[i] == "units;") u = w[i - 1]; if (w[i] ~ /%$/) { p = w[i]; sub(/%/, "", p); m = w[i + 2] } }
     if (!(u + 0 > 0 && m + 0 > 0 && k + 0 > 0)) exit 1
     hi = 100 * (3000 / 20000 + 2 * 2000 * k / m)
     exit !(p / 100 * m >= u * 1000 && p + 0 <= hi) }'; then
  echo "PASS sampled/record-detail: $line ($kept samples)"
else
  echo "FAIL sampled/record-detail: record --sampled's footer: $(tr '\n' ' ' <rec2.err)"
fi

# ---- two CPUs, system-wide, call graphs, the trace unit ----
pm stat --cpus 2 -x, -e sim/cycles/ ./spin2 400000 >/dev/null 2>spin.exact
pm stat --cpus 2 "$S" -x, -e sim/cycles/ ./spin2 400000 >/dev/null 2>spin.smp
if awk -v x="$(val spin.exact sim/cycles/)" -v v="$(val spin.smp sim/cycles/)" -v c="$(ci spin.smp sim/cycles/)" 'BEGIN {
     e = (v - x) / x * 100; if (e < 0) e = -e; exit !(c != "" && e <= c && e < 2) }'; then
  echo "PASS sampled/smp-stat: two CPUs, cycles $(val spin.smp sim/cycles/) (+-$(ci spin.smp sim/cycles/)%) against $(val spin.exact sim/cycles/) exact"
else
  echo "FAIL sampled/smp-stat: two CPUs, cycles $(val spin.smp sim/cycles/) (+-$(ci spin.smp sim/cycles/)%) against $(val spin.exact sim/cycles/) exact"
fi
pm record -q --cpus 2 -a --privileged "$S" -c 4001 -o smp-a.data ./spin2 400000 >/dev/null 2>rec.err || cat rec.err
cpus=$("$PROFILEME" script -i smp-a.data -F cpu 2>/dev/null | sort -u | tr -d ' []' | tr '\n' ' ')
if [ "$cpus" = "000 001 " ] || [ "$cpus" = "0 1 " ]; then
  echo "PASS sampled/smp-record-a: system-wide samples on both CPUs"
else
  echo "FAIL sampled/smp-record-a: samples on CPUs '$cpus'"
fi
# Call chains unwound at each sample against the machine's true stacks
# (tests/unit/test_cgtruth, as tests/scripts/callchain_truth.sh): sampled
# mode changes when samples are taken, never what the stack is.
pm record -q "$S" -c 20011 --call-graph dwarf --unwind-at-record --callchain-truth cg.truth -o cg.data ./phases 4 \
  >/dev/null 2>rec.err || cat rec.err
if [ -x "$BUILD/unit/test_cgtruth" ]; then
  "$BUILD/unit/test_cgtruth" phases cg.data cg.truth 99 | sed 's/^\(PASS\|FAIL\) /\1 sampled\/callgraph-/'
else
  echo "FAIL sampled/callgraph: $BUILD/unit/test_cgtruth not built (make unit)"
fi
pm record -q -e trace// -o trace-exact.data ./phases 1 >/dev/null 2>&1
pm record -q "$S" -e trace// -o trace-smp.data ./phases 1 >/dev/null 2>&1
"$PROFILEME" dcpi --exec -i trace-exact.data --by sym -x, >exec-exact.csv 2>/dev/null
"$PROFILEME" dcpi --exec -i trace-smp.data --by sym -x, >exec-smp.csv 2>/dev/null
if grep -q ',chase[.a-z0-9]*,300009$' exec-exact.csv && cmp -s exec-exact.csv exec-smp.csv; then
  echo "PASS sampled/trace-exec: the trace unit's execution counts equal the exact run's"
else
  echo "FAIL sampled/trace-exec: execution counts differ ($(diff exec-exact.csv exec-smp.csv | head -3 | tr '\n' ' '))"
fi

# ---- sweeps: plan, run the job list (as GNU parallel would), merge ----
printf 'phases\t%s 1\n' "$out/phases" >sweep-wl.txt
printf '# name, options\nexact\nsampled\t%s\n' "$S" >sweep-cf.txt
rm -rf sweep
if "$root/scripts/sweep.sh" plan --workloads sweep-wl.txt --configs sweep-cf.txt --seeds 1 --out sweep >/dev/null &&
   PROFILEME=$PROFILEME xargs -P 2 -I{} sh -c {} <sweep/jobs.txt &&
   PROFILEME=$PROFILEME "$root/scripts/sweep.sh" merge sweep >sweep.txt &&
   [ "$(grep -c ' ok$' sweep.txt)" = 2 ] && [ -s sweep/jobs/1/perf.data ] &&
   grep -q '^#SBATCH --array=0-1$' sweep/sweep.slurm && bash -n sweep/sweep.slurm &&
   grep -q 'phases *sampled *1 runs' sweep.txt; then
  echo "PASS sampled/sweep: 2 jobs planned (job list and Slurm array), run, merged into one table"
else
  echo "FAIL sampled/sweep: $(head -5 sweep.txt 2>/dev/null | tr '\n' ' ')"
fi

# ---- options ----
for bad in 0 1000,0 1000,2000,2500 x 1000,2000,20000,5 1000, ; do
  if pm stat --sampled=$bad ./phases 1 >/dev/null 2>err.txt; then
    echo "FAIL sampled/option-$bad: accepted"
  elif grep -q -- '--sampled' err.txt; then
    echo "PASS sampled/option-$bad: refused with a message naming --sampled"
  else
    echo "FAIL sampled/option-$bad: $(head -1 err.txt)"
  fi
done
if pm record --sampled --truth -o x.data ./phases 1 >/dev/null 2>err.txt; then
  echo "FAIL sampled/record-truth: --truth accepted with --sampled"
else
  rc=$?; grep -q truth err.txt && [ "$rc" = 2 ] && echo "PASS sampled/record-truth: refused (status 2)" ||
    echo "FAIL sampled/record-truth: status $rc, $(head -1 err.txt)"
fi
for c in stat record; do
  if "$PROFILEME" $c --help | grep -q -- '--sampled\[=U,W\[,P\]\]'; then echo "PASS sampled/help-$c: $c --help describes --sampled"
  else echo "FAIL sampled/help-$c: no --sampled in $c --help"; fi
done

# The accuracy script stops at a run that fails, with its message and
# status 2, instead of comparing empty results (-100% errors).
PROFILEME=/bin/false "$root/scripts/sampled-accuracy.sh" --seeds 1 --out "$out/acc-fail" ./phases 1 >acc.txt 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q 'the functional run failed' acc.txt && ! grep -q -- '-100' acc.txt; then
  echo "PASS sampled/accuracy-failed-run: status 2 and the failing run named"
else
  echo "FAIL sampled/accuracy-failed-run: status $rc, $(tail -2 acc.txt | tr '\n' ' ')"
fi
