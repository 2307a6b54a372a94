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
    for what in ("EBB_LIBRARY: not set", "dynamic loader search libebb.so.0",
                 "dynamic loader search libebb.so"):
        assert what in r.stdout, (what, r.stdout)
    # a package outside a source checkout, not installed: no build tree to try
    assert "build tree" not in r.stdout and "bundled" not in r.stdout, r.stdout


def test_the_source_checkouts_package_uses_its_build_tree(tmp_path):
    lib = BINDING.parents[1] / "build" / "release" / "libebb.so"
    if not lib.exists():
        pytest.skip(f"{lib} is not built")
    r = python("import ebb; print(ebb.library_path())",
               {"EBB_LIBRARY": None, "LD_LIBRARY_PATH": None, "PYTHONPATH": str(BINDING)},
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(lib), r.stdout


# Stand-ins for a mirrored struct, each as a binding of another version of
# ebb would have it; the library must be refused naming the struct and field.
STAND_INS = [
    ("shrunk", "RunOptions", "c.RunOptions._fields_[:10]",
     ["ebb_run_options is", "bytes in the library, ", "in the binding",
      "ebb_run_options has 30 fields in the library, 10 in the binding",
      "ebb_run_options field 10: 'strategy' at offset"]),
    ("grown", "RunOptions", "c.RunOptions._fields_ + [('extra', ctypes.c_int64)]",
     ["ebb_run_options has 30 fields in the library, 31 in the binding",
      "ebb_run_options field 30: no field in the library, 'extra' at offset"]),
    ("a field missing", "RunOptions",
     "[f for f in c.RunOptions._fields_ if f[0] != 'state_tier']",
     ["ebb_run_options field 1: 'state_tier' at offset 8 (4 bytes) in the library, "
      "'device' at offset 8 (4 bytes) in the binding"]),
    ("reordered, same size", "RunOptions",
     "[c.RunOptions._fields_[i] for i in (0, 2, 1, *range(3, 26))]",
     ["ebb_run_options field 1: 'state_tier' at offset 8 (4 bytes) in the library, "
      "'device' at offset 8 (4 bytes) in the binding"]),
    ("retyped", "RunOptions",
     "[(n, ctypes.c_int64) if n == 'element' else (n, *r) for n, *r in c.RunOptions._fields_]",
     ["ebb_run_options field 22: 'element' at offset", "(4 bytes) in the library, 'element'",
      "(8 bytes) in the binding"]),
    ("reordered action", "Action",
     "[c.Action._fields_[i] for i in (0, 2, 1, 3, 4, 5, 6)]",
     ["ebb_action field 1: 'tier' at offset 4 (2 bytes) in the library, 'tier_to' at offset 4"]),
    ("shrunk stats", "ScheduleStats", "c.ScheduleStats._fields_[:-1]",
     ["ebb_schedule_stats has 10 fields in the library, 9 in the binding"]),
]


@pytest.mark.parametrize("name,cls,fields,whats", STAND_INS, ids=[s[0] for s in STAND_INS])
def test_a_library_whose_structs_differ_is_refused(name, cls, fields, whats):
    code = f"""
import ctypes, ebb, ebb._capi as c
class StandIn(ctypes.Structure):
    _fields_ = {fields}
c.{cls} = StandIn
for attempt in range(2):
    try:
        ebb.version()
        print("LOADED")
    except ebb.EbbError as e:
        print(e)
"""
    r = python(code, {"PYTHONPATH": str(BINDING)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "LOADED" not in r.stdout, r.stdout
    assert r.stdout.count("does not match the ebb library") == 2, r.stdout
    assert "Use the binding from the same source tree as the library" in r.stdout
    for what in whats:
        assert what in r.stdout, (what, r.stdout)


def test_the_binding_matches_its_library_exactly():
    """Every mirrored struct of ebb._capi: the library's size and fields."""
    import ebb._capi as c
    L = c.lib()
    for struct_name, attr in c.MIRRORED.items():
        assert c._library_layout(L, struct_name) == c._mirror_layout(getattr(c, attr))
    assert c.CONFIG_BYTES == c._library_layout(L, "ebb_config")[0] > 0


def test_a_callback_failure_reaches_ebb_message_intact():
    """ebb_callback_fail_message: the callback's text, '%' included, in ebb's
    message (no variadic call, no format string)."""
    import ebb

    def forward(i, a, b):
        if i == 2:
            raise ValueError("100% wrong, %s %n")
        b[:] = a

    with pytest.raises(ValueError) as info:
        with ebb.Run(64, 4, forward, lambda i, x: None, strategy="store-all", slots=4) as run:
            run.forward(bytes(64))
    notes = getattr(info.value, "__notes__", [])
    if notes:
        assert "forward step 2 failed: ValueError: 100% wrong, %s %n" in notes[0], notes


def test_pip_installs_the_package_offline(tmp_path):
    """pyproject.toml: `pip install --no-build-isolation` works with no index;
    with EBB_BUNDLE=0, from a copy of bindings/python alone, a package
    without the library (found through EBB_LIBRARY here); test_install.py
    has the package that bundles it."""
    pytest.importorskip("setuptools")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode:
        pytest.skip(f"{sys.executable} has no pip")
    src = tmp_path / "src"
    shutil.copytree(BINDING, src, ignore=shutil.ignore_patterns("__pycache__", "build",
                                                                "*.egg-info"))
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                        "--no-deps", "--no-index", "--target", str(target), str(src)],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "EBB_BUNDLE": "0"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (target / "ebb" / "libebb.so.0").exists()
    lib = os.environ.get("EBB_LIBRARY") or str(BINDING.parents[1] / "build" / "release" /
                                                "libebb.so")
    r = python("import ebb; print(ebb.__file__); print(ebb.version())",
               {"PYTHONPATH": str(target), "EBB_LIBRARY": lib}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert str(target) in r.stdout and r.stdout.strip().endswith(
        python("import ebb; print(ebb.version())", {"PYTHONPATH": str(BINDING)}).stdout.strip())
