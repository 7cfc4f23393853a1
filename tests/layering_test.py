#!/usr/bin/env python3
"""Lower layers never include higher ones (docs/architecture.md "Dependencies"): every
#include "budcore/<x>/" in include/budcore/<layer>/ and src/<layer>/ must name a layer at or
below its own. The only exceptions are listed below, each with its reason. The CLI (src/cli)
is a client of the public API like any other program: it includes only budcore/... headers and
its own cli/... ones.
Usage: layering_test.py SOURCE_DIR"""
import glob
import re
import sys

ORDER = ["core", "templates", "job", "quota", "gpu", "cost", "pipeline", "usecase", "serverless", "schedule", "backend",
         "kubernetes", "platform", "companion"]
# (layer, included header): why it is allowed.
ALLOWED = {
    ("cost", "budcore/backend/store.hpp"): "metering and budgets read and append usage through the Store interface",
    ("usecase", "budcore/backend/store.hpp"): "the template catalog persists through the Store interface",
}


def layer_of(path, src):
    rel = path[len(src) + 1:]
    parts = rel.split("/")
    if parts[0] == "include":
        return parts[2]
    if rel.startswith("src/backends/kubernetes"):
        return "kubernetes"
    return {"backends": "backend"}.get(parts[1], parts[1])


def main():
    src = sys.argv[1]
    rank = {name: i for i, name in enumerate(ORDER)}
    files = glob.glob(f"{src}/include/budcore/*/*.hpp") + glob.glob(f"{src}/src/**/*.[ch]pp", recursive=True)
    problems, checked = [], 0
    for f in sorted(files):
        layer = layer_of(f, src)
        if layer not in rank:
            continue
        checked += 1
        for m in re.finditer(r'#include "(budcore/(\w+)/[\w/.]+)"', open(f, encoding="utf-8").read()):
            header, target = m.group(1), m.group(2)
            if target in rank and rank[target] > rank[layer] and (layer, header) not in ALLOWED:
                problems.append(f"{f[len(src) + 1:]}: layer {layer} includes {header} (layer {target} is above it)")
    for f in sorted(glob.glob(f"{src}/src/cli/*.[ch]pp")):
        checked += 1
        for m in re.finditer(r'#include "([\w/.]+)"', open(f, encoding="utf-8").read()):
            if not m.group(1).startswith(("budcore/", "cli/")):
                problems.append(f"{f[len(src) + 1:]}: the CLI includes the private header {m.group(1)}")
    for p in problems:
        print(p)
    if not problems:
        print(f"layering ok: {checked} files")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
