#!/usr/bin/env bash
# Runs every libFuzzer target of a build tree for SECONDS each, JOBS at a time, each on a fresh
# corpus beside its seeds, on a small stack with memory caps (the limits must hold on a service
# thread's stack, not only on main's 8 MiB). Exits 1 when any target finds a failure, printing
# the end of its log; every target's "Done" line is printed either way.
#
#   run-fuzzers.sh BUILD_DIR [SECONDS [JOBS]]
# Environment: FUZZ_STACK_KB (1024), FUZZ_RSS_MB (1024), FUZZ_MALLOC_MB (512).
set -euo pipefail
build=${1:?usage: run-fuzzers.sh BUILD_DIR [SECONDS [JOBS]]}
seconds=${2:-30}
jobs=${3:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
stack=${FUZZ_STACK_KB:-1024}
rss=${FUZZ_RSS_MB:-1024}
malloc=${FUZZ_MALLOC_MB:-512}

targets=("$build"/tests/fuzz/*_fuzz)
[[ -x ${targets[0]} ]] || { echo "run-fuzzers: no fuzz targets in $build/tests/fuzz" >&2; exit 1; }

run_one() {
  local f=$1 name
  name=$(basename "$f")
  mkdir -p "$build/corpus/$name"
  local seeds=()
  if [[ -f $root/tests/fuzz/$name.seeds ]]; then
    # shellcheck disable=SC2207
    seeds=($(cat "$root/tests/fuzz/$name.seeds"))
  fi
  local rc=0
  (cd "$root" && ulimit -s "$stack" && exec "$f" -max_total_time="$seconds" -rss_limit_mb="$rss" \
     -malloc_limit_mb="$malloc" -timeout=10 -print_final_stats=1 -artifact_prefix="$build/" \
     "$build/corpus/$name" "${seeds[@]}") >"$build/$name.log" 2>&1 || rc=$?
  echo "== $name (${seconds} s): $(grep -E '^stat::number_of_executed_units' "$build/$name.log" | head -1)"
  if [[ $rc -ne 0 ]]; then
    tail -n 40 "$build/$name.log"
    echo "$name found a failure"
    return 1
  fi
}
export -f run_one
export build seconds root stack rss malloc
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}
