#!/usr/bin/env bash
# The analysis commands (report, annotate, script, mem report, dcpi) against
# answers known in advance, and against Linux perf where it is installed:
#  - tests/perfdata/tools_fixture.c writes a perf.data with the perfdata
#    writer: samples on chosen instructions of tests/perfdata/tools_hot.c
#    (built here for Alpha), a ProfileMe event with raw payloads, data sources,
#    data addresses and weights, a plain event, a second thread, kernel
#    samples, lost samples; and a file of answers (per-instruction status
#    counts, per-data-source weights), tallied from its own table;
#  - every command's output is checked against those answers (and report's
#    shares, which the fixture makes round), annotate's and dcpi's instruction
#    text against alpha-linux-gnu-objdump, report/script/-D against perf 6.1;
#  - perf.data files written by Linux perf on x86-64 (tests/perfdata/x86-*.data
#    and, when perf may record here, a live one): report and script run, count
#    what perf counts, and print the same lines for the symbols both resolve;
#  - malformed input and bad options: exit status 1 and 2 with a message.
# One PASS/FAIL line per check. Environment: BUILD, PROFILEME, ALPHA_CC, PERF.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
ACC=${ALPHA_CC:-alpha-linux-gnu-gcc}
PERF=${PERF:-perf}
out=$BUILD/tools-test
mkdir -p "$out"
P=$PROFILEME

pass() { echo "PASS tools/$1"; }
fail() { echo "FAIL tools/$1: $2"; }
# check NAME WANT GOT: equal strings; an empty WANT (an answer that could not
# be looked up) fails, so that two empty strings do not pass.
check() { if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "want [$2], got [$3]"; fi; }
# check_file NAME WANT-FILE GOT-FILE: equal files, the first differences shown.
check_file() {
  if diff -q "$2" "$3" >/dev/null; then pass "$1"; else fail "$1" "outputs differ"; diff "$2" "$3" | head -8 | sed 's/^/    /'; fi
}
have_perf() { command -v "$PERF" >/dev/null; }

if [ ! -x "$P" ]; then echo "FAIL tools: $P not built"; exit 1; fi

# ---- malformed input and options (no fixture needed) ----
head -c 100 /dev/zero | tr '\0' 'x' >"$out/garbage.data"
: >"$out/empty.data"
cmds=("report" "report -D" "annotate hot_loop" "script" "script -D" "mem report" "dcpi")
for cmd in "${cmds[@]}"; do
  for f in missing garbage empty; do
    # shellcheck disable=SC2086
    $P $cmd -i "$out/$f.data" >/dev/null 2>"$out/err.txt"
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q "$out/$f.data: ..*" "$out/err.txt"; then
      pass "error/${cmd// /-}/$f"
    else
      fail "error/${cmd// /-}/$f" "status $rc, stderr: $(head -c 200 "$out/err.txt")"
    fi
  done
  # shellcheck disable=SC2086
  $P $cmd --no-such-option >/dev/null 2>&1
  check "options/${cmd// /-}/bad-option-status" 2 $?
  # shellcheck disable=SC2086
  $P ${cmd%% *} $([ "$cmd" = "mem report" ] && echo report) --help >"$out/help.txt" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^usage: profileme' "$out/help.txt"; then pass "options/${cmd// /-}/help"
  else fail "options/${cmd// /-}/help" "status $rc"; fi
done
$P script -F comm,bogus -i "$out/garbage.data" >/dev/null 2>&1
check "options/script/bad-field" 2 $?
$P dcpi --by line >/dev/null 2>&1
check "options/dcpi/bad-by" 2 $?

# ---- the fixture ----
prog=$out/tools_hot
gen=$out/tools_fixture
data=$out/fixture.data
ans=$out/answers.txt
if ! command -v "$ACC" >/dev/null; then
  echo "tools: $ACC not installed, the fixture checks are skipped"
  exit 0
fi
if [ ! -f "$BUILD/libprofileme.a" ]; then echo "FAIL tools: $BUILD/libprofileme.a not built (make unit)"; exit 1; fi
"$ACC" -O1 -g -static -o "$prog" tests/perfdata/tools_hot.c || { echo "FAIL tools: cannot build tools_hot.c"; exit 1; }
san=   # a SAN=1 library needs the sanitizer runtimes
nm "$BUILD/libprofileme.a" 2>/dev/null | grep -q __asan_init && san="-fsanitize=address,undefined"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror $san -Isrc -o "$gen" tests/perfdata/tools_fixture.c \
  "$BUILD/libprofileme.a" -lelf -ldw -lm || { echo "FAIL tools: cannot build tools_fixture.c"; exit 1; }
"$gen" "$prog" "$data" "$ans" || { echo "FAIL tools: the fixture generator failed"; exit 1; }
pc() { awk -v n="$1" '$1 == "pc" && $2 == n { print $3 }' "$ans"; }
hex() { echo "${1#0x}"; }

# run NAME ARGS...: profileme ARGS on the fixture into $out/NAME.out; a
# non-zero status is a failure of check NAME.
run() {
  local name=$1; shift
  "$P" "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  [ "$rc" -eq 0 ] || fail "$name" "profileme $* exited with status $rc: $(head -c 200 "$out/$name.err")"
  return "$rc"
}

# ---- report ----
if run report report -i "$data" --stdio; then
  check report/samples "# Samples: 200  of event 'cycles:p'" "$(grep -m1 '^# Samples' "$out/report.out")"
  check report/event-count "# Event count (approx.): 200000" "$(grep -m1 '^# Event count' "$out/report.out")"
  check report/lost "# Total Lost Samples: 3" "$(grep -m1 '^# Total Lost' "$out/report.out")"
  cat >"$out/report.want" <<'EOF'
# Overhead  Command    Shared Object      Symbol           
# ........  .........  .................  .................
#
    75.00%  tools_hot  tools_hot          [.] hot_loop
    15.00%  tools_hot  tools_hot          [.] cold
     5.00%  tools_hot  tools_hot          [.] main
     3.00%  tools_hot  [kernel.kallsyms]  [k] entSys
     2.00%  tools_hot  [kernel.kallsyms]  [k] do_page_fault
EOF
  sed -n '/^# Overhead/,/^$/p' "$out/report.out" | sed -n 1,8p >"$out/report.got"
  check_file report/profileme-rows "$out/report.want" "$out/report.got"
  check report/plain-event "# Samples: 50  of event 'instructions'|80.00%|[.] hot_loop" \
    "$(awk '/of event .instructions./ { s = $0; f = 1 } f && /%  / { print s "|" $1 "|" $4, $5; exit }' "$out/report.out")"
fi
if run report-pid report -i "$data" --sort pid,sym -n; then
  check report/pid-sort "15.00% 30 4243:tools_hot [.] cold" \
    "$(grep -m1 'cold' "$out/report-pid.out" | tr -s ' ' | sed 's/^ //')"
fi
if run report-dso report -i "$data" --sort dso; then
  check report/dso-sort "95.00% tools_hot|5.00% [kernel.kallsyms]" \
    "$(grep '%  ' "$out/report-dso.out" | head -2 | tr -s ' ' | sed 's/^ //; s/ $//' | paste -sd'|')"
fi
if run report-comm report -i "$data" --comms tools_hot --sort comm,sym; then
  check report/comm-filter-elides "# comm: tools_hot|# Overhead  Symbol" \
    "$(grep -e '^# comm:' -e '^# Overhead' "$out/report-comm.out" | head -2 | sed 's/ *$//' | paste -sd'|')"
fi
if have_perf && "$PERF" report -i "$data" --stdio >"$out/perf-report.out" 2>/dev/null; then
  # perf resolves no kernel symbols for an Alpha file; compare the rest.
  # Column widths differ with the kernel rows: compare with blanks squeezed.
  grep -v -e '\[k\]' -e '(Tip' -e '^#$' "$out/perf-report.out" | grep -v -e '^# Overhead' -e '^# \.\.\.' |
    tr -s ' ' >"$out/perf-report.cmp"
  grep -v -e '\[k\]' -e '^#$' "$out/report.out" | grep -v -e '^# Overhead' -e '^# \.\.\.' | tr -s ' ' >"$out/report.cmp"
  check_file report/same-as-perf "$out/perf-report.cmp" "$out/report.cmp"
fi

# ---- annotate ----
objdump_insn() {   # the instruction text objdump prints at $1, spaces squeezed
  alpha-linux-gnu-objdump -d --start-address="$1" --stop-address=$(($1 + 4)) "$prog" 2>/dev/null |
    awk -F'\t' '/^ *[0-9a-f]+:\t/ { t = $3; if ($4 != "") t = t " " $4; print t }' | sed 's/ <.*//' | tr -s ' '
}
if run annotate annotate -i "$data" --stdio hot_loop; then
  # ProfileMe section: samples retired killed mispred trap dtbmiss unalign nyp per pc.
  for what in load store branch other; do
    a=$(pc "$what")
    want=$(awk -v a="$a" '$1 == "insn" && $2 == a { print $3, $4, $5, $6, $7, $8, $9, $12 }' "$ans")
    got=$(awk -v a="$(hex "$a")" '/of tools_hot for cycles:p/ { f = 1 } /of tools_hot for instructions/ { f = 0 }
          f && $0 ~ (" :   " a ":") { print $2, $3, $4, $5, $6, $7, $8, $9; exit }' "$out/annotate.out")
    check "annotate/counts-$what" "$want" "$got"
    text=$(awk -v a="$(hex "$a")" '$0 ~ (" :   " a ":") { sub(/.* :   [0-9a-f]+:   /, ""); print; exit }' "$out/annotate.out" |
           sed 's/ <.*//' | tr -s ' ')
    check "annotate/insn-$what" "$(objdump_insn "$a")" "$text"
  done
  check annotate/percent-load "40.00" \
    "$(awk -v a="$(hex "$(pc load)")" '$0 ~ (" :   " a ":") { print $1; exit }' "$out/annotate.out")"
  check annotate/plain-percent-branch "50.00" \
    "$(awk -v a="$(hex "$(pc branch)")" '/for instructions/ { f = 1 } f && $0 ~ (" :   " a ":") { print $1; exit }' "$out/annotate.out")"
  check annotate/source-line "11 s += buf[i & 255];" \
    "$(awk -v a="$(hex "$(pc load)")" '/^ +: [0-9]+ / { src = $0 } $0 ~ (" :   " a ":") { print src; exit }' "$out/annotate.out" |
       sed 's/^ *: //' | tr -s ' ')"
  check annotate/header "150 samples" \
    "$(grep -m1 'Disassembly of tools_hot for cycles:p' "$out/annotate.out" | grep -o '150 samples')"
fi
"$P" annotate -i "$data" no_such_symbol >/dev/null 2>&1
check annotate/unknown-symbol-status 1 $?

# ---- script ----
if run script script -i "$data"; then
  check script/lines 250 "$(wc -l <"$out/script.out")"
  printf -v want '%16s %5d [000] %12s: %10d %12s:  %16s hot_loop+0x%x (%s)' tools_hot 4242 0.002000 1000 cycles:p \
    "$(hex "$(pc load)")" $(($(pc load) - $(alpha-linux-gnu-nm "$prog" | awk '$3 == "hot_loop" { print "0x" $1 }'))) "$prog"
  check script/first-line "$want" "$(head -1 "$out/script.out")"
  check script/second-thread 30 "$(grep -c ' 4243 .* cold+0x0 ' "$out/script.out")"
  check script/kernel-symbol 6 "$(grep -c ' entSys+0x8 (\[kernel.kallsyms\])$' "$out/script.out")"
fi
if run script-fields script -i "$data" -F comm,tid,time,ip,sym,dso,addr,period,event,pmstatus; then
  check script/fields-addr "$(hex "$(awk '$1 == "data" { print $3 }' "$ans")")" \
    "$(head -1 "$out/script-fields.out" | awk '{ print $6 }')"
  check script/fields-mispredict 10 "$(grep -c "$(hex "$(pc branch)") hot_loop (.*) retired,trap,mispredict$" "$out/script-fields.out")"
fi
if have_perf && "$PERF" script -i "$data" >"$out/perf-script.out" 2>/dev/null; then
  grep -v fffffc "$out/perf-script.out" >"$out/perf-script.cmp"
  grep -v fffffc "$out/script.out" >"$out/script.cmp"
  check_file script/same-as-perf "$out/perf-script.cmp" "$out/script.cmp"
fi

# ---- script -D ----
if run dump script -i "$data" -D; then
  check dump/first-sample "PERF_RECORD_SAMPLE(IP, 0x4002): 4242/4242: $(pc load) period: 1000 addr: $(awk '$1 == "data" { print $3 }' "$ans")" \
    "$(grep -m1 -o 'PERF_RECORD_SAMPLE.*' "$out/dump.out")"
  check dump/mmap2 1 "$(grep -c "PERF_RECORD_MMAP2 4242/4242: \[0x120000000(0x[0-9a-f]*) @ 0 08:01 12345 0\]: r-xp $prog$" "$out/dump.out")"
  check dump/fork 1 "$(grep -c 'PERF_RECORD_FORK(4242:4243):(4242:4242)$' "$out/dump.out")"
  check dump/lost 1 "$(grep -c 'PERF_RECORD_LOST_SAMPLES: id:101: lost samples :3$' "$out/dump.out")"
  check dump/pmpc-branch 40 "$(grep -c "pmpc:     0x0000000$(hex "$(pc branch)")$" "$out/dump.out")"
  check dump/i_stat-MIS 10 "$(grep -c 'i_stat: .* MIS 1 TRP 1 LSO 0 TRAP_TYPE 1=mispredict ICM 0 OVR 2$' "$out/dump.out")"
  check dump/i_stat-dtb 10 "$(grep -c 'i_stat: .* TRP 1 LSO 0 TRAP_TYPE 6=dtb_miss' "$out/dump.out")"
  check dump/i_stat-LSO 4 "$(grep -c 'i_stat: .* LSO 1 TRAP_TYPE 0=replay' "$out/dump.out")"
  check dump/i_stat-ICM 6 "$(grep -c 'i_stat: .* ICM 1 ' "$out/dump.out")"
  retired=$(awk '$1 == "insn" { n += $4 } END { print n }' "$ans")
  check dump/pctr_ctl-VAL "$retired" "$(grep -c 'pctr_ctl: .* VAL 1 ' "$out/dump.out")"
  check dump/pctr_ctl-killed 5 "$(grep -c 'pctr_ctl: .* PM_STALLED 1 PM_KILLED_BM 1 ' "$out/dump.out")"
  check dump/status-names 10 "$(grep -c 'status: .* retired trap mispredict trap_type=mispredict$' "$out/dump.out")"
  check dump/status-unaligned 8 "$(grep -c 'status: .* trap unaligned trap_type=unaligned$' "$out/dump.out")"
  check dump/pctr1 10 "$(grep -c 'pctr0: 50  pctr1: 150$' "$out/dump.out")"
  if have_perf && "$PERF" script -D -i "$data" >"$out/perf-dump.out" 2>/dev/null; then
    check dump/offsets-as-perf "$(grep -c '^0x[0-9a-f]*@' "$out/perf-dump.out")" \
      "$(grep -Fxf <(grep '^0x[0-9a-f]*@' "$out/perf-dump.out") "$out/dump.out" | wc -l)"
  fi
fi

# ---- report -D: perf report -D prints script -D's dump without the script
# lines, after report's header line, and ends with the record counts ----
if run report-dump report -i "$data" -D && [ -s "$out/dump.out" ] && [ -s "$out/script.out" ]; then
  grep -vxF -f "$out/script.out" "$out/dump.out" >"$out/dump-noscript.out"
  sed -n '3,$p' "$out/report-dump.out" | sed '/^Aggregated stats:$/,$d' | sed '$d' >"$out/report-dump.body"
  check_file report-dump/same-as-script-dump "$out/dump-noscript.out" "$out/report-dump.body"
  check report-dump/header "# To display the perf.data header info, please use --header/--header-only options.|#" \
    "$(head -2 "$out/report-dump.out" | paste -sd'|')"
  check report-dump/sample-records 250 "$(grep -c 'PERF_RECORD_SAMPLE(IP' "$out/report-dump.out")"
  if have_perf && "$PERF" report -D -i "$data" >"$out/perf-report-dump.out" 2>/dev/null; then
    sed -n '/^Aggregated stats:$/,$p' "$out/perf-report-dump.out" >"$out/perf-report-dump.stats"
    sed -n '/^Aggregated stats:$/,$p' "$out/report-dump.out" >"$out/report-dump.stats"
    check_file report-dump/stats-as-perf "$out/perf-report-dump.stats" "$out/report-dump.stats"
    check report-dump/offsets-as-perf "$(grep -c '^0x[0-9a-f]*@' "$out/perf-report-dump.out")" \
      "$(grep -Fxf <(grep '^0x[0-9a-f]*@' "$out/perf-report-dump.out") "$out/report-dump.out" | wc -l)"
  fi
fi

# ---- the cpu PMU's sysfs files, read by Linux perf ----
# list --sysfs writes the tree; perf, with the tree mounted over
# /sys/bus/event_source/devices in a private mount namespace, parses the same
# events: the attr config and config1 it builds (perf stat -vv) must equal
# the ones our parser put in a recorded file (perf evlist -v).
sysfs=$out/sysfs
rm -rf "$sysfs" && mkdir -p "$sysfs"
"$P" list --sysfs >"$out/sysfs.txt"
while IFS= read -r line; do
  f=${line%%: *}; f=$sysfs/${f#/sys/bus/event_source/devices/}
  mkdir -p "$(dirname "$f")" && printf '%s\n' "${line#*: }" >"$f"
done <"$out/sysfs.txt"
check sysfs/format-event "config:0-7" "$(cat "$sysfs/cpu/format/event")"
check sysfs/format-trap "config1:2" "$(cat "$sysfs/cpu/format/trap")"
check sysfs/events-bcache "event=0x3" "$(cat "$sysfs/cpu/events/bcache_misses")"
specs=()
for e in "$sysfs"/cpu/events/*; do specs+=("cpu/$(basename "$e")/"); done
specs+=(cpu/event=0x4/ cpu/event=1,profileme=1/ cpu/event=2,random=1/ cpu/event=1,profileme=1,sl1=3/
        cpu/cycles,profileme=1,retired=1/ cpu/cycles,profileme=1,mispredict=1/ cpu/event=1,profileme=1,trap=1,config1=3/
        cpu/event=1,profileme=1,random=1,config1=4/)
# a run of tools_hot.c (the fixture's build is for its symbols, not to run)
run_prog=$out/hot_run
alpha_static tests/perfdata/tools_hot.c "$run_prog" || fail sysfs/build "cannot build tools_hot.c to run"
# record takes 8 events a run: the specs in runs of 8, perf evlist -v on each
# ("name: type: 4, ..., config: 0x3, ..., { bp_addr, config1 }: 0x4")
rec_ok=1
: >"$out/sysfs-ours.txt"
for ((i = 0; i < ${#specs[@]}; i += 8)); do
  recargs=()
  for e in "${specs[@]:i:8}"; do recargs+=(-e "$e"); done
  "$P" record -q --privileged -c 100000 -o "$out/sysfs.data" "${recargs[@]}" -- "$run_prog" >/dev/null 2>"$out/sysfs-rec.err" || { rec_ok=0; break; }
  have_perf && "$PERF" evlist -v -i "$out/sysfs.data" 2>/dev/null | awk -F', ' '{ c = "0"; c1 = "0"
    for (i = 1; i <= NF; i++) { if ($i ~ /^config: /) c = substr($i, 9); if ($i ~ /config1 }: /) c1 = substr($i, index($i, "}: ") + 3) }
    printf "%s %s\n", c, c1 }' >>"$out/sysfs-ours.txt"
done
if [ "$rec_ok" = 1 ]; then
  pass sysfs/every-event-records
  if have_perf && unshare -m true 2>/dev/null; then
    list=$(IFS=,; echo "${specs[*]}")
    # PERF_CPUID names no CPU of perf's event tables: the host's own JSON events
    # (an AMD host adds l2_request_g1.* to the cpu PMU) stay out of the list
    export PERF_CPUID=none
    unshare -m sh -c 'mount --bind "$1" /sys/bus/event_source/devices && "$2" stat -vv -e "$3" true' sh \
      "$sysfs" "$PERF" "$list" 2>&1 | awk '/^perf_event_attr:/ { if (n++) print c, c1; c = "0"; c1 = "0" }
        /^  config  / { c = $2 } /config1 }/ { c1 = $NF }
        END { if (n) print c, c1 }' >"$out/sysfs-perf.txt"
    check_file sysfs/perf-parses-the-same "$out/sysfs-perf.txt" "$out/sysfs-ours.txt"
    unshare -m sh -c 'mount --bind "$1" /sys/bus/event_source/devices && "$2" list pmu' sh "$sysfs" "$PERF" 2>/dev/null |
      grep 'Kernel PMU event' | tr -s ' ' | sort >"$out/sysfs-perf-list.txt"
    "$P" list | grep 'Kernel PMU event' | tr -s ' ' | sort >"$out/sysfs-our-list.txt"
    check_file sysfs/list-as-perf-list "$out/sysfs-perf-list.txt" "$out/sysfs-our-list.txt"
    unset PERF_CPUID
  else
    echo "tools: perf or a private mount namespace is not available; perf's reading of the sysfs files is not checked"
  fi
else
  fail sysfs/every-event-records "$(head -c 300 "$out/sysfs-rec.err")"
fi

# ---- mem record: perf mem record's event choice; the file is read by our
# mem report, perf mem report and perf script ----
check mem-record/list "mem-loads    : available|mem-stores   : available|mem-ldst     : available" \
  "$("$P" mem record -e list 2>&1 | paste -sd'|')"
"$P" mem record -e bogus -- "$run_prog" >/dev/null 2>"$out/err.txt"
check mem-record/unknown-tag "2|failed: event 'bogus' not found, use '-e list' to get list of available events" \
  "$?|$(head -1 "$out/err.txt")"
if "$P" mem record -q -c 2000 -o "$out/memrec.data" -- "$run_prog" >/dev/null 2>"$out/memrec.err"; then
  pass mem-record/runs
  run memrec-report mem report -i "$out/memrec.data" &&
    nmem=$(grep -m1 "^# Samples: .* of event 'cpu/mem-ldst/Pu\?'" "$out/memrec-report.out" | awk '{ print $3 }')
  run memrec-all mem report --all -i "$out/memrec.data"
  if have_perf; then
    check mem-record/event "cpu/mem-ldst/P|config: 0x101|precise_ip: 2|config1 }: 0x1" \
      "$("$PERF" evlist -v -i "$out/memrec.data" 2>/dev/null | grep -o -e '^cpu/mem-ldst/P' -e 'precise_ip: 2' \
         -e 'config: 0x101' -e 'config1 }: 0x1' | paste -sd'|')"
    # the memory operations by perf's decoding of data_src are the samples our mem report counts
    check mem-record/memory-ops-as-perf-script "$("$PERF" script -i "$out/memrec.data" -F data_src 2>/dev/null |
      grep -c -e '|OP LOAD|' -e '|OP STORE|' -e '|OP PFETCH|')" "${nmem:-}"
    if "$PERF" mem report --stdio -i "$out/memrec.data" >"$out/perf-memrec.out" 2>/dev/null; then
      check mem-record/perf-mem-report "$(grep -e '^# Samples' -e '^# Total weight' "$out/perf-memrec.out" | paste -sd'|')" \
        "$(grep -e '^# Samples' -e '^# Total weight' "$out/memrec-all.out" | paste -sd'|')"
    else
      fail mem-record/perf-mem-report "perf mem report cannot read the file"
    fi
  fi
else
  fail mem-record/runs "$(head -c 300 "$out/memrec.err")"
fi
# perf mem's -t before the subcommand, and record's own -t with -U (--all-user: user
# only even as root)
# (as a normal user at paranoid 2, perf's fallback names it cpu/mem-loads/Pu)
"$P" mem -t load record -q -c 20000 -o "$out/memrec-l.data" -- "$run_prog" >/dev/null 2>&1
check mem-record/type-load "0|cpu/mem-loads/Pu" "$?|$(have_perf && "$PERF" evlist -i "$out/memrec-l.data" 2>/dev/null)"
"$P" mem record -t store -U --privileged -q -c 20000 -o "$out/memrec-s.data" -- "$run_prog" >/dev/null 2>&1
check mem-record/type-store-user "0|cpu/mem-stores/Pu|exclude_kernel: 1" \
  "$?|$(have_perf && "$PERF" evlist -v -i "$out/memrec-s.data" 2>/dev/null | grep -o -e '^cpu/mem-stores/Pu' -e 'exclude_kernel: 1' | paste -sd'|')"
# --ldlat: the driver's ldlat term on mem-loads, every kept load's weight at
# least N (perf script's weight field); refused without -t load and out of range.
# tools_hot.c's loop has no load: tools_loads.c has Dcache hits (weights under
# 20 without the filter) and misses to memory (over 100)
loads_prog=$out/loads_run
alpha_static tests/perfdata/tools_loads.c "$loads_prog" || fail mem-record/ldlat-build "cannot build tools_loads.c"
"$P" mem -t load record -q -c 2000 -o "$out/memrec-l0.data" -- "$loads_prog" >/dev/null 2>&1
"$P" mem -t load record --ldlat 20 -q -c 2000 -o "$out/memrec-ll.data" -- "$loads_prog" >/dev/null 2>&1
check mem-record/ldlat-runs 0 "$?"
if have_perf; then
  check mem-record/ldlat-unfiltered-has-short "1" "$("$PERF" script -i "$out/memrec-l0.data" -F weight,data_src 2>/dev/null |
    awk '/OP LOAD/ && $1 < 20 { n++ } END { print (n > 0) }')"
  check mem-record/ldlat-event "cpu/mem-loads,ldlat=20/Pu|config2 }: 0x14" \
    "$("$PERF" evlist -v -i "$out/memrec-ll.data" 2>/dev/null | grep -o -e '^cpu/mem-loads,ldlat=20/Pu' -e 'config2 }: 0x14' | paste -sd'|')"
  check mem-record/ldlat-weights "0" "$("$PERF" script -i "$out/memrec-ll.data" -F weight 2>/dev/null |
    awk '$1 < 20 { n++ } END { print n + 0 }')"
  check mem-record/ldlat-some "1" "$("$PERF" script -i "$out/memrec-ll.data" -F weight 2>/dev/null |
    awk 'END { print (NR > 0) }')"
fi
"$P" mem record --ldlat 20 -- "$run_prog" >/dev/null 2>"$out/err.txt"
check mem-record/ldlat-needs-load "2|profileme mem record: --ldlat filters the mem-loads event: add -t load" \
  "$?|$(head -1 "$out/err.txt")"
"$P" mem -t load record --ldlat 0 -- "$run_prog" >/dev/null 2>"$out/err.txt"
check mem-record/ldlat-range "2|profileme mem record: --ldlat takes a latency of 1 to 65535 cycles, not '0'" \
  "$?|$(head -1 "$out/err.txt")"

# ---- mem report ----
if run mem mem report -i "$data" --stdio; then
  total=$(awk '$1 == "mem" { w += $6 } END { print w }' "$ans")
  check mem/total-weight "# Total weight : $total" "$(grep -m1 '^# Total weight' "$out/mem.out")"
  for lv in "L1:L1 or L1 hit" "L2:L2 or L2 hit" "RAM:Local RAM or RAM hit"; do
    want=$(awk -v l="${lv%%:*}" -v t="$total" '$1 == "mem" && $3 == l { w += $6; n += $5 } END { printf "%.2f%% %d", 100 * w / t, n }' "$ans")
    got=$(grep -m1 "^#     ${lv#*:}  " "$out/mem.out" | sed "s/^#     ${lv#*:} *//" | tr -s ' ')
    check "mem/level-${lv%%:*}" "$want" "$got"
  done
  for tl in "hit:L1 hit" "miss:L1 miss"; do
    want=$(awk -v l="${tl%%:*}" -v t="$total" '$1 == "mem" && $4 == l { w += $6; n += $5 } END { printf "%.2f%% %d", 100 * w / t, n }' "$ans")
    check "mem/tlb-${tl%%:*}" "$want" "$(grep -m1 "^#     ${tl#*:}  " "$out/mem.out" | sed "s/^#     ${tl#*:} *//" | tr -s ' ')"
  done
  for op in LOAD STORE; do
    want=$(awk -v o="$op" -v t="$total" '$1 == "mem" && $2 == o { w += $6; n += $5 } END { printf "%.2f%% %d", 100 * w / t, n }' "$ans")
    check "mem/op-$op" "$want" "$(grep -m1 "^#     $op  " "$out/mem.out" | sed "s/^#     $op *//" | tr -s ' ')"
  done
  check mem/data-symbol "[.] buf+0x8" "$(grep -m1 '^ .*%  .*Local RAM or RAM hit' "$out/mem.out" | grep -o '\[\.\] buf+0x[0-9a-f]*')"
fi
if run mem-sort mem report -i "$data" --sort mem,tlb; then
  check mem/sort-mem-tlb "72.53% 10 Local RAM or RAM hit L1 miss" "$(grep -m1 '^ .*%  ' "$out/mem-sort.out" | tr -s ' ' | sed 's/^ //; s/ $//')"
fi

# ---- dcpi ----
# dcpi_col FILE EVENT PC COLUMNS...: the named columns of the row, from the header.
dcpi_cols() {
  awk -F';' -v ev="$2" -v pc="$3" -v cols="$4" 'NR == 1 { for (i = 1; i <= NF; i++) ix[$i] = i; next }
    $ix["event"] == ev && $ix["pc"] == pc { n = split(cols, c, " "); s = "";
      for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") $ix[c[i]]; print s; exit }' "$1"
}
statcols="samples retired killed mispredict trap dtb_miss unaligned valid map_stall nyp ldstorder early_kill late_kill taken"
if run dcpi-insn dcpi -i "$data" --by insn -x ';'; then
  for what in load store branch other cold main entSys do_page_fault; do
    a=$(pc "$what")
    check "dcpi/insn-$what" "$(awk -v a="$a" '$1 == "insn" && $2 == a { $1 = $2 = ""; print substr($0, 3) }' "$ans")" \
      "$(dcpi_cols "$out/dcpi-insn.out" cycles:p "$a" "$statcols")"
  done
  check dcpi/insn-text "$(objdump_insn "$(pc load)")" "$(dcpi_cols "$out/dcpi-insn.out" cycles:p "$(pc load)" insn)"
  check dcpi/plain-event "20|||" "$(dcpi_cols "$out/dcpi-insn.out" instructions "$(pc branch)" "samples retired killed trap" | tr ' ' '|')"
fi
if run dcpi-sym dcpi -i "$data" --by sym -x ';'; then
  want=$(awk -v l="$(pc load)" -v s="$(pc store)" -v b="$(pc branch)" -v o="$(pc other)" \
    '$1 == "insn" && ($2 == l || $2 == s || $2 == b || $2 == o) { for (i = 3; i <= NF; i++) t[i] += $i }
     END { for (i = 3; i <= 16; i++) printf "%s%d", (i > 3 ? " " : ""), t[i]; print "" }' "$ans")
  hot=$(alpha-linux-gnu-nm "$prog" | awk '$3 == "hot_loop" { print "0x" $1 }' | sed 's/0x0*/0x/')
  check dcpi/sym-hot_loop "$want" "$(dcpi_cols "$out/dcpi-sym.out" cycles:p "$hot" "$statcols")"
fi
if run dcpi-csv dcpi -i "$data" --by insn -x ,; then
  check dcpi/csv-quoting 1 "$(grep -c "^cycles:p,$(pc load),hot_loop,tools_hot,\"$(objdump_insn "$(pc load)")\",60," "$out/dcpi-csv.out")"
fi
if run dcpi-table dcpi -i "$data"; then
  check dcpi/table-top "150 75.00% 113 15 10 32 10 8 103 5 6 hot_loop (tools_hot)" \
    "$(awk '/^ +[0-9]/ { print; exit }' "$out/dcpi-table.out" | tr -s ' ' | sed 's/^ //')"
fi

# A record cut short inside the data section: the reader's message, status 1.
python3 - "$data" "$out/badrec.data" <<'EOF' 2>/dev/null || cp "$out/garbage.data" "$out/badrec.data"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = struct.unpack_from('<Q', d, 40)[0]
size = struct.unpack_from('<H', d, off + 6)[0]
struct.pack_into('<H', d, off + size + 6, 0)   # the second record claims size 0
open(sys.argv[2], 'wb').write(d)
EOF
for cmd in "report" "script" "dcpi"; do
  $P $cmd -i "$out/badrec.data" >/dev/null 2>"$out/err.txt"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q "badrec.data: .*offset" "$out/err.txt"; then pass "error/$cmd/bad-record"
  else fail "error/$cmd/bad-record" "status $rc, stderr: $(head -c 200 "$out/err.txt")"; fi
done

# ---- perf.data from Linux perf on x86-64 ----
x86_files=(tests/perfdata/x86-*.data)
if have_perf && "$PERF" record -q -e cpu-clock -F 2000 -o "$out/live.data" -- sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done' \
     >/dev/null 2>&1; then
  x86_files+=("$out/live.data")
else
  echo "tools: perf cannot record here; the committed x86 fixtures stand in"
fi
for f in "${x86_files[@]}"; do
  [ -f "$f" ] || continue
  name=x86/$(basename "$f" .data)
  run "${name//\//-}-report" report -i "$f" --stdio || continue
  run "${name//\//-}-script" script -i "$f" || continue
  "$P" mem report -i "$f" >/dev/null 2>"$out/err.txt"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q 'no event samples data sources' "$out/err.txt"; then pass "$name/mem-needs-data-src"
  else fail "$name/mem-needs-data-src" "status $rc"; fi
  nsamples=$(awk '/^# Samples:/ { n += $3 } END { print n }' "$out/${name//\//-}-report.out")
  check "$name/report-vs-script" "$nsamples" "$(wc -l <"$out/${name//\//-}-script.out")"
  if have_perf && "$PERF" report -i "$f" --stdio >"$out/perf.out" 2>/dev/null && "$PERF" script -i "$f" >"$out/perf-s.out" 2>/dev/null; then
    check "$name/samples-as-perf" "$(grep '^# Samples' "$out/perf.out" | paste -sd'|')" \
      "$(grep '^# Samples' "$out/${name//\//-}-report.out" | paste -sd'|')"
    # Lines where both resolved a symbol and it is not a kernel one (we read
    # no kallsyms), nor a PLT entry (perf 6.1 misnames x86-64 libc's: see
    # callgraph.sh).
    grep -v -e '\[kernel' -e '\[unknown\]' -e '@plt' "$out/perf-s.out" >"$out/perf-s.cmp"
    grep -v -e '\[kernel' -e '\[unknown\]' -e '@plt' "$out/${name//\//-}-script.out" >"$out/our-s.cmp"
    check_file "$name/script-as-perf" "$out/perf-s.cmp" "$out/our-s.cmp"
  fi
done
