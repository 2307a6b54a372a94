#!/usr/bin/env bash
# Everything that needs a GPU, in one command, for a machine with an NVIDIA
# GPU and the CUDA toolkit (the H100/H200 machine; it may have no network):
#
#   scripts/gpu-check.sh [OUT] [RUNS]
#
# 1. dependencies: if pkg-config does not find them and .deps/debs exists
#    (scripts/offline-deps.sh download, run where apt works, then carried
#    over), unpacks them into .deps/prefix;
# 2. builds Release with the CUDA toolkit required (build-gpu/);
# 3. runs the whole test suite but the slow label (the gpu tests run here
#    instead of skipping);
# 4. the GPU tiers' acceptance, RUNS times (default 3): benchmarks/
#    cuda_baseline, then `ebb bench --tier gpu --baseline --json` (ebb's gpu
#    tier and the plain pinned cudaMemcpyAsync loop in the same process), and
#    once `ebb bench --tier all --step-ms 50`; prints the medians and whether
#    d2h and h2d reach 90 % of the baseline;
# 5. benchmarks/gpu_async: the asynchronous strategy with a GPU state and a
#    GPU budget of 5 % of the states: exact, overhead <= 1.10;
#    5b. gpu_async again, RUNS times each: with 1,000 host slots (<= 1.05 and
#    within 5 % of the planner) and the default (device times spread <= 2 %);
# 6. benchmarks/gpu_chain: gpu <-> disk through a host slot, two steps
#    against one pipelined ebb_move_via: latencies, exact;
# 7. the reverse sweep's host -> gpu restores against the loop's h2d
#    (the read-ahead up the hierarchy): >= 90 %.
# 8. ebb.torch on the GPU: an LSTMCell(512), batch 32, at
#    T = 10,000 with a CUDA state (benchmarks/python/lstm_cuda.py): device
#    memory (torch's allocator peak and ebb's slots) and time per step
#    against plain autograd and torch.utils.checkpoint (sqrt(T) segments and
#    one per step), ebb revolve with chunks of 1 and 16 steps, and ebb's
#    offload to pinned host memory (every state, async over 2 GPU slots),
#    and how far the gradients are from autograd's; printed, no target
#    (needs python3 with torch built for CUDA).
# 9. ebb.torch.sequential on the GPU: ResNet-50's 18 blocks (128 x 128,
#    batch 32; benchmarks/python/resnet_blocks.py --device cuda): device
#    memory and time against autograd, at a quarter of the inputs and
#    tapes on the device alone and with offload to host memory; gradients'
#    digests (equal: bitwise); printed, no target.
# 10. benchmarks/gpu_measured: measure_costs with a GPU state, 240 steps of
#    16 MiB device copies (one in six 16 copies): ebb's step times, taken
#    on the device, against the plain loop's own events (ratios), the
#    host's view, and the device time online recomputes measuring and not;
#    target: gradients bitwise store-all's.
#
# Every log and JSON goes to OUT (default build-gpu/out). Exit status 0 only
# when the build, the tests and the 90 % target all pass.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-gpu/out}
runs=${2:-3}
build=$root/build-gpu
mkdir -p "$out"
cd "$root"
say() { echo "gpu-check: $*" | tee -a "$out/summary.txt" >&2; }
: > "$out/summary.txt"

deps=(liburing hwloc libxxhash tomlplusplus jansson blosc criterion)
if ! "${PKG_CONFIG:-pkg-config}" --exists "${deps[@]}" 2>/dev/null; then
  if [ ! -d .deps/debs ]; then
    say "missing build dependencies (${deps[*]}) and no .deps/debs to unpack:"
    say "install them (make deps) or run 'scripts/offline-deps.sh download' where apt works and bring .deps/ along"
    exit 1
  fi
  scripts/offline-deps.sh extract 2>&1 | tee "$out/deps.log" >&2
  # shellcheck disable=SC1091
  . .deps/env.sh
fi

{ nvidia-smi; nvidia-smi topo -m; } > "$out/nvidia-smi.txt" 2>&1 || say "nvidia-smi failed (see nvidia-smi.txt)"
{ uname -a; nproc; free -g; df -h "$root"; } > "$out/machine.txt" 2>&1

say "configure + build (Release, CUDA required) in $build"
# The Python tests run with the python3 that has torch (on the GPU machine, a
# venv's, not /usr/bin's), so test_cuda_gradients meets a CUDA device.
pyargs=()
py=$(command -v python3 || true)
if [ -n "$py" ] && "$py" -c 'import torch, pytest' 2>/dev/null; then
  pyargs=(-DEBB_PYTHON3="$py")
  say "python tests with $py (torch $("$py" -c 'import torch; print(torch.__version__, "cuda", torch.cuda.is_available())'))"
fi
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DEBB_WITH_CUDA=ON "${pyargs[@]}" > "$out/configure.log" 2>&1 ||
   ! cmake --build "$build" -j"$(nproc)" > "$out/build.log" 2>&1; then
  say "build FAILED (configure.log, build.log):"
  tail -20 "$out/build.log" "$out/configure.log" >&2
  exit 1
fi

status=0
say "tests (ctest -LE slow -j$(nproc))"
if ctest --test-dir "$build" -LE slow -j"$(nproc)" --timeout 300 --output-on-failure > "$out/ctest.log" 2>&1; then
  say "tests: $(grep -E 'tests passed' "$out/ctest.log")"
else
  say "tests FAILED: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
  grep -E '^\s+[0-9]+ - ' "$out/ctest.log" >&2 || true
  status=1
fi
# Which tests skipped (on a GPU machine, none of the gpu ones should)?
for t in "$build"/tests/test_storage_* "$build"/tests/test_bench_*; do
  "$t" --verbose --jobs 1 2>&1 | grep -E 'SKIP' | sed "s|^|$(basename "$t"): |"
done > "$out/skipped-tests.txt"
say "skipped tests: $(wc -l < "$out/skipped-tests.txt") (skipped-tests.txt)"

ebb=$build/tools/ebb
: > "$out/gpu_acceptance.jsonl"
for i in $(seq 1 "$runs"); do
  say "acceptance run $i of $runs"
  "$build/benchmarks/cuda_baseline" --size 256M --total 16G --json > "$out/cuda_baseline.$i.json" 2>> "$out/bench.err" ||
    { say "cuda_baseline FAILED: $(tail -1 "$out/bench.err")"; status=1; break; }
  "$ebb" bench --tier gpu --size 256MiB --baseline --json > "$out/bench_gpu.$i.json" 2>> "$out/bench.err" ||
    { say "ebb bench --tier gpu FAILED: $(tail -1 "$out/bench.err")"; status=1; break; }
  printf '{"run": %d, "cuda_baseline": %s, "ebb_bench": %s}\n' "$i" \
    "$(tr -d '\n' < "$out/cuda_baseline.$i.json")" "$(tr -d '\n' < "$out/bench_gpu.$i.json")" \
    >> "$out/gpu_acceptance.jsonl"
done
"$ebb" bench --tier all --size 256MiB --step-ms 50 > "$out/bench_all.txt" 2>> "$out/bench.err" ||
  say "ebb bench --tier all FAILED: $(tail -1 "$out/bench.err")"

if [ -s "$out/gpu_acceptance.jsonl" ]; then
  python3 - "$out/gpu_acceptance.jsonl" <<'PY' | tee -a "$out/summary.txt" >&2 || status=1
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = statistics.median
keys = ("d2h", "h2d", "both")
base = {k: med(r["cuda_baseline"][k + "_GBps"] for r in rows) for k in keys}
inproc = {k: med(r["ebb_bench"]["gpu_baseline"][k + "_GBps"] for r in rows) for k in keys}
tier = {k: med(r["ebb_bench"]["tiers"]["gpu"][k + "_GBps"] for r in rows) for k in keys}
ratio = {k: med(r["ebb_bench"]["gpu_baseline"][k + "_ratio"] for r in rows) for k in keys}
print("device: %s; medians of %d runs, GB/s = 1e9 B/s" % (rows[0]["cuda_baseline"]["device"], len(rows)))
print("  %-44s %8s %8s %8s" % ("", "d2h", "h2d", "both"))
print("  %-44s %8.2f %8.2f %8.2f" % ("cuda_baseline (standalone)", *[base[k] for k in keys]))
print("  %-44s %8.2f %8.2f %8.2f" % ("cudaMemcpyAsync loop inside ebb bench", *[inproc[k] for k in keys]))
print("  %-44s %8.2f %8.2f %8.2f" % ("ebb gpu tier (ebb_move gpu <-> pinned host)", *[tier[k] for k in keys]))
print("  %-44s %7.1f%% %7.1f%% %7.1f%%" % ("ebb / loop in the same run", *[100 * ratio[k] for k in keys]))
ok = ratio["d2h"] >= 0.9 and ratio["h2d"] >= 0.9
print("target (d2h and h2d >= 90%% of pinned cudaMemcpyAsync): %s" % ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
fi
# 5. The asynchronous strategy end to end with a GPU state: GPU
#    slots for 5 % of the states, pinned host and disk below; target: the
#    gradient equals store-all's and the overhead is <= 1.10.
say "gpu_async: 1000 steps of 16 MiB, GPU budget 5 % of the states"
if "$build/benchmarks/gpu_async" --disk "$out" --json > "$out/gpu_async.json" 2>> "$out/bench.err"; then
  say "gpu_async PASS: $(cat "$out/gpu_async.json")"
else
  say "gpu_async FAIL: $(cat "$out/gpu_async.json" 2>/dev/null) $(tail -1 "$out/bench.err")"
  status=1
fi
# 5b. async follows the device, RUNS times each: 1,000 host slots and steps
#    of 80 / 160 device copies (every state fits the host: the planner
#    stores all and recomputes nothing): device time <= 1.05 x the plain
#    loop's, and time and host stores within 5 % of the planner's
#    prediction (made from the step times and copy rates measured in the
#    same process); the default scenario: device times spread <= 2 %.
say "gpu_async_follows: $runs runs of each scenario"
for i in $(seq 1 "$runs"); do
  "$build/benchmarks/gpu_async" --disk "$out" --host-slots 1000 --forward-copies 80 \
    --reverse-copies 160 --json > "$out/gpu_async_1000.$i.json" 2>> "$out/bench.err"
  "$build/benchmarks/gpu_async" --disk "$out" --json > "$out/gpu_async_default.$i.json" 2>> "$out/bench.err"
done
python3 - "$out" "$runs" <<'PY' | tee -a "$out/summary.txt" >&2 || status=1
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
def load(name):
    rows = []
    for i in range(1, runs + 1):
        try:
            rows.append(json.load(open("%s/%s.%d.json" % (out, name, i))))
        except (OSError, ValueError):
            print("gpu_async_follows: %s run %d gave no figures (bench.err)" % (name, i))
    return rows
ok = True
for r in load("gpu_async_1000"):
    near_t = abs(r["device_wall_s"] - r["predicted_s"]) <= 0.05 * r["predicted_s"]
    near_s = abs(r["host_stores"] - r["predicted_host_stores"]) <= 0.05 * max(1, r["predicted_host_stores"])
    good = r["gradient_exact"] and r["device_overhead"] <= 1.05 and near_t and near_s
    ok &= good
    print("gpu_async 1000 host slots: device %.4f s (x%.3f of the loop), planner %.4f s; host stores %d, planner %d; recomputed %d, planner %d; exact %s: %s"
          % (r["device_wall_s"], r["device_overhead"], r["predicted_s"], r["host_stores"],
             r["predicted_host_stores"], r["recomputed"], r["predicted_recomputed"],
             r["gradient_exact"], "PASS" if good else "FAIL"))
d = load("gpu_async_default")
if d:
    w = [r["device_wall_s"] for r in d]
    spread = (max(w) - min(w)) / statistics.median(w)
    good = spread <= 0.02 and all(r["gradient_exact"] for r in d)
    ok &= good
    print("gpu_async default: device %s s (x%s), spread %.1f %%, planner %.4f s: %s"
          % (", ".join("%.4f" % x for x in w), ", ".join("%.3f" % r["device_overhead"] for r in d),
             100 * spread, d[0]["predicted_s"], "PASS" if good else "FAIL"))
else:
    ok = False
sys.exit(0 if ok else 1)
PY
# 6. Chained moves: a 256 MiB state gpu -> disk and back through
#    a host slot, two steps against ebb_move_via (pipelined by 8 MiB disk
#    blocks); the chained move should take about the slower channel's time.
say "gpu_chain: 256 MiB states, 9 rounds, disk in $out"
if "$build/benchmarks/gpu_chain" --disk "$out" --json > "$out/gpu_chain.json" 2>> "$out/bench.err"; then
  say "gpu_chain: $(cat "$out/gpu_chain.json")"
else
  say "gpu_chain FAIL: $(cat "$out/gpu_chain.json" 2>/dev/null) $(tail -1 "$out/bench.err")"
  status=1
fi
# 7. The read-ahead up the hierarchy: a gpu state whose states all
#    sit in host slots (multistage, 2 gpu slots), steps of one device copy:
#    the reverse sweep is the host -> gpu restores back to back; its rate
#    against the plain loop's h2d (cuda_baseline above): target >= 90 %.
say "gpu_h2d_reverse: 1000 states of 16 MiB restored host -> gpu"
if "$build/benchmarks/gpu_async" --disk "$out" --strategy multistage --gpu-fraction 0.002 \
     --host-slots 1000 --forward-copies 1 --reverse-copies 1 --json > "$out/gpu_h2d_reverse.json" 2>> "$out/bench.err" ||
   grep -q '"gradient_exact": true' "$out/gpu_h2d_reverse.json"; then
  python3 - "$out/gpu_h2d_reverse.json" "$out"/cuda_baseline.*.json <<'PY' | tee -a "$out/summary.txt" >&2 || status=1
import json, statistics, sys
r = json.load(open(sys.argv[1]))
h2d = statistics.median(json.load(open(f))["h2d_GBps"] for f in sys.argv[2:]) if sys.argv[2:] else float("nan")
rate = r["bytes_host"] / r["reverse_s"] / 1e9
ok = r["gradient_exact"] and rate >= 0.9 * h2d
print("gpu_h2d_reverse: reverse sweep %.2f GB/s (%d bytes in %.4f s) against the loop's h2d %.2f GB/s: %.1f%%, exact %s: %s"
      % (rate, r["bytes_host"], r["reverse_s"], h2d, 100 * rate / h2d, r["gradient_exact"], "PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
PY
else
  say "gpu_h2d_reverse FAIL: $(tail -1 "$out/bench.err")"
  status=1
fi
# 8. ebb.torch with a CUDA state: the LSTM at T = 10,000 against
#    autograd and checkpoint, each in its own process.
if [ -n "$py" ] && "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  say "torch_lstm_cuda: LSTMCell(512) batch 32, T = 10000, autograd / checkpoint / ebb revolve (100 GPU slots, chunks 1 and 16) / ebb offload"
  if PYTHONPATH="$root/bindings/python" EBB_LIBRARY="$build/libebb.so" \
       "$py" benchmarks/python/lstm_cuda.py --steps 10000 --json \
       --methods autograd,checkpoint,checkpoint-each,ebb-revolve,ebb-revolve@16,ebb-offload \
       > "$out/torch_lstm_cuda.txt" 2>> "$out/bench.err"; then
    grep -v '^{' "$out/torch_lstm_cuda.txt" | tee -a "$out/summary.txt" >&2
  else
    say "torch_lstm_cuda FAIL: $(grep -v '^{' "$out/torch_lstm_cuda.txt" | tail -4) $(tail -1 "$out/bench.err")"
    status=1
  fi
else
  say "torch_lstm_cuda: skipped, no python3 with torch and a CUDA device (${py:-none})"
fi
# 9. ebb.torch.sequential with a CUDA stack, on the device and offloading.
if [ -n "$py" ] && "$py" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  say "torch_resnet_cuda: ResNet-50's 18 blocks, 128 x 128, batch 32: autograd / ebbt:0.25 / ebbo:0.25 / ebbo:0.1"
  if PYTHONPATH="$root/bindings/python" EBB_LIBRARY="$build/libebb.so" \
       "$py" benchmarks/python/resnet_blocks.py --device cuda --image 128 --batch 32 \
       --steps 3 --methods autograd,ebbt:0.25,ebbo:0.25,ebbo:0.1 \
       > "$out/torch_resnet_cuda.txt" 2>> "$out/bench.err"; then
    tee -a "$out/summary.txt" < "$out/torch_resnet_cuda.txt" >&2
  else
    say "torch_resnet_cuda FAIL: $(tail -4 "$out/torch_resnet_cuda.txt") $(tail -1 "$out/bench.err")"
    status=1
  fi
else
  say "torch_resnet_cuda: skipped, no python3 with torch and a CUDA device (${py:-none})"
fi
# 10. A GPU state's step times, measured on the device.
say "gpu_measured: 240 steps of 16 MiB, one in six 16 copies, 3 GPU slots"
if "$build/benchmarks/gpu_measured" > "$out/gpu_measured.txt" 2>> "$out/bench.err"; then
  tee -a "$out/summary.txt" < "$out/gpu_measured.txt" >&2
else
  say "gpu_measured FAIL: $(cat "$out/gpu_measured.txt" 2>/dev/null) $(tail -1 "$out/bench.err")"
  status=1
fi
say "outputs in $out; exit $status"
exit $status
