#!/usr/bin/env bash
# `perf test` of Linux perf 6.1 with the perf-tools series (patches/perf-tools/,
# cross-built for Alpha by tests/thirdparty/perf-series.sh), run inside the
# machine as linux_perf_test.sh runs the unchanged perf: a normal user at
# perf_event_paranoid 2 on the timed EV67. The series must leave every
# result as tests/linuxperf/perf-test.expected has it for the unchanged perf
# (better or worse fails: a test the series fixes is written into the
# file). Checks: linux_perf_series_test/{results,counts}, one FAIL line per
# test that differs. Environment: BUILD, PROFILEME, PROFILEME_CACHE.
set -u
. "$(dirname "$0")/../lib/common.bash"
. "$root/tests/lib/series.bash"
cd "$root"
G=linux_perf_series_test
expected=$root/tests/linuxperf/perf-test.expected
series_setup $G --no-checkpatch || exit 0
# (perf test writes its temporary files in the working directory and /tmp)
"${series_env[@]}" HOME="$out" timeout -k 10 1500 "$PROFILEME" run --timed -- "$AP" test >test.out 2>test.err
rc=$?
# "NUM: NAME : RESULT" lines, results as perf prints them (Skip's reason kept)
sed -n 's/^ *\([0-9][0-9.]*\): \(.*[^ ]\) *: \(Ok\|FAILED!\|Skip.*\)$/\1|\2|\3/p' test.out test.err | sed 's/ *$//' >got
grep -v '^#' "$expected" | grep -v '^$' | cut -d'|' -f1-3 >want
[ $rc -eq 0 ] || echo "FAIL $G/exit: perf test ended with status $rc: $(tail -n 2 test.err | tr '\n' ' ')"
if diff want got >diff.out; then
  echo "PASS $G/results: with the series, all $(wc -l <got) results as tests/linuxperf/perf-test.expected says"
else
  echo "FAIL $G/results: $(grep -c '^[<>]' diff.out) lines differ from tests/linuxperf/perf-test.expected"
  sed 's/^/    /' diff.out | head -n 20
fi
count() { grep -c "|$1" "$2"; }
line="$(count Ok got) Ok, $(count FAILED got) FAILED, $(count Skip got) Skip (without the series: $(count Ok want), $(count FAILED want), $(count Skip want))"
if [ "$(count Ok got)" = "$(count Ok want)" ] && [ "$(count FAILED got)" = "$(count FAILED want)" ]; then
  echo "PASS $G/counts: $line"
else
  echo "FAIL $G/counts: $line"
fi
