#!/usr/bin/env bash
# The Firefox Profiler reads `profileme script`: its own import and
# processing code (src/profile-logic: the perf script importer
# linux-perf.ts, the upgraders, the call tree), as Mozilla bundles it in
# @firefox-devtools/profiler-cli (scripts/setup.sh installs it with npm;
# without it this test is skipped), loads the script text of
# tests/unwind/threads.c (four threads sorting through qsort's comparator),
# recorded with --call-graph dwarf and with --unwind-at-record, and
# answers as the web app would show it. Checked against Linux perf's
# reading of the same perf.data (threads, tids, samples per thread) and
# against the script text (samples per thread whose stack holds main,
# work, cmp): the profiler's thread names, sample counts and per-function
# totals must be those. A control on x86-64: Linux perf's own `perf script`
# and ours of one `perf record --call-graph dwarf` file of
# tests/callgraph/cg.c give the profiler the same threads, sample counts
# and totals for every function of the program. Not checked: the web
# app's rendering in a browser (docs/callgraph.md says why).
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
cli=${FIREFOX_PROFILER_CLI:-$(command -v profiler-cli || true)}
if [ -z "$cli" ]; then
  echo "firefox_profiler: profiler-cli not installed (scripts/setup.sh installs it): not checked"; exit 0
fi
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
out=$BUILD/firefox_profiler
mkdir -p "$out" "$BUILD/unwind"
bin=$BUILD/unwind/threads.dyn
alpha_cc "$bin" tests/unwind/threads.c -O2 -lpthread 2>/dev/null ||
  { echo "FAIL firefox_profiler: threads.c does not build: $(head -2 "$bin.log")"; exit 1; }
export PROFILER_CLI_SESSION_DIR=$out/sessions PROFILER_CLI_NO_SYMBOLICATE=1
mkdir -p "$PROFILER_CLI_SESSION_DIR"

# The profiler's answers for one thread: "name tid samples" to OUT.got and
# "tid function total" to OUT.got_fn for the functions of the library
# whose path ends in /LIB.
summarize() {
  python3 - "$@" <<'PY'
import json, sys
info, fns, lib, o = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
with open(o + ".got", "a") as f:
    f.write("%s %d %d\n" % (info["name"], info["tid"], info["sampleCount"]))
with open(o + ".got_fn", "a") as f:
    for fn in fns["functions"]:
        if fn.get("library", "").endswith("/" + lib):
            f.write("%d %s %d\n" % (info["tid"], fn["name"], fn["totalSamples"]))
PY
}

# ffp_load TEXT LIB OUT: loads TEXT into the profiler (a daemon started
# here: its `load` gives a starting daemon only 500 ms) and writes OUT.got
# and OUT.got_fn, sorted. Returns 1 when the profile did not load. The
# client is first run once the daemon's log says it has the profile (after
# it published its socket and session file): a client that finds no session
# file deletes the session's files, socket included (profiler-cli 0.10's
# cleanup of a daemon that failed to start), and if the daemon wrote them in
# between, no client ever reaches it (seen on a loaded host, when this loop
# asked from the start: no client connected in two minutes).
ffp_load() {
  local text=$1 lib=$2 o=$3 sess=pm$$.${3##*/} dpid h
  local slog=$PROFILER_CLI_SESSION_DIR/$sess.log
  "$cli" --daemon "$text" --session "$sess" >"$o.daemon.log" 2>&1 &
  dpid=$!
  for _ in $(seq 1 600); do
    grep -q 'Profile loaded successfully' "$slog" 2>/dev/null && break
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -q 'Profile loaded successfully' "$slog" 2>/dev/null ||
     ! "$cli" thread list --session "$sess" --limit 0 --json >"$o.threads.json" 2>"$o.cli.err" ||
     ! python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$o.threads.json" 2>/dev/null; then
    echo "FAIL firefox_profiler/${o##*/}: the profiler did not load $text: $(tail -3 "$slog" 2>/dev/null | tr '\n' ' '); the client said: $(tail -2 "$o.cli.err" 2>/dev/null | tr '\n' ' ')"
    kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; return 1
  fi
  : >"$o.got"; : >"$o.got_fn"
  for h in $(python3 -c 'import json, sys; print(" ".join(t["threadHandle"] for t in json.load(open(sys.argv[1]))["threads"]))' "$o.threads.json"); do
    "$cli" thread info --session "$sess" --thread "$h" --json >"$o.info.json" 2>/dev/null
    "$cli" thread functions --session "$sess" --thread "$h" --limit 0 --json >"$o.fn.json" 2>/dev/null
    summarize "$o.info.json" "$o.fn.json" "$lib" "$o"
  done
  sort -o "$o.got" "$o.got"; sort -o "$o.got_fn" "$o.got_fn"
  "$cli" stop "$sess" >/dev/null 2>&1
  wait "$dpid" 2>/dev/null
  return 0
}

for mode in dwarf record; do
  extra=()
  [ $mode = record ] && extra=(--unwind-at-record)
  d=$out/threads.$mode
  if ! "$PROFILEME" record -q -F 50000 -m 256 --call-graph dwarf "${extra[@]}" -o "$d.data" "$bin" \
       >/dev/null 2>"$d.err"; then
    echo "FAIL firefox_profiler/$mode: record failed: $(head -2 "$d.err")"; continue
  fi
  "$PROFILEME" script -i "$d.data" >"$d.txt" 2>"$d.script.err" ||
    { echo "FAIL firefox_profiler/$mode: script failed"; continue; }
  # The expected answers: threads and samples per tid from Linux perf,
  # samples per tid holding each function from the script text.
  if command -v perf >/dev/null; then
    perf script -i "$d.data" -F comm,tid 2>/dev/null | awk '{ n[$1 " " $2]++ } END { for (k in n) print k, n[k] }' |
      sort >"$d.want"
  else
    awk 'BEGIN { RS = "" } { split($0, l, "\n"); split(l[1], h, " "); n[h[1] " " h[2]]++ }
         END { for (k in n) print k, n[k] }' "$d.txt" | sort >"$d.want"
  fi
  awk 'BEGIN { RS = "" } { split($0, l, "\n"); split(l[1], h, " ")
         for (f in seen) delete seen[f]
         for (i = 2; i in l; i++) { split(l[i], w, " "); sub(/\+0x[0-9a-f]+$/, "", w[2]); seen[w[2]] = 1 }
         for (f in seen) if (f == "main" || f == "work" || f == "cmp") n[h[2] " " f]++ }
       END { for (k in n) print k, n[k] }' "$d.txt" | sort >"$d.want_fn"
  ffp_load "$d.txt" "${bin##*/}" "$d" || continue
  grep -E '^[0-9]+ (main|work|cmp) ' "$d.got_fn" >"$d.got_fn3"
  nthr=$(wc -l <"$d.want")
  if [ "$nthr" -ge 4 ] && diff -q "$d.want" "$d.got" >/dev/null; then
    echo "PASS firefox_profiler/$mode-threads: $nthr threads named and numbered as perf reads them, samples per thread $(awk '{ printf "%s ", $3 }' "$d.got")"
  else
    echo "FAIL firefox_profiler/$mode-threads: want $(tr '\n' ';' <"$d.want") got $(tr '\n' ';' <"$d.got")"
  fi
  if grep -q ' cmp ' "$d.want_fn" && grep -q ' main ' "$d.want_fn" && diff -q "$d.want_fn" "$d.got_fn3" >/dev/null; then
    echo "PASS firefox_profiler/$mode-functions: main, work and cmp in the stacks of as many samples per thread as the script shows ($(wc -l <"$d.got_fn3") thread/function pairs)"
  else
    echo "FAIL firefox_profiler/$mode-functions: want $(tr '\n' ';' <"$d.want_fn") got $(tr '\n' ';' <"$d.got_fn3")"
  fi
done

# The x86-64 control: perf's script and ours of the same file, loaded alike.
if command -v perf >/dev/null && command -v cc >/dev/null; then
  x=$out/cg
  cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$x" tests/callgraph/cg.c 2>"$out/cg.log" &&
    perf record -q -e cpu-clock:u --call-graph dwarf -o "$x.data" -- "$x" 40 >/dev/null 2>&1 &&
    perf script -i "$x.data" >"$x.perf.txt" 2>/dev/null && "$PROFILEME" script -i "$x.data" >"$x.ours.txt" 2>/dev/null
  if [ -s "$x.perf.txt" ] && [ -s "$x.ours.txt" ]; then
    if ffp_load "$x.perf.txt" cg "$x.perf" && ffp_load "$x.ours.txt" cg "$x.ours"; then
      # PLT entries are left out on both sides: perf 6.1 misnames x86-64
      # libc's (see callgraph.sh)
      grep -v '@plt ' "$x.perf.got_fn" >"$x.perf.fn"; grep -v '@plt ' "$x.ours.got_fn" >"$x.ours.fn"
      if [ -s "$x.perf.got" ] && diff -q "$x.perf.got" "$x.ours.got" >/dev/null && grep -q ' main ' "$x.ours.fn" &&
         diff -q "$x.perf.fn" "$x.ours.fn" >/dev/null; then
        echo "PASS firefox_profiler/x86-64-as-perf-script: the same threads, $(awk '{ s += $3 } END { print s }' "$x.ours.got") samples and totals of $(wc -l <"$x.ours.fn") functions of cg as from perf script"
      else
        echo "FAIL firefox_profiler/x86-64-as-perf-script: $(diff "$x.perf.got" "$x.ours.got" | head -3 | tr '\n' ' ') $(diff "$x.perf.fn" "$x.ours.fn" | head -4 | tr '\n' ' ')"
      fi
    fi
  else
    echo "firefox_profiler: perf cannot record here: x86-64 control not run"
  fi
fi
