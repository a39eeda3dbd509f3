#!/usr/bin/env bash
# Sweeps for users who outgrow one machine: workloads x configurations x
# seeds as independent jobs, written as a GNU parallel job list and a Slurm
# array job (no scheduler of our own), and the merge of their results into
# one summary table (docs/sampled.md, "Sweeps").
#
#   scripts/sweep.sh plan --workloads FILE --configs FILE [--seeds N] [--events LIST] [--out DIR]
#   scripts/sweep.sh run-one DIR ID
#   scripts/sweep.sh merge DIR
#
# FILE formats, one entry per line, '#' comments and blank lines ignored:
#   workloads: NAME <tab> COMMAND [ARGS...]     (the guest program and its arguments)
#   configs:   NAME <tab> [PROFILEME OPTIONS...] (e.g. "exact" with none,
#              "sampled" with --sampled, "u500" with --sampled=500,2000,100000)
# plan writes DIR/jobs.tsv (ID, workload, config, seed), DIR/jobs.txt (one
# command per line: `parallel -j N < DIR/jobs.txt`, or xargs -P, or a
# shell loop) and DIR/sweep.slurm (`sbatch DIR/sweep.slurm`: an array job,
# one task per line of jobs.tsv). Each job (run-one) runs `profileme stat
# -x, -e EVENTS` and `profileme record` with its configuration's options
# and `--seed SEED`, into DIR/jobs/ID/: stat.csv, perf.data, the CPU
# seconds of each (cpu.txt) and its status (status: ok, or what failed).
# merge prints one table, a row per job, then per workload and
# configuration the mean over seeds with, where a configuration named
# "exact" ran the same workload, the error against it.
# Environment: PROFILEME (default build/profileme), SWEEP_RECORD_ARGS
# (extra record options, default "-c 20011"). Exit status 0, 2 for bad
# arguments.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
self=$root/scripts/$(basename "$0")
PROFILEME=${PROFILEME:-$root/build/profileme}
usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "sweep: $*" >&2; exit 2; }

# entries FILE: the file's entries, comments and blank lines dropped.
entries() { grep -v '^[[:space:]]*\(#\|$\)' "$1"; }

plan() {
  local wl= cf= seeds=1 events=sim/cycles/,instructions,sim/bcache-misses/,sim/replays/ out=sweep
  while [ $# -gt 0 ]; do
    case $1 in
      --workloads) wl=$2; shift 2 ;;
      --configs) cf=$2; shift 2 ;;
      --seeds) seeds=$2; shift 2 ;;
      --events) events=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      *) die "plan: unknown argument $1 (see --help)" ;;
    esac
  done
  [ -f "$wl" ] && [ -f "$cf" ] || die "plan wants --workloads FILE and --configs FILE"
  case $seeds in ''|*[!0-9]*|0) die "--seeds wants a positive number" ;; esac
  mkdir -p "$out" || exit 2
  out=$(cd "$out" && pwd)
  cp "$wl" "$out/workloads.txt"; cp "$cf" "$out/configs.txt"
  printf '%s\n' "$events" >"$out/events.txt"
  : >"$out/jobs.tsv"; : >"$out/jobs.txt"
  local id=0 w c s
  while IFS= read -r w; do
    while IFS= read -r c; do
      for ((s = 1; s <= seeds; s++)); do
        printf '%d\t%s\t%s\t%d\n' "$id" "${w%%$'\t'*}" "${c%%$'\t'*}" "$s" >>"$out/jobs.tsv"
        printf '%q run-one %q %d\n' "$self" "$out" "$id" >>"$out/jobs.txt"
        id=$((id + 1))
      done
    done < <(entries "$out/configs.txt")
  done < <(entries "$out/workloads.txt")
  [ "$id" -gt 0 ] || die "no jobs: the workload or configuration file is empty"
  cat >"$out/sweep.slurm" <<EOF
#!/bin/bash
#SBATCH --job-name=profileme-sweep
#SBATCH --array=0-$((id - 1))
#SBATCH --cpus-per-task=1
#SBATCH --output=$out/jobs/slurm-%A_%a.out
# One task per line of $out/jobs.tsv; merge when all are done:
#   $self merge $out
mkdir -p $out/jobs
exec $(printf '%q' "$self") run-one $(printf '%q' "$out") "\$SLURM_ARRAY_TASK_ID"
EOF
  echo "sweep: $id jobs in $out: parallel -j N < $out/jobs.txt, or sbatch $out/sweep.slurm; then $self merge $out"
}

run_one() {
  local dir=$1 id=$2 line w c s cmd opts
  line=$(awk -F'\t' -v id="$id" '$1 == id' "$dir/jobs.tsv")
  [ -n "$line" ] || die "run-one: no job $id in $dir/jobs.tsv"
  IFS=$'\t' read -r _ w c s <<<"$line"
  cmd=$(entries "$dir/workloads.txt" | awk -F'\t' -v n="$w" '$1 == n { sub(/^[^\t]*\t/, ""); print; exit }')
  opts=$(entries "$dir/configs.txt" | awk -F'\t' -v n="$c" '$1 == n { if (index($0, "\t")) { sub(/^[^\t]*\t/, ""); print } exit }')
  local j=$dir/jobs/$id events
  events=$(cat "$dir/events.txt")
  mkdir -p "$j" && cd "$j" || exit 2
  printf 'workload %s\nconfig %s\nseed %s\ncommand %s\noptions %s\n' "$w" "$c" "$s" "$cmd" "$opts" >meta.txt
  local st=ok
  # shellcheck disable=SC2086  # the options and the command are word lists
  /usr/bin/time -f '%U %S' -o stat.time "$PROFILEME" stat -x, -e "$events" $opts --seed "$s" -- $cmd \
    >/dev/null 2>stat.csv || st="stat failed ($(tail -1 stat.csv))"
  # shellcheck disable=SC2086
  /usr/bin/time -f '%U %S' -o record.time "$PROFILEME" record -q ${SWEEP_RECORD_ARGS:--c 20011} $opts --seed "$s" \
    -o perf.data -- $cmd >/dev/null 2>record.err || { [ "$st" = ok ] && st="record failed ($(tail -1 record.err))"; }
  awk '{ t += $1 + $2 } END { printf "%.2f\n", t }' stat.time >cpu.txt 2>/dev/null
  awk '{ t += $1 + $2 } END { printf "%.2f\n", t }' record.time >>cpu.txt 2>/dev/null
  echo "$st" >status
}

merge() {
  local dir=$1
  [ -f "$dir/jobs.tsv" ] || die "merge: $dir/jobs.tsv not found (run plan first)"
  local first
  first=$(cut -d, -f1 "$dir/events.txt")
  printf '%-5s %-14s %-12s %4s %16s %8s %16s %10s %8s %8s  %s\n' id workload config seed "$first" "+-95%" instructions samples "stat s" "rec s" status
  while IFS=$'\t' read -r id w c s; do
    local j=$dir/jobs/$id v ci n samples st cpu
    st=$(cat "$j/status" 2>/dev/null || echo "not run")
    v=$(awk -F, -v e="$first" '$3 == e { print $1 }' "$j/stat.csv" 2>/dev/null)
    ci=$(awk -F, -v e="$first" '$3 == e && $4 ~ /%$/ { print $4 }' "$j/stat.csv" 2>/dev/null)
    n=$(awk -F, '$3 == "instructions" { print $1 }' "$j/stat.csv" 2>/dev/null)
    samples=$([ -f "$j/perf.data" ] && "$PROFILEME" script -i "$j/perf.data" -F ip 2>/dev/null | grep -c . || echo -)
    cpu=$(paste -sd' ' "$j/cpu.txt" 2>/dev/null)
    printf '%-5s %-14s %-12s %4s %16s %8s %16s %10s %8s %8s  %s\n' "$id" "$w" "$c" "$s" "${v:--}" "${ci:--}" "${n:--}" \
      "$samples" "${cpu%% *}" "${cpu##* }" "$st"
  done <"$dir/jobs.tsv" | tee "$dir/summary.txt"
  echo
  echo "mean over seeds (error against the configuration named exact of the same workload):"
  awk '$NF == "ok" && $5 ~ /^[0-9]+$/ { k = $2 " " $3; t[k] += $5; n[k]++; if ($3 == "exact") { x[$2] += $5; nx[$2]++ } }
    END { for (k in t) { split(k, p, " "); m = t[k] / n[k]; e = nx[p[1]] ? sprintf("%+.3f%%", (m - x[p[1]] / nx[p[1]]) / (x[p[1]] / nx[p[1]]) * 100) : "-"
            printf "  %-14s %-12s %3d runs  mean %16.0f  error %s\n", p[1], p[2], n[k], m, e } }' "$dir/summary.txt" | sort
}

case ${1:-} in
  -h|--help) usage ;;
  plan) shift; plan "$@" ;;
  run-one) [ $# -eq 3 ] || die "run-one wants DIR ID"; run_one "$2" "$3" ;;
  merge) [ $# -eq 2 ] || die "merge wants DIR"; merge "$2" ;;
  *) usage >&2; exit 2 ;;
esac
