# Sourced by the test groups of the perf-tools series
# (tests/scripts/linux_perf_series*.sh), not run: the patched perfs, the
# workloads, and perf run in the machine. Needs common.bash sourced first.

# series_setup NAME [OPTIONS]: runs tests/thirdparty/perf-series.sh with
# OPTIONS (its output in $series_out; a checkpatch error, its status 2, is
# left to the caller) and sets out ($BUILD/NAME, emptied), AD (the patched Alpha
# entry), AP (its static perf), AOBJDUMP (its Alpha objdump), HD and HP (the
# patched host perf), builds the workloads into $BUILD/linux_perf_series_work
# (W): pmwork (tests/linuxperf/pmwork.c, static) and callchain
# (tests/linuxperf/callchain.c, -O2: with a frame pointer, -O0 code cannot be
# unwound without r15, which Alpha cannot sample), and changes into $out.
# Prints FAIL NAME/build and returns 1 when something cannot be had.
series_setup() {
  local name=$1 rc; shift
  out=$BUILD/$name
  rm -rf "$out" && mkdir -p "$out"
  series_out=$(bash "$root/tests/thirdparty/perf-series.sh" "$@" 2>"$out/build.err")
  rc=$?
  if [ $rc != 0 ] && [ $rc != 2 ]; then
    echo "FAIL $name/build: tests/thirdparty/perf-series.sh failed: $(tail -n 3 "$out/build.err" | tr '\n' ' ')"
    return 1
  fi
  grep -E '^linuxperf(-host)?: (cached|built)' "$out/build.err" | sort -u
  AD=$(sed -n 's/^alpha=//p' <<<"$series_out") HD=$(sed -n 's/^host=//p' <<<"$series_out")
  AP=$AD/bin/perf AOBJDUMP=$AD/bin/objdump HP=$HD/bin/perf
  W=$BUILD/linux_perf_series_work
  mkdir -p "$W"
  alpha_cc "$W/pmwork" "$root/tests/linuxperf/pmwork.c" -O2 -g -static -Wl,--no-relax &&
    alpha_cc "$W/callchain" "$root/tests/linuxperf/callchain.c" -O2 -g ||
    { echo "FAIL $name/build: cannot build the workloads"; return 1; }
  cd "$out" || return 1
}

# A fixed environment: perf's output does not depend on the host's.
series_env=(env -i PATH=/usr/bin:/bin LC_ALL=C)

# guest [RUN-OPTIONS...] -- PERF-ARGS...: the patched Alpha perf in the
# machine, in the current directory, HOME there too.
guest() {
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  "${series_env[@]}" HOME="$PWD" timeout -k 5 300 "$PROFILEME" run "${opts[@]}" -- "$AP" "$@"
}

# host_perf ARGS...: the patched host perf, in the same fixed environment.
host_perf() { "${series_env[@]}" HOME="$PWD" "$HP" "$@"; }

# no_tip FILE: FILE without the help line perf report closes with ("#",
# "# (Tip: ...)" or "# (Cannot load tips.txt file...)", "#").
no_tip() {
  awk '{ l[NR] = $0 } END { n = NR; if (n >= 3 && l[n - 1] ~ /^# \(/ && l[n] == "#" && l[n - 2] == "#") n -= 3
       for (i = 1; i <= n; i++) print l[i] }' "$1"
}

# dump_records FILE: a -D dump as its records, one a line (a record's lines
# joined by \x1f), sorted: the same dump whatever the order of its records.
# perf prints the user records (FINISHED_ROUND...) as it reads them and the
# others as its ordered-events queue flushes; profileme prints in time order.
# What comes before the first record and report's closing stats are records
# of their own; the blank lines between records go.
dump_records() {
  awk 'function out() { sub(/(\x1f)+$/, "", b); print b }
       BEGIN { b = "head" }
       /^0x[0-9a-f]+@/ || /^Aggregated stats:$/ { out(); b = "" }
       { b = b "\x1f" $0 }
       END { out() }' "$1" | LC_ALL=C sort
}
