#!/bin/sh
# Quick start with the CLI: an embedded platform in a directory, one job, the virtual clock run
# until idle, the job read back. Run: sh quickstart.sh (budcore on PATH, or BUDCORE=path/to/budcore).
set -eu
budcore=${BUDCORE:-budcore}
dir=$(mktemp -d)
tenant=3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b
id=$(echo '{"name": "quickstart", "job_type": "batch", "deployment_type": "docker",
  "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": 600}' |
  "$budcore" platform submit - --dir "$dir" --tenant "$tenant" | grep -o '"id":"[^"]*"' | head -n 1 | cut -d'"' -f4)
"$budcore" platform run --idle --dir "$dir" >/dev/null  # until nothing is scheduled
status=$("$budcore" platform get "$id" --dir "$dir" --tenant "$tenant" | grep -o '"status":"[^"]*"' | head -n 1 | cut -d'"' -f4)
echo "job $id: $status"
