#!/usr/bin/env bash
# Runs one fuzz target (fuzz/, built by the fuzz preset) for a bounded time:
# its seeds (fuzz/corpus/<name>, only read) replayed, then fuzzing, new
# inputs kept in a working corpus (WORK/corpus/<name>; a temporary folder
# when --work is not given), a finding written to WORK/artifacts/.
#
#   scripts/fuzz.sh [--seconds S] [--work DIR] [--quiet] TARGET SEEDS
#
# Prints one line: "fuzz NAME: S s, N executions, no finding" (exit 0), or
# the finding's report and where its input is (exit 1). --quiet keeps
# libFuzzer's progress lines out of the output.
set -euo pipefail

seconds=60 work="" quiet=0
while [ $# -gt 2 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    *) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ $# -eq 2 ] || { echo "usage: fuzz.sh [--seconds S] [--work DIR] [--quiet] TARGET SEEDS" >&2; exit 2; }
target=$1 seeds=$2
name=$(basename "$target"); name=${name#fuzz_}
[ -x "$target" ] || { echo "fuzz.sh: no program '$target' (build the fuzz preset)" >&2; exit 2; }
[ -d "$seeds" ] || { echo "fuzz.sh: no seed folder '$seeds'" >&2; exit 2; }

tmp=""
if [ -z "$work" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  work=$tmp
fi
mkdir -p "$work/corpus/$name" "$work/artifacts"
work=$(cd "$work" && pwd) target=$(cd "$(dirname "$target")" && pwd)/$(basename "$target")
seeds=$(cd "$seeds" && pwd)
log=$work/$name.log

# Run in the work folder: a configuration's relative disk paths and the
# like land there. ASan and UBSan stop at the first report.
status=0 start=$(date +%s)
(cd "$work" && ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
   UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
   "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
   -print_final_stats=1 -artifact_prefix="$work/artifacts/$name-" \
   "$work/corpus/$name" "$seeds") >"$log" 2>&1 || status=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
secs=$(( $(date +%s) - start ))
if [ "$status" -ne 0 ]; then
  cat "$log"
  echo "fuzz $name: FINDING after ${execs:-?} executions (exit $status); input in $work/artifacts/" >&2
  [ -n "$tmp" ] && cp -r "$work/artifacts" "./fuzz-artifacts-$name" 2>/dev/null &&
    echo "fuzz $name: copied to ./fuzz-artifacts-$name" >&2
  exit 1
fi
[ "$quiet" -eq 1 ] || grep -v '^#[0-9]*[[:space:]]*\(NEW\|REDUCE\|pulse\)' "$log" || true
echo "fuzz $name: $secs s, ${execs:-?} executions, no finding"
