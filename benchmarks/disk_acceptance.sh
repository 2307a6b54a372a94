#!/bin/sh
# The disk tier's acceptance: ebb's disk tier (io_uring and thread backends)
# against the plain io_uring O_DIRECT loop, 256 MiB states, 8 MiB blocks,
# depth 16, 8 GiB per pass, each command RUNS times (default 3); prints every
# run's JSON and the medians. Usage:
#   benchmarks/disk_acceptance.sh BUILD_DIR [DIR] [RUNS]
# DIR is the directory to test (default $TMPDIR or /tmp); a config file
# pointing tier.disk.path at it is written to a temporary file.
# Each command starts after a 5 s pause: a file that an exiting io_uring
# process had registered is deleted by the kernel after the process is gone
# (asynchronous ring teardown), and deleting 8 GiB with online discard slows
# the next command's writes by ~20 % (see RESULTS.md).
set -eu
build=${1:?usage: disk_acceptance.sh BUILD_DIR [DIR] [RUNS]}
dir=${2:-${TMPDIR:-/tmp}}
runs=${3:-3}
ebb="$build/tools/ebb"
base="$build/benchmarks/uring_baseline"
cfg=$(mktemp /tmp/ebb-bench-XXXXXX.toml)
log=$(mktemp /tmp/ebb-bench-XXXXXX.jsonl)
trap 'rm -f "$cfg" "$log"' EXIT
printf '[tier.disk]\npath = "%s"\n' "$dir" > "$cfg"
common="--config $cfg --tier disk --size 256MiB --block 8MiB --depth 16"
i=1
while [ "$i" -le "$runs" ]; do
    for backend in auto threads; do
        sleep 5
        printf '{"run": %d, "cmd": "ebb bench %s --backend %s --baseline --json", "result": ' \
            "$i" "--tier disk --size 256MiB --block 8MiB --depth 16" "$backend" >> "$log"
        "$ebb" bench $common --backend "$backend" --baseline --json | tr -d '\n' >> "$log"
        printf '}\n' >> "$log"
    done
    sleep 5
    printf '{"run": %d, "cmd": "uring_baseline --dir %s --bytes 8G --block 8M --depth 16 --json", "result": ' \
        "$i" "$dir" >> "$log"
    "$base" --dir "$dir" --bytes 8G --block 8M --depth 16 --json | tr -d '\n' >> "$log"
    printf '}\n' >> "$log"
    i=$((i + 1))
done
cat "$log"
python3 - "$log" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(xs): return statistics.median(xs)
series = {}
for r in rows:
    res, cmd = r["result"], r["cmd"]
    if cmd.startswith("uring_baseline"):
        series.setdefault("standalone uring_baseline", []).append((res["write_GBps"], res["read_GBps"]))
        continue
    d, b = res["tiers"]["disk"], res["baseline"]
    series.setdefault("baseline (in ebb bench --baseline)", []).append((b["write_GBps"], b["read_GBps"]))
    series.setdefault("ebb disk tier, backend " + d["backend"], []).append((d["write_GBps"], d["read_GBps"]))
    series.setdefault("ratio ebb/baseline, backend " + d["backend"], []).append(
        (d["write_GBps"] / b["write_GBps"], d["read_GBps"] / b["read_GBps"]))
print("\nmedians of %d runs (GB/s = 1e9 B/s):" % len([r for r in rows if r["cmd"].startswith("uring")]))
for k, v in series.items():
    w = [x[0] for x in v]; rd = [x[1] for x in v]
    print("  %-45s write %.3f  read %.3f   (runs: write %s; read %s)" % (
        k, med(w), med(rd), " ".join("%.3f" % x for x in w), " ".join("%.3f" % x for x in rd)))
PY
