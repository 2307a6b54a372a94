#!/usr/bin/env python3
"""Lossless compression of states that barely compress, against off.

`ebb run --data rough` (float64 values with no relation between
neighbours: lz4 with byte shuffle shrinks them about 1.07 times), multistage
with a host budget of 4 MiB and the rest on an unpaced disk, so that every
state but four goes to disk. Per round and build: a run with
tier.disk.compression "off", then one with "lossless"; prints each build's
median walls, the median of the rounds' lossless / off ratios (the target:
at most 1.03) and each lossless run's tries, decompressions and states
stored raw. Several builds alternate in one process, so that their ratios
share the machine's state.

  barely_compressible.py --ebb build/release/tools/ebb [--ebb OTHER ...]
      [--rounds 21] [--dir /tmp/ebb-rough] [--pace "1 GB/s"] -- --strategy multistage
      --state-size 1MiB --steps 400 [--forward-ms 0.5 --reverse-ms 1]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def config(dirname, mode, pace):
    path = os.path.join(dirname, f"rough_{mode}.toml")
    with open(path, "w") as f:
        f.write(f'[tier.host]\nbudget = "4MiB"\n[tier.disk]\nbudget = "512MiB"\n'
                f'path = "{os.path.join(dirname, "disk")}"\ncompression = "{mode}"\n'
                f'element = "float64"\n')
        if pace:
            f.write(f'max_bandwidth = "{pace}"\n')
    return path


def run(ebb, cfg, args):
    p = subprocess.run([ebb, "run", "--config", cfg, "--data", "rough", "--json"] + args,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{ebb} run failed: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ebb", action="append", required=True, help="an ebb binary (repeatable)")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--dir", default="/tmp/ebb-rough", help="the configurations and the disk")
    ap.add_argument("--pace", help='tier.disk.max_bandwidth, e.g. "1 GB/s" (default: unpaced)')
    ap.add_argument("args", nargs=argparse.REMAINDER, help="-- then ebb run's arguments")
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    os.makedirs(os.path.join(a.dir, "disk"), exist_ok=True)
    off, on = config(a.dir, "off", a.pace), config(a.dir, "lossless", a.pace)
    res = {b: {"off": [], "on": [], "ratio": [], "codec": []} for b in a.ebb}
    for _ in range(a.rounds):
        for b in a.ebb:
            w_off = run(b, off, args)["wall_s"]
            d = run(b, on, args)
            r = res[b]
            r["off"].append(w_off)
            r["on"].append(d["wall_s"])
            r["ratio"].append(d["wall_s"] / w_off)
            r["codec"].append(f'{d["compressions"]["disk"]}/{d["decompressions"]["disk"]}/'
                              f'{d["stored_raw"]}')
    for b in a.ebb:
        r = res[b]
        print(f"{b}: off {statistics.median(r['off']):.4f} s, lossless "
              f"{statistics.median(r['on']):.4f} s (medians); median lossless / off "
              f"{statistics.median(r['ratio']):.3f}")
        print("  rounds " + " ".join(f"{v:.3f}" for v in r["ratio"]))
        print("  tries/decompressions/raw " + " ".join(r["codec"]))


if __name__ == "__main__":
    main()
