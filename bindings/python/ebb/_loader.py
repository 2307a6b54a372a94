"""Finds and loads libebb.so.

Order: the EBB_LIBRARY variable (when set, nothing else is tried); the
library this package was installed with, when it was (ebb/_install_info.py,
written by pip's build, which bundles libebb.so.0 into the package, or by
`make install`, which records where under the prefix the library went);
the build tree (build/release) when the package is the one in a source
checkout (bindings/python/ebb); then the dynamic loader's own search
(LD_LIBRARY_PATH, ld.so.cache). Only the places that apply to this copy of
the package are tried, and each is listed in LibraryNotFoundError. The
library is loaded on first use, so `import ebb` works without it.
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


def _installed():
    """(how, path) of the library recorded at installation, or None."""
    try:
        from . import _install_info
    except ImportError:
        return None
    here = Path(__file__).resolve().parent
    return _install_info.HOW, os.path.normpath(here / _install_info.LIBRARY)


def _source_checkout():
    """The root of the source tree this package sits in (bindings/python/ebb), or None."""
    here = Path(__file__).resolve().parent
    root = here.parents[2]
    if here.parent.name == "python" and here.parents[1].name == "bindings" and \
            (root / "CMakeLists.txt").exists():
        return root
    return None


def _candidates():
    """(description, path-or-name) pairs to try, in order."""
    out = []
    installed = _installed()
    if installed:
        out.append(installed)
    root = _source_checkout()
    if root is not None:
        out.append(("build tree", str(root / "build" / "release" / "libebb.so")))
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
