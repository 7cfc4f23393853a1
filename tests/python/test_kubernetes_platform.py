"""budcore.Platform on a real Kueue (cluster.backend: kubernetes) from Python: the same config
document as any platform, jobs admitted by Kueue, cancel deleting the run and freeing quota.

Runs only against the Kubernetes test bed (BUDCORE_K8S_STATE_DIR): `make test` starts one for
this file (tests/k8s_surfaces.sh); a plain pytest run skips it."""

import os
import time
import uuid

import pytest

import budcore

STATE = os.environ.get("BUDCORE_K8S_STATE_DIR")
pytestmark = pytest.mark.skipif(not STATE, reason="no Kubernetes test bed (BUDCORE_K8S_STATE_DIR unset)")


def config(store, sfx):
    q = "py" + sfx
    flavor = "f" + sfx
    return {
        "store": f"sqlite://{store}",
        "clock": "system",
        "cluster": {"backend": "kubernetes", "kubernetes": {"kubeconfig": f"{STATE}/kubeconfig"}},
        "queues": {"service": q, "batch": q, "training": q, "usecase": q, "tenant_namespace_prefix": f"py{sfx}-"},
        "quota": {
            "resource_flavors": [{"name": flavor, "node_labels": {"gpu.type": flavor}}],
            "cluster_queues": [{"name": q, "resource_groups": [{
                "covered_resources": ["cpu", "memory", "nvidia.com/gpu"],
                "flavors": [{"name": flavor, "resources": [
                    {"name": "cpu", "nominal": "8"}, {"name": "memory", "nominal": "64Gi"},
                    {"name": "nvidia.com/gpu", "nominal": "1"}]}]}]}],
        },
    }


def job(name):
    return {"name": name, "job_type": "batch", "deployment_type": "docker", "gpu_count": 1, "cpu_cores": "1",
            "memory_gb": 1, "spec": {"image": "busybox:1.36"}}


def wait_for(p, job_id, status, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        got = p.get(job_id)
        if got.job.status == status or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_jobs_are_admitted_by_kueue_and_cancel_frees_the_quota(tmp_path):
    sfx = uuid.uuid4().hex[:8]
    with budcore.Platform.open(config(tmp_path / "k.db", sfx), tenant=str(uuid.uuid4())) as p:
        first = p.submit(job("first"))
        assert wait_for(p, first.id, "scheduled").job.status == "scheduled"
        second = p.submit(job("second"))  # one GPU in all: it waits
        time.sleep(1.5)
        assert p.get(second.id).job.status == "queued"
        assert p.cancel(first.id, "make room").job.status == "cancelled"
        assert wait_for(p, second.id, "scheduled").job.status == "scheduled"
        # An administrator's preemption: Kueue evicts the run, the platform requeues it.
        p.preempt(second.id, "maintenance")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = p.get(second.id).job
            if got.status == "scheduled" and any(t["to"] == "preempted" for t in got.status_history):
                break
            time.sleep(0.2)
        assert got.status == "scheduled"
        assert any(t["to"] == "preempted" and "maintenance" in t.get("message", "") for t in got.status_history)


def test_an_unreachable_cluster_is_a_clear_error(tmp_path):
    cfg = config(tmp_path / "k.db", "x")
    cfg["cluster"]["kubernetes"]["kubeconfig"] = str(tmp_path / "missing")
    with pytest.raises(budcore.Error) as info:
        budcore.Platform.open(cfg, tenant=str(uuid.uuid4()))
    assert "opening the Kubernetes cluster failed" in str(info.value)
