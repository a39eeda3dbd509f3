#!/usr/bin/env bash
# `make demo`: the main job on the bundled workload. Runs workloads/demo.c on
# the emulated EV67, records it with ProfileMe (precise, per-instruction
# status), and shows the perf-style report, the DCPI-style summary of the
# hottest function's instructions, and its annotated hot loop.
set -eu
BUILD=${BUILD:-build}
P=$BUILD/profileme
W=$BUILD/workloads/demo
out=$BUILD/demo
mkdir -p "$out"
echo "== profileme run --stats (functional machine)"
"$P" run --stats "$W" >/dev/null
echo
# The series' own command with perf's defaults (frequency mode, 4000 Hz, no
# random interval): the kernel's irregular paths keep samples from locking
# onto loops (docs/profiling.md).
echo "== profileme record -e cycles:p (ProfileMe on the timed EV67, perf's defaults)"
"$P" record -e cycles:p -o "$out/perf.data" -- "$W" >/dev/null
echo
echo "== profileme report"
"$P" report -i "$out/perf.data" --stdio --percent-limit 2 | grep -v '^$' | head -20
hot=$("$P" report -i "$out/perf.data" --stdio --sort symbol 2>/dev/null | awk '/%/ && $NF != "" { print $NF; exit }')
echo
echo "== profileme dcpi --by insn (DCPI-style ProfileMe status of $hot)"
"$P" dcpi -i "$out/perf.data" --by insn --symbols "$hot" | head -24
echo
echo "== profileme annotate $hot (the hot loop)"
"$P" annotate -i "$out/perf.data" --stdio "$hot" >"$out/annotate.txt"
# the header, then the instructions around the ones with at least 1% of samples
awk 'NR == FNR { if ($1 + 0 >= 1.0 && $2 ~ /^[0-9]+$/) { if (!first) first = FNR; last = FNR } next }
     FNR <= 2 || (FNR >= first - 3 && FNR <= last + 3)' "$out/annotate.txt" "$out/annotate.txt" | head -60
echo
echo "perf.data is in $out/perf.data; Linux perf reads it too: perf report -i $out/perf.data"
