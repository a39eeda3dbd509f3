#!/usr/bin/env bash
# Cross-builds for Alpha, from Debian 12's sources, unchanged, the real Linux
# 6.1 perf (tools/perf) and binutils' objdump and addr2line, so that the test
# suite can run them in the machine (perf annotate runs objdump, perf's
# srcline runs addr2line; both run on Alpha here, --objdump=DIR/bin/objdump):
#   DIR/bin/perf           static (-static -Wl,--no-relax), with debug info
#   DIR/bin/perf-dynamic   the same objects linked dynamically against
#                          DIR/lib (DT_RPATH DIR/lib, an absolute host path:
#                          the machine and qemu-alpha -L look a path up under
#                          the Alpha sysroot first, then on the host)
#   DIR/bin/objdump, DIR/bin/addr2line   binutils, host = target = Alpha, static
#   DIR/lib, DIR/include   the libraries perf links, cross-built: zlib (.a,
#                          .so), liblzma (xz-utils, .a), libbz2 (.a), libzstd
#                          (.a), elfutils' libelf and libdw (.a, .so) and an
#                          empty libebl.a (see build_elfutils)
#   DIR/VERSIONS           "package version", one a line: what was built
#   DIR/KEY, DIR/logs/     the cache key (below); each step's log
# The sources: `apt-get download linux-source-6.1` (140 MB, of which only
# tools/, include/, arch/alpha/, arch/x86/include/, lib/, scripts/, Makefile
# and COPYING are unpacked; no object of perf's depends on a file outside
# tools/, as their .cmd files say: include/, arch/ and lib/ are read by its
# header checks, which only warn, Makefile and scripts/ by `make
# kernelversion`; kernel/bpf is not needed with NO_LIBBPF) and `apt-get
# source` of zlib, bzip2, xz-utils, elfutils, libzstd and binutils. Sources
# and objects are deleted when the build is whole (LINUXPERF_KEEP=1 keeps
# them, in DIR/src and DIR/build).
#
# Which versions: the mirrors do not serve every version their indices list
# (zlib 1:1.2.13.dfsg-1+deb12u1 and libzstd 1.5.4+dfsg2-5+deb12u1 are listed
# by deb-src and 404 on the security mirror), so each package is fetched
# pinned to the newest listed version, then the next older one, and so on;
# the first that fetches is built and named in VERSIONS. The cache key must
# be known before anything is fetched, and without the network when the
# entry is there, so it holds every listed version of each package (a new
# one, fetchable or not, makes a new entry), not the one used. Probing
# fetchability (apt-get --print-uris, an HTTP HEAD each) for the key would
# put the network into every warm run, and a mirror's hiccup would make a
# new key.
#
# The key, as tests/lib/cache.bash does it: those version lists
# (apt-cache showsrc, apt-cache madison linux-source-6.1), the Alpha toolchain,
# the host's cc, flex, bison and m4 (perf's and elfutils' generators) and this
# script's SHA-256: DIR is $PROFILEME_CACHE/linuxperf-HASH (default
# ~/.cache/profileme), shared by the plain and sanitizer suites and every clone.
# LINUXPERF_DIR names a directory to use instead, unkeyed: what is missing in
# it is built (its bin/perf-dynamic's rpath is LINUXPERF_DIR/lib).
#
# Upstream perf 6.1 has no DWARF register table for Alpha
# (tools/perf/arch/alpha has no util/dwarf-regs.c, so Makefile.config sets
# NO_DWARF), nor does Linux 6.1 sample user registers or stacks there: `perf
# version --build-options` says dwarf and libdw-dwarf-unwind OFF, and perf
# does not link libdw (it links libelf, zlib, liblzma and libzstd). libdw,
# with libbz2 which its static link wants, is built all the same (about 100 s
# of a cold build): perf's feature detection then sees what a native build
# sees (dwarf_getlocations, which perf reports, is on), and the libraries are
# there should perf ever be built with DWARF support.
#
# The steps run one after another, each make -j$(nproc) (LINUXPERF_JOBS):
# linux-source (download, unpack), zlib, bzip2, xz-utils, libzstd, elfutils,
# binutils, perf static, then perf dynamic (the same objects relinked, with
# its own feature detection). Running the independent chains side by side
# was measured no faster (387 s against 389 s cold on 2 cores: the makes keep
# both busy already). Each step says on stderr when it starts and how long it
# took; a failed one prints its log's tail. A cold build takes 5 to 9
# minutes on 2 cores, by their load (docs/performance.md), and makes a 69 MB
# entry; a warm one, the apt look-ups (about a second).
#
# Prints the directory on stdout and, last on stderr, how it came to be
# ("linuxperf: cached in DIR", "linuxperf: built in N s into DIR"...). Exits
# non-zero with a message on stderr on failure. Needs deb-src
# (scripts/enable-deb-src.sh), dpkg-dev, flex, bison, m4 (scripts/setup.sh).
# Environment: PROFILEME_CACHE, LINUXPERF_DIR, LINUXPERF_JOBS,
# LINUXPERF_KEEP, ALPHA_CC (the cross gcc; ALPHA_CROSS, the prefix of its
# binutils, defaults to ALPHA_CC without "gcc"), and the two below.
#
# LINUXPERF_PATCHES=DIR builds perf with a patch series applied to the
# kernel tree: DIR's NNNN-*.patch files (`git format-patch` output; 0000,
# the cover letter, skipped), in name order, with patch -p1 (the series'
# part, patches/perf-tools/, tests/thirdparty/perf-series.sh). The files'
# SHA-256 enters the key. The patched Alpha entry takes the libraries,
# objdump and addr2line of the unpatched one (built first if missing, as
# hard links: no entry is written again) and builds only perf: a cold
# build is the unpatched one's plus perf's. Such an entry also keeps the
# kernel tree's checkpatch.pl (DIR/checkpatch/, with its spelling.txt and
# const_structs.checkpatch) to check the series with.
# LINUXPERF_HOST=1 builds perf for the host (x86-64, against its libelf,
# libdw, zlib, liblzma and libzstd) with the same options, as bin/perf of
# an entry named linuxperf-host-HASH, keyed by linux-source-6.1, the host
# compiler, those libraries' installed versions, flex, bison, the recipe
# and the series: the patched perf reads our Alpha files on the host.
#   perf.sh --into DIR   (internal) builds what is missing in DIR, unlocked
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
self=$root/tests/thirdparty/perf.sh
. "$root/tests/lib/cache.bash"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
CROSS=${ALPHA_CROSS:-${CC%gcc}}
export -n CC CROSS 2>/dev/null || true
say() { echo "${entry:-linuxperf}: $*" >&2; }
deb_src_note() { say "deb-src is not enabled? run (as root): scripts/enable-deb-src.sh"; }
host=${LINUXPERF_HOST:-0}
case $host in 0|1) ;; *) say "LINUXPERF_HOST is 0 or 1, not '$host'"; exit 1 ;; esac
if [ "$host" = 1 ]; then tools=(cc make flex bison xz); entry=linuxperf-host
else tools=("$CC" "${CROSS}ar" "${CROSS}ranlib" "${CROSS}ld" cc make flex bison m4 dpkg-source xz); entry=linuxperf; fi
patches=${LINUXPERF_PATCHES:-}
if [ -n "$patches" ]; then
  case $patches in /*) ;; *) patches=$PWD/$patches ;; esac
  [ -d "$patches" ] || { say "LINUXPERF_PATCHES: no directory $patches"; exit 1; }
  tools+=(patch)
fi
# series: the series' patch files, in the order they apply
series() { find "$patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | LC_ALL=C sort; }
if [ -n "$patches" ] && [ -z "$(series)" ]; then say "LINUXPERF_PATCHES: no NNNN-*.patch in $patches"; exit 1; fi
export LINUXPERF_HOST=$host LINUXPERF_PATCHES=$patches
for t in "${tools[@]}"; do
  command -v "$t" >/dev/null ||
    { say "$t not found (scripts/setup.sh installs what the build needs)"; exit 1; }
done
srcpkgs=(zlib bzip2 xz-utils elfutils libzstd binutils)
linuxpkg=linux-source-6.1
hostlibs="libelf-dev libdw-dev zlib1g-dev liblzma-dev libzstd-dev"

if [ "${1:-}" != --into ]; then
  unset LINUXPERF_BASE
  if [ -n "${LINUXPERF_DIR:-}" ]; then
    case $LINUXPERF_DIR in /*) out=$LINUXPERF_DIR ;; *) out=$PWD/$LINUXPERF_DIR ;; esac
    LINUXPERF_FINAL=$out fill_in_place "$out" $entry bash "$self" --into
  else
    key=("$linuxpkg: $(deb_bin_versions $linuxpkg | paste -sd ' ' -)")
    [ "${key[0]}" != "$linuxpkg: " ] || { say "apt lists no package $linuxpkg"; exit 1; }
    if [ "$host" = 1 ]; then
      key+=("host: $(cc --version | head -n 1); $(ld --version | head -n 1); $(flex --version | head -n 1); $(bison --version | head -n 1)"
            "host libraries: $(dpkg-query -W -f='${Package} ${Version}\n' $hostlibs 2>/dev/null | paste -sd ';' -)")
    else
      for pkg in "${srcpkgs[@]}"; do
        v=$(deb_src_versions "$pkg" | paste -sd ' ' -)
        [ -n "$v" ] || { say "apt lists no source package $pkg"; deb_src_note; exit 1; }
        key+=("$pkg: $v")
      done
      key+=("$(alpha_toolchain_key "$CC")"
            "host: $(cc --version | head -n 1); $(flex --version | head -n 1); $(bison --version | head -n 1); $(m4 --version | head -n 1)")
    fi
    key+=("recipe: $(sha256sum <"$self" | cut -c1-16)")
    if [ -n "$patches" ]; then
      # shellcheck disable=SC2046 # one argument per patch file
      key+=("patches: $(cat $(series) | sha256sum | cut -c1-16) ($(series | sed 's|.*/||' | paste -sd ' ' -))")
      # the unpatched Alpha entry lends its libraries and binutils
      if [ "$host" = 0 ]; then
        LINUXPERF_BASE=$(LINUXPERF_PATCHES='' bash "$self") || { say "the unpatched build failed"; exit 1; }
        export LINUXPERF_BASE
      fi
    fi
    out=$(cache_dir $entry "${key[@]}")
    # the entry is built in $out.tmp and renamed: perf-dynamic's rpath is $out
    LINUXPERF_FINAL=$out cache_fill "$out" $entry "$(printf '%s\n' "${key[@]}")" bash "$self" --into
  fi
  printf '%s\n' "$out"
  exit 0
fi

# ---- --into DIR ----
out=$2
final=${LINUXPERF_FINAL:-$out}
case $out$final in /*/*) ;; *) say "--into needs an absolute directory"; exit 1 ;; esac
src=$out/src bld=$out/build logs=$out/logs
mkdir -p "$src" "$bld" "$logs" "$out/bin" "$out/lib" "$out/include"
JOBS=${LINUXPERF_JOBS:-$(nproc)}
# Nothing of the caller's build environment leaks in: no host .pc files
# (pkg-config sees only ours; the host build, only the host's), no flags, no
# parent make's jobserver.
unset CFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS MAKEFLAGS MFLAGS MAKELEVEL ARCH CROSS_COMPILE O
if [ "$host" = 0 ]; then
  HOST=$("$CC" -dumpmachine)
  export PKG_CONFIG_LIBDIR=$out/lib/pkgconfig PKG_CONFIG_PATH='' PKG_CONFIG_SYSROOT_DIR=''
fi
exec 3>&2   # the steps' own messages, while their output goes to their logs
note() { echo "$entry: $*" >&3; }

# step NAME "OUTPUT..." FUNC: runs FUNC (errexit, pipefail) with its output in
# logs/NAME.log unless every OUTPUT (relative to DIR) is there; says on
# stderr that it starts and how long it took, or that it failed with its
# log's tail (then returns 1). Call it as a statement of its own, never in a
# condition or && list: bash would run FUNC with errexit off there.
step() {
  local name=$1 outs=$2 fn=$3 t0=$SECONDS o missing=0
  for o in $outs; do [ -e "$out/$o" ] || missing=1; done
  [ "$missing" = 1 ] || { note "$name: present"; return 0; }
  note "$name: building"
  ( set -euo pipefail; "$fn" ) >"$logs/$name.log" 2>&1 &
  if wait $!; then
    note "$name: done in $((SECONDS - t0)) s"
  else
    note "$name: FAILED after $((SECONDS - t0)) s; the end of $logs/$name.log:"
    tail -n 25 "$logs/$name.log" | sed 's/^/    /' >&3
    return 1
  fi
}

# fetch PKG: prints PKG's unpacked source directory, fetching it unless it
# is there: `apt-get source PKG=V` for each version V apt lists, newest
# first, until one fetches; logs/PKG.version names it.
fetch() {
  local pkg=$1 dl=$src/$1 v d
  d=$(find "$dl" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -n 1)
  if [ -n "$d" ] && [ -s "$logs/$pkg.version" ]; then echo "$d"; return 0; fi
  for v in $(deb_src_versions "$pkg"); do
    rm -rf "$dl" && mkdir -p "$dl"
    if (cd "$dl" && apt-get source "$pkg=$v") >>"$logs/$pkg.fetch.log" 2>&1; then
      d=$(find "$dl" -mindepth 1 -maxdepth 1 -type d | head -n 1)
      [ -n "$d" ] || { note "$pkg: apt-get source unpacked nothing (dpkg-dev missing?)"; return 1; }
      echo "$v" >"$logs/$pkg.version"
      note "$pkg: fetched $v"
      echo "$d"; return 0
    fi
    note "$pkg: $v is listed but does not fetch; trying the next older"
  done
  note "$pkg: no listed version fetches; the end of $logs/$pkg.fetch.log:"
  tail -n 5 "$logs/$pkg.fetch.log" | sed 's/^/    /' >&3
  grep -q deb-src "$logs/$pkg.fetch.log" && deb_src_note
  return 1
}

# The part of the kernel tree that tools/perf's build reads, into src/linux.
fetch_linux() {
  local dl=$src/linux-dl v deb
  rm -rf "$src/linux" && mkdir -p "$src/linux"
  for v in $(deb_bin_versions $linuxpkg); do
    rm -rf "$dl" && mkdir -p "$dl"
    if (cd "$dl" && apt-get download "$linuxpkg=$v"); then break; fi
    note "$linuxpkg: $v is listed but does not fetch; trying the next older"
    v=
  done
  deb=$(find "$dl" -name "${linuxpkg}_*.deb" | head -n 1)
  if [ -z "$v" ] || [ -z "$deb" ]; then note "$linuxpkg: no listed version fetches"; return 1; fi
  note "$linuxpkg: fetched $v, unpacking"
  dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/$linuxpkg.tar.xz |
    tar -xJ -C "$src/linux" --strip-components=1 --wildcards \
      "$linuxpkg/tools/*" "$linuxpkg/include/*" "$linuxpkg/arch/alpha/*" \
      "$linuxpkg/arch/x86/include/*" "$linuxpkg/lib/*" "$linuxpkg/scripts/*" \
      "$linuxpkg/Makefile" "$linuxpkg/COPYING"
  rm -rf "$dl"
  echo "$v" >"$logs/$linuxpkg.version"
  touch "$src/linux/.unpacked"
}

# install_to DIR FILE...: copies FILEs into DIR, each renamed into place.
install_to() {
  local dir=$1 f; shift
  for f; do cp -P "$f" "$dir/${f##*/}.tmp" && mv -f "$dir/${f##*/}.tmp" "$dir/${f##*/}"; done
}

build_zlib() {
  local s; s=$(fetch zlib); cd "$s"
  CC=$CC AR=${CROSS}ar RANLIB=${CROSS}ranlib CFLAGS="-O2 -fPIC" ./configure --prefix="$out"
  make -j"$JOBS" install   # builds libz.a and libz.so.1.x, installs them
}

build_bzip2() {
  local s; s=$(fetch bzip2); cd "$s"
  make -j"$JOBS" CC="$CC" AR="${CROSS}ar" RANLIB="${CROSS}ranlib" \
    CFLAGS="-O2 -fPIC -D_FILE_OFFSET_BITS=64" libbz2.a
  install_to "$out/include" bzlib.h
  install_to "$out/lib" libbz2.a
}

# liblzma only, static and PIC (libdw.so links it in).
build_xz() {
  local s; s=$(fetch xz-utils); cd "$s"
  ./configure --build="$(build-aux/config.guess)" --host="$HOST" --prefix="$out" \
    CC="$CC" AR="${CROSS}ar" RANLIB="${CROSS}ranlib" STRIP="${CROSS}strip" \
    --disable-xz --disable-xzdec --disable-lzmadec --disable-lzmainfo \
    --disable-scripts --disable-doc --disable-nls --disable-shared --with-pic
  make -j"$JOBS" -C src/liblzma
  make -C src/liblzma install
}

# libzstd.a, single-threaded (what perf record -z needs), -O2 rather than
# the Makefile's -O3 to halve its build time.
build_zstd() {
  local s; s=$(fetch libzstd); cd "$s"
  make -j"$JOBS" -C lib CC="$CC" AR="${CROSS}ar" RANLIB="${CROSS}ranlib" CFLAGS="-O2 -fPIC" libzstd.a
  install_to "$out/include" lib/zstd.h lib/zstd_errors.h lib/zdict.h
  install_to "$out/lib" lib/libzstd.a
}

# libelf and libdw (with libdwfl, libdwelf), static and shared. libcpu's
# x86 mnemonic tables are made with the host's m4 (an m4 missing once leaves
# empty *.mnemonics behind, hence a fresh source tree each time: fetch
# unpacks one when src/ was tidied; a failed try is removed first).
# perf 6.1's Makefile.config links a -static perf with
# `-ldw -lelf -lebl -ldl -lz -llzma -lbz2`; elfutils 0.178 folded libebl into
# libdw and installs no libebl.a any more, so an empty archive stands in.
build_elfutils() {
  local s d
  s=$(fetch elfutils)
  if [ -e "$s/config.status" ]; then rm -rf "$src/elfutils" "$logs/elfutils.version"; s=$(fetch elfutils); fi
  cd "$s"
  ./configure --build="$(config/config.guess)" --host="$HOST" --prefix="$out" \
    CC="$CC" AR="${CROSS}ar" RANLIB="${CROSS}ranlib" STRIP="${CROSS}strip" \
    --disable-debuginfod --disable-libdebuginfod --with-zlib --with-bzlib --with-lzma \
    --without-zstd --disable-nls CPPFLAGS="-I$out/include" LDFLAGS="-L$out/lib"
  for d in lib libelf libebl libdwelf libdwfl libcpu backends libdw; do make -j"$JOBS" -C "$d"; done
  for d in libelf libdw libdwfl libdwelf; do make -C "$d" install; done
  rm -f "$out/lib/libebl.a.tmp"
  "${CROSS}ar" rcs "$out/lib/libebl.a.tmp" && mv -f "$out/lib/libebl.a.tmp" "$out/lib/libebl.a"
}

# objdump and addr2line, host and target Alpha, static: only bfd, opcodes,
# libiberty, libsframe and binutils' bundled zlib are built. LDFLAGS has
# --static, not -static, which libtool would take as its own option and not
# pass to gcc; MAKEINFO=true: Debian's patches touch bfd's texinfo, and the
# manuals are not wanted.
build_objdump() {
  local s b=$bld/binutils
  s=$(fetch binutils)
  rm -rf "$b" && mkdir -p "$b" && cd "$b"
  "$s/configure" --build="$("$s/config.guess")" --host="$HOST" --target="$HOST" --prefix=/usr \
    CC="$CC" AR="${CROSS}ar" RANLIB="${CROSS}ranlib" NM="${CROSS}nm" STRIP="${CROSS}strip" \
    LDFLAGS="--static -Wl,--no-relax" \
    --disable-nls --disable-werror --disable-shared --disable-plugins \
    --disable-gdb --disable-gdbserver --disable-sim --disable-gprofng --disable-gold \
    --disable-ld --disable-gas --disable-libctf --disable-libdecnumber --disable-readline \
    --disable-libbacktrace --without-zstd --without-debuginfod --without-msgpack \
    --without-system-zlib
  make -j"$JOBS" MAKEINFO=true all-zlib all-bfd all-opcodes all-libiberty all-libsframe configure-binutils
  make -j"$JOBS" MAKEINFO=true -C binutils objdump addr2line
  install_to "$out/bin" binutils/objdump binutils/addr2line
}

# perf_make LDFLAGS: tools/perf's own make, into build/perf. Its feature
# detection runs afresh each time (its results and the last perf are removed:
# they do not follow LDFLAGS); objects whose command line is unchanged are
# kept (tools/build's if_changed). prefix=/usr as Debian's (perf looks for
# /etc/perfconfig, and embeds no $HOME); its DWARF names DIR, not DIR.tmp.
perf_make() {
  mkdir -p "$bld/perf"
  rm -rf "$bld/perf/feature" "$bld/perf/FEATURE-DUMP" "$bld/perf/perf"
  make -C "$src/linux/tools/perf" O="$bld/perf" ARCH=alpha CROSS_COMPILE="$CROSS" CC="$CC" \
    prefix=/usr LIBDW_DIR="$out" EXTRA_CFLAGS="-I$out/include -fdebug-prefix-map=$out=$final" LDFLAGS="$1" \
    NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_LIBBPF=1 NO_JVMTI=1 NO_LIBNUMA=1 \
    NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBUNWIND=1 NO_LIBBABELTRACE=1 NO_LIBCAP=1 \
    WERROR=0 -j"$JOBS"
  grep -v '^$' "$bld/perf/FEATURE-DUMP" >&2 || true
}
# -Wl,--no-relax: the Alpha linker's relaxation breaks static TLS (the program
# dies in __ctype_init at start-up, under qemu-alpha too).
build_perf_static() {
  perf_make "-static -Wl,--no-relax -L$out/lib"
  cp "$bld/perf/perf" "$out/bin/perf.tmp" && mv -f "$out/bin/perf.tmp" "$out/bin/perf"
}
# DT_RPATH (--disable-new-dtags), not DT_RUNPATH: it applies to libdw.so's
# and libelf.so's own NEEDED too; $final, not $out: the entry is renamed.
build_perf_dynamic() {
  perf_make "-Wl,--no-relax -L$out/lib -Wl,-rpath-link,$out/lib -Wl,-rpath,$final/lib -Wl,--disable-new-dtags"
  cp "$bld/perf/perf" "$out/bin/perf-dynamic.tmp" && mv -f "$out/bin/perf-dynamic.tmp" "$out/bin/perf-dynamic"
}

# The series (LINUXPERF_PATCHES) on the unpacked tree, in order; each
# patch's name goes to the log.
apply_series() {
  local f
  for f in $(series); do
    echo "applying ${f##*/}"
    patch -p1 -N --no-backup-if-mismatch -d "$src/linux" <"$f"
  done
  touch "$src/linux/.patched"
}

# The unpatched entry's libraries, headers, objdump and addr2line, and the
# versions it built them from, as hard links (entries are never written
# again): a patched build makes only perf.
link_base() {
  local b=$LINUXPERF_BASE f
  cp -al "$b/lib/." "$out/lib/"
  cp -al "$b/include/." "$out/include/"
  cp -al "$b/bin/objdump" "$b/bin/addr2line" "$out/bin/"
  for f in "$b"/logs/*.version; do
    case ${f##*/} in $linuxpkg.version) ;; *) cp "$f" "$logs/" ;; esac
  done
  echo "$b" >"$out/lib/.base"
}

# The kernel tree's checkpatch.pl and the files it reads, to check the series.
keep_checkpatch() {
  mkdir -p "$out/checkpatch"
  cp "$src/linux/scripts/checkpatch.pl" "$src/linux/scripts/spelling.txt" \
    "$src/linux/scripts/const_structs.checkpatch" "$out/checkpatch/"
}

# perf for the host, with the Alpha build's options, against the host's
# libraries (its own make finds them).
build_perf_host() {
  mkdir -p "$bld/perf"
  rm -rf "$bld/perf/feature" "$bld/perf/FEATURE-DUMP" "$bld/perf/perf"
  make -C "$src/linux/tools/perf" O="$bld/perf" prefix=/usr \
    NO_LIBPYTHON=1 NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_LIBBPF=1 NO_JVMTI=1 NO_LIBNUMA=1 \
    NO_LIBAUDIT=1 NO_LIBCRYPTO=1 NO_LIBUNWIND=1 NO_LIBBABELTRACE=1 NO_LIBCAP=1 \
    WERROR=0 -j"$JOBS"
  grep -v '^$' "$bld/perf/FEATURE-DUMP" >&2 || true
  cp "$bld/perf/perf" "$out/bin/perf.tmp" && mv -f "$out/bin/perf.tmp" "$out/bin/perf"
}

t0=$SECONDS
# The kernel tree, patched, while something that comes from it is missing.
need_src=0
[ -e "$out/bin/perf" ] || need_src=1
[ "$host" = 1 ] || [ -e "$out/bin/perf-dynamic" ] || need_src=1
[ -z "$patches" ] || [ -e "$out/checkpatch/checkpatch.pl" ] || need_src=1
if [ "$need_src" = 1 ]; then
  step linux-source src/linux/.unpacked fetch_linux
  if [ -n "$patches" ]; then
    step patch src/linux/.patched apply_series
    step checkpatch checkpatch/checkpatch.pl keep_checkpatch
  fi
fi
if [ "$host" = 1 ]; then
  step perf-host bin/perf build_perf_host
else
  [ -z "${LINUXPERF_BASE:-}" ] || step base lib/.base link_base
  step zlib lib/libz.a build_zlib
  step bzip2 lib/libbz2.a build_bzip2
  step xz lib/liblzma.a build_xz
  step zstd lib/libzstd.a build_zstd
  step elfutils "lib/libelf.a lib/libdw.so.1 lib/libebl.a" build_elfutils
  step objdump "bin/objdump bin/addr2line" build_objdump
  step perf-static bin/perf build_perf_static
  step perf-dynamic bin/perf-dynamic build_perf_dynamic
fi

for f in "$logs"/*.version; do
  p=${f##*/}; echo "${p%.version} $(cat "$f")"
done >"$out/VERSIONS.tmp" && mv -f "$out/VERSIONS.tmp" "$out/VERSIONS"
# Keep what runs and what links: no sources, objects, man pages or
# pkg-config/libtool files (they name DIR.tmp).
rm -rf "$out/share" "$out/lib/pkgconfig" "$out"/lib/*.la
[ "${LINUXPERF_KEEP:-0}" = 1 ] || rm -rf "$src" "$bld"
note "all steps done in $((SECONDS - t0)) s ($(du -sh "$out" | cut -f1))"
