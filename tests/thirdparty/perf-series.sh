#!/usr/bin/env bash
# The perf-tools half of the ProfileMe series (patches/perf-tools/, `git
# format-patch` output against Linux 6.1's tools/perf) applied to Debian's
# linux-source-6.1 and built, through tests/thirdparty/perf.sh (its
# LINUXPERF_PATCHES input, which enters the cache key), twice:
#   alpha=DIR   perf for Alpha, static and dynamic (DIR/bin/perf,
#               DIR/bin/perf-dynamic), with the unpatched entry's libraries,
#               objdump and addr2line (DIR/bin/objdump), to run in the machine
#   host=DIR    perf for the host (DIR/bin/perf), to read our files
# and checks the series with the kernel tree's checkpatch.pl (kept in the
# Alpha entry): one line per patch, "checkpatch: FILE: total: N errors, N
# warnings, N lines checked".
# Prints those lines on stdout (alpha= and host= first); the builds' own
# messages go to stderr, each ending with how it came to be ("linuxperf:
# cached in DIR", "linuxperf-host: built in N s into DIR"...). Exits 1 if a
# build fails, 2 if checkpatch reports an error. Both builds are cached
# outside the clone (tests/lib/cache.bash); cold, the Alpha one takes the
# unpatched build's time (if that is not cached yet) and about 3 minutes
# more, the host one about 4 minutes on 2 cores (docs/linux-perf.md).
# Options: --no-checkpatch, --alpha-only, --host-only.
# Environment: PROFILEME_CACHE, LINUXPERF_JOBS, ALPHA_CC (as perf.sh).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
series=$root/patches/perf-tools
checkpatch=1 alpha=1 host=1
for a; do
  case $a in
    --no-checkpatch) checkpatch=0 ;;
    --alpha-only) host=0 ;;
    --host-only) alpha=0 checkpatch=0 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "perf-series: unknown option '$a' (--help)" >&2; exit 2 ;;
  esac
done
ls "$series"/0001-*.patch >/dev/null 2>&1 ||
  { echo "perf-series: no series in $series" >&2; exit 1; }

if [ $alpha = 1 ]; then
  a=$(LINUXPERF_PATCHES=$series LINUXPERF_HOST=0 bash "$root/tests/thirdparty/perf.sh") ||
    { echo "perf-series: the Alpha build failed" >&2; exit 1; }
  echo "alpha=$a"
fi
if [ $host = 1 ]; then
  h=$(LINUXPERF_PATCHES=$series LINUXPERF_HOST=1 bash "$root/tests/thirdparty/perf.sh") ||
    { echo "perf-series: the host build failed" >&2; exit 1; }
  echo "host=$h"
fi
[ $checkpatch = 1 ] || exit 0

# checkpatch.pl from the tree the series applies to, over each patch (not
# the cover letter, which is no diff), read from stdin: given a file that
# git tracks, checkpatch checks it as a source file. --no-tree: the entry
# keeps the script, not the tree. Errors fail, warnings are reported.
command -v perl >/dev/null || { echo "perf-series: perl not found" >&2; exit 1; }
errors=0
for p in "$series"/[0-9][0-9][0-9][0-9]-*.patch; do
  case ${p##*/} in 0000-*) continue ;; esac
  total=$(perl "$a/checkpatch/checkpatch.pl" --no-tree --color=never - <"$p" 2>&1 | grep -m1 '^total: ')
  echo "checkpatch: ${p##*/}: ${total:-no total line}"
  case $total in "total: 0 errors,"*) ;; *) errors=1 ;; esac
done
[ $errors = 0 ] || exit 2
