#!/usr/bin/env bash
# Behaviour unchanged between two revisions: builds profileme at BASE and at
# HEAD, makes the same recordings with each build (fixed seeds, the same
# Alpha binaries at the same paths, a fixed environment and cwd) and compares
# every output byte for byte: each perf.data file, the record command's own
# output (the guest's stdout, record's stderr, the exit status), the text of
# the analysis commands (report --stdio, script, dcpi, annotate, ...) that
# each build prints from its own file (so a change in the tools that read
# files shows too, even when the files are equal), `stat -x,` and
# `run --timed` of guest perf_event_open programs. docs/same-output.md.
#
#   scripts/same-output.sh [--keep] BASE [HEAD]
#
# BASE and HEAD are git revisions (HEAD omitted: the working tree as it is,
# tracked and untracked files not ignored, uncommitted changes included).
# Prints "PASS same-output/NAME" or "FAIL same-output/NAME: first difference
# at byte N" (with the first lines of a diff) per output, then "N passed, N
# failed"; exit status 0 only when every output is equal (1 otherwise, 2 for
# bad arguments or a build that fails). --keep keeps the temporary directory
# (${TMPDIR:-/tmp}/same-output.XXXXXX: out/base, out/head) and prints its path.
# Environment: ALPHA_CC (default alpha-linux-gnu-gcc).
set -u

usage() {
  sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"
}

keep=0
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --keep) keep=1; shift ;;
    --) shift; break ;;
    -*) echo "same-output: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/same-output.sh [--keep] BASE [HEAD]   (--help for more)" >&2
  exit 2
fi
base_rev=$1
head_rev=${2:-}

root=$(cd "$(dirname "$0")/.." && pwd)
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
for r in "$base_rev" ${head_rev:+"$head_rev"}; do
  git -C "$root" rev-parse -q --verify "$r^{commit}" >/dev/null ||
    { echo "same-output: $r is not a revision of $root" >&2; exit 2; }
done
command -v "$CC" >/dev/null || { echo "same-output: $CC not found (install gcc-alpha-linux-gnu)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/same-output.XXXXXX") || exit 2
cleanup() {
  if [ "$keep" = 1 ]; then echo "same-output: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start=$SECONDS

# ---------------------------------------------------------------- builds
# Each revision is unpacked and built at the same path ($tmp/src, one after
# the other), so that the two binaries differ only by their sources (no
# directory name in debug info or __FILE__), then kept as $tmp/bin/SIDE.

# unpack SIDE REV: the sources of REV (or of the working tree when REV is
# empty) into $tmp/src.
unpack() {
  rm -rf "$tmp/src" && mkdir -p "$tmp/src"
  if [ -n "$2" ]; then
    git -C "$root" archive "$2" | tar -x -C "$tmp/src"
  else
    # (ls-files lists tracked files deleted in the working tree: skip those)
    git -C "$root" ls-files -z -c -o --exclude-standard |
      while IFS= read -r -d '' f; do [ -e "$root/$f" ] || [ -L "$root/$f" ] && printf '%s\0' "$f"; done |
      tar -C "$root" --null -T - -c | tar -x -C "$tmp/src"
  fi
}

# build SIDE REV: builds REV's profileme into $tmp/bin/SIDE.
build() {
  local side=$1 rev=$2 what=${2:-the working tree}
  mkdir -p "$tmp/bin"
  if ! unpack "$side" "$rev"; then
    echo "FAIL same-output/build-$side: cannot unpack $what"; return 1
  fi
  if ! make -C "$tmp/src" -j"$(nproc)" >"$tmp/build-$side.log" 2>&1 || [ ! -x "$tmp/src/build/profileme" ]; then
    echo "FAIL same-output/build-$side: make failed for $what ($tmp/build-$side.log):"
    tail -n 8 "$tmp/build-$side.log" | sed 's/^/    /'
    return 1
  fi
  cp "$tmp/src/build/profileme" "$tmp/bin/$side"
  rm -rf "$tmp/src"
}

if ! build base "$base_rev" || ! build head "$head_rev"; then
  keep=1
  echo "0 passed, 1 failed"
  exit 2
fi

# ---------------------------------------------------------------- guest programs
# Built once, into $tmp/guest, from this checkout's sources: both builds run
# the very same binaries from the same paths.
G=$tmp/guest
mkdir -p "$G"
# gcc NAME SRC FLAGS...
gcc_alpha() {
  local name=$1 src=$2; shift 2
  "$CC" -O2 -g "$@" -o "$G/$name" "$src" -lm -lpthread >"$G/$name.log" 2>&1 ||
    { echo "FAIL same-output/guest-build: $name from $src:"; head -n 5 "$G/$name.log" | sed 's/^/    /'; return 1; }
}
# workloads/demo.c with 64 KB of text instead of 1 MB: 5 s of record, not 100
sed 's/^#define TEXT_SIZE .*/#define TEXT_SIZE   (1u << 16)/' "$root/workloads/demo.c" >"$G/demo.c"
grep -q '^#define TEXT_SIZE   (1u << 16)$' "$G/demo.c" ||
  { echo "FAIL same-output/guest-build: workloads/demo.c has no TEXT_SIZE line to shrink"; exit 2; }
# the programs the chain runs: system calls of many kinds, signals, fork,
# exec, vfork and posix_spawn, sockets, pipes, mmap (dynamic, as guest.sh's
# NAME.dyn; the slow ones, threads_sync, time_funcs, wait_deadlines and
# malloc_stress, left out)
chain_progs=(sig_basic sig_alarm sig_fault abort_signal setjmp_longjmp file_io files_misc dup_fds stdio_file
             dirs pipes_poll sockets mmap_mem mremap_file rlimits sysinfo fork_wait exec_self spawn_self exit_status)
ok=1
gcc_alpha demo "$G/demo.c" -Wall || ok=0
gcc_alpha chain "$root/tests/sameoutput/chain.c" -Wall || ok=0
for p in calls signals threads forks; do gcc_alpha "$p" "$root/tests/unwind/$p.c" || ok=0; done
for p in "${chain_progs[@]}"; do gcc_alpha "$p" "$root/tests/guest/$p.c" || ok=0; done
for p in pm count sig ring inherit; do
  gcc_alpha "gp_$p" "$root/tests/guestperf/$p.c" -static -Wl,--no-relax -Wall || ok=0
done
[ "$ok" = 1 ] || { keep=1; echo "0 passed, 1 failed"; exit 2; }
chain_args=()
for p in "${chain_progs[@]}"; do chain_args+=("$G/$p"); done

# ---------------------------------------------------------------- the set
# The guest starts with a fixed environment (its size moves the stack) in an
# empty directory at the same path for both builds; outputs are written to
# the same path ($tmp/work) and moved to $tmp/out/SIDE afterwards, so that
# no path in a file or an output names the side.
guest_env=(env -i PATH=/usr/bin:/bin HOME=/home/guest LC_ALL=C)
P=$tmp/bin/profileme     # each build in turn, at this one path
W=$tmp/work

# capture OUT CMD...: runs CMD in a fresh $W/cwd with the fixed environment;
# OUT gets its stdout, its stderr and its exit status.
capture() {
  local out=$1; shift
  rm -rf "$W/cwd" && mkdir -p "$W/cwd"
  (cd "$W/cwd" && exec "${guest_env[@]}" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null)
  local st=$?
  { cat "$out.stdout"; echo "--- stderr"; cat "$out.stderr"; echo "--- exit status $st"; } >"$out"
  rm -f "$out.stdout" "$out.stderr"
}

# analyse FILE NAME KINDS: the analysis commands KINDS (space-separated) on
# FILE, by the build at $P, each into $W/NAME.KIND.
analyse() {
  local f=$1 name=$2 k a
  for k in $3; do
    case $k in
      report) a=(report --stdio) ;;
      report-n) a=(report --stdio -n -s comm,pid,dso,symbol,cpu) ;;
      children) a=(report --stdio --children -g caller) ;;
      script) a=(script) ;;
      script-F) a=(script -F comm,tid,cpu,time,ip,sym,dso,addr,period) ;;
      dcpi) a=(dcpi) ;;
      dcpi-insn) a=(dcpi --by insn -x,) ;;
      annotate) a=(annotate --stdio) ;;
      folded) a=(flamegraph --folded) ;;
      mem) a=(mem report --stdio) ;;
      itrace-report) a=(report --itrace=i1 --stdio) ;;
      cpi) a=(dcpi --cpi --by sym) ;;
      exec) a=(dcpi --exec --by sym) ;;
      *) echo "same-output: unknown analysis $k" >&2; exit 2 ;;
    esac
    capture "$W/$name.$k" "$P" "${a[@]}" -i "$f"
  done
}

# rec NAME KINDS ARGS...: profileme ARGS (record or mem record, -o inserted
# after the subcommand) into NAME.data, with NAME.record holding record's
# output, then analyse's KINDS on the file.
rec() {
  local name=$1 kinds=$2; shift 2
  local sub=("$1"); shift
  [ "${sub[0]}" = mem ] && { sub+=("$1"); shift; }
  rm -f "$W/$name.data"
  capture "$W/$name.record" "$P" "${sub[@]}" -o "$W/$name.data" "$@"
  [ -f "$W/$name.data" ] && analyse "$W/$name.data" "$name" "$kinds"
}

# txt NAME ARGS...: profileme ARGS's output into NAME.txt.
txt() { local name=$1; shift; capture "$W/$name.txt" "$P" "$@"; }

std="report script dcpi annotate"
recordings() {
  # perf's defaults: ProfileMe (cycles:p) in frequency mode, 4000 Hz
  rec demo "$std report-n" record -e cycles:p --seed 1 -- "$G/demo"
  # ProfileMe on every fetched instruction, killed ones too, fixed period
  # with the random interval
  rec pm-random "$std dcpi-insn" record -e cpu/event=1,profileme=1,random=1/ -c 4999 --seed 7 -- "$G/calls" 10
  # -g: the kernel's call chains (as root, kernel samples and frames)
  rec callgraph-fp "$std children folded" record -g -e cycles:p -c 9973 --seed 3 --privileged -- "$G/calls" 20
  # --call-graph dwarf: user registers and stacks, unwound by the reader,
  # across signal frames
  rec callgraph-dwarf "$std children folded" record --call-graph dwarf -F 20000 --seed 5 -- "$G/signals" 300
  # threads on 2 CPUs, unwound in the machine's kernel at each sample
  rec threads-smp "$std report-n folded" record --cpus 2 --call-graph dwarf --unwind-at-record -F 10000 --seed 2 -- "$G/threads" 4
  # system-wide on 2 CPUs over forking processes, with context switches
  rec forks-system "$std report-n script-F" record --cpus 2 -a --privileged --switch-events -e cycles:p -c 20011 --seed 4 -- "$G/forks" 4
  # the trace unit (AUX area) beside ProfileMe, threads on 2 CPUs (script
  # decodes the trace: calls and errors, as perf script's default "ce")
  rec trace "report script annotate itrace-report cpi exec" record --cpus 2 -e trace// -e cycles:p -c 4999 --seed 6 -- "$G/threads" 1
  # exact counts stored beside the samples
  rec truth "$std dcpi-insn" record --truth -e cpu/event=1,profileme=1,random=1/ -c 1999 --seed 11 -- "$G/calls" 5
  # the memory event, weights
  rec mem "mem script dcpi annotate" mem record -c 2003 --seed 12 -- "$G/demo"
  # an Aggregate event with the kernel over 20 programs run one after the
  # other: system calls of many kinds, signals, fork, exec, spawn
  rec syscalls-aggregate "$std report-n script-F" record -e instructions --privileged -c 20011 --seed 8 -- "$G/chain" "${chain_args[@]}"
  # the guest's own perf_event_open (ProfileMe sampling in the guest) while
  # record samples it
  rec guestperf-record "$std" record -e cycles:p -c 20011 --seed 10 -- "$G/gp_pm"
  # guest perf_event_open on the timed machine: counting, groups, signals,
  # inheritance across fork and threads on 2 CPUs; the ring buffer alone
  # (as the chain's child, ring.output_samples fails: its two events share
  # PCTR0 and take turns at the tick, whose phase the chain moves; and after
  # ring, inherit.prctl_enable fails in the same way)
  txt guestperf-run run --timed --cpus 2 --paranoid 1 --seed 13 -- "$G/chain" "$G/gp_count" "$G/gp_sig" "$G/gp_inherit"
  txt guestperf-ring run --timed --paranoid 1 --seed 13 -- "$G/gp_ring"
  # perf stat: multiplexed hardware events and the sim/ ground truth
  txt stat stat -x, --seed 14 -e cycles,instructions,cache-misses,mbox-replays,sim/cycles/,sim/instructions/,sim/branch-misses/,sim/killed/,sim/dtb-misses/ -- "$G/demo"
  # system-wide per-CPU counts over the system-call chain on 2 CPUs
  txt stat-system stat -x, --cpus 2 -a -A --seed 15 -e cycles,instructions,sim/cycles/,sim/instructions/u -- "$G/chain" "${chain_args[@]}"
}

# ---------------------------------------------------------------- runs
for side in base head; do
  t0=$SECONDS
  rm -rf "$W" && mkdir -p "$W"
  cp "$tmp/bin/$side" "$P"
  recordings
  rm -rf "$W/cwd"
  mkdir -p "$tmp/out"
  mv "$W" "$tmp/out/$side"
  echo "same-output: $side recorded in $((SECONDS - t0)) s" >&2
done

# ---------------------------------------------------------------- compare
pass=0 nfail=0
# first_diff A B: the offset (from 1) of the first byte where A and B differ.
first_diff() {
  local r
  r=$(cmp -- "$1" "$2" 2>&1)
  case $r in
    *"differ: byte "*) r=${r#*differ: byte }; echo "${r%%,*}" ;;
    *"EOF on "*" after byte "*) r=${r#*after byte }; r=${r%%,*}; echo $(( ${r%% *} + 1 )) ;;
    *"EOF on "*" which is empty"*) echo 1 ;;
    *) echo "?" ;;
  esac
}
cd "$tmp/out/base"
names=$(ls | sort)
for f in $(ls ../head | sort); do [ -e "$f" ] || names+=$'\n'"$f"; done
for f in $(printf '%s\n' "$names" | sort -u); do
  b=$tmp/out/base/$f h=$tmp/out/head/$f
  if [ ! -e "$b" ] || [ ! -e "$h" ]; then
    echo "FAIL same-output/$f: only in $([ -e "$b" ] && echo base || echo head)"
    nfail=$((nfail + 1))
  elif cmp -s "$b" "$h"; then
    echo "PASS same-output/$f"
    pass=$((pass + 1))
  else
    echo "FAIL same-output/$f: first difference at byte $(first_diff "$b" "$h") (base $(stat -c %s "$b") bytes, head $(stat -c %s "$h"))"
    nfail=$((nfail + 1))
    if [[ $f == *.data ]]; then
      # where: the first records that differ, as the head build's report -D
      # dumps them (each file copied to one path first: the dump names it)
      mkdir -p "$tmp/dump"
      for s in base head; do
        cp "$tmp/out/$s/$f" "$tmp/dump/$f"
        "$tmp/bin/head" report -D -i "$tmp/dump/$f" >"$tmp/dump/$s.txt" 2>&1
      done
      diff "$tmp/dump/base.txt" "$tmp/dump/head.txt" | head -n 8 | sed 's/^/    /'
    else
      diff -- "$b" "$h" | head -n 8 | sed 's/^/    /'
    fi
  fi
done
cd /
echo "same-output: $((SECONDS - start)) s" >&2
echo "$pass passed, $nfail failed"
[ "$nfail" = 0 ] && [ "$pass" -gt 0 ]
