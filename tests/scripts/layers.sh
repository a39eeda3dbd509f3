#!/usr/bin/env bash
# Layering (DESIGN.md): a lower layer never includes a higher one. Ranks:
# util 0, isa 1, guest 2, uarch 3, pmu 4, kernel 5, machine 6, tools 7; perfdata is a
# shared library (rank 4: usable by the kernel and the tools, using only util);
# unwind (the DWARF unwinder) is another, for the machine (record-time
# unwinding) and the tools, using only util.
set -u
cd "$(dirname "$0")/../.."
rank() {
  case $1 in util) echo 0;; isa) echo 1;; guest) echo 2;; uarch) echo 3;; pmu) echo 4;;
    perfdata) echo 4;; unwind) echo 4;; kernel) echo 5;; machine) echo 6;; tools) echo 7;; *) echo 99;; esac
}
bad=0
for f in src/*/*.[ch]; do
  layer=$(basename "$(dirname "$f")")
  r=$(rank "$layer")
  while read -r inc; do
    dep=${inc%%/*}
    [ "$dep" = "$layer" ] && continue
    d=$(rank "$dep")
    if [ "$d" -gt "$r" ] || { [ "$layer" = perfdata ] && [ "$dep" != util ]; } || { [ "$layer" = unwind ] && [ "$dep" != util ]; } || { [ "$layer" = pmu ] && [ "$dep" = perfdata ]; }; then
      echo "  $f includes $inc"
      bad=$((bad + 1))
    fi
  done < <(sed -n 's/^#include "\([a-z]*\/[^"]*\)".*/\1/p' "$f")
done
if [ "$bad" = 0 ]; then echo "PASS layers/includes: no layer includes a higher one"
else echo "FAIL layers/includes: $bad includes go up a layer"; fi
# One mechanism, one place (DESIGN.md): the tools are perf's user space. They
# never program the PMU, drive its interrupts or do the kernel's work (records,
# software events, the tick); they go through the machine's perf system calls.
direct=$(grep -nE 'ev67_pmu_[a-z_]+\(|ev67_(step|stall|create)\(|alpha_pmu_|perf_record_|perf_sw_event|perf_ctx_tick|perf_event_overflow|(^|[^_[:alnum:]])perf_event_open\(|os_run\(' src/tools/*.[ch])
if [ -z "$direct" ]; then echo "PASS layers/tools-are-clients: no tool programs the PMU or does the kernel's work"
else echo "FAIL layers/tools-are-clients: $(head -3 <<<"$direct")"; fi
