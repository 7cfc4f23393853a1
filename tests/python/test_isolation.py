"""The cross-tenant matrix from Python on SQLite and PostgreSQL (docs/security.md "Tenant
isolation"): tenant B guesses
tenant A's ids, replays A's idempotency key and reads its own lists and events; every probe is
the error of an id that exists nowhere, and nothing of A's shows."""

import json
import uuid

import pytest

import budcore

A = "00000000-0000-4000-8000-0000000000a1"
B = "00000000-0000-4000-8000-0000000000b1"
EVIL = "x'); DROP TABLE jobs; -- \" OR 1=1 --"


def job(name):
    return {"name": name, "job_type": "batch", "deployment_type": "docker", "gpu_count": 0,
            "estimated_duration_seconds": 3600, "spec": {"note": EVIL}}


PIPELINE = {"pipeline": {"id": "p", "name": "a-pipe"}, "steps": [
    {"id": "s", "name": "s", "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 3600}}]}


def test_tenant_b_sees_and_changes_nothing_of_tenant_a(store_uri):
    with budcore.Platform.open({"store": store_uri}, principal="user:py") as p:
        a_job = p.submit(job("a-train"), idempotency_key="shared", tenant=A)
        run = p.run_pipeline(PIPELINE, tenant=A)
        p.run(60)
        before = p.get(a_job.id, tenant=A).job.to_dict()
        unknown = str(uuid.uuid4())
        probes = {
            "get": lambda i: p.get(i, tenant=B),
            "cancel": lambda i: p.cancel(i, tenant=B),
            "retry": lambda i: p.retry(i, tenant=B),
            "priority": lambda i: p.set_priority(i, "critical", tenant=B),
            "preempt": lambda i: p.preempt(i, tenant=B),
        }
        for name, call in probes.items():
            with pytest.raises(budcore.NotFoundError) as on_a:
                call(a_job.id)
            with pytest.raises(budcore.NotFoundError) as on_none:
                call(unknown)
            assert on_a.value.message.replace(str(a_job.id), "<id>") == on_none.value.message.replace(unknown, "<id>"), name
        for call in (lambda i: p.pipeline_run(i, tenant=B), lambda i: p.cancel_pipeline_run(i, tenant=B)):
            with pytest.raises(budcore.NotFoundError):
                call(run.id)

        replay = p.submit(job("b-keyed"), idempotency_key="shared", tenant=B)
        assert replay.created and replay.id != a_job.id
        seen = json.dumps(list(p.jobs(tenant=B))) + json.dumps([e.data for e in p.watch(tenant=B)])
        for secret_of_a in (str(a_job.id), str(run.id), "a-train", "a-pipe", A):
            assert secret_of_a not in seen
        assert len(p.jobs(tenant=B)) == 1
        assert p.get(a_job.id, tenant=A).job.to_dict() == before
        assert p.get(a_job.id, tenant=A).job.spec["note"] == EVIL
