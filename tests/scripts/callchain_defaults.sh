#!/usr/bin/env bash
# Dwarf-mode call chains with the user's literal command and perf's defaults
# (cycles:p, 4000 Hz frequency mode, 8 KB stacks, 64 ring pages of 8 KB):
#   profileme record --call-graph dwarf -- ./PROG N
# with --callchain-truth added so that $BUILD/unit/test_cgtruth can compare
# every sample with the machine's true stack. PROG is each tests/unwind/NAME.c
# built dynamic, the worst case: ld.so relocates at start-up in
# _dl_relocate_object, whose frame has its CFA on r15 (alloca), which dwarf
# mode cannot sample, and frequency mode takes its first, short-period samples
# there; so every dynamic process begins with about two marked truncations,
# however long it runs. N makes each run last some 120 ms of guest time
# (about 480 samples): the share checked, at least 99% exactly the true stack
# over the three (measured 99.31%, 1,441 of 1,451), holds from there on; a
# 5 ms run of 25 samples gets 92%. No sample may have a wrong frame, and
# every truncation must be marked, and each file gets at least 98% (measured
# 99.16-99.58%), all checked by test_cgtruth. Under a sanitizer build
# (BUILD=*san*) the runs are five times shorter (some 100 samples each, a
# sanitized run is about five times slower): 95% per file (measured
# 97.25-99.03%) and no overall figure. Needs the Alpha cross compiler.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
sysroot=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
out=$BUILD/callchain_defaults
mkdir -p "$out" "$BUILD/unwind"
check=$BUILD/unit/test_cgtruth
[ -x "$check" ] || { echo "FAIL callchain_defaults: $check not built (make unit)"; exit 1; }
[ -d "$sysroot/lib" ] || { echo "FAIL callchain_defaults: needs $sysroot"; exit 1; }
scale=1 overall=1 min=98
case $BUILD in *san*) scale=5 overall=0 min=95 ;; esac
log=$out/all.log
: >"$log"
for w in calls:300 signals:7000 threads:170; do
  name=${w%%:*} n=$(( ${w#*:} / scale ))
  bin=$BUILD/unwind/$name.dyn
  alpha_cc "$bin" "tests/unwind/$name.c" -O2 -lpthread 2>/dev/null ||
    { echo "FAIL callchain_defaults/$name: does not build: $(head -2 "$bin.log")"; continue; }
  d=$out/$name
  rm -f "$d.data" "$d.truth"
  if ! "$PROFILEME" record --call-graph dwarf --callchain-truth "$d.truth" -o "$d.data" -- "$bin" "$n" \
       >/dev/null 2>"$d.err"; then
    echo "FAIL callchain_defaults/$name: record failed: $(head -2 "$d.err")"; continue
  fi
  "$check" "$name.dyn" "$d.data" "$d.truth" "$min" | tee -a "$log" | sed 's/^\(PASS\|FAIL\) /\1 callchain_defaults\//'
done
[ "$overall" = 1 ] || exit 0
cg_overall callchain_defaults/overall "dwarf, unwound from regs+stack" 990 1200 "$log"
