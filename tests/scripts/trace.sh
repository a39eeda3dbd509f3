#!/usr/bin/env bash
# The trace unit on real programs (docs/trace.md): static Alpha programs run
# on the functional and the timed machine with the unit on, its half-full
# interrupt dumping through the firmware; $BUILD/unit/test_trace decodes the
# streams against each program's code and compares the per-PC counts with
# the executor's own record of a second run (tests/unit/test_trace.c), first
# with the firmware driven directly, then through perf (trace//, AUX area).
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
sysroot=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
out=$BUILD/trace
mkdir -p "$out"
T=$BUILD/unit/test_trace
[ -x "$T" ] || { echo "FAIL trace: $T not built (make unit)"; exit 1; }
progs=()
for src in tests/guest/calls.c tests/guest/sig_basic.c tests/guest/sig_fault.c tests/guest/setjmp_longjmp.c \
           tests/guest/threads_sync.c tests/guest/fork_wait.c; do
  bin=$out/$(basename "$src" .c)
  if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
    "${ALPHA_CC:-alpha-linux-gnu-gcc}" -O2 -static -Wl,--no-relax -o "$bin" "$src" -lpthread 2>"$bin.log" ||
      { echo "FAIL trace/$(basename "$bin"): does not build"; continue; }
  fi
  progs+=("$bin")
done
# The programs' own output is not the test's: only check and figure lines.
{
  "$T" "$sysroot" --functional "${progs[@]}"
  "$T" "$sysroot" --timed "$out/calls" "$out/sig_basic" "$out/sig_fault"
  "$T" "$sysroot" --cpus=2 --functional "$out/threads_sync" "$out/fork_wait"
  # The whole path as a tool sees it: trace// opened, ring and AUX mapped,
  # AUX records read at every poll, the drain until the count is 0.
  "$T" "$sysroot" --perf --functional "$out/calls" "$out/sig_basic" "$out/sig_fault" "$out/setjmp_longjmp" "$out/fork_wait"
  "$T" "$sysroot" --perf --timed "$out/calls" "$out/sig_fault"
  "$T" "$sysroot" --perf --cpus=2 --functional "$out/threads_sync" "$out/fork_wait"
} 2>&1 | grep -E '^(PASS|FAIL|trace )'
exit "${PIPESTATUS[0]}"
