"""budcore.serverless: a request trace replayed through an endpoint from Python: reports against
the input, the same document as the CLI, pandas, and errors that name the field."""

import json
import os
import pathlib
import subprocess
from decimal import Decimal

import pytest

import budcore
from budcore import serverless

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "serverless"
ENDPOINT, TRACE = DATA / "endpoint.yaml", DATA / "trace_small.csv"
TRACE_LINES = len(TRACE.read_text().strip().splitlines()) - 1  # less the header


def test_one_report_per_policy_in_order():
    s = serverless.simulate(ENDPOINT, TRACE, policy=["kpa", "budget"])
    assert isinstance(s, serverless.ServerlessSimulation)
    assert s.policies == ["kpa", "budget"]
    for r in s.reports:
        assert r["endpoint"] == "chat"
        assert r["requests"] == TRACE_LINES
        assert r["admitted"] + sum(r["refusals"].values()) == r["requests"]
        assert r["completed"] + r["timeouts"] + r["failed"] <= r["admitted"]
        assert r["wait_seconds"]["p50"] <= r["wait_seconds"]["p95"] <= r["wait_seconds"]["max"]
        # A request ends after it waited.
        assert r["end_to_end_seconds"]["max"] >= r["wait_seconds"]["max"]
        assert r["currency"] == "USD"
    assert s.report("budget") is s.reports[1]


def test_default_policy_and_all():
    assert serverless.simulate(ENDPOINT, TRACE).policies == ["queue_depth"]
    assert serverless.simulate(ENDPOINT, TRACE, policy="all").policies == serverless.policy_names()


def test_the_pool_scales_from_zero_and_back_down():
    served = serverless.simulate(ENDPOINT, TRACE).report("queue_depth")
    down = serverless.simulate(ENDPOINT, TRACE, until_scaled_down=True).report("queue_depth")
    assert served["scaling"][0]["workers"] == 0
    assert max(p["workers"] for p in served["scaling"]) == served["peak_workers"] == 3
    assert served["scaling"][-1]["workers"] == 2  # the run ends with the last request
    assert down["scaling"][: len(served["scaling"])] == served["scaling"]
    assert down["scaling"][-1] == {"at_seconds": 214.0, "workers": 0, "ready": 0, "busy": 0, "pending": 0}
    assert down["virtual_seconds"] == 214.0
    assert down["billed_gpu_seconds"] > served["billed_gpu_seconds"]  # the idle tail is billed


def test_a_dict_yaml_text_and_a_path_give_the_same_reports():
    by_path = serverless.simulate(ENDPOINT, TRACE, policy="kpa")
    as_dict = serverless.simulate(budcore.load_document(str(ENDPOINT)), TRACE.read_text(), policy="kpa")
    as_text = serverless.simulate(ENDPOINT.read_text(), str(TRACE), policy="kpa")
    assert by_path == as_dict == as_text


def test_the_cli_prints_the_same_document():
    cli = os.environ.get("BUDCORE_CLI")
    if not cli:
        pytest.skip("BUDCORE_CLI is not set (make python-tests sets it)")
    out = subprocess.run([cli, "serverless", "simulate", "--endpoint", str(ENDPOINT), "--trace", str(TRACE),
                          "--policy", "queue_depth,ray_serve", "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert serverless.simulate(ENDPOINT, TRACE, policy="queue_depth,ray_serve") == json.loads(out.stdout)


def test_to_pandas():
    pytest.importorskip("pandas")
    s = serverless.simulate(ENDPOINT, TRACE, policy="all")
    frame = s.to_pandas()
    assert list(frame.columns) == list(serverless.REPORT_COLUMNS)
    assert list(frame["policy"]) == s.policies
    assert list(frame["wait_p95"]) == [r["wait_seconds"]["p95"] for r in s.reports]
    assert list(frame["cost"]) == [Decimal(r["cost"]) for r in s.reports]


def test_errors_name_the_field(tmp_path):
    with pytest.raises(budcore.ValidationError) as e:
        serverless.simulate(ENDPOINT, TRACE, policy="kpa,nope")
    assert e.value.field == "policy" and "nope" in str(e.value)
    bad = tmp_path / "trace.csv"
    bad.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:00.0000000,lots,10\n")
    with pytest.raises(budcore.ValidationError) as e:
        serverless.simulate(ENDPOINT, bad)
    assert e.value.field.startswith(f"{bad}:2")
    endpoint = budcore.load_document(str(ENDPOINT))
    endpoint["concurrency_per_worker"] = 0
    with pytest.raises(budcore.ValidationError) as e:
        serverless.simulate(endpoint, TRACE)
    assert e.value.field == "concurrency_per_worker"
