"""ebb.chain_plan's plan as Python sees it: replaying its actions by their
places (ChainPlan.places) gives the cost the C library says and never holds
more than the budget in the fast tier."""

import random

import ebb
from ebb.chain import ADVANCE, EVICT, FREE, RESTORE, REVERSE, STORE

W, R = 0.5, 0.25  # the slow tier's write and read costs a byte


def replay(plan, f, r, b):
    """(cost, most bytes in the gpu tier at once, stores to the host tier)."""
    cost, held, peak, slow_stores = 0.0, 0, 0, 0
    where = {}  # (tier, slot) -> the state it holds
    for (kind, step, to, slot), place in zip(plan.actions, plan.places):
        if kind == ADVANCE:
            cost += sum(f[step:to])
        elif kind == REVERSE:
            cost += r[step]
        elif kind == STORE:
            where[(place, slot)] = step
            if place == "gpu":
                held += b[step]
            else:
                cost += W * b[step]
                slow_stores += 1
        elif kind == RESTORE and place == "host":
            cost += R * b[step]
        elif kind == FREE:
            del where[(place, slot)]
            if place == "gpu":
                held -= b[step]
        elif kind == EVICT:
            src, dst, slot_to = place
            assert (src, dst) == ("gpu", "host"), place
            where[(dst, slot_to)] = where.pop((src, slot))
            held -= b[step]
            cost += W * b[step]
            slow_stores += 1
        peak = max(peak, held)
    return cost, peak, slow_stores


def test_a_two_tier_plan_says_where_each_state_goes():
    rng = random.Random(11)
    used_slow = 0
    for case in range(120):
        n = rng.randint(1, 8)
        f = [rng.randint(1, 9) for _ in range(n)]
        r = [rng.randint(1, 9) for _ in range(n)]
        b = [rng.randint(1, 4) for _ in range(n)]
        budget = rng.randint(b[0], sum(b))
        plan = ebb.chain_plan(f, r, b, budget, tier="gpu", slow_tier="host",
                              write_cost_per_byte=W, read_cost_per_byte=R)
        assert len(plan.places) == len(plan.actions)
        cost, peak, slow = replay(plan, f, r, b)
        assert abs(cost - plan.cost) <= 1e-9 * plan.cost, (case, cost, plan.cost)
        assert peak <= budget, (case, peak, budget)
        used_slow += slow > 0
    # the slow tier is cheap enough that many plans use it
    assert used_slow >= 20, used_slow


def test_a_one_tier_plan_names_its_tier():
    plan = ebb.chain_plan([1, 2, 3], [1, 1, 1], [4, 4, 4], 8)
    stores = [p for (kind, *_), p in zip(plan.actions, plan.places) if kind == STORE]
    assert stores and set(stores) == {"host"}
    assert all(p is None for (kind, *_), p in zip(plan.actions, plan.places)
               if kind in (ADVANCE, REVERSE))
