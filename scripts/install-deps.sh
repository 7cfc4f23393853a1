#!/usr/bin/env bash
# Installs every system and Python dependency budcore needs to build and test.
# Idempotent: safe to run again; does nothing that is already done.
# Debian packages via apt (needs root), Python build/test tools via pip.
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git
  clang libclang-rt-14-dev llvm libclang1-14  # libclang1: bindgen (scripts/rust-bindings.sh)
  libboost-graph-dev libeigen3-dev libsqlitecpp-dev libsqlite3-dev libyaml-cpp-dev
  nlohmann-json3-dev libcurl4-openssl-dev libssl-dev libgtest-dev libgmock-dev libbenchmark-dev
  pybind11-dev libcli11-dev libpq-dev postgresql libsimdjson-dev
  python3-dev
  curl openssl  # scripts/k8s-testbed.sh (certificates, readiness probes); it also needs Go >= 1.24
  chromium  # the schedule view's page is checked in a real headless browser (tests/python)
)
PIP_PACKAGES=(
  # pybind11 and pybind11-stubgen pinned: python/budcore/_core.pyi is their output, diffed in the tests
  "scikit-build-core>=0.10" "pybind11==3.1.0" "pybind11-stubgen==3.0.0" "pytest>=7" "jinja2>=3.1" "networkx>=3"
  "numpy>=1.23" "pandas>=1.5"
  # the schedule's Gantt image and budcore.cost's report.plot() charts
  "matplotlib>=3.6"
  # the cost rollup benchmark's peer (benchmarks/peers/cost_rollup.py)
  "duckdb>=0.9"
  # the Python package's type check (tests/python/test_types.py), pinned: its findings change by version
  "mypy==2.4.1"
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

py=$(command -v python3)
if ! "$py" - <<'PY' 2>/dev/null
import importlib.metadata as m
for n in ("scikit-build-core", "pytest", "jinja2", "networkx", "numpy", "pandas", "matplotlib", "duckdb"):
    m.version(n)
assert m.version("pybind11") == "3.1.0" and m.version("pybind11-stubgen") == "3.0.0"
assert m.version("mypy") == "2.4.1"
PY
then
  "$py" -m pip install -q "${PIP_PACKAGES[@]}"
fi
# bindgen-cli, pinned: rust/budcore-sys/src/bindings.rs is its output, diffed by ctest
# capi.rust_bindings. cargo keeps it in ~/.cargo/bin, so a machine builds it once (~4 min).
bindgen_version=0.73.2
bindgen=$(command -v bindgen || echo "$HOME/.cargo/bin/bindgen")
if [[ ! -x "$bindgen" ]] || [[ "$("$bindgen" --version 2>/dev/null)" != "bindgen $bindgen_version" ]]; then
  cargo install -q bindgen-cli --version "$bindgen_version" --locked
fi
echo "install-deps: all dependencies present"
