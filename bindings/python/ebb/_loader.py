"""Finds and loads libebb.so.

Order: the EBB_LIBRARY variable (when set, nothing else is tried), the build
tree of the source checkout this package sits in (build/release), the
installation prefix this package was installed under, then the dynamic
loader's own search (LD_LIBRARY_PATH, ld.so.cache). The library is loaded
on first use, so `import ebb` works without it.
"""

import ctypes
import ctypes.util
import os
import threading
from pathlib import Path

from .errors import LibraryNotFoundError

_lock = threading.Lock()
_loaded = None

_NAMES = ("libebb.so", "libebb.so.0")


def _candidates():
    """(description, path-or-name) pairs to try, in order."""
    here = Path(__file__).resolve().parent
    # bindings/python/ebb -> the repository root
    repo = here.parents[2]
    out = [("build tree", str(repo / "build" / "release" / "libebb.so"))]
    # <prefix>/lib[/<multiarch>]/python3*/site-packages/ebb, or a pip
    # install next to it: look for <ancestor>/lib/libebb.so.0
    for ancestor in list(here.parents)[1:6]:
        for libdir in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
            p = ancestor / libdir / "libebb.so.0"
            if p.exists():
                out.append(("installed next to this package", str(p)))
    for name in _NAMES[::-1]:
        out.append(("dynamic loader search", name))
    found = ctypes.util.find_library("ebb")
    if found:
        out.append(("ctypes.util.find_library('ebb')", found))
    return out


def _open(path):
    # CDLL releases the GIL around every call, so ebb's I/O threads and other
    # Python threads run while a sweep does; callbacks take it back.
    return ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)


def load():
    """The loaded library (a ctypes.CDLL), loading it on the first call.

    Raises LibraryNotFoundError listing every place tried."""
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        tried = []
        env = os.environ.get("EBB_LIBRARY")
        if env:
            try:
                lib = _open(env)
            except OSError as e:
                tried.append((f"EBB_LIBRARY={env}", str(e)))
                raise LibraryNotFoundError(tried) from None
            _loaded = lib
            return lib
        tried.append(("EBB_LIBRARY", "not set"))
        for what, path in _candidates():
            if os.sep in path and not os.path.exists(path):
                tried.append((f"{what} {path}", "no such file"))
                continue
            try:
                lib = _open(path)
            except OSError as e:
                tried.append((f"{what} {path}", str(e)))
                continue
            _loaded = lib
            return lib
        raise LibraryNotFoundError(tried)


def path():
    """The file the loaded library came from."""
    return load()._name
