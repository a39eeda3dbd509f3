# Sourced by the builds of third-party Alpha programs (tests/thirdparty/build.sh
# and perf.sh, tests/realprogs/build.sh), not run: a cache of their outputs
# outside the clone, shared by every clone and worktree on the machine and by
# the plain and sanitizer suites (the programs are Alpha code: how the host
# side was built does not change them).
#
# Layout, under the root $PROFILEME_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/profileme):
#   NAME-HASH/       one finished build; HASH is the first 16 hex digits of the
#                    SHA-256 of its key (KEY in it, one part a line: the Debian
#                    source versions, the cross toolchain, the recipe's hash);
#                    never written again once there
#   NAME-HASH.tmp/   the build under way (or the last one that failed: its
#                    logs), renamed to NAME-HASH when it is whole
#   NAME-HASH.lock   flock(1) by whoever builds NAME-HASH
# Nothing is removed: entries of older keys stay until removed by hand
# (rm -rf ~/.cache/profileme, or one NAME-HASH), since clones with different
# recipes may use theirs at the same time. Each function that fails says why
# on stderr, prefixed by the NAME it was given.

# cache_root: prints the cache's root, an absolute path.
cache_root() {
  local r=${PROFILEME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/profileme}
  case $r in /*) ;; *) r=$PWD/$r ;; esac
  printf '%s\n' "$r"
}

# cache_dir NAME KEYPART...: prints the entry for NAME built with KEYPARTs.
cache_dir() {
  local name=$1; shift
  printf '%s/%s-%s\n' "$(cache_root)" "$name" "$(printf '%s\n' "$@" | sha256sum | cut -c1-16)"
}

# deb_src_version PKG: prints the newest version of the source package PKG
# that the apt sources (deb-src) list: the one `apt-get source PKG` fetches
# when nothing is pinned. Prints nothing when none lists it.
deb_src_version() {
  local v best=
  for v in $(apt-cache showsrc --only-source "$1" 2>/dev/null | sed -n 's/^Version: //p'); do
    if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
  done
  printf '%s' "$best"
}

# deb_versions_newest_first: reads Debian versions, one a line, and prints
# them once each, newest first (dpkg's order).
deb_versions_newest_first() {
  local v sorted=() i j
  while read -r v; do
    [ -n "$v" ] || continue
    for i in "${sorted[@]}"; do [ "$i" = "$v" ] && continue 2; done
    sorted+=("$v")
    # insertion: move the new one left past every older one
    for ((j = ${#sorted[@]} - 1; j > 0; j--)); do
      dpkg --compare-versions "${sorted[j]}" gt "${sorted[j - 1]}" || break
      i=${sorted[j]}; sorted[j]=${sorted[j - 1]}; sorted[j - 1]=$i
    done
  done
  [ "${#sorted[@]}" -eq 0 ] || printf '%s\n' "${sorted[@]}"
}

# deb_src_versions PKG: every version of the source package PKG that the apt
# sources (deb-src) list, newest first, one a line (the mirrors do not
# always serve the newest: a security update's source can be gone while its
# index entry stays). Prints nothing when none lists it.
deb_src_versions() {
  apt-cache showsrc --only-source "$1" 2>/dev/null | sed -n 's/^Version: //p' | deb_versions_newest_first
}

# deb_bin_versions PKG: every version of the binary package PKG that apt
# lists (`apt-cache madison`), newest first, one a line, or nothing.
deb_bin_versions() {
  apt-cache madison "$1" 2>/dev/null |
    awk -F'|' '$3 ~ /Packages *$/ { gsub(/ /, "", $2); print $2 }' | deb_versions_newest_first
}

# deb_version PKG: prints the candidate version of the binary package PKG
# (what `apt-get download PKG` fetches), or nothing.
deb_version() {
  apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -v '^(none)$' || true
}

# alpha_toolchain_key CC: what of the Alpha cross toolchain CC goes into the
# programs, one line each: the compiler's and the linker's versions, the
# SHA-256 of the libc.a it links (static binaries carry it; its version is
# glibc's, whose headers and libc.so come with it) and the Linux uapi
# headers' version.
alpha_toolchain_key() {
  local cc=$1
  echo "cc: $("$cc" --version | head -n 1)"
  echo "ld: $("$("$cc" -print-prog-name=ld)" --version | head -n 1)"
  echo "libc.a: $(sha256sum <"$("$cc" -print-file-name=libc.a)" | cut -c1-16)"
  echo "linux headers: $(echo '#include <linux/version.h>
LINUX_VERSION_CODE' | "$cc" -E -P - 2>/dev/null | tail -n 1)"
}

# cache_fill DIR NAME KEYTEXT CMD...: makes the entry DIR (from cache_dir)
# unless it is there: under DIR.lock, runs CMD... DIR.tmp in a fresh
# DIR.tmp, writes KEYTEXT to DIR.tmp/KEY and renames DIR.tmp to DIR. Says on
# stderr, last, "NAME: cached in DIR", "NAME: built in N s into DIR" or
# "NAME: built meanwhile by another run (waited N s): DIR". Returns non-zero
# if CMD fails (DIR.tmp keeps its logs).
cache_fill() {
  local dir=$1 name=$2 key=$3 t0=$SECONDS; shift 3
  if [ -d "$dir" ]; then
    echo "$name: cached in $dir" >&2; return 0
  fi
  mkdir -p "${dir%/*}" || return 1
  [ -e "${dir%/*}/README" ] || cache_readme >"${dir%/*}/README"
  (
    flock 9
    if [ -d "$dir" ]; then
      echo "$name: built meanwhile by another run (waited $((SECONDS - t0)) s): $dir" >&2; exit 0
    fi
    local others; others=$(find "${dir%/*}" -mindepth 1 -maxdepth 1 -type d -name "$name-*" ! -name '*.tmp' | wc -l)
    [ "$others" -gt 0 ] &&
      echo "$name: $others entries of other keys in ${dir%/*} (rm -rf to reclaim them)" >&2
    echo "$name: building into $dir (key: $(tr '\n' ';' <<<"$key"))" >&2
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" || exit 1
    "$@" "$dir.tmp" || { echo "$name: build failed (logs in $dir.tmp)" >&2; exit 1; }
    printf '%s\n' "$key" >"$dir.tmp/KEY" && mv -T "$dir.tmp" "$dir" || exit 1
    echo "$name: built in $((SECONDS - t0)) s into $dir" >&2
  ) 9>"$dir.lock"
}

# fill_in_place DIR NAME CMD...: for a directory given by hand (no key):
# under DIR/.lock, runs CMD... DIR, which builds what is missing in it. Says
# "NAME: ready in N s in DIR" on stderr, last.
fill_in_place() {
  local dir=$1 name=$2 t0=$SECONDS; shift 2
  mkdir -p "$dir" || return 1
  (
    flock 9
    "$@" "$dir" || { echo "$name: build failed (logs in $dir)" >&2; exit 1; }
    echo "$name: ready in $((SECONDS - t0)) s in $dir" >&2
  ) 9>"$dir/.lock"
}

cache_readme() {
  cat <<'EOF'
Alpha programs cross-built from Debian sources by profileme's test suite
(tests/thirdparty/build.sh and perf.sh, tests/realprogs/build.sh;
tests/lib/cache.bash). One NAME-HASH directory per key (its KEY file:
source versions, toolchain, recipe hash); nothing here is removed
automatically. Deleting any of it, or all of it, is safe when no test runs:
it is built again when next needed.
EOF
}
