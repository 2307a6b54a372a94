#!/usr/bin/env python3
"""Overhead against the compute/transfer ratio, measured and predicted.

The disk tier is paced (tier.disk.max_bandwidth) so that writing one state
takes W; the forward step is ratio x W and the reverse step twice that. For
each ratio every strategy runs (`ebb run --strategy all --json`) and the
planner predicts it from the step times that run measured (`ebb plan
--strategy S --json`, disk figures measured once by `ebb bench`). Writes a table (stdout), a data file and, with gnuplot
(Debian: gnuplot-nox), an SVG: measured overhead as points, the planner's
prediction as lines.

Usage: benchmarks/async_sweep.py [--ebb build/release/tools/ebb]
       [--ratios 0.25,0.5,1,2,4,8] [--steps 200] [--state-size 4MiB]
       [--pace "1 GB/s"] [--out benchmarks/async_sweep]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

STRATEGIES = ["store-all", "revolve", "multistage", "disk-revolve", "async"]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    return p.stdout


def size_bytes(s):
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    for u, m in units.items():
        if s.endswith(u):
            return int(float(s[: -len(u)]) * m)
    return int(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ebb", default="build/release/tools/ebb")
    ap.add_argument("--ratios", default="0.25,0.5,1,2,4,8")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--state-size", default="4MiB")
    ap.add_argument("--host-states", type=int, default=4)
    ap.add_argument("--pace", default="1 GB/s")
    ap.add_argument("--out", default="benchmarks/async_sweep")
    a = ap.parse_args()
    size = size_bytes(a.state_size)
    tmp = tempfile.TemporaryDirectory()
    disk = os.path.join(tmp.name, "disk")
    os.makedirs(disk)
    cfg = os.path.join(tmp.name, "sweep.toml")
    with open(cfg, "w") as f:
        f.write(f'[tier.host]\nbudget = {a.host_states * size}\n[tier.disk]\npath = "{disk}"\n'
                f'budget = "16 GiB"\nmax_bandwidth = "{a.pace}"\n')
    bench = os.path.join(tmp.name, "bench.json")
    out = run([a.ebb, "bench", "--config", cfg, "--tier", "disk", "--size", str(size),
               "--total", "512MiB", "--json"])
    with open(bench, "w") as f:
        f.write(out)
    w = size / (json.loads(out)["tiers"]["disk"]["write_GBps"] * 1e9)
    print(f"state {size} bytes, disk paced to {a.pace}: one state written in {w * 1e3:.2f} ms; "
          f"n = {a.steps}, host budget {a.host_states} states")
    print(f"{'ratio':>6} {'strategy':13} {'measured':>9} {'predicted':>9}")
    rows = []
    for ratio in [float(x) for x in a.ratios.split(",")]:
        f_ms = ratio * w * 1e3
        common = ["--steps", str(a.steps), "--state-size", str(size), "--config", cfg, "--json"]
        for s in STRATEGIES:
            r = json.loads(run([a.ebb, "run", "--strategy", s, "--forward-ms", f"{f_ms:.3f}",
                                "--reverse-ms", f"{2 * f_ms:.3f}"] + common))
            r = r["runs"][0] if "runs" in r else r
            if "skipped" in r:
                continue
            # predicted from the step times this run measured
            f = r["forward_callback_s"] / r["forward_steps"]
            b = r["reverse_callback_s"] / r["reverse_steps"]
            p = json.loads(run([a.ebb, "plan", "--strategy", s, "--bench", bench,
                                "--forward-ms", f"{f * 1e3:.4f}", "--reverse-ms",
                                f"{b * 1e3:.4f}"] + common))
            p = p["plans"][0] if "plans" in p else p
            pred = p["predicted_s"] / r["ideal_s"] if p.get("predicted_s") else float("nan")
            rows.append((ratio, s, r["overhead"], pred))
            print(f"{ratio:6.2f} {s:13} {r['overhead']:9.3f} {pred:9.3f}", flush=True)
    data = a.out + ".dat"
    with open(data, "w") as f:
        f.write("# ratio strategy measured_overhead predicted_overhead\n")
        for s in STRATEGIES:
            f.write(f"# {s}\n")
            for ratio, name, m, p in rows:
                if name == s:
                    f.write(f"{ratio} {name} {m:.4f} {p:.4f}\n")
            f.write("\n\n")
    print(f"data: {data}")
    if not shutil.which("gnuplot"):
        print("gnuplot not found (Debian: gnuplot-nox): no SVG")
        return 0
    svg = a.out + ".svg"
    plot = [f"set terminal svg size 760,480 dynamic font 'sans,12'", f"set output '{svg}'",
            "set logscale x 2", "set xlabel 'compute / transfer (forward step / time to write a state)'",
            "set ylabel 'overhead (wall / ideal)'", "set key top right", "set grid",
            f"set title 'ebb: {a.steps} steps, {size >> 20} MiB states, host {a.host_states} states, "
            f"disk paced to {a.pace} (points measured, lines predicted)'"]
    parts = []
    for i, s in enumerate(STRATEGIES):
        parts.append(f"'{data}' index {i} using 1:4 with lines lc {i + 1} title '{s} (planner)'")
        parts.append(f"'{data}' index {i} using 1:3 with points pt 7 lc {i + 1} notitle")
    plot.append("plot " + ", ".join(parts))
    subprocess.run(["gnuplot"], input="\n".join(plot), text=True, check=True)
    print(f"svg: {svg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
