import json
import pathlib
import threading

import pytest

import budcore
from budcore import Pipeline, PipelineIssue

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "pipeline" / "data"
CASES = sorted(p for p in DATA.iterdir() if p.suffix in (".json", ".yaml") and ".expected" not in p.name)


def job(id, deps=(), secs=None):
    cfg = {"job_type": "batch", "deployment_type": "docker"}
    if secs is not None:
        cfg["estimated_duration_seconds"] = secs
    return {"id": id, "step_type": "JOB", "depends_on": list(deps), "config": cfg}


def doc(*steps, name="p"):
    return {"pipeline": {"id": "p-1", "name": name, "trigger_type": "manual"}, "steps": list(steps)}


@pytest.mark.parametrize("path", CASES, ids=[p.name for p in CASES])
def test_plan_matches_the_contract_files(path):
    expected = json.loads((DATA / (path.stem + ".expected.json")).read_text())
    p = Pipeline.load(path)
    assert p.plan() == expected
    assert p.is_valid == expected["valid"]
    issues = p.validate()
    assert [i.to_dict() for i in issues] == expected.get("errors", [])


def test_rag_example_loads_and_plans():
    p = Pipeline.load(str(ROOT / "examples" / "specs" / "rag-pipeline.json"))
    assert len(p) == len(p.step_ids) > 0
    assert p.validate() == []
    plan = p.plan()
    assert plan["valid"] is True
    assert sorted(plan["order"]) == sorted(p.step_ids)
    assert [s for level in plan["levels"] for s in level] == plan["order"]


def test_from_dict_plans_levels_and_critical_path():
    p = Pipeline.from_dict(doc(job("a", secs=10), job("b", ["a"], 100), job("c", ["a"], 5), job("d", ["b", "c"], 1)))
    assert p.id == "p-1" and p.name == "p" and p.step_ids == ["a", "b", "c", "d"]
    plan = p.plan()
    assert plan == {"valid": True, "order": ["a", "b", "c", "d"], "levels": [["a"], ["b", "c"], ["d"]],
                    "critical_path": ["a", "b", "d"], "critical_path_seconds": 111,
                    "job_steps": ["a", "b", "c", "d"]}
    assert p.to_dict()["steps"][1]["depends_on"] == ["a"]
    assert "p-1" in repr(p)


def test_from_text_reads_yaml_and_json():
    y = Pipeline.from_text("pipeline: {id: y, name: y}\nsteps:\n  - {id: s, step_type: wait, config: {duration_seconds: 7}}\n")
    assert y.plan()["critical_path_seconds"] == 7
    j = Pipeline.from_text(json.dumps(doc(job("only", secs=3))))
    assert j.plan()["job_steps"] == ["only"]


def test_validate_lists_every_problem_with_codes_and_paths():
    p = Pipeline.from_dict(doc(job("a", ["ghost"]), job("a"), {"id": "z", "step_type": "TELEPORT", "config": {}},
                               job("x", ["y"]), job("y", ["x"])))
    issues = p.validate()
    codes = [i.code for i in issues]
    assert "unknown_dependency" in codes and "duplicate_id" in codes
    assert "unknown_step_type" in codes and codes[-1] == "cycle"
    dep = next(i for i in issues if i.code == "unknown_dependency")
    assert dep.path == "steps[0].depends_on[0]" and "ghost" in dep.message
    assert isinstance(dep, PipelineIssue)
    assert dep == PipelineIssue(dep.code, dep.message, dep.path)
    assert len({dep, PipelineIssue(dep.code, dep.message, dep.path)}) == 1
    assert "unknown_dependency" in repr(dep)
    assert not p.is_valid
    plan = p.plan()
    assert plan["valid"] is False
    assert plan["errors"] == [i.to_dict() for i in issues]


def test_missing_field_and_template_syntax():
    bad_job = {"id": "j", "step_type": "job", "config": {"job_type": "batch"}}
    api = {"id": "a", "step_type": "api_call", "depends_on": ["j"], "config": {"url": "{{ params.x ", "method": "GET"}}
    issues = Pipeline.from_dict(doc(bad_job, api)).validate()
    assert {"missing_field", "template_syntax"} <= {i.code for i in issues}
    assert any(i.path == "steps[0].config.deployment_type" for i in issues)


def test_reference_not_upstream_and_soft_references():
    src = job("src", secs=1)
    reader = {"id": "r", "step_type": "transform", "config": {"outputs": {"v": "{{ steps.src.outputs.x }}"}}}
    issues = Pipeline.from_dict(doc(src, reader)).validate()
    assert [i.code for i in issues] == ["reference_not_upstream"]
    soft = dict(reader, config={"outputs": {"v": "{{ steps.src.outputs.x | default('') }}"}})
    p = Pipeline.from_dict(doc(src, soft))
    assert p.validate() == []
    assert [w.code for w in p.warnings()] == ["soft_reference"]


def test_invalid_documents_and_errors(tmp_path):
    with pytest.raises(TypeError):
        Pipeline.from_dict([1, 2, 3])
    no_steps = Pipeline.from_dict({"pipeline": {}})
    assert no_steps.validate() and not no_steps.is_valid and len(no_steps) == 0
    with pytest.raises(budcore.ValidationError):
        Pipeline.from_text("{broken json")
    with pytest.raises(budcore.ValidationError):
        Pipeline.from_text("[1, 2]")
    with pytest.raises(budcore.IoError):
        Pipeline.load(tmp_path / "missing.yaml")
    with pytest.raises(budcore.ValidationError) as e:
        Pipeline.from_dict({"steps": [{"id": object()}]})
    assert e.value.field == "steps[0].id"


def test_load_document_reads_json_and_yaml(tmp_path):
    f = tmp_path / "d.yaml"
    f.write_text("a: [1, 2]\nb: {c: x}\n")
    assert budcore.load_document(f) == {"a": [1, 2], "b": {"c": "x"}}


def test_large_plan_from_threads():
    steps = [job(f"s{i}", [f"s{i - 1}"] if i else [], 1) for i in range(2000)]
    p = Pipeline.from_dict(doc(*steps))
    plans = []
    threads = [threading.Thread(target=lambda: plans.append(p.plan())) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(pl == plans[0] for pl in plans) and len(plans) == 3
    assert plans[0]["critical_path_seconds"] == 2000 and len(plans[0]["levels"]) == 2000


def test_pipeline_constructors():
    step = {"id": "a", "name": "a", "step_type": "WAIT", "depends_on": [], "config": {"duration_seconds": 5}}
    by_fields = budcore.Pipeline(id="p", name="demo", steps=[step])
    assert (by_fields.id, by_fields.name, by_fields.step_ids) == ("p", "demo", ["a"])
    by_dict = budcore.Pipeline(by_fields.to_dict())
    by_text = budcore.Pipeline(json.dumps(by_fields.to_dict()))
    assert by_dict.to_dict() == by_text.to_dict() == by_fields.to_dict()
    assert budcore.Pipeline(id="p", name="x").to_dict() == {"pipeline": {"id": "p", "name": "x"}, "steps": []}
    with pytest.raises(TypeError):
        budcore.Pipeline(by_fields.to_dict(), name="both")
    with pytest.raises(TypeError):
        budcore.Pipeline(42)
