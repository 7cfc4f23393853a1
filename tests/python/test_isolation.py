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
        cluster_b = json.dumps(p.cluster(tenant=B).to_dict())
        assert str(a_job.id) in json.dumps(p.cluster_all().to_dict()) and str(a_job.id) in json.dumps(p.cluster(tenant=A).to_dict())
        assert "[hidden " in cluster_b
        seen = json.dumps([j.to_dict() for j in p.jobs(tenant=B)]) + json.dumps([e.data for e in p.watch(tenant=B)]) + cluster_b
        for secret_of_a in (str(a_job.id), str(run.id), "a-train", "a-pipe", A):
            assert secret_of_a not in seen
        assert len(p.jobs(tenant=B)) == 1
        assert p.get(a_job.id, tenant=A).job.to_dict() == before
        assert p.get(a_job.id, tenant=A).job.spec["note"] == EVIL


# ---- The tenant boundary, class by class (docs/security.md), generated from tables ---------------
# Tenant B is a legitimate user of its own tenant. For every way an identifier enters (a
# document's `id`, each field only the platform writes, an idempotency key, a secret name) B tries
# tenant A's identifiers and fresh ones; each attempt is refused with the expected code and field,
# and the refusal for A's identifier is the refusal for a fresh one, word for word once the
# identifier itself is replaced. A's objects are as they were; B's numbers count only B.

A_HEX = A.replace("-", "").upper()
FRESH = "00000000-0000-4000-8000-00000000f00d"
TRAIN = {"pipeline": {"id": "p", "name": "a-train-pipe"}, "steps": [
    {"id": "wait", "name": "wait", "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 600}},
    {"id": "train", "name": "train", "step_type": "JOB", "depends_on": ["wait"],
     "config": {"job_type": "BATCH", "deployment_type": "DOCKER", "gpu_type": "nvidia-a100-80gb", "gpu_count": 1,
                "estimated_duration_seconds": 600, "sim": {"outputs": {"model_url": "s3://a/model"}}}}]}
CHATBOT = {"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}


def small(name, **fields):
    return {"name": name, "job_type": "batch", "deployment_type": "docker", "gpu_count": 0,
            "estimated_duration_seconds": 600, **fields}


def refusal(call, *idents):
    """What a refused call says (class, code, field, value, message), each identifier given
    replaced by <id>."""
    with pytest.raises(budcore.Error) as caught:
        call()
    e = caught.value

    def blind(text):
        if text is None:
            return None
        text = str(text)
        for ident in idents:
            text = text.replace(ident, "<id>")
        return text

    return type(e).__name__, e.code, blind(e.field), blind(e.value), blind(e.message)


def a_world(p):
    """Tenant A: a running job under a key of its own, a pipeline run whose JOB step will take
    the platform's key budcore:pipeline/<run>/train/1, and a deployment."""
    from budcore import usecases

    a_job = p.submit(small("a-running", estimated_duration_seconds=7200), idempotency_key="a-key", tenant=A)
    run = p.run_pipeline(TRAIN, tenant=A)
    dep = usecases.deploy(p, "simple-chatbot-v1", CHATBOT, tenant=A)
    p.run(30)
    assert p.get(a_job.id, tenant=A).job.status == "running"
    return a_job, run, dep


def a_snapshot(p, a_job, run, dep):
    from budcore import usecases

    return (p.get(a_job.id, tenant=A).to_dict(), sorted(j["id"] for j in p.jobs(tenant=A)),
            p.pipeline_run(run.id, tenant=A).state, usecases.deployment(p, dep.id, tenant=A))


# Every field only the platform writes, as a document spells it: (fields with the identifier
# in them, the field the refusal names). A document without `source` has it read from its
# pipeline_id / usecase_deployment_id, and a step without its pipeline fails the document's own
# checks, so the bare spellings are refused naming `source` or `pipeline_id`.
PLATFORM_FIELDS = [
    (lambda i: {"source": "direct", "pipeline_id": i}, "pipeline_id"),
    (lambda i: {"source": "direct", "pipeline_id": i, "pipeline_step_id": i}, "pipeline_id"),
    (lambda i: {"source": "direct", "usecase_deployment_id": i}, "usecase_deployment_id"),
    (lambda i: {"source": "pipeline", "pipeline_id": i}, "source"),
    (lambda i: {"source": "pipeline", "pipeline_id": i, "pipeline_step_id": i, "source_id": i}, "source"),
    (lambda i: {"source": "usecase", "usecase_deployment_id": i, "source_id": i}, "source"),
    (lambda i: {"source_id": i}, "source_id"),
    (lambda i: {"pipeline_id": i}, "source"),
    (lambda i: {"usecase_deployment_id": i}, "source"),
    (lambda i: {"pipeline_step_id": i}, "pipeline_id"),
    (lambda i: {"outputs": {"model_url": "s3://" + i}}, "outputs"),
    (lambda i: {"outputs": {i: "x"}}, "outputs"),
    (lambda i: {"actual_cost": "12.50"}, "actual_cost"),
]


def test_no_identifier_of_b_reaches_tenant_a(store_uri):
    with budcore.Platform.open({"store": store_uri}, principal="user:py") as p:
        a_job, run, dep = a_world(p)
        before = a_snapshot(p, a_job, run, dep)
        a_ids = {"A's job": str(a_job.id), "A's run": str(run.id), "A's deployment": str(dep.id)}
        b_jobs = set()

        # A document's id, alone and at every position of a batch.
        id_ways = [(lambda i: p.submit(small("b-claims", id=i), tenant=B), "id")]
        for at in range(3):
            def batch(i, at=at):
                jobs = [small(f"b-{n}") for n in range(3)]
                jobs[at] = (small("b-claims", id=i), "k")
                return p.submit_batch(jobs, tenant=B)
            id_ways.append((batch, f"jobs[{at}].id"))
        for way, field in id_ways:
            fresh = refusal(lambda: way(FRESH), FRESH)
            assert fresh[:3] == ("ValidationError", "invalid", field)
            assert fresh[3:] == ("<id>", "is assigned by the platform: submit without an id (an idempotency key "
                                         "makes a submit safe to repeat)")
            for name, ident in a_ids.items():
                assert refusal(lambda: way(ident), ident) == fresh, (field, name)
        # A's own user cannot choose one either.
        assert refusal(lambda: p.submit(small("a-claims", id=FRESH), tenant=A), FRESH)[2] == "id"
        # A JOB step's `id` is component configuration, never the job's identity.
        for ident in [*a_ids.values(), FRESH]:
            doc = {"pipeline": {"id": "b", "name": "b"}, "steps": [dict(TRAIN["steps"][1], depends_on=[],
                                                                      config={**TRAIN["steps"][1]["config"], "id": ident})]}
            b_run = p.run_pipeline(doc, tenant=B)
            p.run(30)
            (step_job,) = p.jobs(tenant=B, pipeline_id=b_run.id)
            assert step_job["id"] != ident
            assert p.get(step_job["id"], tenant=B).job.spec["id"] == ident
            b_jobs.add(step_job["id"])

        # Every field only the platform writes, with A's identifiers and fresh ones.
        for fields, field in PLATFORM_FIELDS:
            fresh = refusal(lambda: p.submit(small("b-claims", **fields(FRESH)), tenant=B), FRESH)
            assert fresh[:3] == ("ValidationError", "invalid", field), fresh
            for name, ident in a_ids.items():
                assert refusal(lambda: p.submit(small("b-claims", **fields(ident)), tenant=B), ident) == fresh, (field, name)
            # Nobody writes them, A included.
            assert refusal(lambda: p.submit(small("a-claims", **fields(FRESH)), tenant=A), FRESH) == fresh

        # Every spelling of the key A's step will use, and of A's own key: the platform's namespace
        # is refused (the same words for A's run as for a fresh one); anything else is B's own key.
        def keys(run_id):
            return [f"{run_id}/train/1", f"budcore:pipeline/{run_id}/train/1", f"budcore:{run_id}/train/1",
                    f"budcore:pipeline/{run_id}/train/2", f"BUDCORE:pipeline/{run_id}/train/1",
                    f" budcore:pipeline/{run_id}/train/1", f"Budcore:pipeline/{run_id}/train/1", "budcore:",
                    "budcore:pipeline/", "a-key"]
        for key_a, key_fresh in zip(keys(str(run.id)), keys(FRESH)):
            if key_a.startswith("budcore:"):
                fresh = refusal(lambda: p.submit(small("b-preclaim"), idempotency_key=key_fresh, tenant=B), FRESH)
                assert fresh[:4] == ("ValidationError", "invalid", "idempotency_key",
                                     key_fresh.replace(FRESH, "<id>")), fresh
                assert refusal(lambda: p.submit(small("b-preclaim"), idempotency_key=key_a, tenant=B), str(run.id)) == fresh
                assert refusal(lambda: p.submit(small("a-preclaim"), idempotency_key=key_a, tenant=A), str(run.id)) == fresh
                continue
            for key in dict.fromkeys((key_a, key_fresh)):  # "a-key" once
                mine = p.submit(small("b-preclaim"), idempotency_key=key, tenant=B)
                assert mine.created and mine.job.tenant_id == B and str(mine.id) not in a_ids.values(), key
                again = p.submit(small("b-preclaim"), idempotency_key=key, tenant=B)
                assert not again.created and again.id == mine.id
                b_jobs.add(str(mine.id))

        # Nothing of A's moved; B holds exactly the jobs it made.
        assert a_snapshot(p, a_job, run, dep) == before
        assert {j["id"] for j in p.jobs(tenant=B)} == b_jobs
        # A's step ran A's own job under the platform's key, with A's outputs.
        p.run(3 * 3600)
        done = p.pipeline_run(run.id, tenant=A)
        assert done.status == "completed", done.state
        assert "s3://a/model" in json.dumps(done.state)
        (step,) = p.jobs(tenant=A, pipeline_id=run.id)
        assert step["idempotency_key"] == f"budcore:pipeline/{run.id}/train/1"
        assert p.get(step["id"], tenant=A).job.tenant_id == A
        assert len(p.jobs(tenant=B, pipeline_id=run.id)) == 0
        p.check()


def secret_spellings():
    """Every way B could name A's secret `api-token` (env) or `db-pass` (file): A's id in its
    forms, joined to the name in its forms, and the provider's own variable name."""
    tenant_forms = [A, A.replace("-", ""), A_HEX, A.upper()]
    names = ["api-token", "API_TOKEN", "api.token", "api_token", "db-pass"]
    out = ["api-token", "API_TOKEN", "api_token", "db-pass", A, A_HEX, "..", ".",
           f"BUDCORE_SECRET_{A_HEX}_API_TOKEN", f"BUDCORE_SECRET_{A_HEX}_api-token", "BUDCORE_SECRET_API_TOKEN"]
    out += [t + sep + n for t in tenant_forms for sep in "_-." for n in names]
    return out


def test_secret_references_resolve_only_in_the_callers_tenant(store_uri, tmp_path, monkeypatch):
    a_value, platform_value = "a-secret-" + uuid.uuid4().hex, "platform-secret-" + uuid.uuid4().hex
    files = tmp_path / "secrets"
    (files / A).mkdir(parents=True)
    (files / A / "db-pass").write_text(a_value)
    monkeypatch.setenv(f"BUDCORE_SECRET_{A_HEX}_API_TOKEN", a_value)
    monkeypatch.setenv("BUDCORE_SECRET_API_TOKEN", platform_value)      # the platform's, not shared
    monkeypatch.setenv("BUDCORE_SECRET_SHARED_HOOK", platform_value)    # the platform's, shared
    config = {"store": store_uri,
              "security": {"secrets": ["env", {"file": str(files)}], "shared_secrets": ["shared-hook"]}}
    places = [(lambda r: {"env": {"TOKEN": r}}, "spec.env.TOKEN"),
              (lambda r: {"args": ["--token", r]}, "spec.args[1]"),
              (lambda r: {"config": {"auth": {"bearer": r}}}, "spec.config.auth.bearer")]
    with budcore.Platform.open(config, principal="user:py") as p:
        def uses(tenant, ref, place=places[0][0]):
            return p.submit(small("uses", spec=place("secret://" + ref)), tenant=tenant)

        assert uses(A, "api-token").created and uses(A, "db-pass").created
        assert uses(B, "shared-hook").created                        # listed: falls back to the platform's
        for place, field in places:
            unknown = refusal(lambda: uses(B, "no-such-secret", place), "secret://no-such-secret")
            assert unknown[:3] == ("NotFoundError", "not_found", field), unknown
            for ref in secret_spellings():
                said = refusal(lambda: uses(B, ref, place), "secret://" + ref)
                assert said == unknown, ref
                assert "BUDCORE_SECRET" not in said[4] and str(tmp_path) not in said[4]
        # What B sees of its own tenant holds neither value.
        seen = json.dumps([j.to_dict() for j in p.jobs(tenant=B)]) + json.dumps([e.data for e in p.watch(tenant=B)])
        assert a_value not in seen and platform_value not in seen and A not in seen


def test_event_and_audit_numbers_count_only_the_tenants_own(store_uri):
    with budcore.Platform.open({"store": store_uri}, principal="user:py") as p:
        for rnd in range(3):
            for i in range(4):
                p.submit(small(f"a-{rnd}-{i}"), tenant=A)
            p.submit(small(f"b-{rnd}"), tenant=B)
            p.run(120)
        p.run_pipeline(TRAIN, tenant=A)
        p.run(60)
        chains = {}
        for tenant, entries in ((A, 13), (B, 3)):
            events = list(p.watch(tenant=tenant))
            assert [e.seq for e in events] == list(range(1, len(events) + 1)), tenant
            audit = p.audit(tenant=tenant)
            assert [e["seq"] for e in audit] == list(range(1, entries + 1)), tenant
            assert audit[0]["prev_hash"] == "0" * 64
            assert all(later["prev_hash"] == earlier["hash"] for earlier, later in zip(audit, audit[1:]))
            chains[tenant] = {e["hash"] for e in audit}
        assert not chains[A] & chains[B]
        # Resuming after a seq gives exactly what came after it.
        assert [e.seq for e in p.watch(2, tenant=B)][:1] == [3]


def test_verify_audit_with_anchors(store_uri):
    config = {"store": store_uri, "security": {"rbac": True, "platform_admins": ["user:root"]}}
    with budcore.Platform.open(config, principal="user:root") as root:
        root.submit(small("a-one"), tenant=A)
        root.submit(small("b-one"), tenant=B)
        root.submit(small("a-two"), tenant=A)
        report = root.verify_audit(tenant=A)
        assert report["ok"] and report["problems"] == []
        heads = {h["tenant"]: h for h in report["heads"]}
        assert heads[A]["seq"] == 2 and heads[B]["seq"] == 1
        first_of_a = root.audit(tenant=A)[0]["hash"]
        for anchors in ([heads[A]["hash"]], [heads[A]["hash"], heads[B]["hash"], first_of_a]):
            anchored = root.verify_audit(tenant=A, anchors=anchors)
            assert anchored["ok"] and anchored["problems"] == [], anchors
            assert anchored["head_hash"] == report["head_hash"]
        fake = "f" * 64
        for anchors in ([fake], [heads[A]["hash"], fake]):
            forged = root.verify_audit(tenant=A, anchors=anchors)
            assert not forged["ok"]
            assert len(forged["problems"]) == 1 and fake in forged["problems"][0], forged["problems"]
    with budcore.Platform.open(config, principal="user:erin") as erin:    # no role: refused
        with pytest.raises(budcore.SecurityError):
            erin.verify_audit(tenant=A, anchors=[heads[A]["hash"]])
