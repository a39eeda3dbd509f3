#!/usr/bin/env bash
# Remakes docs/kcachegrind.png: tests/diff/cgwork.c recorded with ProfileMe,
# its ground truth and call chains, converted with `data convert
# --to-callgrind`, opened in KCachegrind under Xvfb with mix_loop selected:
# the event types of the function (samples, period, PCTR1 weight, the
# ProfileMe statuses, the exact counts) over its call graph. By hand, not in
# the tests: it needs kcachegrind, xvfb, xauth, xdotool, imagemagick and
# graphviz (apt-get install --no-install-recommends ...), and clicks at
# fixed places of KCachegrind 22.12's default layout at 1400x900.
#   scripts/kcachegrind-screenshot.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/kcachegrind.png}
for t in kcachegrind xvfb-run xdotool import dot dbus-run-session alpha-linux-gnu-gcc; do
  command -v "$t" >/dev/null || { echo "kcachegrind-screenshot: $t is missing" >&2; exit 1; }
done
[ -x build/profileme ] || make
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
alpha-linux-gnu-gcc -O1 -g -static -Wl,--no-relax -o "$work/cgwork" tests/diff/cgwork.c
build/profileme record -q -c 12007 --truth --call-graph dwarf --unwind-at-record -o "$work/cgwork.data" \
  -- "$work/cgwork" 1000000 300000
build/profileme data convert -i "$work/cgwork.data" --to-callgrind "$work/callgrind.out.cgwork"
mkdir -p "$work/home/.config" "$work/xdg"
chmod 700 "$work/xdg"
printf '[TipOfDay]\nRunOnStart=false\n' >"$work/home/.config/kcachegrindrc"
cat >"$work/shot.sh" <<EOS
#!/bin/bash
export HOME=$work/home XDG_RUNTIME_DIR=$work/xdg QT_QPA_PLATFORM=xcb
cd $work
dbus-run-session -- kcachegrind callgrind.out.cgwork >kcachegrind.log 2>&1 &
sleep 10
win=\$(xdotool search --name callgrind.out | head -1)
xdotool windowsize \$win 1400 900; xdotool windowmove \$win 0 0; sleep 2
xdotool mousemove 250 252 click 1; sleep 1    # mix_loop in the flat profile
xdotool mousemove 375 99 click 1; sleep 1     # the Types tab
xdotool mousemove 521 856 click 1; sleep 4    # the Call Graph tab
import -window root shot.png
EOS
chmod +x "$work/shot.sh"
xvfb-run -a -s "-screen 0 1400x900x24" "$work/shot.sh"
convert "$work/shot.png" -colors 64 "PNG8:$out"
echo "kcachegrind-screenshot: wrote $out"
