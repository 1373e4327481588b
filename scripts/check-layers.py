#!/usr/bin/env python3
"""The include graph of src/, checked against its layers (src/layers.txt).

src/layers.txt lists the folders of src/ lowest first, each with the folders it may include
("inputs: core"). A folder may include its own headers and those of the folders it names, which
must stand above it in the list: so the list is an order and the graph has no cycle. CMake builds
one library per line from the same file (CMakeLists.txt), so an include the file does not allow is
also a build error; this script says which file and line, and draws the graph.

Usage: scripts/check-layers.py [--graph FILE.dot] [--markdown]
Exit status 0 when every include follows the layers, 1 with one line per violation otherwise.
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z0-9_]+)/([^"]+)"')
SOURCES = {".cpp", ".hpp", ".h", ".cu", ".cuh"}


def read_layers(path):
    """[(folder, [deps])] in file order; raises ValueError naming the line of a malformed entry."""
    layers = []
    seen = set()
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" not in line:
            raise ValueError(f"{path}:{number}: expected 'folder: dep dep ...', got '{raw}'")
        folder, deps = line.split(":", 1)
        folder = folder.strip()
        deps = deps.split()
        for d in deps:
            if d not in seen:
                raise ValueError(f"{path}:{number}: {folder} names '{d}', which is not a folder above it")
        if folder in seen:
            raise ValueError(f"{path}:{number}: {folder} is listed twice")
        seen.add(folder)
        layers.append((folder, deps))
    return layers


def includes_of(folder):
    """(file, line number, included folder, header) for every project include in src/FOLDER."""
    for f in sorted((SRC / folder).rglob("*")):
        if f.suffix not in SOURCES or not f.is_file():
            continue
        for number, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if m:
                yield f, number, m.group(1), m.group(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", help="write the folder graph (Graphviz dot) to this file")
    ap.add_argument("--markdown", action="store_true", help="print the graph as a Markdown table")
    args = ap.parse_args()
    try:
        layers = read_layers(SRC / "layers.txt")
    except (OSError, ValueError) as e:
        print(f"check-layers: {e}", file=sys.stderr)
        return 1
    allowed = {folder: set(deps) | {folder} for folder, deps in layers}
    folders = {p.name for p in SRC.iterdir() if p.is_dir()}
    problems = [f"src/{f}/: a folder src/layers.txt does not list" for f in sorted(folders - set(allowed))]
    problems += [f"src/layers.txt: '{f}' is not a folder of src/" for f in sorted(set(allowed) - folders)]
    used = {folder: set() for folder, _ in layers}
    for folder, _ in layers:
        for f, number, target, header in includes_of(folder):
            rel = f.relative_to(ROOT)
            if target == "kjudge":  # include/kjudge: the candidate ABI, below every layer
                continue
            if target not in allowed:
                if (SRC / target).is_dir():
                    problems.append(f"{rel}:{number}: includes {target}/{header}: '{target}' is not in src/layers.txt")
                continue  # not a project folder (a system header in quotes)
            if target != folder:
                used[folder].add(target)
            if "/detail/" in "/" + header and target != folder:
                problems.append(f"{rel}:{number}: includes {target}/{header}: detail/ is internal to src/{target}/")
            if target not in allowed[folder]:
                problems.append(f"{rel}:{number}: includes {target}/{header}, but src/layers.txt does not let "
                                f"'{folder}' use '{target}'")
    if args.graph:
        lines = ["digraph src {", "  rankdir=BT;", "  node [shape=box];"]
        for folder, _ in layers:
            for t in sorted(used[folder]):
                lines.append(f'  "{folder}" -> "{t}";')
        lines.append("}")
        pathlib.Path(args.graph).write_text("\n".join(lines) + "\n")
    if args.markdown:
        print("| folder (lowest first) | includes |")
        print("|---|---|")
        for folder, _ in layers:
            print(f"| {folder} | {', '.join(sorted(used[folder])) or '—'} |")
    for p in problems:
        print(p)
    if not problems:
        print(f"check-layers: {len(layers)} folders, every include follows src/layers.txt", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
