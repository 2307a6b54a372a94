#!/usr/bin/env python3
"""The asynchronous strategy's acceptance scenarios, in one process.

Host states of 16 MiB, a host budget of 4 states, the disk as the slow tier,
a reverse step twice a forward step. For each scenario every strategy runs
(`ebb run --strategy all --json`), the planner predicts each one (`ebb plan
--strategy all --json` with the disk figures measured here), and the ratios
the issue asks for are printed with PASS or FAIL:

  fast   transfer faster than compute: forward step = 2 x the time to write
         one state (measured), n = 300
  slow   transfer slower than compute: disk paced to 1 GB/s, forward step =
         1/3 of the time to write one state at that pace, n = 1000

Usage: benchmarks/async_scenarios.py [--ebb build/release/tools/ebb]
       [--dir DIR] [--scenario fast|slow|both] [--steps-scale X] [--json OUT]
"""
import argparse
import json
import os
import sys

from scenario_common import finish, run, workspace
from scenario_common import measure_write as bench_write

STATE = 16 << 20


def config(path, disk_dir, pace):
    with open(path, "w") as f:
        f.write('[tier.host]\nbudget = "64 MiB"\n[tier.disk]\n')
        f.write(f'path = "{disk_dir}"\nbudget = "24 GiB"\n')
        if pace:
            f.write(f'max_bandwidth = "{pace}"\n')


def measure_write(ebb, cfg, bench_out):
    return bench_write(ebb, cfg, STATE, bench_out)


def scenario(ebb, name, steps, forward_ms, cfg, bench):
    common = ["--steps", str(steps), "--state-size", str(STATE), "--config", cfg, "--json"]
    measured = json.loads(run([ebb, "run", "--strategy", "all", "--forward-ms",
                               f"{forward_ms:.3f}", "--reverse-ms", f"{2 * forward_ms:.3f}"] +
                              common))["runs"]
    # each run predicted from the step times it measured (a loaded machine
    # stretches the calibrated steps): the planner's part is the rest
    planned = []
    for r in measured:
        if "skipped" in r:
            continue
        f = r["forward_callback_s"] / r["forward_steps"]
        b = r["reverse_callback_s"] / r["reverse_steps"]
        p = json.loads(run([ebb, "plan", "--bench", bench, "--strategy", r["strategy"]
                            if r["asked"] == "auto" else r["asked"], "--forward-ms",
                            f"{f * 1e3:.4f}", "--reverse-ms", f"{b * 1e3:.4f}"] + common))
        p = p["plans"][0] if "plans" in p else p
        p["strategy"] = r["asked"]
        planned.append(p)
    return measured, planned


def report(name, steps, forward_ms, measured, planned, checks):
    pred = {p["strategy"]: p for p in planned}
    ran = [r for r in measured if "skipped" not in r]
    print(f"\n== scenario {name}: n = {steps}, forward {forward_ms:.2f} ms, reverse "
          f"{2 * forward_ms:.2f} ms, 16 MiB states, host budget 4 states")
    print(f"{'strategy':17} {'wall s':>8} {'overhead':>8} {'fwd/cb':>7} {'stall s':>8} "
          f"{'predicted':>9} {'error':>7}  {'F ms':>6} {'B ms':>6}  gradient")
    for r in measured:
        label = r["asked"] if r.get("asked") == r["strategy"] else f"{r.get('asked')}>{r['strategy']}"
        if "skipped" in r:
            print(f"{label:17} skipped: {r['skipped'][:80]}")
            continue
        p = pred.get(r["asked"]) or pred.get(r["strategy"])
        ps = p.get("predicted_s") if p else None
        err = f"{100 * (ps - r['wall_s']) / r['wall_s']:+6.1f}%" if ps else "     -"
        print(f"{label:17} {r['wall_s']:8.3f} {r['overhead']:8.3f} "
              f"{r['forward_sweep_over_callbacks']:7.3f} {r['stall_s']:8.3f} "
              f"{ps if ps else float('nan'):9.3f} {err}  "
              f"{1e3 * r['forward_callback_s'] / r['forward_steps']:6.2f} "
              f"{1e3 * r['reverse_callback_s'] / r['reverse_steps']:6.2f}  {r['gradient']}")
    by = {r["asked"]: r for r in ran}
    grads = {r["gradient"] for r in ran}
    checks.append((f"{name}: every gradient equal", len(grads) == 1, f"{len(grads)} distinct"))
    # Each run calibrates its own steps and the VM's speed drifts by a few
    # percent between runs, so strategies are compared by overhead (wall /
    # that run's own n (F + B)); the wall times are printed beside.
    best = min((r for r in ran if r["asked"] != "auto"), key=lambda r: r["overhead"])
    if "auto" in by:
        a = by["auto"]
        checks.append((f"{name}: auto within 5% of the fastest",
                       a["overhead"] <= 1.05 * best["overhead"],
                       f"auto ({a['strategy']}) overhead {a['overhead']:.3f}, wall {a['wall_s']:.2f} s; "
                       f"fastest {best['asked']} {best['overhead']:.3f}, wall {best['wall_s']:.2f} s"))
    worst = 0.0
    for r in ran:
        p = pred.get(r["asked"])
        if p and p.get("predicted_s"):
            worst = max(worst, abs(p["predicted_s"] - r["wall_s"]) / r["wall_s"])
    checks.append((f"{name}: every prediction within 15%", worst <= 0.15,
                   f"worst {100 * worst:.1f}%"))
    return by


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ebb", default="build/release/tools/ebb")
    ap.add_argument("--dir", default=None, help="disk tier directory (default: a temporary one)")
    ap.add_argument("--scenario", default="both", choices=["fast", "slow", "both"])
    ap.add_argument("--steps-scale", type=float, default=1.0,
                    help="scale n (for a quick look; the acceptance uses 1)")
    ap.add_argument("--json", default=None, help="write every figure to this file")
    ap.add_argument("--slow-forward-ms", type=float, default=None,
                    help="the slow scenario's requested forward step (default: 1/3 of the "
                         "write time); the steps a run measures are printed, and can come out "
                         "slower than asked while the paced disk runs")
    a = ap.parse_args()
    tmp, disk = workspace(a.dir)
    checks, record = [], {}
    if a.scenario in ("fast", "both"):
        cfg, bench = os.path.join(tmp.name, "fast.toml"), os.path.join(tmp.name, "fast.json")
        config(cfg, disk, None)
        w, d = measure_write(a.ebb, cfg, bench)
        f_ms = 2 * w * 1e3
        n = max(10, int(300 * a.steps_scale))
        print(f"disk: write {d['write_GBps']:.2f} GB/s, read {d['read_GBps']:.2f} GB/s: "
              f"one state written in {w * 1e3:.2f} ms")
        m, p = scenario(a.ebb, "fast", n, f_ms, cfg, bench)
        by = report("fast", n, f_ms, m, p, checks)
        record["fast"] = {"forward_ms": f_ms, "steps": n, "runs": m, "plans": p}
        if "async" in by:
            r = by["async"]
            checks.append(("fast: async overhead <= 1.05", r["overhead"] <= 1.05,
                           f"{r['overhead']:.3f}"))
            checks.append(("fast: async forward sweep <= 1.03 x its callbacks",
                           r["forward_sweep_over_callbacks"] <= 1.03,
                           f"{r['forward_sweep_over_callbacks']:.3f}"))
    if a.scenario in ("slow", "both"):
        cfg, bench = os.path.join(tmp.name, "slow.toml"), os.path.join(tmp.name, "slow.json")
        config(cfg, disk, "1 GB/s")
        w, d = measure_write(a.ebb, cfg, bench)
        f_ms = a.slow_forward_ms or w * 1e3 / 3
        n = max(10, int(1000 * a.steps_scale))
        print(f"\ndisk paced to 1 GB/s: write {d['write_GBps']:.2f} GB/s: one state written in "
              f"{w * 1e3:.2f} ms")
        m, p = scenario(a.ebb, "slow", n, f_ms, cfg, bench)
        by = report("slow", n, f_ms, m, p, checks)
        record["slow"] = {"forward_ms": f_ms, "steps": n, "runs": m, "plans": p}
        if "async" in by:
            r = by["async"]
            checks.append(("slow: async overhead <= 1.35", r["overhead"] <= 1.35,
                           f"{r['overhead']:.3f}"))
            if "revolve" in by:
                rv = by["revolve"]
                checks.append(("slow: async <= half of revolve's time",
                               r["overhead"] <= rv["overhead"] / 2,
                               f"overhead {r['overhead']:.3f} vs {rv['overhead']:.3f}; wall "
                               f"{r['wall_s']:.2f} s vs {rv['wall_s']:.2f} s"))
            for s in ("multistage", "disk-revolve", "periodic", "revolve", "store-all", "online"):
                if s in by:
                    o = by[s]
                    checks.append((f"slow: async below {s}", r["overhead"] < o["overhead"],
                                   f"overhead {r['overhead']:.3f} vs {o['overhead']:.3f}; wall "
                                   f"{r['wall_s']:.2f} s vs {o['wall_s']:.2f} s"))
    return finish(checks, record, a.json)


if __name__ == "__main__":
    sys.exit(main())
