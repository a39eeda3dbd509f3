#!/usr/bin/env bash
# speedscope (npm 1.25.0, the built web app the package ships) opens our
# export in a real browser: Debian's chromium, headless, driven by
# playwright-core (tests/viewers/speedscope.mjs), loads the folded stacks of
# `profileme flamegraph --folded --no-comm` from 127.0.0.1 and reads the
# Sandwich view's table back from the page: the totals speedscope's own code
# computes per function. Files from `record`: flat ProfileMe (cycles:p),
# -g, --call-graph dwarf, --call-graph dwarf --unwind-at-record, and -a on
# 2 CPUs. Against `report` on the same perf.data:
#  - Self, folded by samples: report --no-children -n's Samples per symbol
#    (addresses without a symbol summed per DSO, "[DSO]" in both);
#  - Self and Total, folded by period (--period): report's Self and
#    Children percentages (%.2f of the whole period), every named symbol.
# One difference is known and checked as such: a chain (unwound at record
# or from the dwarf dump) starts at the interrupted pc, as Linux's
# callchain does (x86 PEBS too), while a ProfileMe sample's ip is the
# profiled instruction, which report's Self counts: where the two lie in
# different functions, the flame graph's leaf (perf script's and
# stackcollapse's too) is the interrupted function. Those samples, found
# from script's ip (-G) and its chains, must be exactly the difference in
# Self, and the shares are compared for the functions none of them names.
# Skipped with a note when speedscope, playwright-core or chromium is
# absent (scripts/setup.sh installs them).
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
pass() { echo "PASS speedscope/$1"; }
fail() { echo "FAIL speedscope/$1: $2"; }
groot=$(npm root -g 2>/dev/null)
app=${SPEEDSCOPE_DIR:-$groot/speedscope/dist/release}
chromium=${CHROMIUM:-/usr/bin/chromium}
for need in "$app/index.html" "$groot/playwright-core/package.json" "$chromium"; do
  [ -e "$need" ] || { echo "speedscope: $need not installed (scripts/setup.sh installs it): not checked"; exit 0; }
done
out=$BUILD/speedscope
mkdir -p "$out"
rm -f "$out"/*.table
cg=$out/cg thr=$out/threads
alpha_cc "$cg" tests/callgraph/cg.c -O1 -g -fno-omit-frame-pointer -fno-inline ||
  { fail build "cg.c does not build"; exit 1; }
alpha_cc "$thr" tests/unwind/threads.c -O2 -g -lpthread || { fail build "threads.c does not build"; exit 1; }

names=(flat fp dwarf atrecord system)
declare -A opts=([flat]="" [fp]="-g" [dwarf]="--call-graph dwarf" [atrecord]="--call-graph dwarf --unwind-at-record"
                 [system]="-a --cpus 2 --privileged")
for n in "${names[@]}"; do
  prog=("$cg" 2) freq=20000
  [ $n = system ] && prog=("$thr") freq=50000
  # shellcheck disable=SC2086
  env -i PATH=/usr/bin:/bin LC_ALL=C HOME=/home/guest "$PROFILEME" record -q ${opts[$n]} -F $freq -o "$out/$n.data" "${prog[@]}" >/dev/null 2>"$out/$n.rec.err" &
done
wait
files=()
for n in "${names[@]}"; do
  if [ ! -s "$out/$n.data" ]; then fail "$n" "record failed: $(head -2 "$out/$n.rec.err")"; continue; fi
  "$PROFILEME" flamegraph -i "$out/$n.data" --folded --no-comm >"$out/$n.samples" 2>/dev/null &&
    "$PROFILEME" flamegraph -i "$out/$n.data" --folded --no-comm --period >"$out/$n.period" 2>/dev/null ||
    { fail "$n" "flamegraph --folded failed"; continue; }
  files+=("$out/$n.samples" "$out/$n.period")
done
[ ${#files[@]} -gt 0 ] || exit 0
if ! NODE_PATH=$groot CHROMIUM=$chromium timeout 300 node tests/viewers/speedscope.mjs "$app" "$out" "${files[@]}" \
     2>"$out/browser.err"; then
  fail browser "$(tail -3 "$out/browser.err" | tr '\n' ' ')"
fi

# report's Self samples per name: "NAME\tSAMPLES", unnamed addresses as [DSO].
report_samples() {
  "$PROFILEME" report -i "$1" --stdio --no-children -g none -n -s dso,sym 2>/dev/null |
    awk '/^ +[0-9.]+%/ { n = $2; dso = $3; sym = $5; for (i = 6; i <= NF; i++) sym = sym " " $i
           if (sym ~ /^0x[0-9a-f]+$/) sym = "[" dso "]"; s[sym] += n }
         END { for (k in s) printf "%s\t%d\n", k, s[k] }' | sort
}
# report's "NAME\tTOTAL%\tSELF%" for named symbols (Total = Self without chains).
report_pct() {
  if [ "$2" = chains ]; then
    "$PROFILEME" report -i "$1" --stdio --children -s dso,sym 2>/dev/null |
      awk '/^ +[0-9.]+% +[0-9.]+% / { sym = $5; for (i = 6; i <= NF; i++) sym = sym " " $i
             if (sym !~ /^0x[0-9a-f]+$/) printf "%s\t%s\t%s\n", sym, $1, $2 }'
  else
    "$PROFILEME" report -i "$1" --stdio --no-children -g none -s dso,sym 2>/dev/null |
      awk '/^ +[0-9.]+%/ { sym = $4; for (i = 5; i <= NF; i++) sym = sym " " $i
             if (sym !~ /^0x[0-9a-f]+$/) printf "%s\t%s\t%s\n", sym, $1, $1 }'
  fi | tr -d % | sort
}

for n in "${names[@]}"; do
  t=$out/$n.samples.table tp=$out/$n.period.table
  [ -s "$t" ] && [ -s "$tp" ] || { [ -s "$out/$n.data" ] && fail "$n" "no table read from the page"; continue; }
  chains=flat
  [ $n != flat ] && [ $n != system ] && chains=chains
  report_samples "$out/$n.data" >"$out/$n.want"
  awk -F'\t' '$2 > 0 { printf "%s\t%d\n", $3, $2 }' "$t" | sort >"$out/$n.got"
  report_pct "$out/$n.data" $chains >"$out/$n.pwant"
  awk -F'\t' 'NR == FNR { total += $2; next } $3 !~ /^\[/ && ($1 > 0) {
                printf "%s\t%.2f\t%.2f\n", $3, 100 * $1 / total, 100 * $2 / total }' "$tp" "$tp" | sort >"$out/$n.pgot"
  moved=0
  if [ $chains = chains ]; then
    # The samples whose profiled instruction's function is not the chain's
    # first: report counts them under the first, the flame graph under the
    # second. From script -D (ip, then the chain) and the symbols script
    # names: "IPSYM\tLEAFSYM" per such sample.
    nm='function nm(sym, dso) { if (sym != "[unknown]") return sym; gsub(/[()]/, "", dso); sub(/.*\//, "", dso); return "[" dso "]" }'
    "$PROFILEME" script -F ip,sym,dso -G -i "$out/$n.data" 2>/dev/null | awk "$nm"' { print nm($2, $3) }' >"$out/$n.ipsym"
    "$PROFILEME" script -F ip,sym,dso -i "$out/$n.data" 2>/dev/null |
      awk "$nm"' BEGIN { RS = "" } { split($0, l, "\n"); split(l[1], w, " "); print nm(w[2], w[3]) }' >"$out/$n.leafsym"
    paste "$out/$n.ipsym" "$out/$n.leafsym" | awk -F'\t' '$1 != $2' >"$out/$n.moved"
    # the expected Self: report's, each such sample moved from its ip's
    # function to its chain's first
    awk -F'\t' 'NR == FNR { w[$1] += $2; next } { w[$1]--; w[$2]++ }
                END { for (k in w) if (w[k]) printf "%s\t%d\n", k, w[k] }' "$out/$n.want" "$out/$n.moved" | sort >"$out/$n.want2"
    moved=$(wc -l <"$out/$n.moved")
  fi
  if [ "$moved" -gt 0 ]; then
    if ! diff -q "$out/$n.want" "$out/$n.got" >/dev/null; then
      pass "$n-leaf-is-interrupted-pc: $moved samples' profiled instruction lies outside their chain's first function"
    else
      fail "$n-leaf-is-interrupted-pc" "$moved samples moved, yet speedscope's Self equals report's"
    fi
    cp "$out/$n.want2" "$out/$n.want"
    # the shares of the functions no moved sample names are unaffected
    cut -f1,2 "$out/$n.moved" | tr '\t' '\n' | sort -u >"$out/$n.movedfn"
    for f in pwant pgot; do
      awk -F'\t' 'NR == FNR { m[$1] = 1; next } !($1 in m)' "$out/$n.movedfn" "$out/$n.$f" >"$out/$n.$f.kept"
      mv "$out/$n.$f.kept" "$out/$n.$f"
    done
  fi
  nsym=$(wc -l <"$out/$n.want")
  if [ "$nsym" -ge 3 ] && diff -q "$out/$n.want" "$out/$n.got" >/dev/null; then
    pass "$n-self-samples: $(awk -F'\t' '{ s += $2 } END { print s }' "$out/$n.got") samples, Self of $nsym functions as report's Samples"
  else
    fail "$n-self-samples" "$(diff "$out/$n.want" "$out/$n.got" | grep '^[<>]' | head -6 | tr '\n\t' '; ')"
  fi
  npct=$(wc -l <"$out/$n.pwant")
  if [ "$npct" -ge 3 ] && diff -q "$out/$n.pwant" "$out/$n.pgot" >/dev/null; then
    pass "$n-period: Total and Self shares of $npct functions as report's $([ $chains = chains ] && echo 'Children and Self' || echo Overhead)$([ "$moved" -gt 0 ] && echo ", those no moved sample names")"
  else
    fail "$n-period" "$(diff "$out/$n.pwant" "$out/$n.pgot" | grep '^[<>]' | head -6 | tr '\n\t' '; ')"
  fi
done
