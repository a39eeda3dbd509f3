#!/usr/bin/env bash
# Sampled simulation's accuracy and speed on one program, against the
# exact mode on the same program (docs/sampled.md, "Measured"): the long
# acceptance measurements, run by hand or from a sweep, not in `make test`.
#
#   scripts/sampled-accuracy.sh [OPTIONS] [--] PROG [ARGS...]
#
#   --seeds N        sampled stat runs, one per seed 1..N (default 20)
#   --sampled=U,W,P  the parameters (default: profileme's)
#   -c N             ProfileMe period of both records (default 20011)
#   --cpus N, -a     machine CPUs; -a records system-wide (--privileged)
#   --cpi            also the cycles per instruction of each hot function
#                    (dcpi --cpi on records with the trace unit, both modes)
#   --out DIR        where the files go (default a new temporary directory);
#                    every run of PROG starts in DIR/run, emptied first
#   --top N          functions in the share table (default 10)
#
# Prints, with the CPU seconds of each run (user + system, of this process
# tree): the cycles, B-cache misses and replays of the exact run against
# each seed's estimate and whether its 95% interval covers them; the
# per-function sample shares of the two records, their difference in
# percentage points and its 95% half-width for two binomial shares of
# these sample counts; the share of per-instruction ProfileMe status
# proportions (retired, mispredict, trap, map_stall, killed) whose sampled
# value lies inside the exact file's 95% interval; with --cpi each hot
# function's CPI in both modes; and the speed ratios (exact record / sampled
# record, sampled record / functional run). Exit status 0, or 2 for bad
# arguments or a run that fails.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
PROFILEME=${PROFILEME:-$root/build/profileme}
seeds=20 sampled=--sampled count=20011 cpus=() sysw=() cpi=0 out= top=10
usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; }
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --seeds) seeds=$2; shift 2 ;;
    --sampled=*) sampled=$1; shift ;;
    -c) count=$2; shift 2 ;;
    --cpus) cpus=(--cpus "$2"); shift 2 ;;
    -a) sysw=(-a --privileged); shift ;;
    --cpi) cpi=1; shift ;;
    --out) out=$2; shift 2 ;;
    --top) top=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "sampled-accuracy: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { usage >&2; exit 2; }
[ -x "$PROFILEME" ] || { echo "sampled-accuracy: $PROFILEME not built (make)" >&2; exit 2; }
case $seeds$count in *[!0-9]*) echo "sampled-accuracy: --seeds and -c want numbers" >&2; exit 2 ;; esac
prog=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift
# The same guest clock in every run: a program that seeds itself from
# time() (lua's string hashes) then does the same work in each.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/sampled-accuracy.XXXXXX")
mkdir -p "$out" && cd "$out" || exit 2
echo "sampled-accuracy: $prog $* ($sampled, -c $count ${cpus[*]} ${sysw[*]}) in $out"

# cpu_s CMD...: runs CMD with a fixed environment (SOURCE_DATE_EPOCH kept:
# without it each run's guest clock starts at the host's time, and lua's
# string hashes, seeded from time(), make each run do different work),
# stdout to /dev/null and stderr to $err; prints the CPU seconds (user +
# system) it took. Each run starts in the same empty directory, $out/run:
# a program that writes files (the build workload) otherwise finds those
# of the runs before it, and its work, and the cycles, differ with them
# (make -B in a directory holding this script's files: 0.6% fewer cycles
# than with its own outputs only).
err=$out/last.err
cpu_s() {
  rm -rf "$out/run" && mkdir "$out/run" || exit 2
  (cd "$out/run" && /usr/bin/time -f '%U %S' -o "$out/time.txt" \
     env -i PATH=/usr/bin:/bin SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" "$@" >/dev/null 2>"$err"
   echo $? >"$out/status")
  awk '$1 ~ /^[0-9.]+$/ { printf "%.2f", $1 + $2 }' "$out/time.txt"
}
# check WHAT: the last cpu_s run exited 0, else its stderr and exit 2.
check() {
  [ "$(cat "$out/status")" = 0 ] && return
  echo "sampled-accuracy: $1 failed (exit status $(cat "$out/status")):" >&2
  cat "$err" >&2
  exit 2
}
E=sim/cycles/,instructions,sim/bcache-misses/,sim/replays/
val() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }
ci() { awk -F, -v e="$2" '$3 == e && $4 ~ /%$/ { sub(/%/, "", $4); print $4 }' "$1"; }

t_run=$(cpu_s "$PROFILEME" run "${cpus[@]}" "$prog" "$@"); check "the functional run"
t_xstat=$(cpu_s "$PROFILEME" stat "${cpus[@]}" -x, -e "$E" -- "$prog" "$@"); check "the exact stat"; cp "$err" exact.stat

echo
printf '%-20s %16s %16s %8s %8s  %s\n' quantity exact "estimate (s1)" "err %" "+-95%" "covered (of seeds)"
t_sstat=
for ((s = 1; s <= seeds; s++)); do
  t=$(cpu_s "$PROFILEME" stat --seed "$s" "$sampled" "${cpus[@]}" -x, -e "$E" -- "$prog" "$@")
  check "the sampled stat, seed $s"; cp "$err" smp$s.stat
  [ -z "$t_sstat" ] && t_sstat=$t
done
for q in sim/cycles/ sim/bcache-misses/ sim/replays/ instructions; do
  x=$(val exact.stat $q)
  cov=0 errs=
  for ((s = 1; s <= seeds; s++)); do
    v=$(val smp$s.stat $q); c=$(ci smp$s.stat $q)
    cov=$((cov + $(awk -v x="$x" -v v="$v" -v c="${c:-0}" 'BEGIN { e = (v - x) / x * 100; if (e < 0) e = -e; print (e <= c || v == x) ? 1 : 0 }')))
    errs+="$(awk -v x="$x" -v v="$v" 'BEGIN { printf "%.3f ", (v - x) / x * 100 }')"
  done
  read -r mean maxe < <(awk '{ for (i = 1; i <= NF; i++) { t += $i; a = $i < 0 ? -$i : $i; if (a > m) m = a } } END { printf "%.3f %.3f\n", t / NF, m }' <<<"$errs")
  covtxt="$cov of $seeds"
  [ -z "$(ci smp1.stat $q)" ] && covtxt="not estimated (no interval)"
  printf '%-20s %16s %16s %8s %8s  %s (mean error %s%%, worst %s%%)\n' "$q" "$x" "$(val smp1.stat $q)" \
    "$(awk -v x="$x" -v v="$(val smp1.stat $q)" 'BEGIN { printf "%.3f", (v - x) / x * 100 }')" "$(ci smp1.stat $q)" \
    "$covtxt" "$mean" "$maxe"
done

# ---- records ----
t_xrec=$(cpu_s "$PROFILEME" record -q "${cpus[@]}" "${sysw[@]}" -c "$count" -o "$out/exact.data" -- "$prog" "$@")
check "the exact record"
t_srec=$(cpu_s "$PROFILEME" record -q "$sampled" "${cpus[@]}" "${sysw[@]}" -c "$count" -o "$out/smp.data" -- "$prog" "$@")
check "the sampled record"
"$PROFILEME" dcpi -i exact.data --by sym -x, >exact.sym 2>/dev/null
"$PROFILEME" dcpi -i smp.data --by sym -x, >smp.sym 2>/dev/null
echo
echo "per-function sample shares (exact file against sampled file; +-: the 95% half-width of the difference):"
awk -F, -v top="$top" 'FNR == 1 { for (i = 1; i <= NF; i++) h[FILENAME, $i] = i; next }
  { k = $h[FILENAME, "symbol"] " (" $h[FILENAME, "dso"] ")"; n = $h[FILENAME, "samples"] }
  NR == FNR { a[k] += n; na += n; next } { b[k] += n; nb += n }
  END { for (k in a) order[k] = a[k]
        printf "  %-44s %8s %8s %8s %8s\n", "function", "exact %", "sampled %", "diff pp", "+-95% pp"
        worst = 0; inside = 0; shown = 0
        while (shown < top) { best = ""; for (k in order) if (best == "" || order[k] > order[best]) best = k
          if (best == "") break; p = a[best] / na; q = b[best] / nb; m = (a[best] + b[best]) / (na + nb)
          hw = 1.96 * sqrt(m * (1 - m) * (1 / na + 1 / nb)); d = (q - p) * 100
          printf "  %-44s %8.3f %8.3f %+8.3f %8.3f\n", substr(best, 1, 44), p * 100, q * 100, d, hw * 100
          if ((d < 0 ? -d : d) > worst) worst = (d < 0 ? -d : d); if ((d < 0 ? -d : d) <= hw * 100) inside++
          delete order[best]; shown++ }
        printf "  samples: exact %d, sampled %d; largest difference %.3f pp; %d of %d inside their 95%% half-width\n", na, nb, worst, inside, shown }' \
  exact.sym smp.sym

# Per-instruction status proportions: for instructions with at least 200
# samples in both files, each status's sampled proportion against the exact
# file's 95% interval for two binomial proportions.
"$PROFILEME" dcpi -i exact.data --by insn -x, >exact.insn 2>/dev/null
"$PROFILEME" dcpi -i smp.data --by insn -x, >smp.insn 2>/dev/null
awk -F, 'FNR == 1 { for (i = 1; i <= NF; i++) h[FILENAME, $i] = i; next }
  { k = $h[FILENAME, "pc"] " " $h[FILENAME, "dso"]; n = $h[FILENAME, "samples"]
    split("retired mispredict trap map_stall killed", st, " ")
    for (j in st) c[FILENAME, k, st[j]] = $h[FILENAME, st[j]]; N[FILENAME, k] = n; keys[k] = 1; f[FNR == 2 ? ++nf : nf] = FILENAME }
  END { split("retired mispredict trap map_stall killed", st, " "); A = ARGV[1]; B = ARGV[2]
        for (k in keys) { na = N[A, k]; nb = N[B, k]; if (na < 200 || nb < 200) continue; insns++
          for (j in st) { x = c[A, k, st[j]]; y = c[B, k, st[j]]; m = (x + y) / (na + nb)
            hw = 1.96 * sqrt(m * (1 - m) * (1 / na + 1 / nb)); d = x / na - y / nb; if (d < 0) d = -d
            pairs++; if (d <= hw + 1e-12) ok++; else out[st[j]]++ } }
        printf "\nper-instruction status proportions: %d of %d (%.1f%%) inside their 95%% interval, over %d instructions with 200+ samples in both files", ok, pairs, pairs ? 100 * ok / pairs : 0, insns
        sep = "; outside: "; for (s in out) { printf "%s%s %d", sep, s, out[s]; sep = ", " } print "" }' exact.insn smp.insn

if [ "$cpi" = 1 ]; then
  cpu_s "$PROFILEME" record -q "${cpus[@]}" -e cycles:p -c "$count" -e trace// -m 256,1024 -o "$out/exact-cpi.data" -- "$prog" "$@" >/dev/null
  check "the exact record with the trace unit"
  cpu_s "$PROFILEME" record -q "$sampled" "${cpus[@]}" -e cycles:p -c "$count" -e trace// -m 256,1024 -o "$out/smp-cpi.data" -- "$prog" "$@" >/dev/null
  check "the sampled record with the trace unit"
  "$PROFILEME" dcpi --cpi -i exact-cpi.data --by sym -x, >exact.cpi 2>/dev/null
  "$PROFILEME" dcpi --cpi -i smp-cpi.data --by sym -x, >smp.cpi 2>/dev/null
  echo; echo "cycles per instruction of the hot functions (dcpi --cpi, trace unit and ProfileMe):"
  awk -F, -v top="$top" 'FNR == 1 { for (i = 1; i <= NF; i++) h[FILENAME, $i] = i; next }
    { k = $h[FILENAME, "symbol"]; e = $h[FILENAME, "exec"]; cy = $h[FILENAME, "cycles"] }
    NR == FNR { ex[k] = e; ca[k] = cy; next } { cb[k] = cy; eb[k] = e }
    END { for (k in ex) order[k] = ex[k]; shown = 0; worst = 0
          printf "  %-40s %12s %9s %9s %8s\n", "function", "exec", "exact", "sampled", "err %"
          while (shown < top) { best = ""; for (k in order) if (best == "" || order[k] > order[best]) best = k
            if (best == "" || ex[best] == 0) break
            a = ca[best] / ex[best]; b = eb[best] ? cb[best] / eb[best] : 0; d = a ? (b - a) / a * 100 : 0
            printf "  %-40s %12d %9.3f %9.3f %+8.2f\n", substr(best, 1, 40), ex[best], a, b, d
            if ((d < 0 ? -d : d) > worst) worst = (d < 0 ? -d : d); delete order[best]; shown++ }
          printf "  worst CPI error of the %d hottest: %.2f%%\n", shown, worst }' exact.cpi smp.cpi
fi

echo
printf 'CPU seconds: run %s, exact stat %s, sampled stat %s, exact record %s, sampled record %s\n' \
  "$t_run" "$t_xstat" "$t_sstat" "$t_xrec" "$t_srec"
awk -v r="$t_run" -v xs="$t_xstat" -v ss="$t_sstat" -v xr="$t_xrec" -v sr="$t_srec" 'BEGIN {
  printf "ratios: exact/sampled record %.1fx, exact/sampled stat %.1fx, sampled record/run %.1fx, sampled stat/run %.1fx\n",
    xr / sr, xs / ss, sr / r, ss / r }'
