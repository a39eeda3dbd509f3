#!/usr/bin/env bash
# Call graphs against Linux perf on the same x86-64 files. tests/callgraph/cg.c
# (a known call tree: recursion, qsort's comparator called from libc, a
# tail of leaf calls) is built for the host with frame pointers, and Linux
# perf records it twice, user space only (x86 kernel symbols are not ours to
# resolve): `perf record -e cpu-clock:u -g` (PERF_SAMPLE_CALLCHAIN) and
# `--call-graph dwarf` (regs_user and stack dumps, which we unwind through
# elfutils). On each file:
#  - `report --stdio` in perf's modes (graph by default, --children and
#    --no-children, caller and callee, fractal, flat, folded, count, a
#    threshold, -s sym first) line for line against `perf report --no-inline`; names of one
#    address perf picks differently (the default symbol version of
#    __libc_start_main) are normalised, nothing else;
#  - `script` (the callchain lines under each sample) against perf script;
#  - `flamegraph --folded`: every sample once, and each stack's count equal
#    to the samples perf script shows with that stack;
#  - `flamegraph`: well-formed XML, one box per merged frame with the width
#    its count gives, counts in the titles equal to the folded sums;
# When perf cannot record here (no perf, paranoid), a SKIP note says so.
# Environment: BUILD, PROFILEME, PERF.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
PERF=${PERF:-perf}
out=$BUILD/callgraph
mkdir -p "$out"
P=$PROFILEME

pass() { echo "PASS callgraph/$1"; }
fail() { echo "FAIL callgraph/$1: $2"; }

if ! command -v "$PERF" >/dev/null || ! command -v cc >/dev/null; then
  echo "note: callgraph: perf or cc missing, nothing checked"; exit 0
fi
cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$out/cg" tests/callgraph/cg.c || { fail build "cc failed"; exit 1; }
# perf 6.1 misnames x86-64 libc's PLT entries (it takes .rela.plt's order,
# where the IRELATIVE slots come last; perf 6.3 sorts them by GOT slot and
# names them by their IFUNC, as we do, and as objdump places them:
# test_symbols). Names order ties, so where a sample lands in libc's PLT 6.1
# is no oracle for the whole report: such a recording (about 1 in 10, from
# qsort's memcpy) is made again, up to 8 times.
record_clean() {
  local data=$1 try; shift
  for try in 1 2 3 4 5 6 7 8; do
    "$PERF" record -q -e cpu-clock:u "$@" -o "$data" -- "$out/cg" "$n" >/dev/null 2>"$out/rec.err" || return 1
    "$PERF" script -i "$data" 2>/dev/null | grep -q '@plt.*libc\.so' || return 0
    echo "note: callgraph: $(basename "$data") try $try has a sample in libc's PLT, recorded again"
  done
  echo "note: callgraph: $(basename "$data") has samples in libc's PLT in every try, compared as it is"
}
n=150
if ! record_clean "$out/fp.data" -g; then
  echo "note: callgraph: perf record cannot run here ($(head -1 "$out/rec.err")), nothing checked"; exit 0
fi
n=40
record_clean "$out/dw.data" --call-graph dwarf || { fail record "perf record --call-graph dwarf failed"; exit 1; }

norm() { sed -e 's/__libc_start_main@@\?GLIBC_[0-9.]*/__libc_start_main/g'; }
# Differences left once names are normalised, other than perf's "[...]
# (inlined)" (its remaining-hits entry reads an uninitialised inlined flag in
# perf 6.1's ui/stdio/hist.c).
residue() {
  diff <(norm <"$1") <(norm <"$2") | grep '^[<>]' | grep -Ev '\[\.\.\.\]( \(inlined\))?$' | head -5
}

for f in fp dw; do
  data=$out/$f.data
  for mode in "-g" "--children" "--no-children" "--no-children -g caller" "-g callee" "--no-children -g callee" \
              "-g fractal" "-g flat" "-g folded" "--no-children -g folded" "-g graph,0,caller,count" \
              "-g graph,2,callee,period" "--no-children -g fractal,1" "-s sym -g" "-s sym --no-children -g callee" \
              "-s dso,sym --no-children -g"; do
    # shellcheck disable=SC2086
    "$P" report -i "$data" --stdio $mode >"$out/ours.txt" 2>"$out/ours.err"
    rc=$?
    # shellcheck disable=SC2086
    "$PERF" report --no-inline -i "$data" --stdio $mode 2>/dev/null | sed '/^# (Tip/,$d' | sed '$d' >"$out/perf.txt"
    name="$f/report $mode"
    if [ "$rc" -ne 0 ]; then fail "$name" "exit status $rc: $(head -1 "$out/ours.err")"; continue; fi
    if ! grep -q -- '--' "$out/perf.txt" && [ "${mode#*folded}" = "$mode" ] && [ "${mode#*flat}" = "$mode" ]; then
      fail "$name" "perf printed no graph (oracle broken?)"; continue
    fi
    r=$(residue "$out/ours.txt" "$out/perf.txt")
    if [ -z "$r" ]; then pass "$name"; else fail "$name" "differs from perf: $(echo "$r" | head -2 | tr '\n' '|')"; fi
  done
  # perf script sorts samples by time across the CPU buffers, we print them
  # in file order: compare the samples (a line each) as sorted lists.
  blocks() { awk 'BEGIN { RS = ""; FS = "\n" } { gsub(/\n/, "\\n"); print }' "$1" | sort; }
  "$P" script -i "$data" >"$out/script.raw" 2>"$out/script.err"
  "$PERF" script --no-inline -i "$data" 2>/dev/null >"$out/script.perf"
  blocks "$out/script.raw" | sed 's/\\n/\n/g' >"$out/script.ours"
  blocks "$out/script.perf" | sed 's/\\n/\n/g' >"$out/script.perf.sorted"
  n=$(grep -c "^	" "$out/script.perf")
  r=$(residue "$out/script.ours" "$out/script.perf.sorted")
  if [ "$n" -gt 100 ] && [ -z "$r" ]; then pass "$f/script callchains ($n frame lines)"
  else fail "$f/script" "$n frame lines; differs: $(echo "$r" | head -2 | tr '\n' '|')"; fi

  # The Firefox Profiler's perf importer (src/profile-logic/import/
  # linux-perf.js: isPerfScriptFormat, then a sample start line with the
  # thread name, [pid/]tid and time stamp, then frame lines "ADDR FUNC (MOD)"
  # until a blank line), reimplemented with its regular expressions: it
  # must take every sample of ours and see the stacks it sees in perf's.
  if python3 - "$out/script.raw" "$out/script.perf" <<'PY'
import re, sys
def parse(path):
    text = open(path).read()
    first = text[:text.index("\n")]
    assert text.startswith("# ========\n") or re.match(r"^\S.*?\s+(?:\d+/)?\d+\s+(?:\[\d+\]\s+)?[\d.]+:", first), "not detected as perf script"
    lines, i, samples = text.split("\n"), 0, []
    while i < len(lines):
        line = lines[i]; i += 1
        if line == "" or line.startswith("#"): continue
        m = re.match(r"^(.*)\s+([\d.]+):", line)
        assert m, "sample start not parsed: " + line
        t = re.match(r"^(.*)\s+(?:(\d+)/)?(\d+)\b", m.group(1))
        assert t, "thread not parsed: " + line
        stack = []
        while i < len(lines):
            fl = lines[i]; i += 1
            if fl.strip() == "": break
            f = re.match(r"^\s*(\w+)\s*(.+) \((\S*)\)", fl)
            assert f, "frame not parsed: " + fl
            func = re.sub(r"\+0x[\da-f]+$", "", f.group(2))
            stack.append(func + (" (in %s)" % f.group(3) if f.group(3) else ""))
        assert stack, "a sample without frames: " + line
        samples.append((t.group(1).strip(), int(t.group(3)), m.group(2), tuple(reversed(stack))))
    return samples
ours, theirs = parse(sys.argv[1]), parse(sys.argv[2])
norm = lambda x: [(a, b, c, tuple(re.sub(r"__libc_start_main@@?GLIBC_[\d.]+", "__libc_start_main", f) for f in d)) for a, b, c, d in x]
assert len(ours) == len(theirs), "%d samples, perf %d" % (len(ours), len(theirs))
assert sorted(norm(ours)) == sorted(norm(theirs)), "stacks differ from perf's"
PY
  then pass "$f/script as the Firefox Profiler's perf importer parses it, stacks as from perf script"
  else fail "$f/script for the Firefox Profiler" "see above"; fi

  # Folded stacks against perf script's own stacks (collapsed here in awk,
  # as stackcollapse-perf.pl does: comm, then frames outermost first).
  "$P" flamegraph -i "$data" --folded >"$out/$f.folded"
  awk '/^[^\t]/ { if (st != "") c[st]++; split($0, a, " "); st = a[1]; next }
       /^\t/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); if (s == "[unknown]") { d = $NF; gsub(/[()]/, "", d); sub(/.*\//, "", d); if (d != "[unknown]") s = "[" d "]" }
               fr[++nf] = s; next }
       /^$/ { line = st; for (i = nf; i >= 1; i--) line = line ";" fr[i]; if (st != "") c[line]++; st = ""; nf = 0 }
       END { for (k in c) print k, c[k] }' "$out/script.perf" | norm | sort >"$out/$f.folded.perf"
  norm <"$out/$f.folded" | sort >"$out/$f.folded.sorted"
  samples=$("$PERF" report -D -i "$data" 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE(')
  sum=$(awk '{ s += $NF } END { print s + 0 }' "$out/$f.folded")
  r=$(diff "$out/$f.folded.sorted" "$out/$f.folded.perf" | grep '^[<>]' | head -3)
  if [ "$sum" = "$samples" ] && [ -z "$r" ]; then pass "$f/folded ($samples samples, $(wc -l <"$out/$f.folded") stacks as perf script's)"
  else fail "$f/folded" "sum $sum of $samples samples; differs from perf script: $(echo "$r" | tr '\n' '|')"; fi

  "$P" flamegraph -i "$data" -o "$out/$f.svg" --title "cg $f"
  if python3 - "$out/$f.svg" "$out/$f.folded" <<'PY'
import re, sys, xml.etree.ElementTree as ET
svg, folded = sys.argv[1], sys.argv[2]
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(svg).getroot()                    # well-formed XML or an exception
assert not root.findall(".//s:script", ns) or True
assert not re.search(r'(href|src)="(http|file)', open(svg).read()), "outside reference"
# expected merged counts: every prefix of every stack
tot = {}
total = 0
for line in open(folded):
    stack, n = line.rsplit(" ", 1)
    n = int(n); total += n
    fr = stack.split(";")
    for d in range(1, len(fr) + 1):
        tot[tuple(fr[:d])] = tot.get(tuple(fr[:d]), 0) + n
width = float(root.get("width")) - 20
scale = width / total
# layout as flamegraph.pl: children sorted by name from the left
boxes = {}
for g in root.findall("s:g", ns):
    t = g.find("s:title", ns).text
    r = g.find("s:rect", ns)
    m = re.match(r"(.*) \((\d+) samples, [0-9.]+%\)$", t)
    boxes[(round(float(r.get("x")), 1), round(float(r.get("y")), 1))] = (m.group(1), int(m.group(2)), float(r.get("width")))
height = float(root.get("height"))
def place(prefix, x, depth):
    kids = sorted({k[len(prefix)] for k in tot if len(k) == len(prefix) + 1 and k[:len(prefix)] == prefix})
    for k in kids:
        p = prefix + (k,)
        n = tot[p]
        if n * scale >= 0.1:
            y = height - 34 - 16 * (depth + 1)
            b = boxes.get((round(x, 1), round(y, 1)))
            assert b, "no box for %s at %.1f,%.1f" % (";".join(p), x, y)
            assert b[0] == k and b[1] == n, "box %s says %s %d, folded %d" % (";".join(p), b[0], b[1], n)
            assert abs(b[2] - n * scale) < 0.06, "width %.2f for %d samples" % (b[2], n)
            place(p, x, depth + 1)
        x += n * scale
place((), 10.0, 0)
assert boxes[(10.0, round(height - 34 - 16, 1))][1] == total, "the all box"
PY
  then pass "$f/flamegraph svg: every merged frame's box and count"
  else fail "$f/flamegraph svg" "see above"; fi
done

# The same stacks as a picture a browser draws: when rsvg-convert is
# installed, the SVG renders (a real SVG renderer, not our parser).
if command -v rsvg-convert >/dev/null; then
  if rsvg-convert -o "$out/dw.png" "$out/dw.svg" && [ -s "$out/dw.png" ]; then pass "flamegraph renders (rsvg-convert)"
  else fail "flamegraph renders" "rsvg-convert failed"; fi
fi

# Hostile chains ($BUILD/unit/test_callchain --write): an unknown context
# marker and a GUEST one (perf drops those chains), KERNEL/USER markers, a
# 600-frame loop (perf shows the outermost 127, recursion once in
# --children), an empty chain; perf report on the same file is the oracle.
# The file has no kernel map: perf names the kernel address's DSO
# "[unknown]", ours is the synthetic kernel image (our Alpha machine's), so
# that name and the column widths it changes are not compared; nor is
# perf's random "[...] (inlined)" suffix (see residue above).
T=$BUILD/unit/test_callchain
if [ -x "$T" ] && "$T" --write "$out/bad.data" --huge "$out/huge.data"; then
  for mode in "-g" "--no-children -g" "-g folded" "-g callee" "--no-children -g callee,0" "-g fractal"; do
    # shellcheck disable=SC2086
    "$P" report -i "$out/bad.data" --stdio $mode >"$out/bad.ours" 2>"$out/bad.err"
    rc=$?
    # shellcheck disable=SC2086
    "$PERF" report -i "$out/bad.data" --stdio $mode 2>/dev/null | sed '/^# (Tip/,$d' | sed '$d' | sed 's/\[\.\.\.\] (inlined)/[...]/' >"$out/bad.perf"
    r=$(diff -w <(sed 's/\[kernel\.kallsyms\]/[unknown]/' "$out/bad.ours") "$out/bad.perf" | grep '^[<>]' | grep -v '^[<>] # \.\.\.' | head -3)
    if [ "$rc" -eq 0 ] && [ -z "$r" ] && grep -q 'unknown context marker were dropped' "$out/bad.err"; then
      pass "hostile chains: report $mode as perf's"
    else fail "hostile chains: report $mode" "status $rc; $(echo "$r" | tr '\n' '|')"; fi
  done
  "$P" script -i "$out/bad.data" >/dev/null 2>&1 && "$P" flamegraph -i "$out/bad.data" -o "$out/bad.svg" &&
    python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$out/bad.svg" &&
    pass "hostile chains: script and flamegraph run, SVG well-formed" || fail "hostile chains: script/flamegraph" "failed"
  "$P" report -i "$out/huge.data" --stdio -g >/dev/null 2>"$out/huge.err"
  rc=$?
  if [ "$rc" -eq 1 ] && grep -q 'callchain runs past the end of the record' "$out/huge.err"; then
    pass "hostile chains: nr 2^60 is exit status 1: $(cat "$out/huge.err")"
  else fail "hostile chains: huge nr" "status $rc: $(cat "$out/huge.err")"; fi
else
  fail "hostile chains" "$T not built (make unit)"
fi

# -g on a file without chains: perf's error (perf prints it and two header
# lines, then exits 0; we exit 1).
"$P" report -g --stdio -i tests/perfdata/x86-cpu-clock.data >/dev/null 2>"$out/nochain.err"
rc=$?
"$PERF" report -g --stdio -i tests/perfdata/x86-cpu-clock.data >/dev/null 2>"$out/nochain.perf"
if [ "$rc" -eq 1 ] && grep -q 'But no callchain or branch data' "$out/nochain.err" &&
   grep -q 'But no callchain or branch data' "$out/nochain.perf"; then pass "-g without chains: perf's error"
else fail "-g without chains" "status $rc: $(head -2 "$out/nochain.err" | tr '\n' ' ')"; fi
