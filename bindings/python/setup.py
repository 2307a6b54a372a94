"""Bundles libebb into the package that `pip install ./bindings/python`
builds (the rest of the metadata is in pyproject.toml).

The library comes from, in this order:
  EBB_BUNDLE=0                  none: the package finds libebb at run time
                                (EBB_LIBRARY, the dynamic loader)
  EBB_BUNDLE_LIBRARY=/path/libebb.so   that file
  the ebb source tree this folder sits in (or EBB_SOURCE_DIR): CMake builds
                                its `ebb` target in EBB_CMAKE_BUILD_DIR, else
                                build/release when it is configured, else a
                                fresh build/python (Release, no tests)
and is copied into the package as ebb/libebb.so.0, with ebb/_install_info.py
telling the loader where it is. Works offline with Debian's python3-setuptools
and cmake: pip install --no-build-isolation ./bindings/python
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent


def _source_tree():
    root = Path(os.environ.get("EBB_SOURCE_DIR") or HERE.parents[1])
    cm = root / "CMakeLists.txt"
    if cm.exists() and "project(ebb" in cm.read_text(errors="replace"):
        return root
    return None


def _cmake_build(root):
    """Builds the `ebb` target; returns the path of libebb.so."""
    build = os.environ.get("EBB_CMAKE_BUILD_DIR")
    if build:
        build = Path(build)
    elif (root / "build" / "release" / "CMakeCache.txt").exists():
        build = root / "build" / "release"
    else:
        build = root / "build" / "python"
    if not (build / "CMakeCache.txt").exists():
        subprocess.run(["cmake", "-S", str(root), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        "-DEBB_BUILD_TESTS=OFF"], check=True)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    subprocess.run(["cmake", "--build", str(build), "--target", "ebb", "--parallel", jobs],
                   check=True)
    lib = build / "libebb.so"
    if not lib.exists():
        raise SystemExit(f"ebb: CMake built the ebb target but {lib} is not there")
    return lib


def _library():
    """The libebb to bundle, or None (EBB_BUNDLE=0)."""
    if os.environ.get("EBB_BUNDLE", "1") == "0":
        return None
    given = os.environ.get("EBB_BUNDLE_LIBRARY")
    if given:
        if not Path(given).is_file():
            raise SystemExit(f"ebb: EBB_BUNDLE_LIBRARY={given}: no such file")
        return Path(given)
    root = _source_tree()
    if root is None:
        raise SystemExit(
            f"ebb: no ebb source tree above {HERE} to build libebb from, so there is no "
            "library to bundle into the package. Install from the source tree "
            "(pip install ./bindings/python), or set EBB_SOURCE_DIR to the tree, or "
            "EBB_BUNDLE_LIBRARY to a built libebb.so, or EBB_BUNDLE=0 for a package "
            "without the library (it then needs EBB_LIBRARY or libebb on the loader's path)")
    return _cmake_build(root)


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        lib = _library()
        if lib is None:
            return
        pkg = Path(self.build_lib) / "ebb"
        shutil.copyfile(lib.resolve(), pkg / "libebb.so.0")
        (pkg / "_install_info.py").write_text(
            '"""Written by setup.py: where the library of this installed package is."""\n'
            'HOW = "bundled with this package"\n'
            'LIBRARY = "libebb.so.0"  # relative to this folder\n')


class Platform(Distribution):
    """A wheel with libebb in it is for this platform, not pure Python."""

    def has_ext_modules(self):
        return _library_wanted()


def _library_wanted():
    return os.environ.get("EBB_BUNDLE", "1") != "0"


setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=Platform)
