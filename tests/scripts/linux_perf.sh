#!/usr/bin/env bash
# Linux's own perf (tools/perf of 6.1, cross-built for Alpha unchanged by
# tests/thirdparty/perf.sh) inside the machine, run as users run it
# (docs/linux-perf.md). The oracles: Linux perf on the host and profileme's
# own tools reading the same files, the loop's own code (its 16 PCs from
# alpha-linux-gnu-objdump), and the workloads' known processes.
#  - the series' session as a normal user at perf_event_paranoid 2, perf's
#    defaults (`perf record -e cycles:p -- ./loop16`, frequency mode 4000 Hz):
#    samples on all 16 PCs of the loop; perf report, perf script and perf
#    report -D inside the guest read the file; `profileme report` and the
#    host's perf report print the guest's report, line for line;
#  - perf annotate, which perf 6.1 refuses for Alpha (profileme annotate reads
#    the file), and the Alpha objdump built with perf, run in the machine;
#  - system-wide on 2 CPUs (CAP_PERFMON): perf record -a over a parent and
#    three children attributes samples to every one of the four; perf stat
#    -a -A counts on both CPUs; perf stat of more hardware events than the
#    EV67's two counters multiplexes them (each ran part of the time, scaled);
#  - perf mem record / perf mem report (the cpu PMU's mem-loads event);
#  - perf record -g (the user IP only, as on Alpha Linux) and --call-graph
#    dwarf, which unchanged perf 6.1 cannot ask for on Alpha (EINVAL);
#  - a guest perf killed (SIGKILL, SIGINT) at points through its run leaves a
#    machine that exits cleanly, its workload gone.
# perf test has its own group (linux_perf_test.sh). Checks: linux_perf/*.
# Environment: BUILD, PROFILEME, LINUXPERF_DIR (tests/thirdparty/perf.sh),
# PROFILEME_CACHE.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
out=$BUILD/linux_perf
rm -rf "$out" && mkdir -p "$out"
pass() { echo "PASS linux_perf/$1"; }
fail() { echo "FAIL linux_perf/$1: $2"; }

dir=$(bash tests/thirdparty/perf.sh 2>"$out/build.err") || {
  fail build "tests/thirdparty/perf.sh failed: $(tail -n 3 "$out/build.err" | tr '\n' ' ')"
  exit 0
}
tail -n 1 "$out/build.err"
PERF=$dir/bin/perf
for p in loop16 killer; do
  alpha_cc "$out/$p" "tests/linuxperf/$p.c" -O2 || { fail build "cannot build $p.c"; exit 0; }
done
alpha_cc "$out/forkwork" tests/smp/forkwork.c -O2 || { fail build "cannot build forkwork.c"; exit 0; }
alpha_cc "$out/callchain" tests/linuxperf/callchain.c -O0 -g ||
  { fail build "cannot build callchain.c"; exit 0; }
cd "$out"
# (a fixed environment: perf's output does not depend on the host's)
env_i=(env -i PATH=/usr/bin:/bin HOME="$out" LC_ALL=C)
# guest [RUN-OPTIONS...] -- PERF-ARGS...: perf inside the machine
guest() {
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  "${env_i[@]}" timeout -k 5 600 "$PROFILEME" run "${opts[@]}" -- "$PERF" "$@"
}
# report_lines FILE: a report's sample lines (no comments, no blank lines)
report_lines() { grep -v '^#' "$1" | grep -v '^$'; }

# ---- the series' session, a normal user at paranoid 2, perf's defaults ----
guest --timed -- record -e cycles:p -o loop16.data -- ./loop16 6000000 >record.out 2>record.err
rc=$?
samples=$(sed -n 's/.* (\([0-9]*\) samples) \]$/\1/p' record.err)
if [ $rc -eq 0 ] && [ -s loop16.data ] && [ "${samples:-0}" -gt 100 ]; then
  pass "record.cycles-p: ${samples} samples, as a normal user at paranoid 2"
else
  fail record.cycles-p "status $rc, '${samples}' samples: $(tail -n 3 record.err | tr '\n' ' ')"
fi
# the loop's 16 PCs, from objdump: the bne back and the 15 before it
alpha-linux-gnu-objdump -d loop16 | awk '/<loop16>:/ { f = 1 } f && /\tbne\t/ { print; exit }' >bne.txt
bne=$(awk '{ sub(":", "", $1); print $1 }' bne.txt)
target=$(sed -n 's/.*\tbne\t[^,]*,\([0-9a-f]*\) .*/\1/p' bne.txt)
guest -- script -i loop16.data -F ip >script.out 2>script.err
hits=$(python3 -c '
import sys
lo, hi = int(sys.argv[1] or "0", 16), int(sys.argv[2] or "0", 16)
pcs = {int(l.split()[0], 16) for l in open("script.out") if l.split()}
print(len([p for p in pcs if lo <= p <= hi]))' "$target" "$bne")
if [ -n "$target" ] && [ "$(( 0x$bne - 0x$target ))" = 60 ] && [ "$hits" = 16 ]; then
  pass "record.all-16-pcs: samples on all 16 PCs of the loop ($target-$bne)"
else
  fail record.all-16-pcs "$hits of 16 PCs in $target-$bne have samples"
fi
guest -- report -i loop16.data --stdio >guest.report 2>guest.report.err
if grep -q '99\.[0-9]*%  loop16  *loop16  *\[\.\] loop16' guest.report; then
  pass "guest.report: $(report_lines guest.report | head -n 1 | tr -s ' ')"
else fail guest.report "$(report_lines guest.report | head -n 2 | tr '\n' ' ') $(head -n 2 guest.report.err)"; fi
n=$(grep -c 'PERF_RECORD_SAMPLE' <(guest -- report -D -i loop16.data 2>/dev/null))
if [ "$n" = "$samples" ]; then pass "guest.report-D: $n PERF_RECORD_SAMPLE records"
else fail guest.report-D "$n sample records, $samples recorded"; fi
"$PROFILEME" report -i loop16.data --stdio >profileme.report 2>&1
perf report -i loop16.data --stdio >host.report 2>/dev/null
if [ -n "$(report_lines guest.report)" ] && diff <(report_lines guest.report) <(report_lines profileme.report) >/dev/null &&
   diff <(report_lines guest.report) <(report_lines host.report) >/dev/null; then
  pass "host.reports-agree: profileme report and the host's perf report print the guest's $(report_lines guest.report | wc -l) lines"
else
  fail host.reports-agree "guest / profileme / host perf differ"
  diff <(report_lines guest.report) <(report_lines host.report) | head -n 6 | sed 's/^/    /'
fi
# perf 6.1's annotate knows the instructions of arm, arm64, csky, mips,
# powerpc, riscv64, s390, sparc and x86 only (util/annotate.c architectures[]):
# inside the guest it refuses Alpha, whatever the objdump; profileme
# annotate reads the guest's file (docs/linux-perf.md).
guest -- annotate -i loop16.data --stdio --objdump="$dir/bin/objdump" loop16 >annotate.out 2>annotate.err
"$PROFILEME" annotate -i loop16.data --stdio loop16 >pm-annotate.out 2>&1
if grep -q 'unsupported arch alpha' annotate.err && grep -q 'bne' pm-annotate.out; then
  pass "annotate: perf 6.1 refuses arch alpha; profileme annotate reads the guest's file"
else fail annotate "guest: $(head -n 2 annotate.err | tr '\n' ' '); profileme: $(grep -c . pm-annotate.out) lines"; fi
if "${env_i[@]}" "$PROFILEME" run -- "$dir/bin/objdump" -d loop16 >objdump.out 2>&1 && grep -q '<loop16>:' objdump.out &&
   diff <(alpha-linux-gnu-objdump -d loop16 | sed -n '/<loop16>:/,/^$/p') <(sed -n '/<loop16>:/,/^$/p' objdump.out) >/dev/null; then
  pass "objdump.in-guest: the Alpha objdump disassembles loop16 in the machine as the host's cross objdump"
else fail objdump.in-guest "$(head -n 2 objdump.out | tr '\n' ' ')"; fi

# ---- system-wide on 2 CPUs ----
guest --timed --cpus 2 --privileged -- record -a -o all.data -- ./forkwork 3000000 >all.out 2>all.err
guest -- report -i all.data --stdio --sort pid >all.report 2>&1
jobs=$(grep -Ec '^ +[0-9.]+% +[0-9]+:forkwork' all.report)
if [ "$jobs" = 4 ]; then pass "record-a.every-job: the parent and its 3 children each have samples"
else fail record-a.every-job "$jobs of 4 forkwork processes in the report"; report_lines all.report | head -n 6; fi
guest --timed --cpus 2 --privileged -- stat -a -A -e cycles,instructions -- ./loop16 1000000 >stat-a.out 2>stat-a.err
cpus=$(grep -Ec '^CPU[01] +[0-9,]+ +(cycles|instructions)' stat-a.err)
if [ "$cpus" = 4 ]; then pass "stat-a-A: cycles and instructions on CPU0 and CPU1"
else fail stat-a-A "$cpus of 4 per-CPU lines: $(head -n 8 stat-a.err | tr '\n' ' ')"; fi
guest --timed --privileged -- stat -e cycles,instructions,bcache_misses,mbox-replays -- ./loop16 3000000 >mux.out 2>mux.err
muxed=$(grep -Ec '^ +[0-9,]+ +(cycles|instructions|bcache_misses|mbox-replays) .*\([0-9]?[0-9]\.[0-9]+%\)$' mux.err)
if [ "$muxed" = 4 ]; then pass "stat.multiplexed: 4 events on 2 counters, each ran part of the time"
else fail stat.multiplexed "$muxed of 4 scaled lines: $(grep -E 'cycles|instr|bcache|mbox' mux.err | tr -s ' ' | tr '\n' ';')"; fi

# ---- perf mem, call graphs ----
mkdir -p mem && (cd mem && guest --timed -- mem record -- ../loop16 300000 >mem.out 2>mem.err &&
  guest -- mem report --stdio >memrep.out 2>memrep.err)
mv mem/mem.out mem/mem.err mem/memrep.out mem/memrep.err . 2>/dev/null
if grep -q "of event 'cpu/mem-" memrep.out && [ -n "$(report_lines memrep.out)" ]; then
  pass "mem.record-report: $(grep -m1 'Samples:' memrep.out | tr -s ' ')"
else fail mem.record-report "$(tail -n 2 mem.err | tr '\n' ' ') $(head -n 2 memrep.err | tr '\n' ' ')"; fi
# Unchanged perf 6.1 has no perf_regs for Alpha (tools/perf/arch/alpha has no
# util/perf_regs.c): --call-graph dwarf asks for user registers with an empty
# mask, which the kernel refuses (perf_reg_validate: EINVAL, as on arm64 or
# x86), and perf says so; the machine's own record --call-graph dwarf has the
# unwinding (docs/linux-perf.md). -g records, as on Alpha Linux, the kernel's
# chain and the user IP only (the arch has no perf_callchain_user).
guest --timed -- record -e cycles:p --call-graph dwarf -o cg.data -- ./callchain >cg.out 2>cg.err
if grep -q "Invalid event (cycles:p) in per-thread mode" cg.err; then
  pass "callgraph.dwarf-refused: perf 6.1 without Alpha perf_regs asks for no registers: EINVAL"
else fail callgraph.dwarf-refused "$(tail -n 2 cg.err | tr '\n' ' ')"; fi
guest --timed -- record -e cycles:p -g -o g.data -- ./callchain >g.out 2>g.err
"$PROFILEME" script -i g.data -F ip,sym >g.script 2>&1
if grep -q 'leaf' g.script && [ "$(grep -c . g.script)" -gt 50 ]; then
  pass "callgraph.g: $(grep -c leaf g.script) of $(grep -c . g.script) chain lines in leaf"
else fail callgraph.g "$(tail -n 2 g.err | tr '\n' ' ')"; fi

# ---- a guest perf killed part way ----
bad=0 runs=0
for sig in 9 2; do
  for us in 0 2000 20000 200000; do
    runs=$((runs + 1))
    "${env_i[@]}" timeout -k 5 300 "$PROFILEME" run --timed -- ./killer "$us" "$sig" "$PERF" record -o kill.data -- ./loop16 2000000 \
      >kill.out 2>kill.err
    rc=$?
    if [ $rc -ne 0 ] || ! grep -Eq '^(killed by signal|exited)' kill.out; then
      bad=$((bad + 1)); echo "    signal $sig at $us us: status $rc: $(tail -n 1 kill.err)"
    fi
  done
done
if [ $bad = 0 ]; then pass "killed.clean-exit: $runs guest perf records killed (SIGKILL, SIGINT) at 0-200 ms, each machine exited 0"
else fail killed.clean-exit "$bad of $runs runs did not end cleanly"; fi
