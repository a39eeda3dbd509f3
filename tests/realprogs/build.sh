#!/usr/bin/env bash
# Fetches the Debian source packages lua5.4, bzip2, make-dfsg, dash and
# sqlite3 with `apt-get source` into DIR/src and cross-builds them for Alpha
# with a short command list of our own (not the packages' debian/rules): lua
# from src/*.c except luac.c, bzip2 from its library files plus bzip2.c. Each
# is built dynamic (lua with LUA_USE_DLOPEN) and static (-static
# -Wl,--no-relax): DIR/{lua,bzip2}.{dyn,static}
# GNU make (for the build workload, workloads/build.mk) is compiled from its
# src/*.c with tests/realprogs/make-config.h, since the Debian source has no
# generated configure script; dash with its own `configure
# --host=alpha-linux-gnu` (its generators mksyntax, mknodes... built with the
# host's cc), dynamic only: DIR/{make,dash}.dyn
# sqlite's speedtest1 (test/speedtest1.c) with the amalgamation sqlite3.c,
# which the Debian source does not ship: its configure (host cc) and `make
# sqlite3.c` (host cc and tclsh) generate it, then it is cross-compiled at
# -O2, dynamic only: DIR/speedtest1.dyn (`--size N` sets the work).
# DIR is an entry of the cache outside the clone
# (tests/lib/cache.bash: $PROFILEME_CACHE, default ~/.cache/profileme),
# realprogs-HASH, keyed by the five source versions that apt lists, the Alpha
# toolchain, the host's cc (dash's and sqlite's generators) and the SHA-256 of this script
# and make-config.h, and shared by the plain and sanitizer suites (nothing
# here depends on how profileme was built) and by every clone on the machine.
# REALPROGS_DIR names a directory to use instead, unkeyed: what is missing in
# it is built. Prints the directory on stdout and, last on stderr, how it came
# to be ("realprogs: cached in DIR", "realprogs: built in N s into DIR"...).
# Exits non-zero with a message on stderr on failure. Needs deb-src in the apt
# sources: see scripts/enable-deb-src.sh. Environment: PROFILEME_CACHE,
# REALPROGS_DIR, ALPHA_CC.
#   build.sh --into DIR   (internal) builds what is missing in DIR, unlocked
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
self=$root/tests/realprogs/build.sh
. "$root/tests/lib/cache.bash"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
command -v "$CC" >/dev/null || { echo "realprogs: $CC not found" >&2; exit 1; }
pkgs=(lua5.4 bzip2 make-dfsg dash sqlite3)

if [ "${1:-}" != --into ]; then
  if [ -n "${REALPROGS_DIR:-}" ]; then
    case $REALPROGS_DIR in /*) out=$REALPROGS_DIR ;; *) out=$PWD/$REALPROGS_DIR ;; esac
    fill_in_place "$out" realprogs bash "$self" --into
  else
    key=()
    for pkg in "${pkgs[@]}"; do
      v=$(deb_src_version "$pkg")
      if [ -z "$v" ]; then
        echo "realprogs: apt lists no source package $pkg" >&2
        echo "realprogs: deb-src is not enabled? run (as root): scripts/enable-deb-src.sh" >&2
        exit 1
      fi
      key+=("$pkg $v")
      export "RP_VERSION_${pkg//[.-]/_}=$v"
    done
    key+=("$(alpha_toolchain_key "$CC")" "host cc: $(cc --version | head -n 1)"
          "recipe: $(cat "$self" "$root/tests/realprogs/make-config.h" | sha256sum | cut -c1-16)")
    out=$(cache_dir realprogs "${key[@]}")
    cache_fill "$out" realprogs "$(printf '%s\n' "${key[@]}")" bash "$self" --into
  fi
  printf '%s\n' "$out"
  exit 0
fi
out=$2
srcdir=$out/src
mkdir -p "$srcdir"

# Prints the package's unpacked source directory, fetching it if needed.
fetch() {
  local pkg=$1 dir v
  dir=$(find "$srcdir" -maxdepth 1 -type d -name "$pkg-*" | sort | tail -n 1)
  if [ -z "$dir" ]; then
    v=RP_VERSION_${pkg//[.-]/_}; v=${!v:-}   # the version in the cache key
    if ! (cd "$srcdir" && apt-get source "$pkg${v:+=$v}" >"$srcdir/$pkg.fetch.log" 2>&1); then
      echo "realprogs: 'apt-get source $pkg${v:+=$v}' failed:" >&2
      tail -n 5 "$srcdir/$pkg.fetch.log" >&2
      if grep -q "deb-src" "$srcdir/$pkg.fetch.log"; then
        echo "realprogs: deb-src is not enabled; run (as root): scripts/enable-deb-src.sh" >&2
      fi
      return 1
    fi
    dir=$(find "$srcdir" -maxdepth 1 -type d -name "$pkg-*" | sort | tail -n 1)
    if [ -z "$dir" ]; then
      # apt-get downloaded but could not unpack (no dpkg-dev): use the orig tarball.
      local orig
      orig=$(find "$srcdir" -maxdepth 1 -name "${pkg}_*.orig.tar.*" | head -n 1)
      [ -n "$orig" ] || { echo "realprogs: no source for $pkg" >&2; return 1; }
      mkdir -p "$srcdir/$pkg-orig"
      tar -xf "$orig" -C "$srcdir/$pkg-orig" --strip-components=1
      dir=$srcdir/$pkg-orig
    fi
  fi
  echo "$dir"
}

# Compiles output $1 from the remaining arguments unless it already exists.
build() {
  local bin=$1; shift
  [ -x "$bin" ] && return 0
  echo "realprogs: building ${bin##*/}" >&2
  if ! "$CC" "$@" >"$bin.log" 2>&1; then
    echo "realprogs: building ${bin##*/} failed:" >&2
    head -n 20 "$bin.log" >&2
    return 1
  fi
  mv -f "$bin.tmp" "$bin"
}

lua=$(fetch lua5.4)
# Debian's luaconf.h patch includes a header that debian/rules generates.
mkdir -p "$out/include"
echo '#define DEB_HOST_MULTIARCH "alpha-linux-gnu"' >"$out/include/lua5.4-deb-multiarch.h"
lua_src=(-I"$out/include")
for f in "$lua"/src/*.c; do
  case ${f##*/} in luac.c | onelua.c) ;; *) lua_src+=("$f") ;; esac
done
build "$out/lua.dyn" -O2 -DLUA_USE_POSIX -DLUA_USE_DLOPEN -o "$out/lua.dyn.tmp" \
  "${lua_src[@]}" -lm -ldl
build "$out/lua.static" -O2 -static -Wl,--no-relax -DLUA_USE_POSIX -o "$out/lua.static.tmp" \
  "${lua_src[@]}" -lm

bz=$(fetch bzip2)
bz_src=()
for f in blocksort huffman crctable randtable compress decompress bzlib bzip2; do
  bz_src+=("$bz/$f.c")
done
build "$out/bzip2.dyn" -O2 -D_FILE_OFFSET_BITS=64 -o "$out/bzip2.dyn.tmp" "${bz_src[@]}"
build "$out/bzip2.static" -O2 -static -Wl,--no-relax -D_FILE_OFFSET_BITS=64 \
  -o "$out/bzip2.static.tmp" "${bz_src[@]}"

# GNU make: its source list from Makefile.am, no guile, no remote jobs.
mk=$(fetch make-dfsg)
if [ ! -x "$out/make.dyn" ]; then
  mkdir -p "$out/make-config"
  cp "$root/tests/realprogs/make-config.h" "$out/make-config/config.h"
  mk_src=()
  for f in $(sed -n '/^make_SRCS/,/vpath\.c/p' "$mk/Makefile.am" | tr ' \\\t' '\n\n\n' | grep '\.c$'); do
    mk_src+=("$mk/$f")
  done
  mk_src+=("$mk/src/posixos.c" "$mk/src/remote-stub.c")
  build "$out/make.dyn" -O2 -I"$out/make-config" -I"$mk/src" -I"$mk/lib" -DHAVE_CONFIG_H \
    -DLIBDIR='"/usr/lib"' -DINCLUDEDIR='"/usr/include"' -DLOCALEDIR='"/usr/share/locale"' \
    -o "$out/make.dyn.tmp" "${mk_src[@]}"
fi

# dash: Debian's patches are applied but its autotools outputs are not
# regenerated (no autoreconf here): mark them up to date so that make does
# not try, and add the privmode patch's priv.c to the object list by hand.
dsh=$(fetch dash)
if [ ! -x "$out/dash.dyn" ]; then
  echo "realprogs: building dash.dyn" >&2
  bdir=$out/dash-build
  rm -rf "$bdir" && mkdir -p "$bdir"
  (cd "$dsh" && touch aclocal.m4 && touch configure Makefile.in src/Makefile.in config.h.in)
  if ! (cd "$bdir" && "$dsh/configure" --host=alpha-linux-gnu CC="$CC" CC_FOR_BUILD=cc \
          CFLAGS=-O2 >"$out/dash.dyn.log" 2>&1 &&
        sed -i 's/^am_dash_OBJECTS = /am_dash_OBJECTS = priv.$(OBJEXT) /' src/Makefile &&
        make ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true >>"$out/dash.dyn.log" 2>&1); then
    echo "realprogs: building dash.dyn failed:" >&2
    tail -n 20 "$out/dash.dyn.log" >&2
    exit 1
  fi
  cp "$bdir/src/dash" "$out/dash.dyn.tmp" && mv -f "$out/dash.dyn.tmp" "$out/dash.dyn"
fi

# sqlite's speedtest1: the amalgamation is generated on the host (configure
# with the host's cc, then `make sqlite3.c`, which runs lemon, mkkeywordhash
# and tclsh scripts), then speedtest1.c and sqlite3.c are cross-compiled. The
# library keeps its defaults (threadsafe, with pthread mutexes), as Debian's
# libsqlite3 does. The sources it was compiled from stay in DIR/sqlite (what
# its DWARF line tables name, for annotate); the unpacked source package
# (146 MB) and its tarballs go.
if [ ! -x "$out/speedtest1.dyn" ]; then
  command -v tclsh >/dev/null || { echo "realprogs: tclsh not found (install tcl: scripts/setup.sh)" >&2; exit 1; }
  sq=$(fetch sqlite3)
  echo "realprogs: generating sqlite3.c" >&2
  sbdir=$out/sqlite-build
  rm -rf "$sbdir" "$out/sqlite" && mkdir -p "$sbdir" "$out/sqlite"
  if ! (cd "$sbdir" && "$sq/configure" --disable-tcl --disable-readline >"$out/sqlite3.c.log" 2>&1 &&
        make sqlite3.c >>"$out/sqlite3.c.log" 2>&1); then
    echo "realprogs: generating sqlite3.c failed:" >&2
    tail -n 20 "$out/sqlite3.c.log" >&2
    exit 1
  fi
  cp "$sbdir/sqlite3.c" "$sbdir/sqlite3.h" "$sq/test/speedtest1.c" "$out/sqlite/"
  build "$out/speedtest1.dyn" -O2 -I"$out/sqlite" -o "$out/speedtest1.dyn.tmp" \
    "$out/sqlite/speedtest1.c" "$out/sqlite/sqlite3.c" -ldl -lpthread -lm
  rm -rf "$sbdir" "$sq" "$srcdir"/sqlite3_*
fi
