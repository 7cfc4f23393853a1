#!/usr/bin/env bash
# python/budcore/_core.pyi is pybind11-stubgen's output for the built extension (pinned
# versions: scripts/install-deps.sh). `python-stubs.sh PYLIB` writes it; `python-stubs.sh
# --check PYLIB` fails when the checked-in file differs (tests/python/test_stubs.py runs it).
# PYLIB is the directory the package is installed in (make python-tests: build/dev/pylib).
set -euo pipefail
check=0
if [[ "${1:-}" == "--check" ]]; then check=1; shift; fi
pylib=${1:?usage: python-stubs.sh [--check] PYLIB}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
PYTHONPATH=$pylib python3 -m pybind11_stubgen budcore._core --exit-code -o "$out" >/dev/null
if ((check)); then
  if ! diff -u "$root/python/budcore/_core.pyi" "$out/budcore/_core.pyi"; then
    echo "python/budcore/_core.pyi is not the stubs of the built extension: run scripts/python-stubs.sh $pylib" >&2
    exit 1
  fi
else
  cp "$out/budcore/_core.pyi" "$root/python/budcore/_core.pyi"
fi
