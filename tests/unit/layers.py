#!/usr/bin/python3
"""layers.py -- holds src/ to the layers of src/layers.txt.

Usage: layers.py SOURCE_ROOT [BUILD_DIR]   check; exit 1 naming each rule broken
       layers.py SOURCE_ROOT --docs        print docs/architecture.md's layer list

A unit is a path without its extension (daemon/grants: grants.c and
grants.h), unless the table puts X.h in a lower layer than X.c: then X.h
is an interface of its own (types the layers between use, like
backend.h) and X.c the code above it. Unit A uses unit B when a file of A has `#include "B.h"`, or,
given BUILD_DIR (its compile_commands.json and nm), when A's object file
needs a symbol B's object file defines. The rules:
  1. every .c and .h of the parts listed in PARTS is in the table, once,
     and a unit's files share one layer;
  2. no unit uses a unit of a higher layer;
  3. no units use each other in a loop, even within a layer;
  4. every `allow` of the table is still needed;
  5. docs/architecture.md's layer list is the one --docs prints.
"""
import json
import os
import re
import subprocess
import sys

PARTS = ("daemon", "core", "proto", "client", "cli", "preload", "bench")
DOC = "docs/architecture.md"
BEGIN = "<!-- layers: generated from src/layers.txt by tests/unit/layers.py --docs -->"
END = "<!-- layers: end -->"


def die(msg):
    print("layers: " + msg, file=sys.stderr)
    sys.exit(2)


def read_table(src):
    """[(name, text, [paths])], {unit: layer index}, {(a, b): why}"""
    layers, allows = [], {}
    with open(os.path.join(src, "layers.txt")) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            if line.startswith("layer "):
                name, _, text = line[6:].partition(" -- ")
                layers.append((name.strip(), text.strip(), []))
            elif line.startswith("allow "):
                arrow, _, why = line[6:].partition(" -- ")
                a, _, b = arrow.partition(" -> ")
                if not b or not why:
                    die("src/layers.txt:%d: allow A -> B -- why" % n)
                allows[(a.strip(), b.strip())] = why.strip()
            elif line[0].isspace() and layers:
                layers[-1][2].extend(line.split())
            else:
                die("src/layers.txt:%d: not a layer, allow or file line" % n)
    return layers, allows


UNIT = {}


def unit(path):
    return UNIT.get(path, os.path.splitext(path)[0])


def split_units(layer_of):
    """Makes X.c and X.h units of their own where the table puts them in
    two layers; returns the rules broken."""
    bad = []
    for p, i in layer_of.items():
        stem, ext = os.path.splitext(p)
        other = layer_of.get(stem + (".h" if ext == ".c" else ".c"))
        if other is not None and other != i:
            if (ext == ".h") == (i < other):
                bad.append("src/%s.h is in a higher layer than src/%s.c"
                           % (stem, stem))
            UNIT[p] = p
    return bad


def listed_files(src):
    out = []
    for part in PARTS:
        for d, _, names in os.walk(os.path.join(src, part)):
            for name in names:
                if name.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, name), src))
    return out


def includes(src, path):
    with open(os.path.join(src, path), errors="replace") as f:
        return re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M)


def resolve(path, inc, files, by_base):
    """The listed file path's `#include "inc"` names, or None (generated,
    system)."""
    near = os.path.normpath(os.path.join(os.path.dirname(path), inc))
    if near in files:
        return near
    hits = by_base.get(os.path.basename(inc), [])
    return hits[0] if len(hits) == 1 else None


def nm_symbols(obj):
    try:
        out = subprocess.run(["nm", obj], capture_output=True,
                             text=True).stdout
    except OSError:
        die("nm (binutils) is needed to read the calls of " + obj)
    need, have = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            need.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRGVW":
            have.add(f[2])
    return need, have


def call_edges(src, build, files):
    """{(unit a, unit b): symbol} from the objects of BUILD_DIR."""
    try:
        with open(os.path.join(build, "compile_commands.json")) as f:
            cmds = json.load(f)
    except OSError:
        return {}
    objs = {}
    for c in cmds:
        path = os.path.normpath(os.path.join(c["directory"], c["file"]))
        rel = os.path.relpath(path, src)
        obj = os.path.join(c["directory"], c["output"])
        # a file built into two targets (client/ into the shim) is read once
        if rel in files and rel not in objs and os.path.exists(obj):
            objs[rel] = obj
    need, owner = {}, {}
    for rel, obj in objs.items():
        need[rel], have = nm_symbols(obj)
        for s in have:
            owner.setdefault(s, set()).add(rel)
    edges = {}
    for rel, syms in need.items():
        part = rel.split("/")[0]
        for s in sorted(syms):
            for o in owner.get(s, ()):
                # between parts only the includes count: the shim defines
                # libc's names, and a part links only the parts it includes
                if unit(o) != unit(rel) and o.split("/")[0] == part:
                    edges.setdefault((unit(rel), unit(o)), s)
    return edges


def reaches(edges, a, b):
    """Does a use b, through any number of units?"""
    seen, todo = set(), [a]
    while todo:
        v = todo.pop()
        if v == b:
            return True
        if v not in seen:
            seen.add(v)
            todo += [y for (x, y) in edges if x == v]
    return False


def loops(units, edges):
    """Strongly connected sets of more than one unit (Tarjan)."""
    succ = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(units):
        if v not in index:
            visit(v)
    return out


def docs(layers):
    lines = [BEGIN, ""]
    for i, (name, text, paths) in enumerate(layers, 1):
        stems = []
        for p in paths:
            s = os.path.basename(unit(p))
            if s not in stems:
                stems.append(s)
        lines.append("%d. **%s**: %s. `%s`" % (i, name, text, "`, `".join(stems)))
    lines += ["", END]
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    root = argv[1]
    src = os.path.join(root, "src")
    layers, allows = read_table(src)
    if argv[2:] == ["--docs"]:
        split_units({p: i for i, l in enumerate(layers) for p in l[2]})
        sys.stdout.write(docs(layers))
        return 0
    build = argv[2] if len(argv) > 2 else None
    bad = []
    layer_of, name_of = {}, {}
    for i, (name, _, paths) in enumerate(layers):
        for p in paths:
            if p in layer_of:
                bad.append("src/%s is listed twice" % p)
            if not os.path.exists(os.path.join(src, p)):
                bad.append("src/%s is listed but does not exist" % p)
            layer_of[p] = i
    bad += split_units(layer_of)
    for p, i in layer_of.items():
        name_of[unit(p)] = i
    for p in listed_files(src):
        if p not in layer_of:
            bad.append("src/%s is in no layer of src/layers.txt" % p)
    files = set(layer_of)
    by_base = {}
    for p in files:
        by_base.setdefault(os.path.basename(p), []).append(p)
    edges = {}
    for p in sorted(files):
        if not p.endswith((".c", ".h")) or not os.path.exists(os.path.join(src, p)):
            continue
        for inc in includes(src, p):
            t = resolve(p, inc, files, by_base)
            if t and unit(t) != unit(p):
                edges.setdefault((unit(p), unit(t)), "#include \"%s\"" % inc)
    if build:
        for e, sym in call_edges(src, build, files).items():
            edges.setdefault(e, "calls %s" % sym)
    allowed = {e: edges.pop(e) for e in allows if e in edges}
    for a, b in sorted(allows):
        if (a, b) not in allowed or (name_of[b] >= name_of[a] and
                                     not reaches(edges, b, a)):
            bad.append("allow %s -> %s is no longer needed: remove it from "
                       "src/layers.txt" % (a, b))
    for (a, b), how in sorted(edges.items()):
        la, lb = name_of[a], name_of[b]
        if lb < la:
            bad.append("%s: %s in layer %s uses %s of layer %s, which is above "
                       "it; a lower layer reports back through a return value "
                       "or a callback it was given" % (how, a, layers[la][0], b,
                                                       layers[lb][0]))
    for comp in loops(name_of, edges):
        inside = ["%s -> %s (%s)" % (a, b, how) for (a, b), how in
                  sorted(edges.items()) if a in comp and b in comp]
        bad.append("loop of %d units: %s" % (len(comp), "; ".join(inside)))
    want = docs(layers)
    try:
        with open(os.path.join(root, DOC)) as f:
            text = f.read()
        s, e = text.find(BEGIN), text.find(END)
        if s < 0 or e < 0 or text[s:e + len(END) + 1] != want:
            bad.append("%s's layer list is not src/layers.txt's: replace it "
                       "with the output of tests/unit/layers.py . --docs" % DOC)
    except OSError:
        bad.append("%s is missing" % DOC)
    for b in bad:
        print("layers: " + b)
    if not bad:
        n = len(edges) + len(allows)
        print("layers: %d units in %d layers, %d uses (%d allowed for now), "
              "none upward, no loop" % (len(name_of), len(layers), n,
                                         len(allows)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
