#!/usr/bin/env python3
"""`ebb run --mpi` in mpirun's MPMD form: rank 0 with its own configuration
(its disk slowed by tier.disk.max_bandwidth), the other ranks with another.

(b) every rank's action stream is the same (equal actions_hash), each rank's
    gradient equals its single-process store-all gradient
    (`ebb run --strategy store-all --seed S+r`), the stall is reported per rank;
(c) a failure injected on one rank (--fail-at-step, --fail-rank) ends every
    rank with an error naming that rank, within the runner's time limit, and
    leaves no file in any rank's disk directory;
(d) ranks that disagree on n or on the strategy all stop with an error
    naming two of them.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)


def config(path, disk_dir, slow):
    os.makedirs(disk_dir, exist_ok=True)
    with open(path, "w") as f:
        f.write('[tier.host]\nbudget = "1 MiB"\npin = false\nprefault = false\n'
                '[tier.disk]\npath = "%s"\nbudget = "64 MiB"\ndirect = false\n' % disk_dir)
        if slow:
            f.write('max_bandwidth = "20 MB/s"\n')


def mpmd(a, slow_args, fast_args):
    """mpirun -np 1 ebb run --mpi SLOW : -np R-1 ebb run --mpi FAST"""
    cmd = [a.runner, a.mpirun, "-np", "1", a.ebb, "run", "--mpi"] + slow_args + \
          [":", "-np", str(a.ranks - 1), a.ebb, "run", "--mpi"] + fast_args
    p = subprocess.run(cmd, capture_output=True, text=True)
    check(p.returncode != 124, "mpirun timed out (a hang): " + " ".join(cmd))
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ebb", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--scratch", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.scratch, ignore_errors=True)
    os.makedirs(a.scratch)
    slow_dir, fast_dir = os.path.join(a.scratch, "slow"), os.path.join(a.scratch, "fast")
    slow_cfg, fast_cfg = os.path.join(a.scratch, "slow.toml"), os.path.join(a.scratch, "fast.toml")
    config(slow_cfg, slow_dir, True)
    config(fast_cfg, fast_dir, False)
    common = ["--steps", "150", "--state-size", "96KiB", "--forward-ms", "0", "--seed", "7"]

    def left():
        return os.listdir(slow_dir) + os.listdir(fast_dir)

    # (b) the same stream, each rank's own gradient, stalls reported
    for strategy in ["async", "revolve", "multistage", "auto"]:
        args = common + ["--strategy", strategy, "--json"]
        p = mpmd(a, ["--config", slow_cfg] + args, ["--config", fast_cfg] + args)
        check(p.returncode == 0, "%s: exit %d: %s" % (strategy, p.returncode, p.stderr[-2000:]))
        if p.returncode != 0:
            continue
        out = json.loads(p.stdout)
        check(out["ranks"] == a.ranks, "%s: ranks %s" % (strategy, out["ranks"]))
        h = out["actions_hash"]
        check(len(h) == a.ranks and len(set(h)) == 1, "%s: action hashes differ: %s" % (strategy, h))
        check(out["actions_agree"] is True, "%s: actions_agree false" % strategy)
        check(len(out["stall_s"]) == a.ranks and all(s >= 0 for s in out["stall_s"]),
              "%s: stall_s %s" % (strategy, out["stall_s"]))
        check(out["wall_s"] > 0, "%s: wall_s %s" % (strategy, out["wall_s"]))
        for r in range(a.ranks):
            cfg = slow_cfg if r == 0 else fast_cfg
            sp = subprocess.run([a.ebb, "run", "--config", cfg, "--strategy", "store-all", "--json"] +
                                common[:-1] + [str(7 + r)], capture_output=True, text=True)
            check(sp.returncode == 0, "store-all seed %d: %s" % (7 + r, sp.stderr[-1000:]))
            if sp.returncode == 0:
                g = json.loads(sp.stdout)["gradient"]
                check(out["gradients"][r] == g, "%s: rank %d's gradient %s, its store-all gives %s"
                      % (strategy, r, out["gradients"][r], g))
        print("%-10s hash %s  stall_s %s  slow-tier stores %s" %
              (strategy, h[0], out["stall_s"], out["slow_tier_stores"]))
        check(left() == [], "%s: files left: %s" % (strategy, left()))

    # (c) one rank fails: every rank says which, nothing is left on disk
    for strategy, rank in [("async", a.ranks - 1), ("revolve", 0), ("multistage", 1)]:
        args = common + ["--strategy", strategy, "--fail-at-step", "60", "--fail-rank", str(rank)]
        p = mpmd(a, ["--config", slow_cfg] + args, ["--config", fast_cfg] + args)
        check(p.returncode != 0, "%s: a failure on rank %d, yet exit 0" % (strategy, rank))
        for r in range(a.ranks):
            pat = r"ebb run: rank %d: .*rank %d failed: forward step 60 failed: injected" % (r, rank)
            check(re.search(pat, p.stderr) is not None,
                  "%s: rank %d does not report rank %d's failure:\n%s" % (strategy, r, rank, p.stderr))
        check(left() == [], "%s failing: files left: %s" % (strategy, left()))

    # (d) disagreements
    p = mpmd(a, ["--config", slow_cfg, "--steps", "100", "--state-size", "64KiB"],
             ["--config", fast_cfg, "--steps", "90", "--state-size", "64KiB"])
    check(p.returncode != 0, "n 100 against 90: exit 0")
    for r in range(a.ranks):
        check(re.search(r"ebb run: rank %d: .*disagree on the number of steps: rank 0 has n = 100, "
                        r"rank \d+ has n = 90" % r, p.stderr) is not None,
              "n disagreement not reported by rank %d:\n%s" % (r, p.stderr))
    p = mpmd(a, ["--config", slow_cfg, "--strategy", "revolve"] + common,
             ["--config", fast_cfg, "--strategy", "periodic"] + common)
    check(p.returncode != 0, "revolve against periodic: exit 0")
    for r in range(a.ranks):
        check(re.search(r"ebb run: rank %d: .*different strategies: rank \d+ runs (revolve|periodic), "
                        r"rank \d+ runs (revolve|periodic)" % r, p.stderr) is not None,
              "strategy disagreement not reported by rank %d:\n%s" % (r, p.stderr))
    p = mpmd(a, ["--config", slow_cfg, "--strategy", "online", "--steps", "100", "--state-size", "64KiB"],
             ["--config", fast_cfg, "--strategy", "online", "--steps", "90", "--state-size", "64KiB"])
    check(p.returncode != 0, "online, forward ending at 100 against 90: exit 0")
    for r in range(a.ranks):
        check(re.search(r"ebb run: rank %d: .*forward sweeps ended at different steps: rank 0 ran "
                        r"100 steps, rank \d+ ran 90" % r, p.stderr) is not None,
              "n agreement at the end of the forward not reported by rank %d:\n%s" % (r, p.stderr))
    check(left() == [], "disagreements: files left: %s" % left())

    if failures:
        print("%d checks failed" % len(failures), file=sys.stderr)
        return 1
    shutil.rmtree(a.scratch, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
