"""The Python examples run, and their --check finds ebb's gradients bitwise
equal to plain autograd's."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def run(script, *args):
    r = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True,
                       text=True, timeout=300, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@pytest.mark.parametrize("disk", [False, True])
def test_lstm_long_check(disk, disk_dir):
    extra = ["--disk", str(disk_dir)] if disk else []
    out = run("lstm_long.py", "--steps", "150", "--hidden", "16", "--batch", "3", "--check", *extra)
    assert "bitwise equal" in out
    assert os.listdir(disk_dir) == []


def test_lstm_long_trains():
    out = run("lstm_long.py", "--steps", "100", "--hidden", "16", "--batch", "3",
              "--iterations", "2", "--slots", "4")
    assert "iteration 1: loss" in out


def test_snn_lif_check():
    out = run("snn_lif.py", "--steps", "150", "--hidden", "16", "--batch", "3", "--check")
    assert "bitwise equal" in out


def test_snn_lif_trains():
    out = run("snn_lif.py", "--steps", "100", "--hidden", "16", "--batch", "3",
              "--iterations", "2", "--slots", "4")
    assert "iteration 1: loss" in out
