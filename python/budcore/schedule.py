"""budcore.schedule: when will each job start and end under the real quota rules.

:func:`estimate` builds a :class:`Timeline` from a ``budcore schedule estimate`` scenario
(docs/cli.md contract 6: a quota scenario plus per-workload ``duration_seconds``,
``submit_at``, ``depends_on``, ``started_at``, ``window``, ``deadline``). The timeline is a
discrete-event simulation that runs the same admission engine as ``budcore quota simulate`` at
every event. Feed it what really happened (:meth:`Timeline.finished` and friends) to get revised
estimates. :meth:`Timeline.to_pandas` gives a DataFrame (pandas imported lazily),
:meth:`Timeline.plot` a matplotlib Gantt chart of the device lanes, :meth:`Timeline.to_html` the
self-contained HTML view, and a notebook shows a timeline as a small table. Pictures and tables
call jobs by :meth:`Timeline.labels` (the names people gave them, told apart where they repeat)
and read times with :func:`format_clock` (UTC clock times) or, when the timeline has no date,
:func:`format_offset` (``"+2 h 5 min"``). :func:`replay` replays Kueue's scheduler-performance
``baseline``.
"""

from __future__ import annotations

import datetime as _dt
import html as _html
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, Iterable, List, Mapping, Optional, Sequence, TypedDict, Union, cast

from ._core import ScheduleSnapshot, ScheduleTimeline, ValidationError, load_document
from ._core import schedule_replay as _replay
from .enums import WaitKind, _member
from .results import Record, Rows, document_field, html_record
from .types import Document, JsonObject

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from pandas import DataFrame

__all__ = ["ScheduleSnapshot", "ScheduleTimeline", "ScheduledJob", "ScheduledJobs", "Timeline", "estimate", "replay",
           "format_clock", "format_offset", "has_clock", "JOB_COLUMNS", "Lane", "LaneBlock", "ReplayReport",
           "ScheduleResult", "TimelineJob", "UtilizationStep", "WaitReason"]

#: A job's flavors: pod set -> resource -> flavor name.
Flavors = Dict[str, Dict[str, str]]


class WaitReason(TypedDict):
    """Why a queued job waits: ``reason`` (``quota``, ``dependency``, ``window``, ``placement``)
    and the ``detail`` people read."""

    reason: str
    detail: str


class _TimelineJobBase(TypedDict):
    name: str
    cluster_queue: str
    flavors: Flavors
    estimated_start: float
    estimated_end: float
    deadline_met: Optional[bool]
    preempted_at: List[float]


class TimelineJob(_TimelineJobBase, total=False):
    """A job of a :class:`ScheduleResult` (times in seconds since the epoch); the result with
    details also has ``wait``, ``running``, ``finished``, ``pipeline``, ``label`` and ``gpus``
    (GPU resource -> count)."""

    wait: Optional[WaitReason]
    running: bool
    finished: bool
    pipeline: Optional[str]
    label: str
    gpus: Dict[str, int]


class UtilizationStep(TypedDict):
    """A queue's usage of one flavor's resource from ``at`` on (``used`` a quantity)."""

    at: float
    cluster_queue: str
    flavor: str
    resource: str
    used: str


class _ScheduleResultBase(TypedDict):
    jobs: List[TimelineJob]
    never: Dict[str, str]
    makespan: float


class ScheduleResult(_ScheduleResultBase, total=False):
    """The contract-6 output: ``jobs``, ``never`` (job -> why) and ``makespan`` (seconds); with
    details also ``now``, ``warnings`` and ``utilization``."""

    now: float
    warnings: List[str]
    utilization: List[UtilizationStep]


class LaneBlock(TypedDict):
    """A job's block on a device lane (seconds since the epoch; ``estimated`` until it starts)."""

    job: str
    start: float
    end: float
    estimated: bool


class Lane(TypedDict):
    """A device lane (a GPU, a MIG slice, a CPU pool) and the job blocks on it."""

    name: str
    flavor: str
    resource: str
    blocks: List[LaneBlock]


class _QueueClass(TypedDict):
    usage_percent: float
    cpu_used_milli_ms: int
    nominal_milli: int


class QueueClassReport(_QueueClass, total=False):
    """A cluster-queue class of the replay: its usage and, when the config has them, the
    threshold (``min_expected``) and Kueue's own mean (``kueue_mean``)."""

    min_expected: float
    kueue_mean: float


class _WorkloadClass(TypedDict):
    count: int
    avg_time_to_admission_ms: int
    avg_time_to_finish_ms: int
    evictions: int


class WorkloadClassReport(_WorkloadClass, total=False):
    """A workload class of the replay: how many, their mean times and evictions, and when the
    config has them the threshold (``max_expected``) and Kueue's own mean (``kueue_mean``)."""

    max_expected: float
    kueue_mean: float


@dataclass(frozen=True)
class ReplayReport(Record):
    """:func:`replay`: the run's metrics per class against the checker's thresholds, ``passed``
    and the ``failures``; ``kueue_wall_ms_mean`` when the config has it."""

    name: str = ""
    passed: bool = False
    failures: List[str] = field(default_factory=list)
    workloads: int = 0
    cluster_queues: int = 0
    virtual_elapsed_ms: int = 0
    wall_ms: float = 0.0
    cluster_queue_classes: Dict[str, QueueClassReport] = field(default_factory=dict)
    workload_classes: Dict[str, WorkloadClassReport] = field(default_factory=dict)
    kueue_wall_ms_mean: Optional[float] = None
    document: JsonObject = document_field()


#: The earliest ``now`` read as a clock time (2000-01-01 UTC): a scenario without ``now`` starts
#: at the epoch, and its times are offsets, not dates.
_CLOCK_FROM = 946684800.0


def has_clock(t: float) -> bool:
    """True when ``t`` (seconds since the epoch) is a real date rather than an offset from a
    scenario that gave no ``now`` (anything before 2000-01-01 UTC)."""
    return t >= _CLOCK_FROM


def format_clock(t: float, span: float = 0.0) -> str:
    """A UTC clock time as precise as ``span`` (seconds) needs: ``"14:05:30"`` under 10 minutes,
    ``"14:05"`` under 20 hours, ``"01-02 14:05"`` beyond (the same as the HTML view's axis)."""
    when = _dt.datetime.fromtimestamp(round(t), tz=_dt.timezone.utc)
    if span < 600:
        return when.strftime("%H:%M:%S")
    if span < 20 * 3600:
        return when.strftime("%H:%M")
    return when.strftime("%m-%d %H:%M")


def format_offset(seconds: float) -> str:
    """An offset from now as people say it: ``"now"``, ``"+45 s"``, ``"+12 min"``,
    ``"+2 h 5 min"``, ``"+3 d 4 h"``, ``"-15 min"`` (whole seconds, rounded)."""
    s = int(round(seconds))
    if s == 0:
        return "now"
    sign, s = ("-", -s) if s < 0 else ("+", s)
    if s < 120:
        text = f"{s} s"
    elif s < 3600:
        text = f"{s // 60} min" + (f" {s % 60} s" if s % 60 else "")
    elif s < 2 * 86400:
        text = f"{s // 3600} h" + (f" {s % 3600 // 60} min" if s % 3600 >= 60 else "")
    else:
        text = f"{s // 86400} d" + (f" {s % 86400 // 3600} h" if s % 86400 >= 3600 else "")
    return sign + text


# Tick steps (seconds) of the plot's time axis: multiples of these fall on round clock times.
_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800,
          604800, 2592000)


def _span(seconds: float) -> str:
    """A duration: ``"0 s"``, ``"45 s"``, ``"2 h 5 min"``."""
    return format_offset(seconds).lstrip("+") if round(seconds) else "0 s"


def _clock_tick(t: float, span: float, dates: bool) -> str:
    """A tick of the plot's clock axis: :func:`format_clock`, with the date at midnight when the
    axis spans two days (``dates``)."""
    if dates and round(t) % 86400 == 0:
        return format_clock(t, max(span, 20 * 3600))
    return format_clock(t, span)


def _tick_step(span: float, ticks: int = 8) -> float:
    return float(next((s for s in _STEPS if span / s <= ticks), _STEPS[-1] * max(1, round(span / _STEPS[-1] / ticks))))


def _when(t: float, now: float) -> str:
    """A start or end in a table: the clock time and date with the offset, or the offset alone."""
    d = t - now
    rel = "now" if round(d) == 0 else f"in {_span(d)}" if d > 0 else f"{_span(-d)} ago"
    if has_clock(now):
        return _dt.datetime.fromtimestamp(round(t), tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC") + f" ({rel})"
    return format_offset(d)


#: Columns of :meth:`Timeline.to_pandas`, in order.
JOB_COLUMNS = ("label", "name", "cluster_queue", "start", "end", "running", "finished", "pipeline", "wait",
               "wait_detail", "deadline_met", "preemptions", "gpus")


@dataclass(frozen=True)
class ScheduledJob(Record):
    """One job of a timeline. Times are seconds since the Unix epoch."""

    NOUN = "job"
    name: str
    cluster_queue: str
    flavors: Flavors
    start: float
    end: float
    deadline_met: Optional[bool]
    preempted_at: List[float]
    wait: Optional[WaitKind] = field(default=None, metadata={"enum": WaitKind})  # None: not waiting
    wait_detail: str = ""
    running: bool = False               # already running at `now` (actual start)
    finished: bool = False              # ended before `now` (actual start and end)
    pipeline: Optional[str] = None
    gpus: Dict[str, int] = field(default_factory=dict)
    label: str = ""                     # what people call it (a platform job's name; else `name`)

    @property
    def estimated(self) -> bool:
        """True when start and end are estimates (the job has not started)."""
        return not (self.running or self.finished)

    @property
    def state(self) -> str:
        """``"finished"``, ``"running"`` or ``"queued"`` (estimated)."""
        return "finished" if self.finished else "running" if self.running else "queued"

    def _repr_html_(self) -> str:
        gpus = ", ".join(f"{n} {r}" for r, n in self.gpus.items())
        when = (format_clock(self.start, 86400) + " to " + format_clock(self.end, 86400) + " UTC"
                if has_clock(self.start) else format_offset(self.start) + " to " + format_offset(self.end))
        wait = f"{self.wait.value}: {self.wait_detail}" if self.wait else None
        met = None if self.deadline_met is None else ("met" if self.deadline_met else "missed")
        return html_record([("label", self.label), ("state", self.state), ("when", when),
                            ("cluster_queue", self.cluster_queue), ("pipeline", self.pipeline), ("gpus", gpus),
                            ("waits for", wait), ("deadline", met), ("preemptions", len(self.preempted_at) or None),
                            ("name", self.name)], f"job {self.label}")


def _labels(jobs: "list[ScheduledJob]") -> dict[str, str]:
    """Each job's name mapped to what pictures and tables call it: its label, and where labels
    repeat, the label with the end of the name (the whole name when those ends repeat too)."""
    count: dict[str, int] = {}
    for j in jobs:
        count[j.label] = count.get(j.label, 0) + 1

    def tail(name: str) -> str:
        return name if len(name) <= 9 else "\u2026" + name[-8:]

    out = {j.name: j.label if count[j.label] == 1 or j.label == j.name else f"{j.label} ({tail(j.name)})" for j in jobs}
    seen: dict[str, int] = {}
    for shown in out.values():
        seen[shown] = seen.get(shown, 0) + 1
    for j in jobs:
        if seen[out[j.name]] > 1 and out[j.name] != j.name:
            out[j.name] = f"{j.label} ({j.name})"
    return out


def _jobs_table(jobs: "list[ScheduledJob]", now: float, caption: str, limit: int = 50) -> str:
    """A small HTML table of ``jobs``: the label first (the name in its title), every cell escaped."""
    labels = _labels(jobs)
    esc = _html.escape
    head = "".join(f"<th>{c}</th>" for c in ("job", "state", "start", "end", "queue", "pipeline", "waits for"))
    rows = []
    for j in jobs[:limit]:
        wait = f"{j.wait.value}: {j.wait_detail}" if j.wait else ""
        cells = [j.state, _when(j.start, now), _when(j.end, now), j.cluster_queue, j.pipeline or "", wait]
        rows.append(f'<tr><td title="{esc(j.name, quote=True)}">{esc(labels[j.name])}</td>' +
                    "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    more = f"<p>{len(jobs) - limit} more jobs</p>" if len(jobs) > limit else ""
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{more}"


class ScheduledJobs(Rows[ScheduledJob]):
    """The jobs of a timeline (a :class:`budcore.results.Rows` of :class:`ScheduledJob`) that a
    notebook shows as a table, labels first, with starts and ends relative to ``now``."""

    def __init__(self, jobs: Iterable[ScheduledJob] = (), now: float = 0.0) -> None:
        super().__init__(jobs, columns=JOB_COLUMNS)
        self.now = now

    def rows(self) -> list[dict[str, object]]:
        """One dict per job (:data:`JOB_COLUMNS`), as :meth:`Timeline.to_pandas` has them."""
        return [_job_row(j) for j in self]

    def labels(self) -> dict[str, str]:
        """Each job's name mapped to its label, made unique where labels repeat (see
        :meth:`Timeline.labels`)."""
        return _labels(list(self))

    def _repr_html_(self) -> str:
        return _jobs_table(list(self), self.now, self.caption())


def _job_row(j: ScheduledJob) -> dict[str, object]:
    """A job as a row of :data:`JOB_COLUMNS` (times in seconds since the epoch)."""
    return {"label": j.label, "name": j.name, "cluster_queue": j.cluster_queue, "start": j.start, "end": j.end,
            "running": j.running, "finished": j.finished, "pipeline": j.pipeline,
            "wait": None if j.wait is None else j.wait.value, "wait_detail": j.wait_detail,
            "deadline_met": j.deadline_met, "preemptions": len(j.preempted_at), "gpus": sum(j.gpus.values())}


def _job(d: TimelineJob) -> ScheduledJob:
    wait = d.get("wait")
    return ScheduledJob(
        name=d["name"], cluster_queue=d["cluster_queue"], flavors=d["flavors"],
        start=d["estimated_start"], end=d["estimated_end"], deadline_met=d["deadline_met"],
        preempted_at=list(d["preempted_at"]), wait=_member(WaitKind, wait["reason"]) if wait else None, wait_detail=wait["detail"] if wait else "",
        running=d.get("running", False), finished=d.get("finished", False), pipeline=d.get("pipeline"),
        gpus=dict(d.get("gpus") or {}), label=d.get("label") or d["name"])


class Timeline:
    """Estimated start and end of every job (see the module doc). Not thread-safe."""

    def __init__(self, scenario: Union[Document, str]) -> None:
        self._tl: Union[ScheduleTimeline, ScheduleSnapshot] = ScheduleTimeline(scenario if isinstance(scenario, str) else dict(scenario))

    @classmethod
    def _of(cls, handle: ScheduleSnapshot) -> "Timeline":
        """A timeline over a handle the library made (Platform.schedule's ScheduleSnapshot:
        events on it raise UnsupportedError)."""
        tl = cls.__new__(cls)
        tl._tl = handle
        return tl

    # ---- results
    def result(self, details: bool = False) -> ScheduleResult:
        """The contract-6 output ``{"jobs", "never", "makespan"}`` (``details``: more fields)."""
        return cast(ScheduleResult, self._tl.result(details))

    def _result(self, details: bool) -> ScheduleResult:
        return cast(ScheduleResult, self._tl.result(details))

    @property
    def jobs(self) -> ScheduledJobs:
        """Jobs that run, by estimated start then name (a list a notebook shows as a table)."""
        r = self._result(True)
        return ScheduledJobs((_job(j) for j in r["jobs"]), r["now"])

    def labels(self) -> dict[str, str]:
        """Each job's name mapped to what pictures and tables call it: its label (a platform job's
        name), and where two jobs share a label, the label with the last 8 characters of the
        name (``"train (\u20265ce3e749)"``), or the whole name when those repeat too."""
        return self.jobs.labels()

    @property
    def never(self) -> dict[str, str]:
        """Jobs that can never run (within the horizon), with the reason."""
        return dict(self._result(False)["never"])

    @property
    def makespan(self) -> float:
        """Seconds from ``now`` to the last estimated end."""
        return self._result(False)["makespan"]

    @property
    def now(self) -> float:
        """The timeline's present, seconds since the epoch."""
        return self._result(True)["now"]

    @property
    def warnings(self) -> list[str]:
        """What the estimate assumed (a past deadline, a duration it had to guess)."""
        return list(self._result(True)["warnings"])

    @property
    def utilization(self) -> list[UtilizationStep]:
        """Per-queue usage steps: ``{"at", "cluster_queue", "flavor", "resource", "used"}``."""
        return list(self._result(True)["utilization"])

    def job(self, name: str) -> Optional[ScheduledJob]:
        """The job named ``name`` (a platform job's id), else the only job labelled ``name``, or None."""
        jobs = self.jobs
        found = next((j for j in jobs if j.name == name), None)
        if found is None:
            labelled = [j for j in jobs if j.label == name]
            found = labelled[0] if len(labelled) == 1 else None
        return found

    def lanes(self) -> list[Lane]:
        """Device lanes (A100-1, T4-1, MIG slices, CPU pool) with their job blocks."""
        return cast(List[Lane], self._tl.lanes())

    @property
    def trees_simulated(self) -> int:
        """How many cohort trees the last build or event simulated."""
        return self._tl.trees_simulated

    # ---- live events (docs/schedule.md "Live updates"); `at` is seconds since the epoch
    def apply(self, event: Document) -> "Timeline":
        """Applies one live event document (``{"type": "finished", "name", "at"}``, ...) and re-estimates."""
        self._tl.apply(dict(event))  # ScheduleSnapshot.apply raises UnsupportedError
        return self

    def started(self, name: str, at: float, cluster_queue: str, flavors: Mapping[str, Mapping[str, str]],
                count: Optional[Mapping[str, int]] = None) -> "Timeline":
        """Reports that ``name`` started at ``at`` on ``cluster_queue`` with ``flavors``; re-estimates."""
        admission: dict[str, object] = {"cluster_queue": cluster_queue, "flavors": {k: dict(v) for k, v in flavors.items()}}
        if count:
            admission["count"] = dict(count)
        return self.apply({"type": "started", "name": name, "at": at, "admission": admission})

    def finished(self, name: str, at: float) -> "Timeline":
        """Reports that ``name`` ended at ``at``; its quota is free from then on."""
        return self.apply({"type": "finished", "name": name, "at": at})

    def failed(self, name: str, at: float) -> "Timeline":
        """Reports that ``name`` failed at ``at``; its quota is free from then on."""
        return self.apply({"type": "failed", "name": name, "at": at})

    def preempted(self, name: str, at: float) -> "Timeline":
        """Reports that ``name`` was preempted at ``at``: it queues again with its full duration."""
        return self.apply({"type": "preempted", "name": name, "at": at})

    def cancelled(self, name: str, at: float) -> "Timeline":
        """Reports that ``name`` was cancelled at ``at``: it leaves the timeline."""
        return self.apply({"type": "cancelled", "name": name, "at": at})

    def submitted(self, job: Document, at: float) -> "Timeline":
        """Adds a workload document submitted at ``at``; re-estimates."""
        return self.apply({"type": "submitted", "job": dict(job), "at": at})

    def advance(self, at: float) -> "Timeline":
        """Moves ``now`` to ``at`` (seconds since the epoch); running jobs past their estimate end there."""
        return self.apply({"type": "advance", "at": at})

    # ---- pictures
    def to_html(self, title: str = "budcore schedule") -> str:
        """A self-contained HTML page: lanes on a clock-time axis, the queued jobs, the never-run."""
        return self._tl.html(title)

    def _repr_html_(self) -> str:
        # A small table, labels first; the lanes are in plot() and to_html().
        r = self._result(True)
        jobs = ScheduledJobs((_job(j) for j in r["jobs"]), r["now"])
        now = r["now"]
        when = (_dt.datetime.fromtimestamp(round(now), tz=_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
                if has_clock(now) else "the start")
        caption = (f"schedule at {when}: {len(jobs)} job{'' if len(jobs) == 1 else 's'}, "
                   f"makespan {_span(r['makespan'])}")
        out = _jobs_table(jobs, now, caption)
        if r["never"]:
            rows = "".join(f"<tr><td>{_html.escape(n)}</td><td>{_html.escape(why)}</td></tr>"
                           for n, why in r["never"].items())
            out += f"<table><caption>never run</caption><thead><tr><th>job</th><th>why</th></tr></thead>" \
                   f"<tbody>{rows}</tbody></table>"
        return out

    def save_html(self, path: Union[str, "os.PathLike[str]"], title: str = "budcore schedule") -> None:
        """Writes :meth:`to_html` to ``path`` (UTF-8)."""
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.to_html(title))

    def to_pandas(self) -> DataFrame:
        """One row per job (:data:`JOB_COLUMNS`); ``start``/``end`` as UTC timestamps.
        Requires pandas (``pip install budcore[pandas]``)."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - exercised only without pandas
            raise ImportError("Timeline.to_pandas needs pandas: pip install 'budcore[pandas]'") from e
        df = pd.DataFrame(self.jobs.rows(), columns=list(JOB_COLUMNS))
        for c in ("start", "end"):
            df[c] = pd.to_datetime(df[c], unit="s", utc=True)
        return df

    def plot(self, ax: Optional[Axes] = None, *, relative: Optional[bool] = None) -> Axes:
        """A Gantt chart of the device lanes: one row per lane, each block labelled by the job's
        label (:meth:`labels`; its name is the bar's ``gid``, which SVG output keeps), one colour
        per pipeline (standalone jobs grey), estimated blocks hatched and lighter, actual ones
        solid, a dashed line at now.

        The axis reads UTC clock times (``14:00``, ``14:30``) on round steps; ``relative=True``
        reads offsets from now instead (``+30 min``, ``+1 h``), which is also what a scenario
        without ``now`` (times from the epoch, see :func:`has_clock`) gets by default.

        Args:
            ax: the matplotlib Axes to draw on (None: a new figure).
            relative: True for offsets from now, False for clock times, None to choose.

        Returns:
            The matplotlib Axes. Requires matplotlib (``pip install budcore[plot]``).
        """
        try:
            import matplotlib.pyplot as plt
            from matplotlib.patches import Patch
            from matplotlib.ticker import FuncFormatter, MultipleLocator
        except ImportError as e:  # pragma: no cover - exercised only without matplotlib
            raise ImportError("Timeline.plot needs matplotlib: pip install 'budcore[plot]'") from e
        lanes = self.lanes()
        all_jobs = self.jobs
        jobs = {j.name: j for j in all_jobs}
        labels = all_jobs.labels()
        now = all_jobs.now
        if relative is None:
            relative = not has_clock(now)
        origin = now if relative else 0.0
        starts = [b["start"] for lane in lanes for b in lane["blocks"]] + [now]
        ends = [b["end"] for lane in lanes for b in lane["blocks"]] + [now]
        span = max(ends) - min(starts)
        if ax is None:
            _, ax = plt.subplots(figsize=(10, max(2.0, 0.45 * len(lanes) + 1.2)))
        palette: Sequence[tuple[float, float, float]] = getattr(plt.get_cmap("tab10"), "colors")  # a ListedColormap
        colours: dict[Optional[str], tuple[float, float, float]] = {None: (0.5, 0.5, 0.5)}
        for j in all_jobs:
            if j.pipeline is not None and j.pipeline not in colours:
                colours[j.pipeline] = palette[(len(colours) - 1) % len(palette)]
        for row, lane in enumerate(lanes):
            for b in lane["blocks"]:
                j = jobs[b["job"]]
                est = b["estimated"]
                bars = ax.barh(row, b["end"] - b["start"], left=b["start"] - origin, height=0.7,
                               color=colours[j.pipeline], alpha=0.55 if est else 1.0, hatch="//" if est else None,
                               edgecolor="black", linewidth=0.5, label=None)
                for bar in bars:
                    bar.set_gid(j.name)
                ax.text(b["start"] - origin, row, " " + labels[j.name], va="center", ha="left", fontsize=7)
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels([lane["name"] for lane in lanes])
        ax.invert_yaxis()
        ax.xaxis.set_major_locator(MultipleLocator(_tick_step(span)))
        if relative:
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: format_offset(x)))
            ax.set_xlabel("time from now")
        else:
            first, last = (_dt.datetime.fromtimestamp(round(t), tz=_dt.timezone.utc).strftime("%Y-%m-%d")
                           for t in (min(starts), max(ends)))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: _clock_tick(x, span, first != last)))
            ax.set_xlabel("time (UTC)" if span >= 20 * 3600 else
                          f"time (UTC), {first}" + (f" to {last[5:]}" if last != first else ""))
        ax.axvline(now - origin, color="red", linestyle="--", linewidth=1)
        handles = [Patch(color=c, label=p if p is not None else "standalone") for p, c in colours.items()
                   if p is not None or any(j.pipeline is None for j in jobs.values())]
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="//", label="estimated"))
        ax.legend(handles=handles, loc="upper right", fontsize=7)
        ax.set_title("schedule: %d jobs on %d lanes" % (len(jobs), len(lanes)))
        return ax

    def __repr__(self) -> str:
        r = self._result(False)
        return "Timeline(%d jobs, %d never, makespan %s)" % (len(r["jobs"]), len(r["never"]),
                                                             _span(r["makespan"]))


def estimate(scenario: Union[Document, str, "os.PathLike[str]"]) -> Timeline:
    """A :class:`Timeline` from a dict, JSON text, or a JSON/YAML file path."""
    if isinstance(scenario, Mapping):
        return Timeline(scenario)
    if isinstance(scenario, str) and scenario.lstrip().startswith("{"):
        return Timeline(scenario)
    doc = load_document(os.fspath(scenario))
    if not isinstance(doc, dict):
        raise ValidationError(f"{os.fspath(scenario)}: a schedule scenario must be a map")
    return Timeline(doc)


def replay(config: Union[str, Document] = "baseline") -> ReplayReport:
    """Replay Kueue's scheduler-performance ``"baseline"`` (or a generator config dict, Kueue's
    generator.yaml keys) in virtual time; returns the checker's metrics and thresholds."""
    if isinstance(config, Mapping):
        return ReplayReport.from_dict(_replay(dict(config)))
    return ReplayReport.from_dict(_replay(config))
