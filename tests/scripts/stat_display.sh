#!/usr/bin/env bash
# stat's output in perf stat 6.1's layout (util/stat-display.c,
# stat-shadow.c), against Debian's perf itself on the host: the clock events
# in msec with "CPUs utilized", counts with a rate per second when a clock
# is counted, instructions with "insn per cycle"; the same columns, line
# lengths and CSV fields as perf's own lines for the same events. And the
# analytical values: one task running all the time uses 1.000 CPUs; two
# CPUs counted system-wide 2.000; cycles per task-clock second are the
# clock, 0.667 GHz. Environment: BUILD, PERF.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/stat_display
PERF=${PERF:-perf}
mkdir -p "$out"
cd "$out" || exit 1
alpha_static "$root/tests/timing/dsweep.c" "$out/dsweep" || { echo "FAIL stat-display/build: cannot build dsweep"; exit 1; }
EV=task-clock,cpu-clock,page-faults,context-switches
"$PROFILEME" stat -e $EV,cycles,instructions -- ./dsweep 100000 >/dev/null 2>ours.txt
"$PROFILEME" stat -x, -e $EV,cycles,instructions -- ./dsweep 100000 >/dev/null 2>ours.csv

# line NAME FILE: the line of event NAME (its name as a word)
line() { grep -E "^ +[0-9.,]+ +(msec )? *$1 " "$2" | head -1; }
# shape LINE NAME: where the unit, the name, the # and the metric's unit
# start, and the line's length (trailing blanks included, as perf pads)
shape() { awk -v n="$2" '{ printf "%d %d %d %d", index($0, " msec ") ? index($0, " msec ") : 0, index($0, " " n " "), index($0, " # "), length($0) }' <<<"$1"; }

if ! command -v "$PERF" >/dev/null; then
  echo "FAIL stat-display/perf: $PERF not installed (scripts/setup.sh installs linux-perf)"
elif ! "$PERF" stat -e $EV -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>perf.txt ||
     ! "$PERF" stat -x, -e $EV -- true >/dev/null 2>perf.csv; then
  echo "FAIL stat-display/perf: perf stat cannot count software events here: $(head -c 200 perf.txt)"
else
  for ev in task-clock cpu-clock page-faults context-switches; do
    p=$(line $ev perf.txt); o=$(line $ev ours.txt)
    ps=$(shape "$p" $ev); os=$(shape "$o" $ev)
    pf=$(grep -E ",$ev," perf.csv | awk -F, '{ print NF, $2, $NF }'); of=$(grep -E ",$ev," ours.csv | awk -F, '{ print NF, $2, $NF }')
    # the metric's unit: K/sec, M/sec... may differ in its prefix
    pu=$(sed 's/.* # *[0-9.]* //; s/ *$//; s/^[KMG]//' <<<"$p"); ou=$(sed 's/.* # *[0-9.]* //; s/ *$//; s/^[KMG]//' <<<"$o")
    if [ -n "$p" ] && [ "$ps" = "$os" ] && [ "$pu" = "$ou" ] && [ "${pf/[KMG]\/sec//sec}" = "${of/[KMG]\/sec//sec}" ]; then
      echo "PASS stat-display/as-perf-$ev: columns $os, metric '$ou', CSV '$of' as perf's"
    else
      echo "FAIL stat-display/as-perf-$ev: perf '$p' ($ps, $pf) / ours '$o' ($os, $of)"
    fi
  done
fi

# The values: a single task runs all the time (1.000 CPUs utilized); the
# task-clock in msec is the elapsed time; cycles per task-clock nanosecond
# are the 667 MHz clock.
tc=$(line task-clock ours.txt); el=$(awk '/seconds time elapsed/ { print $1 }' ours.txt)
cy=$(line cycles ours.txt)
if grep -q '#    1.000 CPUs utilized' <<<"$tc" && grep -q '#    0.667 GHz' <<<"$cy" &&
   awk -v t="$(awk '{ print $1 }' <<<"$tc")" -v e="$el" 'BEGIN { exit !(t > 0 && (t / 1000 - e) < 0.000006 && (e - t / 1000) < 0.000006) }'; then
  echo "PASS stat-display/values: $(awk '{ print $1, $2 }' <<<"$tc") task-clock over $el s elapsed: 1.000 CPUs; cycles at 0.667 GHz"
else echo "FAIL stat-display/values: '$tc' / elapsed $el / '$cy'"; fi
"$PROFILEME" stat --cpus 2 -a -e cpu-clock -- ./dsweep 100000 >/dev/null 2>sys.txt
if grep -q '#    2.000 CPUs utilized' <<<"$(line cpu-clock sys.txt)" && grep -q "for 'system wide'" sys.txt; then
  echo "PASS stat-display/system-wide: 2 CPUs counted system-wide: 2.000 CPUs utilized"
else echo "FAIL stat-display/system-wide: $(line cpu-clock sys.txt)"; fi
if grep -q "^ Performance counter stats for './dsweep 100000':" ours.txt; then
  echo "PASS stat-display/header: the command line, as perf"
else echo "FAIL stat-display/header: $(grep 'Performance counter' ours.txt)"; fi
