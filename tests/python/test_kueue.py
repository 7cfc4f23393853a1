"""budcore.kueue: the companion's configuration check and its budget and window decisions,
the same documents the C ABI writes."""

import datetime as dt

import pytest

import budcore

TENANT = "0190e6f4-0000-7000-8000-00000000000a"
CONFIG = f"""
controllers: [{{name: budcore.io/budget, checks: [budget, window]}}]
tenants: [{{namespace: team-a, tenant_id: {TENANT}}}]
price_book: {{currency: USD, gpu_hour: {{a100: {{on_demand: "2.00"}}}}}}
budgets: {{budgets: [{{name: team-a, tenant_id: {TENANT}, amount: "100", hard_limit: true}}]}}
soft_limit_percent: 80
queues: {{cq: {{window: {{start: "22:00", end: "06:00"}}}}}}
"""

# One pod with 2 GPUs on flavor a100 for 5 h: 20.00 USD.
WORKLOAD = {
    "metadata": {"name": "wl", "namespace": "team-a", "uid": "u1",
                 "annotations": {"budcore.io/expected-duration": "5h"}},
    "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
        {"name": "c", "resources": {"requests": {"nvidia.com/gpu": "2"}}}]}}}]},
    "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [
        {"name": "main", "flavors": {"nvidia.com/gpu": "a100"}}]}},
}


def test_a_configuration_is_summarized_or_refused_naming_the_field():
    summary = budcore.kueue.check_config(CONFIG)
    assert summary["controllers"] == [{"name": "budcore.io/budget", "checks": ["budget", "window"]}]
    assert summary["budgets"] == ["team-a"] and summary["currency"] == "USD"
    assert "leader_election" not in summary
    assert summary["estimates"] == {"enabled": False, "refresh_seconds": 5, "writers": 8}
    estimating = budcore.kueue.check_config(CONFIG + "estimates: {enabled: true, refresh_seconds: 30, writers: 2}\n")
    assert estimating["estimates"] == {"enabled": True, "refresh_seconds": 30, "writers": 2}
    elected = budcore.kueue.check_config(CONFIG + "leader_election: {namespace: budcore-system, identity: c-0}\n")
    assert elected["leader_election"] == {"lease_name": "budcore-kueue-companion", "namespace": "budcore-system",
                                          "identity": "c-0", "lease_duration_seconds": 15,
                                          "renew_deadline_seconds": 10, "retry_period_seconds": 2}
    with pytest.raises(budcore.ValidationError) as e:
        budcore.kueue.check_config({"controllers": [{"name": "x", "checks": ["budget"]}],
                                    "price_book": {"currency": "USD"},
                                    "budgets": {"budgets": [{"name": "b", "tenant_id": TENANT, "amount": "1"}]}})
    assert e.value.field == "budgets.budgets[0].tenant_id"


def test_budget_and_window_decisions():
    ready = budcore.kueue.decide(CONFIG, WORKLOAD, spent={"team-a": "50.00 USD"}, now="2026-11-28T23:00:00Z")
    assert ready["tenant_id"] == TENANT and ready["price"]["total"] == "20.00 USD"
    assert ready["budget"]["state"] == "Ready" and ready["window"]["state"] == "Ready"
    noon = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
    held = budcore.kueue.decide(CONFIG, WORKLOAD, spent={"team-a": "70.00 USD"}, now=noon)
    assert held["budget"]["state"] == "Retry" and "passes the soft limit" in held["budget"]["message"]
    assert held["window"]["state"] == "Retry" and held["window"]["requeue_after_seconds"] == 36000
    rejected = budcore.kueue.decide(CONFIG, WORKLOAD, spent={"team-a": "90.00 USD"}, now="2026-11-28T23:00:00Z")
    assert rejected["budget"]["state"] == "Rejected"


def test_bad_requests_name_their_field():
    with pytest.raises(budcore.ValidationError) as e:
        budcore.kueue.decide(CONFIG, WORKLOAD, spent={"team-a": 70}, now="2026-11-28T23:00:00Z")
    assert e.value.field == "request.spent.team-a"
    with pytest.raises(budcore.ValidationError) as e:
        budcore.kueue.decide(CONFIG, WORKLOAD, now="noon")
    assert e.value.field == "request.now"
    with pytest.raises(ValueError):
        budcore.kueue.decide(CONFIG, WORKLOAD, now=dt.datetime(2026, 11, 28, 12, 0))


def test_the_controller_refuses_a_kubeconfig_it_cannot_read_naming_it():
    with pytest.raises(budcore.ValidationError) as e:
        budcore.kueue.Companion(CONFIG, kubeconfig="/nonexistent/budcore/kubeconfig")
    assert e.value.field == "kubeconfig" and e.value.value == "/nonexistent/budcore/kubeconfig"
    with pytest.raises(budcore.ValidationError) as e:
        budcore.kueue.Companion("controllers: []\n")
    assert e.value.field == "controllers"
