#!/usr/bin/env bash
# The ProfileMe series' stress runs on two CPUs: "62 runs that mix sampling,
# filters, context switches and multiplexing, with no warnings", and sampling
# every 10000 instructions 66 times. Each run must end by itself (a timeout
# is a hang) with status 0, print nothing on stderr (-q: any line is a
# warning), write a file our report and Linux perf both read, and account for
# every lost sample: the LOST records perf finds are the ones record reported.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/stress
mkdir -p "$out"
cd "$out"
for p in spin2 forkwork sys2; do
  alpha_static "$root/tests/smp/$p.c" "$out/$p" || { echo "FAIL stress/build: cannot build $p"; exit 0; }
done

# The mix, one configuration per line: record options | workload.
mix=(
  "-e cycles:p -c 4001|./spin2 100000"
  "-e cpu/event=1,profileme=1,config1=2/ -c 2003|./forkwork 20000"
  "-e cycles -e instructions -e cache-misses -e mbox-replays -c 20011|./spin2 100000"
  "-e context-switches -c 1 -e cycles:p -c 4001|./sys2 2000"
  "-e cpu/event=1,profileme=1,config1=4/ -c 1009|./forkwork 20000"
  "-a -e cycles:pp -c 4001|./forkwork 20000"
  "-e cycles:p|./spin2 100000"
  "-C 1 -e instructions -e cycles -e bcache-misses -c 10007|./sys2 2000"
)

# run_one NAME OPTIONS WORKLOAD...: one recording and its checks; prints
# nothing on success, else a reason.
run_one() {
  local opts=$1; shift
  rm -f s.data
  timeout 120 "$PROFILEME" record -q --cpus 2 --privileged $opts -o s.data -- "$@" >/dev/null 2>s.err
  local st=$?
  if [ "$st" = 124 ]; then echo "hang (timed out after 120 s)"; return; fi
  if [ "$st" != 0 ]; then echo "status $st: $(head -c 200 s.err)"; return; fi
  if [ -s s.err ]; then echo "stderr: $(head -c 200 s.err)"; return; fi
  "$PROFILEME" report -i s.data --stdio >/dev/null 2>s.rep || { echo "our report failed: $(head -c 200 s.rep)"; return; }
  local lost
  lost=$(perf report -i s.data --stats 2>/dev/null | awk '$1 == "LOST" && $2 == "events:" { print $3; exit }')
  [ -z "$lost" ] || [ "$lost" = 0 ] || echo "$lost LOST records (record -q says nothing of them)"
}

bad=0 first=
for ((i = 0; i < 62; i++)); do
  IFS='|' read -r opts prog <<<"${mix[i % ${#mix[@]}]}"
  why=$(run_one "$opts" $prog)
  if [ -n "$why" ]; then
    bad=$((bad + 1))
    [ -n "$first" ] || first="run $i ($opts $prog): $why"
  fi
done
if [ "$bad" = 0 ]; then echo "PASS stress/mix-62-runs: 62 runs of ${#mix[@]} configurations on 2 CPUs, no warning, no hang"
else echo "FAIL stress/mix-62-runs: $bad of 62 runs failed; first: $first"; fi

bad=0 first=
for ((i = 0; i < 66; i++)); do
  why=$(run_one "-e instructions -c 10000 --seed $i" ./spin2 50000)
  if [ -n "$why" ]; then
    bad=$((bad + 1))
    [ -n "$first" ] || first="run $i: $why"
  fi
done
if [ "$bad" = 0 ]; then echo "PASS stress/every-10000-instructions-66-runs: 66 clean runs on 2 CPUs"
else echo "FAIL stress/every-10000-instructions-66-runs: $bad of 66 failed; first: $first"; fi

# A LOST record is never silent: a ring too small for the rate (here 8 KB of
# data, sampling every 211 fetched instructions, throttling off) loses
# samples, and record reports exactly the count perf finds in the file.
rm -f l.data
"$PROFILEME" record --cpus 2 --privileged --mmap-pages 1 -e cycles:p -c 211 -o l.data -- ./spin2 200000 \
  >/dev/null 2>l.err
said=$(sed -n 's/.* \([0-9][0-9]*\) samples lost in \([0-9][0-9]*\) LOST records.*/\1 \2/p' l.err)
found=$(perf report -i l.data --stats 2>/dev/null | awk '$1 == "LOST" && $2 == "events:" { n = $3 } END { print n + 0 }')
lostsum=$(perf script -i l.data -D 2>/dev/null | awk '/PERF_RECORD_LOST:/ {
  for (i = 1; i <= NF; i++) if ($i ~ /^lost:[0-9]+$/) s += substr($i, 6) } END { print s + 0 }')
set -- $said
if [ -n "$said" ] && [ "$2" = "$found" ] && [ "$1" = "$lostsum" ] && [ "$found" -gt 0 ]; then
  echo "PASS stress/lost-reported: record reports $1 samples lost in $2 LOST records, as perf finds them"
else echo "FAIL stress/lost-reported: record said '$said' ($(tail -n 1 l.err)); perf finds $found LOST records, $lostsum samples"; fi
