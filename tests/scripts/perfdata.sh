#!/usr/bin/env bash
# perf.data written by src/perfdata against Debian's perf 6.1, and perf's own
# files against src/perfdata's reader:
#  - the demo file ($BUILD/unit/test_perfdata write): COMM, MMAP2 of an Alpha
#    build of tests/guest/int_arith.c, 240 SAMPLEs of two events (cycles, and
#    profileme with ProfileMe raw payloads), arch "alpha". perf report --stdio,
#    perf script, perf script -D, --header-only and buildid-list must exit 0
#    with no "fail"/"error"/"invalid" on stderr, name both events and resolve
#    the binary's symbols; the reader must read the same records back;
#  - a writer that stops without closing: both perf and the reader say so;
#  - the committed x86 fixtures (tests/perfdata/*.data, recorded by perf 6.1):
#    our sample counts must equal perf report -D's;
#  - live `perf record` of cpu-clock, task-clock and both, when the host lets
#    perf record (otherwise a note says why: the fixtures stand in).
# One PASS/FAIL line per check. Environment: BUILD, ALPHA_CC, PERF.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
T=$BUILD/unit/test_perfdata
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
PERF=${PERF:-perf}
out=$BUILD/perfdata
mkdir -p "$out"

if [ ! -x "$T" ]; then echo "FAIL perfdata: $T not built (make unit)"; exit 1; fi
if ! command -v "$PERF" >/dev/null; then
  echo "FAIL perfdata: $PERF not installed (scripts/setup.sh installs linux-perf)"; exit 1
fi

# run_perf NAME ARGS...: runs perf ARGS; stdout in $out/NAME.out, stderr in
# $out/NAME.err. Returns 1 (after a FAIL line) on a non-zero exit status or a
# stderr that mentions a failure, an error or something invalid.
run_perf() {
  local name=$1; shift
  "$PERF" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL perfdata/$name: perf $* exited with status $rc"
    head -5 "$out/$name.err" | sed 's/^/  | /'; return 1
  fi
  if grep -Eiq 'fail|error|invalid' "$out/$name.err"; then
    echo "FAIL perfdata/$name: perf $* complained"
    grep -Ei 'fail|error|invalid' "$out/$name.err" | head -5 | sed 's/^/  | /'; return 1
  fi
  return 0
}

# check NAME WHAT...: PASS if WHAT is empty, else FAIL listing it.
check() {
  local name=$1; shift
  if [ $# -eq 0 ]; then echo "PASS perfdata/$name"; else echo "FAIL perfdata/$name: $*"; fi
}

# perf_samples FILE: the number of SAMPLE records perf report -D sees.
perf_samples() { "$PERF" report -D -i "$1" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE('; }

# ---- the demo file ----
bin=$out/int_arith
demo=$out/demo.data
if ! "$CC" -O1 -fno-inline -o "$bin" tests/guest/int_arith.c 2>"$out/cc.err"; then
  echo "FAIL perfdata/alpha-binary: $CC failed"; head -5 "$out/cc.err"; exit 1
fi
if ! "$T" write "$demo" "$bin" >"$out/syms" 2>"$out/write.err"; then
  echo "FAIL perfdata/write: $(cat "$out/write.err")"; exit 1
fi
mapfile -t syms < <(sed -n 's/^sym //p' "$out/syms")
echo "PASS perfdata/write: $(stat -c %s "$demo") bytes, symbols ${syms[*]}"
"$T" verify "$demo" "$bin"

if run_perf report report -i "$demo" --stdio; then
  miss=()
  for ev in cycles profileme; do
    grep -q "of event '$ev'" "$out/report.out" || miss+=("no event $ev")
  done
  for s in "${syms[@]}"; do
    grep -q "\[\.\] $s *\$" "$out/report.out" || miss+=("no symbol $s")
  done
  check "report: events cycles and profileme, symbols ${syms[*]}" "${miss[@]}"
fi

if run_perf script script -i "$demo"; then
  miss=()
  n=$(grep -c ' profileme: ' "$out/script.out"); [ "$n" -eq 80 ] || miss+=("$n profileme samples, want 80")
  n=$(grep -c ' cycles: ' "$out/script.out"); [ "$n" -eq 160 ] || miss+=("$n cycles samples, want 160")
  grep -q " main+0x[0-9a-f]* ($bin)" "$out/script.out" || miss+=("no main+offset ($bin)")
  check "script: 80 profileme and 160 cycles samples with symbols" "${miss[@]}"
fi

if run_perf script-D script -i "$demo" -D; then
  miss=()
  n=$(grep -c 'PERF_RECORD_SAMPLE(' "$out/script-D.out"); [ "$n" -eq 240 ] || miss+=("$n samples, want 240")
  grep -q "PERF_RECORD_MMAP2 4242/4242: .* r-xp $bin" "$out/script-D.out" || miss+=("no MMAP2 of $bin")
  grep -q 'PERF_RECORD_COMM exec: int_arith:4242/4242' "$out/script-D.out" || miss+=("no COMM")
  grep -q 'PERF_RECORD_EXIT(4242:4242)' "$out/script-D.out" || miss+=("no EXIT")
  grep -Eiq 'unhandled|unknown|bad' "$out/script-D.out" && miss+=("perf says: $(grep -Ei -m1 'unhandled|unknown|bad' "$out/script-D.out")")
  check "script -D: 240 samples, COMM, MMAP2, EXIT" "${miss[@]}"
fi

if run_perf header report -i "$demo" --header-only; then
  miss=()
  for want in '# arch : alpha' '# cpuid : EV67,21264A' '# event : name = cycles, , id = { 101, 102 }' \
              '# event : name = profileme, , id = { 201, 202 }, type = 4' '# nrcpus online : 2' \
              '# cmdline : profileme record' '# time of first sample : 1.000000'; do
    grep -qF "$want" "$out/header.out" || miss+=("no \"$want\"")
  done
  check "header-only: arch, cpuid, events with ids, nrcpus, cmdline, sample time" "${miss[@]}"
fi

if run_perf buildid buildid-list -i "$demo"; then
  want=$(alpha-linux-gnu-readelf -n "$bin" 2>/dev/null | sed -n 's/.*Build ID: //p')
  miss=()
  grep -qx "$want $bin" "$out/buildid.out" || miss+=("got \"$(head -1 "$out/buildid.out")\", want \"$want $bin\"")
  check "buildid-list: the binary's GNU build-id" "${miss[@]}"
fi

# ---- an interrupted writer ----
partial=$out/partial.data
"$T" partial "$partial"
"$PERF" report -i "$partial" --stdio >/dev/null 2>"$out/partial.err"
msg=$("$T" dump "$partial" 2>&1)
miss=()
grep -q 'properly terminated' "$out/partial.err" || miss+=("perf did not say the file was unfinished")
grep -q 'did not finish' <<<"$msg" || miss+=("reader: $msg")
check "partial: perf and the reader both call it unfinished" "${miss[@]}"

# ---- perf's own files ----
# read_x86 NAME FILE EVENTS...: our reader against perf report -D on FILE.
read_x86() {
  local name=$1 file=$2; shift 2
  local d miss=() want got i=0
  d=$("$T" dump "$file" 2>&1)
  want=$(perf_samples "$file")
  got=$(sed -n 's/^records [0-9]* samples \([0-9]*\) .*/\1/p' <<<"$d")
  [ "$got" = "$want" ] || miss+=("$got samples read, perf report -D counts $want")
  grep -q 'errors 0$' <<<"$d" || miss+=("$(grep -m1 '^error' <<<"$d")")
  for ev; do
    grep -q "^event $i $ev " <<<"$d" || miss+=("event $i is not $ev")
    i=$((i + 1))
  done
  check "$name: $* ($want samples)" "${miss[@]}"
}
read_x86 fixture-cpu-clock tests/perfdata/x86-cpu-clock.data cpu-clock
read_x86 fixture-cpu-task-clock tests/perfdata/x86-cpu-task-clock.data cpu-clock task-clock

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')
if "$PERF" record -q -N -e cpu-clock -o "$out/live-probe.data" -- true >/dev/null 2>"$out/live.err"; then
  for ev in cpu-clock task-clock; do
    "$PERF" record -q -N -e "$ev" -o "$out/live-$ev.data" -- /bin/true >/dev/null 2>&1
    read_x86 "live-$ev" "$out/live-$ev.data" "$ev"
  done
  "$PERF" record -q -N -e cpu-clock -e task-clock -c 100000 -o "$out/live-both.data" -- \
    sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' >/dev/null 2>&1
  read_x86 live-cpu-and-task-clock "$out/live-both.data" cpu-clock task-clock
else
  echo "perfdata: host perf record unavailable (perf_event_paranoid $paranoid, uid $(id -u)):" \
       "$(head -1 "$out/live.err"); the committed fixtures stand in"
fi
