#!/usr/bin/env bash
# Third-party programs that call perf_event_open, built for Alpha from
# their public sources (tests/thirdparty/build.sh: libpfm4's perf_examples,
# the Linux 6.1 perf_events selftests), run unchanged in the machine
# (`profileme run --timed`); docs/guest-perf.md says what each
# printed. Their counts are held against our own tools on the same
# workload (tests/thirdparty/work.c) and against analytical counts:
#  - task (libpfm4) counting software events of a child from its exec
#    (enable_on_exec): page-faults and context-switches equal `profileme
#    stat`'s; 200 more pages touched give exactly 200 more page faults;
#    with -i (inherit) the children's are added, equal to stat's (which
#    inherits too); the group ran whenever its leader was enabled;
#  - task with a hardware event (cycles) and self_basic (cycles:u) are
#    refused with EINVAL, as on Linux 6.1's Alpha: its PMU sets
#    PERF_PMU_CAP_NO_EXCLUDE and libpfm4 always sets exclude_guest (and
#    exclude_hv), so the core refuses them (arch/alpha/kernel/perf_event.c,
#    kernel/events/core.c perf_try_init_event);
#  - task_smpl sampling with ProfileMe (perf_raw::r101, period 100000)
#    collects as many samples as `profileme record -e
#    cpu/event=1,profileme=1/ -c 100000 --privileged` of the same run, none
#    lost, each of PERIOD 100000; with -i its mmap is refused (EINVAL), as
#    Linux refuses to map a per-task inherited event;
#  - syst_count (system-wide, one event per CPU from sysconf's CPU count,
#    which the guest's /sys/devices/system/cpu/online gives) counts every
#    CPU of the machine and no other, for the 1 s it sleeps (enabled time
#    1 s within 1%); as a normal user at paranoid 2 it is refused (EACCES);
#  - the kernel selftests remove_on_exec (a hardware event with
#    exclude_kernel: EINVAL, as above) and sigtrap_threads (a breakpoint
#    event: no breakpoint PMU, ENOENT) run their harness to the end, every
#    test failing at perf_event_open, none crashing.
# Checks: thirdparty/{task,task_smpl,syst_count,self_basic,self_count,selftest}.*.
# Environment: BUILD, PROFILEME, THIRDPARTY_TIMEOUT (s per run, default 120),
# THIRDPARTY_DIR (the built programs; default: their entry in the cache,
# tests/thirdparty/build.sh), PROFILEME_CACHE. Prints the build's last line
# ("thirdparty: cached in DIR", "thirdparty: built in N s into DIR"...).
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
# The Alpha binaries do not depend on how the host side was built (SAN=1
# builds into build-san/): one cache entry for both (tests/lib/cache.bash).
work=$BUILD/thirdparty-runs
timeout_s=${THIRDPARTY_TIMEOUT:-120}
env_i=(env -i PATH=/usr/bin:/bin LC_ALL=C)
mkdir -p "$work"

if ! tp=$(bash tests/thirdparty/build.sh 2>"$work/build.err"); then
  echo "FAIL thirdparty/build: $(tail -n 3 "$work/build.err" | tr '\n' ' ')"
  exit 1
fi
tail -n 1 "$work/build.err"
wl=$work/work
alpha_cc "$wl" tests/thirdparty/work.c -O2 2>/dev/null || { echo "FAIL thirdparty/build: work.c: $(head -2 "$wl.log")"; exit 1; }

pass() { echo "PASS thirdparty/$1"; }
fail() { echo "FAIL thirdparty/$1: $2"; }
# run NAME PROFILEME-ARGS... : runs in the machine, output in $work/NAME.{out,err}
run() {
  local name=$1; shift
  "${env_i[@]}" timeout -k 5 "$timeout_s" "$PROFILEME" "$@" >"$work/$name.out" 2>"$work/$name.err"
  echo $? >"$work/$name.status"
}
# count FILE EVENT: task's count of EVENT (first column of its line)
count() { awk -v e="$2" '$2 == e { gsub(",", "", $1); print $1; exit }' "$1"; }
# stat_count FILE EVENT: profileme stat's count of EVENT
stat_count() { awk -v e="$2" '$2 == e { gsub(",", "", $1); print $1; exit }' "$1"; }
# eq NAME GOT WANT
eq() { if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '${2}', want '${3}'"; fi; }

L=100000
# ---- libpfm4 task: counting ----
for pg in 200 400; do
  run task.$pg run --timed --paranoid 1 "$tp/task" -e page-faults,task-clock,context-switches -- "$wl" $pg $L
  run stat.$pg stat -e page-faults,task-clock,context-switches -- "$wl" $pg $L
  for ev in page-faults context-switches; do
    eq "task.$ev.$pg" "$(count "$work/task.$pg.out" $ev)" "$(stat_count "$work/stat.$pg.err" $ev)"
  done
  # One group (the leader page-faults, enabled on exec): it ran all the
  # time it was enabled, and its siblings ran exactly when it did (they are
  # enabled from perf_event_open, so Linux gives them a little more enabled
  # time: the child's run from the go pipe to exec).
  runs=$(sed -n 's/.*ena=\([0-9]*\), run=\([0-9]*\)).*/\1 \2/p' "$work/task.$pg.out" |
         awk 'NR == 1 { lead = $2; ok = ($1 == $2) } NR > 1 { ok = ok && $2 == lead && $1 >= $2 } END { print NR, ok }')
  if [ "$runs" = "3 1" ]; then
    pass "task.group-times.$pg"
  else
    fail "task.group-times.$pg" "$(grep scaling "$work/task.$pg.out" | tr -s ' ' | tr '\n' ';')"
  fi
done
a=$(count "$work/task.200.out" page-faults); b=$(count "$work/task.400.out" page-faults)
eq task.page-faults.analytic "$(( ${b:-0} - ${a:-0} ))" 200
# task-clock: positive and within the time the event was enabled
tc=$(count "$work/task.200.out" task-clock)
ena=$(sed -n 's/.* task-clock .*ena=\([0-9]*\),.*/\1/p' "$work/task.200.out")
if [ -n "$tc" ] && [ -n "$ena" ] && [ "$tc" -gt 0 ] && [ "$tc" -le "$ena" ]; then
  pass task.task-clock
else
  fail task.task-clock "task-clock '$tc' not in (0, ena '$ena']"
fi

# inherit: the two children's faults are counted too
run task.inherit run --timed --paranoid 1 "$tp/task" -i -e page-faults -- "$wl" 200 $L 2
run stat.inherit stat -e page-faults -- "$wl" 200 $L 2
got=$(count "$work/task.inherit.out" page-faults)
eq task.inherit "$got" "$(stat_count "$work/stat.inherit.err" page-faults)"
if [ -n "$got" ] && [ "$got" -ge 600 ]; then pass task.inherit.analytic; else fail task.inherit.analytic "$got < 3 x 200 pages"; fi

# hardware events through libpfm4: EINVAL as on Linux/Alpha
run task.cycles run --timed --paranoid 1 "$tp/task" -e cycles -- "$wl" 1 1
if grep -q 'cannot attach event.*cycles: Invalid argument' "$work/task.cycles.err" &&
   [ "$(cat "$work/task.cycles.status")" != 0 ]; then
  pass task.cycles-refused
else
  fail task.cycles-refused "$(head -n 1 "$work/task.cycles.err")"
fi
run self_basic run --timed --paranoid 1 "$tp/self_basic"
if grep -q 'cannot create event: Invalid argument' "$work/self_basic.err"; then
  pass self_basic.refused
else
  fail self_basic.refused "$(head -n 1 "$work/self_basic.err")"
fi
# self_count maps only the user page of each event (one page, PROT_READ:
# nr_pages 0, which Linux's perf_mmap allows) and reads the counts through
# read(2) when the page offers no rdpmc (Alpha has none): a software event
# counts, its mmap succeeds.
# (it counts for alarm(10): guest clocks follow the host clock here, 10 s)
run self_count run --real-time --paranoid 1 "$tp/self_count" task-clock
if [ "$(cat "$work/self_count.status")" = 0 ] && grep -q 'using read' "$work/self_count.out" &&
   grep -Eq '^ +[1-9][0-9]* task-clock$' "$work/self_count.out"; then
  pass "self_count.userpage-only: $(grep -c task-clock "$work/self_count.out") counts read"
else
  fail self_count.userpage-only "status $(cat "$work/self_count.status"): $(head -n 2 "$work/self_count.err")"
fi

# ---- libpfm4 task_smpl: ProfileMe sampling through the ring ----
for pg in 200 2000; do
  run task_smpl.$pg run --timed --paranoid 1 "$tp/task_smpl" -e perf_raw::r101:period=100000 -- "$wl" $pg 1000000
  run record.$pg record --privileged -e cpu/event=1,profileme=1/ -c 100000 -o "$work/rec.data" -- "$wl" $pg 1000000
  got=$(sed -n 's/^\([0-9]*\) samples collected in .*, \([0-9]*\) lost samples$/\1 \2/p' "$work/task_smpl.$pg.out")
  want=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$work/record.$pg.err")
  eq "task_smpl.samples.$pg" "$got" "$want 0"
  np=$(grep -c '^IIP:' "$work/task_smpl.$pg.out"); nper=$(grep -c '^IIP:.* PERIOD:100000 ' "$work/task_smpl.$pg.out")
  if [ "$np" -gt 0 ] && [ "$np" = "$nper" ]; then pass "task_smpl.period.$pg"; else fail "task_smpl.period.$pg" "$nper of $np samples have PERIOD 100000"; fi
done
rm -f "$work/rec.data" "$work/rec.data.old"
# with -i the per-task event inherits, and Linux refuses to mmap that
# (perf_mmap: cpu == -1 && attr.inherit is EINVAL)
run task_smpl.inherit run --timed --paranoid 1 "$tp/task_smpl" -i -e perf_raw::r101:period=100000 -- "$wl" 1 1
if grep -q 'cannot mmap buffer: Invalid argument' "$work/task_smpl.inherit.err"; then
  pass task_smpl.inherit-refused
else
  fail task_smpl.inherit-refused "$(head -n 1 "$work/task_smpl.inherit.err")"
fi

# ---- libpfm4 syst_count: system-wide, per CPU ----
for n in 1 2; do
  run syst.$n run --timed --cpus $n --privileged "$tp/syst_count" -d 1 -e cpu-clock
  cpus=$(grep -o '^CPU[0-9]*' "$work/syst.$n.out" | sort -u | tr '\n' ' ')
  want=$(for ((c = 0; c < n; c++)); do printf 'CPU%d ' $c; done)
  eq "syst_count.cpus.$n" "$cpus" "$want"
  bad=$(sed -n 's/.*ena=\([0-9]*\), run=\([0-9]*\)).*/\1 \2/p' "$work/syst.$n.out" |
        awk '{ if ($1 < 990000000 || $1 > 1010000000 || $1 != $2) n++ } END { print n + 0 }')
  if grep -q 'ena=' "$work/syst.$n.out" && [ "$bad" = 0 ]; then pass "syst_count.enabled.$n"; else fail "syst_count.enabled.$n" "$bad CPUs not enabled 1 s"; fi
done
run syst.user run --timed --paranoid 2 "$tp/syst_count" -d 1 -e cpu-clock
if grep -q 'Permission denied' "$work/syst.user.err"; then pass syst_count.user-refused; else fail syst_count.user-refused "$(head -n 1 "$work/syst.user.err")"; fi

# ---- Linux 6.1 selftests: refused at perf_event_open, harness to the end ----
for t in remove_on_exec:4 sigtrap_threads:5; do
  name=${t%:*} n=${t#*:}
  run "selftest.$name" run --timed --paranoid 1 "$tp/$name"
  o=$work/selftest.$name.out
  if grep -q "^# FAILED: 0 / $n tests passed" "$o" &&
     [ "$(grep -c "Expected self->fd (-1) != -1 (-1)" "$work/selftest.$name.err")" = "$n" ]; then
    pass "selftest.$name.refused"
  else
    fail "selftest.$name.refused" "$(grep -m1 '^# FAILED\|^# PASSED\|^not ok\|^ok' "$o")"
  fi
done
