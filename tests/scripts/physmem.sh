#!/usr/bin/env bash
# Guest memory as frames of the machine's RAM (docs/machine.md "Physical
# memory"), from the guest's side. Oracles: qemu-alpha for what a program
# prints (touching memory, a MAP_SHARED page written by a forked child), and
# Linux's rules where qemu has no RAM size: a single writable mapping larger
# than the RAM fails with ENOMEM (heuristic overcommit, __vm_enough_memory),
# and a page fault that finds no free frame ends the process with SIGKILL
# (the OOM killer: exit status 128+9), in functional and timed runs alike.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/physmem
mkdir -p "$out"
pass() { echo "PASS physmem/$1"; }
fail() { echo "FAIL physmem/$1: $2"; }
QEMU=${QEMU_ALPHA:-qemu-alpha}
alpha_static "$root/tests/physmem/oom.c" "$out/oom" || { fail build "cannot build oom.c"; exit 0; }

# same_as_qemu NAME ARGS...: profileme's stdout and status equal qemu-alpha's.
same_as_qemu() {
  local name=$1; shift
  local pm q
  pm=$("$PROFILEME" run -- "$out/oom" "$@" 2>&1; echo "status $?")
  q=$("$QEMU" "$out/oom" "$@" 2>&1; echo "status $?")
  if [ "$pm" = "$q" ]; then pass "$name: $(head -1 <<<"$pm")"; else fail "$name" "profileme '$pm', qemu '$q'"; fi
}
same_as_qemu touch-100mb touch 100
same_as_qemu shared-across-fork shared

r=$("$PROFILEME" run --ram 64M -- "$out/oom" bigmap 128 2>&1)
[ "$r" = ENOMEM ] && pass "mmap-larger-than-ram: 128 MB on a 64 MB machine: $r" || fail mmap-larger-than-ram "$r"
r=$("$PROFILEME" run --ram 64M -- "$out/oom" bigmap 48 2>&1)
[ "$r" = mapped ] && pass "mmap-within-ram: 48 MB maps (frames come on touch)" || fail mmap-within-ram "$r"

# 64 MB of RAM, 32 MB of it the kernel's: touching 48 MB runs out of frames.
for mode in run stat; do
  if [ $mode = run ]; then r=$("$PROFILEME" run --ram 64M -- "$out/oom" touch 48 2>"$out/err"); s=$?
  else r=$("$PROFILEME" stat --ram 64M -e instructions -- "$out/oom" touch 48 2>"$out/err"); s=$?; fi
  if [ $s = 137 ] && [ -z "$r" ]; then pass "oom-kill-$mode: touching 48 MB of 64: SIGKILL (status $s)"
  else fail "oom-kill-$mode" "status $s, stdout '$r', stderr $(head -c 300 "$out/err")"; fi
done
r=$("$PROFILEME" run --ram 64M -- "$out/oom" touch 16 2>&1); s=$?
[ $s = 0 ] && [ "$r" = "touched 16 MB" ] && pass "fits-in-64mb: 16 MB touched" || fail fits-in-64mb "status $s: $r"

# sysinfo: totalram is the RAM the allocator manages (the kernel's 32 MB kept).
r=$("$PROFILEME" run --ram 256M -- "$out/oom" sysinfo 2>&1)
[ "$r" = "totalram 224 MB, free 1" ] && pass "sysinfo-totalram: --ram 256M: $r" || fail sysinfo-totalram "$r"

"$PROFILEME" run --ram 10M -- "$out/oom" touch 1 >/dev/null 2>"$out/err"; s=$?
[ $s = 2 ] && grep -q -- "--ram wants" "$out/err" && pass "ram-option-bounds: --ram 10M refused" || fail ram-option-bounds "status $s: $(cat "$out/err")"
"$PROFILEME" run --help | grep -q -- "--ram SIZE" && pass "ram-option-documented: run --help" || fail ram-option-documented "not in run --help"

# The timing model's caches see frames: 256 KB written, then read line by
# line. By the same process the lines are in the Bcache; by a forked child in
# its private copy they are other frames, never read, so every one of the
# 4,096 lines comes from memory; by a child sharing the mapping they are the
# same frames again. (With virtual addresses as physical, the private child
# would hit like the others.) Counted by sim/bcache-misses/ (loads).
alpha_static "$root/tests/physmem/forkread.c" "$out/forkread" || { fail build "cannot build forkread.c"; exit 0; }
bcm() { "$PROFILEME" stat -x, -e sim/bcache-misses/ -- "$out/forkread" "$1" 2>&1 >/dev/null | awk -F, '$3 == "sim/bcache-misses/" { print $1 }'; }
n=$(bcm nofork); p=$(bcm private); s=$(bcm shared)
if awk -v n="$n" -v p="$p" -v s="$s" 'BEGIN { exit !(n != "" && p - n >= 4096 * 0.95 && s - n < 4096 * 0.1) }'; then
  pass "caches-see-frames: Bcache misses (loads) nofork $n, forked private copy $p (+$((p - n)) of 4096 lines), shared $s"
else fail caches-see-frames "nofork $n, private $p, shared $s (want private >= nofork + 3891, shared < nofork + 410)"; fi
