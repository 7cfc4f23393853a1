"""Pipeline.run: rehearsed runs with Python callables for FUNCTION steps."""

import json
import os
import pathlib
import subprocess
import threading

import pytest

import budcore
from budcore import Pipeline

ROOT = pathlib.Path(__file__).resolve().parents[2]
RAG = ROOT / "tests" / "pipeline" / "data" / "rag.json"


def step(id, step_type, config, deps=(), **extra):
    return {"id": id, "name": id, "step_type": step_type, "depends_on": list(deps), "config": config, **extra}


def scored(retry=0):
    """prep (TRANSFORM) -> score (FUNCTION) -> report (TRANSFORM reading score's outputs)."""
    return Pipeline.from_dict({
        "pipeline": {"id": "p", "name": "scored", "parameters": {"base": 10}},
        "steps": [
            step("prep", "TRANSFORM", {"outputs": {"n": "{{ params.base }}"}}),
            step("score", "FUNCTION", {"function": "score", "args": {"n": "{{ steps.prep.outputs.n }}", "tag": "t"}},
                 ["prep"], retry=retry),
            step("report", "TRANSFORM", {"outputs": {"total": "{{ steps.score.outputs.total }}"}}, ["score"]),
        ],
    })


def gated():
    """A 30 s JOB, then an approval gate, then a FUNCTION with a 40 s timeout."""
    return Pipeline.from_dict({
        "pipeline": {"id": "g", "name": "gated"},
        "steps": [
            step("train", "JOB", {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 30}),
            step("gate", "TRANSFORM", {"outputs": {"ok": True}}, ["train"], approval=True),
            step("ship", "FUNCTION", {"function": "ship"}, ["gate"], timeout_seconds=40),
        ],
    })


def test_callable_output_feeds_a_downstream_transform():
    calls = []

    def score(args, *, step_id, attempt):
        calls.append((dict(args), step_id, attempt))
        return {"total": args["n"] * 2}

    r = scored().run(functions={"score": score})
    assert r["status"] == "completed" and r["done"] is True
    assert calls == [({"n": 10, "tag": "t"}, "score", 1)]
    assert r["outputs"]["score"] == {"total": 20}
    assert r["outputs"]["report"] == {"total": 20}
    assert r["steps"] == {"prep": "succeeded", "score": "succeeded", "report": "succeeded"}
    assert [t["seq"] for t in r["transitions"]] == list(range(1, len(r["transitions"]) + 1))
    assert {"step", "from", "to", "attempt", "message", "time", "elapsed_seconds"} <= set(r["transitions"][0])
    assert any(t["step"] == "score" and t["to"] == "succeeded" for t in r["transitions"])


def test_keywords_are_passed_only_when_accepted():
    seen = {}

    def args_only(args):
        return {"total": 1}

    def with_kwargs(args, **kw):
        seen.update(kw)
        return {"total": 2}

    def step_only(args, step_id):
        seen["step_only"] = step_id
        return {"total": 3}

    assert scored().run(functions={"score": args_only})["outputs"]["report"] == {"total": 1}
    assert scored().run(functions={"score": with_kwargs})["outputs"]["report"] == {"total": 2}
    assert seen == {"step_id": "score", "attempt": 1}
    assert scored().run(functions={"score": step_only})["outputs"]["report"] == {"total": 3}
    assert seen["step_only"] == "score"
    # A non-dict result is wrapped as {"result": value}.
    r = scored().run(functions={"score": lambda args: [1, "two"]})
    assert r["outputs"]["score"] == {"result": [1, "two"]}


def test_params_override_the_pipeline_parameters():
    r = scored().run(params={"base": 21}, functions={"score": lambda a: {"total": a["n"] * 2}})
    assert r["outputs"]["prep"] == {"n": 21}
    assert r["outputs"]["report"] == {"total": 42}


def test_an_exception_fails_the_step_with_its_message():
    def boom(args):
        raise ValueError("model not ready")

    r = scored().run(functions={"score": boom})
    assert r["status"] == "failed"
    assert r["steps"]["score"] == "failed"
    assert r["steps"]["report"] == "omitted"
    assert r["messages"]["score"] == "ValueError: model not ready"
    assert "model not ready" in r["failure_reason"]
    assert "report" not in r["outputs"]

    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no")

    def odd(args):
        raise Unprintable()

    r = scored().run(functions={"score": odd})
    assert r["messages"]["score"] == "Unprintable"
    r = scored().run(functions={"score": lambda a: 1 / 0})
    assert r["messages"]["score"] == "ZeroDivisionError: division by zero"


def test_a_retry_calls_again_with_the_next_attempt():
    attempts = []

    def flaky(args, *, attempt, step_id):
        attempts.append(attempt)
        if attempt == 1:
            raise RuntimeError("transient")
        return {"total": 7}

    r = scored(retry=1).run(functions={"score": flaky})
    assert r["status"] == "completed"
    assert attempts == [1, 2]
    assert any(t["step"] == "score" and "RuntimeError: transient" in t["message"] for t in r["transitions"])


def test_unconvertible_result_and_unknown_function():
    r = scored().run(functions={"score": lambda a: {"x": object()}})
    assert r["steps"]["score"] == "failed"
    assert "function 'score' returned a value budcore cannot hold" in r["messages"]["score"]
    assert "result.x" in r["messages"]["score"]

    r = scored().run()
    assert r["steps"]["score"] == "errored"
    assert "no function registered as 'score'" in r["messages"]["score"]


def test_base_exceptions_stop_the_run_and_propagate():
    calls = []

    def interrupted(args):
        calls.append(1)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        scored(retry=3).run(functions={"score": interrupted})
    assert calls == [1]  # no retry called it again


def test_fault_flags():
    calls = []

    def score(args, attempt):
        calls.append(attempt)
        return {"total": 1}

    # An injected failure happens before the callable is called.
    r = scored(retry=1).run(functions={"score": score}, fail={"score": 1})
    assert r["status"] == "completed" and calls == [2]
    assert any(t["message"].startswith("injected failure") for t in r["transitions"])
    # A list fails every attempt.
    r = scored(retry=1).run(functions={"score": score}, fail=["prep"])
    assert r["status"] == "failed" and r["steps"]["prep"] == "failed"
    # A hang without a timeout leaves the run waiting; with one, the timeout fails it.
    r = scored().run(functions={"score": score}, timeout=["score"])
    assert r["done"] is False and r["status"] == "running" and r["steps"]["score"] == "running"
    r = gated().run(functions={"ship": lambda a: {}}, timeout={"ship"})
    assert r["done"] is True and r["steps"]["ship"] == "failed" and r["elapsed_seconds"] == 70.0
    # slow multiplies a JOB's duration.
    assert gated().run(functions={"ship": lambda a: {}})["elapsed_seconds"] == 30.0
    assert gated().run(functions={"ship": lambda a: {}}, slow={"train": 3})["elapsed_seconds"] == 90.0


def test_gates_are_approved_unless_rejected():
    shipped = []
    fns = {"ship": lambda a: shipped.append(1) or {"shipped": True}}
    r = gated().run(functions=fns)
    assert r["status"] == "completed" and r["outputs"]["ship"] == {"shipped": True}
    r = gated().run(functions=fns, reject=["gate"])
    assert r["status"] == "failed"
    assert r["steps"]["gate"] == "failed" and r["steps"]["ship"] == "omitted"
    assert shipped == [1]


def test_options_errors_name_the_field():
    p = scored()
    cases = [
        (dict(fail={"score": "x"}), "fail.score"),
        (dict(fail=3), "fail"),
        (dict(slow={"score": 0}), "slow.score"),
        (dict(timeout="score"), "timeout"),
        (dict(reject=["ok", 7]), "reject[1]"),
        (dict(params=[1]), "params"),
        (dict(run_id=""), "run_id"),
    ]
    for kwargs, field in cases:
        with pytest.raises(budcore.ValidationError) as e:
            p.run(**kwargs)
        assert e.value.field == field, kwargs
    with pytest.raises(TypeError):
        p.run(functions=[("score", len)])
    with pytest.raises(TypeError):
        p.run(functions={"score": 42})
    with pytest.raises(TypeError):
        p.run(functions={1: len})
    bad = Pipeline.from_dict({"pipeline": {"id": "p", "name": "n"},
                              "steps": [step("a", "TRANSFORM", {}, ["nope"])]})
    with pytest.raises(budcore.ValidationError) as e:
        bad.run()
    assert "steps[0]" in e.value.field


def test_runs_are_deterministic():
    def score(args, *, attempt):
        return {"total": args["n"] + attempt}

    a = scored(retry=2).run(functions={"score": score}, fail={"score": 1}, params={"base": 4})
    b = scored(retry=2).run(functions={"score": score}, fail={"score": 1}, params={"base": 4})
    assert a == b
    assert a["outputs"]["report"] == {"total": 6}


def test_rag_matches_the_cli():
    p = Pipeline.load(RAG)
    r = p.run(slow={"step-2": 3})
    assert r["status"] == "completed"
    cli = os.environ.get("BUDCORE_CLI")
    if not cli or not pathlib.Path(cli).exists():
        pytest.skip("BUDCORE_CLI not set")
    out = subprocess.run([cli, "pipeline", "run", str(RAG), "--slow", "step-2=3x"], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    lines = [json.loads(line) for line in out]
    assert lines[:-1] == r["transitions"]
    summary = {k: r[k] for k in ("status", "done", "elapsed_seconds", "failure_reason", "steps")}
    assert lines[-1] == summary


def test_other_threads_run_while_the_engine_runs():
    # Each run releases the GIL around the engine and takes it back for the callable, so
    # runs from several threads interleave and all finish with their own results.
    results = {}

    def worker(i):
        r = scored().run(params={"base": i}, functions={"score": lambda a: {"total": a["n"] * 2}})
        results[i] = r["outputs"]["report"]["total"]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: 2 * i for i in range(6)}
