#!/usr/bin/env python3
"""Lower layers never include higher ones (docs/architecture.md "Dependencies"). The build
enforces it for the library (each layer compiles against an include tree holding only its
layer and those below: src/CMakeLists.txt); this test names the offending line and checks
the clients too. Every
#include "budcore/<x>/" in include/budcore/<layer>/ and src/<layer>/, and every private
#include "<layer>/..." of src/, must name a layer at or below its own. Any exception is
listed below, with its reason. The CLI (src/cli) and the Python bindings (bindings/) are
clients of the public API like any other program: they include only budcore/... headers and
their own. The C ABI (capi/) sits on top of every layer, inside the library. Benchmarks include
public headers, and private ones only where they measure an internal algorithm (listed).
Usage: layering_test.py SOURCE_DIR"""
import glob
import re
import sys

ORDER = ["core", "templates", "job", "quota", "gpu", "cost", "pipeline", "usecase", "serverless", "schedule", "backend",
         "kubernetes", "platform", "companion"]
# (layer, included header): why it is allowed.
# None today: a lower layer that needs a higher one's service owns an interface the higher one
# implements (cost::UsageLedger, usecase::CatalogStore).
ALLOWED = {}


# Benchmarks of internal algorithms: (file, private header): why.
BENCH_PRIVATE = {
    ("benchmarks/pipeline_bench.cpp", "pipeline/analyze.hpp"): "measures the DAG analysis behind Pipeline::plan",
}


def private_layer(header):
    """The layer of a private header named from src/ ("backends/kubernetes/x.hpp" -> kubernetes)."""
    if header.startswith("backends/kubernetes/"):
        return "kubernetes"
    first = header.split("/")[0]
    return {"backends": "backend"}.get(first, first)


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
        if "/src/" in f:
            for m in re.finditer(r'#include "((\w+)/[\w/.]+)"', open(f, encoding="utf-8").read()):
                header = m.group(1)
                target = private_layer(header)
                if header.startswith("budcore/") or target not in rank:
                    continue
                if rank[target] > rank[layer]:
                    problems.append(f"{f[len(src) + 1:]}: layer {layer} includes the private {header} (layer {target} is above it)")
    clients = [("src/cli/*.[ch]pp", "the CLI includes", ("budcore/", "cli/")), ("bindings/*.[ch]pp", "the Python bindings include", ("budcore/",))]
    for pattern, who, own in clients:
        for f in sorted(glob.glob(f"{src}/{pattern}")):
            checked += 1
            for m in re.finditer(r'#include "([\w/.]+)"', open(f, encoding="utf-8").read()):
                if "/" in m.group(1) and not m.group(1).startswith(own):
                    problems.append(f"{f[len(src) + 1:]}: {who} the private header {m.group(1)}")
    for f in sorted(glob.glob(f"{src}/benchmarks/*.[ch]pp")):
        checked += 1
        rel = f[len(src) + 1:]
        for m in re.finditer(r'#include "([\w/.]+)"', open(f, encoding="utf-8").read()):
            header = m.group(1)
            if "/" in header and not header.startswith("budcore/") and (rel, header) not in BENCH_PRIVATE:
                problems.append(f"{rel}: a benchmark includes the private header {header} (list it with its reason)")
    for f in sorted(glob.glob(f"{src}/capi/*.[ch]pp")):
        checked += 1
        for m in re.finditer(r'#include "([\w/.]+)"', open(f, encoding="utf-8").read()):
            header = m.group(1)
            if "/" in header and not header.startswith("budcore/") and private_layer(header) not in rank:
                problems.append(f"{f[len(src) + 1:]}: the C ABI includes {header}, which is no layer's")
    for p in problems:
        print(p)
    if not problems:
        print(f"layering ok: {checked} files")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
