import json
import pickle

import pytest

import budcore
from budcore import Job, Money, Quantity, ValidationError


def test_from_dict_exposes_the_main_fields(job_dict):
    job = Job.from_dict(job_dict)
    assert job.name == "train-llama"
    assert job.job_type == "training"
    assert job.deployment_type == "docker"
    assert job.gpu_type == "nvidia-h100-sxm"
    assert job.gpu_count == 4
    assert job.cpu_cores == Quantity("500m")
    assert job.memory_gb == Quantity("64")
    assert job.storage_gb == 100
    assert job.estimated_duration_seconds == 3600
    assert job.max_duration_seconds == 7200
    assert job.priority == "high"
    assert job.preemptible is False
    assert job.status == "pending"
    assert job.retry_count == 0 and job.max_retries == 2
    assert job.currency == "USD"
    assert job.budget_limit == Money("120.50", "USD")
    assert job.estimated_cost is None
    assert job.tenant_id == "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
    assert job.id is None  # assigned by the platform on submit
    assert job.source == "direct"
    assert job.gpu_resource_name == "nvidia.com/gpu"


def test_defaults_are_filled_in():
    job = Job(name="tiny", job_type="batch", deployment_type="docker")
    assert job.gpu_count == 0
    assert job.cpu_cores == Quantity("1")
    assert job.memory_gb == Quantity("4")
    assert job.priority == "normal"
    assert job.max_retries == 3
    assert job.spec == {} and job.outputs == {}


def test_to_dict_uses_the_source_field_names(job_dict):
    d = Job.from_dict(job_dict).to_dict()
    for key in ("id", "name", "tenant_id", "project_id", "cluster_id", "pipeline_id", "job_type",
                "deployment_type", "spec", "gpu_type", "gpu_count", "cpu_cores", "memory_gb",
                "storage_gb", "estimated_duration_seconds", "max_duration_seconds", "deadline",
                "priority", "preemptible", "preempts_others", "estimated_start", "status",
                "retry_count", "max_retries", "estimated_cost", "budget_limit", "outputs",
                "created_at", "updated_at"):
        assert key in d, key
    assert d["name"] == "train-llama"
    assert d["gpu_count"] == 4
    assert d["cpu_cores"] == "0.5"
    assert d["memory_gb"] == 64
    assert d["budget_limit"] == "120.50"
    assert d["spec"] == {"image": "ghcr.io/example/trainer:2.0", "args": ["--epochs", 3]}


def test_dict_round_trip_is_stable(job_dict):
    job = Job.from_dict(job_dict)
    d = job.to_dict()
    again = Job.from_dict(d)
    assert again == job
    assert again.to_dict() == d
    assert list(again.to_dict()) == list(d)


def test_json_round_trip(endpoint_json, endpoint_dict):
    job = Job.from_json(endpoint_json)
    assert job.name == endpoint_dict["name"]
    assert job.job_type == "service"  # upper-case input is normalised
    assert job.priority == "high"
    text = job.to_json()
    assert json.loads(text) == job.to_dict()
    assert Job.from_json(text) == job
    assert Job.from_dict(endpoint_dict) == job
    pretty = job.to_json(indent=2)
    assert pretty.startswith("{\n  ") and json.loads(pretty) == json.loads(text)


def test_other_wire_fields_through_attribute_access(job_dict):
    job_dict["deadline"] = "2026-01-30T22:00:00Z"
    job = Job.from_dict(job_dict)
    assert job.deadline == "2026-01-30T22:00:00Z"
    assert job.status_history == []
    assert job.created_at is None
    assert "deadline" in dir(job)
    with pytest.raises(AttributeError):
        job.no_such_field  # noqa: B018


def test_negative_gpu_count_names_the_field(job_dict):
    job_dict["gpu_count"] = -1
    with pytest.raises(ValidationError) as info:
        Job.from_dict(job_dict)
    assert info.value.field == "gpu_count"
    assert info.value.value == "-1"
    assert info.value.code == "invalid"
    assert isinstance(info.value, ValueError)


def test_nested_error_path(job_dict):
    job_dict["deadline"] = "tomorrow"
    with pytest.raises(ValidationError) as info:
        Job.from_dict(job_dict)
    assert info.value.field == "deadline"


def test_unknown_key_is_rejected(job_dict):
    job_dict["gpu_cont"] = 1
    with pytest.raises(ValidationError) as info:
        Job.from_dict(job_dict)
    assert info.value.field == "gpu_cont"


def test_bad_enum_and_wrong_type(job_dict):
    with pytest.raises(ValidationError) as info:
        Job.from_dict({**job_dict, "job_type": "cronjob"})
    assert info.value.field == "job_type"
    with pytest.raises(ValidationError) as info:
        Job.from_dict({**job_dict, "gpu_count": "four"})
    assert info.value.field == "gpu_count"


def test_non_str_key_in_spec_is_rejected_with_path(job_dict):
    job_dict["spec"] = {"env": {3: "x"}}
    with pytest.raises(ValidationError) as info:
        Job.from_dict(job_dict)
    assert info.value.field == "spec.env"


def test_bad_json_text():
    with pytest.raises(ValidationError):
        Job.from_json("{not json")
    with pytest.raises(ValidationError) as info:
        Job.from_json('{"name": "x", "job_type": "batch", "deployment_type": "docker", "gpu_count": -3}')
    assert info.value.field == "gpu_count"


def test_from_dict_needs_a_dict():
    with pytest.raises(TypeError):
        Job.from_dict([("name", "x")])


def test_validate_passes_for_a_valid_job(job_dict):
    job = Job.from_dict(job_dict)
    assert job.validate() is None
    assert job.validate_all() == []


def test_equality_and_pickle(job_dict):
    a = Job.from_dict(job_dict)
    b = Job.from_dict({**job_dict, "gpu_count": 2})
    assert a != b
    assert a == Job.from_dict(job_dict)
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(TypeError):
        hash(a)


def test_repr(job_dict):
    assert repr(Job.from_dict(job_dict)) == "Job(name='train-llama', job_type='training', gpu_count=4, status='pending')"


def test_gil_is_released_for_parsing(endpoint_json):
    # Many threads parse at once; correctness (not speed) is what a test can check.
    import concurrent.futures as cf

    with cf.ThreadPoolExecutor(4) as pool:
        jobs = list(pool.map(Job.from_json, [endpoint_json] * 64))
    assert all(j == jobs[0] for j in jobs)
    assert budcore.Job.from_json(endpoint_json) == jobs[0]


def test_from_dict_reports_every_problem_at_once():
    bad = {"name": "Bad_Name", "job_type": "batch", "deployment_type": "docker",
           "tenant_id": "00000000-0000-4000-8000-000000000001", "gpu_count": -1, "retry_count": 5, "max_retries": 1}
    with pytest.raises(budcore.ValidationError) as info:
        budcore.Job.from_dict(bad)
    e = info.value
    assert (e.field, e.value) == ("name", "Bad_Name")
    assert [p["path"] for p in e.errors] == ["name", "gpu_count", "retry_count"]
    assert e.errors[1] == {"code": "invalid", "message": "must not be negative", "path": "gpu_count", "value": "-1"}
    with pytest.raises(budcore.ValidationError) as info:
        budcore.Job.from_json(json.dumps(bad))
    assert len(info.value.errors) == 3
    # Fields that do not decode are listed too, beside the rules the others break.
    with pytest.raises(budcore.ValidationError) as info:
        budcore.Job.from_dict({"name": "x", "gpu_count": "two"})
    assert [p["path"] for p in info.value.errors] == ["job_type", "deployment_type", "gpu_count"]
    assert info.value.errors[0]["path"] == info.value.field


MIXED = {"name": "ok", "deployment_type": "DOCKER", "spec": {"image": "x/y"},
         "gpu_count": -1, "cpu_cores": -2, "priority": "ultra"}


def test_structural_and_semantic_problems_are_raised_together():
    with pytest.raises(budcore.ValidationError) as info:
        Job.from_dict(MIXED)
    e = info.value
    assert [p["path"] for p in e.errors] == ["job_type", "priority", "gpu_count", "cpu_cores"]
    assert (e.field, e.value) == ("job_type", None)
    assert e.errors[1]["value"] == "ultra" and e.errors[3]["value"] == "-2"
    with pytest.raises(budcore.ValidationError) as info:
        Job.from_json(json.dumps(MIXED))
    assert info.value.errors == e.errors


def test_the_message_lists_every_problem_one_a_line():
    with pytest.raises(budcore.ValidationError) as info:
        Job.from_dict(MIXED)
    lines = str(info.value).splitlines()
    assert lines[0] == "4 problems:"
    assert [line.split(":")[0].strip() for line in lines[1:]] == ["job_type", "priority", "gpu_count", "cpu_cores"]
    # One problem: the one line it always was, and .errors still lists it.
    with pytest.raises(budcore.ValidationError) as info:
        Job.from_dict(dict(MIXED, job_type="batch", priority="high", cpu_cores=1))
    assert str(info.value) == "gpu_count: must not be negative (value: '-1')"
    assert [p["path"] for p in info.value.errors] == ["gpu_count"]


def test_check_returns_every_problem_without_raising(job_dict):
    problems = Job.check(MIXED)
    assert [p["path"] for p in problems] == ["job_type", "priority", "gpu_count", "cpu_cores"]
    assert problems[2] == {"code": "invalid", "message": "must not be negative", "path": "gpu_count", "value": "-1"}
    assert Job.check(json.dumps(MIXED)) == problems
    assert Job.check(job_dict) == [] and Job.check(json.dumps(job_dict)) == []
    # A field that did not decode is reported once: no rule reads its default.
    assert [p["path"] for p in Job.check({**job_dict, "gpu_count": "four"})] == ["gpu_count"]
    # Text that is not JSON: its one problem.
    assert len(Job.check('{"name": ')) == 1
    with pytest.raises(TypeError):
        Job.check([("name", "x")])
