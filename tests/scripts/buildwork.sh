#!/usr/bin/env bash
# The build workload (workloads/build.mk): GNU make -j2 and dash, built for
# Alpha from Debian sources (tests/realprogs/build.sh), run its jobs of Alpha
# lua and bzip2 (3 generated texts, their bzip2 round trips, 3 word counts
# piped through bzip2, lua test scripts, a summary) on two CPUs. Checks:
#   buildwork/make-j2-files      the files the jobs make equal those of the
#                                same make run under qemu-alpha (binfmt
#                                namespace), and the host's bzip2 -d gives
#                                the texts back from the .bz2 files
#   buildwork/record-a-attribution  record -a --switch-events (cycles:p,
#                                frequency mode): Linux perf's script of our
#                                file puts every sample on the task the
#                                CPU's last SWITCH_CPU_WIDE IN put there, with
#                                that task's last COMM and the MMAP2 covering
#                                its ip as dso (tests/lib/check-attribution.pl)
#   buildwork/record-a-script    our script -F pid,tid,comm,cpu,time,ip,dso
#                                equals Linux perf's
#   buildwork/report-every-job   report --sort comm,dso shows make, dash, lua
#                                and bzip2, and every job make started (its
#                                process tree) has samples
#   buildwork/job-sample-counts  record -a -e cycles -c 2000 (no throttling):
#                                each process's samples are its time on a
#                                CPU (between its switch records) times
#                                667 MHz / 2000
#   buildwork/lost-small-ring    record -a -m 1 on two spinning threads: LOST
#                                records, the kernel's lost count in
#                                LOST_SAMPLES (what it dropped, read with
#                                PERF_FORMAT_LOST) covers them, and record,
#                                our report and perf report give that total
# Under a sanitizer build (BUILD=*san*) the texts are 20 lines, not 200.
# Environment: BUILD, PROFILEME, QEMU_ALPHA, REALPROGS_DIR and PROFILEME_CACHE
# (where the programs are: tests/realprogs/build.sh, whose last line this
# prints: "realprogs: cached in DIR"...).
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
out=$BUILD/buildwork
mkdir -p "$out"
pass() { echo "PASS buildwork/$1"; }
fail() { echo "FAIL buildwork/$1"; }
if ! rp=$(bash tests/realprogs/build.sh 2>"$out/setup.err"); then
  fail "setup: cannot build the Alpha programs: $(tail -n 2 "$out/setup.err" | tr '\n' ' ')"
  exit 0
fi
tail -n 1 "$out/setup.err"
lines=200 min_samples=3000
# (at -F 50000 the 20-line run lasts some 40 ms of guest time: about 2,000 samples)
case $BUILD in *san*) lines=20 min_samples=1000 ;; esac
mk=("$rp/make.dyn" -s -f "$root/workloads/build.mk" -j2 "LINES=$lines" "SCRIPTS=closures strings"
    "LUA=$rp/lua.dyn" "BZ2=$rp/bzip2.dyn" "SHELL=$rp/dash.dyn")
guest_env=(PATH=/usr/bin:/bin HOME=/home/guest LC_ALL=C)

# fresh DIR: an empty directory.
fresh() { rm -rf "$1" && mkdir -p "$1"; }
# in DIR CMD...: runs CMD in DIR with the guest environment.
in_dir() { local d=$1; shift; (cd "$d" && exec env -i "${guest_env[@]}" "$@" </dev/null); }

# ---- the files, against qemu-alpha ----
fresh "$out/qemu"; fresh "$out/run"
in_dir "$out/qemu" perl "$root/tests/lib/qemu-oracle.pl" --binfmt "${mk[@]}" >"$out/qemu.log" 2>&1
qst=$?
in_dir "$out/run" "$PROFILEME" run --cpus 2 -- "${mk[@]}" >"$out/run.log" 2>&1
st=$?
q=$(cd "$out/qemu" && ls | tr '\n' ' ')
p=$(cd "$out/run" && ls | tr '\n' ' ')
bad=
for f in $q; do cmp -s "$out/qemu/$f" "$out/run/$f" || bad+=" $f"; done
host_ok=1
for f in "$out"/run/words?.txt; do bzip2 -dc "$f.bz2" 2>/dev/null | cmp -s - "$f" || host_ok=0; done
n=$(wc -w <<<"$q")
if [ "$qst" != 0 ]; then fail "make-j2-files: qemu-alpha's make failed (status $qst): $(tail -n 2 "$out/qemu.log" | tr '\n' ' ')"
elif [ "$st" != 0 ]; then fail "make-j2-files: make -j2 exited $st: $(tail -n 2 "$out/run.log" | tr '\n' ' ')"
elif [ "$q" != "$p" ]; then fail "make-j2-files: files [$p], qemu made [$q]"
elif [ -n "$bad" ]; then fail "make-j2-files: differ from qemu-alpha's:$bad"
elif [ "$host_ok" != 1 ]; then fail "make-j2-files: the host's bzip2 -d does not give the texts back"
elif [ "$n" -lt 16 ]; then fail "make-j2-files: only $n files ($q)"
else pass "make-j2-files: make -j2 on 2 CPUs made $n files, all equal to qemu-alpha's ($(tail -n 1 "$out/run/summary.txt"))"
fi

# ---- record -a, defaults but a higher frequency ----
fresh "$out/rec"
freq=50000
in_dir "$out/rec" "$PROFILEME" record -q -a --privileged --cpus 2 --switch-events -F $freq \
  -o "$out/a.data" -- "${mk[@]}" >/dev/null 2>"$out/rec.err"
st=$?
perf script -i "$out/a.data" --show-task-events --show-mmap-events --show-switch-events \
  -F pid,tid,comm,cpu,time,ip,dso,period >"$out/a.side" 2>/dev/null
perl tests/lib/check-attribution.pl $freq <"$out/a.side" >"$out/a.check"
res=$(head -n 1 "$out/a.check")
if [ "$st" != 0 ] || [ -s "$out/rec.err" ]; then fail "record-a-attribution: record exited $st: $(head -c 200 "$out/rec.err")"
elif [[ $res != ok* ]] || [ "${res#ok }" -lt "$min_samples" ]; then fail "record-a-attribution: $res (at least $min_samples wanted)"
else pass "record-a-attribution: all ${res#ok } samples of 2 CPUs on the right pid/tid, comm and dso"
fi

perf script -i "$out/a.data" -F pid,tid,comm,cpu,time,ip,dso >"$out/a.perf" 2>/dev/null
"$PROFILEME" script -i "$out/a.data" -F pid,tid,comm,cpu,time,ip,dso >"$out/a.ours" 2>/dev/null
if [ -s "$out/a.perf" ] && cmp -s "$out/a.perf" "$out/a.ours"; then
  pass "record-a-script: $(wc -l <"$out/a.perf") lines as Linux perf's"
else fail "record-a-script: our script differs from perf's: $(diff "$out/a.perf" "$out/a.ours" | head -n 3 | tr '\n' ' ')"
fi

"$PROFILEME" report -i "$out/a.data" --stdio --sort comm,dso >"$out/a.report" 2>&1
jobs=$(grep '^jobs ' "$out/a.check")
missing=${jobs#* missing }
lacking=
for c in make.dyn dash.dyn lua.dyn bzip2.dyn; do
  grep -Eq "%  +$c +(/.*/)?$c( |$)" "$out/a.report" || lacking+=" $c"
done
if [ -n "$lacking" ]; then fail "report-every-job: no comm,dso line of its own binary for:$lacking"
elif [ -z "$jobs" ] || [ -n "$missing" ]; then fail "report-every-job: ${jobs:-no jobs}"
else set -- $jobs; pass "report-every-job: make, dash, lua and bzip2 in report --sort comm,dso; all $2 jobs of make have samples"
fi

# ---- per-process counts against the time on a CPU ----
fresh "$out/rec"
in_dir "$out/rec" "$PROFILEME" record -q -a --privileged --cpus 2 --switch-events -e cycles -c 2000 \
  --max-sample-rate 1000000 -o "$out/c.data" -- "${mk[@]}" >/dev/null 2>"$out/recc.err"
st=$?
perf script -i "$out/c.data" --show-task-events --show-mmap-events --show-switch-events \
  -F pid,tid,comm,cpu,time,ip,dso,period 2>/dev/null |
  perl tests/lib/check-attribution.pl 333500 >"$out/c.check"
# A process's count may be off by 2% and by 25 samples (75 us) per slice:
# records carry the machine's guest time, which never goes back, so those
# of the CPU running behind the other are stamped late by up to a round
# (16,384 instructions, 25-75 us; docs/machine.md), which lengthens the
# slice a switch-out ends. Measured: up to 20 per slice (dash waiting for
# its children), 0 to 5 for the CPU-bound jobs.
why=$(awk 'NR == 1 && $1 != "ok" { print; bad = 1; exit } NR > 1 && $1 ~ /^[0-9]+$/ {
             d = $3 - $4; if (d < 0) d = -d
             if (d > 0.02 * $4 + 25 * $5 + 2) { printf "pid %s (%s): %d samples, %d expected\n", $1, $2, $3, $4; bad = 1; exit }
             n++ }
           END { if (!bad && !n) print "no processes" }' "$out/c.check")
if [ "$st" != 0 ]; then fail "job-sample-counts: record exited $st: $(head -c 200 "$out/recc.err")"
elif [ -n "$why" ]; then fail "job-sample-counts: $why"
else pass "job-sample-counts: $(grep -c '^[0-9]' "$out/c.check") processes, each with its time on a CPU / 3 us samples"
fi

# ---- a ring too small: every drop counted ----
alpha_static tests/smp/spin2.c "$out/spin2" || { fail "lost-small-ring: cannot build spin2"; exit 0; }
"$PROFILEME" record -a --privileged --cpus 2 -m 1 -c 500 --max-sample-rate 1000000 -o "$out/l.data" \
  -- "$out/spin2" 200000 >/dev/null 2>"$out/l.err"
said=$(sed -n 's/^profileme record: \([0-9]*\) samples lost.*/\1/p' "$out/l.err")
stats=$(perf report -i "$out/l.data" --stats 2>/dev/null)
nlost=$(awk '$1 == "LOST" && $2 == "events:" { print $3; exit }' <<<"$stats")
in_lost=$(perf script -i "$out/l.data" --show-lost-events -F cpu 2>/dev/null | awk '$2 == "PERF_RECORD_LOST" { s += $NF } END { print s + 0 }')
kernel=$(perf script -i "$out/l.data" -D 2>/dev/null | awk -F'lost samples :' '/PERF_RECORD_LOST_SAMPLES/ { s += $2 } END { print s + 0 }')
theirs=$(perf report -i "$out/l.data" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
ours=$("$PROFILEME" report -i "$out/l.data" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
if [ -z "$nlost" ] || [ "$nlost" = 0 ]; then fail "lost-small-ring: no LOST record with a 1-page ring"
elif [ "$kernel" -lt "$in_lost" ] || [ "$kernel" = 0 ]; then fail "lost-small-ring: LOST records say $in_lost, the kernel's count $kernel"
elif [ "$said" != "$kernel" ] || [ "$theirs" != "$kernel" ] || [ "$ours" != "$kernel" ]; then
  fail "lost-small-ring: kernel $kernel, record said '$said', perf report '$theirs', ours '$ours'"
else pass "lost-small-ring: $nlost LOST records of $in_lost samples; the kernel dropped $kernel, and record, perf report and ours say $kernel"
fi
