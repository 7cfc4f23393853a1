"""budcore.schedule: estimates, live updates, pandas, the matplotlib Gantt (an image test), the
HTML view in a real headless Chromium, and Kueue's replay."""

import json
import os
import shutil
import subprocess

import pytest

import budcore
from budcore import schedule


def scenario(extra_workloads=(), **top):
    s = {
        "resource_flavors": [{"name": "a100", "node_labels": {}}, {"name": "cpu-nodes"}],
        "cluster_queues": [
            {"name": "gpu", "resource_groups": [{"covered_resources": ["nvidia.com/gpu"], "flavors": [
                {"name": "a100", "resources": [{"name": "nvidia.com/gpu", "nominal": "2"}]}]}]},
            {"name": "cpu", "resource_groups": [{"covered_resources": ["cpu"], "flavors": [
                {"name": "cpu-nodes", "resources": [{"name": "cpu", "nominal": "8"}]}]}]},
        ],
        "local_queues": [{"namespace": "t", "name": "gpu", "cluster_queue": "gpu"},
                         {"namespace": "t", "name": "cpu", "cluster_queue": "cpu"}],
        "workloads": [
            {"name": "llm", "namespace": "t", "queue": "gpu", "creation_seq": 1, "duration_seconds": 300,
             "pipeline": "rag", "pod_sets": [{"count": 1, "requests": {"nvidia.com/gpu": "2"}}]},
            {"name": "embed", "namespace": "t", "queue": "gpu", "creation_seq": 2, "duration_seconds": 180,
             "pipeline": "rag", "pod_sets": [{"count": 1, "requests": {"nvidia.com/gpu": "1"}}]},
            {"name": "qdrant", "namespace": "t", "queue": "cpu", "creation_seq": 3, "duration_seconds": 120,
             "pipeline": "rag", "pod_sets": [{"count": 1, "requests": {"cpu": "4"}}]},
            {"name": "orchestrator", "namespace": "t", "queue": "cpu", "creation_seq": 4, "duration_seconds": 60,
             "pipeline": "rag", "depends_on": ["llm", "embed", "qdrant"],
             "pod_sets": [{"count": 1, "requests": {"cpu": "2"}}]},
            {"name": "batch", "namespace": "t", "queue": "gpu", "creation_seq": 5, "duration_seconds": 600,
             "pod_sets": [{"count": 1, "requests": {"nvidia.com/gpu": "2"}}]},
            *extra_workloads,
        ],
    }
    s.update(top)
    return s


def test_estimate_exact_times_and_never():
    tl = schedule.estimate(scenario([{"name": "huge", "namespace": "t", "queue": "gpu", "duration_seconds": 1,
                                      "pod_sets": [{"count": 1, "requests": {"nvidia.com/gpu": "8"}}]}]))
    got = {j.name: (j.start, j.end) for j in tl.jobs}
    assert got == {"llm": (0, 300), "qdrant": (0, 120), "embed": (300, 480), "orchestrator": (480, 540),
                   "batch": (480, 1080)}
    assert tl.never == {"huge": "requests 8 nvidia.com/gpu but gpu can never provide more than 2"}
    assert tl.makespan == 1080
    assert tl.job("embed").wait == "quota"
    assert tl.job("orchestrator").wait == "dependency"
    assert tl.job("llm").gpus == {"nvidia.com/gpu": 2}
    assert tl.result()["jobs"][0] == {"name": "llm", "cluster_queue": "gpu", "flavors": {"main": {"nvidia.com/gpu": "a100"}},
                                      "estimated_start": 0, "estimated_end": 300, "deadline_met": None,
                                      "preempted_at": []}


def test_live_updates_revise_estimates():
    tl = schedule.estimate(scenario())
    tl.started("llm", 0, "gpu", {"main": {"nvidia.com/gpu": "a100"}})
    tl.finished("llm", 250)  # 50 s early
    assert tl.job("llm").finished and tl.job("llm").end == 250
    assert (tl.job("embed").start, tl.job("orchestrator").start) == (250, 430)
    tl.submitted({"name": "late", "namespace": "t", "queue": "cpu", "duration_seconds": 10,
                  "pod_sets": [{"count": 1, "requests": {"cpu": "1"}}]}, 260)
    assert tl.job("late").start == 260
    with pytest.raises(budcore.ConflictError):
        tl.finished("batch", 270)
    with pytest.raises(budcore.ValidationError) as e:
        tl.advance(10)  # before now
    assert e.value.field == "at"


def test_a_submitted_job_names_its_priority_class():
    tl = schedule.estimate(scenario(priority_classes=[{"name": "urgent", "value": 1000}]))
    tl.started("llm", 0, "gpu", {"main": {"nvidia.com/gpu": "a100"}})
    tl.submitted({"name": "hot", "namespace": "t", "queue": "gpu", "duration_seconds": 10, "priority_class": "urgent",
                  "pod_sets": [{"count": 1, "requests": {"nvidia.com/gpu": "2"}}]}, 5)
    # Ahead of embed and batch, created before it: it runs as soon as llm frees the GPUs.
    assert (tl.job("hot").start, tl.job("embed").start) == (300, 310)
    with pytest.raises(budcore.ValidationError) as e:
        tl.submitted({"name": "cold", "namespace": "t", "queue": "gpu", "duration_seconds": 10,
                      "priority_class": "urgnet", "pod_sets": [{"count": 1, "requests": {"nvidia.com/gpu": "1"}}]}, 6)
    assert e.value.field == "event.job.priority_class"


def test_errors_name_the_field():
    s = scenario()
    s["workloads"][0]["depends_on"] = ["orchestrator"]
    with pytest.raises(budcore.ValidationError) as e:
        schedule.estimate(s)
    assert "dependency cycle" in str(e.value)
    s = scenario()
    s["workloads"][1]["duration_seconds"] = -1
    with pytest.raises(budcore.ValidationError) as e:
        schedule.estimate(s)
    assert e.value.field == "workloads[1].duration_seconds"


def test_to_pandas():
    df = schedule.estimate(scenario()).to_pandas()
    assert list(df.columns) == list(schedule.JOB_COLUMNS)
    assert len(df) == 5
    row = df.set_index("name").loc["batch"]
    assert row.isna()["pipeline"] and row["gpus"] == 2 and row["wait"] == "quota"
    assert str(row["start"]) == "1970-01-01 00:08:00+00:00"


def test_plot_gantt_image(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt
    import numpy as np

    tl = schedule.estimate(scenario())
    ax = tl.plot()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["a100-1", "a100-2", "cpu-pool-1"]
    bars = [p for p in ax.patches if p.get_width() > 0]
    assert len(bars) == sum(len(lane["blocks"]) for lane in tl.lanes()) == 7  # llm and batch take 2 lanes each
    path = tmp_path / "gantt.png"
    ax.figure.savefig(path, dpi=80)
    plt.close(ax.figure)
    img = mpimg.imread(path)[:, :, :3]
    h, w, _ = img.shape
    assert w == 800 and h >= 150
    # The pipeline's colour (tab10 blue, lighter for estimated blocks) and the standalone grey
    # both appear on the picture.
    blue = np.array(plt.get_cmap("tab10").colors[0])
    light_blue = 0.55 * blue + 0.45 * np.ones(3)
    grey_light = 0.55 * np.array([0.5, 0.5, 0.5]) + 0.45

    def present(c):
        return (np.abs(img - c).max(axis=2) < 0.06).sum() > 200

    assert present(light_blue), "no pipeline block in the picture"
    assert present(grey_light), "no standalone block in the picture"


def test_html_view_and_lanes():
    tl = schedule.estimate(scenario())
    lanes = tl.lanes()
    assert [lane["name"] for lane in lanes] == ["a100-1", "a100-2", "cpu-pool-1"]
    page = tl.to_html("rag schedule")
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "rag schedule" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert page.count('class="block"') == 7


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")
def test_html_page_in_headless_chromium(tmp_path):
    cli = os.environ.get("BUDCORE_CLI")
    if not cli:
        pytest.skip("BUDCORE_CLI is not set")
    scen = tmp_path / "scenario.json"
    scen.write_text(json.dumps(scenario()))
    page = tmp_path / "view.html"
    out = subprocess.run([cli, "schedule", "view", str(scen), "--html", str(page)], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == {"html": str(page), "jobs": 5, "never": 0}
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + str(tmp_path / "profile"), "--enable-logging=stderr", "--v=0"]
    url = page.as_uri()
    dom = subprocess.run(["chromium", *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'id="timeline"' in dom.stdout and dom.stdout.count('class="block"') == 7
    assert "Uncaught" not in dom.stderr and ":CONSOLE" not in dom.stderr, dom.stderr[-2000:]
    shot = tmp_path / "shot.png"
    run = subprocess.run(["chromium", *flags, "--window-size=1200,700", "--screenshot=" + str(shot), url],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(shot)[:, :, :3]
    # The pipeline colour of the lanes (#4e79a7) is on the screenshot.
    blue = np.array([0x4E, 0x79, 0xA7]) / 255.0
    assert (np.abs(img - blue).max(axis=2) < 0.05).sum() > 300, "no lane block on the screenshot"


def test_replay_a_small_generator():
    gen = {"cohorts": [{"className": "cohort", "count": 2, "queuesSets": [{
        "className": "cq", "count": 3, "nominalQuota": 4, "borrowingLimit": 4, "reclaimWithinCohort": "Any",
        "withinClusterQueue": "LowerPriority", "workloadsSets": [
            {"count": 20, "creationIntervalMs": 100, "workloads": [{"className": "small", "runtimeMs": 200, "priority": 50, "request": 1}]},
            {"count": 5, "creationIntervalMs": 500, "workloads": [{"className": "large", "runtimeMs": 1000, "priority": 200, "request": 4}]}]}]}]}
    r = schedule.replay(gen)
    assert r["workloads"] == 6 * 25 and r["cluster_queues"] == 6
    assert r["workload_classes"]["small"]["count"] == 120
    assert 0 < r["cluster_queue_classes"]["cq"]["usage_percent"] <= 200
    assert isinstance(r, schedule.ReplayReport) and r.workloads == 150 and r.passed == r["passed"]
    gen["cohorts"][0]["queuesSets"][0]["nominalQuata"] = 1
    with pytest.raises(budcore.ValidationError) as e:
        schedule.replay(gen)
    assert "did you mean 'nominalQuota'" in str(e.value)
