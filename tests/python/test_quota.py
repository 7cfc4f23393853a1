import ast
import json
import pathlib
import subprocess
import sys
import threading

import pytest

import budcore
from budcore import quota

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "tests" / "quota" / "data").glob("*.json"))
KUEUE_YAML = ROOT / "tests" / "quota" / "data_kueue" / "source_design_cqs.yaml"


def cq(name, cohort=None, cpu="10", borrowing_limit=None, preemption=None):
    d = {
        "name": name,
        "cohort": cohort,
        "resource_groups": [{"covered_resources": ["cpu"], "flavors": [
            {"name": "default", "resources": [{"name": "cpu", "nominal": cpu, "borrowing_limit": borrowing_limit}]}]}],
    }
    if preemption:
        d["preemption"] = preemption
    return d


@pytest.fixture
def two_queues():
    """Two cluster queues of 10 cpu in one cohort, one local queue each."""
    return {
        "resource_flavors": [{"name": "default"}],
        "cohorts": [{"name": "all"}],
        "cluster_queues": [cq("cq-a", "all"), cq("cq-b", "all")],
        "local_queues": [{"namespace": "ns", "name": "a", "cluster_queue": "cq-a"},
                         {"namespace": "ns", "name": "b", "cluster_queue": "cq-b"}],
        "priority_classes": [{"name": "high", "value": 1000}],
    }


# ---- configuration -------------------------------------------------------------------------

def test_config_from_dicts_round_trips(two_queues):
    cfg = quota.config(two_queues)
    assert cfg.cluster_queues == ["cq-a", "cq-b"]
    assert cfg.cohorts == ["all"]
    assert cfg.resource_flavors == ["default"]
    assert cfg.local_queues == ["ns/a", "ns/b"]
    d = cfg.to_dict()
    assert [q["name"] for q in d["cluster_queues"]] == ["cq-a", "cq-b"]
    assert budcore.QuotaConfig.from_dict(d).to_dict() == d
    assert budcore.QuotaConfig.from_json(cfg.to_json()).to_dict() == d
    assert "2 cluster queues" in repr(cfg)


def test_config_keywords_override_data(two_queues):
    cfg = quota.config(two_queues, cluster_queues=[cq("only", "all")], local_queues=[])
    assert cfg.cluster_queues == ["only"]


def test_config_errors_name_the_path(two_queues):
    two_queues["cluster_queues"][1]["resource_groups"][0]["flavors"][0]["name"] = "missing"
    with pytest.raises(budcore.ValidationError) as e:
        quota.config(two_queues)
    assert e.value.code == "invalid"
    assert e.value.field.startswith("cluster_queues[1].resource_groups[0].flavors[0]")


def test_config_rejects_bad_quantity(two_queues):
    two_queues["cluster_queues"][0]["resource_groups"][0]["flavors"][0]["resources"][0]["nominal"] = "ten"
    with pytest.raises(budcore.ValidationError) as e:
        quota.config(two_queues)
    assert "nominal" in e.value.field


def test_config_type_errors():
    with pytest.raises(TypeError):
        budcore.QuotaConfig.from_dict([1, 2])
    with pytest.raises(budcore.ValidationError):
        budcore.QuotaConfig.from_json("{not json")


def test_config_load_json_and_yaml(tmp_path, two_queues):
    j = tmp_path / "q.json"
    j.write_text(json.dumps(two_queues))
    assert quota.load(j).cluster_queues == ["cq-a", "cq-b"]
    y = tmp_path / "q.yaml"
    y.write_text("resource_flavors: [{name: default}]\ncluster_queues:\n" +
                 "  - {name: solo, resource_groups: [{covered_resources: [cpu], flavors: "
                 "[{name: default, resources: [{name: cpu, nominal: '4'}]}]}]}\n")
    assert quota.load(str(y)).cluster_queues == ["solo"]
    with pytest.raises(budcore.IoError):
        quota.load(tmp_path / "absent.json")


def test_kueue_yaml_import_and_export():
    cfg = quota.load_kueue(KUEUE_YAML)
    assert "model-endpoints" in cfg.cluster_queues
    assert {q["cohort"] for q in cfg.to_dict()["cluster_queues"]} == {"platform-gpu-pool"}
    same = quota.load_kueue(KUEUE_YAML.read_text())
    assert same.to_dict() == cfg.to_dict()
    docs = cfg.to_kueue()
    kinds = {d["kind"] for d in docs}
    assert {"ClusterQueue", "ResourceFlavor"} <= kinds
    assert all(d["apiVersion"] == "kueue.x-k8s.io/v1beta2" for d in docs)
    assert budcore.QuotaConfig.from_kueue(docs).to_dict() == cfg.to_dict()
    v1 = cfg.to_kueue_yaml("v1beta1")
    assert "kueue.x-k8s.io/v1beta1" in v1
    assert budcore.QuotaConfig.from_kueue_yaml(v1).to_dict() == cfg.to_dict()
    with pytest.raises(budcore.ValidationError) as e:
        cfg.to_kueue("v2")
    assert e.value.field == "version"


def test_kueue_yaml_errors_name_the_document():
    bad = "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: x}\nspec:\n" \
          "  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n" \
          "      resources:\n      - name: cpu\n        nominalQuota: lots\n"
    with pytest.raises(budcore.ValidationError) as e:
        budcore.QuotaConfig.from_kueue_yaml(bad)
    assert "nominalQuota" in e.value.field


# ---- simulate ------------------------------------------------------------------------------

def _check(out, want):
    assert set(out["admitted"]) == set(want["admitted"])
    for name, a in want["admitted"].items():
        assert out["admitted"][name]["cluster_queue"] == a["cluster_queue"]
        assert out["admitted"][name]["flavors"] == a["flavors"]
        if "count" in a:
            assert out["admitted"][name].get("count", {}) == a["count"]
    assert set(out["preempted"]) == set(want["preempted"])
    assert set(out["pending"]) == set(want["pending"])


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem[:60] for p in SCENARIOS])
def test_simulate_reproduces_scenario_files(path):
    doc = json.loads(path.read_text())
    _check(quota.simulate(doc["scenario"]), doc["expected"])


def test_scenario_corpus_is_present():
    assert len(SCENARIOS) > 50


def test_simulate_accepts_json_text_and_files(tmp_path):
    doc = json.loads((ROOT / "tests/quota/data/cohort_borrowing.json").read_text())
    from_dict = quota.simulate(doc["scenario"])
    assert from_dict == quota.simulate(json.dumps(doc["scenario"]))
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc["scenario"]))
    assert quota.simulate(f) == from_dict
    assert quota.simulate(str(f)) == from_dict
    assert list(from_dict) == ["admitted", "preempted", "pending", "usage", "cycles_run"]
    assert from_dict["usage"]["eng-beta"]["default"]["cpu"] == "45"
    assert from_dict["admitted"]["b"]["borrowing"] is False
    assert from_dict["cycles_run"] == 1


def test_simulate_with_config_and_workloads(two_queues):
    cfg = quota.config(two_queues)
    wls = [quota.workload("w1", "a", {"cpu": "6"}, namespace="ns", creation_seq=1),
           quota.workload("w2", "a", {"cpu": "6"}, namespace="ns", creation_seq=2),
           quota.workload("w3", "b", {"cpu": "3"}, namespace="ns", creation_seq=3)]
    # Cycle 1 admits one head per queue (w1, w3); cycle 2 admits w2 by borrowing 2 cpu of cq-b.
    one = quota.simulate(config=cfg, workloads=wls, cycles=1)
    assert set(one["admitted"]) == {"w1", "w3"} and one["cycles_run"] == 1
    assert "w2" in one["pending"]
    out = quota.simulate(config=cfg, workloads=wls, cycles="until_quiescent")
    assert set(out["admitted"]) == {"w1", "w2", "w3"} and out["pending"] == {}
    assert out["admitted"]["w2"]["borrowing"] is True
    assert out["usage"]["cq-a"]["default"]["cpu"] == "12"
    wls.append(quota.workload("w4", "b", {"cpu": "20"}, namespace="ns", creation_seq=4))
    more = quota.simulate(config=cfg, workloads=wls, cycles="until_quiescent")
    assert "cpu" in more["pending"]["w4"]


def test_simulate_errors():
    with pytest.raises(budcore.ValidationError) as e:
        quota.simulate({"cycles": -1})
    assert e.value.field == "cycles"
    with pytest.raises(budcore.ValidationError) as e:
        quota.simulate({"workloads": [{"name": "w", "pod_sets": [{"count": -2}]}]})
    assert e.value.field == "workloads[0].pod_sets[0].count"
    with pytest.raises(TypeError):
        budcore.quota.simulate(42)


def test_simulate_releases_the_gil():
    doc = json.loads((ROOT / "tests/quota/data/cohort_borrowing.json").read_text())
    results = []
    threads = [threading.Thread(target=lambda: results.append(quota.simulate(doc["scenario"]))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(r == results[0] for r in results)


# ---- engine and usage views ------------------------------------------------------------------

def test_engine_cycles_statuses_and_usage(two_queues):
    eng = quota.AdmissionEngine(quota.config(two_queues))
    eng.add_workload(quota.workload("w1", "a", {"cpu": "4"}, namespace="ns", creation_seq=1))
    eng.add_workload(quota.workload("w2", "b", {"cpu": "500m"}, namespace="ns", count=2, creation_seq=2))
    assert eng.status("ns/w1")["state"] == "pending"
    rep = eng.run_cycle()
    assert set(rep["admitted"]) == {"ns/w1", "ns/w2"} and rep["changed"] is True
    st = eng.status("ns/w1")
    assert st["state"] == "admitted" and st["admission"]["cluster_queue"] == "cq-a"
    assert st["admission"]["flavors"] == {"main": {"cpu": "default"}}
    assert eng.status("ns/nope") is None
    assert [s["key"] for s in eng.statuses()] == ["ns/w1", "ns/w2"]
    usage = eng.usage()
    assert usage["cq-a"]["default"]["cpu"]["used"] == budcore.Quantity("4")
    assert usage["cq-a"]["default"]["cpu"]["nominal"] == budcore.Quantity("10")
    assert usage["cq-b"]["default"]["cpu"]["used"] == budcore.Quantity("1")
    assert eng.usage("local_queue")["ns/b"]["default"]["cpu"]["used"] == budcore.Quantity("1")
    assert "all" in eng.usage("cohort")
    eng.finish("ns/w1")
    assert eng.usage()["cq-a"]["default"]["cpu"]["used"] == budcore.Quantity("0")
    assert eng.run_until_quiescent() >= 1
    with pytest.raises(budcore.NotFoundError):
        eng.finish("ns/w1-missing")
    with pytest.raises(budcore.ValidationError) as e:
        eng.usage("tenant")
    assert e.value.field == "view"


def test_engine_try_reserve_and_workload_errors(two_queues):
    eng = budcore.AdmissionEngine(quota.config(two_queues))
    adm = eng.try_reserve(quota.workload("r1", "a", {"cpu": "8"}, namespace="ns"))
    assert adm == {"cluster_queue": "cq-a", "flavors": {"main": {"cpu": "default"}}, "count": {"main": 1}}
    with pytest.raises(budcore.QuotaExceededError) as e:
        eng.try_reserve(quota.workload("r2", "a", {"cpu": "13"}, namespace="ns"))
    assert "cpu" in e.value.message
    with pytest.raises(budcore.ValidationError) as e:
        eng.add_workload({"name": "bad", "queue": "a", "pod_sets": [{"count": 2, "min_count": 5}]})
    assert e.value.field == "workload.pod_sets[0].min_count"
    with pytest.raises(budcore.ValidationError) as e:
        eng.add_workload({"name": "p", "queue": "a", "priority_class": "nope", "pod_sets": []})
    assert e.value.field == "workload.priority_class"
    eng.add_workload({"name": "p", "namespace": "ns", "queue": "a", "priority_class": "high",
                      "pod_sets": [{"requests": {"cpu": "1"}}]})
    with pytest.raises(TypeError):
        eng.add_workload(["not", "a", "dict"])
    with pytest.raises(budcore.ValidationError):
        budcore.AdmissionEngine(quota.config(two_queues), fair_sharing_strategies=["Nope"])
    with pytest.raises(budcore.ValidationError):
        eng.run_until_quiescent(-1)


def test_usage_table_and_frame(two_queues):
    eng = quota.AdmissionEngine(quota.config(two_queues))
    eng.add_workload(quota.workload("w1", "a", {"cpu": "12500m"}, namespace="ns"))
    eng.run_cycle()
    rows = quota.usage_table(eng)
    assert isinstance(rows, budcore.results.Rows) and "<th>cluster_queue</th>" in rows._repr_html_()
    a = next(r for r in rows if r["cluster_queue"] == "cq-a")
    assert a == {"cluster_queue": "cq-a", "flavor": "default", "resource": "cpu", "nominal": 10.0, "used": 12.5,
                 "borrowed": 2.5, "lent": 0.0, "available": a["available"]}
    milli = next(r for r in quota.usage_table(eng, unit="milli") if r["cluster_queue"] == "cq-a")
    assert milli["used"] == 12500 and isinstance(milli["used"], int)
    with pytest.raises(ValueError):
        quota.usage_table(eng, unit="kilo")
    with pytest.raises(ValueError):
        quota.usage_table(eng, view="tenant")
    with pytest.raises(TypeError):
        quota.usage_table(object())

    pd = pytest.importorskip("pandas")
    df = quota.usage_frame(eng)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["cluster_queue", "flavor", "resource", "nominal", "used", "borrowed", "lent", "available"]
    assert df.set_index("cluster_queue").loc["cq-a", "used"] == 12.5
    assert df["used"].sum() == 12.5
    lq = quota.usage_frame(eng, "local_queue")
    assert list(lq["local_queue"]) == ["ns/a"]


def test_usage_frame_of_a_simulation(two_queues):
    pd = pytest.importorskip("pandas")
    out = quota.simulate(config=quota.config(two_queues),
                         workloads=[quota.workload("w", "b", {"cpu": "1500m"}, namespace="ns", count=2)])
    df = quota.usage_frame(out)
    assert list(df.columns) == ["cluster_queue", "flavor", "resource", "used"]
    assert df.set_index("cluster_queue").loc["cq-b", "used"] == 3.0
    assert quota.usage_table(out, unit="milli")[-1]["used"] == 3000
    with pytest.raises(ValueError):
        quota.usage_frame(out, view="cohort")
    assert isinstance(df, pd.DataFrame)


# ---- the package surface -------------------------------------------------------------------

def test_import_budcore_does_not_import_pandas():
    code = "import sys, budcore, budcore.quota; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_stub_matches_the_extension():
    import budcore._core as core

    stub = pathlib.Path(core.__file__).with_name("_core.pyi")
    tree = ast.parse(stub.read_text())
    declared = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            declared.add(node.target.id)
        elif isinstance(node, ast.ImportFrom) and node.module == "budcore":
            declared.update(a.name for a in node.names)  # the exception classes
    declared.discard("__all__")
    public = {n for n in dir(core) if not n.startswith("_") or n == "__version__"}
    assert declared - public == set(), "in _core.pyi but not in the extension"
    assert public - declared == set(), "in the extension but not in _core.pyi"
    # The pure-Python submodules and what budcore re-exports from them.
    pure_python = {"quota", "schedule", "cost", "usecases", "platform", "results", "documents", "errors", "jobs",
                   "pipeline", "store", "templates", "Platform", "simulate", "gpu", "serverless", "enums",
                   *budcore.enums.__all__}
    assert set(budcore.__all__) - pure_python <= public


def test_all_is_consistent():
    for name in budcore.__all__:
        assert hasattr(budcore, name), name
    for name in quota.__all__:
        assert hasattr(quota, name), name


def test_quota_config_constructors():
    sections = {
        "resource_flavors": [{"name": "default"}],
        "cluster_queues": [{"name": "cq", "resource_groups": [{"covered_resources": ["cpu"],
                            "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominal": "4"}]}]}]}],
        "local_queues": [{"namespace": "ns", "name": "lq", "cluster_queue": "cq"}],
    }
    by_fields = budcore.QuotaConfig(**sections)
    assert by_fields.cluster_queues == ["cq"] and by_fields.local_queues == ["ns/lq"]
    assert budcore.QuotaConfig(sections).to_dict() == by_fields.to_dict() == budcore.QuotaConfig(json.dumps(sections)).to_dict()
    assert budcore.QuotaConfig().cluster_queues == []
    with pytest.raises(budcore.ValidationError) as info:
        budcore.QuotaConfig(cluster_queues=[{"name": "cq", "resource_groups": 3}])
    assert info.value.field.startswith("cluster_queues[0]")
    with pytest.raises(TypeError):
        budcore.QuotaConfig(sections, cohorts=[])


def test_a_workload_writes_a_quantity_request_as_its_text():
    w = quota.workload("w1", "a", {"cpu": budcore.Quantity("1500m"), "memory": budcore.Quantity("4Gi"), "gpu": 1})
    assert w["pod_sets"][0]["requests"] == {"cpu": "1500m", "memory": "4Gi", "gpu": 1}
