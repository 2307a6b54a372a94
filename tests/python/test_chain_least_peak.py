"""ebb.chain_least_peak: on random chains its peak and cost are the C
library's (as `ebb plan --chain FILE --least-peak --json` prints them), its
actions hold exactly that peak with no step run more than twice, and the
schedule of least cost within that peak costs no more; bad chains raise,
saying why."""

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

import ebb
from ebb.chain import ADVANCE, END, FREE, REVERSE, STORE

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("EBB_BUILD_DIR", ROOT / "build" / "release"))


def random_chain(rng, n, top):
    return ([rng.randint(0, 9) for _ in range(n)], [rng.randint(0, 9) for _ in range(n)],
            [rng.randint(1, top) for _ in range(n)])


def replay(plan, n, sizes):
    """(most bytes stored at once, forward runs per step) of the plan's
    actions; checks every step is reversed once, last first."""
    held, peak, runs, reversed_ = {}, 0, [0] * n, []
    for kind, step, to, slot in plan.actions:
        if kind == STORE:
            held[slot] = sizes[step]
            peak = max(peak, sum(held.values()))
        elif kind == FREE:
            del held[slot]
        elif kind == ADVANCE:
            for k in range(step, to):
                runs[k] += 1
        elif kind == REVERSE:
            reversed_.append(step)
    assert plan.actions[-1][0] == END
    assert reversed_ == list(range(n - 1, -1, -1))
    return peak, runs


def cli_figures(tmp_path, f, r, b):
    ebb_cli = BUILD / "tools" / "ebb"
    if not ebb_cli.exists():
        pytest.skip(f"no ebb program in {BUILD / 'tools'} (build ebb_cli, or set EBB_BUILD_DIR)")
    path = tmp_path / "chain.txt"
    path.write_text("".join(f"{fi} {ri} {bi}\n" for fi, ri, bi in zip(f, r, b)))
    out = subprocess.run([str(ebb_cli), "plan", "--chain", str(path), "--least-peak", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_the_c_librarys_least_peak_on_random_chains(tmp_path):
    rng = random.Random(32)
    for case in range(60):
        n = 1 if case == 0 else rng.randint(2, 40)
        top = (4, 100, 10**6)[case % 3]
        f, r, b = random_chain(rng, n, top)
        peak, plan = ebb.chain_least_peak(f, r, b)
        c = cli_figures(tmp_path, f, r, b)
        assert peak == c["least_peak_bytes"] == c["peak_bytes"], (case, f, r, b)
        assert plan.cost == c["cost"], (case, f, r, b)
        assert plan.unit_bytes == 1 and plan.units == peak
        held, runs = replay(plan, n, b)
        assert held == peak, (case, held, peak)
        assert max(runs) <= 2 and sum(runs) == c["forward_steps"]
        assert plan.cost == sum(f[k] * runs[k] for k in range(n)) + sum(r)
        if 2 <= n <= 32 and top <= 100:
            # the least cost within that peak, counted exactly in bytes
            assert ebb.chain_plan(f, r, b, peak, memory_levels=65536).cost <= plan.cost


def test_bad_chains_raise_saying_why():
    with pytest.raises(ebb.EbbError) as e:
        ebb.chain_least_peak([1, 1, 1], [1, 1, 1], [4, 0, 4])
    assert e.value.status == ebb.status.INVALID_ARG
    assert "x_1's size is 0 bytes" in str(e.value)
    with pytest.raises(ebb.EbbError, match="at least 1 step"):
        ebb.chain_least_peak([], [], [])
    with pytest.raises(ValueError, match="one entry per step; got 2, 1 and 2"):
        ebb.chain_least_peak([1, 1], [1], [4, 4])
    with pytest.raises(ValueError, match="unknown tier 'tape'"):
        ebb.chain_least_peak([1], [1], [4], tier="tape")
