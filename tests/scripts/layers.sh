#!/usr/bin/env bash
# Layering (docs/design.md): a layer includes only the layers below it, as
# the table says. From the bottom: util and uapi (the ABI the kernel side and
# the tools share: headers of layouts and numbers, including nothing), isa,
# guest, uarch, pmu, kernel, machine; perfdata (perf.data) and unwind (the
# DWARF unwinder) are libraries beside them that use only util and uapi;
# analysis is the tools' library (perf's util/), which reads files and never
# touches the machine: of the guest layer it may read only the synthetic
# kernel image's symbol table (guest/kimage.h, what perf reads from
# kallsyms); tools, the commands, sit on top.
set -u
cd "$(dirname "$0")/../.."
declare -A allow=(
  [util]="" [uapi]=""
  [isa]="util uapi"
  [guest]="util uapi isa"
  [uarch]="util uapi isa guest"
  [pmu]="util uapi isa guest uarch"
  [kernel]="util uapi isa guest uarch pmu"
  [perfdata]="util uapi"
  [unwind]="util uapi"
  [machine]="util uapi isa guest uarch pmu kernel perfdata unwind"
  [analysis]="util uapi isa perfdata unwind guest/kimage.h"
  [tools]="util uapi isa guest uarch pmu kernel perfdata unwind machine analysis"
)
bad=0
for f in src/*/*.[ch] src/*/*.def; do
  [ -e "$f" ] || continue
  layer=$(basename "$(dirname "$f")")
  if [ -z "${allow[$layer]+set}" ]; then
    echo "  $f: folder $layer has no rank in tests/scripts/layers.sh"; bad=$((bad + 1)); continue
  fi
  while read -r inc; do
    dep=${inc%%/*}
    [ "$dep" = "$layer" ] && continue
    ok=0
    for a in ${allow[$layer]}; do [ "$a" = "$dep" ] || [ "$a" = "$inc" ] && ok=1; done
    if [ "$ok" = 0 ]; then echo "  $f includes $inc"; bad=$((bad + 1)); fi
  done < <(sed -n 's/^#include "\([a-z]*\/[^"]*\)".*/\1/p' "$f")
done
if [ "$bad" = 0 ]; then echo "PASS layers/includes: every include goes to a layer below"
else echo "FAIL layers/includes: $bad includes break the layer table"; fi
# One mechanism, one place: the tools and their library are perf's user space.
# They never program the PMU, drive its interrupts or do the kernel's work
# (records, software events, the tick); they go through the machine's perf
# system calls.
direct=$(grep -nE 'ev67_pmu_[a-z_]+\(|ev67_(step|stall|create)\(|alpha_pmu_|perf_record_|perf_sw_event|perf_ctx_tick|perf_event_overflow|(^|[^_[:alnum:]])perf_event_open\(|os_run\(' src/tools/*.[ch] src/analysis/*.[ch])
if [ -z "$direct" ]; then echo "PASS layers/tools-are-clients: no tool programs the PMU or does the kernel's work"
else echo "FAIL layers/tools-are-clients: $(head -3 <<<"$direct")"; fi
