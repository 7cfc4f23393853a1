import threading
import uuid

import pytest

import budcore
from budcore import Job, open_store

TENANT = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
OTHER = "11111111-2222-4333-8444-555555555555"


@pytest.fixture(params=["file", "memory"])
def store(request, tmp_path):
    uri = f"sqlite:///{tmp_path / 'jobs.db'}" if request.param == "file" else ":memory:"
    with open_store(uri, durable=False) as s:
        yield s


def test_open_reports_backend_and_schema(tmp_path):
    with open_store(tmp_path / "a.db") as s:
        assert s.backend == "sqlite"
        assert s.schema_version() == budcore.latest_schema_version() >= 1
        assert not s.closed
        assert "a.db" in repr(s)
    assert s.closed
    with pytest.raises(budcore.ValidationError):
        s.schema_version()
    report = budcore.check_store(tmp_path / "a.db")
    assert report["ok"] is True and report["problems"] == []
    assert report["schema_version"] == budcore.latest_schema_version()


def test_open_errors(tmp_path):
    with pytest.raises(budcore.ValidationError):
        open_store("mysql://nope")
    not_a_db = tmp_path / "junk.db"
    not_a_db.write_bytes(b"this is not a sqlite database" * 100)
    with pytest.raises(budcore.IoError):
        open_store(not_a_db)


def test_submit_get_and_tenant_isolation(store, job_dict):
    rec = store.submit_job(TENANT, job_dict)
    assert rec.created is True and rec.version == 1 and rec.idempotency_key is None
    assert isinstance(rec.job, Job) and rec.job.name == "train-llama"
    assert rec.job.tenant_id == TENANT and rec.id == rec.job.id
    got = store.get_job(TENANT, rec.id)
    assert got.job == rec.job and got.version == 1 and got.created is False
    assert store.get_job(uuid.UUID(TENANT), uuid.UUID(rec.id)).job == rec.job
    with pytest.raises(budcore.NotFoundError):
        store.get_job(OTHER, rec.id)
    assert store.list_jobs(OTHER)["items"] == []
    d = got.to_dict()
    assert d["version"] == 1 and d["job"]["name"] == "train-llama"
    assert "train-llama" in repr(got)


def test_submit_accepts_job_objects_and_validates(store, job_dict):
    job_dict.pop("tenant_id")
    rec = store.submit_job(OTHER, Job.from_dict(job_dict))
    assert rec.job.tenant_id == OTHER
    with pytest.raises(budcore.ValidationError) as e:
        store.submit_job(OTHER, dict(job_dict, gpu_count=-1))
    assert e.value.field == "gpu_count"
    with pytest.raises(budcore.ValidationError):
        store.submit_job(TENANT, dict(job_dict, tenant_id=OTHER))  # another tenant's job
    with pytest.raises(budcore.ValidationError) as e:
        store.submit_job("not-a-uuid", job_dict)
    assert e.value.field == "tenant"
    with pytest.raises(TypeError):
        store.submit_job(OTHER, "a job")


def test_submit_raises_with_every_problem_and_stores_nothing(store):
    bad = {"name": "ok", "job_type": "batch", "deployment_type": "DOCKER", "spec": {"image": "x/y"},
           "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"}
    with pytest.raises(budcore.ValidationError) as info:
        store.submit_job(TENANT, bad)
    e = info.value
    assert (e.field, e.value) == ("priority", "ultra")  # the first, as before
    assert [(p["path"], p["value"]) for p in e.errors] == [("priority", "ultra"), ("gpu_count", "-1"),
                                                           ("cpu_cores", "-2")]
    assert str(e).splitlines()[1:] == ["  priority: unknown job priority; expected one of critical, high, normal, "
                                       "low, spot (any letter case) (value: 'ultra')",
                                       "  gpu_count: must not be negative (value: '-1')",
                                       "  cpu_cores: must not be negative (value: '-2')"]
    assert str(e).startswith("3 problems:")
    assert store.list_jobs(TENANT)["items"] == []


def test_idempotent_submit(store, job_dict):
    first = store.submit_job(TENANT, job_dict, idempotency_key="req-1")
    again = store.submit_job(TENANT, job_dict, idempotency_key="req-1")
    assert first.created and not again.created
    assert again.id == first.id and again.idempotency_key == "req-1"
    other = store.submit_job(TENANT, job_dict, idempotency_key="req-2")
    assert other.id != first.id
    with pytest.raises(budcore.ValidationError) as reused:
        store.submit_job(TENANT, dict(job_dict, name="changed"), idempotency_key="req-1")
    assert reused.value.field == "idempotency_key"
    assert len(store.list_jobs(TENANT)["items"]) == 2


def test_list_filters_pages_and_views(store, job_dict):
    ids = [store.submit_job(TENANT, dict(job_dict, name=f"job-{i}")).id for i in range(5)]
    page = store.list_jobs(TENANT, limit=2)
    assert [j["id"] for j in page["items"]] == ids[::-1][:2]  # newest first
    assert page["next_cursor"]
    rest = store.list_jobs(TENANT, limit=10, after=page["next_cursor"])
    assert [j["id"] for j in rest["items"]] == ids[::-1][2:]
    assert rest["next_cursor"] == ""
    summary = page["items"][0]
    assert summary["name"] == "job-4" and summary["status"] == "pending" and summary["gpu_count"] == 4
    full = store.list_jobs(TENANT, view="full", limit=1)["items"][0]
    assert full["job"]["name"] == "job-4" and full["version"] == 1
    assert store.list_jobs(TENANT, status="running")["items"] == []
    assert len(store.list_jobs(TENANT, status=["pending", "queued"], job_type="training")["items"]) == 5
    with pytest.raises(budcore.ValidationError) as e:
        store.list_jobs(TENANT, colour="red")
    assert e.value.field == "colour"
    with pytest.raises(budcore.ValidationError):
        store.list_jobs(TENANT, limit=0)


def test_transition_is_compare_and_set(store, job_dict):
    rec = store.submit_job(TENANT, job_dict)
    queued = store.transition_job(TENANT, rec.id, 1, "queued", "admitted by quota")
    assert queued.version == 2 and queued.job.status == "queued"
    with pytest.raises(budcore.ConflictError):
        store.transition_job(TENANT, rec.id, 1, "running")  # stale version
    with pytest.raises(budcore.ConflictError):
        store.transition_job(TENANT, rec.id, 2, "pending")  # not a legal move
    with pytest.raises(budcore.ValidationError) as e:
        store.transition_job(TENANT, rec.id, 2, "flying")
    assert e.value.field == "to"
    with pytest.raises(budcore.NotFoundError):
        store.transition_job(OTHER, rec.id, 2, "running")
    assert store.get_job(TENANT, rec.id).version == 2


def test_data_survives_reopen(tmp_path, job_dict):
    path = tmp_path / "durable.db"
    with open_store(f"sqlite:{path}") as s:
        jid = s.submit_job(TENANT, job_dict, idempotency_key="k").id
    with open_store(path) as s:
        assert s.get_job(TENANT, jid).idempotency_key == "k"


def test_threads_share_a_store(tmp_path, job_dict):
    s = open_store(tmp_path / "threads.db", durable=False)
    errors = []

    def submit(n):
        try:
            for i in range(20):
                s.submit_job(TENANT, dict(job_dict, name=f"t{n}-{i % 10}"), idempotency_key=f"{n}-{i % 10}")
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=submit, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(s.list_jobs(TENANT, limit=1000)["items"]) == 40  # 10 distinct keys per thread
    s.close()
