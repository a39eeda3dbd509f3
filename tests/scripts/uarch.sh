#!/usr/bin/env bash
# What-if machines (--uarch KEY=VALUE, docs/timing.md "What-if machines"):
#  - a changed parameter changes what the HRM's structure predicts, against
#    analytical answers: a loop bound by the window (tests/timing/window.c)
#    maps W instructions per load latency, so IPC = W / (L + 4) with L the
#    Bcache latency plus the memory latency, until W / 20 loads no longer fit
#    the MAF; a Dcache that holds a swept array never misses, a smaller one
#    misses every load of the sweep (tests/timing/dsweep.c); a narrower fetch
#    bounds six add chains at fetch_width instructions per cycle;
#  - every parameter offered is honoured: set to another value, each changes
#    the cycles of tests/timing/allparts.c, which has a little of everything;
#  - every refused value is refused with exit status 2 and says why;
#  - the configuration is stored in perf.data (PROFILEME_UARCH), shown by
#    report --header, read by Linux perf without complaint, and runs again
#    the same with --uarch @FILE; the HRM's defaults written out change nothing;
#  - --privileged and --user mean the same in run, stat and record.
# Each run is the difference of two iteration counts under stat (start-up
# cancels), as in tests/scripts/timing.sh. Environment: BUILD, PERF.
set -u
. "$(dirname "$0")/../lib/common.bash"
out=$BUILD/uarch
PERF=${PERF:-perf}
mkdir -p "$out"
cd "$out" || exit 1
build() { alpha_static "$root/tests/timing/$1.c" "$out/$1"; }
for p in window dsweep chains allparts; do
  build $p || { echo "FAIL uarch/build: cannot build tests/timing/$p.c"; exit 1; }
done

# counts UARCH EVENTS PROG ARGS...: the values of stat -x, in event order.
counts() {
  local u=$1 ev=$2; shift 2
  "$PROFILEME" stat -x, ${u:+--uarch "$u"} -e "$ev" -- "$@" 2>&1 >/dev/null | cut -d, -f1 | tr '\n' ' '
}

# per_iter NAME UARCH PROG N1 N2 EXTRA EXPR LO HI WHAT: runs PROG at N1 and N2
# iterations, with EXTRA arguments; EXPR (awk, over dc cycles, di instructions,
# dl loads, dm Dcache misses and dn iterations, all differences) must lie in
# LO..HI. Prints the value in $val for later checks.
val=
per_iter() {
  local name=$1 u=$2 prog=$3 n1=$4 n2=$5 extra=$6 expr=$7 lo=$8 hi=$9 what=${10}
  local ev=sim/cycles/,sim/instructions/u,sim/loads/u,sim/dcache-misses/u a b
  a=$(counts "$u" $ev ./$prog $n1 $extra); b=$(counts "$u" $ev ./$prog $n2 $extra)
  val=$(echo "$a $b" | awk -v dn=$((n2 - n1)) 'NF == 8 && $5 ~ /^[0-9]+$/ {
    dc = $5 - $1; di = $6 - $2; dl = $7 - $3; dm = $8 - $4; printf "%.4f", '"$expr"' }')
  if [ -n "$val" ] && awk -v v="$val" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(v >= lo && v <= hi) }'; then
    echo "PASS uarch/$name: $val $what (want $lo..$hi)"
  else
    echo "FAIL uarch/$name: '${val:-no count}' $what, want $lo..$hi (stat: $a / $b)"
  fi
}

# ---- the window: IPC = W / (L + 4), L = 13 + 130 ----
# Per window of W instructions: the oldest load maps, issues a cycle later,
# completes L cycles after, retires two cycles after that, and the group of
# four inums it held maps again the cycle after: L + 4 cycles (147).
# Within 3%: a DTB miss every 128 loads (one per 8 KB page) adds a little.
declare -A ipc
for w in 40 80 160; do
  want=$(awk -v w=$w 'BEGIN { printf "%.3f", 20 * 147 / w }')
  per_iter window-$w inflight=$w window 20000 40000 "" "dc / dn" \
    "$(awk -v x=$want 'BEGIN { print x * 0.97 }')" "$(awk -v x=$want 'BEGIN { print x * 1.03 }')" \
    "cycles per iteration with a window of $w (20 x 147 / $w = $want)"
  ipc[$w]=$(awk -v c="$val" 'BEGIN { if (c > 0) printf "%.4f", 20 / c }')
done
if [ -n "${ipc[80]}" ] && [ -n "${ipc[160]}" ] &&
   awk -v a="${ipc[80]}" -v b="${ipc[160]}" 'BEGIN { exit !(b / a >= 1.9 && b / a <= 2.05) }'; then
  echo "PASS uarch/window-doubled: IPC ${ipc[80]} -> ${ipc[160]} with the window doubled (HRM structure: x2)"
else
  echo "FAIL uarch/window-doubled: IPC '${ipc[80]}' -> '${ipc[160]}', want a ratio of 1.9..2.05"
fi
# A window of 320 holds 16 such loads, the MAF 8: one load per 143 / 8 cycles.
per_iter window-maf-bound inflight=320 window 20000 40000 "" "dc / dn" 17.34 18.41 \
  "cycles per iteration with a window of 320 and 8 MAF entries (143 / 8 = 17.875)"
# With 16 MAF entries the 40 rename registers bind next (3 per iteration:
# 13.3 iterations, 267 instructions, in flight); with 60 the window again.
per_iter window-rename-bound inflight=320,maf_entries=16 window 20000 40000 "" "dc / dn" 10.67 11.33 \
  "cycles per iteration, window 320, 16 MAF entries, 40 rename registers (20 x 147 / 267 = 11.0)"
per_iter window-320 inflight=320,maf_entries=16,int_phys_regs=100 window 20000 40000 "" "dc / dn" 8.91 9.47 \
  "cycles per iteration, window 320, 16 MAF entries, 60 rename registers (20 x 147 / 320 = 9.19)"
# The memory latency is a parameter too: 20 x (273 + 4) / 80 = 69.25.
per_iter window-mem-latency inflight=80,mem_latency=260 window 10000 20000 "" "dc / dn" 67.17 71.33 \
  "cycles per iteration with memory at 260 cycles (20 x 277 / 80 = 69.25)"

# ---- the Dcache: a 32 KB array swept line by line ----
# (A fitting array: 0 misses, give or take the odd line the kernel's
# timer ticks evict. Both counts have five digits: the guest's stack, and
# with it the start-up's misses, stay put.)
per_iter dcache-64k "" dsweep 10000 20000 32 "dm / dl" -0.001 0.001 "Dcache misses per load, 32 KB in the HRM's 64 KB 2-way"
per_iter dcache-32k l1d_bytes=32K dsweep 10000 20000 32 "dm / dl" -0.001 0.001 "Dcache misses per load, 32 KB in 32 KB 2-way (fits)"
per_iter dcache-32k-direct l1d_bytes=32K,l1d_ways=1 dsweep 10000 20000 32 "dm / dl" -0.001 0.001 \
  "Dcache misses per load, 32 KB in 32 KB direct mapped (fits: consecutive lines, consecutive sets)"
per_iter dcache-16k l1d_bytes=16K dsweep 10000 20000 32 "dm / dl" 0.999 1.001 \
  "Dcache misses per load, 32 KB in 16 KB 2-way (a cyclic sweep: round robin misses every load)"

# ---- the fetch: six add chains, 63 instructions from a 16-byte aligned loop ----
per_iter fetch-width-1 fetch_width=1 chains 20000 60000 6 "di / dc" 0.99 1.005 "IPC fetching 1 per cycle (63 / 63 = 1)"
per_iter fetch-width-2 fetch_width=2 chains 20000 60000 6 "di / dc" 1.95 1.975 "IPC fetching 2 per cycle (63 / 32 blocks = 1.969)"
# Wider than 4 gains nothing here: the upper subcluster's two pipes take 32
# of the 63 instructions (slotting), 16 cycles, as the fetch did.
per_iter fetch-width-8 fetch_width=8 chains 20000 60000 6 "di / dc" 3.86 3.94 "IPC fetching 8 per cycle (63 / 16 = 3.94, the upper pipes bind)"

# ---- every parameter offered is honoured ----
# Each at its minimum, or at its maximum where the minimum is the default,
# is refused beside the others' defaults or changes nothing here (a latency
# off allparts' critical paths), must change the cycles of allparts. The
# keys, defaults and ranges come from list --uarch.
"$PROFILEME" list --uarch >list.out 2>&1
mapfile -t kv < <(awk '/^  [a-z_0-9]+=[0-9]+[KM]? / { print $1 }' list.out)
base=$(counts "" sim/cycles/ ./allparts 300)
nparams=0
for item in "${kv[@]}"; do
  key=${item%%=*}; def=${item#*=}
  nparams=$((nparams + 1))
  range=$(grep -A1 "^  $item " list.out | tail -1 | sed -n 's/.* from \([0-9]*[KM]\?\) to \([0-9]*[KM]\?\);.*/\1 \2/p')
  set -- $range
  tried= c=
  for v in "${1:-}" "${2:-}"; do
    [ -z "$v" ] || [ "$v" = "$def" ] && continue
    c=$(counts "$key=$v" sim/cycles/ ./allparts 300)
    tried="$key=$v"
    case $c in [0-9]*) [ "$c" != "$base" ] && break ;; esac
  done
  if [ -z "$tried" ]; then echo "FAIL uarch/honoured/$key: no other value in '$range'"
  elif [ "${c% }" != "${base% }" ] && [ -n "${c// /}" ] && [ "${c#[0-9]}" != "$c" ]; then
    echo "PASS uarch/honoured/$key: $tried: ${base% } -> ${c% } cycles"
  else echo "FAIL uarch/honoured/$key: $tried: ${base% } -> '${c% }' cycles"; fi
done
if [ "$nparams" -ge 50 ]; then echo "PASS uarch/list: $nparams parameters listed"
else echo "FAIL uarch/list: $nparams parameters in list --uarch"; head -5 list.out | sed 's/^/  | /'; fi
# docs/timing.md names every one.
missing=$(for item in "${kv[@]}"; do grep -q "\`${item%%=*}\`" "$root/docs/timing.md" || printf '%s ' "${item%%=*}"; done)
if [ -z "$missing" ]; then echo "PASS uarch/documented: docs/timing.md names all $nparams parameters"
else echo "FAIL uarch/documented: not in docs/timing.md: $missing"; fi

# ---- refusals: exit status 2, a reason, and nothing run ----
printf 'inflight=160  # a comment\n\nl1d_bytes=48K,inflight=7\n' >bad.uarch
printf '# the HRM window, twice\ninflight=160\n' >good.uarch
refuse() {   # NAME WANT ARGS...: the command must fail with status 2 saying WANT
  local name=$1 want=$2; shift 2
  "$@" >ref.out 2>ref.err
  local rc=$?
  if [ $rc -eq 2 ] && grep -qF -- "$want" ref.err && [ ! -s ref.out ]; then
    echo "PASS uarch/refused/$name: $(head -1 ref.err)"
  else echo "FAIL uarch/refused/$name: status $rc, want 2 and '$want': $(head -c 300 ref.err)"; fi
}
S=("$PROFILEME" stat -e sim/cycles/)
refuse multiple-of-4 "inflight=6: want a multiple of 4 from 4 to 512 (inums are allocated in groups of four" \
  "${S[@]}" --uarch inflight=6 -- ./dsweep 10
refuse window-too-big "inflight=1024: out of range: want a multiple of 4 from 4 to 512" "${S[@]}" --uarch inflight=1024 -- ./dsweep 10
refuse power-of-two "fetch_width=3: want a power of two from 1 to 16" "${S[@]}" --uarch fetch_width=3 -- ./dsweep 10
refuse not-a-number "lat_imul=fast: not a number" "${S[@]}" --uarch lat_imul=fast -- ./dsweep 10
refuse negative "mem_latency=-5: not a number" "${S[@]}" --uarch mem_latency=-5 -- ./dsweep 10
refuse unknown-key "'issue_width': no such parameter ('profileme list --uarch' lists them)" \
  "${S[@]}" --uarch issue_width=6 -- ./dsweep 10
refuse no-value "'inflight': want KEY=VALUE" "${S[@]}" --uarch inflight -- ./dsweep 10
refuse size-suffix-range "l1d_bytes=2M: out of range: want a whole number from 1K to 1M" "${S[@]}" --uarch l1d_bytes=2M -- ./dsweep 10
refuse cache-sets "l1d_bytes=49152 with l1d_ways=2 and line_bytes=64: 49152 bytes is not a power-of-two number of sets" \
  "${S[@]}" --uarch l1d_bytes=48K -- ./dsweep 10
refuse fetch-in-line "fetch_width=16 with line_bytes=32: a fetch block of 64 bytes must lie in one cache line" \
  "${S[@]}" --uarch fetch_width=16,line_bytes=32 -- ./dsweep 10
refuse fp-load "lat_ld_fp=2 below lat_ld_int=3" "${S[@]}" --uarch lat_ld_fp=2 -- ./dsweep 10
refuse bcache-faster-than-hit "bcache_latency=2 below lat_ld_int=3: a Dcache miss cannot be served sooner than a hit" \
  "${S[@]}" --uarch bcache_latency=2 -- ./dsweep 10
refuse file-line "bad.uarch:3: inflight=7: want a multiple of 4" "${S[@]}" --uarch @bad.uarch -- ./dsweep 10
refuse file-missing "--uarch @nosuch.uarch: No such file or directory" "${S[@]}" --uarch @nosuch.uarch -- ./dsweep 10
refuse record "profileme record: --uarch inflight=6" "$PROFILEME" record -q -o ref.data --uarch inflight=6 -- ./dsweep 10
refuse run-untimed "--uarch changes the timed EV67: add --timed" "$PROFILEME" run --uarch inflight=160 -- ./dsweep 10
# Relations are checked once every list is in: 96 KB works as 3 ways of 32 KB.
c=$(counts l1d_ways=3 sim/cycles/ ./dsweep 10 2>/dev/null)
d=$("$PROFILEME" stat -x, --uarch l1d_ways=3 --uarch l1d_bytes=96K -e sim/cycles/ -- ./dsweep 10 2>&1 >/dev/null | cut -d, -f1)
if [ "${c#[0-9]}" = "$c" ] && [ "${d#[0-9]}" != "$d" ]; then
  echo "PASS uarch/relations-after-all: l1d_ways=3 alone refused, then with l1d_bytes=96K accepted ($d cycles)"
else echo "FAIL uarch/relations-after-all: alone '$c', with 96K '$d'"; fi

# ---- perf.data: stored, shown, read by perf, run again ----
"$PROFILEME" record -q -c 20011 -o what.data --uarch @good.uarch -- ./window 20000 >/dev/null 2>rec.err &&
  "$PROFILEME" record -q -c 20011 -o hrm.data -- ./window 20000 >/dev/null 2>>rec.err
"$PROFILEME" report --header-only -i what.data >what.hdr 2>&1
"$PROFILEME" report --header-only -i hrm.data >hrm.hdr 2>&1
if grep -q '^# uarch : inflight=160 (a what-if EV67' what.hdr && grep -q '^# uarch params : fetch_width=4,.*,inflight=160,' what.hdr &&
   ! grep -q '^# uarch' hrm.hdr; then
  echo "PASS uarch/header: report --header shows inflight=160 and the whole list; none for the HRM's"
else echo "FAIL uarch/header: $(grep '^# uarch' what.hdr | head -c 200) / HRM's: $(grep -c '^# uarch' hrm.hdr)"; fi
if command -v "$PERF" >/dev/null; then
  "$PERF" report --header-only -i what.data >perf.hdr 2>perf.err; rc=$?
  "$PERF" script -i what.data >perf.script 2>>perf.err; rc2=$?
  n=$("$PROFILEME" script -i what.data 2>/dev/null | wc -l)
  if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q '^# cmdline : .*--uarch @good.uarch' perf.hdr &&
     ! grep -Eiq 'fail|error|invalid|unknown' perf.err && [ "$(wc -l <perf.script)" -eq "$n" ] && [ "$n" -gt 0 ]; then
    echo "PASS uarch/perf-reads: perf report --header-only and perf script read the file ($n samples, as ours)"
  else echo "FAIL uarch/perf-reads: status $rc/$rc2, $(wc -l <perf.script) samples vs $n: $(head -c 200 perf.err)"; fi
else
  echo "FAIL uarch/perf-reads: $PERF not installed (scripts/setup.sh installs linux-perf)"
fi
st=$("$PROFILEME" stat -e sim/cycles/ --uarch @good.uarch -- ./dsweep 1000 2>&1 >/dev/null)
st0=$("$PROFILEME" stat -e sim/cycles/ -- ./dsweep 1000 2>&1 >/dev/null)
if grep -q '^ a what-if EV67: inflight=160 (the rest as the HRM.s)$' <<<"$st" && ! grep -q 'what-if' <<<"$st0"; then
  echo "PASS uarch/stat-says: stat's footer names a what-if machine's changes, and nothing for the HRM's"
else echo "FAIL uarch/stat-says: $(grep -c what-if <<<"$st") / $(grep -c what-if <<<"$st0") what-if lines"; fi
params=$(sed -n 's/^# uarch params : //p' what.hdr)
printf '%s\n' "$params" | tr ',' '\n' >replay.uarch
a=$(counts inflight=160 sim/cycles/,sim/instructions/u ./window 20000)
b=$("$PROFILEME" stat -x, --uarch @replay.uarch -e sim/cycles/,sim/instructions/u -- ./window 20000 2>&1 >/dev/null | cut -d, -f1 | tr '\n' ' ')
if [ -n "$params" ] && [ "$a" = "$b" ] && [ "${a#[0-9]}" != "$a" ]; then
  echo "PASS uarch/replay: the stored list as --uarch @FILE counts the same ($a)"
else echo "FAIL uarch/replay: inflight=160 '$a', the stored list '$b'"; fi
defaults=$(IFS=,; echo "${kv[*]}")
a=$(counts "" sim/cycles/,sim/instructions/u,sim/dcache-misses/u ./allparts 100)
b=$(counts "$defaults" sim/cycles/,sim/instructions/u,sim/dcache-misses/u ./allparts 100)
if [ "${#kv[@]}" -ge 50 ] && [ "$a" = "$b" ] && [ "${a#[0-9]}" != "$a" ]; then
  echo "PASS uarch/defaults-are-the-model: every listed default given to --uarch counts as no --uarch ($a)"
else echo "FAIL uarch/defaults-are-the-model: none '$a', all defaults '$b'"; fi

# ---- --privileged and --user, one meaning everywhere ----
# stat counts as root by default: --privileged changes nothing, --user
# leaves instructions to perf's :u fallback (<not supported> on the EV67).
s0=$("$PROFILEME" stat -x, -e instructions -- ./dsweep 1000 2>&1 >/dev/null)
s1=$("$PROFILEME" stat -x, --privileged -e instructions -- ./dsweep 1000 2>&1 >/dev/null)
s2=$("$PROFILEME" stat -x, --user -e instructions -- ./dsweep 1000 2>&1 >/dev/null)
# record samples as a normal user by default: --user changes nothing,
# --privileged adds kernel samples.
r0=$("$PROFILEME" record -q -c 997 -o u0.data -- ./dsweep 20000 >/dev/null 2>&1 && "$PROFILEME" report --stdio -i u0.data -s dso 2>/dev/null | grep -v '^#')
r1=$("$PROFILEME" record -q -c 997 --user -o u1.data -- ./dsweep 20000 >/dev/null 2>&1 && "$PROFILEME" report --stdio -i u1.data -s dso 2>/dev/null | grep -v '^#')
r2=$("$PROFILEME" record -q -c 997 --privileged -o u2.data -- ./dsweep 20000 >/dev/null 2>&1 && "$PROFILEME" report --stdio -i u2.data -s dso 2>/dev/null | grep -v '^#')
if [ "$s0" = "$s1" ] && [ "${s0#[0-9]}" != "$s0" ] && grep -q '^<not supported>,,instructions:u' <<<"$s2" &&
   [ -n "$r0" ] && [ "$r0" = "$r1" ] && ! grep -q kernel <<<"$r0" && grep -q kernel <<<"$r2"; then
  echo "PASS uarch/privilege-options: stat and record take both; stat's root and record's user defaults as --help says"
else
  echo "FAIL uarch/privilege-options: stat '${s0%%,*}'/'${s1%%,*}'/'${s2%%,*}', record user==default $([ "$r0" = "$r1" ] && echo yes || echo no), kernel samples with --privileged $(grep -c kernel <<<"$r2")"
fi
