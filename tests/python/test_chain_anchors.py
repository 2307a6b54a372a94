"""The anchors: on chain profiles of ResNet-50 (18 blocks) and a 12-layer
Transformer encoder (14 blocks), measured on the development machine by
benchmarks/python/chain_profiles.py (tests/python/data/chain_anchors.json),
at every budget from x_0 alone to every input and tape, in 40 steps:

- ebb's schedule (ebb.chain_plan with the blocks' tapes) costs no more
  than torch.utils.checkpoint_sequential's best segment count that fits
  the budget, costed and measured on the same model;
- it costs what an independent program finds: Rotor's recursion (Beaumont
  et al. 2019) over persistent schedules with tapes, written here in
  bytes, where ebb's program has more choices (a checkpoint that moves);
  it never costs more, and costs the same at every budget of these
  chains.

The model (docs/heterogeneous.md): a block's forward costs forward_s, its
reverse from its input reverse_s, from its tape backward_s; a tape holds
tape_bytes beside the block's input; the first sweep runs every block once.
"""

import functools
import json
import math
import os

import pytest

import ebb

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "chain_anchors.json")
with open(DATA) as f:
    PROFILES = json.load(f)
NAMES = ["resnet50", "transformer12"]


def checkpoint_sequential(p, segments):
    """(cost, peak bytes) of torch.utils.checkpoint_sequential with
    `segments` segments (its own split: segments of n // segments blocks,
    the last taking the rest). The forward stores each segment's input and
    runs the last segment with grad (its blocks' tapes and inputs kept);
    the backward reruns each other segment with grad from its input, last
    first, and back-propagates through it."""
    f, b, x, t = p["forward_s"], p["backward_s"], p["state_bytes"], p["tape_bytes"]
    n = len(f)
    size = n // segments
    starts = list(range(0, size * (segments - 1), size)) + [size * (segments - 1)]
    ends = starts[1:] + [n]
    cost = sum(f) + sum(b) + sum(sum(f[s:e]) for s, e in zip(starts[:-1], ends[:-1]))
    peak = 0
    for k, (s, e) in enumerate(zip(starts, ends)):
        held = sum(x[j] for j in starts[:k]) + sum(x[i] + t[i] for i in range(s, e))
        peak = max(peak, held)
    return cost, peak


def rotor(p, budget):
    """Rotor's recursion in bytes: opt(s, t, m) reverses s .. t-1 with x_s
    stored (outside m), the adjoint at x_t and m bytes free, by the last
    step from x_s, a checkpoint x_j kept until its steps are reversed, or a
    tape of step s (x_{s+1} then stored, or reversed at once when it is
    the last); the first sweep runs step n-1 once more, which a tape of it
    there makes its forward."""
    f, r, b, x, t = (p["forward_s"], p["reverse_s"], p["backward_s"], p["state_bytes"],
                     p["tape_bytes"])
    n = len(f)
    pre = [0.0]
    for v in f:
        pre.append(pre[-1] + v)

    @functools.lru_cache(maxsize=None)
    def opt(s, e, m):
        if m < 0:
            return math.inf
        if e == s + 1:
            best = r[s]
            if t[s] <= m:
                best = min(best, b[s] + (0 if e == n else f[s]))
            return best
        best = pre[e - 1] - pre[s] + r[e - 1] + opt(s, e - 1, m)
        for j in range(s + 1, e):
            if x[j] <= m:
                best = min(best, pre[j] - pre[s] + opt(j, e, m - x[j]) + opt(s, j, m))
        if t[s] <= m:
            rest = opt(s + 1, e, m - t[s] - x[s + 1]) if t[s] + x[s + 1] <= m else math.inf
            if e == s + 2:
                rest = min(rest, r[s + 1])
            best = min(best, f[s] + b[s] + rest)
        return best

    if n == 1:
        return f[0] + min(r[0], b[0] if t[0] + x[0] <= budget else math.inf)
    return opt(0, n, budget - x[0]) + f[n - 1]


def budgets(p):
    x, t = p["state_bytes"], p["tape_bytes"]
    lo, hi = x[0], sum(x) + sum(t)
    grid = p.get("grid_bytes", PROFILES["grid_bytes"])
    return sorted({lo + (hi - lo) * k // 39 // grid * grid for k in range(40)} | {lo, hi})


def ebb_cost(p, budget):
    plan = ebb.chain_plan(p["forward_s"], p["reverse_s"], p["state_bytes"], budget,
                          tape_bytes=p["tape_bytes"], backward_cost=p["backward_s"],
                          memory_levels=65536)
    # counted exactly: the budget is a whole number of units, as every size
    assert plan.units * plan.unit_bytes == budget
    return plan


@pytest.mark.parametrize("name", NAMES)
def test_at_most_checkpoint_sequentials_best(name):
    p = PROFILES[name]
    n = len(p["forward_s"])
    compared = 0
    for budget in budgets(p):
        fits = [checkpoint_sequential(p, s)[0] for s in range(1, n + 1)
                if checkpoint_sequential(p, s)[1] <= budget]
        if not fits:
            continue
        mine = ebb_cost(p, budget).cost
        assert mine <= min(fits) * (1 + 1e-12), (name, budget, mine, min(fits))
        compared += 1
    assert compared >= 10, f"checkpoint_sequential fits only {compared} budgets"


@pytest.mark.parametrize("name", NAMES)
def test_the_independent_program_costs_the_same(name):
    p = PROFILES[name]
    for budget in budgets(p):
        mine = ebb_cost(p, budget).cost
        theirs = rotor(p, budget)
        assert mine <= theirs * (1 + 1e-12), (name, budget, mine, theirs)
        assert math.isclose(mine, theirs, rel_tol=1e-12), (name, budget, mine, theirs)


def test_the_profiles_are_of_the_networks_named():
    assert len(PROFILES["resnet50"]["forward_s"]) == 18
    assert len(PROFILES["transformer12"]["forward_s"]) == 14
    for name in NAMES:
        p = PROFILES[name]
        assert all(v % PROFILES["grid_bytes"] == 0 for v in p["state_bytes"] + p["tape_bytes"])
        # a tape spares a block's rerun: backward alone is cheaper
        assert all(b < r for b, r in zip(p["backward_s"], p["reverse_s"]))


#: the fast tier's states may also go to a slower one at 10 GB/s each way
#: (a GPU's host memory over PCIe)
PER_BYTE = 1 / 10e9


@pytest.mark.parametrize("name", NAMES)
def test_a_slower_tier_costs_less_where_memory_is_short(name):
    """With the blocks' inputs allowed into a slower tier, the schedule
    never costs more than within the fast tier alone, and costs less at
    the small budgets, where the fast tier holds few states beside x_0
    (tapes stay in the fast tier: where they are what fills it, moving
    states out frees too little to keep one more)."""
    p = PROFILES[name]
    less = []
    for budget in budgets(p):
        # both counted in the same 256 units: the two tiers have every
        # choice the one has
        alone, both = (ebb.chain_plan(p["forward_s"], p["reverse_s"], p["state_bytes"], budget,
                                      tape_bytes=p["tape_bytes"], backward_cost=p["backward_s"],
                                      tier="gpu", **slow).cost
                       for slow in ({}, {"slow_tier": "host", "write_cost_per_byte": PER_BYTE,
                                         "read_cost_per_byte": PER_BYTE}))
        assert both <= alone * (1 + 1e-12), (name, budget, both, alone)
        less.append(both < alone)
    # x_0 alone and the next budget gain; so do some larger ones
    assert less[0] and less[1], (name, less)
    assert sum(less) >= 4, (name, less)
