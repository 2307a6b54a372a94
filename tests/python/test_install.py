"""Installing the Python package: `pip install --no-build-isolation
./bindings/python` into a fresh venv bundles libebb, and `make install`
(cmake --install) puts the package under the prefix beside the library; in
both `import ebb.torch` works with no EBB_LIBRARY, the loader lists only the
places that apply to an installed package, and the source tree is left as
it was (no untracked build/, *.egg-info)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINDING = ROOT / "bindings" / "python"
BUILD = Path(os.environ.get("EBB_BUILD_DIR", ROOT / "build" / "release"))

# a tiny scan through ebb, its gradient against the unrolled loop
SMOKE = """
import ebb, ebb.torch, torch
print("LIBRARY", ebb.library_path())
w = torch.tensor(0.9, requires_grad=True)
def step(h, t):
    h = torch.tanh(h * w)
    return h, h.sum()
h0 = torch.linspace(-1, 1, 4)
h_n, loss = ebb.torch.scan(step, h0, 7, params=[w], strategy="revolve", slots=2)
loss.backward()
g = w.grad.clone(); w.grad = None
h, ref = h0, 0
for t in range(7):
    h, l = step(h, t); ref = ref + l
ref.backward()
assert torch.equal(g, w.grad), (g, w.grad)
print("SCAN OK")
"""

PROBE = """
import ebb
try:
    ebb.version()
except ebb.LibraryNotFoundError as e:
    print(e)
"""


def tried(text):
    """The list of places tried, from a LibraryNotFoundError's message."""
    return "\n".join(line for line in text.splitlines() if line.startswith("  "))


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("EBB_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env.update(extra)
    return env


def git_status():
    r = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"not a git checkout ({r.stderr.strip()})")
    return set(r.stdout.splitlines())


def needs_built_library():
    if not (BUILD / "CMakeCache.txt").exists():
        pytest.skip(f"no CMake build in {BUILD} (set EBB_BUILD_DIR)")


def test_pip_install_into_a_fresh_venv_bundles_the_library(tmp_path):
    pytest.importorskip("setuptools")
    needs_built_library()
    before = git_status()
    venv = tmp_path / "venv"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        pytest.skip(f"{sys.executable} -m venv fails here (python3-venv?): {r.stderr}")
    py = venv / "bin" / "python"
    # A python3 that is itself a venv's (torch installed there, not in the
    # system's site-packages) gives the new venv its packages by a .pth file.
    if sys.prefix != sys.base_prefix:
        r = subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"],
                           capture_output=True, text=True, timeout=60, check=True)
        Path(r.stdout.strip(), "parent-venv.pth").write_text(
            "\n".join(p for p in sys.path if p.endswith("-packages")) + "\n")
    env = clean_env(EBB_CMAKE_BUILD_DIR=str(BUILD), CMAKE_BUILD_PARALLEL_LEVEL="2",
                    PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    r = subprocess.run([str(py), "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                        str(BINDING)], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([str(py), "-c", SMOKE], capture_output=True, text=True,
                       env=clean_env(), cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SCAN OK" in r.stdout
    lib = Path(r.stdout.split("LIBRARY ", 1)[1].split()[0])
    assert lib.is_relative_to(venv), f"loaded {lib}, not the venv's own copy"
    # the places tried are those of an installed package: no build tree
    lib.unlink()
    r = subprocess.run([str(py), "-c", PROBE], capture_output=True, text=True,
                       env=clean_env(), cwd=tmp_path, timeout=60)
    assert f"bundled with this package {lib}: no such file" in r.stdout, r.stdout + r.stderr
    assert "build tree" not in tried(r.stdout), r.stdout
    assert git_status() == before, "pip left files in the source tree"


def test_make_install_puts_the_package_beside_the_library(tmp_path):
    needs_built_library()
    before = git_status()
    prefix = tmp_path / "prefix"
    # what `make install PREFIX=...` runs once the build is done
    r = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    site = prefix / "lib" / "python3" / "dist-packages"
    assert (site / "ebb" / "torch.py").exists(), sorted(str(p) for p in prefix.rglob("*"))
    r = subprocess.run([sys.executable, "-c", SMOKE], capture_output=True, text=True,
                       env=clean_env(PYTHONPATH=str(site)), cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    lib = Path(r.stdout.split("LIBRARY ", 1)[1].split()[0])
    assert lib.is_relative_to(prefix) and lib.name == "libebb.so.0", lib
    if (BUILD / "bindings" / "fortran" / "mod" / "ebb.mod").exists():
        assert (prefix / "include" / "ebb" / "fortran" / "ebb.mod").exists()
        assert list(prefix.glob("lib*/**/libebb_fortran.a")), "no libebb_fortran.a installed"
    for f in prefix.glob("lib*/**/libebb.so*"):
        f.unlink()
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                       env=clean_env(PYTHONPATH=str(site)), cwd=tmp_path, timeout=60)
    assert f"installed with this package {lib}: no such file" in r.stdout, r.stdout + r.stderr
    assert "build tree" not in tried(r.stdout), r.stdout
    assert git_status() == before, "install left files in the source tree"


def test_pip_without_a_source_tree_says_what_to_do(tmp_path):
    """A copy of bindings/python alone has no library to bundle: pip fails
    saying how to give one (or EBB_BUNDLE=0 for a package that finds libebb
    at run time, test_library.py)."""
    pytest.importorskip("setuptools")
    src = tmp_path / "src"
    shutil.copytree(BINDING, src, ignore=shutil.ignore_patterns("__pycache__", "build",
                                                                "*.egg-info"))
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation",
                        "--no-deps", "--no-index", "--target", str(tmp_path / "site"), str(src)],
                       capture_output=True, text=True, timeout=300,
                       env=clean_env(PIP_DISABLE_PIP_VERSION_CHECK="1"))
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "no ebb source tree" in out and "EBB_BUNDLE_LIBRARY" in out and "EBB_BUNDLE=0" in out, out
