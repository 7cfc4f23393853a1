#!/usr/bin/env bash
# Starts a throwaway PostgreSQL (tests/backends/pg_fixture.sh), runs ha_bench against it and,
# with --river, the River peer (benchmarks/peers/river, built with `go build`) on the same
# server with the same number of jobs; stops the server however it ends.
#
#   benchmarks/ha_bench.sh [--river] [--build DIR] [ha_bench arguments...]
#
# DIR defaults to build/release. BUDCORE_BENCH_HA_JOBS (default 10000) is the number of jobs
# of every throughput case and of the River run; BUDCORE_BENCH_RIVER_WORKERS (default 1000) River's
# MaxWorkers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$root/build/release
river=0
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --river) river=1 ;;
    --build) build=$2; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
state=$(mktemp -d /tmp/budcore-ha-bench-XXXXXX)
trap 'bash "$root/tests/backends/pg_fixture.sh" stop "$state"; rm -rf "$state"' EXIT
bash "$root/tests/backends/pg_fixture.sh" start "$state"
if [[ ! -f "$state/uri" ]]; then
  echo "no PostgreSQL server binaries: nothing to measure" >&2
  exit 1
fi
export BUDCORE_BENCH_PG_URI=$(cat "$state/uri")
"$build/benchmarks/ha_bench" "${args[@]}"
if [[ $river -eq 1 ]]; then
  (cd "$here/peers/river" && go build -o "$state/river_peer" .)
  "$state/river_peer" -uri "$BUDCORE_BENCH_PG_URI" -n "${BUDCORE_BENCH_HA_JOBS:-10000}" -batch 1000 \
    -workers "${BUDCORE_BENCH_RIVER_WORKERS:-1000}"
fi
