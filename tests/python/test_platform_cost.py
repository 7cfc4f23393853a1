"""Cost controls on a budcore.Platform opened from a config whose ``cost`` section holds a price
book and budgets: actual_cost on ended jobs, the job-level budget_limit stopping a running job,
a hard-limit budget refusing admission, and a bad section named by its path."""

import pytest

import budcore

TENANT = "00000000-0000-4000-8000-0000000000d1"

PRICES = {
    "currency": "USD",
    "gpu_hour": {"nvidia-a100-80gb": {"on_demand": "2.00"}},
    "cpu_core_hour": {"on_demand": "0"},
    "memory_gib_hour": {"on_demand": "0"},
}


def job(name, seconds, **extra):
    doc = {"name": name, "job_type": "batch", "deployment_type": "docker",
           "gpu_type": "nvidia-a100-80gb", "gpu_count": 1, "estimated_duration_seconds": seconds}
    doc.update(extra)
    return doc


def config(tmp_path, **cost):
    return {"store": f"sqlite://{tmp_path / 'budcore.db'}", "cost": cost}


def test_a_cost_section_fills_actual_cost_and_enforces_budget_limit(tmp_path):
    budgets = [{"name": "py-team", "tenant_id": TENANT, "amount": "2.50", "hard_limit": True}]
    with budcore.Platform.open(config(tmp_path, prices=PRICES, budgets=budgets), tenant=TENANT) as p:
        capped = p.submit(job("capped", 3600, budget_limit="1.00"))
        half = p.submit(job("twenty-minutes", 1200))
        p.run()
        stopped = p.get(capped.id).job
        assert stopped.status == "failed"
        assert "BudgetExceeded" in stopped.status_message and "budget_limit" in stopped.status_message
        # 1801 s at $2/h: stopped in the second that passed $1.00.
        assert stopped.actual_cost == budcore.Money("1.000555555556", "USD")
        done = p.get(half.id).job
        assert done.status == "completed"
        assert done.actual_cost.amount == "0.666666666667"
        # $1.67 spent + $2.00 estimated would pass $2.50.
        with pytest.raises(budcore.BudgetExceededError) as e:
            p.submit(job("one-more-hour", 3600))
        assert "py-team" in str(e.value)
        p.check()


def test_a_bad_cost_section_names_its_path(tmp_path):
    with pytest.raises(budcore.ValidationError) as e:
        budcore.Platform.open(config(tmp_path, budgets=[]), tenant=TENANT)
    assert e.value.field == "cost.prices"
    bad = dict(PRICES, gpu_hour={"nvidia-a100-80gb": {"on_demand": "-1"}})
    with pytest.raises(budcore.ValidationError) as e:
        budcore.Platform.open(config(tmp_path, prices=bad), tenant=TENANT)
    assert e.value.field == "cost.prices.gpu_hour.nvidia-a100-80gb.on_demand"
