"""budcore.results: typed results of plans, rehearsed runs, quota simulations and store pages.

Each is the dict the library returns (``plan["order"]``, ``==`` with a dict and ``json.dumps``
keep working) with more on top: attribute access (``plan.order``), ``rows()`` (one dict per
step, workload or job), ``to_pandas()`` (a DataFrame of those rows) and an HTML table when a
notebook displays it. pandas is imported only by ``to_pandas()``.

    plan = budcore.Pipeline.load("rag-pipeline.json").plan()
    plan.critical_path              # ['step-1', 'step-3', ...]
    plan.to_pandas()                # step, level, on_critical_path, job_step
    budcore.quota.simulate(s).to_pandas()   # workload, state, cluster_queue, flavors, borrowing, reason
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any, ClassVar, Dict, List, Mapping, Sequence, TypedDict, cast

from .types import JsonObject

if TYPE_CHECKING:
    from pandas import DataFrame

__all__ = ["Admission", "JobPage", "Plan", "QuotaSimulation", "Result", "RunResult", "html_table", "html_record"]


def html_table(rows: Sequence[Mapping[str, object]], columns: tuple[str, ...], caption: str = "", limit: int = 50) -> str:
    """An HTML table of ``rows`` (the first ``limit``), every cell escaped."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(r.get(c)))}</td>" for c in columns) + "</tr>" for r in rows[:limit]
    )
    more = f"<p>{len(rows) - limit} more rows</p>" if len(rows) > limit else ""
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


def html_record(fields: list[tuple[str, object]], caption: str = "") -> str:
    """A two-column HTML table of (field, value) pairs, every cell escaped; empty values left out."""
    body = "".join(f"<tr><th style=\"text-align:left\">{html.escape(k)}</th><td>{html.escape(_cell(v))}</td></tr>"
                   for k, v in fields if v not in (None, "", [], {}))
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<tbody>{body}</tbody></table>"


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_cell(x)}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(_cell(x) for x in v)
    return str(v)


# The values' types depend on the result and its key, and attribute access is dynamic: the
# mapping's values are typed Any. Each subclass declares its keys' types as attributes, which
# is what attribute access (plan.order) reads.
class Result(dict[str, Any]):
    """A library result: the dict, plus attribute access, rows(), to_pandas() and an HTML view."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no {name!r}") from None

    def rows(self) -> list[dict[str, object]]:
        """One dict per row of the result (see COLUMNS)."""
        raise NotImplementedError

    def to_pandas(self) -> DataFrame:
        """The rows as a pandas DataFrame with COLUMNS."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(self.COLUMNS))

    def caption(self) -> str:
        """What a notebook shows above the table (empty: none)."""
        return ""

    def _repr_html_(self) -> str:
        return html_table(self.rows(), self.COLUMNS, self.caption())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict.__repr__(self)})"


class Plan(Result):
    """A pipeline plan (contract 3): order, levels, critical_path, critical_path_seconds, job_steps."""

    COLUMNS = ("step", "level", "on_critical_path", "job_step")
    order: List[str]
    levels: List[List[str]]
    critical_path: List[str]
    critical_path_seconds: float
    job_steps: List[str]

    def rows(self) -> list[dict[str, object]]:
        """One dict per step: level, on_critical_path, job_step."""
        level = {s: i for i, steps in enumerate(self.get("levels", [])) for s in steps}
        critical, jobs = set(self.get("critical_path", [])), set(self.get("job_steps", []))
        return [{"step": s, "level": level.get(s), "on_critical_path": s in critical, "job_step": s in jobs}
                for s in self.get("order", [])]

    def caption(self) -> str:
        """The step count and the critical path's length."""
        return f"plan: {len(self.get('order', []))} steps, critical path {self.get('critical_path_seconds', 0)} s"


class RunResult(Result):
    """A rehearsed pipeline run: status, done, elapsed_seconds, failure_reason, steps, outputs, ..."""

    COLUMNS = ("step", "status", "outputs")
    status: str
    done: bool
    elapsed_seconds: float
    failure_reason: str
    steps: Dict[str, str]
    outputs: JsonObject
    messages: Dict[str, str]
    transitions: List[JsonObject]

    def rows(self) -> list[dict[str, object]]:
        """One dict per step: its status and outputs."""
        outputs = self.get("outputs", {})
        return [{"step": s, "status": st, "outputs": outputs.get(s)} for s, st in self.get("steps", {}).items()]

    def caption(self) -> str:
        """The run's status and elapsed time."""
        return f"run {self.get('status', '')} after {self.get('elapsed_seconds', 0)} s"


class _AdmissionBase(TypedDict):
    cluster_queue: str
    flavors: Dict[str, Dict[str, str]]
    borrowing: bool


class Admission(_AdmissionBase, total=False):
    """An admitted workload of a :class:`QuotaSimulation`: its cluster queue, the flavor of each
    pod set's resources, whether it borrows, and (partial admission) each pod set's count."""

    count: Dict[str, int]


class QuotaSimulation(Result):
    """A `quota simulate` outcome (contract 2): admitted, preempted, pending, usage, cycles_run."""

    COLUMNS = ("workload", "state", "cluster_queue", "flavors", "borrowing", "reason")
    admitted: Dict[str, Admission]
    preempted: List[str]
    pending: Dict[str, str]
    usage: Dict[str, Dict[str, Dict[str, str]]]
    cycles_run: int

    def rows(self) -> list[dict[str, object]]:
        """One dict per workload: admitted, preempted or pending, with its queue, flavors and reason."""
        out = [
            {"workload": name, "state": "admitted", "cluster_queue": a.get("cluster_queue"),
             "flavors": a.get("flavors"), "borrowing": a.get("borrowing"), "reason": None}
            for name, a in self.get("admitted", {}).items()
        ]
        out += [{"workload": name, "state": "preempted", "cluster_queue": None, "flavors": None, "borrowing": None,
                 "reason": None} for name in self.get("preempted", [])]
        out += [{"workload": name, "state": "pending", "cluster_queue": None, "flavors": None, "borrowing": None,
                 "reason": reason} for name, reason in self.get("pending", {}).items()]
        return out

    def caption(self) -> str:
        """How many workloads were admitted, pending and preempted."""
        return (f"{len(self.get('admitted', {}))} admitted, {len(self.get('pending', {}))} pending, "
                f"{len(self.get('preempted', []))} preempted after {self.get('cycles_run', 0)} cycles")


class JobPage(Result):
    """One page of a store's jobs: ``jobs`` (the "items"), ``next_cursor`` ("" on the last page)."""

    COLUMNS = ("id", "name", "status", "job_type", "priority", "gpu_type", "gpu_count", "created_at", "version")
    next_cursor: str  # (``items`` is the dict method: the page's jobs are ``jobs``)

    @property
    def jobs(self) -> list[JsonObject]:
        """The page's job records (the document's ``items``)."""
        items: list[JsonObject] = self.get("items", [])
        return items

    def rows(self) -> list[dict[str, object]]:
        """One flat dict per job (its fields and the record's version)."""
        return [dict(cast(JsonObject, item["job"]), version=item.get("version")) if "job" in item
                else cast(Dict[str, object], item) for item in self.jobs]

    def caption(self) -> str:
        """The job count, and whether a next page follows."""
        more = ", more after next_cursor" if self.get("next_cursor") else ""
        return f"{len(self.jobs)} jobs{more}"
