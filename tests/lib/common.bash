# Sourced by the test scripts (tests/run-all.sh, tests/scripts/*.sh) and
# bench/run.sh, not run. Sets root to the repository, and BUILD (default
# build) and PROFILEME (default $BUILD/profileme) to absolute paths; relative
# ones are taken from the repository. Changes no directory, exports nothing.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
PROFILEME=${PROFILEME:-$BUILD/profileme}
case $PROFILEME in /*) ;; *) PROFILEME=$root/$PROFILEME ;; esac

# alpha_cc BIN SRC FLAGS...: compiles the Alpha C program SRC into BIN with
# FLAGS unless BIN is newer than SRC; the compiler's messages go to BIN.log.
# Holds $BUILD/.alpha-cc.lock meanwhile and renames a finished BIN into place,
# since test groups that run side by side (tests/run-all.sh) build some of
# the same programs (tests/unwind/*.c).
alpha_cc() {
  local bin=$1 src=$2; shift 2
  mkdir -p "$BUILD"
  (
    flock 9
    [ -x "$bin" ] && [ ! "$src" -nt "$bin" ] && exit 0
    if ! "${ALPHA_CC:-alpha-linux-gnu-gcc}" "$@" -o "$bin.tmp.$$" "$src" 2>"$bin.log"; then
      rm -f "$bin.tmp.$$"; head -n 5 "$bin.log" >&2; exit 1
    fi
    mv -f "$bin.tmp.$$" "$bin"
  ) 9>"$BUILD/.alpha-cc.lock"
}
# alpha_static SRC BIN: builds the Alpha C program SRC into the static binary
# BIN (-O2; --no-relax for the binutils relaxation bug) unless BIN is newer.
alpha_static() { alpha_cc "$2" "$1" -O2 -static -Wl,--no-relax; }

# cg_overall CHECK MODE PERMILLE MIN LOG: sums test_cgtruth's summary lines
# for MODE ("dwarf, unwound from regs+stack" or "unwound at record") in LOG
# and prints PASS CHECK when there are at least MIN samples and at least
# PERMILLE per mille of them are exactly the true stack, else FAIL CHECK.
cg_overall() {
  awk -v m="($2): " -v name="$1" -v pm="$3" -v min="$4" 'index($0, m) && / samples, [0-9]+ exact/ {
      for (i = 1; i <= NF; i++) { if ($i == "samples,") n += $(i - 1); if ($i == "exact") e += $(i - 1) } }
    END { if (n >= min && n && e * 1000 >= n * pm) printf "PASS %s: %d of %d samples (%.2f%%) exactly the true stack\n", name, e, n, 100 * e / n;
          else printf "FAIL %s: %d of %d samples exactly the true stack (%.1f%% of at least %d wanted)\n", name, e, n, pm / 10, min }' "$5"
}
