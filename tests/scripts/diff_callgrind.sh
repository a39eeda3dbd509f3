#!/usr/bin/env bash
# `profileme diff` against Linux perf's `perf diff` 6.1, and `profileme
# data convert --to-callgrind` against Valgrind's callgrind_annotate:
#  - diff: byte-for-byte the output of the host's perf diff on the same
#    files, for every computation (delta-abs, delta, ratio, wdiff), -p, -F,
#    -b, -o, -s, filters and three files: perf's own x86-64 files (the
#    committed ones and, where perf may record here, two live user-space
#    recordings) and ours (tests/diff/cgwork.c recorded twice with
#    different trip counts);
#  - diff --dcpi: the exact counts it compares are dcpi's (record --truth)
#    for the same symbols, and per instruction the loop body of sum_loop
#    runs 1,250,000 times in one run and 500,000 in the other (the trip
#    counts given: a + a/4), so its rows have those values, ratio 0.4000;
#  - data convert: callgrind_annotate, reading the file, must give per
#    function the samples report -n gives and the period shares report
#    prints, the ProfileMe status counts and exact counts dcpi -x gives,
#    with --inclusive=yes report's Children shares (call arcs from the
#    chains), and per source line of the workload annotate -n's sums;
#    on a flat file with truth, a dwarf one (user stacks unwound here),
#    one unwound at record and a system-wide one on 2 CPUs;
#  - bad files and options: status 1 and 2 with a message.
# One PASS/FAIL line per check. Environment: BUILD, PROFILEME, ALPHA_CC, PERF.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
PERF=${PERF:-perf}
P=$PROFILEME
out=$BUILD/diff-callgrind
mkdir -p "$out"

pass() { echo "PASS diff_callgrind/$1"; }
fail() { echo "FAIL diff_callgrind/$1: $2"; }
check() { if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "want [$2], got [$3]"; fi; }
have_perf() { command -v "$PERF" >/dev/null; }
if [ ! -x "$P" ]; then echo "FAIL diff_callgrind: $P not built"; exit 1; fi

# ---- options and bad input ----
for c in "diff" "diff --dcpi" "data convert"; do
  # shellcheck disable=SC2086
  $P $c --help >"$out/help.txt" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ] && grep -q '^usage: profileme' "$out/help.txt"; then pass "help/${c// /-}"; else fail "help/${c// /-}" "status $rc"; fi
done
head -c 100 /dev/zero | tr '\0' 'x' >"$out/garbage.data"
for f in missing garbage; do
  $P diff "$out/$f.data" tests/perfdata/x86-cpu-clock.data >/dev/null 2>"$out/err.txt"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q "$out/$f.data: ..*" "$out/err.txt"; then pass "error/diff/$f"; else fail "error/diff/$f" "status $rc: $(head -c 200 "$out/err.txt")"; fi
  $P diff --dcpi tests/perfdata/alpha-truth.data "$out/$f.data" >/dev/null 2>"$out/err.txt"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q "$out/$f.data: ..*" "$out/err.txt"; then pass "error/diff-dcpi/$f"; else fail "error/diff-dcpi/$f" "status $rc: $(head -c 200 "$out/err.txt")"; fi
  $P data convert -i "$out/$f.data" --to-callgrind "$out/x.cg" >/dev/null 2>"$out/err.txt"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q "$out/$f.data: ..*" "$out/err.txt"; then pass "error/data-convert/$f"; else fail "error/data-convert/$f" "status $rc: $(head -c 200 "$out/err.txt")"; fi
done
x86a=tests/perfdata/x86-cpu-clock.data x86b=tests/perfdata/x86-cpu-task-clock.data
for bad in "-c bogus" "-c wdiff" "-c wdiff:1" "-c wdiff:0,2" "-c ratio:3" "-c cycles" "-o 2" "-s comm" "--percentage some" "--no-such"; do
  # shellcheck disable=SC2086
  $P diff $bad $x86a $x86b >/dev/null 2>"$out/err.txt"
  rc=$?
  if [ "$rc" -eq 2 ] && [ -s "$out/err.txt" ]; then pass "options/diff/${bad// /}"; else fail "options/diff/${bad// /}" "status $rc"; fi
done
for bad in "--by block" "--compare nothing" "--no-such"; do
  # shellcheck disable=SC2086
  $P diff --dcpi $bad $x86a $x86b >/dev/null 2>"$out/err.txt"
  check "options/diff-dcpi/${bad// /}" 2 $?
done
$P data convert -i $x86a >/dev/null 2>&1; check options/data-convert/no-output 2 $?
$P data convert --to-json x.json -i $x86a >/dev/null 2>&1; check options/data-convert/to-json 2 $?
$P data export --to-callgrind x -i $x86a >/dev/null 2>&1; check options/data/unknown-subcommand 2 $?
$P data convert -e nosuch --to-callgrind "$out/x.cg" -i $x86a >/dev/null 2>&1; check options/data-convert/no-event 1 $?

# perf_diff NAME FILE... [-- OPTION-SETS]: our diff against perf diff, for
# each option set (';'-separated) on the files.
perf_diff() {
  local name=$1 sets=$2; shift 2
  local o n=0 bad=
  IFS=';' read -r -a opts <<<"$sets"
  for o in "${opts[@]}"; do
    # shellcheck disable=SC2086
    "$PERF" diff ${PERF_KALLSYMS:+--kallsyms "$PERF_KALLSYMS"} $o "$@" >"$out/perf-diff.out" 2>/dev/null
    # shellcheck disable=SC2086
    $P diff $o "$@" >"$out/our-diff.out" 2>"$out/our-diff.err"
    n=$((n + 1))
    if ! cmp -s "$out/perf-diff.out" "$out/our-diff.out"; then
      bad="$bad [$o]"
      diff "$out/perf-diff.out" "$out/our-diff.out" | head -6 | sed 's/^/    /' >"$out/first-diff.txt"
    fi
  done
  if [ -z "$bad" ] && [ -s "$out/perf-diff.out" ]; then pass "$name ($n option sets)"
  else fail "$name" "differs from perf diff with$bad"; cat "$out/first-diff.txt" 2>/dev/null; fi
}
SETS=";-c delta;-c ratio;-c wdiff:3,2;-c wdiff:1,-5 -F;-p;-F;-c ratio -p -F;-b;-b -F;-o 0;-s sym,dso;-s sym;-q;-d libc.so.6;--percentage relative -S handle_amd -F"
SETS3=";-c ratio;-c wdiff:2,3;-o 2;-o 2 -c ratio;-p -F"
if have_perf; then
  perf_diff perf-diff/x86-fixtures "$SETS" $x86a $x86b
  perf_diff perf-diff/x86-fixtures-reversed "$SETS" $x86b $x86a
  perf_diff perf-diff/x86-fixtures-3 "$SETS3" $x86a $x86b $x86a
  perf_diff perf-diff/alpha-fixtures "$SETS" tests/perfdata/alpha-demo.data tests/perfdata/alpha-truth.data
  # Live x86-64 recordings of tests/diff/x86work.c, user space only (we read
  # no kallsyms), with different trip counts. perf 6.1 names some PLT entries
  # "@plt" and synthesizes PLT symbols we do not (tools.sh, callgraph.sh):
  # when a sample lands on one, the files are compared by dso only.
  x86=$out/x86work
  if command -v cc >/dev/null && cc -O1 -g -o "$x86" tests/diff/x86work.c 2>"$out/cc.log" &&
     "$PERF" record -q -e cpu-clock:u -F 20000 -o "$out/live1.data" -- "$x86" 3000000 1000000 >/dev/null 2>&1 &&
     "$PERF" record -q -e cpu-clock:u -F 20000 -o "$out/live2.data" -- "$x86" 1000000 3000000 >/dev/null 2>&1; then
    if "$PERF" diff "$out/live1.data" "$out/live2.data" "$x86b" 2>/dev/null | grep -q '@plt'; then
      echo "diff_callgrind: a sample on a PLT entry (perf names them its own way): x86-live compared by dso"
      perf_diff perf-diff/x86-live-by-dso "-s dso;-s dso -c ratio;-s dso -p -F" "$out/live1.data" "$out/live2.data"
    else
      perf_diff perf-diff/x86-live "$SETS" "$out/live1.data" "$out/live2.data"
      perf_diff perf-diff/x86-live-3 "$SETS3" "$out/live2.data" "$out/live1.data" $x86b
    fi
  else
    echo "diff_callgrind: perf cannot record here (or no cc); the committed x86 files stand in"
  fi
else
  echo "diff_callgrind: $PERF not installed: perf diff not compared"
fi

# ---- our recordings ----
if ! command -v "${ALPHA_CC:-alpha-linux-gnu-gcc}" >/dev/null; then
  echo "diff_callgrind: no Alpha compiler: the recording checks are skipped"; exit 0
fi
bin=$out/cgwork
src=$root/tests/diff/cgwork.c
alpha_cc "$bin" "$src" -O1 -g -static -Wl,--no-relax || { echo "FAIL diff_callgrind: cgwork.c does not build"; exit 1; }
# 12007: a period that keeps the sample rate under the kernel's throttling
# limit (100000 a second) and aliases with no loop of the workload.
rec() {
  local name=$1; shift
  if $P record -q -c 12007 -o "$out/$name.data" "$@" >"$out/$name.rec.log" 2>&1; then return 0; fi
  fail "record/$name" "$(tail -2 "$out/$name.rec.log")"; return 1
}
rec flat --truth -- "$bin" 1000000 300000 &&
rec flat2 --truth -- "$bin" 400000 600000 || exit 1
rec dwarf --call-graph dwarf -- "$bin" 1000000 300000
rec atrec --call-graph dwarf --unwind-at-record -- "$bin" 1000000 300000
rec sys -a --cpus 2 --privileged -g -- "$bin" 1000000 300000
rec trace -e trace// -m 64,1024 -- "$bin" 1000000 300000   # 8 MB of AUX area: no data lost

if have_perf; then
  perf_diff perf-diff/alpha "$SETS" "$out/flat.data" "$out/flat2.data"
  perf_diff perf-diff/alpha-reversed "$SETS" "$out/flat2.data" "$out/flat.data"
  perf_diff perf-diff/alpha-3 "$SETS3" "$out/flat.data" "$out/flat2.data" "$out/atrec.data"
  # System-wide, with kernel samples: Linux perf given the machine's own
  # /proc/kallsyms (else it reads the host's x86-64 one for our addresses).
  cat=$out/catfile
  if [ -f "$out/sys.data" ] && rec sys2 -a --cpus 2 --privileged -g -- "$bin" 400000 600000 &&
     alpha_cc "$cat" tests/diff/catfile.c -O1 -static -Wl,--no-relax &&
     $P run --privileged "$cat" /proc/kallsyms >"$out/kallsyms" && grep -q ' T ' "$out/kallsyms"; then
    PERF_KALLSYMS=$out/kallsyms perf_diff perf-diff/alpha-system-wide "$SETS" "$out/sys.data" "$out/sys2.data"
  else
    fail perf-diff/alpha-system-wide "no second system-wide recording or no guest kallsyms"
  fi
fi

# ---- diff --dcpi ----
if $P diff --dcpi -x , "$out/flat.data" "$out/flat2.data" >"$out/dcpidiff.csv" 2>"$out/err.txt" &&
   $P dcpi -i "$out/flat.data" -x , >"$out/dcpi1.csv" && $P dcpi -i "$out/flat2.data" -x , >"$out/dcpi2.csv"; then
  got=$(python3 - "$out/dcpidiff.csv" "$out/dcpi1.csv" "$out/dcpi2.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def exact(path, col):
    return {r['symbol']: int(r[col + '_exact']) for r in csv.DictReader(open(path)) if r[col + '_exact'] != ''}
bad = n = 0
for q, col in (('count', 'samples'), ('retired', 'retired'), ('map_stall', 'map_stall'), ('mispredict', 'mispredict')):
    old, new = exact(sys.argv[2], col), exact(sys.argv[3], col)
    for r in rows:
        if r['quantity'] != q: continue
        sym = r['row'].rsplit(' (', 1)[0]
        o, w = old.get(sym, 0), new.get(sym, 0)
        rng = 100.0 * (w - o) / (w + o) if w + o else 0.0
        n += 1
        if (int(r['old']), int(r['new']), r['range']) != (o, w, '%.1f' % rng):
            bad += 1
            if bad < 4: print('mismatch', q, sym, r['old'], r['new'], r['range'], o, w, file=sys.stderr)
print('%d rows, %d differ' % (n, bad))
PY
)
  case $got in
    *" 0 differ") [ "${got%% *}" -gt 20 ] && pass "diff-dcpi/exact-as-dcpi ($got)" || fail diff-dcpi/exact-as-dcpi "$got" ;;
    *) fail diff-dcpi/exact-as-dcpi "$got" ;;
  esac
else
  fail diff-dcpi/exact-as-dcpi "status: $(head -c 200 "$out/err.txt")"
fi
if $P diff --dcpi --by insn --symbols sum_loop --compare count "$out/flat.data" "$out/flat2.data" >"$out/dcpidiff-insn.txt" 2>"$out/err.txt"; then
  # the loop's four instructions: exactly the trip counts, or a few more
  # where an interrupt took an instance back and it retired again
  # (docs/trace-tools.md); the two that no interrupt hit, exactly
  n=$(awk '$2 >= 1250000 && $2 < 1251250 && $3 >= 500000 && $3 < 500500 && $4 == "0.4000"' "$out/dcpidiff-insn.txt" | wc -l)
  e=$(awk '$2 == 1250000 && $3 == 500000 && $1 == "-42.9%"' "$out/dcpidiff-insn.txt" | wc -l)
  if [ "$n" -eq 4 ] && [ "$e" -ge 1 ]; then pass "diff-dcpi/loop-trip-counts ($n instructions of sum_loop's loop, $e exactly)"
  else fail diff-dcpi/loop-trip-counts "$n rows near 1250000 -> 500000, $e exact"; sed -n 1,12p "$out/dcpidiff-insn.txt"; fi
else
  fail diff-dcpi/loop-trip-counts "status: $(head -c 200 "$out/err.txt")"
fi

# ---- data convert --to-callgrind, read by callgrind_annotate ----
if ! command -v callgrind_annotate >/dev/null; then
  echo "diff_callgrind: callgrind_annotate (valgrind) not installed: the callgrind checks are skipped"; exit 0
fi
# cg_check NAME CHAINS: converts NAME.data and compares callgrind_annotate's
# figures with report's, dcpi's and annotate's.
cg_check() {
  local name=$1 chains=$2 f=$out/$1.data cg=$out/$1.cg
  if ! $P data convert -i "$f" --to-callgrind "$cg" 2>"$out/err.txt"; then
    fail "callgrind/$name/convert" "$(head -c 200 "$out/err.txt")"; return
  fi
  # run from / : callgrind_annotate strips the current directory from fl=
  # names but not from cfi= ones, which would split a function in two
  (cd / && callgrind_annotate --threshold=100 --auto=no --show-percs=no "$cg") >"$out/$name.ca" 2>"$out/$name.ca.err" &&
    (cd / && callgrind_annotate --threshold=100 --auto=no --show-percs=no --inclusive=yes "$cg") >"$out/$name.cai" 2>>"$out/$name.ca.err" &&
    (cd / && callgrind_annotate --threshold=100 --auto=yes --show=Samples --show-percs=no --context=100000 "$cg") >"$out/$name.cas" 2>>"$out/$name.ca.err" ||
    { fail "callgrind/$name/annotate" "$(head -c 300 "$out/$name.ca.err")"; return; }
  if grep -q WARNING "$out/$name.ca.err"; then fail "callgrind/$name/well-formed" "$(head -c 300 "$out/$name.ca.err")"
  else pass "callgrind/$name/well-formed"; fi
  $P report -i "$f" --stdio -s dso,sym -n --no-children >"$out/$name.rep" 2>/dev/null
  $P dcpi -i "$f" -x , >"$out/$name.dcpi" 2>/dev/null
  [ "$chains" = 1 ] && $P report -i "$f" --stdio -s dso,sym --children >"$out/$name.repc" 2>/dev/null
  for fn in sum_loop mix_loop recurse driver main; do
    $P annotate -i "$f" -n --stdio "$fn" 2>/dev/null
  done >"$out/$name.ann"
  python3 - "$name" "$out/$name" "$chains" "$src" <<'PY'
import csv, os, re, sys
name, base, chains, src = sys.argv[1], sys.argv[2], sys.argv[3] == '1', sys.argv[4]
def ok(check, good, detail):
    print('%s diff_callgrind/callgrind/%s/%s%s' % ('PASS' if good else 'FAIL', name, check, (' (' if good else ': ') + detail + (')' if good else '')))
# callgrind_annotate's function table: events, then rows "n n n ... file:fn [obj]"
def ca_table(path, primary_only=False):
    # primary_only: only the rows with the object, the function's own file
    # (inclusive costs: its lines from other files are inside its calls')
    lines = open(path).read().split('\n')
    events, rows, total = None, {}, None
    for i, l in enumerate(lines):
        if l.startswith('Events shown:'): events = l.split(':', 1)[1].split()
        m = re.match(r'^\s*([\d,.\s]+?)\s+PROGRAM TOTALS', l)
        if m: total = [int(x.replace(',', '')) if x != '.' else 0 for x in m.group(1).split()]
        # "file:fn [obj]"; a function's lines in another file (fi=) come
        # as "file2:fn" without the object: summed by function name
        m = re.match(r'^\s*([\d,.]+(?:\s+[\d,.]+)*)\s+(\S[^ ]*:[^ ]+)(?: \[(.*)\])?$', l)
        if m and total is not None and (m.group(3) or not primary_only):
            vals = [int(x.replace(',', '')) if x != '.' else 0 for x in m.group(1).split()]
            fn = m.group(2).rsplit(':', 1)[1]
            acc = rows.setdefault(fn, [0] * len(vals))
            for k, v in enumerate(vals): acc[k] += v
    return events, total, rows
ev, tot, self_ = ca_table(base + '.ca')
# every called function has its own block (fn=), so that readers know its
# object: a chain unwound past the sampled instruction into a callee with
# no sample of its own once left one only as cfn=, and callgrind_annotate
# listed its inclusive cost without the object
fns, cfns = set(), set()
for l in open(base + '.cg'):
    m = re.match(r'^(c?)fn=\((\d+)\)', l)
    if m: (cfns if m.group(1) else fns).add(m.group(2))
# (how many functions a file has depends on where its few samples fell: a
# system-wide file has two for sure, sum_loop's and mix_loop's; one with
# chains has calls for sure)
ok('callees-have-blocks', cfns <= fns and len(fns) >= 2 and (cfns or not chains),
   '%d functions, %d called' % (len(fns), len(cfns)) if cfns <= fns else 'no block for ids %s' % sorted(cfns - fns)[:4])
idx = {e: i for i, e in enumerate(ev)}
# report -s dso,sym -n: "  12.34%  123  dso  [.] name"
rep = {}
for l in open(base + '.rep'):
    m = re.match(r'^\s+([\d.]+)%\s+(\d+)\s+\S+\s+\[.\] (.*)$', l)
    if m: rep[m.group(3)] = (m.group(1), int(m.group(2)))
got = {fn: v[idx['Samples']] for fn, v in self_.items() if v[idx['Samples']]}
want = {fn: s for fn, (p, s) in rep.items() if s}
ok('samples-as-report', got == want, '%d functions, %d samples' % (len(want), sum(want.values())) if got == want else
   'differ: %s' % sorted(set(got.items()) ^ set(want.items()))[:4])
per = tot[idx['Period']]
got = {fn: '%.2f' % (100.0 * v[idx['Period']] / per) for fn, v in self_.items() if v[idx['Samples']]}
want = {fn: p for fn, (p, s) in rep.items() if s}
ok('period-shares-as-report', got == want, '%d functions' % len(want) if got == want else
   'differ: %s' % sorted(set(got.items()) ^ set(want.items()))[:4])
# dcpi -x, per symbol: the status counts, and the exact ones with truth
cols = {'Retired': 'retired', 'Killed': 'killed', 'Mispredict': 'mispredict', 'Trap': 'trap', 'DTBMiss': 'dtb_miss',
        'Unaligned': 'unaligned', 'MapStall': 'map_stall'}
exact = {'ExCount': 'samples', 'ExRetired': 'retired', 'ExKilled': 'killed', 'ExMispredict': 'mispredict',
         'ExTrap': 'trap', 'ExDTBMiss': 'dtb_miss', 'ExUnaligned': 'unaligned', 'ExMapStall': 'map_stall'}
rows = [r for r in csv.DictReader(open(base + '.dcpi')) if r['symbol'] != '[unknown]']
first_ev = rows[0]['event'] if rows else ''
rows = [r for r in rows if r['event'] == first_ev]
bad, n = [], 0
for r in rows:
    v = self_.get(r['symbol'])
    for e, c in cols.items():
        if e not in idx: continue
        n += 1
        if (v[idx[e]] if v else 0) != int(r[c] or 0): bad.append((r['symbol'], e))
ok('statuses-as-dcpi', not bad and n > 0, '%d figures' % n if not bad else 'differ: %s' % bad[:4])
if 'ExCount' in idx:
    bad, n = [], 0
    for r in rows:
        v = self_.get(r['symbol'])
        for e, c in exact.items():
            if r[c + '_exact'] == '': continue
            n += 1
            if (v[idx[e]] if v else 0) != int(r[c + '_exact']): bad.append((r['symbol'], e))
    ok('exact-as-dcpi', not bad and n > 0, '%d figures' % n if not bad else 'differ: %s' % bad[:4])
if chains:
    ev, tot_i, inc = ca_table(base + '.cai', True)
    want = {}
    for l in open(base + '.repc'):
        m = re.match(r'^\s+([\d.]+)%\s+([\d.]+)%\s+\S+\s+\[.\] (.*)$', l)
        if m and float(m.group(1)) > 0: want[m.group(3)] = m.group(1)
    got = {fn: '%.2f' % (100.0 * v[idx['Period']] / per) for fn, v in inc.items() if v[idx['Period']]}
    ok('inclusive-as-children', got == want and 'recurse' in want and 'driver' in want,
       '%d functions' % len(want) if got == want else 'differ: %s' % sorted(set(got.items()) ^ set(want.items()))[:4])
# per source line of the workload: annotate -n's instructions summed under
# each line header, against callgrind_annotate's annotated source
ann, line = {}, None
for l in open(base + '.ann'):
    if 'Source code & Disassembly' in l: line = None; continue
    m = re.match(r'^\s+: (\d+) ', l)
    if m: line = int(m.group(1)); continue
    m = re.match(r'^\s+(\d+)(?:\s+\d+\*?)*\s+:\s+[0-9a-f]+:', l)   # '*': outside the interval
    if m and line is not None: ann[line] = ann.get(line, 0) + int(m.group(1))
cas, cur, n = {}, 0, 0       # cur: 0 outside the workload's listing, 1 its header, 2 its lines
for l in open(base + '.cas'):
    if l.startswith('-- Auto-annotated source:'):
        cur = 1 if l.split(':', 1)[1].strip() == src else 0; n = 0; continue
    if cur == 1 and l.startswith('Samples'): cur = 2; continue
    if cur == 2 and l.startswith('---'): cur = 0
    if cur != 2 or not l.strip(): continue
    m = re.match(r'^\s+([\d,]+|\.)  (.*)$', l)
    if not m or re.match(r'\s*(=>|<=) ', m.group(2)): continue   # call lines ("=> file:fn (Nx)")
    n += 1
    if m.group(1) != '.' and int(m.group(1).replace(',', '')): cas[n] = int(m.group(1).replace(',', ''))
ann = {k: v for k, v in ann.items() if v}
ok('lines-as-annotate', ann == cas and len(ann) >= 4, '%d lines' % len(ann) if ann == cas else
   'differ: %s' % sorted(set(ann.items()) ^ set(cas.items()))[:6])
PY
}
cg_check flat 0
[ -f "$out/dwarf.data" ] && cg_check dwarf 1
[ -f "$out/atrec.data" ] && cg_check atrec 1
[ -f "$out/sys.data" ] && cg_check sys 0

# The instruction trace alone: Exec per function as dcpi --exec counts it,
# in all the instructions the run executed (run --stats, same environment),
# and sum_loop's loop at its trip count.
if [ -f "$out/trace.data" ] && $P data convert -i "$out/trace.data" --to-callgrind "$out/trace.cg" 2>"$out/err.txt"; then
  (cd / && callgrind_annotate --threshold=100 --auto=no --show-percs=no "$out/trace.cg") >"$out/trace.ca" 2>&1
  $P dcpi --exec -i "$out/trace.data" --by sym -x , >"$out/trace.exec" 2>/dev/null
  insns=$($P run --stats "$bin" 1000000 300000 2>&1 | sed -n 's/^profileme: \([0-9]*\) instructions.*/\1/p')
  python3 - "$out/trace.ca" "$out/trace.exec" "$out/trace.cg" "${insns:-0}" <<'PY'
import csv, re, sys
ca, ex, cg, insns = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
names = {}
def ok(check, good, detail):
    print('%s diff_callgrind/callgrind/trace/%s%s' % ('PASS' if good else 'FAIL', check, (' (' if good else ': ') + detail + (')' if good else '')))
got, total = {}, None
for l in open(ca):
    l = l.rstrip('\n')
    m = re.match(r'^\s*([\d,]+)\s+PROGRAM TOTALS', l)
    if m: total = int(m.group(1).replace(',', ''))
    m = re.match(r'^\s*([\d,]+)\s+(\S[^ ]*:[^ ]+)(?: \[.*\])?$', l)
    if m and total is not None:
        fn = m.group(2).rsplit(':', 1)[1]
        got[fn] = got.get(fn, 0) + int(m.group(1).replace(',', ''))
want = {}
for r in csv.DictReader(open(ex)):
    if r['symbol'] and not r['symbol'].startswith('['): want[r['symbol']] = want.get(r['symbol'], 0) + int(r['exec'])
got = {k: v for k, v in got.items() if v and not k.startswith('0x')}
ok('exec-as-dcpi-exec', got == want and len(want) > 10, '%d functions' % len(want) if got == want else
   'differ: %s' % sorted(set(got.items()) ^ set(want.items()))[:4])
ok('exec-total-as-run', total == insns, '%s instructions' % total if total == insns else '%s against run --stats %d' % (total, insns))
loop, fn = [], None
for l in open(cg):
    m = re.match(r'^fn=\((\d+)\)(?: (.*))?$', l.rstrip('\n'))
    if m: fn = m.group(2) if m.group(2) else names.get(m.group(1)); names[m.group(1)] = fn; continue
    if fn == 'sum_loop' and l.startswith('0x'): loop.append(int(l.split()[2]))
ok('exec-loop-trip-count', loop.count(1250000) == 4, 'sum_loop: 4 x 1250000' if loop.count(1250000) == 4 else str(loop))
PY
else
  fail callgrind/trace/convert "$(head -c 200 "$out/err.txt" 2>/dev/null)"
fi
exit 0
