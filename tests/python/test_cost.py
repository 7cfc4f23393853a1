"""budcore.cost: estimates checked against an independent decimal computation (Python's decimal
module, the way an outside acceptance test checks contract 5), metering with a real SQLite store,
reports as pandas frames and matplotlib charts, forecasts and budgets."""

import json
import os
import pathlib
import random
import subprocess
import uuid
from decimal import ROUND_HALF_EVEN, Decimal

import pytest

import budcore
from budcore import cost

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNPOD = ROOT / "examples" / "prices" / "runpod-like.yaml"

PRICES = {
    "currency": "USD",
    "gpu_hour": {
        "nvidia-a100-80gb": {"on_demand": "2.49", "spot": "1.19"},
        "nvidia-t4": {"on_demand": "0.40", "spot": "0.16"},
        "mig-1g.10gb": {"on_demand": "0.000013", "spot": "0.0000075"},
        "odd": {"on_demand": "0.123456789012", "spot": "0.000000000001"},
    },
    "cpu_core_hour": {"on_demand": "0.04", "spot": "0.02"},
    "memory_gib_hour": {"on_demand": "0.005", "spot": "0.0025"},
    "storage_gib_month": "0.10",
    "minimum_billable_seconds": 60,
}
TENANT = "0190e6f4-5c3a-7abc-8def-00000000000a"
PROJECT = "0190e6f4-5c3a-7abc-8def-0000000000a1"


# ---- the independent computation of contract 5 ------------------------------------------------


def q6(x: Decimal) -> Decimal:
    return x.quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)


def reference(job: dict) -> dict:
    """Contract 5 computed from the text of docs/cli.md with decimal.Decimal."""
    tier = "spot" if job.get("priority", "normal").lower() == "spot" else "on_demand"
    if job.get("estimated_duration_seconds") is None:
        seconds, period = 2_628_000, "month"
    else:
        seconds, period = max(job["estimated_duration_seconds"], PRICES["minimum_billable_seconds"]), None
    lines = []
    gpus = job.get("gpu_count", 0)
    if gpus:
        price = Decimal(PRICES["gpu_hour"][job["gpu_type"]][tier])
        lines.append(("gpu", Decimal(gpus) * seconds, price, 3600))
    cpu = job.get("cpu_cores", 1)
    cpu = Decimal("0.25") if cpu == "250m" else Decimal(str(cpu))
    if cpu:
        lines.append(("cpu", cpu * seconds, Decimal(PRICES["cpu_core_hour"][tier]), 3600))
    mem = Decimal(str(job.get("memory_gb", 4)))
    if mem:
        lines.append(("memory", mem * seconds, Decimal(PRICES["memory_gib_hour"][tier]), 3600))
    storage = job.get("storage_gb", 0) or 0
    if storage:
        lines.append(("storage", Decimal(storage) * seconds, Decimal(PRICES["storage_gib_month"]), 2_592_000))
    amounts = [(item, qty, q6(qty * price / div)) for item, qty, price, div in lines]
    return {"seconds": seconds, "tier": tier, "period": period, "amounts": amounts,
            "total": sum((a for _, _, a in amounts), Decimal(0))}


def random_job(rng: random.Random) -> dict:
    job = {"job_type": rng.choice(["batch", "training", "service"]), "deployment_type": "docker"}
    if rng.random() < 0.8:
        job["gpu_type"] = rng.choice(sorted(PRICES["gpu_hour"]))
        job["gpu_count"] = rng.randint(0, 16)
    if rng.random() < 0.8:
        job["cpu_cores"] = rng.choice([0, 1, 2, 0.5, 0.25, 1.5, 96, "0.001", "250m"])
    if rng.random() < 0.8:
        job["memory_gb"] = rng.choice([0, 1, 4, 0.5, 512, "0.125", 3.3])
    if rng.random() < 0.5:
        job["storage_gb"] = rng.randint(0, 5000)
    if rng.random() < 0.3:
        job["priority"] = rng.choice(["spot", "SPOT", "high", "low"])
    if job["job_type"] != "service" or rng.random() < 0.5:
        job["estimated_duration_seconds"] = rng.choice([0, 1, 59, 60, 61, 3599, 5400, rng.randint(0, 10**7)])
    return job


def check_against_reference(job: dict, got: dict) -> None:
    want = reference(job)
    assert got["seconds"] == want["seconds"], job
    assert got["tier"] == want["tier"]
    assert got.get("period") == want["period"]
    assert [l["item"] for l in got["lines"]] == [i for i, _, _ in want["amounts"]], job
    for line, (_, qty, amount) in zip(got["lines"], want["amounts"]):
        assert Decimal(line["quantity"]) == qty, (job, line)
        assert line["amount"] == f"{amount:.6f}", (job, line, amount)
    assert got["total"] == f"{want['total']:.6f}", job


def test_estimates_match_an_independent_decimal_computation():
    prices = cost.load_prices(PRICES)
    rng = random.Random(5)
    for _ in range(2000):
        job = random_job(rng)
        check_against_reference(job, cost.estimate(prices, job).to_dict())


def test_the_cli_matches_the_same_computation(tmp_path):
    cli = os.environ.get("BUDCORE_CLI")
    if not cli:
        pytest.skip("BUDCORE_CLI is not set (make python-tests sets it)")
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    rng = random.Random(9)
    for i in range(40):
        job = random_job(rng)
        spec = tmp_path / f"job{i}.json"
        spec.write_text(json.dumps(job))
        r = subprocess.run([cli, "cost", "estimate", "--prices", str(prices), str(spec)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        check_against_reference(job, json.loads(r.stdout))
    r = subprocess.run([cli, "cost", "estimate", "--prices", str(prices), "-"], input='{"job_type": "batch"}',
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert json.loads(r.stderr)["error"]["code"] == "missing_field"


def test_pipeline_totals_and_optional_steps():
    rng = random.Random(3)
    steps, want_total, want_min = [], Decimal(0), Decimal(0)
    for i in range(30):
        job = random_job(rng)
        job["job_type"] = "batch"
        job["estimated_duration_seconds"] = rng.randint(0, 100000)
        optional = rng.random() < 0.3
        step = {"id": f"s-{i}", "step_type": "JOB", "config": job}
        if optional:
            step["condition"] = "{{ params.on }}"
        steps.append(step)
        t = reference(job)["total"]
        want_total += t
        want_min += 0 if optional else t
    e = cost.estimate(PRICES, {"pipeline": {"name": "p"}, "steps": steps})
    assert e.is_pipeline
    assert e.total == want_total and e.total_min == want_min
    assert e.to_dict()["total"] == f"{want_total:.6f}"
    frame = e.to_pandas()
    assert set(frame["step"]) <= {s["id"] for s in steps}
    assert sum(frame["amount"]) == want_total


def test_errors_name_the_path_and_the_contract_code():
    with pytest.raises(budcore.NotFoundError) as err:
        cost.estimate(PRICES, {"job_type": "batch", "gpu_type": "h100", "gpu_count": 1, "estimated_duration_seconds": 5})
    assert err.value.field == "gpu_type" and cost.contract_code(err.value) == "unknown_price"
    with pytest.raises(budcore.ValidationError) as err:
        cost.estimate(PRICES, {"steps": [{"id": "a", "step_type": "JOB", "config": {"job_type": "batch"}}]})
    assert err.value.field == "steps[0].config.estimated_duration_seconds"
    assert cost.contract_code(err.value) == "missing_field"
    with pytest.raises(budcore.ValidationError) as err:
        cost.load_prices({"currency": "USD", "gpu_hour": {"t4": {"on_demand": "0.1234567890123"}}})
    assert err.value.field == "gpu_hour.t4.on_demand"


def test_compare_and_cheapest_on_the_example_table():
    c = cost.compare_tiers(RUNPOD, {"job_type": "batch", "gpu_type": "nvidia-h100-sxm", "gpu_count": 8,
                                    "estimated_duration_seconds": 36000})
    assert c["savings"] == c["on_demand"].total - c["spot"].total > 0
    options = cost.cheapest_gpu(RUNPOD, 48, gpu_count=2)
    assert options[0]["gpu_type"] == "nvidia-rtx-a6000"
    assert options == sorted(options, key=lambda o: (o["cost"], o["gpu_type"]))
    assert isinstance(options[0]["cost"], Decimal)


def interval(job, hours, start="2026-05-02T00:00:00", project=PROJECT, gpu="nvidia-a100-80gb", **extra):
    from datetime import datetime, timedelta

    s = datetime.fromisoformat(start)
    return dict({"tenant_id": TENANT, "project_id": project, "job_id": job, "gpu_type": gpu, "gpu_count": 1,
                 "start": s.isoformat() + "Z", "end": (s + timedelta(hours=hours)).isoformat() + "Z"}, **extra)


def test_metering_with_a_real_store_and_the_admission_gate(tmp_path):
    store = budcore.open_store(tmp_path / "cost.db")
    job_id = str(uuid.uuid4())
    rec = cost.record_usage(store, PRICES, interval(job_id, 2, labels={"team": "search"}))
    assert rec["computed_cost"] == "4.98" and rec["seq"] >= 1
    cost.record_usage(store, PRICES, interval(job_id, 1, start="2026-05-03T00:00:00"))
    total = cost.job_cost(store, TENANT, job_id)
    assert total["total"] == Decimal("7.47") and total["records"] == 2
    assert len(cost.load_usage(store, TENANT)) == 2

    budgets = {"budgets": [{"name": "search", "tenant_id": TENANT, "project_id": PROJECT, "amount": "10",
                            "hard_limit": True}]}
    job = {"name": "next", "tenant_id": TENANT, "project_id": PROJECT, "job_type": "batch",
           "deployment_type": "docker", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "cpu_cores": 0,
           "memory_gb": 0, "estimated_duration_seconds": 3600}
    ok = cost.admit_job(store, budgets, PRICES, job, now="2026-05-10T00:00:00Z")
    assert ok["allowed"] is True and ok["checked"] == ["search"]
    denied = cost.admit_job(store, budgets, PRICES, dict(job, estimated_duration_seconds=3700),
                            now="2026-05-10T00:00:00Z")
    assert denied["allowed"] is False and "past its hard limit" in denied["reason"]
    store.close()


def test_reports_frames_csv_and_charts(tmp_path):
    pd = pytest.importorskip("pandas")
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    usage = cost.usage([
        interval(str(uuid.uuid4()), 2, labels={"team": "search"}),
        interval(str(uuid.uuid4()), 10, gpu="nvidia-t4", labels={"team": "ads"}),
        interval(str(uuid.uuid4()), 0.5, project="0190e6f4-5c3a-7abc-8def-0000000000b1", labels={"team": "ads"}),
    ], PRICES)
    r = cost.report(usage, by=["label:team"], shared={"control-plane": "1.00"})
    frame = r.to_pandas()
    assert list(frame["label:team"]) == ["ads", "search"]  # 5.245 before 4.98
    assert sum(frame["shared"]) == Decimal("1.00")
    assert sum(frame["total"]) == r.total == r.total_direct + Decimal("1.00")
    assert r.to_csv().splitlines()[0].startswith("label:team,records,")
    ax = r.plot()
    ax.figure.savefig(tmp_path / "report.png")
    assert (tmp_path / "report.png").stat().st_size > 1000

    hours = cost.rollup(usage, granularity="hour", by="gpu_type")
    hf = hours.to_pandas()
    assert isinstance(hf["bucket"].dtype, pd.DatetimeTZDtype)
    assert sum(hf["cost"]) == r.total_direct
    hours.plot().figure.savefig(tmp_path / "rollup.png")

    f = cost.forecast(usage, now="2026-05-05T12:00:00Z")
    assert f.month_to_date == r.total_direct
    assert len(f.to_pandas()) >= 30

    status = cost.budget_status({"budgets": [{"name": "t", "tenant_id": TENANT, "amount": "20"}]}, usage, PRICES,
                                now="2026-05-05T00:00:00Z")
    assert status[0]["thresholds_crossed"] == [50]
    check = cost.check_budget({"budgets": [{"name": "t", "tenant_id": TENANT, "amount": "20", "hard_limit": True}]},
                              usage, PRICES, tenant=TENANT, estimate="9.80", now="2026-05-05T00:00:00Z")
    assert check["allowed"] is False


def test_serverless_spend_per_endpoint_per_hour():
    # A chat worker from 00:30 to 01:30, half busy, lands half in each hour; the batch job is left out.
    usage = cost.usage([
        interval(str(uuid.uuid4()), 1, start="2026-05-02T00:30:00", gpu_utilization="0.5",
                 labels={"serverless_endpoint": "chat"}),
        interval(str(uuid.uuid4()), 0.25, labels={"serverless_endpoint": "embed"}),
        interval(str(uuid.uuid4()), 1),
    ], PRICES)
    r = cost.serverless_rollup(usage)
    assert isinstance(r, cost.ServerlessRollup) and r.granularity == "hour" and r.endpoint is None
    assert [(row["bucket"], row["endpoint"]) for row in r.rows()] == [
        ("2026-05-02T00:00:00Z", "chat"), ("2026-05-02T00:00:00Z", "embed"), ("2026-05-02T01:00:00Z", "chat")]
    first = r.rows()[0]
    assert (first["workers"], first["gpu_seconds"], first["busy_gpu_seconds"], first["idle_gpu_seconds"]) == \
        (1, "1800", "900", "900")
    assert Decimal(first["busy_cost"]) + Decimal(first["idle_cost"]) == Decimal(first["cost"]) == Decimal("1.245")
    chat = cost.serverless_rollup(usage, endpoint="chat", start="2026-05-02T01:00:00Z")
    assert chat.endpoint == "chat" and len(chat) == 1
    assert chat.to_csv().splitlines()[0] == ("bucket,endpoint,workers,records,gpu_seconds,busy_gpu_seconds,"
                                             "idle_gpu_seconds,cost,busy_cost,idle_cost")
    with pytest.raises(budcore.ValidationError) as e:
        cost.serverless_rollup(usage, granularity="week")
    assert e.value.field == "granularity"
    with pytest.raises(budcore.ValidationError) as e:
        cost.serverless_rollup(usage, endpoint="")
    assert e.value.field == "endpoint"


def test_rollup_arrays_match_pandas_groupby():
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    n = 50_000
    start = 1_777_593_600 + rng.integers(0, 3 * 86400, n)
    tenant = rng.integers(0, 9, n, dtype=np.int32)
    gpu = rng.integers(0, 4, n, dtype=np.int32)
    nanos = rng.integers(0, 60 * 10**9, n)
    pico = rng.integers(0, 10**11, n)
    got = cost.rollup_arrays(start, tenant, gpu, nanos, pico, granularity="hour", threads=2)
    frame = pd.DataFrame({"h": start // 3600 * 3600, "t": tenant, "g": gpu, "n": nanos, "c": pico})
    want = frame.groupby(["h", "t", "g"], sort=True).agg(n=("n", "sum"), c=("c", "sum"), k=("n", "size")).reset_index()
    assert np.array_equal(got["bucket_start"], want["h"].to_numpy())
    assert np.array_equal(got["tenant"], want["t"].to_numpy())
    assert np.array_equal(got["cost_pico"], want["c"].to_numpy())
    assert np.array_equal(got["records"], want["k"].to_numpy())
    with pytest.raises(budcore.ValidationError):
        cost.rollup_arrays(start, tenant[:-1], gpu, nanos, pico)
