# Helpers shared by the oracle-comparing test scripts (guest.sh, realprogs.sh).
# Sourced, not run. Callers set guest_env (an array of VAR=value).

# Runs "$@" in a fresh temporary directory with the environment guest_env,
# stdin from /dev/null, no core files, and writes $1.out, $1.err and $1.status.
run_in_tmp() {
  local prefix=$1; shift
  local dir rc
  dir=$(mktemp -d "${TMPDIR:-/tmp}/oracle.XXXXXX")
  # The braces send bash's own "Aborted" report of a killed child to /dev/null.
  { (cd "$dir" && ulimit -c 0 && exec env -i "${guest_env[@]}" "$@" </dev/null \
       >"$prefix.out" 2>"$prefix.err"); } 2>/dev/null
  rc=$?
  echo "$rc" >"$prefix.status"
  chmod -R u+rwx "$dir" 2>/dev/null
  rm -rf "$dir"
}

# Prints the first lines of a diff of expected file $1 against actual file $2,
# indented; for binary files, the first differing byte.
show_diff() {
  if grep -qI . "$1" "$2" 2>/dev/null; then
    diff "$1" "$2" | head -n 12 | sed 's/^/    /'
  else
    cmp "$1" "$2" 2>&1 | head -n 1 | sed 's/^/    /'
  fi
}

# Prints up to $2 (default 3) lines of file $1 as indented stderr lines.
show_stderr() {
  head -n "${2:-3}" "$1" | sed 's/^/    stderr: /'
}

# Runs the items on stdin through "bash SCRIPT --one ITEM", $jobs at a time;
# each job writes $results/ITEM.res. Then prints the results in input order;
# a missing result is a failure of check PREFIX/ITEM.
#   run_jobs SCRIPT RESULTS-DIR JOBS PREFIX
run_jobs() {
  local script=$1 results=$2 jobs=$3 prefix=$4
  local items=() item
  mapfile -t items
  mkdir -p "$results"
  rm -f "$results"/*.res
  printf '%s\n' "${items[@]}" | xargs -P "$jobs" -I{} bash "$script" --one {}
  for item in "${items[@]}"; do
    if [ -f "$results/$item.res" ]; then
      cat "$results/$item.res"
    else
      echo "FAIL $prefix/$item: the runner produced no result"
    fi
  done
}
