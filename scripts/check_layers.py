#!/usr/bin/env python3
"""Finds circles among the files of a source folder of libebb.

The file-level call graph comes from the compiled objects: nm lists what
each object defines and what it uses, so file A "calls" file B when A uses
a global symbol that B defines (static functions and calls through function
pointers are not seen: a table of functions is how a layer calls down
without its callee calling back up by name).

  scripts/check_layers.py --build build/release storage runtime
  scripts/check_layers.py --build build/release --order storage
  scripts/check_layers.py --build build/release storage+runtime+planner

Every group of files that call each other in a circle (a strongly connected
component of the graph restricted to one folder) is reported with each call
inside it and one symbol naming it. Exit 1 when there is a circle, 0 with a
one-line summary otherwise, 2 when the objects cannot be read.
"""
import argparse
import collections
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBJ_DIR = os.path.join("CMakeFiles", "ebb_objects.dir")
DEFINED = set("TDBRCGSVWiu")  # nm -P type letters of symbols an object defines


def source_of(obj):
    """storage/disk.c for .../CMakeFiles/ebb_objects.dir/storage/disk.c.o."""
    norm = obj.replace(os.sep, "/")
    key = OBJ_DIR.replace(os.sep, "/") + "/"
    rel = norm.split(key, 1)[1] if key in norm else os.path.basename(norm)
    return rel[:-2] if rel.endswith(".o") else rel


def objects_in(build):
    objs = glob.glob(os.path.join(build, OBJ_DIR, "**", "*.o"), recursive=True)
    # a source removed since the last build leaves its object behind: skip it
    return [o for o in objs if os.path.exists(os.path.join(ROOT, source_of(o)))]


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
    circle through two folders is found too)."""
    parts = tuple(p + "/" for p in folder.split("+"))
    mine = {f for f in files if f.startswith(parts)}
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", help="build directory (objects of ebb_objects under it)")
    ap.add_argument("--objects", nargs="*", default=[], help="object files instead of --build")
    ap.add_argument("--nm", default="nm", help="the nm program (default: nm)")
    ap.add_argument("--order", action="store_true", help="also print each folder's layers")
    ap.add_argument("folders", nargs="+", help="source folders, e.g. storage runtime")
    a = ap.parse_args()
    objs = [o for o in a.objects if o.endswith(".o")] or (objects_in(a.build) if a.build else [])
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
    print(("check_layers: CIRCLES FOUND: " if bad else "check_layers: no circle: ") +
          "; ".join(summary))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
