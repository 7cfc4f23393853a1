"""The one result style across the package: records (frozen dataclasses on budcore.results.Record)
with to_dict(), the document's keys, an HTML view names first and to_pandas(); collections as
budcore.results.Rows; closed sets as budcore.enums str enums that the functions take as members
or strings; the former collection names as aliases of Rows."""

import dataclasses
import json
import pathlib
import uuid

import pytest

import budcore
from budcore import enums, platform, schedule, serverless, usecases
from budcore.results import Record, Rows
from test_cost import PRICES, interval
from test_platform import TENANT, job

ROOT = pathlib.Path(__file__).resolve().parents[2]


# ---- enums ----------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", [getattr(enums, n) for n in enums.__all__])
def test_every_member_round_trips_through_its_string(kind):
    for m in kind:
        assert kind(m.value) is m and m == m.value and str(m) == m.value and f"{m}" == m.value
        assert json.loads(json.dumps({"v": m})) == {"v": m.value}
        assert budcore.parse_json(budcore.to_json({"v": m})) == {"v": m.value}
    with pytest.raises(ValueError):
        kind("no-such-name")


def test_the_enums_are_at_the_top_level_and_name_the_library_sets():
    assert budcore.JobStatus is enums.JobStatus and budcore.Priority is enums.Priority
    assert [m.value for m in budcore.Priority] == ["critical", "high", "normal", "low", "spot"]
    assert [m.value for m in budcore.ServerlessPriority] == ["premium", "standard", "spot", "batch"]
    assert budcore.JobStatus.PREEMPTED.ended and not budcore.JobStatus.QUEUED.ended


def test_a_job_reads_its_closed_sets_as_enums_and_takes_members_or_strings(tmp_path):
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        stored = p.submit(job("train"))
        j = stored.job
        assert j.status is budcore.JobStatus.QUEUED and j.status == "queued"
        assert j.priority is budcore.Priority.NORMAL and j.job_type is budcore.JobType.BATCH
        assert j.source is budcore.JobSource.DIRECT and j.deployment_type is budcore.DeploymentType.DOCKER
        assert p.set_priority(stored.id, budcore.Priority.HIGH).job.priority is budcore.Priority.HIGH
        assert p.set_priority(stored.id, "low").job.priority is budcore.Priority.LOW
        with pytest.raises(budcore.ValidationError):
            p.set_priority(stored.id, "ultra")
        table = p.jobs()
        assert table[0].status is budcore.JobStatus.QUEUED and table[0].priority == "low"
        assert p.jobs(status=budcore.JobStatus.QUEUED)[0].name == "train"


def test_the_durable_queue_takes_request_statuses_and_priorities_as_members(tmp_path):
    with budcore.open_store(tmp_path / "q.db") as s:
        q = serverless.DurableQueue(s, {"name": "chat", "model": "m"})
        out = q.enqueue([{"tenant": "acme", "priority": budcore.ServerlessPriority.BATCH},
                         {"tenant": "acme", "priority": budcore.ServerlessPriority.PREMIUM}])
        assert isinstance(out, Rows) and all(isinstance(r, serverless.EnqueueResult) and r.accepted for r in out)
        claimed = q.claim("w1", max=5)
        assert [r.id for r in claimed] == [out[1].id, out[0].id] == [r["id"] for r in claimed]  # premium first
        first = claimed[0]
        assert first.priority is budcore.ServerlessPriority.PREMIUM and first.status is budcore.RequestStatus.ASSIGNED
        assert first.to_dict()["status"] == "assigned" and type(first.to_dict()["status"]) is str
        assert len(q.requests([budcore.RequestStatus.ASSIGNED])) == 2 == len(q.requests(["assigned"]))
        assert q.requests([budcore.RequestStatus.PENDING]) == [] == q.list(["pending"])  # the alias too
        done = q.complete(first.id, first.claim)
        assert done.ok and done.status is budcore.RequestStatus.COMPLETED
        assert done == {"id": first.id, "ok": True, "status": "completed"}  # equal to its document
        st = q.status()
        assert (st.completed, st.in_flight) == (1, 1) and st["tenant_active"] == st.tenant_active
        shown = q.requests()._repr_html_()
        assert shown.startswith("<table><caption>2 requests</caption>") and "<th>priority</th>" in shown


def test_cost_functions_take_tiers_and_granularities_as_members_or_strings():
    spec = {"job_type": "batch", "deployment_type": "docker", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
            "estimated_duration_seconds": 3600}
    spot = budcore.cost.estimate(PRICES, spec, tier=budcore.Tier.SPOT)
    assert spot == budcore.cost.estimate(PRICES, spec, tier="spot") and spot.total < budcore.cost.estimate(PRICES, spec).total
    usage = budcore.cost.usage([interval(str(uuid.uuid4()), 2)], PRICES)
    daily = budcore.cost.rollup(usage, granularity=budcore.Granularity.DAY)
    assert daily == budcore.cost.rollup(usage, granularity="day") and daily.granularity is budcore.Granularity.DAY
    assert budcore.cost.cheapest_gpu(PRICES, 40, tier=budcore.Tier.SPOT) == budcore.cost.cheapest_gpu(PRICES, 40, tier="spot")


def test_a_platform_endpoint_status_is_a_record_of_worker_records(tmp_path):
    from test_serverless_platform import ENDPOINT, platform as endpoint_platform

    with endpoint_platform(tmp_path) as p:
        ep = serverless.PlatformEndpoint(p, ENDPOINT, worker_priority=budcore.Priority.HIGH)
        s = ep.scale(1)
        assert isinstance(s, serverless.EndpointStatus) and s.queued == 1 == s["queued"]
        (w,) = s.workers
        assert w.name == "chat-w1" and w.state is budcore.WorkerState.QUEUED and w.status in budcore.JobStatus
        assert s.to_dict()["workers"][0]["state"] == "queued" and s.rows()[0]["name"] == "chat-w1"
        p.run(5)
        ready = ep.status()
        assert ready.workers[0].state is budcore.WorkerState.READY and ready.workers[0].status is budcore.JobStatus.RUNNING
        assert "<td>chat-w1</td><td>ready</td><td>running</td>" in ready._repr_html_()
        placed = ep.enqueue([{"tenant": "acme", "payload_hash": "h1", "estimated_compute_seconds": 10,
                              "priority": budcore.ServerlessPriority.PREMIUM}])
        assert isinstance(placed, serverless.PlacementResult) and placed.results[0].accepted
        (a,) = placed.assignments
        assert a.placement == "warm" and a.request == placed.results[0].id == placed["results"][0]["id"]
        assert ep.complete(a.request).assignments == []


def test_platform_views_are_records_with_their_closed_sets_as_enums(tmp_path):
    cfg = {"store": f"sqlite://{tmp_path / 'p.db'}",
           "security": {"rbac": True, "platform_admins": ["user:root"], "tenants": {}}}
    with budcore.Platform.open(cfg, tenant=TENANT, principal="user:root") as root:
        ha = root.ha_status()
        assert isinstance(ha, platform.HaStatus) and ha.role is budcore.HaRole.SINGLE and ha["role"] == "single"
        binding = root.bind_role("user:erin", budcore.Role.EDITOR)
        assert binding.role is budcore.Role.EDITOR and binding.created_by == "user:root"
        bindings = root.role_bindings()
        assert isinstance(bindings, Rows) and [b.principal for b in bindings] == ["user:erin"]
        assert bindings.caption() == "1 binding" and "<td>editor</td>" in bindings._repr_html_()
        log = root.audit()
        assert all(isinstance(e, platform.AuditEntry) and len(e.hash) == 64 for e in log)
        assert log._repr_html_().index("<th>seq</th>") < log._repr_html_().index("<th>hash</th>")
        report = root.verify_audit()
        assert report.ok and report.problems == [] and report == report.to_dict()
        view = root.cluster()
        assert view.workloads == view["workloads"] == view.rows() and isinstance(view.usage, dict)
        root.unbind_role("user:erin", "editor")  # a string still
        assert len(root.role_bindings()) == 0


def test_cost_answers_are_records_whose_amounts_stay_decimal():
    from decimal import Decimal

    from test_cost import RUNPOD

    c = budcore.cost.compare_tiers(RUNPOD, {"job_type": "batch", "gpu_type": "nvidia-h100-sxm", "gpu_count": 8,
                                            "estimated_duration_seconds": 36000})
    assert isinstance(c, budcore.cost.TierComparison) and c.savings == c["savings"] > 0
    assert isinstance(c["savings"], Decimal) and c["spot"] is c.spot
    d = c.to_dict()
    assert d["savings"] == str(c.savings) and d["spot"] == c.spot.to_dict() and json.loads(json.dumps(d)) == d
    options = budcore.cost.cheapest_gpu(RUNPOD, 48, gpu_count=2)
    assert isinstance(options, Rows) and options.caption().endswith("GPU types")
    assert isinstance(options[0].cost, Decimal) and options.to_pandas()["gpu_type"][0] == options[0].gpu_type
    usage = budcore.cost.usage([interval(str(uuid.uuid4()), 2)], PRICES)
    budgets = {"budgets": [{"name": "t", "tenant_id": usage[0]["tenant_id"], "amount": "20", "hard_limit": True}]}
    status = budcore.cost.budget_status(budgets, usage, PRICES, now="2026-05-05T00:00:00Z")
    assert status[0].budget == "t" and status[0].spent == status[0]["spent"] and "<td>t</td>" in status._repr_html_()
    check = budcore.cost.check_budget(budgets, usage, PRICES, tenant=usage[0]["tenant_id"], estimate="30",
                                      now="2026-05-05T00:00:00Z")
    assert check.allowed is False and check["allowed"] is False and check.budget == "t"


def test_kueue_decisions_are_records_with_check_states():
    from test_kueue import CONFIG, WORKLOAD

    held = budcore.kueue.decide(CONFIG, WORKLOAD, spent={"team-a": "70.00 USD"}, now="2026-11-28T12:00:00Z")
    assert isinstance(held, budcore.kueue.Decision) and isinstance(held.budget, budcore.kueue.CheckDecision)
    assert held.budget.state is budcore.CheckState.RETRY and held["budget"]["state"] == "Retry"
    assert held.window.requeue_after_seconds == 36000 and held.to_dict()["window"]["state"] == "Retry"
    summary = budcore.kueue.check_config(CONFIG)
    assert summary.budgets == ["team-a"] and summary.leader_election is None and "leader_election" not in summary


# ---- records --------------------------------------------------------------------------------

def test_a_record_without_a_document_is_its_fields_as_json():
    sj = schedule.ScheduledJob(name="n-1", cluster_queue="q", flavors={}, start=0, end=60, deadline_met=None,
                               preempted_at=[], wait="quota", wait_detail="cq full", label="train")
    assert isinstance(sj, Record) and sj.wait is budcore.WaitKind.QUOTA  # a string given is kept as its member
    d = sj.to_dict()
    assert d["wait"] == "quota" and type(d["wait"]) is str and d["name"] == "n-1"
    assert json.loads(json.dumps(d)) == d and sj["label"] == "train" and sj == d
    with pytest.raises(ValueError):
        schedule.ScheduledJob(name="x", cluster_queue="q", flavors={}, start=0, end=1, deadline_met=None,
                              preempted_at=[], wait="bored")
    with pytest.raises(dataclasses.FrozenInstanceError):
        sj.name = "other"


def test_every_result_class_is_a_frozen_record():
    classes = [budcore.results.Plan, budcore.results.RunResult, budcore.results.QuotaSimulation,
               budcore.results.JobPage, budcore.gpu.GpuReplay, budcore.gpu.DefragPlan,
               serverless.ServerlessSimulation, budcore.cost.Estimate, budcore.cost.Report, budcore.cost.Rollup,
               budcore.cost.ServerlessRollup, budcore.cost.Forecast, platform.JobSummary, platform.Event,
               platform.PipelineRun, platform.SimulationResult, schedule.ScheduledJob, usecases.TemplateSummary,
               usecases.UsecaseTemplate, usecases.StackComponent, usecases.RenderedStack, usecases.PlannedJob,
               usecases.DeploymentPlan, usecases.Deployment]
    for cls in classes:
        assert issubclass(cls, Record) and dataclasses.is_dataclass(cls), cls
        assert cls.__dataclass_params__.frozen, cls


def test_a_simulation_is_a_record_with_rows_and_a_table_names_first():
    sim = budcore.simulate({"jobs": [{"at": 0, "tenant": "<team>", "job": job("first", gpus=8, seconds=100)}]})
    assert sim.to_dict()["jobs"] == sim.jobs and sim["start"] == sim.start
    assert [r["name"] for r in sim.rows()] == ["first"] and sim.rows()[0]["status"] == "completed"
    shown = sim._repr_html_()
    assert "&lt;team&gt;" in shown and "<team>" not in shown
    assert shown.index("<th>name</th>") < shown.index("<th>status</th>") < shown.index("<th>tenant</th>")


def test_a_cost_report_is_a_record_whose_rows_are_a_method():
    usage = budcore.cost.usage([interval(str(uuid.uuid4()), 2, labels={"team": "<search>"})], PRICES)
    r = budcore.cost.report(usage, by=["label:team"])
    assert isinstance(r, Record) and r.rows()[0]["label:team"] == "<search>" and r.to_dict()["rows"] == r.rows()
    assert r["currency"] == r.currency == "USD" and r == r.to_dict()
    shown = r._repr_html_()
    assert "<th>label:team</th>" in shown and "&lt;search&gt;" in shown and "<search>" not in shown


# ---- Rows -----------------------------------------------------------------------------------

def test_rows_show_names_first_and_times_as_people_read_them(tmp_path):
    pd = pytest.importorskip("pandas")
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        batch = p.submit_batch([job("a"), (job("b"), "key<b>")])
        table = p.jobs()
        assert isinstance(batch, Rows) and isinstance(table, Rows) and isinstance(batch, list)
        assert [r["name"] for r in batch.rows()] == ["a", "b"] and batch.rows()[1]["idempotency_key"] == "key<b>"
        assert "key&lt;b&gt;" in batch._repr_html_() and "<b>" not in batch._repr_html_()
        shown = table._repr_html_()
        assert shown.startswith("<table><caption>2 jobs</caption>") and "key&lt;b&gt;" in shown
        assert shown.index("<th>name</th>") < shown.index("<th>id</th>")
        assert "2026-01-01 00:00:00 UTC" in shown and "2026-01-01T00:00:00Z" not in shown
        frame = table.to_pandas()
        assert list(frame.columns)[:2] == ["name", "status"] and list(frame.columns)[-1] == "id"
        assert isinstance(frame["created_at"].dtype, pd.DatetimeTZDtype)
        assert set(frame["status"]) == {"queued"} and all(type(s) is str for s in frame["status"])
        assert [j.to_dict()["name"] for j in table] == [r["name"] for r in table.rows()]


def test_the_former_collection_names_are_aliases_of_rows(tmp_path):
    assert platform.StoredJobs.__origin__ is Rows and platform.JobTable.__origin__ is Rows
    assert usecases.TemplateList.__origin__ is Rows and usecases.DeploymentList.__origin__ is Rows
    templates = usecases.templates()
    assert isinstance(templates, Rows) and templates.caption().endswith("templates")
    assert list(templates.to_pandas().columns) == list(usecases.TemplateSummary.ROW_COLUMNS)
    assert templates.rows()[0]["tags"] == list(templates[0].tags)  # tuples as lists in rows
    assert issubclass(schedule.ScheduledJobs, Rows)
    assert budcore.results.Result is Record  # the former base's name
    empty = Rows()
    assert empty.rows() == [] and empty.caption() == "0 rows" and "<table>" in empty._repr_html_()
