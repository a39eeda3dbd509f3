#!/usr/bin/env bash
# Takes the screenshots of hotspot on our perf.data in docs/viewers.md:
# hotspot 1.3.0 in a real window under Xvfb (xvfb-run), on FILE given
# through `profileme inject --arch x86` (hotspot refuses arch "alpha"),
# with the guest's kallsyms when KALLSYMS is given; the Summary page and,
# with xdotool, the Flame Graph tab (clicked at its place in a 1400x900
# screen). Needs hotspot, xvfb and imagemagick's import (and xdotool for the
# second picture); not part of the tests.
#   scripts/hotspot-screenshot.sh FILE OUT-PREFIX [KALLSYMS]
# writes OUT-PREFIX-summary.png and OUT-PREFIX-flamegraph.png.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
file=$1 prefix=$2 ks=${3:-}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
build/profileme inject -q --arch x86 -i "$file" -o "$tmp/hotspot.data"
cat >"$tmp/run.sh" <<EOF
#!/bin/bash
hotspot ${ks:+--kallsyms "$ks"} "$tmp/hotspot.data" >"$tmp/hotspot.log" 2>&1 &
hp=\$!
sleep 20
import -window root "$prefix-summary.png"
if command -v xdotool >/dev/null; then
  xdotool mousemove 343 55 click 1
  sleep 5
  import -window root "$prefix-flamegraph.png"
fi
kill \$hp
EOF
chmod +x "$tmp/run.sh"
xvfb-run -a -s "-screen 0 1400x900x24" "$tmp/run.sh"
ls -l "$prefix"-*.png
