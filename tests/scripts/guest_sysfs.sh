#!/usr/bin/env bash
# The guest's view of the machine's perf files (docs/guest-perf.md):
# tests/guestsys/sysfs_view.c, built for Alpha, lists and reads
# /sys/bus/event_source/devices as perf's pmu.c and libpfm4 do, and prints
# what it found. The oracles:
#  - `profileme list --sysfs` (the host tool's view of the same single
#    description): the guest's type/format/events files must be exactly
#    those, and no others (none of the host's x86 PMU);
#  - an independent parse of those lines here (python3): every event's
#    config words as perf's pmu.c encodes its terms through the format bits;
#  - the run's options: --paranoid, --max-sample-rate and --cpus appear in
#    /proc/sys/kernel/perf_event_paranoid, perf_event_max_sample_rate and
#    /sys/devices/system/cpu/online (and glibc's sysconf);
#  - Linux 6.1's values for the sysctls the machine does not set:
#    perf_event_max_stack 127 and perf_event_max_contexts_per_stack 8
#    (PERF_MAX_STACK_DEFAULT, PERF_MAX_CONTEXTS_PER_STACK in
#    include/uapi/linux/perf_event.h), perf_event_mlock_kb 512 + PAGE_SIZE/1024
#    = 520 with Alpha's 8 KiB pages and perf_cpu_time_max_percent 25
#    (kernel/events/core.c);
#  - a functional machine (`run`, no PMU driver) has the software PMU only.
# Checks: guest_sysfs/{files,sysctl,cpus,mux,checks}.{stat,record,run,timed}.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
CC=${ALPHA_CC:-alpha-linux-gnu-gcc}
out=$BUILD/guestsys
mkdir -p "$out"
bin=$out/sysfs_view
env_i=(env -i PATH=/usr/bin:/bin LC_ALL=C)

if [ ! -x "$bin" ] || [ tests/guestsys/sysfs_view.c -nt "$bin" ]; then
  if ! "$CC" -O2 -Wall -Wextra -Werror -o "$bin" tests/guestsys/sysfs_view.c 2>"$out/sysfs_view.cc.log"; then
    echo "FAIL guest_sysfs/build: $(head -n 3 "$out/sysfs_view.cc.log")"
    exit 1
  fi
fi

"$PROFILEME" list --sysfs >"$out/list.txt" || { echo "FAIL guest_sysfs/list: profileme list --sysfs failed"; exit 1; }

pass() { echo "PASS guest_sysfs/$1"; }
fail() { echo "FAIL guest_sysfs/$1: $2"; }

# same NAME EXPECTED-FILE ACTUAL-FILE
same() {
  if diff -u "$2" "$3" >"$out/diff" 2>&1; then pass "$1"; else fail "$1" "differs"; head -n 12 "$out/diff" | sed 's/^/    /'; fi
}

# The files and encodings the guest must see, from list --sysfs (cpu PMU
# kept only when $1 is "hw").
expect() {
  python3 - "$out/list.txt" "$1" <<'EOF'
import sys, re
hw = sys.argv[2] == "hw"
files, fmt, events = [], {}, {}
for line in open(sys.argv[1]):
    path, content = line.rstrip("\n").split(": ", 1)
    pmu, rest = re.match(r"/sys/bus/event_source/devices/([^/]+)/(.*)", path).groups()
    if pmu == "cpu" and not hw:
        continue
    files.append("file %s: %s" % (path, content))
    if rest.startswith("format/"):
        word, ranges = content.split(":")
        bits = []
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            bits += range(int(lo), int(hi or lo) + 1)
        fmt.setdefault(pmu, {})[rest[7:]] = ({"config": 0, "config1": 1, "config2": 2}[word], bits)
    elif rest.startswith("events/"):
        events.setdefault(pmu, {})[rest[7:]] = content
for f in sorted(files):
    print(f)
for pmu in sorted(events):
    for name in sorted(events[pmu]):
        cfg = [0, 0, 0]
        for term in events[pmu][name].split(","):
            key, _, val = term.partition("=")
            v = int(val, 0) if val else 1
            word, bits = fmt[pmu][key]
            for b in bits:
                if v & 1:
                    cfg[word] |= 1 << b
                v >>= 1
        print("encode %s/%s: config=0x%x config1=0x%x config2=0x%x" % (pmu, name, cfg[0], cfg[1], cfg[2]))
EOF
}

# check_run TAG HW PARANOID RATE CPUS: the guest's output in $out/TAG.out.
check_run() {
  local tag=$1 hw=$2 par=$3 rate=$4 cpus=$5 o=$out/$1.out list
  expect "$hw" >"$out/$tag.expect"
  { grep '^file ' "$o" | sort; grep '^encode ' "$o" | sort; } >"$out/$tag.got"
  same "files.$tag" "$out/$tag.expect" "$out/$tag.got"
  printf 'sysctl %s: %s\n' perf_event_paranoid "$par" perf_event_max_sample_rate "$rate" \
    perf_event_max_stack 127 perf_event_max_contexts_per_stack 8 perf_event_mlock_kb 520 \
    perf_cpu_time_max_percent 25 >"$out/$tag.sysctl.expect"
  grep '^sysctl ' "$o" >"$out/$tag.sysctl.got"
  same "sysctl.$tag" "$out/$tag.sysctl.expect" "$out/$tag.sysctl.got"
  if [ "$cpus" = 1 ]; then list=0; else list=0-$((cpus - 1)); fi
  local want="cpus online=$list nprocs=$cpus conf=$cpus"
  if grep -qx "$want" "$o"; then pass "cpus.$tag"; else fail "cpus.$tag" "want '$want', got '$(grep '^cpus' "$o")'"; fi
  # The mux interval file of every PMU: the kernel's rotation interval (4 ms).
  local nmux npmu
  nmux=$(grep -c '^mux [a-z]*: 4$' "$o"); npmu=$(grep -c '/type: ' "$out/$tag.expect")
  if [ "$nmux" = "$npmu" ]; then pass "mux.$tag"; else fail "mux.$tag" "$nmux of $npmu PMUs have perf_event_mux_interval_ms 4"; fi
  if [ "$hw" = hw ]; then
    if grep -q '^check ' "$o" && ! grep -q '^check .*FAILED' "$o" &&
       grep -qx 'link /sys/bus/event_source/devices/cpu -> ../../../devices/cpu' "$o"; then
      pass "checks.$tag"
    else
      fail "checks.$tag" "$(grep -m1 'FAILED\|^link' "$o")"
    fi
  elif grep -qx 'pmu cpu absent' "$o"; then
    pass "checks.$tag"
  else
    fail "checks.$tag" "a functional machine shows a cpu PMU"
  fi
}

# stat: timed, paranoid from --paranoid, 2 CPUs.
"${env_i[@]}" "$PROFILEME" stat --paranoid 1 --cpus 2 -- "$bin" >"$out/stat.out" 2>"$out/stat.err"
check_run stat hw 1 100000 2
# record: its --max-sample-rate reaches the sysctl.
"${env_i[@]}" "$PROFILEME" record --paranoid -1 --max-sample-rate 5000 -o "$out/rec.data" -- "$bin" \
  >"$out/record.out" 2>"$out/record.err"
check_run record hw -1 5000 1
# run: the functional machine (no PMU driver), its default sysctls
# (perf_event_paranoid 2, as Linux's default and run --help says).
"${env_i[@]}" "$PROFILEME" run -- "$bin" >"$out/run.out" 2>"$out/run.err"
check_run run sw 2 100000 1
# run --timed: the cpu PMU appears with the driver, on 3 CPUs.
"${env_i[@]}" "$PROFILEME" run --timed --cpus 3 --paranoid 0 -- "$bin" >"$out/timed.out" 2>"$out/timed.err"
check_run timed hw 0 100000 3
rm -f "$out/rec.data" "$out/rec.data.old"
