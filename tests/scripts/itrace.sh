#!/usr/bin/env bash
# The trace tools end to end (docs/trace-tools.md): record -e trace// writes
# AUXTRACE_INFO and AUXTRACE records; the decoded flow equals what the
# machine executed (per-PC counts against record --truth's retired counts,
# the machine's own ground truth) on a loop, system calls, signals, fork and
# threads, and block counts are exact; script --itrace's i/b/c samples agree
# with those counts; inject --itrace writes a file Linux perf reads without
# errors (it refuses the raw one); report/annotate read trace samples; dcpi
# --cpi's cycles add up to the trace's; damaged trace data gives clear
# decode errors; snapshot mode records and decodes.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/itrace
mkdir -p "$out"
cd "$out"

build() { alpha_static "$root/$1" "$out/$(basename "$1" .c)"; }
for w in tests/record/loop16.c tests/guest/sig_basic.c tests/guest/fork_wait.c tests/guest/threads_sync.c \
         tests/guest/file_io.c; do
  build "$w" || { echo "FAIL itrace/build: cannot build $w"; exit 0; }
done

rec() { "$PROFILEME" record -q "$@" >/dev/null 2>"$out/rec.err"; }

# 0. The decoder on the trace unit's own streams (firmware driven directly,
# no perf): no error, every retired instruction found.
"$BUILD/unit/test_itrace" /usr/alpha-linux-gnu "$out/loop16" "$out/file_io" "$out/sig_basic" "$out/fork_wait" \
  "$out/threads_sync" 2>/dev/null | grep -E '^(PASS|FAIL) '


# exact NAME FILE [MULTI]: the decoded flow against the machine's ground
# truth (record --truth's retired counts, from the timing model's fates):
# on one CPU, truth_retired = (exec + interrupted) x uops at every PC (a CMOV
# is two instructions on the 21264, an interrupt leaves a retired fate at
# the PC it resumes), and no retired instruction of a traced process is
# missing from the trace; with several CPUs (MULTI) an interrupted task may
# resume on another CPU, so there truth_retired - exec x uops must be a
# non-negative multiple of uops everywhere. Every basic block's
# instructions share one count.
exact() {
  local name=$1 f=$2 multi=${3:-0}
  if ! "$PROFILEME" dcpi --exec -i "$f" --by insn -x, >"$name.insn.csv" 2>"$name.dcpi.err"; then
    echo "FAIL itrace/$name: dcpi --exec failed: $(head -3 "$name.dcpi.err")"; return
  fi
  "$PROFILEME" dcpi --exec -i "$f" --by block -x, >"$name.block.csv" 2>>"$name.dcpi.err"
  # PCs where tracing restarted after a STOP (the driver stops the unit for
  # a dump): an interrupt taken there while the unit was stopped left a
  # retired fate no packet reports, so there truth may exceed by uops per restart.
  "$PROFILEME" report -D -i "$f" 2>/dev/null | awk '/STOP n/ { stop = 1; next }
    / PSB pc / && stop { for (i = 1; i <= NF; i++) if ($i == "pc") print $(i + 1), $(i + 5); stop = 0 }' >"$name.restarts"
  python3 - "$name" "$multi" <<'PY'
import csv, sys, collections
name, multi = sys.argv[1], sys.argv[2] == '1'
restarts = collections.Counter()
for line in open(name + '.restarts'):
    pc, pid = line.split()
    restarts[(pid, int(pc, 16))] += 1
rows = list(csv.DictReader(open(name + '.insn.csv')))
total = sum(int(r['exec']) for r in rows)
if not rows or total == 0:
    print(f"FAIL itrace/{name}: no instruction decoded"); sys.exit()
def ok(r):
    if r['truth_retired'] == '': return False
    e, i, u, t = int(r['exec']), int(r['interrupted']), int(r['uops']), int(r['truth_retired'])
    if multi: return t - e * u >= 0 and (t - e * u) % u == 0
    extra = t - (e + i) * u
    return extra == 0 or (extra > 0 and extra % u == 0 and extra // u <= restarts[(r['pid'], int(r['address'], 16))])
bad = [r for r in rows if not ok(r)]
missing = [r for r in rows if int(r['exec']) == 0]
rule = "truth - exec x uops a non-negative multiple of uops" if multi else "truth = (exec + interrupted) x uops (+ uops per restart after a STOP)"
if bad:
    print(f"FAIL itrace/{name}: {len(bad)} of {len(rows)} instructions break {rule}, e.g. {bad[:2]}")
else:
    print(f"PASS itrace/{name}: {len(rows)} instructions, {total} executions, {rule} at every one"
          + ("" if multi else f" ({len(missing)} retired but not traced)"))
blocks = list(csv.DictReader(open(name + '.block.csv')))
bb = [b for b in blocks if b['exec'].endswith('!')]
if bb or not blocks:
    print(f"FAIL itrace/{name}: {len(bb)} of {len(blocks)} basic blocks have instructions of different counts, e.g. {bb[:2]}")
else:
    print(f"PASS itrace/{name}: {len(blocks)} basic blocks, every instruction of each ran its block's count")
PY
}

# 1. A loop: records exist, the flow is exact.
N=20000
rec --truth -e trace// -o loop.data "$out/loop16" $N
nat=$("$PROFILEME" script -D -i loop.data 2>/dev/null | grep -c 'PERF_RECORD_AUXTRACE ')
ninfo=$("$PROFILEME" script -D -i loop.data 2>/dev/null | grep -c 'PERF_RECORD_AUXTRACE_INFO')
if [ "$ninfo" = 1 ] && [ "$nat" -ge 1 ]; then echo "PASS itrace/records: 1 AUXTRACE_INFO, $nat AUXTRACE records"
else echo "FAIL itrace/records: $ninfo AUXTRACE_INFO, $nat AUXTRACE records ($(head -3 rec.err))"; fi
exact loop loop.data
# the loop body: 16 instructions each run N times
python3 - $N <<'PY'
import csv, sys
n = int(sys.argv[1])
rows = [r for r in csv.DictReader(open('loop.insn.csv')) if r['symbol'].startswith('main+')]
hot = [r for r in rows if int(r['exec']) == n]
print(("PASS" if len(hot) >= 16 else "FAIL") + f" itrace/loop-count: {len(hot)} instructions of main ran exactly {n} times (the 16 of the loop)")
PY

# 2. System calls, signals, fork, threads (2 CPUs for the threads).
rec --truth -e trace// -o file.data "$out/file_io" && exact syscalls file.data
rec --truth -e trace// -o sig.data "$out/sig_basic" && exact signals sig.data
rec --truth -e trace// -o fork.data "$out/fork_wait" && exact fork fork.data
rec --truth --cpus 2 -e trace// -o thr.data "$out/threads_sync" && exact threads thr.data 1

# 3. script --itrace: i100 gives one sample per 100 instructions; c gives
# the calls, each "from => to"; the default (ce) is c.
total=$(python3 -c "import csv; print(sum(int(r['exec']) for r in csv.DictReader(open('loop.insn.csv'))))")
ni=$("$PROFILEME" script --itrace=i100 -i loop.data 2>/dev/null | grep -c 'instructions:u:')
want=$((total / 100))
if [ "$ni" = "$want" ]; then echo "PASS itrace/script-i100: $ni instruction samples for $total instructions"
else echo "FAIL itrace/script-i100: $ni instruction samples, want $want"; fi
"$PROFILEME" script --itrace=c -i loop.data >calls.txt 2>script.err
nc=$(grep -c ' => ' calls.txt)
nd=$("$PROFILEME" script -i loop.data 2>/dev/null | grep -c ' => ')
if [ "$nc" -gt 0 ] && [ "$nc" = "$nd" ]; then echo "PASS itrace/script-c: $nc calls, each 'ip sym (dso) => addr sym (dso)'; the default is the same"
else echo "FAIL itrace/script-c: $nc calls with --itrace=c, $nd by default ($(head -2 script.err))"; fi
nb=$("$PROFILEME" script --itrace=b -i loop.data 2>/dev/null | grep -c 'branches:u:')
if [ "$nb" -ge "$N" ]; then echo "PASS itrace/script-b: $nb branches (the loop takes $N)"
else echo "FAIL itrace/script-b: $nb branches, fewer than the loop's $N"; fi

# 4. inject: Linux perf reads the result; it refuses the raw file.
perf report -i loop.data --stdio >/dev/null 2>perf_raw.err
if grep -q 'failed to process type: 70' perf_raw.err; then
  echo "PASS itrace/perf-raw: perf 6.1 cannot process the raw file ($(grep -m1 -o 'failed to process type: [0-9]*' perf_raw.err))"
else echo "FAIL itrace/perf-raw: perf 6.1 processed the raw trace file ($(head -2 perf_raw.err))"; fi
"$PROFILEME" inject --itrace=i100b -i loop.data -o inj.data 2>inject.err
if perf report -i inj.data --stdio >perf_inj.txt 2>perf_inj.err && ! grep -qi 'error\|failed\|warning' perf_inj.err; then
  echo "PASS itrace/perf-report: perf report reads the injected file ($(grep -m1 'Samples' perf_inj.txt))"
else echo "FAIL itrace/perf-report: $(head -3 perf_inj.err)"; fi
pi=$(perf script -i inj.data 2>/dev/null | grep -c 'instructions:u:')
pb=$(perf script -i inj.data 2>/dev/null | grep -c 'branches:u:')
if [ "$pi" = "$want" ] && [ "$pb" = "$nb" ]; then echo "PASS itrace/perf-script: perf script shows $pi instruction and $pb branch samples, as ours"
else echo "FAIL itrace/perf-script: perf script shows $pi/$pb, want $want/$nb"; fi
if perf script -D -i inj.data 2>/dev/null | grep -q 'PERF_RECORD_AUXTRACE '; then
  echo "FAIL itrace/inject-clean: the injected file still has AUXTRACE records"
else echo "PASS itrace/inject-clean: no AUXTRACE record left"; fi

# 5. report and annotate from trace samples (exact with i1).
"$PROFILEME" report --itrace=i1 -i loop.data --stdio -n >rep.txt 2>rep.err
nrep=$(awk -F': ' '/Event count/ { print $2; exit }' rep.txt)
if [ "$nrep" = "$total" ] || [ "$nrep" = "${total}" ]; then echo "PASS itrace/report: $nrep instruction samples = the instructions executed"
else echo "FAIL itrace/report: '$nrep' samples, want $total ($(head -2 rep.err))"; fi
if "$PROFILEME" annotate --itrace=i1 -i loop.data --stdio -n main >ann.txt 2>ann.err && grep -q "$N" ann.txt; then
  echo "PASS itrace/annotate: main's loop instructions show $N samples each"
else echo "FAIL itrace/annotate: $(head -2 ann.err)"; fi

# 6. dcpi --cpi with ProfileMe samples and the trace in one file.
rec -e cycles:p -c 997 -e trace// -o cpi.data "$out/loop16" $N
"$PROFILEME" dcpi --cpi -i cpi.data -x, >cpi.csv 2>cpi.err
"$PROFILEME" dcpi --cpi -i cpi.data >cpi.txt 2>>cpi.err
python3 <<'PY'
import csv, re
rows = list(csv.DictReader(open('cpi.csv')))
txt = open('cpi.txt').read()
m = re.search(r'user cycles C = (\d+)', txt)
C = int(m.group(1)) if m else -1
cyc = sum(float(r['cycles']) for r in rows)
n = sum(int(r['exec']) for r in rows)
ok = C > 0 and abs(cyc - C) <= max(1, 0.001 * C) and n > 0
print(("PASS" if ok else "FAIL") + f" itrace/cpi: per-instruction cycles sum to {cyc:.0f}, the trace's C = {C}; "
      f"mean CPI {C / n if n else 0:.3f} over {n} instructions")
# The cycles sum to C by construction; the exec counts beside them have an
# oracle: the same program and N ran the same instructions as the loop run,
# whose counts matched the machine's truth (the samples' interrupts are in
# 'interrupted', not exec).
want = {(r['pid'], r['address']): r['exec'] for r in csv.DictReader(open('loop.insn.csv'))}
got = {(r['pid'], r['address']): r['exec'] for r in rows}
diff = sorted(k for k in want.keys() | got.keys() if want.get(k) != got.get(k))
print(("FAIL" if diff or not got else "PASS") + f" itrace/cpi-exec: {len(got)} instructions, {len(diff)} whose exec differs "
      f"from the truth-checked loop run's{', e.g. ' + str([(k, got.get(k), want.get(k)) for k in diff[:2]]) if diff else ''}")
PY

# 7. Damaged trace data: a clear decode error, then decoding goes on.
python3 - <<'PY'
import struct
b = bytearray(open('loop.data', 'rb').read())
hdr = struct.unpack_from('<QQQQQQQ', b, 0)
off, size = hdr[5], hdr[6]
at, end, hits = off, off + size, 0
while at + 8 <= end:
    t, misc, sz = struct.unpack_from('<IHH', b, at)
    if sz == 0: break
    if t == 71:
        n = struct.unpack_from('<Q', b, at + 8)[0]
        p = at + sz
        for k in range(100, n, 997):          # clobber bytes inside the stream
            b[p + k] = 0xee
            hits += 1
        at += sz + n
        continue
    at += sz
open('bad.data', 'wb').write(b)
PY
"$PROFILEME" script --itrace=ce -i bad.data >bad.txt 2>bad.err
ne=$(grep -c 'instruction trace error' bad.txt)
if [ "$ne" -ge 1 ] && grep -q 'bad packet (header 0xee)\|does not match code' bad.txt; then
  echo "PASS itrace/bad-data: $ne decode errors with position and reason, e.g.: $(grep -m1 'instruction trace error' bad.txt | cut -c1-150)"
else echo "FAIL itrace/bad-data: $ne errors ($(head -2 bad.err))"; fi
head -c 3000 loop.data >trunc.data
if "$PROFILEME" script -i trunc.data >/dev/null 2>trunc.err; then echo "FAIL itrace/truncated: a cut file was read"
else echo "PASS itrace/truncated: $(head -1 trunc.err | cut -c1-150)"; fi

# 8. Snapshot mode: the final snapshot (and any SIGUSR2 asked for) decodes.
rec --snapshot -e trace// -o snap.data "$out/loop16" $N
ns=$("$PROFILEME" script -D -i snap.data 2>/dev/null | grep -c 'PERF_RECORD_AUXTRACE ')
nsi=$("$PROFILEME" script --itrace=i1000 -i snap.data 2>/dev/null | grep -c 'instructions:u:')
if [ "$ns" -ge 1 ] && [ "$nsi" -ge 1 ]; then echo "PASS itrace/snapshot: $ns snapshot(s), $nsi instruction samples decoded"
else echo "FAIL itrace/snapshot: $ns AUXTRACE records, $nsi samples ($(head -2 rec.err))"; fi

# 9. list shows the trace PMU.
if "$PROFILEME" list | grep -q 'trace//'; then echo "PASS itrace/list: profileme list shows trace//"
else echo "FAIL itrace/list: no trace// in profileme list"; fi
