#!/usr/bin/env bash
# The loader follows the program headers, as Linux's fs/binfmt_elf.c does:
# bytes of the file outside the PT_LOAD segments (.symtab, .strtab, debug
# sections, section headers) change nothing in a run. The same program built
# from two object files of different names (one with -g, whose DWARF holds
# the names; GCC's code does not change with -g), the same with a 4,000-byte symbol
# name added to .strtab, and a stripped copy, all run under one file name, one
# directory and one environment, count the same instructions and cycles
# (timed, through the PMU driver and the sim/ ground truth) and the same
# instructions on the functional core. A copy under a longer file name moves
# the stack (argv[0], AT_EXECFN), as on Linux, and must count differently:
# the comparison can see a difference. brk starts at the page-aligned end of
# the highest PT_LOAD's bss (Linux's mm->start_brk without randomization).
set -u
. "$(dirname "$0")/../lib/common.bash"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
out=$BUILD/loader
rm -rf "$out"; mkdir -p "$out/a" "$out/b" "$out/run"
cat >"$out/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1000, s = 0;
  char *p = malloc(100000);
  for (long i = 0; i < n; i++) { p[(i * 4099) % 100000] = (char)i; s += p[(i * 7) % 100000] ^ i; }
  printf("%ld\n", s);
  return 0;
}
EOF
cp "$out/prog.c" "$out/a/p.c"
cp "$out/prog.c" "$out/b/program_with_a_much_longer_object_file_name.c"
long_sym=$(printf '%4000s' '' | tr ' ' s)

# counts BIN: "instructions cycles sim-instructions run-instructions" of BIN
# run as $out/run/prog.
counts() {
  cp "$1" "$out/run/prog"
  local s r
  s=$(cd "$out/run" && env -i A=x "$PROFILEME" stat -x, -e instructions,sim/cycles/,sim/instructions/ -- ./prog 30000 2>&1 >/dev/null |
      awk -F, '{ v[$3] = $1 } END { print v["instructions"], v["sim/cycles/"], v["sim/instructions/"] }')
  r=$(cd "$out/run" && env -i A=x "$PROFILEME" run --stats ./prog 30000 2>&1 >/dev/null | awk '/instructions,/ { print $2 }')
  echo "$s $r"
}

for kind in static dyn; do
  flags=(); [ $kind = static ] && flags=(-static -Wl,--no-relax)
  (cd "$out/a" && "$CC" -O2 -c p.c && "$CC" "${flags[@]}" -o ../p1.$kind p.o) &&
  (cd "$out/b" && "$CC" -O2 -g -c program_with_a_much_longer_object_file_name.c &&
   "$CC" "${flags[@]}" -o ../p2.$kind program_with_a_much_longer_object_file_name.o) &&
  alpha-linux-gnu-objcopy --add-symbol "$long_sym=0x120000000" "$out/p1.$kind" "$out/p3.$kind" &&
  alpha-linux-gnu-strip -o "$out/p4.$kind" "$out/p1.$kind" ||
    { echo "FAIL loader/non-loaded-bytes-$kind: cannot build"; continue; }
  sizes=$(stat -c %s "$out/p1.$kind" "$out/p2.$kind" "$out/p3.$kind" "$out/p4.$kind" | sort -u | wc -l)
  c1=$(counts "$out/p1.$kind"); c2=$(counts "$out/p2.$kind"); c3=$(counts "$out/p3.$kind"); c4=$(counts "$out/p4.$kind")
  if [ "$sizes" = 4 ] && [ "$(wc -w <<<"$c1")" = 4 ] && [ "$c1" = "$c2" ] && [ "$c1" = "$c3" ] && [ "$c1" = "$c4" ]; then
    echo "PASS loader/non-loaded-bytes-$kind: 4 files of 4 sizes count the same: $c1 (instructions, cycles, sim/instructions, run)"
  else
    echo "FAIL loader/non-loaded-bytes-$kind: $sizes sizes; counts '$c1' '$c2' '$c3' '$c4'"
  fi
done

# The control: the same file under a longer name counts differently.
cp "$out/p1.static" "$out/run/prog_with_a_longer_name"
a=$(counts "$out/p1.static")
b=$(cd "$out/run" && env -i A=x "$PROFILEME" run --stats ./prog_with_a_longer_name 30000 2>&1 >/dev/null | awk '/instructions,/ { print $2 }')
if [ -n "$b" ] && [ "$b" != "${a##* }" ]; then
  echo "PASS loader/path-moves-stack: ./prog ${a##* } instructions, ./prog_with_a_longer_name $b"
else
  echo "FAIL loader/path-moves-stack: ./prog '${a##* }', longer name '$b'"
fi

# brk: a dynamic program (ld.so does not move brk before main) sees
# brk(0) = the end of its bss (_end) rounded up to the 8 KB page.
cat >"$out/brk.c" <<'EOF'
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
extern char _end[];
int main(void)
{
  uintptr_t b = (uintptr_t)syscall(SYS_brk, 0), want = ((uintptr_t)_end + 8191) & ~(uintptr_t)8191;
  printf("%s %#lx %#lx\n", b == want ? "ok" : "bad", (unsigned long)b, (unsigned long)want);
  return 0;
}
EOF
if "$CC" -O2 -o "$out/brk" "$out/brk.c"; then
  r=$("$PROFILEME" run "$out/brk" 2>&1)
  case $r in ok*) echo "PASS loader/brk-start: brk and page-aligned _end: ${r#ok }" ;;
             *) echo "FAIL loader/brk-start: $r" ;; esac
else
  echo "FAIL loader/brk-start: cannot build"
fi
