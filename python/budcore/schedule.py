"""budcore.schedule: when will each job start and end under the real quota rules.

:func:`estimate` builds a :class:`Timeline` from a ``budcore schedule estimate`` scenario
(docs/cli.md contract 6: a quota scenario plus per-workload ``duration_seconds``,
``submit_at``, ``depends_on``, ``started_at``, ``window``, ``deadline``). The timeline is a
discrete-event simulation that runs the same admission engine as ``budcore quota simulate`` at
every event. Feed it what really happened (:meth:`Timeline.finished` and friends) to get revised
estimates. :meth:`Timeline.to_pandas` gives a DataFrame (pandas imported lazily),
:meth:`Timeline.plot` a matplotlib Gantt chart of the device lanes, :meth:`Timeline.to_html` the
self-contained HTML view. :func:`replay` replays Kueue's scheduler-performance ``baseline``.
"""

from __future__ import annotations

import html as _html
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union

from ._core import ScheduleSnapshot, ScheduleTimeline, ValidationError, load_document
from ._core import schedule_replay as _replay

__all__ = ["ScheduleSnapshot", "ScheduleTimeline", "ScheduledJob", "Timeline", "estimate", "replay", "JOB_COLUMNS"]

#: Columns of :meth:`Timeline.to_pandas`, in order.
JOB_COLUMNS = ("label", "name", "cluster_queue", "start", "end", "running", "finished", "pipeline", "wait",
               "wait_detail", "deadline_met", "preemptions", "gpus")


@dataclass(frozen=True)
class ScheduledJob:
    """One job of a timeline. Times are seconds since the Unix epoch."""

    name: str
    cluster_queue: str
    flavors: dict
    start: float
    end: float
    deadline_met: Optional[bool]
    preempted_at: list
    wait: Optional[str] = None          # "quota", "dependency", "window", "placement" or None
    wait_detail: str = ""
    running: bool = False               # already running at `now` (actual start)
    finished: bool = False              # ended before `now` (actual start and end)
    pipeline: Optional[str] = None
    gpus: dict = field(default_factory=dict)
    label: str = ""                     # what people call it (a platform job's name; else `name`)

    @property
    def estimated(self) -> bool:
        """True when start and end are estimates (the job has not started)."""
        return not (self.running or self.finished)


def _job(d: Mapping[str, Any]) -> ScheduledJob:
    wait = d.get("wait") or {}
    return ScheduledJob(
        name=d["name"], cluster_queue=d["cluster_queue"], flavors=d["flavors"],
        start=d["estimated_start"], end=d["estimated_end"], deadline_met=d["deadline_met"],
        preempted_at=list(d["preempted_at"]), wait=wait.get("reason"), wait_detail=wait.get("detail", ""),
        running=d.get("running", False), finished=d.get("finished", False), pipeline=d.get("pipeline"),
        gpus=dict(d.get("gpus") or {}), label=d.get("label") or d["name"])


class Timeline:
    """Estimated start and end of every job (see the module doc). Not thread-safe."""

    def __init__(self, scenario: Union[Mapping[str, Any], str]):
        self._tl = ScheduleTimeline(scenario if isinstance(scenario, str) else dict(scenario))

    @classmethod
    def _of(cls, handle: Any) -> "Timeline":
        """A timeline over a handle the library made (Platform.schedule's ScheduleSnapshot:
        events on it raise UnsupportedError)."""
        tl = cls.__new__(cls)
        tl._tl = handle
        return tl

    # ---- results
    def result(self, details: bool = False) -> dict[str, Any]:
        """The contract-6 output ``{"jobs", "never", "makespan"}`` (``details``: more fields)."""
        return self._tl.result(details)

    @property
    def jobs(self) -> list[ScheduledJob]:
        """Jobs that run, by estimated start then name."""
        return [_job(j) for j in self._tl.result(True)["jobs"]]

    @property
    def never(self) -> dict[str, str]:
        """Jobs that can never run (within the horizon), with the reason."""
        return dict(self._tl.result(False)["never"])

    @property
    def makespan(self) -> float:
        """Seconds from ``now`` to the last estimated end."""
        return self._tl.result(False)["makespan"]

    @property
    def now(self) -> float:
        """The timeline's present, seconds since the epoch."""
        return self._tl.result(True)["now"]

    @property
    def warnings(self) -> list[str]:
        """What the estimate assumed (a past deadline, a duration it had to guess)."""
        return list(self._tl.result(True)["warnings"])

    @property
    def utilization(self) -> list[dict[str, Any]]:
        """Per-queue usage steps: ``{"at", "cluster_queue", "flavor", "resource", "used"}``."""
        return list(self._tl.result(True)["utilization"])

    def job(self, name: str) -> Optional[ScheduledJob]:
        """The job named ``name``, or None."""
        return next((j for j in self.jobs if j.name == name), None)

    def lanes(self) -> list[dict[str, Any]]:
        """Device lanes (A100-1, T4-1, MIG slices, CPU pool) with their job blocks."""
        return self._tl.lanes()

    @property
    def trees_simulated(self) -> int:
        """How many cohort trees the last build or event simulated."""
        return self._tl.trees_simulated

    # ---- live events (docs/schedule.md "Live updates"); `at` is seconds since the epoch
    def apply(self, event: Mapping[str, Any]) -> "Timeline":
        """Applies one live event document (``{"type": "finished", "name", "at"}``, ...) and re-estimates."""
        self._tl.apply(dict(event))
        return self

    def started(self, name: str, at: float, cluster_queue: str, flavors: Mapping[str, Mapping[str, str]],
                count: Optional[Mapping[str, int]] = None) -> "Timeline":
        """Reports that ``name`` started at ``at`` on ``cluster_queue`` with ``flavors``; re-estimates."""
        admission: dict[str, Any] = {"cluster_queue": cluster_queue, "flavors": {k: dict(v) for k, v in flavors.items()}}
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

    def submitted(self, job: Mapping[str, Any], at: float) -> "Timeline":
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
        # In an iframe: the page's own styles must not restyle the notebook around it.
        page = self.to_html()
        queued = sum(1 for j in self.jobs if j.estimated)
        height = min(1200, 160 + 28 * len(self.lanes()) + 26 * (queued + len(self.never)))
        return (f'<iframe srcdoc="{_html.escape(page, quote=True)}" style="width:100%;height:{height}px;border:0" '
                f'title="budcore schedule"></iframe>')

    def save_html(self, path: Union[str, "os.PathLike[str]"], title: str = "budcore schedule") -> None:
        """Writes :meth:`to_html` to ``path`` (UTF-8)."""
        with open(os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.to_html(title))

    def to_pandas(self) -> Any:
        """One row per job (:data:`JOB_COLUMNS`); ``start``/``end`` as UTC timestamps.
        Requires pandas (``pip install budcore[pandas]``)."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - exercised only without pandas
            raise ImportError("Timeline.to_pandas needs pandas: pip install 'budcore[pandas]'") from e
        rows = [{"label": j.label, "name": j.name, "cluster_queue": j.cluster_queue, "start": j.start, "end": j.end,
                 "running": j.running,
                 "finished": j.finished, "pipeline": j.pipeline, "wait": j.wait, "wait_detail": j.wait_detail,
                 "deadline_met": j.deadline_met, "preemptions": len(j.preempted_at), "gpus": sum(j.gpus.values())}
                for j in self.jobs]
        df = pd.DataFrame(rows, columns=list(JOB_COLUMNS))
        for c in ("start", "end"):
            df[c] = pd.to_datetime(df[c], unit="s", utc=True)
        return df

    def plot(self, ax: Any = None, *, relative: bool = True) -> Any:
        """A Gantt chart of the device lanes: one row per lane, one colour per pipeline
        (standalone jobs grey), estimated blocks hatched and lighter, actual ones solid. Returns
        the matplotlib Axes. Requires matplotlib (``pip install budcore[plot]``)."""
        try:
            import matplotlib.pyplot as plt
            from matplotlib.patches import Patch
        except ImportError as e:  # pragma: no cover - exercised only without matplotlib
            raise ImportError("Timeline.plot needs matplotlib: pip install 'budcore[plot]'") from e
        lanes = self.lanes()
        jobs = {j.name: j for j in self.jobs}
        now = self.now
        origin = now if relative else 0.0
        # Hours or minutes when the picture spans them: nobody reads "+7200 s" as two hours.
        span = max((b["end"] for lane in lanes for b in lane["blocks"]), default=now) - \
            min((b["start"] for lane in lanes for b in lane["blocks"]), default=now)
        unit, scale = ("hours", 3600.0) if span >= 3 * 3600 else ("minutes", 60.0) if span >= 180 else ("seconds", 1.0)
        if not relative:
            unit, scale = "seconds", 1.0
        if ax is None:
            _, ax = plt.subplots(figsize=(10, max(2.0, 0.45 * len(lanes) + 1.2)))
        palette = plt.get_cmap("tab10").colors
        colours: dict[Optional[str], Any] = {None: (0.5, 0.5, 0.5)}
        for j in self.jobs:
            if j.pipeline is not None and j.pipeline not in colours:
                colours[j.pipeline] = palette[(len(colours) - 1) % len(palette)]
        for row, lane in enumerate(lanes):
            for b in lane["blocks"]:
                j = jobs[b["job"]]
                est = b["estimated"]
                ax.barh(row, (b["end"] - b["start"]) / scale, left=(b["start"] - origin) / scale, height=0.7, color=colours[j.pipeline],
                        alpha=0.55 if est else 1.0, hatch="//" if est else None, edgecolor="black", linewidth=0.5,
                        label=None)
                ax.text((b["start"] - origin) / scale, row, " " + j.label, va="center", ha="left", fontsize=7)
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels([lane["name"] for lane in lanes])
        ax.invert_yaxis()
        ax.set_xlabel(f"{unit} after now" if relative else f"{unit} since the epoch (UTC)")
        if relative:
            ax.axvline(0, color="red", linestyle="--", linewidth=1)
        handles = [Patch(color=c, label=p if p is not None else "standalone") for p, c in colours.items()
                   if p is not None or any(j.pipeline is None for j in jobs.values())]
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="//", label="estimated"))
        ax.legend(handles=handles, loc="upper right", fontsize=7)
        ax.set_title("schedule: %d jobs on %d lanes" % (len(jobs), len(lanes)))
        return ax

    def __repr__(self) -> str:
        r = self._tl.result(False)
        return "Timeline(%d jobs, %d never, makespan %s s)" % (len(r["jobs"]), len(r["never"]), r["makespan"])


def estimate(scenario: Union[Mapping[str, Any], str, "os.PathLike[str]"]) -> Timeline:
    """A :class:`Timeline` from a dict, JSON text, or a JSON/YAML file path."""
    if isinstance(scenario, Mapping):
        return Timeline(scenario)
    if isinstance(scenario, str) and scenario.lstrip().startswith("{"):
        return Timeline(scenario)
    doc = load_document(os.fspath(scenario))
    if not isinstance(doc, dict):
        raise ValidationError(f"{os.fspath(scenario)}: a schedule scenario must be a map")
    return Timeline(doc)


def replay(config: Union[str, Mapping[str, Any]] = "baseline") -> dict[str, Any]:
    """Replay Kueue's scheduler-performance ``"baseline"`` (or a generator config dict, Kueue's
    generator.yaml keys) in virtual time; returns the checker's metrics and thresholds."""
    if isinstance(config, Mapping):
        return _replay(dict(config))
    return _replay(config)
