#!/usr/bin/env bash
# The cross-build of the real Linux 6.1 perf and binutils' objdump for Alpha
# (tests/thirdparty/perf.sh), checked on its own, under qemu-alpha (not the
# machine): that the entry holds what the tests that run them need.
#  - elf.*: bin/perf, bin/perf-dynamic, bin/objdump, bin/addr2line are Alpha
#    ELF executables; perf, objdump and addr2line static (no PT_INTERP),
#    perf-dynamic with an interpreter, NEEDED libelf.so.1 and an RPATH of
#    the entry's lib/, which holds that library;
#  - version.*: `perf --version` of each says "perf version 6.1.N", N the
#    upstream part of the linux-source-6.1 version built (VERSIONS), the
#    dynamic one under qemu-alpha -L /usr/alpha-linux-gnu;
#  - build-options.*: `perf version --build-options` has libelf, zlib, lzma,
#    zstd and dwarf_getlocations on, and dwarf OFF: upstream 6.1 has no
#    DWARF register table for Alpha (NO_DWARF; tests/thirdparty/perf.sh);
#    the dynamic perf's list is the same;
#  - objdump: `objdump -d` of a small Alpha object (tests/thirdparty/work.c,
#    -O2 -g) is byte for byte what the host's alpha-linux-gnu-objdump -d
#    prints (the independent oracle), and so is `objdump -d -l` (line
#    numbers from DWARF);
#  - addr2line: addr2line -f of a few of perf's functions (from
#    alpha-linux-gnu-nm) in the static perf is what the host's
#    alpha-linux-gnu-addr2line says.
# Warm (the entry built): a few seconds; cold, the build (minutes; its
# steps' lines are in $BUILD/linux-perf-build/build.err). Prints the build's
# last line ("linuxperf: cached in DIR", "linuxperf: built in N s into DIR").
# Skipped without qemu-alpha. Environment: BUILD, PROFILEME_CACHE,
# LINUXPERF_DIR, ALPHA_CC.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
CROSS=${ALPHA_CROSS:-${CC%gcc}}
SYSROOT=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
work=$BUILD/linux-perf-build
mkdir -p "$work"
pass() { echo "PASS linux_perf/$1"; }
fail() { echo "FAIL linux_perf/$1: $2"; }
if ! command -v qemu-alpha >/dev/null; then
  echo "linux_perf_build: qemu-alpha not installed, skipped"; exit 0
fi

if ! d=$(bash tests/thirdparty/perf.sh 2>"$work/build.err"); then
  fail build "$(tail -n 3 "$work/build.err" | tr '\n' ' ')"
  exit 1
fi
tail -n 1 "$work/build.err"
qemu_static() { qemu-alpha "$@"; }
qemu_dyn() { qemu-alpha -L "$SYSROOT" "$@"; }

# ---- ELF ----
for b in perf perf-dynamic objdump addr2line; do
  f=$d/bin/$b
  if [ ! -x "$f" ]; then fail "elf.$b" "$f missing"; continue; fi
  hdr=$("${CROSS}readelf" -h -l -d "$f" 2>&1)
  mach=$(sed -n 's/^ *Machine: *//p' <<<"$hdr")
  type=$(sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p' <<<"$hdr")
  interp=$(grep -c 'INTERP' <<<"$hdr")
  why=
  [ "$mach" = Alpha ] || why+="machine '$mach'; "
  [ "$type" = EXEC ] || why+="type '$type'; "
  if [ "$b" = perf-dynamic ]; then
    [ "$interp" -gt 0 ] || why+="no interpreter; "
    grep -q 'NEEDED.*\[libelf\.so\.1\]' <<<"$hdr" || why+="no NEEDED libelf.so.1; "
    rp=$(sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p' <<<"$hdr")
    [ "$rp" = "$d/lib" ] || why+="RPATH '$rp', not $d/lib; "
    [ -e "$d/lib/libelf.so.1" ] || why+="no $d/lib/libelf.so.1; "
  else
    [ "$interp" = 0 ] || why+="has an interpreter (not static); "
  fi
  if [ -z "$why" ]; then pass "elf.$b"; else fail "elf.$b" "${why%; }"; fi
done

# ---- perf --version ----
lv=$(sed -n 's/^linux-source-6\.1 //p' "$d/VERSIONS" 2>/dev/null)
up=${lv#*:}; up=${up%%-*}   # 6.1.192-3 -> 6.1.192
want="perf version $up"
for b in perf:qemu_static perf-dynamic:qemu_dyn; do
  name=${b%%:*} q=${b#*:}
  got=$($q "$d/bin/$name" --version 2>&1)
  case $up in 6.1.*) ;; *) fail "version.$name" "VERSIONS names linux-source-6.1 '$lv'"; continue ;; esac
  if [ "$got" = "$want" ]; then pass "version.$name"; else fail "version.$name" "got '$got', want '$want'"; fi
done

# ---- perf version --build-options ----
qemu_static "$d/bin/perf" version --build-options >"$work/options.static" 2>&1
qemu_dyn "$d/bin/perf-dynamic" version --build-options >"$work/options.dynamic" 2>&1
# state FEATURE: on/OFF as perf prints it
state() { awk -v f="$1" '$1 == f":" { print $3; exit }' "$work/options.static"; }
why=
for f in libelf zlib lzma zstd dwarf_getlocations; do
  [ "$(state $f)" = on ] || why+="$f '$(state $f)', want on; "
done
[ "$(state dwarf)" = OFF ] || why+="dwarf '$(state dwarf)', want OFF (upstream 6.1 has no Alpha DWARF regs); "
if [ -z "$why" ]; then pass build-options; else fail build-options "${why%; }"; fi
if cmp -s "$work/options.static" "$work/options.dynamic"; then
  pass build-options.dynamic
else
  fail build-options.dynamic "$(diff "$work/options.static" "$work/options.dynamic" | head -n 4 | tr '\n' ' ')"
fi

# ---- objdump against the host's ----
obj=$work/work.o
if ! "$CC" -O2 -g -c -o "$obj" tests/thirdparty/work.c 2>"$work/work.o.log"; then
  fail objdump "compiling work.c: $(head -n 2 "$work/work.o.log")"
else
  for opt in -d "-d -l"; do
    n=objdump${opt// /}
    # shellcheck disable=SC2086 # opt is two words
    (cd "$work" && "${CROSS}objdump" $opt work.o) >"$work/$n.host" 2>&1
    # shellcheck disable=SC2086
    (cd "$work" && qemu_static "$d/bin/objdump" $opt work.o) >"$work/$n.alpha" 2>&1
    lines=$(grep -cP '^ *[0-9a-f]+:\t' "$work/$n.host")
    if [ "$lines" -gt 20 ] && cmp -s "$work/$n.host" "$work/$n.alpha"; then
      pass "$n: $lines instruction lines identical"
    else
      fail "$n" "$lines instruction lines; differs: $(diff "$work/$n.host" "$work/$n.alpha" | head -n 4 | tr '\n' ' ')"
    fi
  done
fi

# ---- addr2line against the host's ----
addrs=$("${CROSS}nm" "$d/bin/perf" | awk '$2 == "T" && ($3 == "main" || $3 == "cmd_record" || $3 == "cmd_annotate" || $3 == "perf_event__process_sample") { print $1 }')
if [ "$(wc -w <<<"$addrs")" -lt 3 ]; then
  fail addr2line "perf's symbols main, cmd_record... not found by ${CROSS}nm"
else
  # shellcheck disable=SC2086 # one argument per address
  "${CROSS}addr2line" -f -e "$d/bin/perf" $addrs >"$work/addr2line.host" 2>&1
  # shellcheck disable=SC2086
  qemu_static "$d/bin/addr2line" -f -e "$d/bin/perf" $addrs >"$work/addr2line.alpha" 2>&1
  if ! grep -q '??' "$work/addr2line.host" && cmp -s "$work/addr2line.host" "$work/addr2line.alpha"; then
    pass "addr2line: $(wc -w <<<"$addrs") of perf's functions, same file:line"
  else
    fail addr2line "$(diff "$work/addr2line.host" "$work/addr2line.alpha" | head -n 4 | tr '\n' ' ')"
  fi
fi
