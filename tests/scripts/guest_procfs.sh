#!/usr/bin/env bash
# The guest's /proc (src/guest/procfs.h): tests/guestsys/procfs_view.c,
# built for Alpha (dynamic and static), checks from inside the machine what
# it knows of itself (its ids, name, threads, argv, environ, addresses, the
# maps lines Linux's mm/mmap.c rules give for the mappings it makes, /proc's
# listing of its processes and not the host's, the errors) and prints
# "check NAME ok|FAILED", each a check here. Then, against Linux 6.1's
# sources and the run's options:
#  - status's fields, in order, as fs/proc/array.c proc_pid_status prints
#    them with Alpha's configuration (no seccomp, no hugetlb; CONFIG_PID_NS,
#    CONFIG_CPUSETS);
#  - /proc/cpuinfo exactly as arch/alpha/kernel/setup.c show_cpuinfo prints
#    it for the machine (an AlphaServer ES40 of 667 MHz EV67s, as
#    procfs.c's gen_cpuinfo says), with --cpus N in "cpus detected",
#    "cpus active" and the mask;
#  - /proc/kallsyms: "%016lx %c %s" lines sorted by address, the addresses
#    zero unless kallsyms_show_value allows them (kptr_restrict 0:
#    perf_event_paranoid <= 1, or --privileged for CAP_SYSLOG), and then
#    resolving every kernel sample of a recording of the same program to
#    the symbol `profileme script` names (the host tool's reading of the
#    same kernel image);
#  - the capabilities status shows: all for --privileged, none otherwise.
# Checks: guest_procfs/{check.NAME,status-keys,cpuinfo,kallsyms,caps}.TAG.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
out=$BUILD/guestprocfs
mkdir -p "$out"
env_i=(env -i PATH=/usr/bin:/bin LC_ALL=C HOME=/home/guest)

pass() { echo "PASS guest_procfs/$1"; }
fail() { echo "FAIL guest_procfs/$1: $2"; }

for v in dyn static; do
  bin=$out/procfs_view.$v
  flags=()
  [ "$v" = static ] && flags=(-static -Wl,--no-relax)
  if [ ! -x "$bin" ] || [ tests/guestsys/procfs_view.c -nt "$bin" ]; then
    if ! "$CC" -O2 -Wall -Wextra -Werror "${flags[@]}" -o "$bin" tests/guestsys/procfs_view.c -lpthread \
         2>"$bin.cc.log"; then
      echo "FAIL guest_procfs/build.$v: $(head -n 3 "$bin.cc.log")"
      exit 1
    fi
  fi
done

# The field names of proc_pid_status in Linux 6.1 (fs/proc/array.c,
# fs/proc/task_mmu.c task_mem), for a process with an mm on Alpha.
status_keys="Name Umask State Tgid Ngid Pid PPid TracerPid Uid Gid FDSize Groups NStgid NSpid NSpgid NSsid \
VmPeak VmSize VmLck VmPin VmHWM VmRSS RssAnon RssFile RssShmem VmData VmStk VmExe VmLib VmPTE VmSwap \
CoreDumping THP_enabled Threads SigQ SigPnd ShdPnd SigBlk SigIgn SigCgt CapInh CapPrm CapEff CapBnd CapAmb \
NoNewPrivs Speculation_Store_Bypass SpeculationIndirectBranch Cpus_allowed Cpus_allowed_list \
Mems_allowed Mems_allowed_list voluntary_ctxt_switches nonvoluntary_ctxt_switches"

# expected_cpuinfo N: show_cpuinfo's text for the machine with N CPUs.
expected_cpuinfo() {
  local n=$1
  printf 'cpu\t\t\t: Alpha\ncpu model\t\t: EV67\ncpu variation\t\t: 7\ncpu revision\t\t: 0\n'
  printf 'cpu serial number\t: \nsystem type\t\t: Tsunami\nsystem variation\t: Clipper\nsystem revision\t\t: 0\n'
  printf 'system serial number\t: \n'
  # hwrpb cycle_freq (667 MHz; est_cycle_freq 0, so no "est."), HZ 1024,
  # 8 KB pages, EV6's 44 physical address bits and 255 ASNs.
  printf 'cycle frequency [Hz]\t: 667000000 \ntimer frequency [Hz]\t: 1024.00\npage size [bytes]\t: 8192\n'
  printf 'phys. address bits\t: 44\nmax. addr. space #\t: 255\n'
  # calibrate_delay_converge with an exact __delay: 649728 loops per jiffy;
  # lpj / (500000 / HZ) = 1331, (lpj / (5000 / HZ)) % 100 = 32.
  printf 'BogoMIPS\t\t: 1331.32\n'
  printf 'kernel unaligned acc\t: 0 (pc=0,va=0)\nuser unaligned acc\t: 0 (pc=0,va=0)\n'
  printf 'platform string\t\t: AlphaServer ES40\ncpus detected\t\t: %d\ncpus active\t\t: %d\n' "$n" "$n"
  printf 'cpu active mask\t\t: %016x\n' $(( (1 << n) - 1 ))
  printf 'L1 Icache\t\t: 64K, 2-way, 64b line\nL1 Dcache\t\t: 64K, 2-way, 64b line\n'
  printf 'L2 cache\t\t: 4096K, 1-way, 64b line\nL3 cache\t\t: n/a\n'
}

# section NAME FILE: the lines between "begin NAME" and "end NAME".
section() { sed -n "/^begin $1\$/,/^end $1\$/p" "$2" | sed '1d;$d'; }

# check_run TAG CPUS SHOWN(yes|no) PRIVILEGED(yes|no): the run's output in $out/TAG.out.
check_run() {
  local tag=$1 cpus=$2 shown=$3 priv=$4 o=$out/$1.out
  local n_ok n_bad
  n_ok=$(grep -c '^check .* ok$' "$o")
  n_bad=$(grep -c '^check .* FAILED' "$o")
  sed -n "s/^check \([^ ]*\) ok\$/PASS guest_procfs\/check.\1.$tag/p; s/^check \([^ ]*\) FAILED: /FAIL guest_procfs\/check.\1.$tag: /p" "$o"
  # (a run that stopped early has fewer)
  if [ "$((n_ok + n_bad))" -lt 70 ]; then fail "checks.$tag" "$((n_ok + n_bad)) checks ran ($(tail -n 2 "$out/$tag.err" | tr '\n' ' '))"; fi
  local keys
  keys=$(sed -n 's/^status-keys //p' "$o")
  if [ "$keys" = "$status_keys" ]; then pass "status-keys.$tag"
  else fail "status-keys.$tag" "got '$keys'"; fi
  expected_cpuinfo "$cpus" >"$out/$tag.cpuinfo.expect"
  section cpuinfo "$o" >"$out/$tag.cpuinfo.got"
  if diff -u "$out/$tag.cpuinfo.expect" "$out/$tag.cpuinfo.got" >"$out/$tag.cpuinfo.diff"; then pass "cpuinfo.$tag"
  else fail "cpuinfo.$tag" "differs"; head -n 12 "$out/$tag.cpuinfo.diff" | sed 's/^/    /'; fi
  section kallsyms "$o" >"$out/$tag.kallsyms"
  local why
  why=$(python3 - "$out/$tag.kallsyms" "$shown" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
shown = sys.argv[2] == "yes"
addrs = []
for l in lines:
    m = re.fullmatch(r"([0-9a-f]{16}) ([TtDdBbRr]) (\S+)", l)
    if not m:
        print("malformed line %r" % l); sys.exit()
    addrs.append(int(m.group(1), 16))
names = [l.split()[2] for l in lines]
if len(lines) < 10 or "entSys" not in names or "_text" not in names or "_etext" not in names:
    print("%d symbols, missing entSys, _text or _etext" % len(lines)); sys.exit()
if shown:
    if addrs != sorted(addrs) or min(addrs) < 0xfffffc0000000000:
        print("not sorted, or outside KSEG"); sys.exit()
    if addrs[names.index("_text")] != min(addrs) or addrs[names.index("_etext")] != max(addrs):
        print("_text and _etext do not bound the text"); sys.exit()
elif any(addrs):
    print("addresses shown where kallsyms_show_value hides them"); sys.exit()
EOF
)
  if [ -z "$why" ]; then pass "kallsyms.$tag"; else fail "kallsyms.$tag" "$why"; fi
  local caps want
  caps=$(section status "$o" | grep '^Cap' | tr '\t' ' ' | tr '\n' ';')
  if [ "$priv" = yes ]; then want="CapInh: 0000000000000000;CapPrm: 000001ffffffffff;CapEff: 000001ffffffffff;"
  else want="CapInh: 0000000000000000;CapPrm: 0000000000000000;CapEff: 0000000000000000;"; fi
  want+="CapBnd: 000001ffffffffff;CapAmb: 0000000000000000;"
  if [ "$caps" = "$want" ]; then pass "caps.$tag"; else fail "caps.$tag" "got '$caps'"; fi
}

args=(one "two words" "")
# run: functional, 2 CPUs, paranoid 2 (the default), a normal user.
"${env_i[@]}" "$PROFILEME" run --cpus 2 -- "$out/procfs_view.dyn" "${args[@]}" >"$out/run.out" 2>"$out/run.err"
check_run run 2 no no
# static, one CPU.
"${env_i[@]}" "$PROFILEME" run -- "$out/procfs_view.static" "${args[@]}" >"$out/static.out" 2>"$out/static.err"
check_run static 1 no no
# timed, 3 CPUs, paranoid 1: kallsyms shows the addresses (kallsyms_for_perf).
"${env_i[@]}" "$PROFILEME" run --timed --cpus 3 --paranoid 1 -- "$out/procfs_view.dyn" "${args[@]}" \
  >"$out/timed.out" 2>"$out/timed.err"
check_run timed 3 yes no
# record --privileged (CAP_SYSLOG): shown; every kernel sample's symbol, as
# `profileme script` resolves it, is the one the guest's kallsyms gives.
"${env_i[@]}" "$PROFILEME" record --privileged -c 20000 -o "$out/rec.data" -- "$out/procfs_view.dyn" "${args[@]}" \
  >"$out/record.out" 2>"$out/record.err"
check_run record 1 yes yes
"$PROFILEME" script -i "$out/rec.data" -F ip,sym,symoff,dso >"$out/record.script" 2>"$out/record.script.err"
why=$(python3 - "$out/record.kallsyms" "$out/record.script" <<'EOF'
import bisect, re, sys
syms = []
for l in open(sys.argv[1]):
    a, t, n = l.split()
    syms.append((int(a, 16), n))
syms.sort()
addrs = [a for a, n in syms]
k = 0
for l in open(sys.argv[2]):
    m = re.search(r"\b([0-9a-f]{16}) (\S+)\+0x([0-9a-f]+) \(\[kernel\.kallsyms\]\)", l)
    if not m:
        continue
    ip, name, off = int(m.group(1), 16), m.group(2), int(m.group(3), 16)
    i = bisect.bisect_right(addrs, ip) - 1
    # the last of the symbols at that address (scripts/kallsyms order: _text after entInt)
    cands = [n for a, n in syms if a == addrs[i]] if i >= 0 else []
    if name not in cands or ip - addrs[i] != off:
        print("%x: script says %s+0x%x, kallsyms %s" % (ip, name, off, cands)); sys.exit()
    k += 1
if k < 5:
    print("only %d kernel samples" % k)
EOF
)
if [ -z "$why" ]; then pass "kallsyms-samples.record"; else fail "kallsyms-samples.record" "$why"; fi
rm -f "$out/rec.data" "$out/rec.data.old"
