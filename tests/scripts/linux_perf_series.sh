#!/usr/bin/env bash
# The perf-tools series (patches/perf-tools/, docs/linux-perf.md), its host
# half: Linux perf 6.1 with the series, built for the host
# (tests/thirdparty/perf-series.sh), reads Alpha perf.data files that
# `profileme record` wrote on the timed EV67 and prints what profileme's own
# tools print, the oracle being the other implementation of the same
# decoding over the same bytes:
#  - decode.*: perf report -D and perf script -D print, whole, what
#    profileme report -D and script -D print, on a ProfileMe event that keeps
#    every fetched instruction (cpu/event=1,profileme=1/: retired, killed,
#    trapped...) over tests/linuxperf/pmwork.c; every sample has its
#    ProfileMe block, and the blocks hold statuses beyond "retired";
#  - dcpi.*: perf dcpi prints profileme dcpi's tables by symbol and by
#    instruction (objdump's text) and its CSV;
#  - mem.*: perf mem report prints profileme mem report (memory operations
#    only, the breakdown by data source first) on a `mem record` file, and
#    --all counts what profileme mem report --all counts;
#  - regs: perf script -F uregs,iregs names the Alpha registers (r0..r28,
#    gp, sp, pc) as profileme script does;
#  - annotate: perf annotate, which unpatched perf 6.1 refuses for Alpha,
#    gives a share to exactly the instructions of pages() that perf dcpi
#    --by insn lists;
#  - checkpatch.*: checkpatch.pl of linux-source-6.1 finds no error in any
#    patch of the series.
# The same in the machine, with the Alpha perf on files it recorded:
# linux_perf_series_guest.sh; perf test: linux_perf_series_test.sh.
# Environment: BUILD, PROFILEME, PROFILEME_CACHE.
set -u
. "$(dirname "$0")/../lib/common.bash"
. "$root/tests/lib/series.bash"
cd "$root"
G=linux_perf_series
pass() { echo "PASS $G/$1"; }
fail() { echo "FAIL $G/$1: $2"; }
# same NAME WANT-FILE GOT-FILE WHAT: the two files equal and not empty
same() {
  if [ -s "$2" ] && cmp -s "$2" "$3"; then pass "$1: $4"
  else fail "$1" "differs from profileme's ($(wc -l <"$2") against $(wc -l <"$3") lines)"; diff "$2" "$3" | head -n 8 | sed 's/^/    /'; fi
}
series_setup $G || exit 0

# ---- checkpatch over the series ----
if cp=$(grep '^checkpatch: ' <<<"$series_out") && [ -n "$cp" ]; then
  n=$(grep -c . <<<"$cp") bad=$(grep -vc ': total: 0 errors,' <<<"$cp")
  warn=$(sed -n 's/.*errors, \([0-9]*\) warnings.*/\1/p' <<<"$cp" | awk '{ s += $1 } END { print s + 0 }')
  if [ "$bad" = 0 ]; then pass "checkpatch: $n patches, 0 errors ($warn warnings)"
  else fail checkpatch "$(grep -v ': total: 0 errors,' <<<"$cp" | head -n 3 | tr '\n' ' ')"; fi
else
  fail checkpatch "tests/thirdparty/perf-series.sh reported no checkpatch result"
fi

# ---- perf report -D / perf script -D ----
"$PROFILEME" record -e cpu/event=1,profileme=1/ -c 4000 -o pm.data -- "$W/pmwork" 200 >record.out 2>record.err ||
  { fail record "profileme record: $(tail -n 2 record.err | tr '\n' ' ')"; exit 0; }
"$PROFILEME" report -D -i pm.data >pm.report-D 2>&1
host_perf report -D -i pm.data >perf.report-D 2>perf.report-D.err
"$PROFILEME" script -D -i pm.data >pm.script-D 2>&1
host_perf script -D -i pm.data >perf.script-D 2>perf.script-D.err
nsamples=$(grep -c 'PERF_RECORD_SAMPLE(' pm.script-D)
nblocks=$(grep -c '^ \.\.\. ProfileMe raw v1: 52 bytes$' perf.script-D)
statuses=$(sed -n 's/^ \.\.\.\.\.\. status:   0x[0-9a-f]* //p' perf.script-D | tr ' ' '\n' | sort -u | paste -sd, -)
same decode.report-D pm.report-D perf.report-D "perf report -D prints profileme report -D's $(wc -l <pm.report-D) lines"
same decode.script-D pm.script-D perf.script-D "perf script -D prints profileme script -D's $(wc -l <pm.script-D) lines"
if [ "$nsamples" -gt 100 ] && [ "$nblocks" = "$nsamples" ] && grep -Eq 'early_kill|late_kill' <<<"$statuses" &&
   grep -q trap <<<"$statuses"; then
  pass "decode.every-sample: $nblocks of $nsamples samples decoded; statuses seen: $statuses"
else
  fail decode.every-sample "$nblocks blocks for $nsamples samples; statuses: $statuses"
fi

# ---- perf dcpi ----
for v in "sym:--by sym" "insn:--by insn" "csv:--by insn -x ,"; do
  # shellcheck disable=SC2086 # the options are words
  "$PROFILEME" dcpi -i pm.data ${v#*:} >"pm.dcpi-${v%%:*}" 2>&1
  # shellcheck disable=SC2086
  host_perf dcpi -i pm.data ${v#*:} >"perf.dcpi-${v%%:*}" 2>"perf.dcpi-${v%%:*}.err"
  same "dcpi.${v%%:*}" "pm.dcpi-${v%%:*}" "perf.dcpi-${v%%:*}" "perf dcpi ${v#*:} prints profileme dcpi's $(grep -vc '^#' "pm.dcpi-${v%%:*}") rows"
done

# ---- perf mem report ----
"$PROFILEME" mem record -c 3000 -o mem.data -- "$W/pmwork" 200 >memrec.out 2>memrec.err ||
  fail mem.record "$(tail -n 2 memrec.err | tr '\n' ' ')"
"$PROFILEME" mem report -i mem.data >pm.mem 2>&1
host_perf mem report --stdio -i mem.data >perf.mem.raw 2>perf.mem.err
no_tip perf.mem.raw >perf.mem
same mem.report pm.mem perf.mem "perf mem report prints profileme mem report ($(grep -m1 '^# Samples' pm.mem))"
"$PROFILEME" mem report --all -i mem.data >pm.mem-all 2>&1
host_perf mem report --all --stdio -i mem.data >perf.mem-all.raw 2>/dev/null
no_tip perf.mem-all.raw >perf.mem-all
same mem.all pm.mem-all perf.mem-all "perf mem report --all prints profileme mem report --all ($(grep -m1 '^# Samples' pm.mem-all))"

# ---- registers: perf script names Alpha's ----
"$PROFILEME" record -e cycles:p -c 20000 --user-regs=r0,r26,gp,sp,pc -I -o regs.data -- "$W/callchain" 300000 \
  >regs.out 2>regs.err || fail regs "profileme record: $(tail -n 2 regs.err | tr '\n' ' ')"
"$PROFILEME" script -F ip,sym,uregs,iregs -i regs.data >pm.regs 2>&1
host_perf script -F ip,sym,uregs,iregs -i regs.data >perf.regs 2>/dev/null
if grep -q ' r26:0x[0-9a-f]* *gp:0x[0-9a-f]* *sp:0x[0-9a-f]* *pc:0x' perf.regs; then
  same regs pm.regs perf.regs "perf script -F uregs,iregs names the Alpha registers as profileme script does ($(wc -l <pm.regs) samples)"
else
  fail regs "no named registers: $(head -c 200 perf.regs)"
fi

# ---- perf annotate ----
host_perf annotate --stdio -i pm.data pages >perf.annotate 2>perf.annotate.err
# the instructions with a share, against perf dcpi's rows of pages (the
# table's pc column, before "pages+0x...")
got=$(awk -F: '$1 + 0 > 0 && $2 ~ /^ +[0-9a-f]+$/ { gsub(/ /, "", $2); print $2 }' perf.annotate | sort | paste -sd' ')
want=$(awk '!/^#/ { for (i = 2; i <= NF; i++) if ($i ~ /^pages\+0x/) { sub(/^0x/, "", $(i - 1)); print $(i - 1) } }' perf.dcpi-insn |
  sort | paste -sd' ')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
  pass "annotate: perf annotate gives a share to the $(wc -w <<<"$want") instructions of pages() perf dcpi lists"
else
  fail annotate "annotate: [$got], dcpi: [$want]; $(head -n 2 perf.annotate.err | tr '\n' ' ')"
fi
