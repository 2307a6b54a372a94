#!/usr/bin/env python3
"""ebb against PETSc's own trajectory types on the 2-D Gray-Scott
problem (examples/petsc, -problem rd2d: cells x cells x 2 doubles per state).

One forward TSSolve and one TSAdjointSolve per type, each type in its own
process (examples/petsc/example_petsc_adjoint), in a scratch folder under
--dir (basic writes its TS-data folder there, ebb its disk tier):

  basic   every state to a file, synchronously
  memory  every state (and its stages) in RAM
  ebb     host budget = --budget-fraction of the trajectory (steps x state),
          the disk tier on in the scratch folder, --strategy (default auto)

Prints each type's forward, adjoint and total time (as the program measures
them) and peak RSS (the process's, from wait4), the ratios to memory's from
the same run, and the issue's acceptance: ebb within 1.2 x memory's time at
<= 1/10 of its memory, and faster than basic. Every type's gradient must be
the same (the program prints |dJ/du0| and |dJ/dp| to 17 digits): a type
whose gradient differs fails the run.

Usage: benchmarks/petsc_trajectory.py [--example build/release/examples/petsc/example_petsc_adjoint]
       [--cells 1024] [--steps 150] [--dt 0.05] [--dir /var/tmp]
       [--budget-fraction 0.1] [--strategy auto] [--types basic,memory,ebb]
       [--check] [--smoke]

--check: exit 1 when the acceptance does not hold. --smoke: tiny sizes (32 x
32, 12 steps) for the test suite: every type runs and the gradients agree;
the acceptance is printed, not checked.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r"\|dJ/du0\| (\S+) \|dJ/dp\| (\S+) forward (\S+) s adjoint (\S+) s")


def run_type(args, kind, scratch, state_bytes):
    cmd = [args.example, "-problem", "rd2d", "-cells", str(args.cells), "-steps", str(args.steps),
           "-dt", str(args.dt), "-ts_type", "rk", "-ts_rk_type", "4", "-ts_adapt_type", "none",
           "-ts_trajectory_type", kind]
    if kind == "ebb":
        budget = int(args.budget_fraction * args.steps * state_bytes)
        # at least 4 slots (a state with ebb's header, rounded up to pages): tiny sizes
        slot = (state_bytes + 32 + 4095) // 4096 * 4096
        if budget < 4 * slot:
            print(f"note: host budget raised from {budget} to 4 slots ({4 * slot} bytes)")
            budget = 4 * slot
        cmd += ["-ts_trajectory_ebb_host_budget", f"{budget}B",
                "-ts_trajectory_ebb_disk_path", scratch,
                "-ts_trajectory_ebb_strategy", args.strategy,
                "-ts_trajectory_ebb_steps", str(args.steps), "-ts_trajectory_view"]
    out_path = os.path.join(scratch, "out.txt")
    with open(out_path, "w") as out:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, cwd=scratch, stdout=out, stderr=subprocess.STDOUT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
    with open(out_path) as f:
        text = f.read()
    code = os.waitstatus_to_exitcode(status)
    m = LINE.search(text)
    if code != 0 or not m:
        why = [l for l in text.splitlines() if "ERROR" in l and "Configure options" not in l]
        sys.exit(f"{' '.join(cmd)} failed ({code}):\n" + "\n".join(why[:40] or [text[-4000:]]))
    view = [l.strip() for l in text.splitlines() if l.strip().startswith("ebb ")]
    return {"grad": (m.group(1), m.group(2)), "forward": float(m.group(3)),
            "adjoint": float(m.group(4)), "total": float(m.group(3)) + float(m.group(4)),
            "process": wall, "rss": ru.ru_maxrss / 1024.0, "view": view}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--example", default="build/release/examples/petsc/example_petsc_adjoint")
    ap.add_argument("--cells", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--dt", type=float, default=0.05)
    ap.add_argument("--dir", default="/var/tmp")
    ap.add_argument("--budget-fraction", type=float, default=0.1)
    ap.add_argument("--strategy", default="auto")
    ap.add_argument("--types", default="basic,memory,ebb")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.cells, args.steps = 32, 12
    args.example = os.path.abspath(args.example)
    state_bytes = 2 * args.cells * args.cells * 8
    types = args.types.split(",")
    print(f"rd2d {args.cells} x {args.cells} x 2 ({state_bytes / 2**20:.1f} MiB a state), RK4, "
          f"{args.steps} steps (trajectory {args.steps * state_bytes / 2**20:.0f} MiB); ebb: host "
          f"budget {args.budget_fraction:g} of it, strategy {args.strategy}, disk tier in {args.dir}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    res = {}
    for kind in types:
        scratch = tempfile.mkdtemp(prefix=f"ebb_petsc_{kind}_", dir=args.dir)
        try:
            res[kind] = run_type(args, kind, scratch, state_bytes)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"\n{'type':8} {'forward s':>10} {'adjoint s':>10} {'total s':>9} {'process s':>10} "
          f"{'peak RSS MiB':>13} {'time/memory':>12} {'RSS/memory':>11}")
    for kind in types:
        r, m = res[kind], res.get("memory")
        tr = f"{r['total'] / m['total']:.3f}" if m else "-"
        rr = f"{r['rss'] / m['rss']:.3f}" if m else "-"
        print(f"{kind:8} {r['forward']:10.3f} {r['adjoint']:10.3f} {r['total']:9.3f} "
              f"{r['process']:10.3f} {r['rss']:13.1f} {tr:>12} {rr:>11}")
    if "ebb" in res:
        print("\nebb's view:\n  " + "\n  ".join(res["ebb"]["view"]))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    ok = True
    grads = {k: res[k]["grad"] for k in types}
    if len(set(grads.values())) != 1:
        print(f"FAIL: the gradients differ: {grads}")
        ok = False
    else:
        print(f"gradients equal across {', '.join(types)}: |dJ/du0| {grads[types[0]][0]}")
    if all(k in res for k in ("basic", "memory", "ebb")):
        e, m, b = res["ebb"], res["memory"], res["basic"]
        checks = [("ebb time <= 1.2 x memory's", e["total"] <= 1.2 * m["total"]),
                  ("ebb peak RSS <= memory's / 10", e["rss"] <= m["rss"] / 10),
                  ("ebb faster than basic", e["total"] < b["total"])]
        for name, good in checks:
            print(f"{'PASS' if good else 'FAIL'}: {name}")
            if args.check and not good:
                ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
