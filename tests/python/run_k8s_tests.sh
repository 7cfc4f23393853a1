#!/usr/bin/env bash
# The Python tests that need the Kubernetes test bed (test_kubernetes_platform.py), with a test
# bed of their own: started here (seconds, from the binaries ctest's run cached), stopped on exit.
# BUDCORE_K8S_TESTS=0 skips them, as it skips the C++ ones.
# Usage: run_k8s_tests.sh PYLIB_DIR STATE_DIR
set -euo pipefail
pylib=$1
state=$2
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [[ ${BUDCORE_K8S_TESTS:-1} == 0 ]]; then
  echo "BUDCORE_K8S_TESTS=0: the Python Kubernetes tests skip"
  exit 0
fi
bash "$root/scripts/k8s-testbed.sh" start "$state"
trap 'bash "$root/scripts/k8s-testbed.sh" stop "$state"' EXIT
cd "$root/tests/python"
BUDCORE_K8S_STATE_DIR=$state PYTHONPATH=$pylib python3 -m pytest -q test_kubernetes_platform.py
