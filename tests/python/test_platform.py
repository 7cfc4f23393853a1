"""budcore.Platform from Python: jobs through admission to completion, the event stream, a
pipeline run, errors, reopen, and what-if scenarios."""

import uuid

import pytest

import budcore

TENANT = "00000000-0000-4000-8000-0000000000d1"
OTHER = "00000000-0000-4000-8000-0000000000d2"


def job(name, gpus=1, seconds=600, **extra):
    doc = {
        "name": name,
        "job_type": "batch",
        "deployment_type": "docker",
        "gpu_type": "nvidia-a100-80gb",
        "gpu_count": gpus,
        "estimated_duration_seconds": seconds,
    }
    doc.update(extra)
    return doc


def test_a_job_runs_to_completion_and_the_events_tell_it(tmp_path):
    with budcore.Platform.embedded(tmp_path / "p", tenant=TENANT, principal="user:py") as p:
        stored = p.submit(job("train"), idempotency_key="k1")
        assert stored.created and stored.job.status == "queued"
        again = p.submit(job("train"), idempotency_key="k1")
        assert not again.created and again.id == stored.id
        with pytest.raises(budcore.ValidationError) as reused:  # the key with another document
            p.submit(job("train", gpus=2), idempotency_key="k1")
        assert reused.value.field == "idempotency_key" and str(stored.id) in reused.value.message
        with pytest.raises(budcore.ValidationError) as empty:  # an empty key is not "no key"
            p.submit(job("train"), idempotency_key="")
        assert empty.value.field == "idempotency_key"
        with pytest.raises(budcore.ValidationError) as twice:  # one batch, one key per job
            p.submit_batch([(job("a"), "b-1"), (job("b"), "b-1")])
        assert twice.value.field == "jobs[1].idempotency_key"
        with pytest.raises(TypeError):  # a key that is no str, in a batch as in one submit
            p.submit_batch([(job("a"), 7)])
        with pytest.raises(budcore.ValidationError) as nan:  # JSON has no NaN: it would come back null
            p.submit(job("train", spec={"image": "x/y", "a": float("nan")}))
        assert nan.value.field == "spec.a"
        assert p.run() == "2026-01-01T00:10:00Z"
        done = p.get(stored.id)
        assert done.job.status == "completed"
        events = list(p.watch())
        assert [e.data["to"] for e in events if e.type == "job.transition"] == [
            "queued", "scheduled", "running", "completed"]
        assert events[0].data["principal"] == "user:py"
        assert list(p.watch(since=events[-1].seq)) == []
        assert list(p.watch(tenant=OTHER)) == []
        p.check()
        assert "job_state_transitions_total" in p.metrics()


def test_jobs_is_a_table_with_a_pandas_frame(tmp_path):
    pd = pytest.importorskip("pandas")
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        p.submit_batch([job("a"), (job("b"), "key-b"), budcore.Job.from_dict(job("c"))])
        table = p.jobs(status="queued")
        assert len(table) == 3 and {r["name"] for r in table} == {"a", "b", "c"}
        frame = table.to_pandas()
        assert list(frame["status"]) == ["queued"] * 3
        assert isinstance(frame["created_at"].dtype, pd.DatetimeTZDtype)


def test_a_notebook_shows_jobs_and_tables_by_name(tmp_path):
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        stored = p.submit(job("fine-tune-v2"), idempotency_key="k-<1>")
        shown = stored._repr_html_()
        # Named first, the key in the caption (escaped), the id kept.
        assert shown.index("fine-tune-v2") < shown.index(str(stored.id))
        assert "key k-&lt;1&gt;" in shown and "<1>" not in shown
        assert "<th style=\"text-align:left\">name</th><td>fine-tune-v2</td>" in stored.job._repr_html_()
        table = p.jobs()._repr_html_()
        assert table.startswith("<table><caption>1 job</caption>") and "<th>name</th><th>status</th>" in table


def test_errors_name_the_field_and_nothing_is_half_applied(tmp_path):
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        with pytest.raises(budcore.ValidationError) as e:
            p.submit_batch([job("ok"), job("bad", gpus=-1)])
        assert e.value.field == "jobs[1].gpu_count"
        assert len(p.jobs()) == 0
        s = p.submit(job("x", seconds=60))
        p.run()
        with pytest.raises(budcore.ConflictError):
            p.cancel(s.id)
        with pytest.raises(budcore.NotFoundError):
            p.get(s.id, tenant=OTHER)
        with pytest.raises(budcore.ValidationError):
            p.get("not-a-uuid")
        with pytest.raises(budcore.ConflictError) as e:
            p.retry(s.id)
        assert e.value.field == "status"


def test_cancel_priority_and_preempt(tmp_path):
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        hog = p.submit(job("hog", gpus=8, seconds=10_000))
        waiter = p.submit(job("waiter", gpus=8, seconds=60))
        p.run(30)
        assert p.get(waiter.id).job.status == "queued"
        assert p.set_priority(waiter.id, "high").job.priority == "high"
        pre = p.preempt(hog.id, "maintenance")
        assert pre.job.status in ("queued", "preempted", "scheduled", "running")
        p.cancel(hog.id, "done with it")
        p.run()
        assert p.get(waiter.id).job.status == "completed"
        assert p.get(hog.id).job.status == "cancelled"


def test_a_pipeline_runs_through_platform_jobs_and_survives_a_reopen(tmp_path):
    doc = {
        "pipeline": {"id": "p", "name": "py-pipe"},
        "steps": [
            {"id": "a", "name": "a", "step_type": "JOB", "depends_on": [],
             "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 300}},
            {"id": "b", "name": "b", "step_type": "JOB", "depends_on": ["a"],
             "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "estimated_duration_seconds": 60,
                        "spec": {"from": "{{ steps.a.outputs.url }}"}}},
        ],
    }
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        run = p.run_pipeline(doc)
        p.run(100)
        assert p.pipeline_run(run.id).status == "running"
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        p.run()
        done = p.pipeline_run(run.id)
        assert done.status == "completed" and done.steps == {"a": "succeeded", "b": "succeeded"}
        jobs = p.jobs(pipeline_id=run.id)
        assert len(jobs) == 2 and all(r["source"] == "pipeline" for r in jobs)
        b = [r for r in jobs if r["name"] == "b"][0]
        assert p.get(b["id"]).job.spec["from"].startswith("http://a.")


def test_simulate_runs_a_scenario(tmp_path):
    scenario = {
        "jobs": [
            {"at": 0, "tenant": "team", "job": job("first", gpus=8, seconds=1000)},
            {"at": 0, "tenant": "team", "job": job("second", gpus=8, seconds=500)},
        ]
    }
    out = budcore.simulate(scenario)
    rows = {r["name"]: r for r in out.jobs}
    assert rows["second"]["started_at"] == rows["first"]["ended_at"] == 1000
    assert rows["second"]["wait_seconds"] == 1000
    assert "second" in out.table and out.log
    path = tmp_path / "s.yaml"
    path.write_text("jobs: [{at: 5, file: job.json}]\n")
    (tmp_path / "job.json").write_text(budcore.to_json(job("from-file", seconds=10)))
    assert budcore.simulate(path).jobs[0]["ended_at"] == 15
    with pytest.raises(budcore.ValidationError) as e:
        budcore.simulate({"jobs": [{"at": -1}]})
    assert e.value.field == "jobs[0].at"


def test_schedule_is_a_read_only_timeline_of_the_tenants_jobs(tmp_path):
    with budcore.Platform.embedded(tmp_path / "p", tenant=TENANT, principal="user:py") as p:
        ids = [p.submit(job("wave%d" % i, gpus=8)).id for i in range(4)]
        p.submit(job("theirs", gpus=8), tenant=OTHER)
        p.pump()
        tl = p.schedule()
        assert isinstance(tl, budcore.schedule.Timeline)
        assert sorted(j.name for j in tl.jobs) == sorted(str(i) for i in ids)
        assert any(j.start > tl.now for j in tl.jobs)  # some wait for quota
        for j in tl.jobs:
            stored = p.get(j.name)
            assert stored.job.estimated_start is not None and stored.job.estimated_end is not None
            assert j.end - j.start == 600
        assert len(tl.to_pandas()) == 4
        assert "<svg" in tl.to_html()
        # Pictures and tables name jobs as people do: the label is the job's name, the id its key.
        assert sorted(j.label for j in tl.jobs) == ["wave0", "wave1", "wave2", "wave3"]
        assert list(tl.to_pandas()["label"]) == [j.label for j in tl.jobs]
        page = tl.to_html()
        assert ">wave1<" in page and "+600 s" not in page
        shown = tl._repr_html_()
        assert shown.startswith("<table>") and ">wave1</td>" in shown and "<style>" not in shown
        with pytest.raises(budcore.UnsupportedError):
            tl.finished(tl.jobs[0].name, tl.now)
        assert [j.name for j in p.schedule(tenant=OTHER).jobs] != []
        assert not set(j.name for j in p.schedule(tenant=OTHER).jobs) & set(str(i) for i in ids)


def test_gpu_pools_under_a_placement_policy(tmp_path):
    # Two A100 nodes of 4 GPUs under worst_fit: a and b take one GPU on each node, so c (4 GPUs),
    # which the quota admits, waits for placement; the cluster view and the gauges say so.
    config = {
        "schema_version": 1,
        "store": {"uri": f"sqlite://{tmp_path / 'p.db'}"},
        "clock": "virtual",
        "cluster": {"placement_policy": "worst_fit", "inventory": [
            {"name": "a100", "flavor": "a100-80gb", "nodes": 2, "gpu_type": "nvidia-a100-80gb", "gpus_per_node": 4,
             "cpu_per_node": "96", "memory_per_node": "1Ti"}]},
    }
    with budcore.Platform.open(config, tenant=TENANT) as p:
        ids = {name: p.submit(job(name, gpus, seconds)).id for name, gpus, seconds in (("a", 1, 300), ("b", 1, 600),
                                                                                          ("c", 4, 600))}
        p.pump()
        view = p.cluster()
        gpu = view["gpu"]["a100-80gb"]
        assert gpu["unallocated_share"] == 0.75 and gpu["largest_gang_by_model"] == {"A100-80GB": 3}
        assert [n["free_whole_gpus"] for n in gpu["nodes"]] == [3, 3]
        waiting = [w for w in view["workloads"] if w["job_id"] == str(ids["c"])]
        assert waiting[0]["message"].startswith("admitted by quota; waiting for placement")
        assert "budcore_gpu_waiting_for_placement 1\n" in p.metrics()
        # The plan that frees c: move a (it has run 0 s: 1 GPU x (0 + 60)) rather than wait 300 s
        # for it (4 x 300); advice only, so c still waits.
        plan = p.gpu_defrag(ids["c"])
        assert plan.kind == "move" and plan.cost == 60 and plan.applied is False
        assert plan.plan["node"] == "a100-0"
        assert [(m["workload"], m["to"]) for m in plan.plan["moves"]] == [(str(ids["a"]), "a100-1")]
        assert [r["action"] for r in plan.rows()] == ["move"]
        assert p.get(ids["c"]).job.status != "running"
        with pytest.raises(budcore.ValidationError) as e:
            p.gpu_defrag(ids["a"])
        assert e.value.field == "job"
        with pytest.raises(budcore.NotFoundError):
            p.gpu_defrag(ids["c"], tenant=OTHER)
        # A plan the cluster no longer gives is refused, naming where it differs; the plan made
        # earlier, still current, is applied: a is evicted and placed on a100-1, c runs at once.
        stale = dict(plan)
        stale["plan"] = dict(plan.plan, node="a100-1")
        with pytest.raises(budcore.ConflictError) as e:
            p.gpu_defrag_apply(ids["c"], stale)
        assert e.value.field == "plan.node"
        assert p.get(ids["c"]).job.status != "running"
        applied = p.gpu_defrag_apply(ids["c"], plan)
        assert applied.applied is True and applied.kind == "move"
        assert p.get(ids["c"]).job.status == "running"
        history = [t["to"] for t in p.get(ids["a"]).job.to_dict()["status_history"]]
        assert "preempted" in history and history[-1] == "running"
        assert "preempted" not in [t["to"] for t in p.get(ids["b"]).job.to_dict()["status_history"]]
        nodes = {w["job_id"]: w["nodes"][0] for w in p.cluster()["workloads"] if w.get("nodes")}
        assert nodes[str(ids["a"])] == "a100-1" and nodes[str(ids["c"])] == "a100-0"
        assert "budcore_gpu_waiting_for_placement 0\n" in p.metrics()
        p.check()
