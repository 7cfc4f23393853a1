"""One result style: every result is a frozen dataclass with typed fields (budcore.results.Record:
to_dict(), result["key"], equality with its document, rows(), to_pandas() and an escaped HTML
view), every collection a budcore.results.Rows, and closed sets are budcore.enums members that
equal the strings they were."""

import dataclasses
import json
import pathlib

import pytest

import budcore
from budcore.enums import PipelineStatus, StepState
from budcore.results import JobPage, Plan, QuotaSimulation, Record, RunResult

ROOT = pathlib.Path(__file__).resolve().parents[2]
TENANT = "00000000-0000-4000-8000-0000000000c7"


@pytest.fixture
def pipeline():
    return budcore.Pipeline.load(ROOT / "examples" / "specs" / "rag-pipeline.json")


def test_a_plan_is_a_record_with_its_document_and_rows(pipeline):
    plan = pipeline.plan()
    assert isinstance(plan, Plan) and isinstance(plan, Record) and dataclasses.is_dataclass(plan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.order = []
    assert plan.order == plan["order"] and plan.critical_path == plan["critical_path"]
    assert json.loads(json.dumps(plan.to_dict())) == dict(plan) == plan.to_dict() == plan
    assert "order" in plan and list(plan) == list(plan.to_dict()) and plan.get("no_such_key", 7) == 7
    rows = plan.rows()
    assert [r["step"] for r in rows] == plan.order
    first_level = set(plan.levels[0])
    assert all((r["level"] == 0) == (r["step"] in first_level) for r in rows)
    assert {r["step"] for r in rows if r["on_critical_path"]} == set(plan.critical_path)
    frame = plan.to_pandas()
    assert list(frame.columns) == ["step", "level", "on_critical_path", "job_step"]
    assert len(frame) == len(plan.order)
    assert "<table>" in plan._repr_html_() and plan.order[0] in plan._repr_html_()
    with pytest.raises(AttributeError):
        plan.no_such_key
    with pytest.raises(KeyError):
        plan["no_such_key"]


def test_a_run_has_a_row_per_step(pipeline):
    run = pipeline.run()
    assert isinstance(run, RunResult) and run.status == "completed" and run.status is PipelineStatus.COMPLETED
    assert set(run.steps.values()) == {StepState.SUCCEEDED} and run.to_dict()["status"] == "completed"
    frame = run.to_pandas()
    assert set(frame["step"]) == set(run.steps) and set(frame["status"]) == {"succeeded"}


def test_a_quota_simulation_has_a_row_per_workload():
    scenario = {
        "cycles": "until_quiescent", "resource_flavors": [{"name": "default"}],
        "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
                            "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "4"}]}]}]}],
        "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
        "workloads": [
            {"name": n, "namespace": "ns", "queue": "lq", "creation_seq": i,
             "pod_sets": [{"name": "main", "count": 1, "requests": {"cpu": "3"}}]} for i, n in enumerate(["a", "<b>"])],
    }
    out = budcore.quota.simulate(scenario)
    assert isinstance(out, QuotaSimulation) and "a" in out.admitted
    rows = {r["workload"]: r for r in out.rows()}
    assert rows["a"]["state"] == "admitted" and rows["a"]["cluster_queue"] == "cq"
    assert rows["<b>"]["state"] == "pending" and rows["<b>"]["reason"]
    assert list(out.to_pandas()["state"]) == ["admitted", "pending"]
    page = out._repr_html_()
    assert "&lt;b&gt;" in page and "<b>" not in page  # every cell escaped
    assert budcore.quota.simulate(json.dumps(scenario)) == out


def test_a_store_page_lists_its_jobs(tmp_path):
    with budcore.open_store(f"sqlite://{tmp_path}/s.db") as store:
        for name in ("one", "two"):
            store.submit_job(TENANT, {"name": name, "job_type": "batch", "deployment_type": "docker"})
        page = store.list_jobs(TENANT, limit=1)
        assert isinstance(page, JobPage) and len(page.jobs) == 1 and page.next_cursor
        assert page["items"] == page.jobs and page.to_dict()["next_cursor"] == page.next_cursor
        frame = store.list_jobs(TENANT).to_pandas()
        assert sorted(frame["name"]) == ["one", "two"] and set(frame["status"]) == {"pending"}
