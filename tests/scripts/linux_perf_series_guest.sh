#!/usr/bin/env bash
# The perf-tools series (patches/perf-tools/, docs/linux-perf.md) inside the
# machine: Linux perf 6.1 with the series, cross-built for Alpha
# (tests/thirdparty/perf-series.sh), records on the timed EV67 as a normal
# user at perf_event_paranoid 2 and reads its own files there; the oracle is
# profileme's own tools reading the same files on the host.
#  - decode: `perf record` of a ProfileMe event that keeps every fetched
#    instruction over tests/linuxperf/pmwork.c (the series has perf record
#    sample the ProfileMe payload); perf report -D and perf script -D in the
#    machine print every record as profileme report -D and script -D do
#    (compared record by record: perf prints its user records, such as
#    FINISHED_ROUND, as it reads them, profileme in time order);
#  - dcpi.*: perf dcpi in the machine, by symbol and by instruction (the
#    Alpha objdump built with perf, run in the machine), prints profileme
#    dcpi's tables;
#  - mem.*: perf mem record picks the load-store event cpu/mem-ldst/P, and
#    perf mem report in the machine prints profileme mem report;
#  - callgraph.dwarf: perf record --call-graph dwarf, which unpatched perf
#    6.1 cannot ask for on Alpha (no perf_regs: EINVAL), records user
#    registers and stacks that profileme report -g unwinds into
#    main -> outer -> middle -> leaf (tests/linuxperf/callchain.c);
#  - regs.*: --user-regs=? lists the Alpha registers without r9-r15; perf
#    script -F uregs,iregs in the machine prints them by name as profileme
#    script does;
#  - annotate: perf annotate, which unpatched perf 6.1 refuses for Alpha,
#    runs in the machine with the Alpha objdump (and Alpha dash as /bin/sh,
#    through which perf runs it).
# Environment: BUILD, PROFILEME, PROFILEME_CACHE.
set -u
. "$(dirname "$0")/../lib/common.bash"
. "$root/tests/lib/series.bash"
cd "$root"
G=linux_perf_series_guest
pass() { echo "PASS $G/$1"; }
fail() { echo "FAIL $G/$1: $2"; }
same() {
  if [ -s "$2" ] && cmp -s "$2" "$3"; then pass "$1: $4"
  else fail "$1" "differs from profileme's ($(wc -l <"$2") against $(wc -l <"$3") lines)"; diff "$2" "$3" | head -n 8 | sed 's/^/    /'; fi
}
# same_records NAME WANT-DUMP GOT-DUMP WHAT: the same records in both dumps
same_records() {
  dump_records "$2" >"$2.records"
  dump_records "$3" >"$3.records"
  if [ -s "$2" ] && cmp -s "$2.records" "$3.records"; then pass "$1: $4"
  else fail "$1" "differs from profileme's"; diff "$2.records" "$3.records" | head -n 4 | cut -c1-300 | sed 's/^/    /'; fi
}
series_setup $G --no-checkpatch || exit 0
cp "$W/pmwork" "$W/callchain" .

# ---- ProfileMe: record, perf report -D / perf script -D ----
guest --timed -- record -e cpu/event=1,profileme=1/ -c 6000 -o pm.data -- ./pmwork 200 >record.out 2>record.err
n=$(sed -n 's/.* (\([0-9]*\) samples) \]$/\1/p' record.err)
if [ "${n:-0}" -gt 50 ]; then pass "record: $n samples of cpu/event=1,profileme=1/u"
else fail record "'$n' samples: $(tail -n 2 record.err | tr '\n' ' ')"; exit 0; fi
guest -- report -D -i pm.data >perf.report-D 2>/dev/null
"$PROFILEME" report -D -i pm.data >pm.report-D 2>&1
same_records decode.report-D pm.report-D perf.report-D "perf report -D in the machine prints profileme report -D's $(grep -c '^0x[0-9a-f]*@' pm.report-D) records, $(grep -c '^ \.\.\. ProfileMe raw' pm.report-D) ProfileMe samples decoded"
nsamples=$(grep -c 'PERF_RECORD_SAMPLE(' perf.report-D)
nblocks=$(grep -c '^ \.\.\. ProfileMe raw v1: 52 bytes$' perf.report-D)
if [ "$nsamples" -gt 50 ] && [ "$nblocks" = "$nsamples" ]; then pass "decode.every-sample: perf record sampled the payload; $nblocks of $nsamples samples decoded"
else fail decode.every-sample "$nblocks ProfileMe blocks for $nsamples samples"; fi
guest -- script -D -i pm.data >perf.script-D 2>/dev/null
"$PROFILEME" script -D -i pm.data >pm.script-D 2>&1
same_records decode.script-D pm.script-D perf.script-D "perf script -D in the machine prints profileme script -D's $(grep -c '^0x[0-9a-f]*@' pm.script-D) records"

# ---- perf dcpi ----
guest -- dcpi -i pm.data >perf.dcpi-sym 2>perf.dcpi-sym.err
"$PROFILEME" dcpi -i pm.data >pm.dcpi-sym 2>&1
same dcpi.sym pm.dcpi-sym perf.dcpi-sym "perf dcpi in the machine prints profileme dcpi's $(grep -vc '^#' pm.dcpi-sym) symbols"
guest -- dcpi -i pm.data --by insn --objdump="$AOBJDUMP" >perf.dcpi-insn 2>perf.dcpi-insn.err
"$PROFILEME" dcpi -i pm.data --by insn >pm.dcpi-insn 2>&1
same dcpi.insn pm.dcpi-insn perf.dcpi-insn "perf dcpi --by insn in the machine prints profileme dcpi's $(grep -vc '^#' pm.dcpi-insn) instructions"

# ---- perf mem record / report ----
mkdir -p mem && cd mem
guest --timed -- mem record -c 3000 -- ./../pmwork 200 >memrec.out 2>memrec.err
ev=$("$PROFILEME" script -i perf.data -F event 2>/dev/null | sort -u | tr -d ' :' | paste -sd,)
if [ "$ev" = "cpu/mem-ldst/Pu" ]; then pass "mem.record: perf mem record samples cpu/mem-ldst/Pu"
else fail mem.record "events [$ev]: $(tail -n 2 memrec.err | tr '\n' ' ')"; fi
guest -- mem report --stdio >perf.mem.raw 2>perf.mem.err
no_tip perf.mem.raw >perf.mem
"$PROFILEME" mem report >pm.mem 2>&1
same mem.report pm.mem perf.mem "perf mem report in the machine prints profileme mem report ($(grep -m1 '^# Samples' pm.mem))"
cd ..

# ---- --call-graph dwarf ----
guest --timed -- record -e cycles:p -F 1000 --call-graph dwarf -o cg.data -- ./callchain >cg.out 2>cg.err
"$PROFILEME" report -g -i cg.data --stdio >cg.report 2>&1
chain=$(awk '/\[\.\] leaf/ { f = 1; next } f && /---/ { g = 1 } g && NF == 1 { printf "%s ", $1 } g && NF == 0 { exit }' cg.report)
case $chain in
  *"main outer middle leaf "*) pass "callgraph.dwarf: profileme report -g unwinds the machine's perf record --call-graph dwarf: ${chain% }" ;;
  *) fail callgraph.dwarf "chain [$chain]; $(tail -n 2 cg.err | tr '\n' ' ')" ;;
esac

# ---- registers ----
guest -- record --user-regs=? -- true >regs-list.out 2>&1
want="available registers: r0 r1 r2 r3 r4 r5 r6 r7 r8 r16 r17 r18 r19 r20 r21 r22 r23 r24 r25 r26 r27 r28 gp sp pc "
if grep -qxF "$want" regs-list.out; then pass "regs.list: --user-regs=? lists r0-r8, r16-r28, gp, sp, pc"
else fail regs.list "$(head -n 2 regs-list.out | tr '\n' ' ')"; fi
guest --timed -- record -e cycles:p -F 500 --user-regs=r0,r26,gp,sp,pc -I -o regs.data -- ./callchain 300000 >regs.out 2>regs.err
guest -- script -F ip,sym,uregs,iregs -i regs.data >perf.regs 2>/dev/null
"$PROFILEME" script -F ip,sym,uregs,iregs -i regs.data >pm.regs 2>&1
if [ -s pm.regs ] && cmp -s pm.regs perf.regs && grep -q ' r26:0x[0-9a-f]* *gp:0x[0-9a-f]* *sp:0x[0-9a-f]* *pc:0x' perf.regs; then
  pass "regs.script: perf script -F uregs,iregs in the machine names the registers as profileme script does ($(wc -l <perf.regs) samples)"
else
  fail regs.script "$(head -c 300 perf.regs)"; diff pm.regs perf.regs | head -n 4 | sed 's/^/    /'
fi

# ---- perf annotate ----
# perf annotate runs objdump through /bin/sh: a sysroot whose bin/sh is
# Alpha dash (tests/realprogs/build.sh), the rest Debian's Alpha sysroot.
if rp=$(bash "$root/tests/realprogs/build.sh" 2>realprogs.err); then
  mkdir -p sysroot/bin && ln -sfn /usr/alpha-linux-gnu/lib sysroot/lib && ln -sfn "$rp/dash.dyn" sysroot/bin/sh
  guest --sysroot "$PWD/sysroot" -- annotate --stdio -i pm.data --objdump="$AOBJDUMP" pages >perf.annotate 2>perf.annotate.err
  lines=$(grep -Ec '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+:' perf.annotate)
  if [ "$lines" -gt 10 ] && ! grep -q 'unsupported arch' perf.annotate.err; then
    pass "annotate: perf annotate in the machine lists pages() ($lines instructions)"
  else
    fail annotate "$lines instruction lines; $(head -n 2 perf.annotate.err | tr '\n' ' ')"
  fi
else
  fail annotate "no Alpha shell: tests/realprogs/build.sh failed: $(tail -n 2 realprogs.err | tr '\n' ' ')"
fi
