#!/usr/bin/env bash
# Cross-builds for Alpha third-party programs that call perf_event_open,
# from their public sources, unchanged (tests/scripts/thirdparty_perf.sh
# runs them in the machine):
#  - libpfm4 (Debian source package libpfm4, `apt-get source`): the library
#    with its Linux perf_events PMUs only (pfmlib_common.c and the three
#    pfmlib_perf_event*.c; libpfm4 has no Alpha PMU tables, so events are
#    perf's generic ones, perf_raw::rN and the software events) and the
#    perf_examples task, task_smpl, syst_count, self_basic and self_count, built as
#    perf_examples/Makefile builds them (perf_util.c, -pthread);
#  - the Linux 6.1 kernel's perf_events selftests
#    (tools/testing/selftests/perf_events/{mmap,remove_on_exec,sigtrap_threads}.c
#    with kselftest_harness.h) from Debian's linux-source-6.1 package
#    (`apt-get download`, 140 MB: only those files are unpacked and the
#    package is deleted), against the cross compiler's 6.1 uapi headers.
# The outputs go to an entry of the cache outside the clone
# (tests/lib/cache.bash: $PROFILEME_CACHE, default ~/.cache/profileme),
# thirdparty-HASH, keyed by the libpfm4 source and linux-source-6.1 versions
# that apt lists, the Alpha toolchain and this script's SHA-256, and shared by
# the plain and sanitizer suites (the programs are Alpha code) and by every
# clone on the machine. A cold build takes about 25 s, most of it fetching
# and unpacking linux-source; a warm one, the apt look-ups (about a second).
# THIRDPARTY_DIR names a directory to use instead, unkeyed: what is missing
# in it is built. Prints the directory on stdout and, last on stderr, how it
# came to be ("thirdparty: cached in DIR", "thirdparty: built in N s into
# DIR"...). Exits non-zero with a message on stderr on failure. Needs deb-src
# (see scripts/enable-deb-src.sh). Environment: PROFILEME_CACHE,
# THIRDPARTY_DIR, ALPHA_CC.
#   build.sh --into DIR   (internal) builds what is missing in DIR, unlocked
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
self=$root/tests/thirdparty/build.sh
. "$root/tests/lib/cache.bash"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
AR=${CC%gcc}ar
command -v "$CC" >/dev/null || { echo "thirdparty: $CC not found" >&2; exit 1; }
deb_src_note() {
  echo "thirdparty: deb-src is not enabled; run (as root): scripts/enable-deb-src.sh" >&2
}

if [ "${1:-}" != --into ]; then
  if [ -n "${THIRDPARTY_DIR:-}" ]; then
    case $THIRDPARTY_DIR in /*) out=$THIRDPARTY_DIR ;; *) out=$PWD/$THIRDPARTY_DIR ;; esac
    fill_in_place "$out" thirdparty bash "$self" --into
  else
    TP_LIBPFM4=$(deb_src_version libpfm4)
    [ -n "$TP_LIBPFM4" ] || { echo "thirdparty: apt lists no source package libpfm4" >&2; deb_src_note; exit 1; }
    TP_LINUX=$(deb_version linux-source-6.1)
    [ -n "$TP_LINUX" ] || { echo "thirdparty: apt lists no package linux-source-6.1" >&2; exit 1; }
    export TP_LIBPFM4 TP_LINUX
    key=("libpfm4 $TP_LIBPFM4" "linux-source-6.1 $TP_LINUX" "$(alpha_toolchain_key "$CC")"
         "recipe: $(sha256sum <"$self" | cut -c1-16)")
    out=$(cache_dir thirdparty "${key[@]}")
    cache_fill "$out" thirdparty "$(printf '%s\n' "${key[@]}")" bash "$self" --into
  fi
  printf '%s\n' "$out"
  exit 0
fi
out=$2
srcdir=$out/src
mkdir -p "$srcdir"

# Compiles output $1 from the remaining arguments unless it exists.
build() {
  local bin=$1; shift
  [ -e "$bin" ] && return 0
  echo "thirdparty: building ${bin##*/}" >&2
  if ! "$CC" "$@" -o "$bin.tmp" >"$bin.log" 2>&1; then
    echo "thirdparty: building ${bin##*/} failed:" >&2
    head -n 20 "$bin.log" >&2
    return 1
  fi
  mv -f "$bin.tmp" "$bin"
}

# ---- libpfm4 ----
pfm=$(find "$srcdir" -maxdepth 1 -type d -name 'libpfm4-*' | sort | tail -n 1)
if [ -z "$pfm" ]; then
  pkg=libpfm4${TP_LIBPFM4:+=$TP_LIBPFM4}
  if ! (cd "$srcdir" && apt-get source "$pkg" >"$srcdir/libpfm4.fetch.log" 2>&1); then
    echo "thirdparty: 'apt-get source $pkg' failed:" >&2
    tail -n 5 "$srcdir/libpfm4.fetch.log" >&2
    grep -q deb-src "$srcdir/libpfm4.fetch.log" && deb_src_note
    exit 1
  fi
  pfm=$(find "$srcdir" -maxdepth 1 -type d -name 'libpfm4-*' | sort | tail -n 1)
  [ -n "$pfm" ] || { echo "thirdparty: no libpfm4 source (dpkg-dev missing?)" >&2; exit 1; }
fi
lib=$out/libpfm.a
if [ ! -e "$lib" ]; then
  echo "thirdparty: building libpfm.a" >&2
  mkdir -p "$out/pfm-obj"
  for f in pfmlib_common pfmlib_perf_event_pmu pfmlib_perf_event pfmlib_perf_event_raw; do
    "$CC" -O2 -D_GNU_SOURCE -D_REENTRANT -DCONFIG_PFMLIB_OS_LINUX -I"$pfm/include" -I"$pfm/lib" \
      -c -o "$out/pfm-obj/$f.o" "$pfm/lib/$f.c" 2>>"$out/libpfm.log" ||
      { echo "thirdparty: compiling libpfm4 $f.c failed:" >&2; tail -n 10 "$out/libpfm.log" >&2; exit 1; }
  done
  "$AR" rcs "$lib.tmp" "$out/pfm-obj"/*.o && mv -f "$lib.tmp" "$lib"
fi
ex=$pfm/perf_examples
for p in task task_smpl syst_count self_basic self_count; do
  build "$out/$p" -O2 -D_GNU_SOURCE -pthread -I"$pfm/include" -I"$ex" "$ex/$p.c" "$ex/perf_util.c" "$lib" -lm
done

# ---- Linux 6.1 perf_events selftests ----
st=$srcdir/linux-selftests
if [ ! -f "$st/tools/testing/selftests/perf_events/mmap.c" ]; then
  echo "thirdparty: fetching linux-source-6.1 (the perf_events selftests)" >&2
  rm -rf "$srcdir/linux-dl" && mkdir -p "$srcdir/linux-dl" "$st"
  pkg=linux-source-6.1${TP_LINUX:+=$TP_LINUX}
  if ! (cd "$srcdir/linux-dl" && apt-get download "$pkg" >"$srcdir/linux.fetch.log" 2>&1); then
    echo "thirdparty: 'apt-get download $pkg' failed:" >&2
    tail -n 5 "$srcdir/linux.fetch.log" >&2
    exit 1
  fi
  deb=$(find "$srcdir/linux-dl" -name 'linux-source-6.1_*.deb' | head -n 1)
  dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.1.tar.xz |
    tar -xJ -C "$st" --strip-components=1 --wildcards \
      'linux-source-6.1/tools/testing/selftests/perf_events/*' \
      'linux-source-6.1/tools/testing/selftests/kselftest*' ||
    { echo "thirdparty: unpacking linux-source-6.1 failed" >&2; exit 1; }
  rm -rf "$srcdir/linux-dl"
fi
for p in mmap remove_on_exec sigtrap_threads; do
  # the selftests' Makefile: -Wl,-no-as-needed -Wall, -lpthread
  build "$out/$p" -O2 -Wl,-no-as-needed -Wall "$st/tools/testing/selftests/perf_events/$p.c" -lpthread
done
