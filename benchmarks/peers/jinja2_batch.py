#!/usr/bin/env python3
"""The Jinja2 peer of `budcore template eval --batch FILE`: the same JSON Lines job (first line
{"context": ...}, then {"id", "template", "native"} cases), each distinct template compiled
once, output one JSON line per case. Used to time the two processes side by side
(benchmarks/RESULTS.md).

    python3 benchmarks/peers/jinja2_batch.py FILE > out.jsonl
    python3 benchmarks/peers/jinja2_batch.py --generate 100000 > batch.jsonl
"""
import json
import random
import sys

from jinja2 import Environment, StrictUndefined
from jinja2.nativetypes import NativeEnvironment

# Template shapes of pipelines, use-case templates and notifications.
SHAPES = [
    "{{ params.llm_model }}",
    "{{ params.enable_reranker }}",
    "{{ params.top_k * %d }}",
    "{{ params.missing_%d | default('fallback') }}",
    "{{ params.name | upper }}-%d",
    "{%% if params.enable_reranker %%}rerank-%d{%% else %%}plain{%% endif %%}",
    "{%% for u in users %%}{{ loop.index }}:{{ u.name | title }}{%% if not loop.last %%},{%% endif %%}{%% endfor %%} #%d",
    "{{ users | map(attribute='age') | sum + %d }}",
    "{{ params.tags | join(', ') }} (%d)",
    "{{ '%%s-%%s' | format(params.llm_model, %d) }}",
    "{{ params.temperature + %d / 10 }}",
    "{{ undefined_var_%d }}",
]


def generate(n: int, distinct: int = 500) -> None:
    rnd = random.Random(7)
    context = {"params": {"llm_model": "llama-3-8b", "enable_reranker": True, "top_k": 5, "temperature": 0.7,
                          "name": "world", "tags": ["a", "b", "c"]},
               "users": [{"name": "alice", "age": 30}, {"name": "bob", "age": 25}, {"name": "carol", "age": 35}]}
    pool = []
    for i in range(distinct):
        shape = SHAPES[i % len(SHAPES)]
        pool.append(shape % (i,) if "%d" in shape else shape)
    w = sys.stdout.write
    w(json.dumps({"context": context}) + "\n")
    for i in range(n):
        t = pool[rnd.randrange(len(pool))]
        w(json.dumps({"id": "r%06d" % i, "template": t, "native": i % 4 == 0}) + "\n")


def run(path: str) -> None:
    env = Environment(undefined=StrictUndefined)
    native_env = NativeEnvironment(undefined=StrictUndefined)
    stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    context = json.loads(stream.readline())["context"]
    cache = {}
    out = []
    for line in stream:
        if not line.strip():
            continue
        case = json.loads(line)
        native = bool(case.get("native"))
        key = (case["template"], native)
        try:
            tmpl = cache.get(key)
            if tmpl is None:
                tmpl = cache[key] = (native_env if native else env).from_string(case["template"])
            value = tmpl.render(context)
            out.append(json.dumps({"id": case.get("id"), "ok": True, "value": value}, default=str))
        except Exception as exc:
            out.append(json.dumps({"id": case.get("id"), "ok": False, "error": type(exc).__name__,
                                   "message": str(exc)}))
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--generate":
        generate(int(sys.argv[2]))
    elif len(sys.argv) == 2:
        run(sys.argv[1])
    else:
        sys.exit(__doc__)
