"""ebb: backpropagation through long sequences in any memory budget.

A pure-Python binding of libebb over ctypes (no compile step). The library is
found through EBB_LIBRARY, the source tree's build/release, or where it was
installed (ebb.library_path() says which); ebb.torch (imported on first use)
backpropagates a PyTorch step function through ebb. docs/python.md.
"""

import importlib

from ._capi import lib as _lib
from ._loader import path as library_path
from .chain import ChainPlan, chain_least_peak, chain_plan
from .config import Config
from .errors import EbbError, LibraryNotFoundError, status
from .runtime import LAST, Run, RunInfo, RunStats
from .schedule import SCHEDULES, STRATEGIES, PlanStats, actions, plan, revolve_forward_count, validate

__all__ = [
    "ChainPlan", "Config", "EbbError", "LAST", "LibraryNotFoundError", "PlanStats", "Run", "RunInfo",
    "RunStats", "SCHEDULES", "STRATEGIES", "actions", "chain_least_peak", "chain_plan",
    "library_path", "plan", "revolve_forward_count", "status", "validate", "version",
]


def version():
    """The version of the loaded library ("0.1.0")."""
    return _lib().ebb_version().decode()


def __getattr__(name):
    # `import ebb; ebb.torch.scan(...)` without importing torch for users who
    # do not need it
    if name == "torch":
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module 'ebb' has no attribute {name!r}")
