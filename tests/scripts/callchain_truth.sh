#!/usr/bin/env bash
# Call chains against the machine's true call stacks: each tests/unwind/NAME.c
# (recursion, qsort's comparator called from libc, PLT calls and lazy binding
# in ld.so, signal handlers, threads, fork), dynamic, static and PIE, is recorded
# with the defaults (cycles:p, frequency mode; -F 50000 and 256 ring pages for more samples)
# and --callchain-truth, once with --call-graph dwarf (registers and stack,
# unwound afterwards by src/unwind) and once adding --unwind-at-record (the
# kernel unwinds). $BUILD/unit/test_cgtruth compares every sample with the
# true stack: exact, or a prefix ending in a marked truncation, never a wrong
# frame. Prints the shares per file and over all of them; needs the Alpha
# cross compiler and sysroot.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
sysroot=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
out=$BUILD/callchain_truth
mkdir -p "$out" "$BUILD/unwind"
if ! command -v "$CC" >/dev/null || [ ! -d "$sysroot/lib" ]; then
  echo "FAIL callchain_truth: needs $CC and $sysroot"; exit 1
fi
check=$BUILD/unit/test_cgtruth
[ -x "$check" ] || { echo "FAIL callchain_truth: $check not built (make unit)"; exit 1; }
"$check" | sed 's/^\(PASS\|FAIL\) /\1 callchain_truth\/unit: /'
log=$out/all.log
: >"$log"
for src in tests/unwind/*.c; do
  name=$(basename "$src" .c)
  for v in dyn static pie; do
    bin=$BUILD/unwind/$name.$v
    flags=()
    case $v in static) flags=(-static -Wl,--no-relax) ;; pie) flags=(-fPIE -pie) ;; esac
    alpha_cc "$bin" "$src" -O2 "${flags[@]}" -lpthread 2>/dev/null ||
      { echo "FAIL callchain_truth/$name.$v: does not build"; continue; }
    for mode in dwarf record; do
      extra=()
      # dwarf mode cannot sample r15: a frame whose CFA is r15 after code
      # that moved sp by a run-time amount (alloca: ld.so's
      # _dl_relocate_object and dl_main at start-up, glibc's qsort_r)
      # truncates, marked (docs/callgraph.md lists them). Per file: 98% for
      # the static builds (measured 99.3-100%), 92% for the dynamic ones,
      # which relocate in ld.so (95.0-97.5%; 93.8% once in the sanitizer
      # build's environment); 97% over all files below (97.85%); no wrong frame.
      min=92
      [ $v = static ] && min=98
      # record-time unwinding: 97% per file (a 300-deep recursion's samples
      # are cut at perf's 127 entries, a few per run, marked), 99.5% over
      # all files below (measured 99.70-99.80%)
      [ $mode = record ] && { extra=(--unwind-at-record); min=97; }
      d=$out/$name.$v.$mode
      if ! "$PROFILEME" record -q -F 50000 -m 256 --call-graph dwarf "${extra[@]}" --callchain-truth "$d.truth" \
           -o "$d.data" "$bin" >/dev/null 2>"$d.err"; then
        echo "FAIL callchain_truth/$name.$v.$mode: record failed: $(head -2 "$d.err")"; continue
      fi
      "$check" "$name.$v" "$d.data" "$d.truth" $min | tee -a "$log" |
        sed 's/^\(PASS\|FAIL\) /\1 callchain_truth\//'
    done
  done
done
# Over all workloads, exactly the true stack for at least 99.5% of the
# samples with record-time unwinding, 97% in dwarf mode (the checker's
# summary lines in $log).
cg_overall callchain_truth/record-time-overall "unwound at record" 995 1 "$log"
cg_overall callchain_truth/dwarf-overall "dwarf, unwound from regs+stack" 970 1 "$log"
# Linux perf reads a record-time file as a call-graph one: the graph of
# calls.static (symbols in the static binary) goes _start -> ... -> main.
d=$out/calls.static.record
if command -v perf >/dev/null && [ -f "$d.data" ]; then
  if rep=$(perf report -i "$d.data" --stdio -g caller --no-children 2>&1) && grep -qE '^ +main$' <<<"$rep" &&
     grep -q -- '---_start' <<<"$rep" && ! grep -qi 'error\|invalid' <<<"$rep"; then
    echo "PASS callchain_truth/linux-perf-report-g: perf report -g shows the unwound chains"
  else echo "FAIL callchain_truth/linux-perf-report-g: $(head -c 300 <<<"$rep")"; fi
fi
# A record-time chain cut early ends with an empty user context (the mark):
# Linux perf still shows its frames, as many per sample as our script.
d=$out/calls.static.record.data
if command -v perf >/dev/null && [ -f "$d" ]; then
  frames() { awk 'BEGIN { RS = "" } { print split($0, l, "\n") - 1 }'; }
  marked=$(grep 'calls.static (unwound at record): .* samples,' "$log" | grep -o ' marked [0-9]*' | awk '{ print $2 }')
  if [ "$(perf script -i "$d" 2>/dev/null | frames | md5sum)" = "$("$PROFILEME" script -i "$d" 2>/dev/null | frames | md5sum)" ]; then
    echo "PASS callchain_truth/linux-perf-marked: perf script shows every record-time chain whole (${marked:-0} marked truncated)"
  else echo "FAIL callchain_truth/linux-perf-marked: perf script's frames per sample differ from ours"; fi
fi
# The commands show the unwound user frames of a dwarf-mode file: script's
# chains end at _start (calls.static unwinds completely), report -g folded
# and flamegraph --folded go _start -> main -> qsort -> the comparator.
d=$out/calls.static.dwarf.data
if [ -f "$d" ]; then
  read -r n s <<<"$("$PROFILEME" script -i "$d" 2>/dev/null |
    awk 'BEGIN { RS = "" } { n++; k = split($0, l, "\n"); if (k > 2 && l[k] ~ / _start\+/) s++ } END { print n + 0, s + 0 }')"
  # (95%: the rest are marked truncations)
  if [ "$n" -gt 0 ] && [ $((s * 100)) -ge $((n * 95)) ]; then
    echo "PASS callchain_truth/script-dwarf: $s of $n samples' unwound chains end at _start"
  else echo "FAIL callchain_truth/script-dwarf: $s of $n samples' chains end at _start"; fi
  rep=$("$PROFILEME" report -i "$d" --stdio -g folded 2>&1)
  fg=$("$PROFILEME" flamegraph -i "$d" --folded 2>&1)
  pat='_start;__libc_start_main_impl;__libc_start_call_main;main;__qsort_r;msort_with_tmp[^;]*;.*cmp'
  if grep -qE "$pat" <<<"$rep" && grep -qE "$pat" <<<"$fg"; then
    echo "PASS callchain_truth/report-flamegraph-dwarf: report -g folded and flamegraph show the unwound stacks"
  else echo "FAIL callchain_truth/report-flamegraph-dwarf: $(head -c 300 <<<"$rep$fg")"; fi
fi
# File size: bytes per sample of the same runs, dwarf against record-time
# (a size, not a time: the goal is at least 10 times smaller).
awk -v out="$out" '/^callchain_truth [a-z]+\.[a-z]+ \(/ {
    split($0, a, ": "); split(a[2], f, " "); mode = index($0, "(dwarf") ? "dwarf" : "record"
    cmd = "stat -c %s " out "/" $2 "." mode ".data"; cmd | getline b; close(cmd)
    bytes[mode] += b; n[mode] += f[1] }
  END { d = n["dwarf"] ? bytes["dwarf"] / n["dwarf"] : 0; r = n["record"] ? bytes["record"] / n["record"] : 0
        printf "callchain_truth size: %.0f bytes/sample in dwarf mode, %.0f unwound at record: %.1f times smaller\n", d, r, r ? d / r : 0
        print ((r && d >= 10 * r) ? "PASS" : "FAIL") " callchain_truth/size: record-time unwinding at least 10 times smaller per sample" }' "$log"
# Over all files, per mode: the shares the acceptance asks for.
for mode in "dwarf, unwound from regs+stack" "unwound at record"; do
  awk -v m="($mode):" '$0 ~ /^callchain_truth/ && index($0, m) {
      split($0, a, ": "); split(a[2], f, " ");
      n += f[1]; e += f[3]; t += f[6]; w += f[9] }
    END { printf "callchain_truth all (%s) %d samples: %.2f%% exact, %.2f%% truncations (all marked), %d wrong\n",
                 substr(m, 2, length(m) - 3), n, n ? 100 * e / n : 0, n ? 100 * t / n : 0, w
          ok = n > 0 && w == 0
          print (ok ? "PASS" : "FAIL") " callchain_truth/all (" substr(m, 2, length(m) - 3) "): no wrong frame in " n " samples" }' "$log"
done
