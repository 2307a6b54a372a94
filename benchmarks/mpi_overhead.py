#!/usr/bin/env python3
"""What the ranks' agreement costs: `ebb run --mpi --strategy async` on P
ranks (mpirun --oversubscribe -np P) against P independent single-process
`ebb run --strategy async` of the same workload started at the same time on
the same machine (rank r and independent run r both use --seed r, so their
gradients must match). Prints wall and stall of both, their ratio, the
agreements per run, and the cost model's prediction for P = 1,000 and
10,000 ranks (docs/mpi.md).

    benchmarks/mpi_overhead.py --ebb build/release/tools/ebb [--ranks 4]
        [--steps 100] [--state-size 8MiB] [--repeat 3] [--strategy async]

Both sides compete for the same cores: on a machine with fewer cores than
ranks the P processes share them either way, which is the point of running
them at the same time.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def mpirun_prefix(ranks):
    cmd = ["mpirun", "--oversubscribe", "-np", str(ranks)]
    if os.geteuid() == 0:  # Open MPI refuses root unless told
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def workload(args, config):
    return ["run", "--strategy", args.strategy, "--config", config, "--state-size",
            args.state_size, "--steps", str(args.steps), "--json"]


def run_mpi(args, config):
    cmd = mpirun_prefix(args.ranks) + [args.ebb] + workload(args, config) + ["--mpi"]
    t0 = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    elapsed = time.monotonic() - t0
    if out.returncode != 0:
        sys.exit(f"mpi run failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr}")
    return json.loads(out.stdout), elapsed, cmd


def run_independent(args, config):
    cmds = [[args.ebb] + workload(args, config) + ["--seed", str(r)] for r in range(args.ranks)]
    t0 = time.monotonic()
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for c in cmds]
    results = []
    for c, p in zip(cmds, procs):
        out, err = p.communicate(timeout=args.timeout)
        if p.returncode != 0:
            sys.exit(f"independent run failed ({p.returncode}): {' '.join(c)}\n{err}")
        results.append(json.loads(out))
    return results, time.monotonic() - t0, cmds[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ebb", required=True, help="the ebb program, built with MPI")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--strategy", default="async",
                    help="async (default); a deterministic one (revolve, multistage) as a "
                         "control: no decision to agree, the same processes and cores")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--state-size", default="8MiB")
    ap.add_argument("--host-states", type=int, default=4)
    ap.add_argument("--disk-states", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--alpha-us", default="1,5",
                    help="per-hop latency of one small collective, microseconds (an "
                         "assumption for the model, not measured here)")
    args = ap.parse_args()

    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    size = next((int(args.state_size[:-3]) * v for k, v in units.items()
                 if args.state_size.endswith(k)), None) or int(args.state_size)
    work = tempfile.mkdtemp(prefix="ebb_mpi_overhead.")
    try:
        os.mkdir(os.path.join(work, "disk"))
        config = os.path.join(work, "ebb.toml")
        with open(config, "w") as f:
            f.write(f'[tier.host]\nbudget = {args.host_states * size}\n'
                    f'[tier.disk]\npath = "{work}/disk"\n'
                    f'budget = {args.disk_states * size}\n')
        rows = []
        for rep in range(args.repeat):
            # alternate the order so that neither side always runs first
            order = ["mpi", "ind"] if rep % 2 == 0 else ["ind", "mpi"]
            for side in order:
                if side == "mpi":
                    mpi, mpi_elapsed, mpi_cmd = run_mpi(args, config)
                else:
                    ind, ind_elapsed, ind_cmd = run_independent(args, config)
            same = [g == r["gradient"] for g, r in zip(mpi["gradients"], ind)]
            if not all(same):
                sys.exit(f"gradients differ between rank r and independent run r: {same}")
            row = {
                "mpi_wall": mpi["wall_s"], "mpi_stall": mpi["stall_s"],
                "ind_wall": max(r["wall_s"] for r in ind),
                "ind_stall": [r["stall_s"] for r in ind],
                "agreements": mpi["agreements"], "actions_agree": mpi["actions_agree"],
                "ind_stores": [r["stores"]["disk"] for r in ind],
                "mpi_stores": mpi.get("slow_tier_stores"),
                "mpi_recomputed": mpi.get("recomputed_steps"),
                "ind_recomputed": [r["recomputed_steps"] for r in ind],
                "step_s": statistics.mean(r["forward_callback_s"] / r["forward_steps"]
                                          for r in ind),
            }
            rows.append(row)
            print(f"run {rep + 1}: mpi wall {row['mpi_wall']:.3f} s (slowest rank), stall "
                  f"{' '.join(f'{s:.3f}' for s in row['mpi_stall'])}; independent wall "
                  f"{row['ind_wall']:.3f} s (slowest), stall "
                  f"{' '.join(f'{s:.3f}' for s in row['ind_stall'])}; ratio "
                  f"{row['mpi_wall'] / row['ind_wall']:.3f}; agreements {row['agreements']}, "
                  f"disk stores mpi {row['mpi_stores']} independent {row['ind_stores']}; "
                  f"recomputed steps mpi {row['mpi_recomputed']} independent "
                  f"{row['ind_recomputed']}; gradients equal; actions agree "
                  f"{row['actions_agree']}")
        ratios = [r["mpi_wall"] / r["ind_wall"] for r in rows]
        step = statistics.median(r["step_s"] for r in rows)
        agreements = statistics.median(r["agreements"] for r in rows)
        print(f"\nmedian ratio (mpi wall / independent wall) {statistics.median(ratios):.3f} "
              f"over {len(rows)} runs; {agreements:.0f} agreements per run; forward step "
              f"{step * 1e3:.2f} ms")
        print(f"commands: {' '.join(mpi_cmd)}\n          {' '.join(ind_cmd)} (x{args.ranks}, "
              f"--seed 0..{args.ranks - 1}, at once)")
        print("\nmodel: one MPI_Iallreduce of 80 bytes per stored state, latency "
              "alpha * ceil(log2 P), posted a step before it is needed (hidden while it is "
              "shorter than a forward step)")
        for p in (args.ranks, 1000, 10000):
            hops = max(1, math.ceil(math.log2(p)))
            for a in (float(x) for x in args.alpha_us.split(",")):
                lat = a * 1e-6 * hops
                exposed = max(0.0, lat - step)
                print(f"  P = {p:>5}: alpha {a:g} us x {hops:>2} hops = {lat * 1e6:5.0f} us per "
                      f"agreement; against a {step * 1e3:.2f} ms step: exposed "
                      f"{exposed * 1e6:.0f} us; {agreements:.0f} agreements cost at most "
                      f"{agreements * lat * 1e3:.2f} ms per run")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
