"""Heterogeneous chains (include/ebb/chain.h): the schedule of least total
cost for steps with their own forward and reverse costs and states with their
own sizes, within a budget in bytes, and the checkpoints of least peak memory
when each step is recomputed at most once (docs/heterogeneous.md)."""

import ctypes
from dataclasses import dataclass, field

from . import _capi

#: action kinds (ebb_action_kind, include/ebb/schedule.h)
ADVANCE, STORE, RESTORE, PREFETCH, EVICT, FREE, TURN, REVERSE, END, TAPE = range(10)
#: the most steps a chain may have (EBB_CHAIN_MAX_STEPS)
MAX_STEPS = 100000


@dataclass
class ChainPlan:
    """A chain's schedule: its cost (forward costs of every step run + reverse
    costs), the memory unit it counted the budget in, the slots of its tier it
    numbers, its actions as (kind, step, to, slot) tuples and, beside each,
    where its slots are (`places`): for STORE, RESTORE and FREE the tier's
    name (e.g. "host"), for EVICT and PREFETCH (source tier, destination
    tier, destination slot), for the other kinds None."""

    cost: float
    unit_bytes: int
    units: int
    slots: int
    actions: list = field(default_factory=list)
    places: list = field(default_factory=list)


_ONE_TIER = (STORE, RESTORE, FREE)
_MOVES = (EVICT, PREFETCH)


def _place(a):
    if a.kind in _ONE_TIER:
        return _capi.TIERS[a.tier]
    if a.kind in _MOVES:
        return (_capi.TIERS[a.tier], _capi.TIERS[a.tier_to], a.slot_to)
    return None


def _chain(forward_cost, reverse_cost, state_bytes, tape_bytes=None, backward_cost=None):
    """The ctypes chain of the lists (kept alive by the returned tuple)."""
    n = len(forward_cost)
    if len(reverse_cost) != n or len(state_bytes) != n:
        raise ValueError(f"forward_cost, reverse_cost and state_bytes must have one entry per "
                         f"step; got {n}, {len(reverse_cost)} and {len(state_bytes)}")
    if (tape_bytes is None) != (backward_cost is None):
        raise ValueError("tape_bytes and backward_cost go together: give both (tapes) or "
                         "neither")
    if tape_bytes is not None and not len(tape_bytes) == len(backward_cost) == n:
        raise ValueError(f"tape_bytes and backward_cost must have one entry per step; got "
                         f"{len(tape_bytes)} and {len(backward_cost)} for {n} steps")
    f = (ctypes.c_double * max(n, 1))(*[float(v) for v in forward_cost])
    r = (ctypes.c_double * max(n, 1))(*[float(v) for v in reverse_cost])
    b = (ctypes.c_uint64 * max(n, 1))(*[int(v) for v in state_bytes])
    chain = _capi.Chain(steps=n, forward_cost=f, reverse_cost=r, state_bytes=b)
    keep = [f, r, b]
    if tape_bytes is not None:
        tb = (ctypes.c_uint64 * max(n, 1))(*[int(v) for v in tape_bytes])
        bw = (ctypes.c_double * max(n, 1))(*[float(v) for v in backward_cost])
        chain.tape_bytes, chain.backward_cost = tb, bw
        keep += [tb, bw]
    return chain, keep


def _drain(L, s, tier):
    """The slots of `tier` schedule s uses, its actions as tuples and
    their places (ChainPlan.places)."""
    slots = (ctypes.c_int32 * _capi.TIER_COUNT)()
    _capi.check(L.ebb_schedule_tier_slots(s, slots))
    acts, places = [], []
    batch = (_capi.Action * 256)()
    got = ctypes.c_size_t()
    while True:
        _capi.check(L.ebb_schedule_next_batch(s, batch, 256, ctypes.byref(got)))
        for i in range(got.value):
            a = batch[i]
            acts.append((a.kind, a.step, a.to, a.slot))
            places.append(_place(a))
        if got.value == 0 or acts[-1][0] == END:
            break
    return slots[tier], acts, places


def chain_plan(forward_cost, reverse_cost, state_bytes, memory_bytes, *, memory_levels=0,
               tier="host", tape_bytes=None, backward_cost=None, slow_tier=None,
               write_cost_per_byte=0.0, read_cost_per_byte=0.0):
    """The schedule of least cost for n = len(forward_cost) steps (1 .. MAX_STEPS):
    step i costs forward_cost[i] and reverse_cost[i], x_i takes state_bytes[i]
    bytes, and the stored states (x_0 included) never take more than
    memory_bytes. With tape_bytes and backward_cost (one entry per step), a
    step may keep its tape (TAPE: its forward run keeping what its reverse
    needs, tape_bytes[i] bytes beside x_i) and is then reversed at
    backward_cost[i]. With slow_tier (a
    tier name other than `tier`), states may also go there, as many as the
    schedule stores, at write_cost_per_byte and read_cost_per_byte times
    their size each way; memory_bytes is `tier`'s budget (chains of up to 32
    steps). Raises EbbError: INVALID_ARG (which input, why), NO_MEMORY (x_0
    does not fit)."""
    chain, _keep = _chain(forward_cost, reverse_cost, state_bytes, tape_bytes, backward_cost)
    L = _capi.lib()
    o = _capi.ChainOptions()
    L.ebb_chain_options_init(ctypes.byref(o))
    o.memory_bytes = int(memory_bytes)
    o.memory_levels = int(memory_levels)
    o.tier = _capi.tier_index(tier)
    if slow_tier is not None:
        o.slow_tier = _capi.tier_index(slow_tier)
        o.write_cost_per_byte = float(write_cost_per_byte)
        o.read_cost_per_byte = float(read_cost_per_byte)
    s = ctypes.c_void_p()
    _capi.check(L.ebb_chain_schedule_create(ctypes.byref(chain), ctypes.byref(o),
                                            ctypes.byref(s)))
    try:
        info = _capi.out(_capi.ChainInfo)
        _capi.check(L.ebb_chain_schedule_info(s, ctypes.byref(info)))
        _capi.filled(info)
        slots, acts, places = _drain(L, s, o.tier)
    finally:
        L.ebb_schedule_destroy(s)
    return ChainPlan(cost=info.cost, unit_bytes=info.unit_bytes, units=info.units,
                     slots=slots, actions=acts, places=places)


def chain_least_peak(forward_cost, reverse_cost, state_bytes, *, tier="host"):
    """(peak_bytes, plan): the checkpoints that hold the fewest bytes at once
    when no step is recomputed more than once, for the same chain as
    chain_plan, and that least peak, exact in bytes (x_0 included; 0 for one
    step). The plan is a ChainPlan of the same actions; its cost is its
    stream's (forward costs of every step run + reverse costs), its budget is
    counted in bytes (unit_bytes 1, units peak_bytes). Raises EbbError
    INVALID_ARG (which step, and why), ValueError for lists of different
    lengths."""
    chain, _keep = _chain(forward_cost, reverse_cost, state_bytes)
    L = _capi.lib()
    t = _capi.tier_index(tier)
    peak = ctypes.c_uint64()
    s = ctypes.c_void_p()
    _capi.check(L.ebb_chain_least_peak_create(ctypes.byref(chain), t, ctypes.byref(peak),
                                              ctypes.byref(s)))
    try:
        slots, acts, places = _drain(L, s, t)
    finally:
        L.ebb_schedule_destroy(s)
    cost = 0.0
    for kind, step, to, _slot in acts:
        if kind == ADVANCE:
            cost += sum(chain.forward_cost[k] for k in range(step, to))
        elif kind == REVERSE:
            cost += chain.reverse_cost[step]
    return peak.value, ChainPlan(cost=cost, unit_bytes=1, units=peak.value, slots=slots,
                                 actions=acts, places=places)
