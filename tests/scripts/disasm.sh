#!/usr/bin/env bash
# `profileme disasm` against alpha-linux-gnu-objdump -d, line for line:
#  - every object of the cross libc.a and libm.a (extracted once into
#    $BUILD/disasm/, reused while the archive is unchanged);
#  - a generated object holding ~730,000 instruction words: every function
#    code of the operate, FP and memory-function formats under several register
#    patterns, plus pseudo-random words of every opcode.
# Nothing is normalized: headers, labels and instruction text must be identical.
# One PASS/FAIL line per set, with the number of instruction lines compared and
# differing; the first differences are printed on failure. docs/disasm.md says
# what the comparison covers.
set -u
. "$(dirname "$0")/../lib/common.bash"
SYSROOT=${ALPHA_SYSROOT:-/usr/alpha-linux-gnu}
OBJDUMP=alpha-linux-gnu-objdump
OBJCOPY=alpha-linux-gnu-objcopy
AR=alpha-linux-gnu-ar
CACHE=$(mkdir -p "$BUILD/disasm" && cd "$BUILD/disasm" && pwd)

if ! command -v $OBJDUMP >/dev/null || ! command -v $AR >/dev/null; then
  echo "disasm: $OBJDUMP not installed, comparison skipped"
  exit 0
fi
if [ ! -x "$PROFILEME" ]; then
  echo "FAIL disasm: $PROFILEME not built"
  exit 1
fi

# compare NAME DIR FILES...: runs both tools in DIR, prints PASS/FAIL and counts.
compare() {
  local name=$1 dir=$2; shift 2
  local ref=$CACHE/$name.objdump out=$CACHE/$name.profileme
  (cd "$dir" && $OBJDUMP -d "$@") >"$ref" 2>&1
  (cd "$dir" && printf '%s\0' "$@" |
     xargs -0 -n 256 -P 2 sh -c 'for f; do "$0" disasm "$f" >"$f.pm" 2>&1; done' "$PROFILEME"
   for f; do cat "$f.pm"; rm -f "$f.pm"; done) >"$out"
  local insn='^ *[0-9a-f]+:\t'
  local total missing extra
  total=$(grep -cP "$insn" "$ref")
  missing=$(diff "$ref" "$out" | grep -cP '^< *[0-9a-f]+:\t')
  extra=$(diff "$ref" "$out" | grep -c '^[<>]')
  if [ "$extra" -eq 0 ]; then
    echo "PASS disasm $name: $total instructions compared, 0 differing ($# files)"
  else
    echo "FAIL disasm $name: $total instructions compared, $missing differing, $extra lines differ in all"
    diff "$ref" "$out" | head -20
  fi
}

# extract ARCHIVE DIR: unpacks the archive unless DIR holds this version of it.
extract() {
  local archive=$1 dir=$2
  if [ ! -f "$dir/.stamp" ] || [ "$archive" -nt "$dir/.stamp" ]; then
    rm -rf "$dir" && mkdir -p "$dir" && (cd "$dir" && $AR x "$archive") && touch "$dir/.stamp"
  fi
}

for lib in libc libm; do
  archive=$SYSROOT/lib/$lib.a
  if [ ! -f "$archive" ]; then
    echo "disasm: $archive missing, $lib skipped"
    continue
  fi
  extract "$archive" "$CACHE/$lib"
  mapfile -t objs < <(cd "$CACHE/$lib" && ls -- *.o | LC_ALL=C sort)
  compare "$lib.a" "$CACHE/$lib" "${objs[@]}"
done

# Generated words, wrapped into the .text of an ELF object by objcopy.
gen_words() {
  perl -e '
    my @w; my $seed = 12345;
    sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648;
              my $a = $seed; $seed = ($seed * 1103515245 + 12345) % 2147483648;
              return (($a << 16) ^ $seed) & 0xFFFFFFFF; }
    my @pat = ([1,2,3],[31,2,3],[1,31,3],[31,31,3],[31,31,31],[2,2,3],[1,2,31],
               [3,3,3],[31,3,3],[26,26,26]);
    for my $op (0x10..0x13, 0x1C) { for my $fn (0..127) { for my $p (@pat) {
      my ($a,$b,$c) = @$p;
      push @w, ($op<<26)|($a<<21)|($b<<16)|($fn<<5)|$c;             # register form
      push @w, ($op<<26)|($a<<21)|($b<<16)|(5<<13)|($fn<<5)|$c;     # SBZ bits set
      push @w, ($op<<26)|($a<<21)|((($b*7+1)&255)<<13)|(1<<12)|($fn<<5)|$c;  # literal
    } push @w, ($op<<26)|(31<<21)|(1<<13)|(1<<12)|($fn<<5)|5; } }
    for my $op (0x14..0x17, 0x1C) { for my $fn (0..2047) { for my $p (@pat) {
      my ($a,$b,$c) = @$p; push @w, ($op<<26)|($a<<21)|($b<<16)|($fn<<5)|$c; } } }
    for my $fn (0..65535) { for my $ab ([31,31],[1,2],[31,2],[1,31]) {
      push @w, (0x18<<26)|($ab->[0]<<21)|($ab->[1]<<16)|$fn; } }
    for my $op (0..63) { for my $i (0..2999) {
      my $x = ($op<<26)|(rnd() & 0x3FFFFFF); push @w, $x;
      push @w, $x | (31<<21) if $i % 3 == 0;
      push @w, ($x & ~(31<<16)) | ((($x>>21)&31)<<16) if $i % 3 == 1; } }
    push @w, 0..0x3FF;
    for my $h (0,1,2,0x1FFF,0x2000,0x3FFF) { for my $t (0..3) {
      for my $ab ([31,26],[26,27],[31,0],[0,31]) {
        push @w, (0x1A<<26)|($ab->[0]<<21)|($ab->[1]<<16)|($t<<14)|$h; } } }
    push @w, 0x6BFA8001;
    binmode STDOUT; print pack("V*", @w);'
}

if command -v $OBJCOPY >/dev/null && command -v perl >/dev/null; then
  gdir=$CACHE/words
  mkdir -p "$gdir"
  if [ ! -f "$gdir/words.o" ] || [ "$0" -nt "$gdir/words.o" ]; then
    gen_words >"$gdir/words.bin" &&
      (cd "$gdir" && $OBJCOPY -I binary -O elf64-alpha \
         --rename-section .data=.text,code,alloc,load,readonly,contents words.bin words.o)
  fi
  compare "generated-words" "$gdir" words.o
else
  echo "disasm: $OBJCOPY or perl missing, generated words skipped"
fi
