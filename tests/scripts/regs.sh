#!/usr/bin/env bash
# Register, user-stack and callchain sampling end to end (issue 9, the
# kernel side): records tests/regs/canary.c with --call-graph dwarf,
# --user-regs, -I and -g, and checks every sample with an independent reader
# (tests/lib/perfsamples.py, which parses the fields in Linux's
# perf_output_sample order and fails on any that do not fill the record)
# and with Linux perf 6.1 (report, script -D, evlist -v).
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/regs
mkdir -p "$out"
cd "$out"
alpha_static "$root/tests/regs/canary.c" "$out/canary" || { echo "FAIL regs/build: cannot build canary"; exit 0; }
pass() { echo "PASS regs/$1"; }
fail() { echo "FAIL regs/$1: $2"; }
rec() { rm -f "$2"; "$PROFILEME" record -q "${@:3}" -o "$2" -- ./canary $1 >/dev/null 2>rec.err; }
samples() { python3 "$root/tests/lib/perfsamples.py" "$1" >"$1.jsonl" 2>"$1.err"; }
# linux_reads NAME FILE N: perf report and perf script -D read FILE without
# errors and see its N samples.
linux_reads() {
  local rep dump n
  rep=$(perf report -i "$2" --stdio 2>&1 >/dev/null | grep -ivE '^$|lost .* chunks|check io|processed .* events') 
  n=$(perf script -D -i "$2" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE(')
  if [ -z "$rep" ] && [ "$n" = "$3" ]; then pass "$1-linux-perf-reads: perf report quiet, perf script -D sees $n samples"
  else fail "$1-linux-perf-reads" "report said '$(head -c 200 <<<"$rep")', script -D saw $n of $3 samples"; fi
}
work=$(alpha-linux-gnu-nm -S canary | awk '$4 == "work" { print $1, $2 }')

# 1. --call-graph dwarf as a normal user (user space only).
if rec "200000 10" d.data --call-graph dwarf -c 20011 -m 256 && samples d.data; then
  pass "dwarf-record: $(wc -l <d.data.jsonl) samples parse in perf_output_sample order"
  python3 - d.data.jsonl $work <<'PY'
import json, sys
CANARY, TOP = 0x5ca1ab1e0ddba110, 0x120000000
lo = int(sys.argv[2], 16); hi = lo + int(sys.argv[3], 16)
ss = [json.loads(l) for l in open(sys.argv[1])]
# With a stack dump the user registers are the interrupted state's, pc
# included (the ip is the profiled instruction, a few before): samples in
# work() have their regs pc in work() too (it calls nothing), and not all at ip.
user = [s for s in ss if s['misc'] & 7 == 2 and lo <= s['ip'] < hi]
bad_pc = [s for s in user if not lo <= s['user_regs'].get('31', 0) < hi]
moved = [s for s in user if s['user_regs'].get('31') != s['ip']]
bad_sp = [s for s in ss if not TOP - (8 << 20) < s['user_regs'].get('30', 0) < TOP]
bad_sz = [s for s in ss if s['stack_size'] != 8192 or s['dyn_size'] != min(8192, TOP - s['user_regs']['30'])]
print(('PASS' if user and len(bad_pc) * 50 <= len(user) and moved else 'FAIL') +
      ' regs/dwarf-pc-interrupted: %d user-mode samples in work, %d with regs pc outside it, %d with regs pc != ip' %
      (len(user), len(bad_pc), len(moved)))
print(('PASS' if not bad_sp else 'FAIL') + ' regs/dwarf-sp-in-stack: %d samples with SP outside the main stack' % len(bad_sp))
print(('PASS' if not bad_sz else 'FAIL') + ' regs/dwarf-stack-size: size 8192 and dyn_size = min(8192, stack top - SP), %d wrong' % len(bad_sz))
# work() keeps CANARY ^ i in buf[i] on its frame: the dump (from SP) must hold
# them, all at one offset from SP, in nearly every sample of work.
inwork = [s for s in ss if lo <= s['ip'] < hi]
want = b''.join((CANARY ^ i).to_bytes(8, 'little') for i in range(8)).hex()
offs = {}
for s in inwork:
    k = s['stack'].find(want)
    if k >= 0 and k % 2 == 0: offs[k // 2] = offs.get(k // 2, 0) + 1
found = sum(offs.values())
ok = inwork and len(offs) == 1 and found >= 0.95 * len(inwork)
print(('PASS' if ok else 'FAIL') + ' regs/dwarf-stack-bytes: the 8 canary words at SP+%s in %d of %d samples of work()' % (list(offs), found, len(inwork)))
PY
  ev=$(perf evlist -v -i d.data 2>/dev/null)
  if grep -q 'REGS_USER|STACK_USER' <<<"$ev" && grep -q 'sample_regs_user: 0xffff01ff' <<<"$ev" &&
     grep -q 'sample_stack_user: 8192' <<<"$ev" && grep -q 'exclude_callchain_user: 1' <<<"$ev" &&
     grep -q 'CALLCHAIN' <<<"$ev"; then pass "dwarf-attr: the header's attr has CALLCHAIN, REGS_USER, STACK_USER, regs 0xffff01ff, 8192 bytes"
  else fail dwarf-attr "perf evlist -v: $(head -c 300 <<<"$ev")"; fi
  linux_reads dwarf d.data "$(wc -l <d.data.jsonl)"
else
  fail dwarf-record "$(head -c 200 rec.err) $(head -c 200 d.data.err 2>/dev/null)"
fi

# 2. Kernel samples (ProfileMe sees kernel instructions): patch 4's entry
# window, kernel frames, kernel callchains. The entry points of the
# synthetic image (src/guest/kimage.c) and their 22-instruction windows.
if rec "100 200" k.data --privileged -e cycles:p -c 1009 -g --user-regs=pc,sp -Ipc,sp,r26 && samples k.data; then
  python3 - k.data.jsonl <<'PY'
import json, sys
BASE, KSTACK, THREAD = 0xfffffc0000310000, 0xfffffc0002000000, 0x4000
ENTRIES = [0x0, 0x100, 0x200, 0x300, 0x400, 0x600]   # entInt entArith entMM entIF entUna entSys
window = lambda ip: any(0 <= ip - BASE - e < 22 * 4 for e in ENTRIES)
ss = [json.loads(l) for l in open(sys.argv[1])]
ks = [s for s in ss if s['misc'] & 7 == 1]
win = [s for s in ks if window(s['ip'])]
body = [s for s in ks if not window(s['ip'])]
ok = win and body and all(s['user_abi'] == 0 for s in win) and all(s['user_abi'] == 2 for s in body)
print(('PASS' if ok else 'FAIL') + ' regs/entry-window-abi-none: %d samples in entry windows all ABI NONE, %d kernel samples past them all ABI 2'
      % (len(win), len(body)) + ('' if ok else ': %s' % sorted({(hex(s['ip']), s['user_abi']) for s in ks})[:6]))
bad = [s for s in ss if s['intr_regs'].get('31') != s['ip']]
print(('PASS' if not bad else 'FAIL') + ' regs/intr-pc-is-ip: %d samples, %d with REGS_INTR pc != ip' % (len(ss), len(bad)))
top = lambda s: KSTACK + (s['tid'] % 4096 + 1) * THREAD
bad = [s for s in ks if s['intr_regs'].get('30') != top(s)]
print(('PASS' if ks and not bad else 'FAIL') + ' regs/kernel-sp-end-of-trap-frame: %d kernel samples, %d with SP not the kernel stack top' % (len(ks), len(bad)))
# callchain: KERNEL marker, ip, callers (r26 is the first), then USER and the
# saved user pc when the task has a user frame.
K, U = 2**64 - 128, 2**64 - 512
def good(s):
    c = s['callchain']
    kern = c[1:c.index(U)] if U in c else c[1:]
    tail = c[c.index(U):] if U in c else []
    if c[:1] != [K] or kern[:1] != [s['ip']] or any(x < BASE or x >= 2**64 - 4095 for x in kern): return False
    if (kern[1] if len(kern) > 1 else 0) != s['intr_regs'].get('26'): return False
    return (tail == [U, s['user_regs']['31']]) if s['user_abi'] else not tail
bad = [s for s in ks if not good(s)]
sysc = [s for s in ks if s['callchain'][-3:-2] == [BASE + 0x600 + 22 * 4 + 16]]
print(('PASS' if ks and not bad and sysc else 'FAIL') + ' regs/kernel-callchain: %d kernel chains KERNEL, ip, callers (%d end in entSys), USER, user pc; %d wrong'
      % (len(ks), len(sysc), len(bad)) + ('' if not bad else ': %s' % [hex(x) for x in bad[0]['callchain']]))
us = [s for s in ss if s['misc'] & 7 == 2]
bad = [s for s in us if s['callchain'] != [U, s['ip']]]
print(('PASS' if us and not bad else 'FAIL') + ' regs/user-callchain-fp: %d user samples with the chain USER, ip (no frame walk); %d wrong' % (len(us), len(bad)))
PY
  linux_reads kernel k.data "$(wc -l <k.data.jsonl)"
else
  fail kernel-record "$(head -c 200 rec.err) $(head -c 200 k.data.err 2>/dev/null)"
fi

# 3. Context switches sample the scheduler's own frame: nonzero kernel pc
# (Linux on Alpha: 0) and SP inside the task's kernel stack.
if rec "1000 20" cs.data --privileged -e context-switches -c 1 -Isp,pc && samples cs.data; then
  python3 - cs.data.jsonl <<'PY'
import json, sys
KSTACK, THREAD = 0xfffffc0002000000, 0x4000
ss = [json.loads(l) for l in open(sys.argv[1])]
def good(s):
    r = s['intr_regs']
    lo = KSTACK + (s['tid'] % 4096) * THREAD
    return s['misc'] & 7 == 1 and r.get('31') == s['ip'] and s['ip'] >= 0xfffffc0000310000 and lo <= r.get('30', 0) < lo + THREAD
bad = [s for s in ss if not good(s)]
print(('PASS' if len(ss) >= 20 and not bad else 'FAIL') + ' regs/context-switch-frame: %d samples, kernel pc = ip and SP in the kernel stack; %d wrong' % (len(ss), len(bad)))
PY
  linux_reads cs cs.data "$(wc -l <cs.data.jsonl)"
else
  fail cs-record "$(head -c 200 rec.err)"
fi

# 4. The options.
l=$("$PROFILEME" record --user-regs='?' -- ./canary 2>&1); st=$?
if [ "$st" != 0 ] && [ "$l" = "available registers: r0 r1 r2 r3 r4 r5 r6 r7 r8 r16 r17 r18 r19 r20 r21 r22 r23 r24 r25 r26 r27 r28 gp sp pc " ]; then
  pass "user-regs-list: --user-regs=? lists the pt_regs registers and exits $st"
else fail user-regs-list "status $st: $l"; fi
l=$("$PROFILEME" record -Ir9 -- ./canary 2>&1); st=$?
if [ "$st" = 2 ] && grep -q 'unknown register r9, check -I option' <<<"$l"; then pass "intr-regs-r9: -Ir9 is refused (switch_stack)"
else fail intr-regs-r9 "status $st: $l"; fi
l=$("$PROFILEME" record --call-graph dwarf,70000 -- ./canary 2>&1); st=$?
if [ "$st" = 2 ] && grep -q 'Incorrect stack dump size (max 65528): 70000' <<<"$l"; then pass "dwarf-size-max: a 70000-byte dump is refused as perf refuses it"
else fail dwarf-size-max "status $st: $l"; fi
# k.data has callchains (-g): as perf script, ip prints them (the first
# entry, map-relative: canary is mapped at 0x120000000 from offset 0), then
# the uregs line.
block=$("$PROFILEME" script -i k.data -F ip,uregs 2>&1 | awk 'BEGIN { RS = "" } NR == 1')
ip=$(awk 'NF && $1 !~ /ABI/ { print $1; exit }' <<<"$block")
line=$(grep ABI <<<"$block")
pc=$(sed -n 's/.*pc:0x\([0-9a-f]*\).*/\1/p' <<<"$line")
if [ -n "$ip" ] && grep -qE "^ *ABI:2 +sp:0x11f[0-9a-f]+ +pc:0x[0-9a-f]+ $" <<<"$line" &&
   [ "$(printf %x $((0x$pc - 0x120000000)))" = "$ip" ]; then pass "script-uregs: '$ip' then '$line'"
else fail script-uregs "'$block'"; fi
# -G (perf script --hide-call-graph): the ip on the line, then uregs
line=$("$PROFILEME" script -G -i k.data -F ip,uregs 2>&1 | awk 'NR == 1')
ip=$(awk '{ print $1 }' <<<"$line")
if grep -qE "^ *$ip ABI:2 +sp:0x11f[0-9a-f]+ +pc:0x$ip $" <<<"$line"; then pass "script-uregs-hidden-chain: '$line'"
else fail script-uregs-hidden-chain "'$line'"; fi
a=$("$PROFILEME" script -D -i d.data 2>/dev/null | grep '^\.\.\. ustack:' | md5sum)
b=$(perf script -D -i d.data 2>/dev/null | grep '^\.\.\. ustack:' | md5sum)
n=$(perf script -D -i d.data 2>/dev/null | grep -c '^\.\.\. ustack:')
if [ "$n" -gt 0 ] && [ "$a" = "$b" ]; then pass "script-dump-ustack: the $n '... ustack: size, offset' lines of script -D equal Linux perf's"
else fail script-dump-ustack "$n lines from perf, ours differ"; fi
# script -F ip,iregs prints the values as Linux perf does (perf names every
# Alpha register "unknown"; the names are compared apart from the values).
norm() { sed -E 's/ +[a-z0-9]+:0x/ R:0x/g; s/ +$//; s/^ +//'; }
a=$("$PROFILEME" script -i cs.data -F ip,iregs 2>/dev/null | norm)
b=$(perf script -i cs.data -F ip,iregs 2>/dev/null | norm)
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass "script-iregs-as-perf: $(wc -l <<<"$a") lines of ip and iregs values equal Linux perf's ('$(head -1 <<<"$a")')"
else fail script-iregs-as-perf "ours '$(head -1 <<<"$a")', perf '$(head -1 <<<"$b")'"; fi
