#!/usr/bin/env python3
"""The planner's accuracy as a user sees it: `ebb plan` given the step times
alone (--forward-ms, --reverse-ms, the disk measured on the spot as auto
measures it) against `ebb run` with the same numbers on the same machine.

The async scenarios' machine (benchmarks/async_scenarios.py): 16 MiB host
states, a host budget of 4 states, the disk as the slow tier, a reverse
step twice a forward step.

  fast   the disk unpaced, forward step = 2 x the time to write one state
  slow   the disk paced to 1 GB/s, forward step = 1/3 of a write at that pace

For each scenario every strategy runs once (`ebb run --strategy all`) and
is predicted twice: with the step slowdown the planner measures beside the
disk (`step_slowdown` in its JSON), and without it (--step-slowdown 0),
which is the planner before it modelled the slowdown. Prints each error
and the worst; exits 1 when a modelled prediction misses by more than
--limit (default 15%).

Usage: benchmarks/planner_accuracy.py [--ebb build/release/tools/ebb]
       [--dir DIR] [--scenario fast|slow|both] [--steps-scale X] [--limit 0.15]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from async_scenarios import STATE, config, run  # noqa: E402  (the same machine and helpers)


def write_time(ebb, cfg):
    out = run([ebb, "bench", "--config", cfg, "--tier", "disk", "--size", str(STATE),
               "--total", "1GiB", "--json"])
    return STATE / (json.loads(out)["tiers"]["disk"]["write_GBps"] * 1e9)


def scenario(ebb, name, cfg, steps, f_ms):
    common = ["--steps", str(steps), "--state-size", str(STATE), "--config", cfg,
              "--forward-ms", f"{f_ms:.3f}", "--reverse-ms", f"{2 * f_ms:.3f}", "--json"]
    runs = json.loads(run([ebb, "run", "--strategy", "all"] + common))["runs"]
    modelled = json.loads(run([ebb, "plan", "--strategy", "all"] + common))
    plain = json.loads(run([ebb, "plan", "--strategy", "all", "--step-slowdown", "0"] + common))
    k = modelled.get("step_slowdown", 0.0)
    print(f"\n== {name}: n = {steps}, forward {f_ms:.2f} ms, reverse {2 * f_ms:.2f} ms; "
          f"step slowdown measured {k:.3f}")
    print(f"{'strategy':14} {'wall s':>8} {'planned':>8} {'error':>7} {'unmodelled':>10} {'error':>7}")
    pred = {p["strategy"]: p for p in modelled["plans"]}
    pred0 = {p["strategy"]: p for p in plain["plans"]}
    worst, worst0 = 0.0, 0.0
    for r in runs:
        name_r = r.get("asked", r["strategy"])
        if "skipped" in r or name_r not in pred or not pred[name_r].get("fits"):
            continue
        w, p, p0 = r["wall_s"], pred[name_r]["predicted_s"], pred0[name_r]["predicted_s"]
        e, e0 = (p - w) / w, (p0 - w) / w
        worst, worst0 = max(worst, abs(e)), max(worst0, abs(e0))
        print(f"{name_r:14} {w:8.3f} {p:8.3f} {100 * e:+6.1f}% {p0:10.3f} {100 * e0:+6.1f}%")
    print(f"worst: {100 * worst:.1f}% modelled, {100 * worst0:.1f}% without the slowdown")
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ebb", default="build/release/tools/ebb")
    ap.add_argument("--dir", default=None)
    ap.add_argument("--scenario", default="both", choices=["fast", "slow", "both"])
    ap.add_argument("--steps-scale", type=float, default=1.0)
    ap.add_argument("--limit", type=float, default=0.15)
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    disk = a.dir or os.path.join(tmp.name, "disk")
    os.makedirs(disk, exist_ok=True)
    worst = 0.0
    if a.scenario in ("fast", "both"):
        cfg = os.path.join(tmp.name, "fast.toml")
        config(cfg, disk, None)
        w = write_time(a.ebb, cfg)
        worst = max(worst, scenario(a.ebb, "fast", cfg, max(10, int(300 * a.steps_scale)),
                                    2 * w * 1e3))
    if a.scenario in ("slow", "both"):
        cfg = os.path.join(tmp.name, "slow.toml")
        config(cfg, disk, "1 GB/s")
        worst = max(worst, scenario(a.ebb, "slow", cfg, max(10, int(1000 * a.steps_scale)),
                                    STATE / 1e9 / 3 * 1e3))
    print(f"\nworst modelled error {100 * worst:.1f}% (limit {100 * a.limit:.0f}%): "
          f"{'PASS' if worst <= a.limit else 'FAIL'}")
    return 0 if worst <= a.limit else 1


if __name__ == "__main__":
    sys.exit(main())
