#!/usr/bin/env python3
"""Random pipeline documents (contract 3 input) for benchmarks and tests.

usage: gen_pipeline.py N [--seed S] [--degree D] [--out FILE]

Steps come in shuffled input order (so input order is not a topological order), each with up
to D dependencies on earlier-created steps. Types: mostly JOB (estimated_duration_seconds),
some WAIT (duration_seconds), API_CALL and NOTIFICATION steps whose templates reference an
upstream step's outputs, and a few CONDITION steps whose then_steps are later-created steps.
The same N and seed always give the same bytes.
"""
import argparse
import json
import random
import sys


def generate(n, seed=1, degree=3):
    rng = random.Random(seed)
    ids = [f"s{i}" for i in range(n)]
    steps = []
    for i in range(n):
        deps = sorted({rng.randrange(0, i) for _ in range(rng.randint(0, degree))}) if i else []
        kind = rng.random()
        step = {"id": ids[i], "name": f"step {i}", "step_type": "JOB", "depends_on": [ids[d] for d in deps]}
        if kind < 0.70:
            step["config"] = {"job_type": "BATCH", "deployment_type": "DOCKER",
                              "estimated_duration_seconds": rng.randint(1, 3600), "gpu_count": rng.randint(0, 8)}
        elif kind < 0.80:
            step["step_type"] = "WAIT"
            step["config"] = {"duration_seconds": rng.randint(1, 600)}
        elif kind < 0.90 and deps:
            step["step_type"] = "API_CALL"
            step["config"] = {"url": "http://svc/api/{{ steps.%s.outputs.name }}" % ids[deps[0]], "method": "POST"}
        elif kind < 0.97:
            step["step_type"] = "NOTIFICATION"
            step["config"] = {"channel": "slack", "recipients": ["#ops"], "message": "done {{ params.x }}"}
        else:
            later = [ids[j] for j in range(i + 1, min(n, i + 50)) if rng.random() < 0.05]
            step["step_type"] = "CONDITION"
            step["config"] = {"expression": "{{ params.flag }}", "then_steps": later, "else_steps": []}
        steps.append(step)
    rng.shuffle(steps)
    return {"pipeline": {"name": f"random-{n}", "trigger_type": "manual", "parameters": {"x": 1, "flag": True}},
            "steps": steps}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--degree", type=int, default=3)
    ap.add_argument("--out", default="-")
    a = ap.parse_args()
    text = json.dumps(generate(a.n, a.seed, a.degree), separators=(",", ":"))
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
