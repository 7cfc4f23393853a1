"""budcore.usecases.deploy / deployment / deployments / teardown on an embedded platform."""

import budcore
import pytest
from budcore import usecases

TENANT = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
OTHER = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6c"
PARAMS = {"model_id": "meta-llama/Llama-3.1-8B-Instruct", "gpu_type": "nvidia-a100-80gb"}


def test_deploy_read_list_and_teardown(tmp_path):
    with budcore.Platform.embedded(tmp_path / "state", tenant=TENANT) as p:
        d = usecases.deploy(p, "simple-rag-v1", PARAMS)
        assert isinstance(d, usecases.Deployment)
        assert d.template_id == "simple-rag-v1"
        assert d.tenant_id == TENANT
        assert d.pipeline_run_id
        assert d.parameters["gpu_type"] == "nvidia-a100-80gb"
        p.run()
        up = usecases.deployment(p, d.id)
        assert up.status == "running"
        assert all(job_id for job_id in up.jobs.values())
        for job_id in up.jobs.values():
            assert p.get(job_id).job.usecase_deployment_id == d.id
        frame = up.to_pandas()
        assert list(frame.columns) == ["instance_id", "component_ref", "depends_on", "job_id", "job_status"]
        assert set(frame["job_status"]) == {"running"}

        listed = usecases.deployments(p)
        assert [x.id for x in listed] == [d.id]
        assert list(listed.to_pandas()["status"]) == ["running"]
        assert usecases.deployments(p, tenant=OTHER) == []
        with pytest.raises(budcore.NotFoundError):
            usecases.deployment(p, d.id, tenant=OTHER)

        down = usecases.teardown(p, d.id)
        assert down.status == "deleted"
        assert down.teardown_requested
        assert {c["job_status"] for c in down.components} == {"cancelled"}
        assert usecases.teardown(p, d.id).status == "deleted"  # idempotent
        p.check()

    # The record survives reopening the store.
    with budcore.Platform.embedded(tmp_path / "state", tenant=TENANT) as p:
        again = usecases.deployment(p, d.id)
        assert again.status == "deleted"
        assert again.template_version == d.template_version


def test_bad_input_names_the_path_and_stores_nothing(tmp_path):
    with budcore.Platform.embedded(tmp_path / "state", tenant=TENANT) as p:
        with pytest.raises(budcore.ValidationError) as bad:
            usecases.deploy(p, "simple-rag-v1", PARAMS, top_kk=3)
        assert "top_kk" in bad.value.field
        with pytest.raises(budcore.ValidationError) as missing:
            usecases.deploy(p, "simple-rag-v1", {})
        assert "model_id" in str(missing.value)
        with pytest.raises(budcore.NotFoundError) as unknown:
            usecases.deploy(p, "no-such-template", PARAMS)
        assert unknown.value.field == "template"
        assert usecases.deployments(p) == []
        assert len(p.jobs()) == 0


def test_deploy_a_template_dict(tmp_path):
    tmpl = dict(usecases.show("simple-chatbot-v1").to_dict(), id="my-chatbot")
    with budcore.Platform.embedded(tmp_path / "state", tenant=TENANT) as p:
        d = usecases.deploy(p, tmpl, model_id="m", gpu_type="nvidia-a100-80gb")
        assert d.template_id == "my-chatbot"
        assert [c["instance_id"] for c in d.components] == ["llm", "chat-ui"]
