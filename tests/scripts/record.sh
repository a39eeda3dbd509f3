#!/usr/bin/env bash
# End-to-end sampling: the ProfileMe series' own results on our workloads.
# Records with `profileme record`, then checks the samples with Linux perf
# (perf script, an independent reader) and with `profileme dcpi`.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/record
mkdir -p "$out"
cd "$out"

build() { alpha_static "$root/$1" "$out/$(basename "$1" .c)"; }
build tests/record/loop16.c && build tests/timing/branch_random.c && build tests/timing/traps.c ||
  { echo "FAIL record/build: cannot build the workloads"; exit 0; }

# rec ARGS... -o FILE ...: profileme record; FILE is removed first, so that a
# failed record does not leave the last run's file to be checked.
rec() {
  local a prev=
  for a; do [ "$prev" = -o ] && rm -f "$a"; prev=$a; done
  "$PROFILEME" record -q "$@" >/dev/null 2>"$out/rec.err"
}
# pcs FILE: "count pc" per sampled PC of main, from Linux perf.
pcs() { perf script -i "$1" -F ip,sym 2>/dev/null | awk '$2 == "main" { print $1 }' | sort | uniq -c; }
# loop PCs are 0x...540..0x...57c in loop16 (aligned by .align 6)
loop_pcs() { pcs "$1" | awk '{ print $2 }' | grep -c '^1200005[4-7][048c]$'; }

# (1,000,000 iterations: at -c 997 the event is throttled at 98 interrupts per
# tick, DIV_ROUND_UP(perf_event_max_sample_rate, HZ), as Linux throttles it)
rec -e cpu/event=1,profileme=1,random=1/ -c 997 -o pm16.data "$out/loop16" 1000000
n=$(loop_pcs pm16.data)
if [ "$n" = 16 ]; then echo "PASS record/profileme-all-16: samples on all 16 loop instructions"
else echo "FAIL record/profileme-all-16: samples on $n of the 16 loop instructions"; fi

# ...and uniformly: chi-square over the 16 PCs (df 15, p = 0.001 bound 37.70).
pcs pm16.data | awk '$2 ~ /^1200005[4-7][048c]$/ { n[$2] = $1; t += $1 } END {
  e = t / 16; for (k in n) c += (n[k] - e) ^ 2 / e;
  if (t >= 160 && c < 37.70) printf "PASS record/profileme-uniform: chi2 %.1f < 37.70 over %d samples\n", c, t;
  else printf "FAIL record/profileme-uniform: chi2 %.1f over %d samples (bound 37.70)\n", c, t }'

# No phase locking with the series' own command: cycles:p in frequency mode
# (the default) and at fixed periods, primes and round numbers, with no
# random interval, put samples on all 16 loop instructions, uniformly
# (chi-square, df 15, p = 0.001 bound 37.70). The kernel's paths vary with
# the work they do and the timer interrupts at cycle times, so the count from
# the counter's rewrite back to the loop differs from sample to sample.
# (frequency mode: 8,000,000 iterations, for some 300 samples at 4000 Hz)
# Under a sanitizer build (BUILD=*san*, some seven times slower here) only
# frequency mode and one prime: the other periods run the same code.
periods=("" 20011 10007 4099 65537 10000 100000)
case $BUILD in *san*) periods=("" 20011) ;; esac
for c in "${periods[@]}"; do
  rec -e cycles:p ${c:+-c $c} -o lock.data "$out/loop16" $([ -z "$c" ] && echo 8000000 || echo 1000000)
  pcs lock.data | awk -v c="${c:-freq}" '$2 ~ /^1200005[4-7][048c]$/ { n[++k] = $1; t += $1 } END {
    e = t / 16; for (i = 1; i <= k; i++) x += (n[i] - e) ^ 2 / e; x += (16 - k) * e;
    if (k == 16 && t >= 150 && x < 37.70) printf "PASS record/no-phase-lock-%s: %d samples on all 16 PCs, chi2 %.1f < 37.70\n", c, t, x;
    else printf "FAIL record/no-phase-lock-%s: %d samples on %d of 16 PCs, chi2 %.1f (bound 37.70)\n", c, t, k, x }'
done

# No phase locking across a program's phases either: a loop of unaligned
# loads, each fixed up by the kernel, recorded with ProfileMe as root at
# -c 20011 (no random interval) gives user mode the share of the samples that
# it has of the fetched instructions (sim/fetched/u and /k), within 4 sigma
# (a constant kernel path used to put every sample in do_entUna).
rec --privileged -e cpu/cycles,profileme=1/ -c 20011 -o phase.data "$out/traps" 200000
truth=$("$PROFILEME" stat -x, -e sim/fetched/u,sim/fetched/k -- "$out/traps" 200000 2>&1 >/dev/null |
        awk -F, '$3 == "sim/fetched/u" { u = $1 } $3 == "sim/fetched/k" { k = $1 } END { if (u + k) printf "%.4f", u / (u + k) }')
perf script -i phase.data -F ip 2>/dev/null | awk -v p="$truth" '{ n++; if ($1 !~ /^fffffc/) u++ } END {
  s = u / n; sd = sqrt(p * (1 - p) / n); d = s - p; if (d < 0) d = -d;
  if (n >= 1000 && p > 0 && d < 4 * sd)
    printf "PASS record/phases-by-fetch-share: user mode has %.3f of %d samples, %.3f of fetched instructions (4 sigma %.3f)\n", s, n, p, 4 * sd;
  else printf "FAIL record/phases-by-fetch-share: user share %.3f of %d samples, truth %s (4 sigma %.3f)\n", s, n, p, 4 * sd }'

# An Aggregate period longer than one counter write (2^19) samples once per
# period, not on every wrap: samples x 1,000,000 is the instruction count
# (sim/instructions/) to within one period (was about 1.9 times it).
rec --privileged -e instructions -c 1000000 -o big.data "$out/branch_random" 2000000
ninsn=$("$PROFILEME" stat -x, -e sim/instructions/ -- "$out/branch_random" 2000000 2>&1 >/dev/null | cut -d, -f1)
perf script -i big.data -F period 2>/dev/null | awk -v t="$ninsn" '{ n++; s += $1 } END {
  if (n > 10 && s <= t && t - s < 1000000) printf "PASS record/long-period: %d samples of period 1000000 over %d instructions\n", n, t;
  else printf "FAIL record/long-period: %d samples, %d events of period over %d instructions\n", n, s, t }'

# Aggregate mode, skid and all, is far from uniform on the same loop: the
# interrupt is taken at the first instruction of a retire group, so a few PCs
# get most samples (the series: "4 PCs"; here the kernel's irregular paths
# and frequency mode's changing period move the loop between alignments, so
# the 4 busiest hold far more than their uniform 25%, and uniformity is
# rejected at p = 0.001: measured 130 samples, 15 PCs, 48%, chi2 60). An
# Aggregate event cannot exclude the kernel: it needs --privileged.
# 8,000,000 iterations (50 ms): frequency mode's first period is 1 and, as in
# Linux, the ramp overshoots and takes some 20 ticks to settle.
rec --privileged -e cycles -o agg16.data "$out/loop16" 8000000
pcs agg16.data | sort -rn | awk '$2 ~ /^1200005[4-7][048c]$/ { n[++k] = $1; t += $1; if (k <= 4) top += $1 } END {
  e = t / 16; for (i = 1; i <= k; i++) c += (n[i] - e) ^ 2 / e; c += (16 - k) * e;
  if (t >= 100 && c > 37.70 && top >= 0.4 * t)
    printf "PASS record/aggregate-skewed: Aggregate samples on %d PCs, the busiest 4 hold %.0f%% (uniform: 25%%), chi2 %.0f (> 37.70)\n", k, 100 * top / t, c;
  else printf "FAIL record/aggregate-skewed: %d samples on %d PCs, busiest 4 hold %.0f%%, chi2 %.1f\n", t, k, t ? 100 * top / t : 0, c }'

# dcpi CSV rows, tab-separated, columns by name: symbol pc insn samples
# retired killed mispredict trap dtb_miss unaligned kernel (insn's blanks as _).
dcpi_rows() {
  "$PROFILEME" dcpi -i "$1" --by insn -x, 2>/dev/null | perl -e '
    my $h = <STDIN>; chomp $h; my @c = split /,/, $h; my %i; @i{@c} = 0..$#c;
    while (<STDIN>) {
      chomp; my @f; push @f, defined($1) ? $1 : $2 while /\G(?:"([^"]*)"|([^,]*))(?:,|$)/g;
      $f[$i{insn}] =~ s/\s+/_/g;
      print join("\t", map { $f[$i{$_}] } qw(symbol pc insn samples retired killed mispredict trap dtb_miss unaligned kernel)), "\n";
    }'
}
# The rows for main without the symbol, space-separated.
dcpi_main() { dcpi_rows "$1" | awk -F'\t' '$1 == "main" { sub(/^[^\t]*\t/, ""); gsub(/\t/, " "); print }'; }

# A branch on random data mispredicts in a large share of its samples, and
# under 1% with sorted data (the branch with the most mispredicts).
rec -e cpu/event=1,profileme=1,random=1/ -c 1999 -o br.data "$out/branch_random" 2000000
rec -e cpu/event=1,profileme=1,random=1/ -c 499 -o brs.data "$out/branch_random" 200000 sorted
share() { dcpi_main "$1" | awk '$2 ~ /^b/ && $4 > 0 { if ($6 / $4 > best || !seen) { best = $6 / $4; seen = 1 } } END { if (seen) printf "%.3f", best }'; }
r=$(share br.data); s=$(share brs.data)
if awk -v r="$r" 'BEGIN { exit !(r > 0.3) }'; then echo "PASS record/random-branch-mispredicted: $r of the branch's samples mispredicted"
else echo "FAIL record/random-branch-mispredicted: only $r of the branch's samples mispredicted"; fi
if awk -v s="$s" 'BEGIN { exit !(s != "" && s < 0.01) }'; then echo "PASS record/sorted-branch-rarely: $s mispredicted with sorted data"
else echo "FAIL record/sorted-branch-rarely: $s mispredicted with sorted data, want < 0.01"; fi

# With precise_ip, killed instructions go from a large share to none.
rec -e cpu/event=1,profileme=1/ -c 499 -o brk.data "$out/branch_random" 200000
rec -e cycles:pp -c 499 -o brp.data "$out/branch_random" 200000
killed() { dcpi_main "$1" | awk '{ s += $3; k += $5 } END { printf "%.3f", s ? k / s : 0 }'; }
a=$(killed brk.data); b=$(killed brp.data)
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0.1 && b == 0) }'; then
  echo "PASS record/precise-drops-killed: killed share $a without precise_ip, $b with"
else echo "FAIL record/precise-drops-killed: killed share $a without precise_ip, $b with"; fi

# DTB misses and unaligned traps are attributed to the faulting load.
rec -e cpu/event=1,profileme=1,random=1,config1=4/ -c 1009 -o tr.data "$out/traps" 200000
dcpi_main tr.data | awk '
  $8 > 0 && $2 !~ /^ld/ { bad++ } $9 > 0 && $2 !~ /^ldq_/ { bad++ }
  $8 > 0 { dtb += $8 } $9 > 0 { una += $9 }
  END { if (!bad && dtb > 0 && una > 0) printf "PASS record/traps-on-faulting-loads: %d DTB-miss and %d unaligned samples, all on the loads\n", dtb, una;
        else printf "FAIL record/traps-on-faulting-loads: dtb %d unaligned %d, %d on other instructions\n", dtb, una, bad }'

# As a normal user at paranoid 2 no sample is in the kernel; --privileged adds them.
rec -c 997 -o user.data "$out/traps" 20000
rec --privileged -c 997 -o priv.data "$out/traps" 20000
ku=$(perf script -i user.data -F ip 2>/dev/null | grep -c '^ *fffffc') || true
kp=$(perf script -i priv.data -F ip 2>/dev/null | grep -c '^ *fffffc') || true
if [ "$ku" = 0 ] && [ "$kp" -gt 0 ]; then echo "PASS record/paranoid: 0 kernel samples as a user, $kp with --privileged"
else echo "FAIL record/paranoid: $ku kernel samples as a user, $kp with --privileged"; fi

# perf 6.1 at paranoid 2 (evsel__fallback): refused for the kernel, the event
# is opened again excluding the kernel and the hypervisor and renamed with u;
# -v prints perf's warning. Linux perf reads the attr and the name back.
rm -f fb.data
"$PROFILEME" record -v -c 997 -o fb.data "$out/traps" 20000 >/dev/null 2>fb.err
ev=$(perf evlist -i fb.data -v 2>/dev/null | head -n 1)
if grep -qxF 'kernel.perf_event_paranoid=2, trying to fall back to excluding kernel and hypervisor  samples' fb.err &&
   [[ "$ev" == cycles:pu:* ]] && [[ "$ev" == *"exclude_kernel: 1, exclude_hv: 1"* ]]; then
  echo "PASS record/paranoid-fallback: perf's warning, and perf evlist reads cycles:pu with exclude_kernel and exclude_hv"
else echo "FAIL record/paranoid-fallback: '$(head -c 200 fb.err)' / '${ev:0:200}'"; fi
# An Aggregate event cannot exclude the kernel (the Alpha PMU answers EINVAL,
# PERF_PMU_CAP_NO_EXCLUDE): as a normal user the fallback ends in perf's
# message for a per-thread event; as root it records both modes
# with no exclude bit (perf sets none without a modifier).
rm -f agg.data
"$PROFILEME" record -q -e instructions -c 10000 -o agg.data "$out/branch_random" 20000 >/dev/null 2>agg.err; st=$?
rm -f aggp.data
"$PROFILEME" record -q --privileged -e instructions -c 10000 -o aggp.data "$out/branch_random" 20000 >/dev/null 2>&1
evp=$(perf evlist -i aggp.data -v 2>/dev/null | head -n 1)
if [ "$st" != 0 ] && grep -qxF "Invalid event (instructions:u) in per-thread mode, enable system wide with '-a'." agg.err &&
   [[ "$evp" == instructions:* ]] && [[ "$evp" != *exclude* ]]; then
  echo "PASS record/aggregate-no-exclude: refused as a normal user with perf's message; as root recorded without exclude bits"
else echo "FAIL record/aggregate-no-exclude: status $st, '$(head -c 200 agg.err)' / '${evp:0:200}'"; fi

# stat as a normal user (--user): perf stat's fallback, then <not supported>
# for the hardware event under its :u name; the software and sim/ events
# count user space (page-faults:u, sim/instructions/u). As root (the
# default) a mode on a hardware event is <not supported> too, and without one
# it counts.
su=$("$PROFILEME" stat --user -x, -e instructions,page-faults,sim/instructions/u -- "$out/branch_random" 200000 2>&1 >/dev/null)
sr=$("$PROFILEME" stat -x, -e instructions:u,instructions -- "$out/branch_random" 20000 2>&1 >/dev/null)
# field CSV NAME: the value stat -x, printed for event NAME
field() { awk -F, -v n="$2" '$3 == n { print $1 }' <<<"$1"; }
ttc=$(field "$su" page-faults:u); siu=$(field "$su" sim/instructions/u); ins=$(field "$sr" instructions)
if [ "$(field "$su" instructions:u)" = "<not supported>" ] && [ "$ttc" -gt 0 ] 2>/dev/null && [ "$siu" -gt 0 ] 2>/dev/null &&
   [ "$(field "$sr" instructions:u)" = "<not supported>" ] && [ "$ins" -gt 0 ] 2>/dev/null; then
  echo "PASS stat/paranoid-fallback: --user: <not supported> instructions:u, page-faults:u $ttc, sim/instructions/u $siu; root: instructions $ins, instructions:u <not supported>"
else echo "FAIL stat/paranoid-fallback: --user: $(tr '\n' ' ' <<<"$su" | head -c 300) / root: $(tr '\n' ' ' <<<"$sr" | head -c 200)"; fi

# Sampling every 10000 instructions, 50 times in a row: no hang, no warning.
bad=0
for i in $(seq 50); do
  timeout 60 "$PROFILEME" record -q --privileged -e instructions -c 10000 -o many.data "$out/branch_random" 20000 >/dev/null 2>many.err || bad=$((bad + 1))
  grep -qi 'warn' many.err && bad=$((bad + 1))
done
if [ "$bad" = 0 ]; then echo "PASS record/fifty-runs: 50 runs sampling every 10000 instructions, clean"
else echo "FAIL record/fifty-runs: $bad of 50 runs failed or warned"; fi

# Sampled estimate vs ground truth: the share of conditional-branch samples
# that mispredicted, against sim/branch-misses / sim/branches, within 4 sigma.
truth=$("$PROFILEME" stat -x, -e sim/branches/,sim/branch-misses/ -- "$out/branch_random" 2000000 2>&1 >/dev/null |
        awk -F, '{ v[$3] = $1 } END { printf "%.4f", v["sim/branch-misses/"] / v["sim/branches/"] }')
est=$(dcpi_rows br.data | awk -F'\t' '$3 ~ /^(beq|bne|blt|ble|bgt|bge|blbc|blbs|fb)/ { n += $5; m += $7 }
  END { printf "%.4f %d", n ? m / n : 0, n }')
set -- $est
awk -v t="$truth" -v e="$1" -v n="$2" 'BEGIN {
  sd = sqrt(t * (1 - t) / (n ? n : 1)); d = e - t; if (d < 0) d = -d;
  if (n > 100 && d <= 4 * sd + 0.01) printf "PASS record/estimate-vs-truth: sampled %.4f, exact %.4f, %d samples (4 sigma %.4f)\n", e, t, n, 4 * sd;
  else printf "FAIL record/estimate-vs-truth: sampled %.4f, exact %.4f, %d samples (4 sigma %.4f)\n", e, t, n, 4 * sd }'

# Linux perf 6.1 reads what record wrote: report and the raw dump, no errors.
if perf report -i pm16.data --stdio >perf.out 2>perf.err && perf script -i pm16.data -D >perf.dump 2>>perf.err &&
   ! grep -qiE 'fail|error|invalid' perf.err && grep -q 'PERF_RECORD_SAMPLE' perf.dump && grep -q 'main' perf.out; then
  echo "PASS record/linux-perf-reads: perf report and perf script -D read the recorded file"
else echo "FAIL record/linux-perf-reads: $(head -c 300 perf.err)"; fi

# Ctrl-C: a SIGINT'd record still leaves a valid file.
rm -f int.data
"$PROFILEME" record -q -e cycles:p -c 4001 -o int.data "$out/branch_random" 300000000 >/dev/null 2>&1 &
rp=$!
sleep 2
kill -INT "$rp" 2>/dev/null
wait "$rp"; st=$?
if [ "$st" = 130 ] && perf report -i int.data --stdio >/dev/null 2>int.err && ! grep -qiE 'fail|error|invalid|terminated' int.err; then
  echo "PASS record/sigint-valid-file: interrupted record (status 130) left a file perf reads"
else echo "FAIL record/sigint-valid-file: status $st; $(head -c 200 int.err)"; fi

# -F above kernel.perf_event_max_sample_rate: perf record lowers the
# frequency to the limit with its message rather than fail with EINVAL, and
# --max-sample-rate raises the limit (the attr in the file says which).
freq_of() { perf evlist -v -i "$1" 2>/dev/null | sed -n 's/.*sample_freq }: \([0-9]*\).*/\1/p' | head -n 1; }
"$PROFILEME" record -q -F 200000 -o f1.data -- "$out/branch_random" 20000 >/dev/null 2>f1.err; st1=$?
"$PROFILEME" record -q -F 200000 --max-sample-rate 300000 -o f2.data -- "$out/branch_random" 20000 >/dev/null 2>f2.err; st2=$?
f1=$(freq_of f1.data) f2=$(freq_of f2.data)
if [ "$st1$st2" = 00 ] && [ "$f1" = 100000 ] && [ "$f2" = 200000 ] &&
   grep -q '^Maximum frequency rate (100000 Hz) exceeded, throttling from 200000 Hz to 100000 Hz' f1.err && [ ! -s f2.err ]; then
  echo "PASS record/freq-above-max-rate: -F 200000 lowered to 100000 with perf's message; 200000 under --max-sample-rate 300000"
else echo "FAIL record/freq-above-max-rate: status $st1/$st2, freq $f1/$f2: $(head -c 200 f1.err)"; fi
