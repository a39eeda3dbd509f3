#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for profileme and builds it: enables
# deb-src, installs the Alpha cross toolchain, qemu-user (the test oracle),
# the libraries and clang (libFuzzer), then runs `make`. Idempotent: packages
# already present are not reinstalled, and apt-get update runs only when
# something is missing (or with --update). Run as root, or as a user with sudo
# (only the apt steps use it; the build runs as the calling user).
#   scripts/setup.sh [--update] [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential make perl           # host compiler, make, the test scripts
  gcc-alpha-linux-gnu binutils-alpha-linux-gnu libc6.1-dev-alpha-cross
  qemu-user                           # qemu-alpha: oracle for tests and bench
  libelf-dev libdw-dev libzstd-dev    # ELF/DWARF reading
  clang libclang-rt-14-dev            # libFuzzer harnesses (make fuzz)
  dpkg-dev xz-utils                   # apt-get source (tests/realprogs)
  bzip2                               # host bzip2 as a second oracle
  linux-perf                          # perf 6.1: reads our perf.data (tests)
  python3                             # independent readers in the tests (regs.sh, truth.sh)
  valgrind                            # callgrind_annotate: the oracle of tests/scripts/diff_callgrind.sh
  tcl                                 # tclsh: generating sqlite3.c for speedtest1 (tests/realprogs)
  flex bison m4                       # cross-building Linux perf (its parsers) and elfutils (libcpu): tests/thirdparty/perf.sh
  hotspot                             # hotspot 1.3.0 and hotspot-perfparser: tests/scripts/hotspot.sh
  chromium xvfb                       # headless browser for speedscope.sh; Xvfb for hotspot's screenshot (docs/viewers.md)
  patch                               # the perf-tools series on linux-source-6.1 (tests/thirdparty/perf-series.sh)
)

update=0 build=1
for a in "$@"; do
  case $a in
    --update) update=1 ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option $a" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }
log=$(mktemp); trap 'rm -f "$log"' EXIT
# Runs a command quietly; on failure shows its output and stops.
quiet() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2; say "FAILED: $*" >&2; exit 1
  fi
}

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null; then
  SUDO=(sudo)
else
  say "need root (or sudo) to install packages" >&2; exit 1
fi
export DEBIAN_FRONTEND=noninteractive

say "enabling deb-src"
if ! word=$("${SUDO[@]}" scripts/enable-deb-src.sh --no-update 2>"$log"); then
  cat "$log" >&2; say "FAILED: scripts/enable-deb-src.sh" >&2; exit 1
fi
[ "$word" = changed ] && update=1
ls /var/lib/apt/lists/*_Sources* >/dev/null 2>&1 || update=1

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
    missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] || update=1

if [ "$update" = 1 ]; then
  say "apt-get update"
  quiet "${SUDO[@]}" apt-get update -q
fi
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]}"
  quiet "${SUDO[@]}" apt-get install -y -q "${missing[@]}"
else
  say "all ${#PACKAGES[@]} packages present"
fi

# The Firefox Profiler's own profile loading code, as Mozilla publishes it
# for the command line (one 1.4 MB npm package, pinned): the oracle of
# tests/scripts/firefox_profiler.sh, which is skipped without it. Only where
# npm is installed; its wish for node 24 is a warning, it runs on node 20.
# speedscope's built web app and playwright-core (which drives Debian's
# chromium, never a browser of its own) for tests/scripts/speedscope.sh, in
# the same global npm folder, pinned.
FFP_CLI=@firefox-devtools/profiler-cli@0.10.0
NPM_PINS=(speedscope@1.25.0 playwright-core@1.49.1)
if command -v npm >/dev/null; then
  if [ "$(profiler-cli --version 2>/dev/null)" != "${FFP_CLI##*@}" ]; then
    say "installing $FFP_CLI (npm)"
    quiet "${SUDO[@]}" npm install -g --no-audit --no-fund "$FFP_CLI"
  fi
  groot=$(npm root -g)
  for pin in "${NPM_PINS[@]}"; do
    have=$(node -p "require('$groot/${pin%@*}/package.json').version" 2>/dev/null || true)
    if [ "$have" != "${pin##*@}" ]; then
      say "installing $pin (npm)"
      quiet "${SUDO[@]}" env PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install -g --no-audit --no-fund "$pin"
    fi
  done
else
  say "no npm: tests/scripts/firefox_profiler.sh and speedscope.sh will be skipped"
fi

if [ "$build" = 1 ]; then
  say "building (make)"
  # Under sudo, build as the user who called it so build/ stays theirs.
  if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    quiet sudo -u "$SUDO_USER" make -j"$(nproc)"
  else
    quiet make -j"$(nproc)"
  fi
  say "done: build/profileme"
fi
