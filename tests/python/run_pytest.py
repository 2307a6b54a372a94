"""ctest's entry to one pytest file: skips (exit 77, ctest's SKIP_RETURN_CODE)
with a clear message when pytest, or torch for the torch tests, cannot be
imported by this interpreter; otherwise runs pytest on the file."""

import importlib
import sys

SKIP = 77


def main(argv):
    needs = []
    while argv and argv[0].startswith("--needs="):
        needs.append(argv.pop(0).split("=", 1)[1])
    for module in ["pytest"] + needs:
        try:
            importlib.import_module(module)
        except Exception as e:  # noqa: BLE001 - any import failure means skip
            print(f"SKIP: {sys.executable} cannot import {module} ({e}); install the Debian "
                  f"package python3-{module} (scripts/install-deps.sh does)")
            return SKIP
    import pytest
    return pytest.main(["-q", "-p", "no:cacheprovider", *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
