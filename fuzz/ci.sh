#!/usr/bin/env bash
# `make fuzz-ci`: a short, bounded run of every libFuzzer harness in
# $FUZZ_BUILD (default build/fuzz), FUZZ_TIME seconds each (default 25), all
# at once, in fork mode so that a finding does not end the
# run. `make fuzz-long` (by hand, not in CI) runs each until FUZZ_RUNS
# executions (it sets 10^7) or FUZZ_TIME seconds (it sets 3600), whichever
# comes first, FUZZ_JOBS harnesses at a time (it sets the number of CPUs;
# default: all at once). Seeds are made on the fly: Alpha programs built from tests/guest (whole
# and cut to 4 KB) for fuzz_elf, and runs of words from their .text sections
# for fuzz_decode; fuzz_perfdata starts from the perf.data files in
# tests/perfdata, fuzz_attr from event names. Each finding is replayed and compared with
# fuzz/known-issues.tsv: known ones print as "KNOWN", new ones as "FAIL" with
# the reproducer path and the sanitizer's stack. Exits 1 on any new finding.
# fuzz_unwind starts from the .eh_frame of tests/unwind/calls.c and of ld.so,
# with PCs in their functions. fuzz_symbols starts from the ELF seeds.
# Each harness prints a line with its executions, the time they took, the
# executions per second, the coverage and the corpus size (PASS), or its
# findings. Replay a reproducer with: build/fuzz/fuzz_NAME FILE.
# FUZZ_REPORT_ONLY=1 skips fuzzing and classifies the findings of the last
# run again.
set -u
cd "$(dirname "$0")/.."
out=${FUZZ_BUILD:-build/fuzz}
secs=${FUZZ_TIME:-25}
runs=${FUZZ_RUNS:-}          # empty: no limit but the time
harnesses=(elf decode perfdata attr unwind guestperf itrace symbols)
jobs=${FUZZ_JOBS:-${#harnesses[@]}}
for v in "secs=$secs" "jobs=$jobs" ${runs:+"runs=$runs"}; do
  case ${v#*=} in ''|*[!0-9]*|0) echo "fuzz: ${v%%=*} must be a positive number, not '${v#*=}'" >&2; exit 2 ;; esac
done
cc=${ALPHA_CC:-alpha-linux-gnu-gcc}
objcopy=${ALPHA_OBJCOPY:-alpha-linux-gnu-objcopy}
known=fuzz/known-issues.tsv
max_slow=2             # timeouts and ooms replayed per harness (each takes seconds)

seeds=$out/seeds
if [ "${FUZZ_REPORT_ONLY:-0}" != 1 ]; then
rm -rf "$seeds" "$out/corpus" "$out/artifacts" "$out/replays"
mkdir -p "$seeds/elf" "$seeds/decode" "$seeds/perfdata" "$seeds/attr" "$seeds/unwind" "$seeds/guestperf" "$seeds/itrace" \
  "$seeds/symbols" "$out/corpus/elf" "$out/corpus/decode" "$out/corpus/perfdata" "$out/corpus/attr" \
  "$out/corpus/unwind" "$out/corpus/guestperf" "$out/corpus/itrace" "$out/corpus/symbols" "$out/artifacts"

# ELF seeds: a few small guest programs, dynamic (static ones are 700 KB, too
# big to mutate quickly); one also stripped, one as a PIE.
for src in tests/guest/int_arith.c tests/guest/bits.c tests/guest/strings.c; do
  [ -f "$src" ] || continue
  b=$seeds/elf/$(basename "$src" .c)
  "$cc" -O2 -o "$b" "$src" -lm 2>/dev/null || continue
  head -c 4096 "$b" >"$b.head"
  [ -e "$seeds/elf/stripped" ] || "${cc%gcc}strip" -o "$seeds/elf/stripped" "$b" 2>/dev/null
  [ -e "$seeds/elf/pie" ] || "$cc" -O2 -fPIE -pie -o "$seeds/elf/pie" "$src" -lm 2>/dev/null
done
[ -f /usr/alpha-linux-gnu/lib/ld-linux.so.2 ] && cp /usr/alpha-linux-gnu/lib/ld-linux.so.2 "$seeds/elf/ld.so"
printf '\177ELF' >"$seeds/elf/magic"

# Decode seeds: an 8-byte PC, then 256 bytes of real code, from each program.
for b in "$seeds"/elf/*; do
  case $b in *.head|*/magic) continue ;; esac
  t=$(mktemp)
  if "$objcopy" -O binary --only-section=.text "$b" "$t" 2>/dev/null; then
    size=$(stat -c %s "$t")
    for off in 0 4096 16384 65536; do
      [ "$off" -lt "$size" ] || continue
      s=$seeds/decode/$(basename "$b")-$off
      printf '\000\010\000\040\001\000\000\000' >"$s"   # pc 0x120000800, LE
      tail -c +"$((off + 1))" "$t" | head -c 256 >>"$s"
    done
  fi
  rm -f "$t"
done
cp tests/perfdata/*.data "$seeds/perfdata/" 2>/dev/null
# Attribute seeds: event names (first byte odd: a name; bit 3: privileged).
i=0
for spec in cycles cycles:p cycles:pp instructions:u cache-misses mbox-replays r2 cpu-clock \
            page-faults cpu/event=1,profileme=1/ cpu/event=2,profileme=1,random=1/ \
            cpu/cycles,profileme=1,config1=7/ cpu/bcache_misses/ cpu/event=1,profileme=1,trap=1,sl1=2/ \
            cpu/mem-ldst/P cpu/event=cycles,config1=3,retired=1/ cpu/foo=1/; do
  printf '\001%s' "$spec" >"$seeds/attr/name$i"
  printf '\011%s' "$spec" >"$seeds/attr/priv$i"
  i=$((i + 1))
done
# Unwind seeds (fuzz/fuzz_unwind.c's header, the .eh_frame, a stack of
# words that point into the code and the stack): PCs 8 bytes into functions.
unwind_seeds() {   # BINARY NAME
  local t; t=$(mktemp)
  "$objcopy" -O binary --only-section=.eh_frame "$1" "$t" 2>/dev/null || { rm -f "$t"; return; }
  local vaddr; vaddr=$("${cc%gcc}readelf" -SW "$1" | awk '$2 == ".eh_frame" { print $4 }')
  local i=0
  for fn in $("${cc%gcc}nm" "$1" 2>/dev/null | awk '$2 ~ /^[Tt]$/ { print $1 }' | head -12) \
            $("${cc%gcc}objdump" -d "$1" | awk '/bsr|jsr/ { sub(":", "", $1); print $1; if (++n == 6) exit }'); do
    perl -e 'my ($f, $eh, $v, $pc, $m) = @ARGV; open my $h, "<:raw", $f or die; local $/; my $b = <$h>;
      my $sp = 0x11fff0000; my $st = join "", map { pack "Q<", $_ % 3 ? hex($pc) + 4 * $_ : $sp + 64 * $_ } 0 .. 127;
      print pack("V V Q< Q< Q< Q< Q< Q<", length $b, 64, hex($v), $m, hex($pc) + 8, $sp, hex($pc) + 0x40, $sp + 256), $b, $st' \
      "$t" "$2" "$vaddr" "$fn" $((i % 2 ? 0xffffffff : 0x7fff01ff)) >"$seeds/unwind/$2-$i"
    i=$((i + 1))
  done
  rm -f "$t"
}
if "$cc" -O2 -o "$seeds/unwind.calls" tests/unwind/calls.c 2>/dev/null; then
  unwind_seeds "$seeds/unwind.calls" calls
  rm -f "$seeds/unwind.calls"
fi
[ -f /usr/alpha-linux-gnu/lib/ld-linux.so.2 ] && unwind_seeds /usr/alpha-linux-gnu/lib/ld-linux.so.2 ldso
# Guest perf seeds (fuzz/fuzz_guestperf.c): open a software event (op 0x10:
# a valid attr), map it, drive page faults, read and close; and random bytes.
for i in 0 1 2 3; do
  perl -e 'my $i = shift; print pack("C*", $i, 0x10, 0, 1, (map { 0 } 1 .. 255), 0, 0, 0, 4, 0, 0, 4, 8, 1, 1, 0, 9, 0, 0, 200,
    0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 200, 1, 0, 6, 0)' "$i" >"$seeds/guestperf/sw$i"
  head -c 600 /dev/urandom >"$seeds/guestperf/random$i"
done
# Trace decoder seeds (fuzz/fuzz_itrace.c's layout): a loop, a call and a
# return, a system call, in 12 words of code, then their packets.
itrace_seed() {   # NAME PIECE
  perl -e 'my ($piece) = @ARGV; my $b = 0x120000000;
    sub u { my $v = shift; my $o = ""; do { my $c = $v & 0x7f; $v >>= 7; $o .= chr($c | ($v ? 0x80 : 0)) } while ($v); $o }
    my @code = (0x40220403, 0xe4200002, 0x40220403, 0xc3fffffc, 0xd3400003, 0x00000083, 0x40220403,
                0x40220403, 0x40220403, 0x6bfa8001, 0x40220403, 0x6bfb0000);
    my $s = pack("C Q< Q< V V C", 1, $b, 1000, 1, 1, 0);
    $s .= "" . u(4) . u(3) for 1 .. 20;
    $s .= "" . u(2) . u(1) . "" . u(1) . u(1) . "" . u(2) . u(4) . pack("Q<", $b + 20);
    $s .= "" . u(1) . u(2) . pack("C Q<", 1, $b + 24) . "" . pack("V V", 1, 2) . "" . u(2) . u(7);
    $s .= pack("C Q< Q<", 7, 2000, 4096) . pack("C Q< Q< V V C", 1, $b + 16, 3000, 1, 1, 0) . "" . u(1) . u(1);
    print pack("C C", $piece, scalar @code), pack("V*", @code), $s' "$2" >"$seeds/itrace/$1"
}
itrace_seed whole 63
itrace_seed bytes 0
itrace_seed pieces 6
# Symbol table seeds (fuzz/fuzz_symbols.c): the ELF seeds (PLTs, a PIE,
# ld.so, a stripped file) and one program with line tables.
for b in "$seeds"/elf/*; do case $b in *.head|*/magic) ;; *) cp "$b" "$seeds/symbols/" ;; esac; done
"$cc" -O2 -g -o "$seeds/symbols/calls-g" tests/unwind/calls.c 2>/dev/null
echo "fuzz: seeds: $(ls "$seeds/elf" | wc -l) ELF files, $(ls "$seeds/decode" | wc -l) code runs," \
  "$(ls "$seeds/perfdata" | wc -l) perf.data files, $(ls "$seeds/attr" | wc -l) events," \
  "$(ls "$seeds/unwind" | wc -l) unwind inputs; ${runs:+up to $runs executions or }${secs}s per harness," \
  "$jobs at a time"
fi

# fuzz NAME: runs one harness in fork mode; the log goes to $out/NAME.log.
fuzz() {
  "$out/fuzz_$1" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" ${runs:+-runs="$runs"} -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/artifacts/$1-" "$out/corpus/$1" "$seeds/$1" >"$out/$1.log" 2>&1
}

# replay NAME FILE: runs the harness on FILE; its output goes to $out/replays/.
replay() {
  mkdir -p "$out/replays"
  timeout 120 "$out/fuzz_$1" -timeout=5 -rss_limit_mb=2048 "$2" \
    >"$out/replays/${2##*/}.out" 2>&1
}

# known_issue NAME KIND TEXT: prints the description of the known issue that
# matches, or nothing. KIND is crash, or slow for a timeout or an oom (which of
# the two a slow input hits varies from run to run).
known_issue() {
  local h k file pat what
  while IFS=$'\t' read -r h k file pat what; do
    case $h in ''|'#'*) continue ;; esac
    if [ "$h" = "$1" ] && [ "$k" = "$2" ] && grep -Eq -- "$pat" <<<"$3"; then
      echo "$what"; return
    fi
  done <"$known"
}

# report NAME: classifies the findings of one harness. Returns 1 on a new one.
report() {
  local name=$1 bad=0 kind f text what n rout found=0
  # fork mode's status lines: "#RUNS: cov: N ft: N corp: N exec/s N ..."; the
  # last says "INFO: exiting: STATUS time: Ns".
  local execs; execs=$(grep -o '^#[0-9]*' "$out/$name.log" | tail -1); execs=${execs#\#}
  local cov; cov=$(grep -o 'cov: [0-9]*' "$out/$name.log" | tail -1)
  local t; t=$(sed -n 's/^INFO: exiting: .* time: \([0-9]*\)s.*/\1/p' "$out/$name.log" | tail -1)
  local rate=$(( ${execs:-0} / (${t:-0} > 0 ? ${t:-0} : 1) ))
  for kind in crash timeout oom leak; do
    n=0
    for f in "$out/artifacts/$name-$kind-"*; do
      [ -e "$f" ] || continue
      n=$((n + 1)) found=$((found + 1))
      if [ "$kind" != crash ] && [ "$n" -gt "$max_slow" ]; then
        echo "NOTE fuzz_$name: $kind $f: not replayed (only $max_slow are)"; continue
      fi
      replay "$name" "$f"
      rout=$out/replays/${f##*/}.out
      text=$(tr '\n' ' ' <"$rout")
      if [ "$kind" = crash ]; then what=$(known_issue "$name" crash "$text")
      else what=$(known_issue "$name" slow "$text"); fi
      if [ -n "$what" ]; then
        echo "KNOWN fuzz_$name: $kind $f: $what"
      elif [ "$kind" != crash ] && ! grep -q 'ERROR: libFuzzer\|ERROR: AddressSanitizer\|runtime error' <<<"$text"; then
        echo "NOTE fuzz_$name: $kind $f did not happen again on replay"
      else
        bad=1
        echo "FAIL fuzz_$name: new $kind; reproducer $f"
        echo "  replay: $out/fuzz_$name $f"
        grep -E 'runtime error|ERROR|SUMMARY|^ *#[0-9]+ ' "$rout" | grep -v 'in fuzzer::' |
          head -25 | sed 's/^/  | /'
      fi
    done
  done
  if [ "$bad" = 0 ]; then
    echo "PASS fuzz_$name: ${execs:-0} executions in ${t:-?} s ($rate/s), $cov," \
      "corpus $(ls "$out/corpus/$name" | wc -l) files ($(du -sk "$out/corpus/$name" | cut -f1) KB)," \
      "$(case $found in 0) echo "no finding" ;; 1) echo "1 finding, not new" ;; *) echo "$found findings, none new" ;; esac)"
  fi
  return "$bad"
}

fail=0
pids=() running=0
for name in "${harnesses[@]}"; do
  if [ ! -x "$out/fuzz_$name" ]; then
    echo "FAIL fuzz_$name: $out/fuzz_$name not built (make fuzz)"; fail=1; continue
  fi
  if [ "${FUZZ_REPORT_ONLY:-0}" = 1 ]; then pids+=("$name:"); continue; fi
  # At most $jobs at once: wait for one to end before the next starts.
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  [ "$jobs" -lt "${#harnesses[@]}" ] && echo "fuzz: fuzz_$name started $(date +%T) (log $out/$name.log)"
  fuzz "$name" & pids+=("$name:$!"); running=$((running + 1))
done
for p in "${pids[@]}"; do
  name=${p%%:*}
  # In fork mode the exit status is that of the last job, even an ignored
  # finding's; the run itself went through when libFuzzer says "exiting".
  [ -n "${p#*:}" ] && wait "${p#*:}"
  if ! grep -q '^INFO: exiting: ' "$out/$name.log"; then
    echo "FAIL fuzz_$name: libFuzzer did not finish (log $out/$name.log)"
    tail -20 "$out/$name.log"; fail=1
  fi
  report "$name" || fail=1
done

# Known crashes that no longer crash have been fixed.
while IFS=$'\t' read -r h k file pat what; do
  case $h in ''|'#'*) continue ;; esac
  [ "$k" = crash ] && [ -x "$out/fuzz_$h" ] || continue
  if "$out/fuzz_$h" "fuzz/known/$file" >/dev/null 2>&1; then
    echo "FIXED fuzz_$h: fuzz/known/$file no longer crashes: remove it and its line in $known"
  fi
done <"$known"
exit "$fail"
