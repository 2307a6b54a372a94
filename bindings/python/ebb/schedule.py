"""Planning and validating checkpointing schedules (include/ebb/schedule.h)."""

import ctypes
from dataclasses import dataclass, field

from . import _capi
from .errors import EbbError, status

#: the schedules plan(), actions() and validate() generate
SCHEDULES = ("store-all", "periodic", "revolve", "online", "multistage", "disk-revolve",
             "h-revolve")
#: every strategy a run (ebb.Run, ebb.torch.scan) accepts: the schedules, plus
#: "async" (revolve intervals with transfers in the background) and "auto"
#: (ebb picks; ebb_config_strategy in include/ebb/config.h)
STRATEGIES = SCHEDULES + ("async", "auto")


@dataclass
class PlanStats:
    """What a schedule costs, as the replay validator counted it."""

    strategy: str
    steps: int
    slots: dict = field(default_factory=dict)  # per tier: the schedule's budget
    actions: int = 0
    forward_steps: int = 0      # first sweep included
    recomputed_steps: int = 0   # forward_steps - steps
    reverse_steps: int = 0
    stores: dict = field(default_factory=dict)
    restores: dict = field(default_factory=dict)
    transfers_out: dict = field(default_factory=dict)
    transfers_in: dict = field(default_factory=dict)
    peak_slots: dict = field(default_factory=dict)
    complete: bool = False


def _stats(strategy, slots, st):
    return PlanStats(
        strategy=strategy, steps=st.steps, slots=slots, actions=st.actions,
        forward_steps=st.forward_steps, recomputed_steps=st.forward_steps - st.steps,
        reverse_steps=st.reverse_steps, stores=_capi.per_tier(st.stores),
        restores=_capi.per_tier(st.restores), transfers_out=_capi.per_tier(st.transfers_out),
        transfers_in=_capi.per_tier(st.transfers_in), peak_slots=_capi.per_tier(st.peak_slots),
        complete=bool(st.complete))


def _options(steps, slots, strategy, disk_slots, period, io_ratio, fast_tier, slow_tier,
             costs=(1.0, 1.0, 1.0)):
    L = _capi.lib()
    o = _capi.ScheduleOptions()
    L.ebb_schedule_options_init(ctypes.byref(o))
    s = ctypes.c_int()
    _capi.check(L.ebb_strategy_from_name(strategy.encode(), ctypes.byref(s)))
    o.strategy = s.value
    o.steps = int(steps)
    o.slots = int(slots)
    if disk_slots is not None:
        o.disk_slots = int(disk_slots)
    elif o.strategy != 5:  # disk-revolve: -1 = as many as needed
        o.disk_slots = 0
    o.period = int(period)
    o.io_ratio = float(io_ratio)
    o.fast_tier = _capi.tier_index(fast_tier, "fast_tier")
    o.slow_tier = _capi.tier_index(slow_tier, "slow_tier")
    o.write_cost, o.read_cost, o.reverse_cost = (float(c) for c in costs)
    return o


def plan(steps, slots, strategy="revolve", *, disk_slots=None, period=0, io_ratio=0.0,
         fast_tier="host", slow_tier="disk", write_cost=1.0, read_cost=1.0,
         reverse_cost=1.0):
    """Generates the schedule for `steps` steps and `slots` fast-tier slots,
    replays it through the validator and returns its PlanStats. write_cost,
    read_cost (one slow-tier write and read) and reverse_cost (one reverse
    step), in forward steps, are what "h-revolve" minimises. Raises
    EbbError (EBB_ERR_INVALID_ARG: the message says which option is wrong)."""
    L = _capi.lib()
    o = _options(steps, slots, strategy, disk_slots, period, io_ratio, fast_tier, slow_tier,
                 (write_cost, read_cost, reverse_cost))
    st = _capi.out(_capi.ScheduleStats)
    _capi.check(L.ebb_schedule_validate(ctypes.byref(o), ctypes.byref(st)))
    _capi.filled(st)
    budget = {t: 0 for t in _capi.TIERS}
    budget[_capi.TIERS[o.fast_tier]] = o.slots
    if o.disk_slots > 0:
        budget[_capi.TIERS[o.slow_tier]] = o.disk_slots
    return _stats(strategy, budget, st)


def actions(steps, slots, strategy="revolve", *, disk_slots=None, period=0, io_ratio=0.0,
            fast_tier="host", slow_tier="disk", write_cost=1.0, read_cost=1.0,
            reverse_cost=1.0):
    """The schedule's whole action stream as text lines ("store 0 host[0]"),
    in the form `ebb plan --actions` prints and validate() reads."""
    L = _capi.lib()
    o = _options(steps, slots, strategy, disk_slots, period, io_ratio, fast_tier, slow_tier,
                 (write_cost, read_cost, reverse_cost))
    lines = []
    buf = ctypes.create_string_buffer(128)

    def visit(_user, acts, count):
        for i in range(count):
            L.ebb_action_format(ctypes.byref(acts[i]), buf, len(buf))
            lines.append(buf.value.decode())
        return 0

    st = _capi.out(_capi.ScheduleStats)
    _capi.check(L.ebb_schedule_replay(ctypes.byref(o), ctypes.byref(st),
                                      _capi.VISITOR_FN(visit), None))
    _capi.filled(st)
    return lines


def validate(stream, steps, slots=0, *, disk_slots=0, gpu_slots=0):
    """Replays an action stream (text lines, or one text with a line per
    action) for `steps` steps (0: learnt from TURN) with `slots` host slots,
    `disk_slots` disk slots and `gpu_slots` gpu slots. Returns PlanStats;
    raises EbbError (status SCHEDULE) naming the first action that breaks a
    rule, or the line that is not an action."""
    L = _capi.lib()
    if isinstance(stream, str):
        stream = stream.splitlines()
    counts = (ctypes.c_int32 * _capi.TIER_COUNT)(int(gpu_slots), int(slots), int(disk_slots))
    v = ctypes.c_void_p()
    _capi.check(L.ebb_validator_create(int(steps), counts, ctypes.byref(v)))
    try:
        a = _capi.out(_capi.Action)
        for number, line in enumerate(stream, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            st = L.ebb_action_parse(line.encode(), ctypes.byref(a))
            if st != status.OK:
                e = _capi.error(st)
                raise EbbError(e.status, e.name, f"line {number}: {e.message}")
            _capi.check(L.ebb_validator_check(v, ctypes.byref(_capi.filled(a)), 1))
        _capi.check(L.ebb_validator_finish(v))
        st = _capi.out(_capi.ScheduleStats)
        _capi.check(L.ebb_validator_stats(v, ctypes.byref(st)))
        _capi.filled(st)
    finally:
        L.ebb_validator_destroy(v)
    return _stats(None, _capi.per_tier(counts), st)


def revolve_forward_count(steps, slots):
    """Revolve's forward step count (first sweep included) for n steps, C slots."""
    L = _capi.lib()
    out = ctypes.c_int64()
    _capi.check(L.ebb_revolve_forward_count(int(steps), int(slots), ctypes.byref(out)))
    return out.value
