#!/usr/bin/env bash
# ctest fixture (FIXTURES_SETUP / FIXTURES_CLEANUP of the k8s tests): one test bed per run.
# `start STATE_DIR` builds the binaries when the cache lacks them and starts etcd,
# kube-apiserver and Kueue, and one MultiKueue worker control plane beside it
# (BUDCORE_K8S_WORKERS, default 1; 0 for none: the MultiKueue tests then skip); the tests find
# it through STATE_DIR (BUDCORE_K8S_STATE_DIR). BUDCORE_K8S_TESTS=0 starts nothing and the
# tests skip.
set -u
cmd=${1:-}
state=${2:-}
if [[ -z "$cmd" || -z "$state" ]]; then
  echo "usage: $0 start|stop STATE_DIR" >&2
  exit 2
fi
script="$(cd "$(dirname "$0")/../.." && pwd)/scripts/k8s-testbed.sh"
case "$cmd" in
  start)
    if [[ ${BUDCORE_K8S_TESTS:-1} == 0 ]]; then
      mkdir -p "$state"
      bash "$script" stop "$state"
      echo "BUDCORE_K8S_TESTS=0: no test bed; the k8s tests skip"
      exit 0
    fi
    BUDCORE_K8S_WORKERS=${BUDCORE_K8S_WORKERS:-1} exec bash "$script" start "$state"
    ;;
  stop) exec bash "$script" stop "$state" ;;
  *)
    echo "unknown command '$cmd' (start or stop)" >&2
    exit 2
    ;;
esac
