#!/usr/bin/env bash
# The DWARF unwinder on real Alpha programs: each tests/unwind/NAME.c is built
# dynamic, static and as a PIE (-O2, CFI as GCC emits it), and calls.c also at
# -O0 (every function with a frame pointer), into $BUILD/unwind/, and
# $BUILD/unit/test_unwind runs them on the functional machine, sampling every
# 211th instruction and comparing each unwind with the true call stack (see
# tests/unit/test_unwind.c). Needs alpha-linux-gnu-gcc and the Alpha sysroot.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
sysroot=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
out=$BUILD/unwind
mkdir -p "$out"
if ! command -v "$CC" >/dev/null || [ ! -d "$sysroot/lib" ]; then
  echo "FAIL unwind: needs $CC and $sysroot"; exit 1
fi
[ -x "$BUILD/unit/test_unwind" ] || { echo "FAIL unwind: $BUILD/unit/test_unwind not built (make unit)"; exit 1; }
progs=()
for src in tests/unwind/*.c; do
  name=$(basename "$src" .c)
  for v in dyn static pie; do
    bin=$out/$name.$v
    flags=()
    case $v in static) flags=(-static -Wl,--no-relax) ;; pie) flags=(-fPIE -pie) ;; esac
    if ! alpha_cc "$bin" "$src" -O2 "${flags[@]}" -lpthread 2>/dev/null; then
      echo "FAIL unwind/$name.$v: does not build: $(head -3 "$bin.log")"; continue
    fi
    progs+=("$bin")
  done
done
# -O0: r15 is the CFA register everywhere, which perf cannot sample.
bin=$out/calls.O0
alpha_cc "$bin" tests/unwind/calls.c -O0 2>/dev/null || echo "FAIL unwind/calls.O0: does not build"
"$BUILD/unit/test_unwind" "$sysroot" "${progs[@]}" -m40 "$bin"
