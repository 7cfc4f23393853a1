"""Security from Python (docs/security.md), on SQLite and PostgreSQL: RBAC with a bootstrap admin, refusals naming the
principal, a tenant policy, a rate-limited submit with retry_after, bindings, and the audit
log with its hash chain."""

import pytest

import budcore

TENANT = "00000000-0000-4000-8000-0000000000d7"
PROJECT = "00000000-0000-4000-8000-0000000000e1"


def job(name, gpus=0, **extra):
    doc = {"name": name, "job_type": "batch", "deployment_type": "docker", "gpu_count": gpus,
           "estimated_duration_seconds": 600, "project_id": PROJECT}
    if gpus:
        doc["gpu_type"] = "nvidia-a100-80gb"
    doc.update(extra)
    return doc


def config(store_uri, **tenants):
    return {"store": store_uri,
            "security": {"rbac": True, "platform_admins": ["user:root"], "tenants": tenants}}


def test_roles_refusals_and_the_audit_chain(store_uri):
    cfg = config(store_uri, **{"*": {"max_gpus_per_job": 2}})
    with budcore.Platform.open(cfg, tenant=TENANT, principal="user:root") as root, \
            budcore.Platform.open(cfg, tenant=TENANT, principal="user:erin") as erin:
        with pytest.raises(budcore.SecurityError) as refused:
            erin.submit(job("a"))
        assert refused.value.field == "principal" and refused.value.value == "user:erin"
        assert "needs role editor" in refused.value.message

        rec = root.bind_role("user:erin", "editor", project=PROJECT)
        assert rec["project_id"] == PROJECT and rec["created_by"] == "user:root"
        with pytest.raises(budcore.AlreadyExistsError):
            root.bind_role("user:erin", "editor", project=PROJECT)
        with pytest.raises(budcore.ValidationError) as bad:
            root.bind_role("erin", "editor")
        assert bad.value.field == "binding.principal"

        stored = erin.submit(job("a"))
        with pytest.raises(budcore.SecurityError) as policy:
            erin.submit(job("big", gpus=4))
        assert policy.value.field == "gpu_count"
        erin.cancel(stored.id)
        assert [b["principal"] for b in root.role_bindings()] == ["user:erin"]
        with pytest.raises(budcore.SecurityError):
            erin.role_bindings()

        log = root.audit(actor="user:erin")
        assert [(e["action"], e["detail"]["outcome"]) for e in log] == [
            ("jobs.create", "denied"), ("jobs.create", "ok"), ("jobs.cancel", "ok"), ("role_bindings.list", "denied")]
        assert all(len(e["hash"]) == 64 for e in log)
        report = root.verify_audit()
        assert report["ok"] and report["problems"] == [] and report["entries"] >= 5
        root.unbind_role("user:erin", "editor", project=PROJECT)
        with pytest.raises(budcore.NotFoundError):
            root.unbind_role("user:erin", "editor", project=PROJECT)


def test_a_tenant_over_its_rate_gets_a_retry_after(tmp_path):
    cfg = config(f"sqlite://{tmp_path}/p.db", **{TENANT: {"submits_per_second": 2, "submit_burst": 1}})
    cfg["security"]["rbac"] = False
    with budcore.Platform.open(cfg, tenant=TENANT) as p:
        p.submit(job("one"))
        with pytest.raises(budcore.RateLimitedError) as limited:
            p.submit(job("two"))
        assert limited.value.code == "rate_limited"
        assert limited.value.retry_after == pytest.approx(0.5)
        p.run(1)
        p.submit(job("two"))
    assert budcore.RateLimitedError("x").code == "rate_limited"
