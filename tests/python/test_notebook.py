"""budcore in a notebook: pictures and tables name jobs as people do (labels, told apart when they
repeat; ids on hover), axes read clock times or offsets from now, jobs, job tables and timelines
display as small escaped HTML tables, every public name has a docstring, and no public name
shadows a builtin (former names still work as aliases)."""

import builtins
import importlib
import inspect
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import budcore
from budcore import schedule, usecases
from budcore.platform import JobSummary, JobTable, PipelineRun, SimulationResult
from test_platform import TENANT, job
from test_schedule import scenario

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLOCK_SCENARIO = ROOT / "examples" / "specs" / "schedule.json"  # now = 2026-01-01T12:00:00Z


@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


@pytest.fixture
def repeated(tmp_path):
    """A platform timeline with three jobs named "train" and one "eval"."""
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        ids = [str(p.submit(job(name, gpus=8)).id) for name in ("train", "train", "eval", "train")]
        p.pump()
        yield p.schedule(), ids


def ticks(ax):
    ax.figure.canvas.draw()
    return [t.get_text() for t in ax.get_xticklabels() if t.get_text()]


# ---- labels ---------------------------------------------------------------------------------

def test_repeated_names_are_told_apart_by_the_end_of_the_id(repeated):
    tl, ids = repeated
    labels = tl.labels()
    assert set(labels) == set(ids)
    assert labels[ids[2]] == "eval"
    trains = [labels[i] for i in (ids[0], ids[1], ids[3])]
    assert trains == [f"train (\u2026{i[-8:]})" for i in (ids[0], ids[1], ids[3])]
    assert len(set(labels.values())) == 4
    assert tl.jobs.labels() == labels
    assert tl.job("eval").name == ids[2]  # a unique label finds its job
    assert tl.job("train") is None  # a repeated one does not
    assert tl.job(ids[0]).label == "train"


def test_labels_fall_back_to_whole_names_when_their_ends_repeat():
    def sj(name, label):
        return schedule.ScheduledJob(name=name, cluster_queue="q", flavors={}, start=0, end=1, deadline_met=None,
                                     preempted_at=[], label=label)

    jobs = schedule.ScheduledJobs([sj("a-0000000000001", "x"), sj("b-0000000000001", "x"), sj("solo", "y"),
                                   sj("short", "z"), sj("tiny", "z")])
    assert jobs.labels() == {"a-0000000000001": "x (a-0000000000001)", "b-0000000000001": "x (b-0000000000001)",
                             "solo": "y", "short": "z (short)", "tiny": "z (tiny)"}


def test_the_gantt_labels_blocks_by_name_with_the_id_as_gid(repeated, plt):
    tl, ids = repeated
    ax = tl.plot()
    texts = {t.get_text().strip() for t in ax.texts}
    assert texts == set(tl.labels().values())
    assert not any(t in texts for t in ids)
    assert {p.get_gid() for p in ax.patches if p.get_width() > 0} == set(ids)


def test_tables_and_the_html_view_name_jobs_first(repeated):
    tl, ids = repeated
    shown = tl._repr_html_()
    assert f'<td title="{ids[2]}">eval</td>' in shown
    assert f'<td title="{ids[0]}">train (\u2026{ids[0][-8:]})</td>' in shown
    assert shown.index("<th>job</th>") < shown.index("<th>state</th>")
    assert "<iframe" not in shown and "<style" not in shown and len(shown) < 8000
    df = tl.to_pandas()
    assert list(df.columns[:2]) == ["label", "name"] and sorted(df["label"]) == ["eval", "train", "train", "train"]
    page = tl.to_html()
    assert f'<td title="{ids[2]}">eval</td>' in page
    assert f'<td title="{ids[1]}">train (\u2026{ids[1][-8:]})</td>' in page
    assert page.count(">train</td>") == 0


# ---- the time axis --------------------------------------------------------------------------

def test_clock_and_offset_texts():
    t = 1767268800  # 2026-01-01T12:00:00Z
    assert schedule.format_clock(t + 330, 300) == "12:05:30"
    assert schedule.format_clock(t + 330, 3 * 3600) == "12:05"
    assert schedule.format_clock(t + 86400, 3 * 86400) == "01-02 12:00"
    assert [schedule.format_offset(s) for s in (0, 45, -45, 600, 720 + 30, 3600, 7500, -900, 3 * 86400 + 4 * 3600)] == \
        ["now", "+45 s", "-45 s", "+10 min", "+12 min 30 s", "+1 h", "+2 h 5 min", "-15 min", "+3 d 4 h"]
    assert schedule.has_clock(t) and not schedule.has_clock(2025)


def test_the_axis_reads_clock_times_when_the_timeline_has_a_date(plt):
    tl = schedule.estimate(CLOCK_SCENARIO)
    ax = tl.plot()
    labels = ticks(ax)
    assert all(re.fullmatch(r"\d\d:00|\d\d-\d\d 00:00", x) for x in labels), labels
    assert "12:00" in labels and "01-02 00:00" in labels  # the date where the day changes
    assert ax.get_xlabel() == "time (UTC), 2026-01-01 to 01-02"
    assert not any(x.endswith(" s") or x.startswith("+") for x in labels)
    offsets = ticks(tl.plot(relative=True))
    assert "now" in offsets and "+2 h" in offsets and "-2 h" in offsets


def test_the_axis_reads_offsets_without_a_date(plt):
    tl = schedule.estimate(scenario())  # no "now": times from the epoch
    ax = tl.plot()
    assert ticks(ax)[:4] == ["-5 min", "now", "+5 min", "+10 min"]
    assert ax.get_xlabel() == "time from now"
    assert ticks(tl.plot(relative=False))[1:3] == ["00:00", "00:05"]  # 1970, when asked for
    page = tl.to_html()
    axis = re.findall(r'<text class="axis"[^>]*>([^<]*)</text>', page)
    assert axis[0] == "now" and axis[-1] == "+18 min" and "1970" not in page, axis
    assert "makespan 18 min" in repr(tl)


def test_the_html_views_axis_reads_clock_times_with_a_date():
    page = schedule.estimate(CLOCK_SCENARIO).to_html()
    axis = re.findall(r'<text class="axis"[^>]*>([^<]*)</text>', page)
    assert all(re.fullmatch(r"(\d\d-\d\d )?\d\d:\d\d", x) for x in axis), axis


# ---- rich display ---------------------------------------------------------------------------

def test_timelines_and_their_jobs_display_escaped_tables_names_first():
    s = scenario()
    s["workloads"][0]["name"] = "<b>llm&co"
    s["workloads"][3]["depends_on"] = ["<b>llm&co", "embed", "qdrant"]
    tl = schedule.estimate(s)
    for shown in (tl._repr_html_(), tl.jobs._repr_html_()):
        assert "&lt;b&gt;llm&amp;co" in shown and "<b>" not in shown
        assert re.search(r"<tbody><tr><td[^>]*>&lt;b&gt;llm&amp;co</td><td>queued</td><td>now</td><td>\+5 min</td>",
                         shown), shown
    one = tl.job("<b>llm&co")._repr_html_()
    assert one.startswith("<table><caption>job &lt;b&gt;llm&amp;co</caption>") and "<b>" not in one
    assert one.index(">label<") < one.index(">name<")
    assert tl.jobs == [j for j in tl.jobs] and isinstance(tl.jobs, list)
    dated = schedule.estimate(CLOCK_SCENARIO)._repr_html_()
    assert "schedule at 2026-01-01 12:00 UTC" in dated and "2026-01-01 13:00 UTC (in 1 h)" in dated
    assert "2026-01-01 11:00 UTC (1 h ago)" in dated


def test_job_tables_runs_and_simulations_display_escaped_tables_names_first(tmp_path):
    rows = [{"id": "0190-1", "name": "<script>x</script>", "status": "queued"}]
    shown = JobTable(JobSummary.from_dict(r) for r in rows)._repr_html_()
    assert "&lt;script&gt;" in shown and "<script>" not in shown
    assert shown.index("<th>name</th>") < shown.index("<th>id</th>")
    run = PipelineRun("r-1", "p<1>", "running", "", "", 1, {"steps": [{"id": "a&b", "state": "running"}]})
    assert "p&lt;1&gt;" in run._repr_html_() and "<td>a&amp;b</td><td>running</td>" in run._repr_html_()
    sim = budcore.simulate({"jobs": [{"at": 0, "tenant": "team", "job": job("first", gpus=8, seconds=100)}]})
    assert isinstance(sim, SimulationResult)
    assert re.search(r"<tbody><tr><td>first</td><td>completed</td>", sim._repr_html_())
    with budcore.Platform.embedded(tmp_path, tenant=TENANT) as p:
        batch = p.submit_batch([job("first-of-two"), (job("second"), "key<2>")])
        assert isinstance(batch, list) and [b.job.name for b in batch] == ["first-of-two", "second"]
        assert re.search(r"<tbody><tr><td>first-of-two</td><td>queued</td>", batch._repr_html_())
        assert "key&lt;2&gt;" in batch._repr_html_() and str(batch[1].id) in batch._repr_html_()
        stored = p.submit(job("fine-tune"))
        assert "<caption>job fine-tune, version 1</caption>" in stored._repr_html_()
        assert stored.job._repr_html_().index(">fine-tune<") < stored.job._repr_html_().index(str(stored.id))


# ---- docstrings and names -------------------------------------------------------------------

def _documented(fn, name):
    """A docstring beyond pybind11's signature lines."""
    lines = [line.strip() for line in (getattr(fn, "__doc__", None) or "").splitlines() if line.strip()]
    return any(not x.startswith(name + "(") and x != "Overloaded function." and not x[:1].isdigit() for x in lines)


def _modules():
    names = [m for m in budcore.__all__ if inspect.ismodule(getattr(budcore, m))] + ["kueue"]
    return [budcore] + [importlib.import_module("budcore." + m) for m in sorted(set(names))]


def _public(module):
    """A module's public names: its __all__ and whatever it defines without a leading underscore."""
    own = {n for n, o in vars(module).items()
           if not n.startswith("_") and getattr(o, "__module__", None) == module.__name__}
    return sorted(set(getattr(module, "__all__", ())) | own)


def undocumented():
    missing, seen = [], set()
    for module in _modules():
        if not (module.__doc__ or "").strip():
            missing.append(module.__name__)
        for name in _public(module):
            obj = getattr(module, name)
            where = f"{module.__name__}.{name}"
            if inspect.ismodule(obj) or id(obj) in seen or getattr(obj, "__module__", None) == "typing":
                continue
            seen.add(id(obj))
            if inspect.isclass(obj):
                if not (obj.__doc__ or "").strip():
                    missing.append(where)
                native = obj.__module__ == "budcore._core"
                for member, m in vars(obj).items():
                    # A Python class documents its constructor in the class docstring.
                    if member.startswith("_") and not (native and member == "__init__"):
                        continue
                    if isinstance(m, property):
                        ok = bool((m.__doc__ or "").strip())
                    elif isinstance(m, (staticmethod, classmethod)):
                        ok = _documented(m.__func__, member)
                    else:
                        ok = not callable(m) or _documented(m, member)
                    if not ok:
                        missing.append(f"{where}.{member}")
            elif callable(obj) and not _documented(obj, name):
                missing.append(where)
    return missing


def test_every_public_name_of_the_package_has_a_docstring():
    assert undocumented() == []


def test_the_docstring_walk_sees_the_package():
    names = {f"{m.__name__}.{n}" for m in _modules() for n in _public(m)}
    assert {"budcore.schedule.Timeline", "budcore.usecases.templates", "budcore.platform.JobTable",
            "budcore.Job", "budcore.cost.estimate"} <= names


def test_no_public_name_shadows_a_builtin():
    shadowing = [f"{m.__name__}.{n}" for m in _modules() for n in _public(m) if n in vars(builtins)]
    assert shadowing == []
    assert "list" not in vars(usecases)  # the alias below is no module global: nothing sees it by accident


def test_former_names_still_work_as_documented_aliases():
    assert [t.id for t in usecases.list()] == [t.id for t in usecases.templates()]
    shipped = ROOT / "examples" / "usecases"
    reg = usecases.registry(components=shipped / "components", templates=shipped / "templates", builtin=False)
    assert len(usecases.list(registry=reg)) == len(usecases.templates(registry=reg)) == 5
    assert len(usecases.list(templates=shipped / "templates")) == 5
    assert "Alias of" in usecases.list.__doc__ and "usecases.list" in usecases.templates.__doc__
    assert "list" not in usecases.__all__
    with pytest.raises(AttributeError):
        usecases.no_such_name  # noqa: B018
    assert json.dumps(usecases.templates()[0].id)


def test_the_timeline_example_runs(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "timeline.py"), str(tmp_path)],
                         capture_output=True, text=True, env=dict(os.environ), timeout=120, check=True)
    lines = out.stdout.splitlines()
    assert re.fullmatch(r"train \(\u2026[0-9a-f]{8}\) +00:00 to 01:30 UTC  running", lines[0]), out.stdout
    assert re.fullmatch(r"eval +02:15 to 02:35 UTC  queued", lines[2]), out.stdout
    assert (tmp_path / "timeline.html").read_text(encoding="utf-8").count('class="block"') == 8 + 8 + 4 + 2
