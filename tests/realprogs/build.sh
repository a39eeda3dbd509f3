#!/usr/bin/env bash
# Fetches the Debian source packages lua5.4 and bzip2 with `apt-get source`
# into $BUILD/realprogs/src and cross-builds them for Alpha with a short
# command list of our own (not the packages' debian/rules): lua from src/*.c
# except luac.c, bzip2 from its library files plus bzip2.c. Each program is
# built dynamic (lua with LUA_USE_DLOPEN) and static (-static -Wl,--no-relax):
#   $BUILD/realprogs/{lua,bzip2}.{dyn,static}
# Nothing is fetched or rebuilt if it is already there. Exits non-zero with a
# message on stderr on failure. Needs deb-src in the apt sources: see
# scripts/enable-deb-src.sh. Environment: BUILD, ALPHA_CC.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
out=$BUILD/realprogs
srcdir=$out/src
mkdir -p "$srcdir"

# Prints the package's unpacked source directory, fetching it if needed.
fetch() {
  local pkg=$1 dir
  dir=$(find "$srcdir" -maxdepth 1 -type d -name "$pkg-*" | sort | tail -n 1)
  if [ -z "$dir" ]; then
    if ! (cd "$srcdir" && apt-get source "$pkg" >"$srcdir/$pkg.fetch.log" 2>&1); then
      echo "realprogs: 'apt-get source $pkg' failed:" >&2
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

command -v "$CC" >/dev/null || { echo "realprogs: $CC not found" >&2; exit 1; }

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
