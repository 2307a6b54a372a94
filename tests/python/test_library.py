"""Finding and loading libebb: a clear error saying what was tried, and the
layout check that refuses a library the binding does not match."""

import ctypes.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BINDING = Path(__file__).resolve().parents[2] / "bindings" / "python"


def python(code, env_changes, cwd=None):
    env = dict(os.environ)
    for k, v in env_changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=60)


PROBE = """
import ebb
try:
    ebb.version()
except ebb.LibraryNotFoundError as e:
    print("NOT FOUND")
    print(e)
    print("TRIED", len(e.tried))
"""


def test_ebb_library_pointing_nowhere(tmp_path):
    missing = tmp_path / "nowhere" / "libebb.so"
    r = python(PROBE, {"EBB_LIBRARY": str(missing), "PYTHONPATH": str(BINDING)})
    assert r.returncode == 0, r.stderr
    assert "NOT FOUND" in r.stdout
    assert f"EBB_LIBRARY={missing}" in r.stdout and "No such file" in r.stdout
    assert "Set EBB_LIBRARY" in r.stdout and "TRIED 1" in r.stdout


def test_ebb_library_that_is_not_a_library(tmp_path):
    fake = tmp_path / "libebb.so"
    fake.write_text("not an ELF file\n")
    r = python(PROBE, {"EBB_LIBRARY": str(fake), "PYTHONPATH": str(BINDING)})
    assert "NOT FOUND" in r.stdout and str(fake) in r.stdout, r.stdout + r.stderr


def test_nothing_found_lists_every_place_tried(tmp_path):
    if ctypes.util.find_library("ebb"):
        pytest.skip("libebb is installed system-wide here: the search would find it")
    shutil.copytree(BINDING / "ebb", tmp_path / "pkg" / "ebb",
                    ignore=shutil.ignore_patterns("__pycache__"))
    r = python(PROBE, {"EBB_LIBRARY": None, "LD_LIBRARY_PATH": None,
                       "PYTHONPATH": str(tmp_path / "pkg")}, cwd=tmp_path)
    assert "NOT FOUND" in r.stdout, r.stdout + r.stderr
    for what in ("EBB_LIBRARY: not set", "build tree", "build/release/libebb.so",
                 "dynamic loader search libebb.so.0", "dynamic loader search libebb.so"):
        assert what in r.stdout, (what, r.stdout)


@pytest.mark.parametrize("fields,what", [
    ("c.RunOptions._fields_[:10]", "Small is larger in the library"),
    ("[f for f in c.RunOptions._fields_ if f[0] != 'state_tier']",
     "ebb_run_options defaults read back wrong"),
])
def test_a_library_whose_structs_differ_is_refused(fields, what):
    code = f"""
import ctypes, ebb, ebb._capi as c
class Small(ctypes.Structure):
    _fields_ = {fields}
c.RunOptions = Small
try:
    ebb.version()
except ebb.EbbError as e:
    print(e)
"""
    r = python(code, {"PYTHONPATH": str(BINDING)})
    assert "does not match the ebb library" in r.stdout, r.stdout + r.stderr
    assert what in r.stdout, r.stdout


def test_pip_installs_the_package_offline(tmp_path):
    """pyproject.toml: `pip install --no-build-isolation` works with no index."""
    pytest.importorskip("setuptools")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip(f"{sys.executable} has no pip")
    src = tmp_path / "src"
    shutil.copytree(BINDING, src, ignore=shutil.ignore_patterns("__pycache__", "build",
                                                                "*.egg-info"))
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                        "--no-deps", "--no-index", "--target", str(target), str(src)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    r = python("import ebb; print(ebb.__file__); print(ebb.version())",
               {"PYTHONPATH": str(target)}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert str(target) in r.stdout and r.stdout.strip().endswith(
        python("import ebb; print(ebb.version())", {"PYTHONPATH": str(BINDING)}).stdout.strip())
