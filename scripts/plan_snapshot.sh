#!/usr/bin/env bash
# Writes what `ebb plan` says over a fixed set of problems into DIR, one file
# per problem: every strategy's action stream (n 1 .. 1000, memory and disk
# slots, costs given) and the planner's predictions (host, gpu and
# compressed-disk problems, every strategy and auto). Two builds that plan
# alike give identical files but for the timing lines; compare them with
#   scripts/plan_snapshot.sh --compare DIR_A DIR_B
# A refactor that must not change behaviour is checked this way.
#   scripts/plan_snapshot.sh EBB DIR      (EBB: build/release/tools/ebb)
set -euo pipefail
if [[ ${1:-} == --compare ]]; then
  a=$2 b=$3 n=0 all=0
  strip() { sed -E 's/\([0-9.]+ s to generate.*\)//' "$1"; }
  for f in "$a"/*; do
    all=$((all + 1))
    if ! cmp -s <(strip "$f") <(strip "$b/$(basename "$f")"); then
      echo "differs: $(basename "$f")"; n=$((n + 1))
    fi
  done
  [[ $(ls "$a" | wc -l) == $(ls "$b" | wc -l) ]] || { echo "different file counts"; n=$((n + 1)); }
  echo "$n of $all files differ"
  exit $((n > 0))
fi
[[ $# == 2 ]] || { echo "usage: $0 EBB DIR | $0 --compare DIR_A DIR_B" >&2; exit 2; }
E=$1 O=$2
mkdir -p "$O"
for s in store-all periodic revolve online multistage disk-revolve h-revolve; do
  for n in 1 2 3 7 33 200 1000; do
    for c in 1 2 3 5 12; do
      for d in 0 1 4; do
        f=$O/a_${s}_${n}_${c}_${d}.txt
        rc=0
        "$E" plan --strategy $s --steps $n --slots $c --disk-slots $d --actions --reverse-cost 2 \
          --write-cost 3 --read-cost 2 > "$f" 2>&1 || rc=$?
        echo "rc=$rc" >> "$f"
      done
    done
  done
done
for n in 10 100 1000; do
  for sz in 4KiB 1MiB 64MiB; do
    for fw in 0.1 1 10; do
      for hc in 2 8 64; do
        common=(--steps $n --state-size $sz --forward-ms $fw --reverse-ms 2 --slots $hc
                --disk-slots 50 --disk-bandwidth "1 GB/s" --json)
        rc=0; "$E" plan "${common[@]}" --step-slowdown 0 --strategy all \
          > "$O/p_${n}_${sz}_${fw}_${hc}.json" 2>&1 || rc=$?
        echo "rc=$rc" >> "$O/p_${n}_${sz}_${fw}_${hc}.json"
        rc=0; "$E" plan "${common[@]}" --state-tier gpu --gpu-slots 3 --pcie-bandwidth "20 GB/s" \
          --step-slowdown 0 --strategy all > "$O/g_${n}_${sz}_${fw}_${hc}.json" 2>&1 || rc=$?
        echo "rc=$rc" >> "$O/g_${n}_${sz}_${fw}_${hc}.json"
        rc=0; "$E" plan "${common[@]}" --step-slowdown 0.2 --compression-ratio 2 \
          --compress-rate "1 GB/s" --strategy auto > "$O/c_${n}_${sz}_${fw}_${hc}.json" 2>&1 || rc=$?
        echo "rc=$rc" >> "$O/c_${n}_${sz}_${fw}_${hc}.json"
      done
    done
  done
done
echo "$(ls "$O" | wc -l) files in $O"
