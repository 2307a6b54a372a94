"""Shared fixtures of the Python binding's tests (pytest).

Run through ctest (label `python`), which sets EBB_LIBRARY to the library
just built and PYTHONPATH to bindings/python; run by hand, the source tree's
binding and build/release are used.
"""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "bindings" / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "bindings" / "python"))


def open_fds_under(directory):
    """This process's file descriptors open on files in `directory` (deleted
    ones included: ebb's disk files are unlinked from the start)."""
    directory = os.path.realpath(directory)
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(directory + "/"):
            out.append(target)
    return out


def thread_count():
    return len(os.listdir("/proc/self/task"))


_settled = False


def settle_process():
    """The CUDA runtime starts threads (and opens descriptors) the first time
    a process touches a device and keeps them until exit, and so does torch:
    theirs, not a leak of ebb's. One tiny run on the default configuration
    (whose GPU tier probes the device where there is one) and a tiny torch
    operation before a baseline is taken."""
    global _settled
    if _settled:
        return
    import ebb

    def forward(i, a, b):
        b[:] = a

    def reverse(i, x):
        pass

    with ebb.Run(64, 4, forward, reverse, strategy="store-all", slots=4) as run:
        run.forward(bytes(64))
        run.reverse()
    # torch starts its own threads lazily too: its intra-op pool at the first
    # parallel operation, autograd's device threads at the first backward,
    # CUDA's at the first device operation
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.ones(256, 256) @ torch.ones(256, 256)
        # autograd starts a thread per CUDA device at the first backward
        x = torch.ones(4, requires_grad=True)
        (x * 2).sum().backward()
        if torch.cuda.is_available():
            (torch.ones(16, device="cuda") * 2).sum().item()
    _settled = True


class Leftovers:
    """Snapshot of threads; then says what a finished run left behind."""

    def __init__(self, disk_dir):
        settle_process()
        self.disk_dir = disk_dir
        self.threads = thread_count()

    def check(self):
        files = os.listdir(self.disk_dir)
        fds = open_fds_under(self.disk_dir)
        threads = thread_count()
        assert files == [], f"files left in the disk directory: {files}"
        assert fds == [], f"file descriptors left open on the disk directory: {fds}"
        assert threads <= self.threads, f"threads left running: {threads} > {self.threads}"


@pytest.fixture
def disk_dir(tmp_path):
    d = tmp_path / "disk"
    d.mkdir()
    return d


@pytest.fixture
def disk_config(disk_dir):
    """A configuration whose disk tier is a fresh directory (64 MiB)."""
    import ebb
    return ebb.Config({"tier": {"disk": {"path": str(disk_dir), "budget": "64 MiB"}}})
