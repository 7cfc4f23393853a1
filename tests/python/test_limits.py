"""The limits suite, Python face (issue #19): the hostile inputs through budcore's Python API,
in the interpreter and on a thread with a 1 MiB stack. Each raises a budcore error (never a
crash of the interpreter), with short messages however large the input."""

import threading

import pytest

import budcore
from budcore import Pipeline, Template, open_store

TENANT = "3f6b2a1e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
DEEP = "{% set ns = namespace(l=[]) %}{% for i in range(3000) %}{% set ns.l = [ns.l] %}{% endfor %}"


def on_small_stack(fn):
    """Runs fn() on a thread with a 1 MiB stack and returns (result, exception)."""
    box = {}

    def body():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    old = threading.stack_size(1 << 20)
    try:
        t = threading.Thread(target=body)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    return box.get("value"), box.get("error")


def raises_on_both(exc, fn):
    with pytest.raises(exc) as main:
        fn()
    _, err = on_small_stack(fn)
    assert isinstance(err, exc), repr(err)
    return main.value


@pytest.mark.parametrize(
    "text",
    ["{{ 1" + "+1" * 20000 + " }}", "{{ 'a'" + "|upper" * 20000 + " }}", "{{ a" + ".b" * 5000 + " }}"],
)
def test_left_deep_chains_are_a_syntax_error(text):
    e = raises_on_both(budcore.TemplateSyntaxError, lambda: Template(text))
    assert "nested too deep" in str(e)


@pytest.mark.parametrize("use", ["{{ ns.l }}", "{{ ns.l | tojson }}", "{{ ns.l == ns.l }}", "{{ [ns.l] | sort }}"])
def test_deep_values_hit_the_sandbox(use):
    raises_on_both(budcore.TemplateSecurityError, lambda: budcore.render(DEEP + use))


def test_deep_native_result_and_self_containing_namespace():
    raises_on_both(budcore.TemplateSecurityError, lambda: Template(DEEP + "{{ ns.l }}").render_native())
    assert budcore.render("{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns }}") == "{'a': {...}}"


def test_format_index_range_and_allocations():
    with pytest.raises(budcore.TemplateRuntimeError, match="IndexError"):
        budcore.render("{{ '{99999999999999999999}'.format(1) }}")
    out = budcore.render("{% for i in range(9223372036854775800, 9223372036854775807, 3) %}{{ i }},{% endfor %}")
    assert out == "9223372036854775800,9223372036854775803,9223372036854775806,"
    with pytest.raises(budcore.TemplateSecurityError, match="memory limit"):
        budcore.render("{{ ['x'] | batch(1e9, 'x') | list | length }}")


def test_deep_python_objects_are_refused_not_recursed():
    deep = []
    for _ in range(100000):
        deep = [deep]
    with pytest.raises(budcore.ValidationError, match="deeper"):
        budcore.render("{{ x | length }}", {"x": deep})


def test_quota_counts_and_unknown_keys():
    scenario = {
        "cycles": 1,
        "resource_flavors": [{"name": "default"}],
        "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
                            "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "10"}]}]}]}],
        "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
        "workloads": [{"name": "w", "namespace": "ns", "queue": "lq",
                       "pod_sets": [{"name": "main", "count": 4294967297, "requests": {"cpu": "0"}}]}],
    }
    with pytest.raises(budcore.ValidationError) as e:
        budcore.quota.simulate(scenario)
    assert e.value.field == "workloads[0].pod_sets[0].count"
    scenario["workloads"][0]["pod_sets"][0] = {"name": "main", "count": 1, "reqests": {"cpu": "100"}}
    with pytest.raises(budcore.ValidationError) as e:
        budcore.quota.simulate(scenario)
    assert e.value.field == "workloads[0].pod_sets[0].reqests"
    assert "did you mean 'requests'?" in str(e.value)


def test_pipeline_wait_and_depends():
    wait = {"pipeline": {"id": "p"},
            "steps": [{"id": "w", "name": "w", "step_type": "WAIT", "config": {"duration_seconds": 10**18}}]}
    issues = Pipeline.from_dict(wait).plan()
    assert issues["valid"] is False
    assert issues["errors"][0]["path"] == "steps[0].config.duration_seconds"
    chain = {"pipeline": {"id": "p"},
             "steps": [{"id": "t", "name": "t", "step_type": "TRANSFORM",
                        "config": {"outputs": {"x": "{{ 1" + "+1" * 20000 + " }}"}}}]}
    plan, err = on_small_stack(lambda: Pipeline.from_dict(chain).plan())
    assert err is None, repr(err)
    assert plan["errors"][0]["code"] == "template_syntax"


def test_job_document_size_and_short_errors(tmp_path):
    huge = "x" * 50_000_000
    with pytest.raises(budcore.ValidationError) as e:
        budcore.Job.from_json('{"name": "' + huge + '"}')
    assert len(str(e.value)) < 4096
    assert e.value.value is None or len(e.value.value) < 512
    with open_store(tmp_path / "s.db") as s:
        job = budcore.Job.from_json(open(budcore_spec(), encoding="utf-8").read())
        with pytest.raises(budcore.ValidationError) as e:
            s.submit_job(TENANT, job, idempotency_key="k\x00x")
        assert e.value.field == "idempotency_key"
        for forged in ["1_x", "-5_zz", "007_0190a0a0-0000-7000-8000-000000000001"]:
            with pytest.raises(budcore.ValidationError) as e:
                s.list_jobs(TENANT, after=forged)
            assert e.value.field == "page.after"
        assert s.list_jobs(TENANT)["items"] == []


def test_store_uri_with_nul_is_invalid(tmp_path):
    with pytest.raises(budcore.ValidationError) as e:
        open_store(f"sqlite:///{tmp_path / 'a.db'}\x00/b.db")
    assert e.value.field == "uri"
    assert not (tmp_path / "a.db").exists()


def budcore_spec():
    import pathlib

    return pathlib.Path(__file__).resolve().parents[2] / "examples" / "specs" / "jobs" / "llm-endpoint.json"
