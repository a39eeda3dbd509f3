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
# totals must be those. Not checked: the web app's rendering in a browser
# (docs/callgraph.md says why).
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
if [ ! -x "$bin" ] || [ tests/unwind/threads.c -nt "$bin" ]; then
  "$CC" -O2 -o "$bin" tests/unwind/threads.c -lpthread 2>"$out/cc.log" ||
    { echo "FAIL firefox_profiler: threads.c does not build: $(head -2 "$out/cc.log")"; exit 1; }
fi
export PROFILER_CLI_SESSION_DIR=$out/sessions PROFILER_CLI_NO_SYMBOLICATE=1
mkdir -p "$PROFILER_CLI_SESSION_DIR"
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
  # The profiler's daemon, started here (its `load` gives a starting daemon
  # only 500 ms), then asked until it has the profile.
  sess=pm$$$mode
  "$cli" --daemon "$d.txt" --session "$sess" >"$d.daemon.log" 2>&1 &
  dpid=$!
  ok=
  for _ in $(seq 1 150); do
    if "$cli" thread list --session "$sess" --limit 0 --json >"$d.threads.json" 2>/dev/null &&
       python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$d.threads.json" 2>/dev/null; then
      ok=1; break
    fi
    kill -0 "$dpid" 2>/dev/null || break
    sleep 0.2
  done
  if [ -z "$ok" ]; then
    echo "FAIL firefox_profiler/$mode: the profiler did not load $d.txt: $(tail -3 "$PROFILER_CLI_SESSION_DIR/$sess.log" 2>/dev/null | tr '\n' ' ')"
    kill "$dpid" 2>/dev/null; continue
  fi
  : >"$d.got"; : >"$d.got_fn"
  for h in $(python3 -c 'import json, sys; print(" ".join(t["threadHandle"] for t in json.load(open(sys.argv[1]))["threads"]))' "$d.threads.json"); do
    "$cli" thread info --session "$sess" --thread "$h" --json >"$d.info.json" 2>/dev/null
    "$cli" thread functions --session "$sess" --thread "$h" --limit 0 --json >"$d.fn.json" 2>/dev/null
    python3 - "$d.info.json" "$d.fn.json" "$bin" >>"$d.got" 2>>"$d.got_fn.err" <<'EOF'
import json, sys
info, fns = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
print(info["name"], info["tid"], info["sampleCount"])
with open(sys.argv[2] + ".names", "a") as o:
    for f in fns["functions"]:
        if f["name"] in ("main", "work", "cmp") and f.get("library", "").endswith("/" + sys.argv[3].split("/")[-1]):
            o.write("%d %s %d\n" % (info["tid"], f["name"], f["totalSamples"]))
EOF
  done
  sort "$d.fn.json.names" >"$d.got_fn" 2>/dev/null; rm -f "$d.fn.json.names"
  sort -o "$d.got" "$d.got"
  "$cli" stop "$sess" >/dev/null 2>&1
  wait "$dpid" 2>/dev/null
  nthr=$(wc -l <"$d.want")
  if [ "$nthr" -ge 4 ] && diff -q "$d.want" "$d.got" >/dev/null; then
    echo "PASS firefox_profiler/$mode-threads: $nthr threads named and numbered as perf reads them, samples per thread $(awk '{ printf "%s ", $3 }' "$d.got")"
  else
    echo "FAIL firefox_profiler/$mode-threads: want $(tr '\n' ';' <"$d.want") got $(tr '\n' ';' <"$d.got")"
  fi
  if grep -q ' cmp ' "$d.want_fn" && grep -q ' main ' "$d.want_fn" && diff -q "$d.want_fn" "$d.got_fn" >/dev/null; then
    echo "PASS firefox_profiler/$mode-functions: main, work and cmp in the stacks of as many samples per thread as the script shows ($(wc -l <"$d.got_fn") thread/function pairs)"
  else
    echo "FAIL firefox_profiler/$mode-functions: want $(tr '\n' ';' <"$d.want_fn") got $(tr '\n' ';' <"$d.got_fn")"
  fi
done
