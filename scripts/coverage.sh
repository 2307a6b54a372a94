#!/usr/bin/env bash
# Line and branch coverage of the library, the ebb program and the bindings
# over the whole test suite but the Python tests (their interpreter is not
# instrumented): a Debug build with --coverage in build/coverage, then gcovr
# (Debian: gcovr) with tests/, benchmarks/ and examples/ left out.
#
#   scripts/coverage.sh            summary (lines, functions, branches)
#   scripts/coverage.sh --html D   also an HTML report in D/index.html
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/coverage
html=""
if [ "${1:-}" = "--html" ]; then html=${2:?--html needs a folder}; fi
command -v gcovr >/dev/null || { echo "coverage: install gcovr (apt-get install gcovr)" >&2; exit 2; }

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS=--coverage -DCMAKE_CXX_FLAGS=--coverage \
  -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
find "$build" -name '*.gcda' -delete
(cd "$build" && ctest -j "$(nproc)" -LE python --output-on-failure) || true

args=(--root "$root" --object-directory "$build"
      --exclude "$root/tests/" --exclude "$root/benchmarks/" --exclude "$root/examples/"
      --exclude "$root/build/" --exclude '.*CompilerId.*' --gcov-ignore-parse-errors
      --print-summary)
if [ -n "$html" ]; then
  mkdir -p "$html"
  gcovr "${args[@]}" --html-details "$html/index.html"
else
  gcovr "${args[@]}" -o "$build/coverage.txt" # (never -o /dev/null: gcovr replaced it with a file)
fi
