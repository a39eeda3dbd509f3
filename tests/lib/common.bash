# Sourced by the test scripts (tests/run-all.sh, tests/scripts/*.sh) and
# bench/run.sh, not run. Sets root to the repository, and BUILD (default
# build) and PROFILEME (default $BUILD/profileme) to absolute paths; relative
# ones are taken from the repository. Changes no directory, exports nothing.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
PROFILEME=${PROFILEME:-$BUILD/profileme}
case $PROFILEME in /*) ;; *) PROFILEME=$root/$PROFILEME ;; esac

# alpha_static SRC BIN: builds the Alpha C program SRC into the static binary
# BIN (-O2; --no-relax for the binutils relaxation bug) unless BIN is newer.
alpha_static() {
  [ -x "$2" ] && [ ! "$1" -nt "$2" ] && return 0
  "${ALPHA_CC:-alpha-linux-gnu-gcc}" -O2 -static -Wl,--no-relax -o "$2" "$1"
}
