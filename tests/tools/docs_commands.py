#!/usr/bin/env python3
"""Runs the `ebb` commands README.md and docs/*.md show, so the docs stay
true: every indented line `$ ebb ...` (or `$ ./build/release/tools/ebb ...`,
continued by a trailing backslash) and every indented `ebb ...` line with
concrete values (no placeholder such as N, FILE or [--json]). A command
that takes long at the size shown (`ebb run`, `ebb bench`) runs with small
sizes and must succeed; any other runs as written, in one scratch folder
per page (so `> s.txt` feeds the next command), and what the page shows
after it must be what it prints: line by line, spaces collapsed, up to a
line `...`, a timing's figures (a line with "s" after a number, or "/s")
compared only before its parenthesis. A shown error (a line "ebb CMD: line
K: ..." or saying invalid, cannot, must, unknown or needs; "valid": false)
means the command must fail; `$ echo $?` checks the status.

With H_REVOLVE_BENCH, docs/h_revolve.md's table of costs ("| n | C | D |
W | R | B | h-revolve ...") must be the one that program prints.

usage: docs_commands.py EBB_PROGRAM SOURCE_DIR [H_REVOLVE_BENCH]
"""
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

ebb, src = os.path.abspath(sys.argv[1]), sys.argv[2]

# Files a page describes in words rather than by a command (schedules.md:
# "the same with line 18 changed from ... to ...").
SETUP = {
    "six.txt": "ebb plan --steps 6 --slots 2 --actions > six.txt",
    "six_bad.txt": "sed '18s/restore 1 host\\[1\\]/restore 2 host[1]/' six.txt > six_bad.txt",
    # docs/heterogeneous.md's chain, as the page lists it
    "blocks.txt": "printf '# stem, six blocks in two sizes, head\\n1 2 48KiB\\n3 x 2 5 16KiB\\n"
                  "3 x 5 9 64KiB\\n1 1 4KiB\\n' > blocks.txt",
    "tapes.txt": "printf '1 3 48KiB 2 96KiB\\n3 x 2 6 16KiB 4 32KiB\\n3 x 5 14 64KiB 9 128KiB\\n"
                 "1 2 4KiB 1 4KiB\\n' > tapes.txt",
}
# Small sizes for the commands that take long as shown.
SHRINK = {
    "run": {"--steps": "30", "--state-size": "64KiB", "--forward-ms": "1", "--reverse-ms": "2"},
    "bench": {"--size": "16MiB", "--total": "16MiB", "--block": "1MiB"},
}
PLACEHOLDER = re.compile(r"\[|\b(N|C|D|G|F|B|FILE|BYTES|SIZE|S)\b|\.\.\.|<")
ERROR = re.compile(r"ebb [a-z]+: (line \d+|.*\b(invalid|cannot|must|unknown|needs)\b)")
TIMING = re.compile(r"\d s\b|/s\b|\d+\.\d+ s")


def commands(path):
    """(line number, command, shown output lines) of a page."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i, fenced = [], 0, False
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not line.startswith("    "):
            i += 1
            continue
        text = line.strip()
        shown_cmd = text.startswith("$ ")
        if shown_cmd:
            text = text[2:]
        plain = not shown_cmd and text.startswith("ebb ") and not re.match(r"ebb [a-z]+:", text)
        if not shown_cmd and not plain:
            i += 1
            continue
        start = i + 1
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        i += 1
        shown = []
        if shown_cmd:
            while i < len(lines) and not lines[i].strip().startswith("$ "):
                if lines[i].startswith("    "):
                    shown.append(lines[i].strip())
                elif lines[i] == "" and i + 1 < len(lines) and lines[i + 1].startswith("    "):
                    shown.append("")  # a blank line inside the output
                else:
                    break
                i += 1
        first = text.split()[0] if text.split() else ""
        if first != "ebb" and not first.endswith("/tools/ebb"):
            continue  # another program (an example's)
        if plain and PLACEHOLDER.search(text.replace("--", "")):
            continue
        out.append((start, text, shown))
    return out


def words(line):
    return " ".join(line.split())


def compare(shown, got):
    """None, or what differs between the page's lines and the program's."""
    for k, want in enumerate(shown):
        if want == "...":
            return None
        if k >= len(got):
            return f"line {k + 1}: the program printed nothing, the page shows '{want}'"
        w, g = words(want), words(got[k])
        if TIMING.search(w):
            w, g = w.split("(")[0].strip(), g.split("(")[0].strip()
        if w != g:
            return f"line {k + 1}: the page shows '{want}', the program prints '{got[k]}'"
    return None


def prepare(text):
    """The command to run (the built program's path, smaller sizes) and
    whether it was changed."""
    cmd = re.sub(r"(^|[|;&] *)(\./build/release/tools/)?ebb ", lambda m: m.group(1) + shlex.quote(ebb) + " ", text)
    try:
        argv = shlex.split(text)
    except ValueError:
        return cmd, False
    sub = argv[1] if len(argv) > 1 else ""
    if sub not in SHRINK:
        return cmd, False
    for opt, small in SHRINK[sub].items():
        cmd = re.sub(re.escape(opt) + r"(=| +)[^ ]+", opt + " " + small, cmd)
    return cmd, True


failures, ran = [], 0
pages = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
for page in pages:
    name = os.path.relpath(page, src)
    with tempfile.TemporaryDirectory() as work:
        last_status = None
        for line_no, text, shown in commands(page):
            where = f"{name}:{line_no}: {text}"
            if text == "echo $?":
                if shown and last_status is not None and shown[0] != str(last_status):
                    failures.append(f"{where}: the page shows {shown[0]}, the status was {last_status}")
                continue
            for f in sorted(SETUP):  # six.txt before six_bad.txt
                if f in text or (f == "six.txt" and "six_bad.txt" in text):
                    if not os.path.exists(os.path.join(work, f)):
                        subprocess.run(prepare(SETUP[f])[0], shell=True, cwd=work, check=False)
            if re.search(r"--config +\S+", text) and not re.search(r"--config +\S+", text).group(0).split()[1] in os.listdir(work):
                print(f"skip {where}: its configuration file is the page's own example")
                continue
            cmd, shrunk = prepare(text)
            try:
                p = subprocess.run(["sh", "-c", cmd], cwd=work, capture_output=True, text=True, timeout=300)
            except subprocess.TimeoutExpired:
                failures.append(f"{where}: still running after 300 s")
                continue
            ran += 1
            last_status = p.returncode
            got = (p.stdout + p.stderr).rstrip("\n").split("\n")
            must_fail = any(ERROR.match(s) or '"valid": false' in s for s in shown)
            if must_fail != (p.returncode != 0):
                failures.append(f"{where}: exit status {p.returncode} ({'should fail' if must_fail else 'should succeed'}): {p.stderr.strip()[:300]}")
                continue
            if shown and not shrunk:
                why = compare(shown, got)
                if why:
                    failures.append(f"{where}: {why}")
            print(f"ok {where}{' (small sizes)' if shrunk else ''}")

if len(sys.argv) > 3:
    bench = subprocess.run([sys.argv[3]], capture_output=True, text=True, timeout=300)
    printed = [l for l in bench.stdout.split("\n") if l.startswith("| ")]  # no "|---|"
    page = open(os.path.join(src, "docs", "h_revolve.md"), encoding="utf-8").read().split("\n")
    at = [k for k, l in enumerate(page) if l.startswith("| n | C | D | W | R | B | h-revolve")]
    shown = []
    for l in page[at[0] if at else len(page):]:
        if not l.startswith("|"):
            break
        shown.append(l)
    shown = [l for l in shown if not l.startswith("|---")]
    ran += 1
    if bench.returncode != 0 or shown != printed:
        diff = [f"'{a}' / '{b}'" for a, b in zip(shown, printed) if a != b][:3]
        failures.append(f"docs/h_revolve.md: the cost table differs from h_revolve_bench's "
                        f"(page / program): {'; '.join(diff) or 'rows missing'}")
    else:
        print("ok docs/h_revolve.md: the cost table is h_revolve_bench's")

print(f"{ran} commands run, {len(failures)} failed")
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures or ran == 0 else 0)
