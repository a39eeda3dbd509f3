#!/usr/bin/env bash
# Writes the 1 MiB input that realprogs.sh and bench/run.sh give bzip2 to
# FILE: text lines, counters and pseudo-random bytes from a fixed LCG, so
# that both the sorting and the Huffman stages have work to do, and the
# same bytes on every machine.
#   input.sh FILE
set -eu
[ $# -eq 1 ] || { echo "usage: input.sh FILE" >&2; exit 2; }
perl -e '
  my $x = 12345; my $s = "";
  sub rnd { $x = ($x * 1103515245 + 12345) % 2147483648; return $x >> 8; }
  my @w = qw(alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu);
  while (length($s) < 1048576) {
    my $r = rnd() % 10;
    if ($r < 5) { $s .= join(" ", map { $w[rnd() % @w] } 1 .. 8) . "\n"; }
    elsif ($r < 8) { $s .= sprintf("%08d,%d,%x\n", length($s), rnd() % 1000, rnd()); }
    else { $s .= pack("C*", map { rnd() % 256 } 1 .. 64); }
  }
  print substr($s, 0, 1048576);
' >"$1.tmp" && mv -f "$1.tmp" "$1"
