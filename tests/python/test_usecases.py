"""budcore.usecases: list/show/render of the shipped templates, your own templates and
components, errors that list every problem, and the rendered stack as a pandas frame."""
import json
import pathlib
import subprocess
import os
import threading

import pytest

import budcore
from budcore import usecases

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "examples" / "usecases"


def test_list_and_show_the_shipped_templates():
    templates = usecases.templates()
    assert [t.id for t in templates] == ["simple-agent-v1", "chatbot-memory-v1", "simple-chatbot-v1",
                                         "enterprise-rag-v1", "simple-rag-v1"]
    rag = templates[-1]
    assert isinstance(rag, usecases.TemplateSummary)
    assert rag.parameters == ("model_id", "embedding_model", "vector_db_size", "gpu_type")
    assert rag.source_file == "rag/simple-rag-v1.yaml"
    frame = templates.to_pandas()
    assert list(frame["id"]) == [t.id for t in templates]
    t = usecases.show("enterprise-rag-v1")
    assert t.complexity == "advanced"
    assert [c["id"] for c in t.components][:2] == ["vector-db-qdrant", "vector-db-milvus"]
    params = t.to_pandas()
    assert params.loc[params["name"] == "chunk_size", "max"].item() == 2048
    assert len(usecases.components()) == 10


def test_render_a_shipped_template_as_a_frame():
    stack = usecases.render("simple-rag-v1", model_id="meta-llama/Llama-3.1-8B-Instruct")
    assert isinstance(stack, usecases.RenderedStack)
    assert stack.template_id == "simple-rag-v1"
    assert [c.id for c in stack.components] == ["vector-db", "embedding", "llm", "orchestrator"]
    orch = stack.component("orchestrator")
    assert orch.depends_on == ("vector-db", "embedding", "llm")
    assert orch.env["LLM_URL"] == "{{ steps.llm.outputs.url }}"
    df = stack.to_pandas()
    assert list(df.columns) == list(usecases.RenderedStack.COLUMNS)
    assert df.set_index("id").loc["llm", "gpu_count"] == 1
    assert df.set_index("id").loc["llm", "gpu_type"] == "nvidia-a100-40gb"
    assert df.set_index("id").loc["vector-db", "memory_gb"] == 4
    # The pipeline plans as contract 3 says.
    plan = budcore.Pipeline.from_dict(stack.pipeline).plan()
    assert plan["valid"] is True
    assert plan["job_steps"] == ["vector-db", "embedding", "llm", "orchestrator"]
    assert stack.to_dict()["valid"] is True


def test_parameters_mapping_keywords_overrides_and_name():
    stack = usecases.render("enterprise-rag-v1", {"cluster_id": "c1", "chunk_size": 256}, chunk_size=1024,
                            reranker_model=None, vector_db="milvus", overrides={"llm-endpoint": {"gpu_count": 4}},
                            name="acme")
    assert stack.parameters["chunk_size"] == 1024
    assert stack.disabled == ("vector-db-qdrant", "reranker-endpoint")
    assert stack.component("llm-endpoint").gpu_count == 4
    assert stack.component("chat-ui").env["TITLE"] == "acme Chat"


def test_invalid_input_raises_with_every_problem():
    with pytest.raises(budcore.ValidationError) as info:
        usecases.render("enterprise-rag-v1", chunk_size=99999, vector_db="weaviate", chunk_sise=1)
    e = info.value
    assert [x["code"] for x in e.errors] == ["unknown_parameter", "missing_parameter", "invalid_parameter",
                                            "invalid_parameter"]
    assert e.field == "parameters.chunk_sise"
    assert "did you mean 'chunk_size'" in e.errors[0]["message"]
    assert isinstance(e, ValueError)
    with pytest.raises(budcore.NotFoundError):
        usecases.render("no-such-template")


def test_own_templates_and_components():
    comps = [{"id": "api", "name": "API", "description": "", "category": "service", "version": "1",
              "deployment_type": "docker", "image": "api", "outputs": ["url"]},
             {"id": "ui", "name": "UI", "description": "", "category": "application", "version": "1",
              "deployment_type": "docker", "image": "ui", "required_inputs": ["API"]}]
    tmpl = {"id": "tiny", "name": "Tiny", "description": "d", "category": "demo", "version": "0.1",
            "complexity": "simple",
            "parameters": [{"name": "replicas", "type": "integer", "label": "Replicas", "default": 1, "min": 1}],
            "components": [{"id": "api", "component_ref": "api", "config": {"replicas": "{{ params.replicas }}"}},
                           {"id": "web", "component_ref": "ui", "env": {"API": "{{ components.api.outputs.url }}"}}]}
    stack = usecases.render(tmpl, components=comps, replicas=3)
    assert stack.component("api").values == {"replicas": 3}
    assert stack.component("web").depends_on == ("api",)
    with pytest.raises(budcore.ValidationError) as info:
        usecases.render(tmpl, components=comps[:1])
    assert info.value.errors[0]["code"] == "unknown_component"
    reg = usecases.registry(components=SHIPPED / "components", templates=SHIPPED / "templates", builtin=False)
    assert len(usecases.templates(registry=reg)) == 5
    path = SHIPPED / "templates" / "chatbot" / "simple-chatbot-v1.yaml"
    assert usecases.render(path, model_id="m",
                           registry=reg).component("chat-ui").env["API_ENDPOINT"] == "{{ steps.llm.outputs.url }}/v1"
    # A str is an id, never a file to read: a tenant-chosen string cannot make the service
    # read (and echo) a file of its machine.
    for fn in (usecases.show, usecases.render, usecases.plan_deployment):
        with pytest.raises(budcore.NotFoundError) as by_str:
            fn(str(path))
        assert "chat-ui" not in str(by_str.value) and "API_ENDPOINT" not in str(by_str.value)
    with pytest.raises(budcore.ValidationError) as bad:
        reg.add_components({"id": "x", "name": "X", "description": "", "category": "service", "version": "1",
                            "deployment_type": "docker", "image": "x", "outputz": []})
    assert bad.value.field == "outputz"
    with pytest.raises(budcore.ValidationError) as bad_tmpl:
        reg.add_template("id: t\nname: T\n")
    assert bad_tmpl.value.field == "description"


def test_plan_deployment_orders_jobs_and_teardown():
    tenant = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
    plan = usecases.plan_deployment("simple-chatbot-v1", model_id="m", tenant_id=tenant)
    assert [j.instance_id for j in plan.jobs] == ["llm", "chat-ui"]
    assert plan.teardown_order == ("chat-ui", "llm")
    job = budcore.Job.from_dict(plan.jobs[0].job)
    assert job.tenant_id == tenant
    assert plan.jobs[0].job["usecase_deployment_id"] == plan.deployment_id
    assert plan.record["status"] == "deploying"
    assert list(plan.to_pandas()["instance_id"]) == ["llm", "chat-ui"]
    with pytest.raises(budcore.ValidationError):
        usecases.plan_deployment("simple-chatbot-v1", model_id="m", tenant_id="not-a-uuid")


def test_renders_from_threads():
    reg = usecases.registry()
    out = []

    def work(i):
        out.append(usecases.render("simple-agent-v1", model_id=f"m{i}", registry=reg).component("llm").model_id)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(out) == [f"m{i}" for i in range(8)]


def test_matches_the_cli():
    cli = os.environ.get("BUDCORE_CLI", str(ROOT / "build" / "dev" / "bin" / "budcore"))
    if not os.path.exists(cli):
        pytest.skip("the budcore CLI is not built")
    r = subprocess.run([cli, "usecase", "render", "--template", "simple-rag-v1", "--set", "model_id=m"],
                       capture_output=True, text=True, check=True)
    assert json.loads(r.stdout) == usecases.render("simple-rag-v1", model_id="m").to_dict()
