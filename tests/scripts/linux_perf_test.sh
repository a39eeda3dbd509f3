#!/usr/bin/env bash
# `perf test`, Linux 6.1's own test suite of perf (tests/thirdparty/perf.sh
# builds it for Alpha, unchanged), run inside the machine as a normal user
# at perf_event_paranoid 2 on the timed EV67. tests/linuxperf/perf-test.expected
# holds every test's result; it is what docs/linux-perf.md explains, test by
# test, against the same perf built for x86-64 and run on its host. A test
# whose result differs from the file fails here, better or worse, so the
# count cannot slip (a test that starts to pass is written into the file).
# Checks: linux_perf_test/{results,counts}, and one FAIL line per test that
# differs. Environment: BUILD, PROFILEME, LINUXPERF_DIR, PROFILEME_CACHE.
set -u
. "$(dirname "$0")/../lib/common.bash"
cd "$root"
out=$BUILD/linux_perf_test
rm -rf "$out" && mkdir -p "$out"
expected=$root/tests/linuxperf/perf-test.expected
dir=$(bash tests/thirdparty/perf.sh 2>"$out/build.err") || {
  echo "FAIL linux_perf_test/build: tests/thirdparty/perf.sh failed: $(tail -n 3 "$out/build.err" | tr '\n' ' ')"
  exit 0
}
cd "$out"
# (perf test writes its temporary files in the working directory and /tmp)
env -i PATH=/usr/bin:/bin HOME="$out" LC_ALL=C timeout -k 10 1500 \
  "$PROFILEME" run --timed -- "$dir/bin/perf" test >test.out 2>test.err
rc=$?
# "NUM: NAME : RESULT" lines, results as perf prints them (Skip's reason kept)
sed -n 's/^ *\([0-9][0-9.]*\): \(.*[^ ]\) *: \(Ok\|FAILED!\|Skip.*\)$/\1|\2|\3/p' test.out test.err | sed 's/ *$//' >got
grep -v '^#' "$expected" | grep -v '^$' | cut -d'|' -f1-3 >want
if [ $rc -ne 0 ]; then echo "FAIL linux_perf_test/exit: perf test ended with status $rc: $(tail -n 2 test.err | tr '\n' ' ')"; fi
if diff want got >diff.out; then
  echo "PASS linux_perf_test/results: all $(wc -l <got) results as tests/linuxperf/perf-test.expected says"
else
  echo "FAIL linux_perf_test/results: $(grep -c '^[<>]' diff.out) lines differ from tests/linuxperf/perf-test.expected"
  sed 's/^/    /' diff.out | head -n 20
fi
count() { grep -c "|$1" "$2"; }
echo "PASS linux_perf_test/counts: $(count Ok got) Ok, $(count FAILED got) FAILED, $(count Skip got) Skip (expected $(count Ok want), $(count FAILED want), $(count Skip want))" |
  { if [ "$(count Ok got)" = "$(count Ok want)" ] && [ "$(count FAILED got)" = "$(count FAILED want)" ]; then cat; else sed 's/^PASS/FAIL/'; fi; }
