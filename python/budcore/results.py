"""budcore.results: the one style of budcore's results.

Every result the package returns is a frozen dataclass with typed fields built on
:class:`Record`, and every collection of them a :class:`Rows`:

* ``to_dict()``: the result as a JSON-ready dict (the document the library wrote, when it
  wrote one: ``json.dumps(plan.to_dict())``); ``result["key"]``, ``"key" in result`` and
  ``dict(result)`` read that document, as when results were dicts.
* attribute access to typed fields (``plan.order``), closed sets as enums
  (:mod:`budcore.enums`: ``run.status == "completed"`` still holds).
* ``_repr_html_()``: what a notebook shows, names first and times as people read them.
* for a table-like result (a plan's steps, a simulation's workloads) and for :class:`Rows`:
  ``rows()`` (one dict per row) and ``to_pandas()`` (a DataFrame of them).

pandas is imported only by ``to_pandas()``.

    plan = budcore.Pipeline.load("rag-pipeline.json").plan()
    plan.critical_path              # ['step-1', 'step-3', ...]
    plan.to_pandas()                # step, level, on_critical_path, job_step
    budcore.quota.simulate(s).to_pandas()   # workload, state, cluster_queue, flavors, borrowing, reason
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import html
from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Callable, ClassVar, Dict, Iterable, Iterator, KeysView, List, Mapping, Optional, Sequence,
                    TypedDict, TypeVar, Union, cast)

from .enums import PipelineStatus, StepState, _member
from .types import JsonObject, JsonValue

if TYPE_CHECKING:
    from _typeshed import DataclassInstance
    from pandas import DataFrame

__all__ = ["Admission", "JobPage", "Plan", "QuotaSimulation", "Record", "Result", "Rows", "RunResult", "html_record",
           "html_table", "register_row"]

R = TypeVar("R", bound="Record")
T = TypeVar("T")


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


def _fields(obj: object) -> tuple[dataclasses.Field[object], ...]:
    """The fields of a record (a dataclass instance or class)."""
    return dataclasses.fields(cast("DataclassInstance", obj))


def _plain(v: object) -> JsonValue:
    """``v`` as JSON: records as their dicts, tuples as lists, enums and decimals as their strings."""
    if isinstance(v, Record):
        return v.to_dict()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, enum.Enum):
        return cast(JsonValue, v.value)
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return cast(JsonValue, v)


def document_field() -> JsonObject:
    """The field of a record that keeps the library's document (what ``to_dict()`` returns):
    left out of repr, equality and the HTML view."""
    return cast(JsonObject, field(default_factory=dict, repr=False, compare=False, metadata={"document": True}))


class Record:
    """The base of the package's result dataclasses: ``to_dict()``, ``result["key"]``, an HTML
    view, and for a table-like result (``COLUMNS`` set) ``rows()`` and ``to_pandas()``.

    A subclass is a frozen dataclass whose fields are declared in the order a person reads them
    (names first, ids last). One with a field made by :func:`document_field` keeps the library's
    document, which ``to_dict()`` and ``result["key"]`` read; the others' dict is their fields.
    ``ROW_COLUMNS`` are the columns it shows as a row of a :class:`Rows` table (every field when
    empty), ``NOUN`` what such a table's caption counts (``"3 jobs"``)."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()
    ROW_COLUMNS: ClassVar[tuple[str, ...]] = ()
    NOUN: ClassVar[str] = ""

    @classmethod
    def from_dict(cls: type[R], d: Mapping[str, object]) -> R:
        """The result of a library document: each field from the key of its name (a field's
        ``metadata["key"]`` when the key is no identifier; a missing key leaves the field's
        default). Closed sets (``metadata["enum"]``) become their enums."""
        doc = dict(d)
        kwargs: dict[str, object] = {}
        for f in _fields(cls):
            key = f.metadata.get("key", f.name)
            if f.metadata.get("document"):
                kwargs[f.name] = doc
            elif key in doc:
                kwargs[f.name] = doc[key]
        return cast("Callable[..., R]", cls)(**kwargs)

    def __post_init__(self) -> None:
        # A closed set given as its string (from_dict, or code written before the enums) is
        # kept as its member; a name outside the set raises ValueError naming the set.
        for f in _fields(self):
            kind = f.metadata.get("enum")
            value = getattr(self, f.name)
            if kind is not None and value is not None and not isinstance(value, kind):
                object.__setattr__(self, f.name, _member(kind, value))

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        # @dataclass keeps an __eq__ the class has: a result still equals its document as a dict.
        if "__eq__" not in cls.__dict__:
            setattr(cls, "__eq__", Record.__eq__)

    def __eq__(self, other: object) -> bool:
        """Equal to a result of the same class with equal fields, or to a dict of its document."""
        if isinstance(other, Mapping) and not isinstance(other, Record):
            return self.to_dict() == dict(other)
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in _fields(self) if f.compare)

    def _document(self) -> Optional[JsonObject]:
        for f in _fields(self):
            if f.metadata.get("document"):
                return cast(JsonObject, getattr(self, f.name))
        return None

    def to_dict(self) -> JsonObject:
        """The result as a JSON-ready dict: the library's document when the result keeps it,
        else its fields (nested records as dicts, tuples as lists, enums as strings)."""
        doc = self._document()
        if doc is not None:
            return doc
        return {f.name: _plain(getattr(self, f.name)) for f in _fields(self)}

    # The mapping protocol of the dicts results were: result["key"], "key" in result, iterating
    # the keys, dict(result). A record without a document answers with its fields' values
    # (a Decimal stays a Decimal, as in the dicts it replaces).
    def __getitem__(self, key: str) -> JsonValue:
        if self._document() is None and key in self._field_names():
            return cast(JsonValue, getattr(self, key))
        return self.to_dict()[key]

    def _field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in _fields(self))

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __contains__(self, key: object) -> bool:
        return key in self.to_dict()

    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        """The document's ``key``, or ``default`` (as ``dict.get``)."""
        return self.to_dict().get(key, default)

    def keys(self) -> KeysView[str]:
        """The document's keys (as ``dict.keys``: ``dict(result)`` is the document)."""
        return self.to_dict().keys()

    def row(self) -> dict[str, object]:
        """The record as a row of a :class:`Rows` table: its fields (``ROW_COLUMNS``), enums as
        strings, tuples as lists."""
        names = self.ROW_COLUMNS or tuple(f.name for f in _fields(self) if f.repr)
        return {name: _cell_value(getattr(self, name)) for name in names}

    def rows(self) -> list[dict[str, object]]:
        """One dict per row of a table-like result (see ``COLUMNS``); a plain record is one row."""
        return [self.row()]

    def to_pandas(self) -> DataFrame:
        """The rows as a pandas DataFrame (with ``COLUMNS`` when set). Requires pandas."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(self.COLUMNS) or None)

    def caption(self) -> str:
        """What a notebook shows above the result (empty: none)."""
        return ""

    def _html_fields(self) -> list[tuple[str, object]]:
        return [(f.name, getattr(self, f.name)) for f in _fields(self) if f.repr]

    def _repr_html_(self) -> str:
        if self.COLUMNS:
            return html_table(self.rows(), self.COLUMNS, self.caption())
        return html_record(self._html_fields(), self.caption())


#: The former name of the results' base (a dict then): ``isinstance(x, budcore.results.Result)``
#: still holds for every record.
Result = Record


def _cell_value(v: object) -> object:
    """A value for a table cell or a DataFrame: enums as their strings, tuples as lists."""
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, tuple):
        return [_cell_value(x) for x in v]
    return v


# How items of a class that is no Record (the extension's StoredJob) show in a Rows table: its
# row function, columns and noun (register_row).
_NATIVE_ROWS: dict[type, tuple[Callable[[object], dict[str, object]], tuple[str, ...], str]] = {}


def register_row(cls: type[T], row: Callable[[T], dict[str, object]], columns: Sequence[str], noun: str) -> None:
    """Shows items of ``cls`` (a class that is no :class:`Record`) in a :class:`Rows` table:
    ``row(item)`` gives the row, ``columns`` the columns shown, ``noun`` what the caption counts."""
    _NATIVE_ROWS[cls] = (cast("Callable[[object], dict[str, object]]", row), tuple(columns), noun)


def _row_of(item: object) -> dict[str, object]:
    """One row of a :class:`Rows` table: a record's ``row()``, a registered class's, a mapping's items."""
    if isinstance(item, Record):
        return item.row()
    native = _NATIVE_ROWS.get(type(item))
    if native is not None:
        return native[0](item)
    if isinstance(item, Mapping):
        return dict(item)
    raise TypeError(f"{type(item).__name__} is not a row")


def _row_kind(item: object) -> tuple[tuple[str, ...], str]:
    """The columns and noun of ``item``'s class in a table (empty when it declares none)."""
    native = _NATIVE_ROWS.get(type(item))
    if native is not None:
        return native[1], native[2]
    return getattr(type(item), "ROW_COLUMNS", ()), getattr(type(item), "NOUN", "")


class Rows(List[T]):
    """A list of results (records, stored jobs) that a notebook shows as one table, names first,
    with ``rows()`` and ``to_pandas()``. The columns are the items' ``ROW_COLUMNS`` and the
    caption counts them by their ``NOUN`` (``"3 jobs"``), unless given."""

    def __init__(self, items: Iterable[T] = (), *, columns: Sequence[str] = (), noun: str = "") -> None:
        super().__init__(items)
        self._columns = tuple(columns)
        self._noun = noun

    @property
    def columns(self) -> tuple[str, ...]:
        """The table's columns: as given, else the items' ``ROW_COLUMNS``, else the first row's keys."""
        if self._columns or not self:
            return self._columns
        return _row_kind(self[0])[0] or tuple(_row_of(self[0]))

    def rows(self) -> list[dict[str, object]]:
        """One dict per item (its ``row()``, or the mapping itself)."""
        return [_row_of(x) for x in self]

    def to_pandas(self) -> DataFrame:
        """The rows as a DataFrame with :attr:`columns`; columns named ``*_at`` (RFC 3339 times)
        as UTC timestamps. Requires pandas."""
        import pandas as pd

        frame = pd.DataFrame(self.rows(), columns=list(self.columns) or None)
        for col in frame.columns:
            if str(col).endswith("_at"):
                frame[col] = pd.to_datetime(frame[col], utc=True)
        return frame

    def caption(self) -> str:
        """How many items, in words (``"1 job"``, ``"3 jobs"``)."""
        noun = self._noun or (_row_kind(self[0])[1] if self else "") or "row"
        return f"{len(self)} {noun}" + ("" if len(self) == 1 else "s")

    def _repr_html_(self) -> str:
        return html_table([_readable(r) for r in self.rows()], self.columns, self.caption())


def _readable(row: Mapping[str, object]) -> dict[str, object]:
    """A row as a person reads it: RFC 3339 times (``*_at``) as ``2026-01-01 12:00:05 UTC``."""
    return {k: _clock(v) if k.endswith("_at") and isinstance(v, str) else v for k, v in row.items()}


def _clock(text: str) -> str:
    try:
        when = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if when.tzinfo is not None:
        when = when.astimezone(datetime.timezone.utc)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


# ---- the library's documents as records -------------------------------------------------------


@dataclass(frozen=True)
class Plan(Record):
    """A pipeline plan (contract 3): order, levels, critical_path, critical_path_seconds, job_steps."""

    COLUMNS = ("step", "level", "on_critical_path", "job_step")
    order: List[str] = field(default_factory=list)
    levels: List[List[str]] = field(default_factory=list)
    critical_path: List[str] = field(default_factory=list)
    critical_path_seconds: float = 0.0
    job_steps: List[str] = field(default_factory=list)
    document: JsonObject = document_field()

    def rows(self) -> list[dict[str, object]]:
        """One dict per step: level, on_critical_path, job_step."""
        level = {s: i for i, steps in enumerate(self.levels) for s in steps}
        critical, jobs = set(self.critical_path), set(self.job_steps)
        return [{"step": s, "level": level.get(s), "on_critical_path": s in critical, "job_step": s in jobs}
                for s in self.order]

    def caption(self) -> str:
        """The step count and the critical path's length."""
        return f"plan: {len(self.order)} steps, critical path {self.critical_path_seconds} s"


@dataclass(frozen=True)
class RunResult(Record):
    """A rehearsed pipeline run: status, done, elapsed_seconds, failure_reason, steps (each
    step's :class:`budcore.enums.StepState`), outputs, messages, transitions."""

    COLUMNS = ("step", "status", "outputs")
    status: PipelineStatus = field(default=PipelineStatus.PENDING, metadata={"enum": PipelineStatus})
    done: bool = False
    elapsed_seconds: float = 0.0
    failure_reason: str = ""
    steps: Dict[str, StepState] = field(default_factory=dict)
    outputs: JsonObject = field(default_factory=dict)
    messages: Dict[str, str] = field(default_factory=dict)
    transitions: List[JsonObject] = field(default_factory=list)
    document: JsonObject = document_field()

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> "RunResult":
        """The run of the library's document, each step's status as a StepState."""
        run = super().from_dict(d)
        steps = {s: _member(StepState, st) for s, st in run.steps.items()}
        return dataclasses.replace(run, steps=steps)

    def rows(self) -> list[dict[str, object]]:
        """One dict per step: its status and outputs."""
        return [{"step": s, "status": st.value, "outputs": self.outputs.get(s)} for s, st in self.steps.items()]

    def caption(self) -> str:
        """The run's status and elapsed time."""
        return f"run {self.status.value} after {self.elapsed_seconds} s"


class _AdmissionBase(TypedDict):
    cluster_queue: str
    flavors: Dict[str, Dict[str, str]]
    borrowing: bool


class Admission(_AdmissionBase, total=False):
    """An admitted workload of a :class:`QuotaSimulation`: its cluster queue, the flavor of each
    pod set's resources, whether it borrows, and (partial admission) each pod set's count."""

    count: Dict[str, int]


@dataclass(frozen=True)
class QuotaSimulation(Record):
    """A `quota simulate` outcome (contract 2): admitted, preempted, pending, usage, cycles_run."""

    COLUMNS = ("workload", "state", "cluster_queue", "flavors", "borrowing", "reason")
    admitted: Dict[str, Admission] = field(default_factory=dict)
    preempted: List[str] = field(default_factory=list)
    pending: Dict[str, str] = field(default_factory=dict)
    usage: Dict[str, Dict[str, Dict[str, str]]] = field(default_factory=dict)
    cycles_run: int = 0
    document: JsonObject = document_field()

    def rows(self) -> list[dict[str, object]]:
        """One dict per workload: admitted, preempted or pending, with its queue, flavors and reason."""
        none: dict[str, object] = {"cluster_queue": None, "flavors": None, "borrowing": None, "reason": None}
        out: list[dict[str, object]] = [
            {"workload": name, "state": "admitted", "cluster_queue": a.get("cluster_queue"),
             "flavors": a.get("flavors"), "borrowing": a.get("borrowing"), "reason": None}
            for name, a in self.admitted.items()
        ]
        out += [{"workload": name, "state": "preempted", **none} for name in self.preempted]
        out += [{"workload": name, "state": "pending", **none, "reason": reason} for name, reason in self.pending.items()]
        return out

    def caption(self) -> str:
        """How many workloads were admitted, pending and preempted."""
        return (f"{len(self.admitted)} admitted, {len(self.pending)} pending, "
                f"{len(self.preempted)} preempted after {self.cycles_run} cycles")


@dataclass(frozen=True)
class JobPage(Record):
    """One page of a store's jobs: ``jobs`` (the document's ``items``), ``next_cursor`` ("" on the
    last page)."""

    COLUMNS = ("id", "name", "status", "job_type", "priority", "gpu_type", "gpu_count", "created_at", "version")
    jobs: List[JsonObject] = field(default_factory=list, metadata={"key": "items"})
    next_cursor: str = ""
    document: JsonObject = document_field()

    def rows(self) -> list[dict[str, object]]:
        """One flat dict per job (its fields and the record's version)."""
        return [dict(cast(JsonObject, item["job"]), version=item.get("version")) if "job" in item
                else cast(Dict[str, object], item) for item in self.jobs]

    def caption(self) -> str:
        """The job count, and whether a next page follows."""
        more = ", more after next_cursor" if self.next_cursor else ""
        return f"{len(self.jobs)} jobs{more}"
