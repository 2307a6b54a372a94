"""ebb.torch.scan's budgets: `memory=` (the budget of the state's tier) and
`offload=` (a CUDA state's states also kept in pinned host memory), each
written into a copy of the run's configuration."""

import operator

from . import runtime
from .config import Config

# the strategies that use a tier slower than the state's own
_OFFLOAD_STRATEGIES = ("async", "multistage", "disk-revolve", "h-revolve")


def _budget_bytes(value, what, tier, layout, steps):
    """`value` as a budget for `tier`: bytes (an int), a size text (left to
    ebb's configuration to read), or a float in (0, 1], that fraction of
    store-all's n - 1 states, each a slot of the tier's stride."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be bytes (an int or a size text) or a fraction, got "
                        f"{value!r}")
    if isinstance(value, float):
        if steps is None:
            raise ValueError(f"{what} as a fraction of what store-all needs needs n, which is "
                             "not known with until=: give bytes")
        if not 0 < value <= 1:
            raise ValueError(f"{what} as a fraction of what store-all needs is in (0, 1], got "
                             f"{value!r}; give bytes as an int")
        stride = runtime.slot_stride(tier, layout.size)
        return int(value * (steps - 1)) * stride
    if isinstance(value, str):
        return value
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be bytes (an int or a size text) or a fraction, "
                        f"got {type(value).__name__}") from None


def state_tier(layout):
    return "gpu" if layout.device.type == "cuda" else "host"


def with_memory(config, memory, layout, steps):
    """A copy of `config` (a Config or None) whose budget for the state's
    tier is `memory`."""
    tier = state_tier(layout)
    out = Config(config)
    out.update({"tier": {tier: {"budget": _budget_bytes(memory, "memory", tier, layout,
                                                         steps)}}})
    return out


def with_offload(config, offload, layout, steps, strategy, disk_slots):
    """offload= for a CUDA state: (config, strategy, slow tier). The states
    also go to pinned host slots while the device computes and come back
    ahead of the reverse sweep: strategy async unless another that uses a
    slower tier is asked, the host tier's budget from `offload` (True: every
    state store-all would keep; with n unknown, the configuration's), and no
    disk tier."""
    if offload is None or offload is False:
        return config, strategy, None
    if layout.device.type != "cuda":
        raise ValueError(f"offload is for a CUDA state; this state is on {layout.device}, "
                         "whose slots are host memory already (a disk tier: strategy "
                         "\"multistage\" or \"async\" with tier.disk in config)")
    if strategy is None:
        strategy = "async"
    elif strategy not in _OFFLOAD_STRATEGIES:
        raise ValueError(f"offload needs a strategy that uses a slower tier "
                         f"({', '.join(_OFFLOAD_STRATEGIES)}; None: async), got {strategy!r}")
    if disk_slots is not None:
        raise ValueError("offload= sets the host tier's budget; disk_slots would set it again: "
                         "give one of them")
    host = {"enabled": True}
    if offload is not True:
        host["budget"] = _budget_bytes(offload, "offload", "host", layout, steps)
    elif steps is not None:
        host["budget"] = max(1, steps - 1) * runtime.slot_stride("host", layout.size)
    out = Config(config)
    out.update({"tier": {"host": host, "disk": {"enabled": False}}})
    return out, strategy, "host"
