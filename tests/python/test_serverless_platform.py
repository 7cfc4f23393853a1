"""A serverless endpoint on a budcore.Platform: its warm worker is a job the platform admits,
a request is placed on it warm, its busy and idle GPU time comes back as usage rows that a
hard budget then counts, and bad options are refused naming the field."""

import pytest

import budcore
from budcore import serverless

TENANT = "00000000-0000-4000-8000-0000000000d2"

ENDPOINT = {
    "name": "chat", "model": "llama-3-8b", "concurrency_per_worker": 1,
    "cold_start": {"container_seconds": 2, "model_gib": 1, "load_gib_per_second": 1, "warmup_seconds": 0},
    "warm_pool": {"min_warm_workers": 0, "max_warm_workers": 2, "target_warm_workers": 0},
}


def platform(tmp_path, price="3.60", budgets=None):
    cost = {"prices": {"currency": "USD", "gpu_hour": {"nvidia-a100-80gb": {"on_demand": price}},
                       "cpu_core_hour": {"on_demand": "0"}, "memory_gib_hour": {"on_demand": "0"}}}
    if budgets:
        cost["budgets"] = budgets
    return budcore.Platform.open({"store": f"sqlite://{tmp_path / 'budcore.db'}", "cost": cost}, tenant=TENANT)


def test_workers_are_jobs_and_their_time_is_metered(tmp_path):
    with platform(tmp_path) as p:
        ep = serverless.PlatformEndpoint(p, ENDPOINT)
        s = ep.scale(1)
        assert s["queued"] == 1 and s["workers"][0]["name"] == "chat-w1"
        p.run(5)
        s = ep.status()
        assert s["ready"] == 1
        out = ep.enqueue([{"tenant": "acme", "payload_hash": "h1", "estimated_compute_seconds": 10,
                           "priority": "premium"}])
        assert out["assignments"][0]["placement"] == "warm"
        p.run(10)
        assert ep.complete(out["results"][0]["id"]) == {"assignments": []}
        p.run(10)
        rows = ep.meter()
        assert len(rows) == 1
        assert rows[0]["labels"] == {"serverless_endpoint": "chat"}
        assert rows[0]["gpu_seconds"] == "25"
        assert rows[0]["idle_gpu_seconds"] == "15"
        assert ep.scale(0)["stopped"] == 1


def test_a_hard_budget_stops_the_pool_growing(tmp_path):
    # A worker is estimated at its hourly rate ($1): two hours metered leave no room for another.
    budgets = [{"name": "sls-cap", "tenant_id": TENANT, "amount": "2.50", "hard_limit": True}]
    with platform(tmp_path, price="1.00", budgets=budgets) as p:
        ep = serverless.PlatformEndpoint(p, ENDPOINT)
        ep.scale(1)
        p.run(7200)
        ep.meter()
        with pytest.raises(budcore.BudgetExceededError, match="sls-cap"):
            ep.scale(2)
        assert len(ep.status()["workers"]) == 1


def test_a_worker_warming_up_past_its_timeout_is_cancelled_and_counted(tmp_path):
    # The cold start takes 3 s (2 s container, 1 GiB at 1 GiB/s); the warm-up timeout is 2 s.
    slow = dict(ENDPOINT, warm_pool=dict(ENDPOINT["warm_pool"], warmup_timeout_seconds=2))
    with platform(tmp_path) as p:
        ep = serverless.PlatformEndpoint(p, slow)
        first = ep.scale(1)["workers"][0]["job"]
        p.run(1)
        s = ep.status()
        assert s["starting"] == 1 and s["failed_starts"] == 0
        p.run(1)
        s = ep.status()
        assert s["failed_starts"] == 1
        assert first not in [w["job"] for w in s["workers"]]
        failed = [line for line in p.metrics().splitlines() if line.startswith("budcore_serverless_failed_starts_total{")]
        assert len(failed) == 1 and failed[0].startswith('budcore_serverless_failed_starts_total{endpoint="chat",tenant="')
        assert failed[0].endswith('"} 1'), failed
        stored = p.get(first).job
        assert stored.status == "cancelled"
        assert "warmup_timeout_seconds" in stored.status_message


def test_bad_options_name_the_field(tmp_path):
    with platform(tmp_path) as p:
        with pytest.raises(budcore.ValidationError) as e:
            serverless.PlatformEndpoint(p, ENDPOINT, worker_priority="urgent")
        assert e.value.field == "worker_priority"
