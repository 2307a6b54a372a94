#!/usr/bin/env python3
"""Finds circles among the files of ebb's libraries, and checks the layers
docs/design.md draws.

The file-level call graph comes from the compiled objects: nm lists what
each object defines and what it uses, so file A "calls" file B when A uses
a global symbol that B defines (static functions and calls through function
pointers are not seen: a table of functions is how a layer calls down
without its callee calling back up by name).

  scripts/check_layers.py --build build/release storage runtime
  scripts/check_layers.py --build build/release --order storage
  scripts/check_layers.py --build build/release storage+runtime+planner
  scripts/check_layers.py --objects A.o B.o ... --design docs/design.md all

Every group of files that call each other in a circle (a strongly connected
component of the graph restricted to one folder, or to all of them with
`all`) is reported with each call inside it and one symbol naming it.

With --design, the picture of docs/design.md's section "Layers and their
arrows" is the rule: its arrow line orders the folders (`a <- b`: b may use
a; folders named together in one place use neither each other), and its
table names the headers each folder offers the folders above it besides
the public ones (include/ebb/). Every file of the objects must be in a
folder the picture names; every call from one folder to another must go
down the picture, and so must every include of another folder's header,
which must also be one that folder offers.

Exit 1 when there is a circle or a broken rule, 0 with a one-line summary
otherwise, 2 when the objects or the picture cannot be read.
"""
import argparse
import collections
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBJ_DIR = os.path.join("CMakeFiles", "ebb_objects.dir")
DEFINED = set("TDBRCGSVWiu")  # nm -P type letters of symbols an object defines


def source_of(obj):
    """storage/disk.c for .../CMakeFiles/ebb_objects.dir/storage/disk.c.o;
    mpi/agree.c for .../build/mpi/CMakeFiles/ebb_mpi_objects.dir/agree.c.o
    (a target's objects lie under its folder's build folder: the longest
    tail of that folder's path that is a source folder names it)."""
    norm = obj.replace(os.sep, "/")
    m = re.match(r"(.*)/CMakeFiles/[^/]+\.dir/(.*)$", norm)
    if not m:
        rel = os.path.basename(norm)
    else:
        where, rel = m.group(1).split("/"), m.group(2)
        for i in range(len(where) + 1):
            tail = "/".join(where[i:])
            if os.path.exists(os.path.join(ROOT, tail, rel[:-2] if rel.endswith(".o") else rel)):
                rel = f"{tail}/{rel}" if tail else rel
                break
    return rel[:-2] if rel.endswith(".o") else rel


def existing(objs):
    """A source removed since the last build leaves its object behind: skip it."""
    return [o for o in objs if os.path.exists(os.path.join(ROOT, source_of(o)))]


def objects_in(build):
    return glob.glob(os.path.join(build, OBJ_DIR, "**", "*.o"), recursive=True)


def read_symbols(nm, objs):
    """{file: set of symbols it defines}, {file: set of symbols it uses}."""
    out = subprocess.run([nm, "-A", "-P", "-g"] + sorted(objs), check=True,
                         capture_output=True, text=True).stdout
    defines, uses = collections.defaultdict(set), collections.defaultdict(set)
    for line in out.splitlines():
        head, _, rest = line.rpartition(": ")
        fields = rest.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        target = defines if kind in DEFINED else uses if kind in "Uwv" else None
        if target is not None:
            target[source_of(head)].add(name)
    return defines, uses


def call_graph(defines, uses):
    """{caller: {callee: [symbols]}} between distinct files."""
    owner = collections.defaultdict(set)
    for f, syms in defines.items():
        for s in syms:
            owner[s].add(f)
    graph = collections.defaultdict(dict)
    for f, syms in uses.items():
        for s in sorted(syms):
            for g in owner.get(s, ()):
                if g != f:
                    graph[f].setdefault(g, []).append(s)
    return graph


def components(nodes, edges):
    """Tarjan's strongly connected components, in reverse topological order."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def one_circle(comp, edges):
    """A shortest circle through comp's first file, as a list of files."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, collections.deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(edges.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, v, start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def folder_graph(graph, files, folder):
    """folder: one folder, or several joined by '+' seen as one graph (so a
    circle through two folders is found too), or `all`."""
    parts = tuple(p + "/" for p in folder.split("+"))
    mine = {f for f in files if folder == "all" or f.startswith(parts)}
    edges = {f: {g: s for g, s in graph.get(f, {}).items() if g in mine} for f in mine}
    return mine, edges


def report_circles(folder, mine, edges):
    circles = [c for c in components(mine, edges) if len(c) > 1]
    for c in circles:
        path = one_circle(c, edges)
        steps = " -> ".join(
            f"{a} ({edges[a][b][0]})" for a, b in zip(path, path[1:])) + f" -> {path[-1]}"
        print(f"circle in {folder}/ among {len(c)} files: {', '.join(c)}")
        print(f"  e.g. {steps}")
        for a in c:
            for b in sorted(edges[a]):
                if b in c:
                    syms = edges[a][b]
                    more = f" and {len(syms) - 1} more" if len(syms) > 1 else ""
                    print(f"  {a} -> {b}: {syms[0]}{more}")
    return circles


def print_order(folder, mine, edges):
    """Layers from top (calls the most) to bottom (calls nothing in folder)."""
    comps = components(mine, edges)  # callees before callers
    comp_of = {f: i for i, c in enumerate(comps) for f in c}
    depth = {}
    for i, c in enumerate(comps):
        below = [depth[comp_of[g]] for f in c for g in edges[f] if comp_of[g] != i]
        depth[i] = 1 + max(below, default=-1)
    print(f"layers of {folder}/ (top first; a file calls only files in layers below it):")
    for level in range(max(depth.values(), default=-1), -1, -1):
        names = ["{" + ", ".join(c) + "}" if len(c) > 1 else c[0]
                 for i, c in enumerate(comps) if depth[i] == level]
        print(f"  {level:2d}: {'  '.join(sorted(names))}")


def read_design(path):
    """From the section "Layers and their arrows": ({folder: rank}, {folder:
    set of headers it offers}). The arrow line is the first indented line
    with '<-' in the section; its table rows are `| folder/ | a.h, b.h |`."""
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise SystemExit(f"check_layers: cannot read {path}: {e.strerror}")
    m = re.search(r"^## Layers and their arrows\n(.*?)(?=^## )", text, re.M | re.S)
    if not m:
        raise SystemExit(f"check_layers: {path} has no section '## Layers and their arrows'")
    section = m.group(1)
    arrows = next((ln for ln in section.splitlines() if ln.startswith("    ") and "<-" in ln),
                  None)
    if arrows is None:
        raise SystemExit(f"check_layers: the layers section of {path} has no arrow line")
    rank = {}
    for i, group in enumerate(arrows.split("<-")):
        for folder in group.replace(",", " ").split():
            rank[folder.rstrip("/")] = i
    offers = collections.defaultdict(set)
    for row in re.findall(r"^\|\s*`?([a-z_/]+?)/?`?\s*\|\s*(.*?)\s*\|\s*$", section, re.M):
        folder, headers = row
        if folder in rank:
            offers[folder].update(h.strip(" `") for h in headers.split(",") if h.strip(" `-"))
    return rank, offers


def folder_of(path, rank):
    """The picture's folder that holds path (the longest that matches)."""
    best = None
    for f in rank:
        if path.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def check_design(design, graph, files):
    """The broken rules, one line each."""
    rank, offers = read_design(design)
    bad = []
    for f in sorted(files):
        if folder_of(f, rank) is None:
            bad.append(f"{f}: its folder is not in the picture of {design}")
    for f in sorted(graph):
        a = folder_of(f, rank)
        for g, syms in sorted(graph[f].items()):
            b = folder_of(g, rank)
            if a and b and a != b and not rank[b] < rank[a]:
                bad.append(f"{f} calls {g} ({syms[0]}): {a}/ may not use {b}/")
    seen = set()
    for f in sorted(files):
        a = folder_of(f, rank)
        if a is None:
            continue
        here = os.path.dirname(os.path.join(ROOT, f))
        headers = glob.glob(os.path.join(here, "*.h"))
        for src in [os.path.join(ROOT, f)] + headers:
            if src in seen or not os.path.exists(src):
                continue
            seen.add(src)
            rel = os.path.relpath(src, ROOT)
            for inc in INCLUDE.findall(open(src, encoding="utf-8", errors="replace").read()):
                b = folder_of(inc, rank)
                if b is None or b == a:
                    continue
                name = inc[len(b) + 1:]
                if not rank[b] < rank[a]:
                    bad.append(f"{rel} includes {inc}: {a}/ may not use {b}/")
                elif name not in offers.get(b, ()):
                    bad.append(f"{rel} includes {inc}, which {b}/ does not offer the folders "
                               f"above it (the table of {design})")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", help="build directory (objects of ebb_objects under it)")
    ap.add_argument("--objects", nargs="*", default=[], help="object files instead of --build")
    ap.add_argument("--nm", default="nm", help="the nm program (default: nm)")
    ap.add_argument("--order", action="store_true", help="also print each folder's layers")
    ap.add_argument("--design", help="check the layers this page draws (docs/design.md)")
    ap.add_argument("folders", nargs="+", help="source folders, e.g. storage runtime; all")
    a = ap.parse_args()
    objs = existing([o for o in a.objects if o.endswith(".o")] or
                    (objects_in(a.build) if a.build else []))
    if not objs:
        print("check_layers: no object files: build first and give --build DIR or --objects",
              file=sys.stderr)
        return 2
    defines, uses = read_symbols(a.nm, objs)
    graph = call_graph(defines, uses)
    files = {source_of(o) for o in objs}
    bad, summary = 0, []
    for folder in (f.rstrip("/") for f in a.folders):
        mine, edges = folder_graph(graph, files, folder)
        if not mine:
            print(f"check_layers: no compiled file under {folder}/", file=sys.stderr)
            return 2
        circles = report_circles(folder, mine, edges)
        if a.order:
            print_order(folder, mine, edges)
        calls = sum(len(v) for v in edges.values())
        summary.append(f"{folder}/ {len(mine)} files, {calls} calls, {len(circles)} circles")
        bad += len(circles)
    if a.design:
        broken = check_design(a.design, graph, files)
        for line in broken:
            print(line)
        summary.append(f"{len(broken)} broken rules of {a.design}")
        bad += len(broken)
    print(("check_layers: FAILED: " if bad else "check_layers: no circle, no broken rule: ") +
          "; ".join(summary))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
