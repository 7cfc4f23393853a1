#!/usr/bin/env bash
# The tests of the other surfaces that need the Kubernetes test bed — Python
# (tests/python/test_kubernetes_platform.py, test_kubernetes_companion.py), Rust
# (tests/kubernetes_platform.rs, tests/kueue.rs) and Go (kubernetes_platform_test.go,
# TestKueueCompanionOnTheTestbed) — with one test bed of their own: started here (seconds, from
# the binaries ctest's run cached), stopped on exit. (The C++ and C tests use ctest's fixture.)
# BUDCORE_K8S_TESTS=0 skips them, as it skips the C++ ones.
# Usage: k8s_surfaces.sh DEV_DIR   (build/dev: its pylib, prefix and cargo directories)
# Environment: what the Rust and Go consumers need (PKG_CONFIG_PATH, LD_LIBRARY_PATH).
set -euo pipefail
dev=$1
state=$dev/k8s_surfaces
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ ${BUDCORE_K8S_TESTS:-1} == 0 ]]; then
  echo "BUDCORE_K8S_TESTS=0: the Python, Rust and Go Kubernetes tests skip"
  exit 0
fi
bash "$root/scripts/k8s-testbed.sh" start "$state"
trap 'bash "$root/scripts/k8s-testbed.sh" stop "$state"' EXIT
export BUDCORE_K8S_STATE_DIR=$state
echo "== Python on the test bed"
(cd "$root/tests/python" && PYTHONPATH=$dev/pylib python3 -m pytest -q test_kubernetes_platform.py test_kubernetes_companion.py)
echo "== Rust on the test bed"
(cd "$root/rust" && CARGO_TARGET_DIR=$dev/cargo cargo test -q --test kubernetes_platform --test kueue)
echo "== Go on the test bed"
(cd "$root/go/budcore" && go test -count=1 -run 'TestKubernetesPlatform|TestKueueCompanionOnTheTestbed' ./...)
