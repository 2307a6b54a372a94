#!/bin/sh
# bench/pipeline_quick: benchmarks/pipeline --quick (all three parts, shrunk)
# in a fresh directory. It must exit 0, say that every run was exact, and
# leave no file behind. Exit SKIP_CODE when the program says io_uring is
# refused here (it exits 77 then).
#   pipeline_quick.sh PIPELINE SKIP_CODE
pipeline=$1
skip=$2
base=${TMPDIR:-/tmp}
case $base in /*) ;; *) base=/tmp ;; esac
dir=$(mktemp -d "$base/ebb-pipeline-XXXXXX") || exit 1
out=$("$pipeline" --quick --dir "$dir" 2>&1)
rc=$?
printf '%s\n' "$out"
left=$(ls -A "$dir")
rm -rf "$dir"
if [ "$rc" -eq "$skip" ]; then
    echo "SKIP: pipeline exited $rc (io_uring refused here)"
    exit "$skip"
fi
if [ "$rc" -ne 0 ]; then
    echo "FAIL: pipeline --quick exited $rc"
    exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^all runs exact: yes$'; then
    echo "FAIL: pipeline --quick did not say 'all runs exact: yes'"
    exit 1
fi
if [ -n "$left" ]; then
    echo "FAIL: files left in $dir: $left"
    exit 1
fi
echo "ok"
