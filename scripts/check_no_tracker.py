#!/usr/bin/env python3
"""Fails when the docs or the sources cite a tracker or keep a status log.

A reader of the repository has no tracker: docs say what is, history goes
to CHANGELOG.md and figures to benchmarks/RESULTS.md. This scans the user
docs (docs/*.md, README.md, CONTRIBUTING.md, examples' READMEs) and every
source file (C, C++, Python, Fortran, shell, CMake) for a reference such as
"issue 21" or "issues #3", and the docs for a paragraph that opens with "Status", and
prints file:line for each.

  scripts/check_no_tracker.py [ROOT]

Exit 1 when one is found, 0 with a one-line summary otherwise.
"""
import os
import re
import subprocess
import sys

TRACKER = re.compile(r"\bissues? ?#?[0-9]+", re.I)
STATUS = re.compile(r"^\s*(\*\*)?Status\b")
SOURCES = (".c", ".h", ".cpp", ".hpp", ".py", ".f90", ".F90", ".sh", ".cmake", ".toml", ".in")
SKIP = {"benchmarks/RESULTS.md", "CHANGELOG.md", "scripts/check_no_tracker.py"}


def is_doc(path):
    return (path.startswith("docs/") and path.endswith(".md")) or path in (
        "README.md", "CONTRIBUTING.md") or (path.startswith("examples/") and path.endswith(".md"))


def wanted(path):
    name = os.path.basename(path)
    return path not in SKIP and (is_doc(path) or path.endswith(SOURCES) or
                                 name in ("CMakeLists.txt", "Makefile"))


def files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x != "build"]
            out += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(p for p in out if p and wanted(p))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))
    found, scanned = 0, 0
    for path in files(root):
        try:
            text = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        scanned += 1
        for no, line in enumerate(text.splitlines(), 1):
            if TRACKER.search(line) or (is_doc(path) and STATUS.match(line)):
                print(f"{path}:{no}: {line.strip()[:120]}")
                found += 1
    if found:
        print(f"check_no_tracker: {found} tracker references or status paragraphs in {scanned} "
              "files: say what is; history goes to CHANGELOG.md, figures to "
              "benchmarks/RESULTS.md")
        return 1
    print(f"check_no_tracker: none in {scanned} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
