#!/usr/bin/env bash
# hotspot (KDAB, Debian 12's 1.3.0) on our perf.data: hotspot-perfparser,
# the program hotspot runs to read a file (symbols through elfutils, DWARF
# unwinding, its binary output stream), is given files from `record`:
# flat ProfileMe (cycles:p), -g (the kernel's chain: user part the pc only),
# --call-graph dwarf, --call-graph dwarf --unwind-at-record, and -a on 2
# CPUs (kernel symbols from the guest's /proc/kallsyms, as hotspot's
# kallsyms setting gives them). Its stream is decoded by tests/lib/
# qperfstream.py, read from hotspot's source (perfunwind.cpp writes it,
# data.h's handleFrame makes symbols of frames), and must show what our
# report shows:
#  - per symbol, the samples and the share of the period whose leaf it is
#    (hotspot's bottom-up self cost) equal `report --no-children -n -s
#    dso,sym`'s Samples and Overhead, the addresses without a symbol summed
#    per DSO (hotspot names them "??");
#  - for files with chains, every symbol's inclusive share equals report's
#    Children column, and the stacks sample for sample (folded) equal
#    `flamegraph --folded`'s;
#  - for dwarf files, the finding: elfutils 0.188 cannot unwind Alpha
#    ("Unwinding not supported for this architecture"), so hotspot's stacks
#    are the sampled pc alone (a check that says so, so that a hotspot or
#    elfutils that unwinds Alpha is noticed).
# hotspot refuses arch "alpha" (no register table: exit status 6, "No
# information about CPU architecture found"), checked first; the files are
# given to it through `profileme inject --arch x86` (records unchanged).
# Also checked whatever is installed: inject --arch's header and records.
# The hotspot checks are skipped with a note when hotspot is not installed
# (scripts/setup.sh installs it).
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
pass() { echo "PASS hotspot/$1"; }
fail() { echo "FAIL hotspot/$1: $2"; }
qps=tests/lib/qperfstream.py
out=$BUILD/hotspot
mkdir -p "$out"
cg=$out/cg thr=$out/threads kcat=$out/cat
alpha_cc "$cg" tests/callgraph/cg.c -O1 -g -fno-omit-frame-pointer -fno-inline ||
  { fail build "cg.c does not build"; exit 1; }
alpha_cc "$thr" tests/unwind/threads.c -O2 -g -lpthread || { fail build "threads.c does not build"; exit 1; }
alpha_static tests/viewers/cat.c "$kcat" || { fail build "cat.c does not build"; exit 1; }
"$PROFILEME" run --privileged "$kcat" /proc/kallsyms >"$out/kallsyms" 2>"$out/kallsyms.err" ||
  fail kallsyms "reading the guest's /proc/kallsyms failed: $(head -2 "$out/kallsyms.err")"

# The recordings, side by side (two CPUs), in a fixed environment (the
# guest gets it, and its size moves the stack): options and program.
declare -A opts=([flat]="" [fp]="-g" [dwarf]="--call-graph dwarf" [atrecord]="--call-graph dwarf --unwind-at-record"
                 [system]="-a --cpus 2 --privileged")
for n in flat fp dwarf atrecord system; do
  prog=("$cg" 2) freq=20000
  [ $n = system ] && prog=("$thr") freq=50000
  # shellcheck disable=SC2086
  env -i PATH=/usr/bin:/bin LC_ALL=C HOME=/home/guest "$PROFILEME" record -q ${opts[$n]} -F $freq -o "$out/$n.data" "${prog[@]}" >/dev/null 2>"$out/$n.rec.err" &
done
wait
for n in flat fp dwarf atrecord system; do
  [ -s "$out/$n.data" ] || fail "$n" "record failed: $(head -2 "$out/$n.rec.err")"
done

# inject --arch, whatever viewer is installed: the header says the new
# arch (Linux perf reads it) and the records are the same (perf script's
# reading of both files is); a bad name is refused.
if [ -s "$out/atrecord.data" ] && "$PROFILEME" inject -q --arch x86 -i "$out/atrecord.data" -o "$out/inj.data" 2>"$out/inj.err"; then
  if command -v perf >/dev/null; then
    a1=$(perf report -i "$out/inj.data" --header-only 2>/dev/null | sed -n 's/^# arch : //p')
    perf script -i "$out/atrecord.data" -F comm,tid,time,ip,sym,period 2>/dev/null >"$out/inj.want"
    perf script -i "$out/inj.data" -F comm,tid,time,ip,sym,period 2>/dev/null >"$out/inj.got"
  else
    a1=$("$PROFILEME" report -i "$out/inj.data" --header-only 2>/dev/null | sed -n 's/^# arch : //p')
    "$PROFILEME" script -i "$out/atrecord.data" >"$out/inj.want" 2>/dev/null
    "$PROFILEME" script -i "$out/inj.data" >"$out/inj.got" 2>/dev/null
  fi
  if [ "$a1" = x86 ] && [ -s "$out/inj.want" ] && cmp -s "$out/inj.want" "$out/inj.got"; then
    pass "inject-arch: arch x86 in the header, the $(grep -c . "$out/inj.got") lines of perf script the same"
  else
    fail inject-arch "arch '$a1', script output $(cmp -s "$out/inj.want" "$out/inj.got" && echo same || echo differs)"
  fi
else
  fail inject-arch "inject --arch failed: $(head -2 "$out/inj.err" 2>/dev/null)"
fi
"$PROFILEME" inject --arch 'x 86' -i "$out/flat.data" -o "$out/bad.data" 2>"$out/bad.err"
st=$?
grep -q 'wants a machine name' "$out/bad.err" && [ $st = 2 ] && [ ! -e "$out/bad.data" ] &&
  pass "inject-arch-bad: 'x 86' refused with status 2: $(head -1 "$out/bad.err")" ||
  fail inject-arch-bad "status $st: $(head -1 "$out/bad.err")"

pp=${HOTSPOT_PERFPARSER:-}
if [ -z "$pp" ]; then
  for d in /usr/lib/*/libexec /usr/libexec; do
    [ -x "$d/hotspot-perfparser" ] && { pp=$d/hotspot-perfparser; break; }
  done
fi
if [ -z "$pp" ]; then
  echo "hotspot: hotspot-perfparser not installed (scripts/setup.sh installs hotspot): not checked"; exit 0
fi

# The refusal of arch "alpha", as recorded.
"$pp" --input "$out/flat.data" --output "$out/flat.orig.qps" >/dev/null 2>"$out/flat.orig.err"
st=$?
if [ $st = 6 ] && grep -q 'No information about CPU architecture found' "$out/flat.orig.err"; then
  pass "refuses-arch-alpha: perfparser exits 6 (MissingData) on arch \"alpha\", before any sample"
else
  fail refuses-arch-alpha "exit status $st: $(tail -2 "$out/flat.orig.err" | tr '\n' ' ') (does this hotspot know Alpha? update docs/viewers.md)"
fi

# Names of one address: perf (and report) pick one of a function's aliases
# by its rules (fewer leading underscores, then the longer name: "cfree"),
# perfparser the first in its sorted table ("__libc_free"). Both sides are
# given the alphabetically first name of each address, from nm's tables
# (the files' own, not either reader's): "DSO NAME CANONICAL" lines.
for f in "$cg" "$thr" /usr/alpha-linux-gnu/lib/libc.so.6.1 /usr/alpha-linux-gnu/lib/ld-linux.so.2; do
  { alpha-linux-gnu-nm --defined-only "$f" 2>/dev/null; alpha-linux-gnu-nm -D --defined-only "$f" 2>/dev/null; } |
    awk -v dso="${f##*/}" '$2 ~ /^[TtWi]$/ { n = $3; sub(/@.*/, "", n); if (!(n in seen)) { seen[n] = 1; names[$1] = names[$1] " " n } }
      END { for (a in names) { k = split(names[a], v, " "); c = v[1]; for (i = 2; i <= k; i++) if (v[i] < c) c = v[i]
              for (i = 1; i <= k; i++) print dso, v[i], c } }'
done >"$out/aliases"
# Zero-size functions (Alpha's _init): perf, and report, extend one to the
# next symbol, across a section end (symbols__fixup_end); perfparser names
# an address past it by its section ("<.plt+1200004cc>", a sample in the
# PLT header). From readelf's tables, "DSO START NEXT NAME" for each of
# them (NEXT: the next function's address), to give such a row report's
# name.
for f in "$cg" "$thr" /usr/alpha-linux-gnu/lib/libc.so.6.1 /usr/alpha-linux-gnu/lib/ld-linux.so.2; do
  alpha-linux-gnu-readelf -W -s "$f" 2>/dev/null |
    awk '$4 == "FUNC" && $2 !~ /^0+$/ && $NF !~ /^\(/ && $(NF - 1) != "UND" { print $2, $3, $NF }' |
    sort -u |
    awk -v dso="${f##*/}" '{ a = $1; if (zs != "" && a != za) { print dso, za, a, zn; zs = "" }
                             if (zs != "" && $2 != 0) zs = ""   # a sized alias: no extension
                             else if ($2 == 0 && zs == "" && a != sized) { zs = 1; za = a; zn = $3; sub(/@.*/, "", zn) }
                             if ($2 != 0) sized = a }'
done >"$out/zerosize"
unsection() { python3 -c '
import re, sys
z = {}
for l in open(sys.argv[1]):
    d, a, b, n = l.split()
    z.setdefault(d, []).append((int(a, 16), int(b, 16), n))
for l in sys.stdin:
    f = l.rstrip("\n").split("\t")
    m = re.match(r"^<\.[\w.]+\+([0-9a-f]+)>$", f[1])
    if m:
        x = int(m.group(1), 16)
        for a, b, n in z.get(f[0], []):
            if a <= x < b: f[1] = n
    print("\t".join(f))' "$out/zerosize"; }
canon() { awk -F'\t' -v OFS='\t' 'NR == FNR { split($0, a, " "); c[a[1] "\t" a[2]] = a[3]; next }
                                   ($1 "\t" $2) in c { $2 = c[$1 "\t" $2] } { print }' "$out/aliases" - | sort; }

# report's per-symbol lines as "DSO\tSYMBOL\tSAMPLES\tPERCENT", the
# addresses without a symbol summed per DSO as "[DSO]" (no percent).
report_self() {
  "$PROFILEME" report -i "$1" --stdio --no-children -g none -n -s dso,sym 2>/dev/null |
    awk '/^ +[0-9.]+%/ { pct = $1; sub(/%/, "", pct); n = $2; dso = $3; sym = $5
           for (i = 6; i <= NF; i++) sym = sym " " $i
           if (sym ~ /^0x[0-9a-f]+$/) { un["[" dso "]" "\t" dso] += n; next }
           printf "%s\t%s\t%d\t%s\n", dso, sym, n, pct }
         END { for (k in un) { split(k, a, "\t"); printf "%s\t%s\t%d\t-\n", a[2], a[1], un[k] } }' | canon
}
# The same from perfparser's stream: percent of the total cost, %.2f.
hotspot_self() {
  python3 "$qps" "$1" self | awk -F'\t' '/^#total/ { split($0, t, " "); total = t[3]; next } { line[NR] = $0 }
    END { for (i in line) { split(line[i], f, "\t")
            pct = (f[2] ~ /^\[/ && f[2] != "[kernel.kallsyms]") ? "-" : sprintf("%.2f", 100 * f[4] / total)
            printf "%s\t%s\t%d\t%s\n", f[1], f[2], f[3], pct } }' | unsection | canon
}
# Children: resolved symbols' "DSO\tSYMBOL\tPERCENT" from report, and from the stream.
report_children() {
  "$PROFILEME" report -i "$1" --stdio --children -n -s dso,sym 2>/dev/null |
    awk '/^ +[0-9.]+% +[0-9.]+% / { pct = $1; sub(/%/, "", pct); dso = $4; sym = $6
           for (i = 7; i <= NF; i++) sym = sym " " $i
           if (sym !~ /^0x[0-9a-f]+$/) printf "%s\t%s\t%s\n", dso, sym, pct }' | canon
}
hotspot_children() {
  local total
  total=$(python3 "$qps" "$1" self | awk '/^#total/ { print $3 }')
  python3 "$qps" "$1" children | awk -F'\t' -v t="$total" '$2 !~ /^\[/ { printf "%s\t%s\t%.2f\n", $1, $2, 100 * $3 / t }' | canon
}

for n in flat fp dwarf atrecord system; do
  d=$out/$n.data
  [ -s "$d" ] || continue
  if ! "$PROFILEME" inject -q --arch x86 -i "$d" -o "$out/$n.x86.data" 2>"$out/$n.inject.err"; then
    fail "$n" "inject --arch x86 failed: $(head -2 "$out/$n.inject.err")"; continue
  fi
  ks=()
  [ $n = system ] && ks=(--kallsyms "$out/kallsyms")
  if ! "$pp" --input "$out/$n.x86.data" --output "$out/$n.qps" "${ks[@]}" >/dev/null 2>"$out/$n.pp.err"; then
    fail "$n" "perfparser failed: $(tail -2 "$out/$n.pp.err" | tr '\n' ' ')"; continue
  fi
  report_self "$d" >"$out/$n.want"
  hotspot_self "$out/$n.qps" >"$out/$n.got"
  nsym=$(grep -vc $'\t\\[' "$out/$n.want")
  if [ "$nsym" -ge 3 ] && diff -q "$out/$n.want" "$out/$n.got" >/dev/null; then
    pass "$n-self: $(python3 "$qps" "$out/$n.qps" self | awk '/^#total/ { print $2 }') samples; $nsym symbols' samples and overhead and the unnamed addresses per DSO as report shows them"
  else
    fail "$n-self" "report and hotspot differ: $(diff "$out/$n.want" "$out/$n.got" | grep '^[<>]' | head -6 | tr '\n\t' '; ')"
  fi
  frames=$(python3 "$qps" "$out/$n.qps" frames)
  case $n in
    fp|atrecord)
      report_children "$d" >"$out/$n.cwant"
      hotspot_children "$out/$n.qps" >"$out/$n.cgot"
      if [ "$(wc -l <"$out/$n.cwant")" -ge 4 ] && diff -q "$out/$n.cwant" "$out/$n.cgot" >/dev/null; then
        pass "$n-children: inclusive shares of $(wc -l <"$out/$n.cwant") symbols as report's Children column"
      else
        fail "$n-children" "$(diff "$out/$n.cwant" "$out/$n.cgot" | grep '^[<>]' | head -6 | tr '\n\t' '; ')"
      fi
      # The frames hotspot must have, sample for sample, from script -D's
      # dump: perfparser's rule (perfunwind.cpp resolveCallchain) puts the
      # sample's ip first unless the chain's first user entry is that ip
      # (a ProfileMe sample's ip is the profiled instruction; the chain, as
      # Linux's, starts at the interrupted pc).
      "$PROFILEME" script -D -i "$d" 2>/dev/null | awk '
        function flush() { if (ip == "") return; s = ""; first = ""
          for (i = 1; i <= nc; i++) { if (c[i] ~ /^fffffffffffff/) continue; if (first == "") first = c[i]; s = s "," c[i] }
          if (first != ip) s = "," ip s
          print substr(s, 2); ip = ""; nc = 0 }
        /PERF_RECORD_SAMPLE/ { flush(); for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+$/ && $(i-1) ~ /:$/) { ip = substr($i, 3); break } }
        /^\.\.\.\.\. +[0-9]+: / { v = $3; sub(/^0+/, "", v); c[++nc] = v }
        END { flush() }' | sort >"$out/$n.fwant"
      python3 "$qps" "$out/$n.qps" addrs | sort >"$out/$n.fgot"
      if [ -s "$out/$n.fwant" ] && diff -q "$out/$n.fwant" "$out/$n.fgot" >/dev/null; then
        pass "$n-stacks: the frames of all $(wc -l <"$out/$n.fgot") samples (up to $frames) are the recorded chains"
      else
        fail "$n-stacks" "$(diff "$out/$n.fwant" "$out/$n.fgot" | grep '^[<>]' | head -4 | tr '\n' ' ')"
      fi
      if [ $n = atrecord ] && [ "$frames" -lt 5 ]; then
        fail atrecord-depth "hotspot's deepest stack has $frames frames (cg.c's fib recursion is deeper)"
      fi
      ;;
    dwarf)
      if [ "$frames" = 1 ]; then
        pass "dwarf-no-unwinding: hotspot's stacks are the sampled pc alone (elfutils 0.188 cannot unwind Alpha)"
      else
        fail dwarf-no-unwinding "hotspot unwound $frames frames: does elfutils unwind Alpha now? update docs/viewers.md"
      fi
      ;;
    system)
      ncpu=$(python3 "$qps" "$out/$n.qps" cpus)
      grep -q $'^\[kernel.kallsyms\]\t[a-z_]' "$out/$n.got" && [ "$ncpu" = 2 ] &&
        pass "system-kernel: kernel symbols by the guest's kallsyms, samples on $ncpu CPUs" ||
        fail system-kernel "no named kernel symbol or not 2 CPUs ($ncpu)"
      ;;
  esac
done
