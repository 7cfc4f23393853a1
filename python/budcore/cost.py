"""budcore.cost: prices, estimates, metering, reports, forecasts and budgets.

Every figure is computed by the C++ library in exact decimal arithmetic; amounts reach Python
as :class:`decimal.Decimal` (never floats). Results are typed objects with ``.to_dict()`` and
``.to_pandas()`` (pandas is imported only then); reports also have ``.to_csv()`` and
``.plot()`` (matplotlib, imported only then).

>>> prices = budcore.cost.load_prices("examples/prices/runpod-like.yaml")
>>> budcore.cost.estimate(prices, {"job_type": "batch", "gpu_type": "nvidia-t4", "gpu_count": 1,
...                                "estimated_duration_seconds": 3600}).total
Decimal('0.460000')
"""

from __future__ import annotations

import csv
import io
import os
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Dict, List, Mapping, Optional, Sequence, TypedDict, Union, cast

from ._core import Error, Job, NotFoundError, PriceBook, Store
from . import _core
from .enums import Granularity, Tier, _member
from .results import Record, Rows, document_field, html_table
from .types import Document, JsonObject

if TYPE_CHECKING:  # names the annotations use
    import datetime
    import uuid

    import numpy
    import numpy.typing
    from matplotlib.axes import Axes
    from pandas import DataFrame

    from ._core import Money

__all__ = [
    "AdmissionDecision",
    "Anomaly",
    "BudgetStatus",
    "Budgets",
    "DailyCost",
    "Estimate",
    "EstimateDocument",
    "EstimateLine",
    "Forecast",
    "ForecastDocument",
    "GpuOption",
    "JobCost",
    "MonthEndForecast",
    "PriceBook",
    "Report",
    "ReportDocument",
    "Rollup",
    "ServerlessRollup",
    "StepEstimate",
    "TierComparison",
    "UsageRecord",
    "admit_job",
    "budget_status",
    "check_budget",
    "cheapest_gpu",
    "compare_tiers",
    "contract_code",
    "estimate",
    "forecast",
    "job_cost",
    "load_prices",
    "load_usage",
    "meter",
    "record_usage",
    "report",
    "rollup",
    "rollup_arrays",
    "serverless_rollup",
    "usage",
]

PathLike = Union[str, "os.PathLike[str]"]
Prices = Union[PriceBook, Document, PathLike]
UsageInput = Union[str, Sequence[Document]]  # JSON Lines text, or usage records / intervals
IdLike = Union[str, "uuid.UUID"]  # a tenant, project or job id
TimeLike = Union["datetime.datetime", str]  # a datetime (naive: UTC) or RFC 3339 text


# ---- the documents (amounts and quantities are exact decimal strings) -------------------------


class EstimateLine(TypedDict):
    """One priced line of an estimate: ``quantity`` x ``unit_price`` = ``amount``."""

    item: str
    resource: str
    quantity: str
    unit: str
    unit_price: str
    amount: str


class _StepEstimateBase(TypedDict):
    currency: str
    seconds: int
    tier: str
    total: str
    lines: List[EstimateLine]


class StepEstimate(_StepEstimateBase, total=False):
    """The estimate of one job (of a pipeline step, with its ``step``); ``period`` (``month``,
    ``hour``) only for a job priced per period."""

    step: str
    period: str


class _EstimateDocumentBase(TypedDict):
    currency: str
    total: str


class EstimateDocument(_EstimateDocumentBase, total=False):
    """An estimate as the library writes it: a job's (``seconds``, ``tier``, ``lines``,
    ``period``) or a pipeline's (``steps``, ``total_min``)."""

    seconds: int
    tier: str
    period: str
    lines: List[EstimateLine]
    steps: List[StepEstimate]
    total_min: str


@dataclass(frozen=True)
class TierComparison(Record):
    """:func:`compare_tiers`: on-demand and spot estimates and what spot saves."""

    currency: str
    on_demand: "Estimate"
    spot: "Estimate"
    savings: Decimal
    savings_percent: Decimal


@dataclass(frozen=True)
class GpuOption(Record):
    """One GPU type of :func:`cheapest_gpu`: its device memory, hourly price and the cost."""

    NOUN = "GPU type"
    gpu_type: str
    memory_gib: int
    unit_price: Decimal
    cost: Decimal


class _UsageRecordBase(TypedDict):
    schema_version: int
    tenant_id: Optional[str]
    project_id: Optional[str]
    job_id: Optional[str]
    pipeline_id: Optional[str]
    cluster_id: Optional[str]
    node_name: str
    job_type: str
    labels: dict[str, str]
    gpu_type: Optional[str]
    gpu_count: int
    gpu_index: Optional[int]
    sharing_mode: str
    mig_profile: Optional[str]
    tier: str
    cpu_cores: str
    memory_gib: str
    storage_gib: int
    start: str
    end: str
    gpu_utilization: Optional[str]
    gpu_memory_gib: Optional[str]
    tokens_in: int
    tokens_out: int
    requests: int
    currency: str
    seconds: str
    gpu_seconds: str
    idle_gpu_seconds: str
    gpu_memory_gb_seconds: str
    cpu_core_seconds: str
    memory_gib_seconds: str
    storage_gib_seconds: str
    gpu_cost: str
    idle_cost: str
    cpu_cost: str
    memory_cost: str
    storage_cost: str
    computed_cost: str


class UsageRecord(_UsageRecordBase, total=False):
    """A priced usage record (docs/cost.md): the interval, what it used and what that cost
    (``computed_cost`` and its parts); ``seq`` once a store holds it."""

    seq: int


@dataclass(frozen=True)
class JobCost(Record):
    """:func:`job_cost`: a job's usage summed from its records, amounts as Decimal."""

    currency: str
    records: int
    total: Decimal
    gpu_cost: Decimal
    idle_cost: Decimal
    cpu_cost: Decimal
    memory_cost: Decimal
    storage_cost: Decimal
    seconds: str
    gpu_seconds: str
    idle_gpu_seconds: str
    first_start: Optional[str] = None
    last_end: Optional[str] = None


class SharedCost(TypedDict):
    """A shared cost a report allocates by usage share."""

    name: str
    amount: str


# "from" and "to" are keywords: these keys are declared the functional way.
_ReportRange = TypedDict("_ReportRange", {"from": Optional[str], "to": Optional[str]}, total=False)


class _ReportDocumentBase(TypedDict):
    by: List[str]
    currency: str
    rows: List[JsonObject]


class ReportDocument(_ReportDocumentBase, _ReportRange, total=False):
    """A report or rollup as the library writes it. Its rows are keyed by the ``by`` dimensions
    (whose names are the query's, hence :data:`budcore.types.JsonObject`) plus the amounts. A
    chargeback report has ``from``, ``to``, ``shared`` and the totals; a rollup ``granularity``;
    a serverless rollup also ``endpoint``."""

    granularity: str
    endpoint: Optional[str]
    shared: List[SharedCost]
    total_direct: str
    total_shared: str
    total: str


class MonthEndForecast(TypedDict):
    """The ``forecast`` part of :class:`Forecast`: the month so far and its expected end."""

    currency: str
    period_start: str
    period_end: str
    days_observed: int
    month_to_date: str
    forecast_total: str
    slope_per_day: str
    intercept: str
    method: str


class DailyCost(TypedDict):
    """One day's spend (``day`` RFC 3339, ``cost`` a decimal string)."""

    day: str
    cost: str


class Anomaly(TypedDict):
    """A day whose spend is far from the days before it (``z_score`` is ``"inf"`` when they did
    not vary)."""

    day: str
    cost: str
    baseline_mean: float
    baseline_stddev: float
    z_score: Union[float, str]


class ForecastDocument(TypedDict):
    """The forecast document: ``forecast``, ``daily`` totals and ``anomalies``."""

    forecast: MonthEndForecast
    daily: List[DailyCost]
    anomalies: List[Anomaly]


@dataclass(frozen=True)
class BudgetStatus(Record):
    """One budget in its current period: spend, what remains and the thresholds crossed
    (amounts as the library's decimal strings)."""

    ROW_COLUMNS = ("budget", "spent", "amount", "remaining", "percent_used", "currency", "thresholds_crossed",
                   "exceeded", "period_start", "period_end")
    NOUN = "budget"
    budget: str = ""
    period_start: str = ""
    period_end: str = ""
    currency: str = ""
    amount: str = ""
    spent: str = ""
    remaining: str = ""
    percent_used: str = ""
    thresholds_crossed: List[int] = field(default_factory=list)
    exceeded: bool = False
    document: JsonObject = document_field()


@dataclass(frozen=True)
class AdmissionDecision(Record):
    """May the job be admitted? ``budget`` names the one that decided; with a budget, its
    ``amount``, ``spent`` and the job's ``estimate`` (decimal strings in ``currency``)."""

    allowed: bool = False
    reason: str = ""
    budget: Optional[str] = None
    checked: List[str] = field(default_factory=list)
    currency: str = ""
    amount: str = ""
    spent: str = ""
    estimate: str = ""
    document: JsonObject = document_field()


class _RollupQuery(_ReportRange, total=False):
    granularity: str
    by: List[str]
    endpoint: str
    shared: List[SharedCost]


# The extension converts lists and tuples of dicts (and JSON Lines text); its stub names them
# list[dict[str, object]].
def _records(records: UsageInput) -> Union[str, List[dict[str, object]]]:
    return cast("Union[str, List[dict[str, object]]]", records)


def load_prices(source: Prices) -> PriceBook:
    """A PriceBook from a PriceBook, a dict, YAML/JSON text or a file path."""
    if isinstance(source, PriceBook):
        return source
    if isinstance(source, Mapping):
        return PriceBook.from_dict(dict(source))
    if isinstance(source, str) and ("\n" in source or source.lstrip().startswith("{")):
        return PriceBook.from_text(source)
    return PriceBook.load(os.fspath(source))


def contract_code(error: Error) -> str:
    """The contract-5 code of an estimator error: unknown_price, missing_field or invalid_value."""
    if isinstance(error, NotFoundError):
        return "unknown_price"
    if error.message.startswith("required field is missing"):
        return "missing_field"
    return "invalid_value"


def _dec(value: Optional[str]) -> Optional[Decimal]:
    return None if value is None else Decimal(value)


# ---- estimates ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate(Record):
    """A contract-5 estimate of a job, a pipeline or a use-case render: ``total``, ``currency``
    and the priced ``lines`` (``rows()``, ``to_pandas()``)."""

    COLUMNS = ("step", "item", "resource", "quantity", "unit", "unit_price", "amount")
    data: EstimateDocument = field(metadata={"document": True})

    @property
    def currency(self) -> str:
        """The ISO 4217 code every amount is in."""
        return self.data["currency"]

    @property
    def total(self) -> Decimal:
        """The estimated cost (for a pipeline, every step's; ``total_min`` leaves out steps that may not run)."""
        return Decimal(self.data["total"])

    @property
    def total_min(self) -> Decimal:
        """For a pipeline: the total without steps that may not run (a job: its total)."""
        return Decimal(self.data.get("total_min", self.data["total"]))

    @property
    def is_pipeline(self) -> bool:
        """True when the estimate is of a pipeline (its steps summed), False for one job."""
        return "steps" in self.data

    @property
    def lines(self) -> list[EstimateLine]:
        """Every priced line (with its "step" for a pipeline)."""
        if not self.is_pipeline:
            return list(self.data["lines"])
        return [cast(EstimateLine, dict(line, step=s["step"])) for s in self.data["steps"] for line in s["lines"]]

    # Typed by its keys: an EstimateDocument is the JSON object Record.to_dict promises.
    def to_dict(self) -> EstimateDocument:  # type: ignore[override]
        """The estimate document as the library wrote it."""
        return self.data

    def rows(self) -> list[dict[str, object]]:
        """One dict per priced line (with its ``step`` for a pipeline); quantity, unit_price and
        amount as Decimal."""
        rows: list[dict[str, object]] = []
        for line in self.lines:
            row: dict[str, object] = dict(line)
            for k in ("quantity", "unit_price", "amount"):
                row[k] = Decimal(line[k])
            rows.append(row)
        return rows

    def to_pandas(self) -> DataFrame:
        """The lines as a DataFrame; quantity, unit_price and amount as Decimal."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def caption(self) -> str:
        """The total and its currency."""
        return f"estimate: {self.total} {self.currency}"


def estimate(prices: Prices, spec: Union[str, Document], *, tier: Optional[Union[Tier, str]] = None) -> Estimate:
    """What SPEC (a job, a pipeline or a use-case render; dict or JSON/YAML text) will cost."""
    return Estimate(cast(EstimateDocument, _core.cost_estimate(load_prices(prices), _doc(spec), tier)))


def compare_tiers(prices: Prices, spec: Union[str, Document]) -> TierComparison:
    """On-demand and spot side by side: {"on_demand": Estimate, "spot": Estimate, "savings": Decimal,
    "savings_percent": Decimal}."""
    c = _core.cost_compare_tiers(load_prices(prices), _doc(spec))
    text = cast("Mapping[str, str]", c)  # the currency and the savings as decimal strings
    return TierComparison(currency=text["currency"], on_demand=Estimate(cast(EstimateDocument, c["on_demand"])),
                          spot=Estimate(cast(EstimateDocument, c["spot"])), savings=Decimal(text["savings"]),
                          savings_percent=Decimal(text["savings_percent"]))


def cheapest_gpu(prices: Prices, memory_gib: int, *, gpu_count: int = 1, seconds: int = 3600,
                 tier: Union[Tier, str] = Tier.ON_DEMAND) -> Rows[GpuOption]:
    """GPU types with at least memory_gib of device memory, cheapest first (cost as Decimal)."""
    r = _core.cost_cheapest_gpu(load_prices(prices), {"memory_gib": memory_gib, "gpu_count": gpu_count,
                                                      "seconds": seconds, "tier": tier})
    options = cast("List[Dict[str, str]]", r["options"])  # cost and unit_price as decimal strings
    return Rows(GpuOption.from_dict({**o, "cost": Decimal(o["cost"]), "unit_price": Decimal(o["unit_price"])})
                for o in options)


# ---- metering -------------------------------------------------------------------------------


def meter(prices: Prices, interval: Document) -> UsageRecord:
    """A priced usage record of one interval (computed_cost and its parts as decimal strings)."""
    return cast(UsageRecord, _core.cost_meter(load_prices(prices), dict(interval)))


def usage(records: UsageInput, prices: Optional[Prices] = None) -> list[UsageRecord]:
    """Usage records as dicts; intervals among them are priced with `prices`."""
    return cast(List[UsageRecord], _core.cost_usage(_records(records), load_prices(prices) if prices is not None else None))


def record_usage(store: Store, prices: Prices, interval: Document) -> UsageRecord:
    """Meters `interval` and appends it to `store` (tenant = interval["tenant_id"]); returns the
    stored record (with its ``seq``)."""
    return cast(UsageRecord, _core.cost_record_usage(store, load_prices(prices), dict(interval)))


def load_usage(store: Store, tenant: IdLike, *, start: Optional[TimeLike] = None, end: Optional[TimeLike] = None) -> list[UsageRecord]:
    """A tenant's usage records from a store, oldest first (start/end bound the records' starts)."""
    return cast(List[UsageRecord], _core.cost_load_usage(store, tenant, start, end))


def job_cost(store: Store, tenant: IdLike, job_id: IdLike) -> JobCost:
    """The actual cost of a job from its usage records (amounts as Decimal)."""
    s = _core.cost_job_cost(store, tenant, job_id)
    out: dict[str, object] = dict(s)
    for k in ("gpu_cost", "idle_cost", "cpu_cost", "memory_cost", "storage_cost", "total"):
        out[k] = Decimal(cast(str, s[k]))
    return JobCost.from_dict(out)


# ---- reports --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Table(Record):
    """Rows of dicts with decimal-string amounts; shared by Report and Rollup."""

    _money: ClassVar[tuple[str, ...]] = ()
    _quantities: ClassVar[tuple[str, ...]] = ()
    data: ReportDocument = field(metadata={"document": True})

    @property
    def currency(self) -> str:
        """The ISO 4217 code every amount is in."""
        return self.data["currency"]

    @property
    def by(self) -> list[str]:
        """The dimensions the rows are grouped by (``project``, ``job_type``, ...)."""
        return list(self.data["by"])

    def rows(self) -> list[dict[str, object]]:
        """One dict per group: the group's keys, then its amounts and quantities (decimal strings)."""
        return [dict(r) for r in self.data["rows"]]

    # Typed by its keys: a ReportDocument is the JSON object Record.to_dict promises.
    def to_dict(self) -> ReportDocument:  # type: ignore[override]
        """The document as the library wrote it."""
        return self.data

    def caption(self) -> str:
        """The row count and what the rows are grouped by."""
        return f"{len(self)} rows by {', '.join(self.by) or 'nothing'} ({self.currency})"

    def _repr_html_(self) -> str:
        return html_table(self.rows(), tuple(self._columns()), self.caption())

    def to_pandas(self) -> DataFrame:
        """The rows as a DataFrame; amounts and quantities as Decimal."""
        import pandas as pd

        rows: list[dict[str, object]] = []
        for r in self.rows():
            row: dict[str, object] = dict(r)
            for k in self._money + self._quantities:
                if k in row:
                    row[k] = Decimal(cast(str, row[k]))
            rows.append(row)
        return pd.DataFrame(rows, columns=self._columns())

    def to_csv(self) -> str:
        """The rows as CSV text (a header line, amounts exact)."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        cols = self._columns()
        w.writerow(cols)
        for r in self.rows():
            w.writerow([r.get(c, "") for c in cols])
        return out.getvalue()

    def _columns(self) -> list[str]:
        return list(self.data["rows"][0].keys()) if self.data["rows"] else self.by

    def __len__(self) -> int:
        return len(self.data["rows"])


@dataclass(frozen=True)
class Report(_Table):
    """A chargeback/showback report: direct cost per group plus allocated shared costs."""

    _money: ClassVar[tuple[str, ...]] = ("direct", "idle", "shared", "total")
    _quantities: ClassVar[tuple[str, ...]] = ("gpu_seconds", "idle_gpu_seconds", "share_percent")

    @property
    def total(self) -> Decimal:
        """Direct plus shared cost of every row."""
        return Decimal(self.data["total"])

    @property
    def total_direct(self) -> Decimal:
        """The cost metered to the rows' own jobs."""
        return Decimal(self.data["total_direct"])

    @property
    def total_shared(self) -> Decimal:
        """The shared costs (``--shared NAME=AMOUNT``) allocated to the rows."""
        return Decimal(self.data["total_shared"])

    def plot(self, ax: Optional[Axes] = None, *, title: Optional[str] = None) -> Axes:
        """A stacked bar chart of direct and shared cost per group; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 4))
        rows = self.rows()
        labels = [" / ".join(str(r[b]) or "(none)" for b in self.by) for r in rows]
        direct = [float(Decimal(cast(str, r["direct"]))) for r in rows]  # plotting only
        shared = [float(Decimal(cast(str, r["shared"]))) for r in rows]
        ax.bar(labels, direct, label="direct")
        ax.bar(labels, shared, bottom=direct, label="shared")
        ax.set_ylabel(f"cost ({self.currency})")
        ax.set_title(title or "Cost by " + ", ".join(self.by))
        ax.legend()
        ax.tick_params(axis="x", labelrotation=30)
        return ax


@dataclass(frozen=True)
class Rollup(_Table):
    """Usage per time bucket and group."""

    _money: ClassVar[tuple[str, ...]] = ("cost", "idle_cost")
    _quantities: ClassVar[tuple[str, ...]] = ("seconds", "gpu_seconds", "idle_gpu_seconds", "cpu_core_seconds", "memory_gib_seconds")

    @property
    def granularity(self) -> Granularity:
        """The width of each period: ``total``, ``minute``, ``hour``, ``day`` or ``month``."""
        return _member(Granularity, self.data["granularity"])

    def to_pandas(self) -> DataFrame:
        """The rows as a DataFrame, ``bucket`` as UTC timestamps. Requires pandas."""
        frame = super().to_pandas()
        if "bucket" in frame and self.granularity != "total":
            import pandas as pd

            frame["bucket"] = pd.to_datetime(frame["bucket"], utc=True)
        return frame

    def plot(self, ax: Optional[Axes] = None, *, value: str = "cost", title: Optional[str] = None) -> Axes:
        """Cost (or another column) over time, one line per group; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 4))
        frame = self.to_pandas()
        if frame.empty:
            return ax
        frame[value] = frame[value].astype(float)  # plotting only
        key = frame[self.by].astype(str).agg(" / ".join, axis=1) if self.by else "all"
        frame = frame.assign(group=key)
        for name, part in frame.groupby("group"):
            ax.plot(part["bucket"], part[value], marker="o", label=name)
        ax.set_ylabel(value + (f" ({self.currency})" if value in self._money else ""))
        ax.set_title(title or f"{value} per {self.granularity}")
        ax.legend()
        return ax


def _query(by: Union[str, Sequence[str], None], granularity: Union[Granularity, str], start: Optional[TimeLike], end: Optional[TimeLike],
           shared: Optional[Mapping[str, Union[str, Decimal]]]) -> _RollupQuery:
    q: _RollupQuery = {"granularity": granularity}
    if by is not None:
        q["by"] = [by] if isinstance(by, str) else list(by)
    if start is not None:
        q["from"] = _time(start)
    if end is not None:
        q["to"] = _time(end)
    if shared:
        q["shared"] = [{"name": k, "amount": str(v)} for k, v in dict(shared).items()]
    return q


def report(records: UsageInput, *, by: Union[str, Sequence[str]] = ("tenant",),
           shared: Optional[Mapping[str, Union[str, Decimal]]] = None, prices: Optional[Prices] = None,
           start: Optional[TimeLike] = None, end: Optional[TimeLike] = None) -> Report:
    """Chargeback by any dimensions (tenant, project, job, pipeline, cluster, node, gpu_type,
    sharing_mode, tier, job_type, "label:<key>"); `shared` {name: amount} is allocated by usage
    share. Records may be usage records or intervals (priced with `prices`)."""
    book = load_prices(prices) if prices is not None else None
    return Report(cast(ReportDocument, _core.cost_report(_records(records), _json(_query(by, "total", start, end, shared)), book)))


def rollup(records: UsageInput, *, granularity: Union[Granularity, str] = Granularity.HOUR, by: Union[str, Sequence[str]] = (),
           prices: Optional[Prices] = None, start: Optional[TimeLike] = None, end: Optional[TimeLike] = None) -> Rollup:
    """Usage per minute/hour/day/month (UTC) and group; records crossing a bucket are split exactly."""
    book = load_prices(prices) if prices is not None else None
    return Rollup(cast(ReportDocument, _core.cost_report(_records(records), _json(_query(by, granularity, start, end, None)), book)))


@dataclass(frozen=True)
class ServerlessRollup(Rollup):
    """Serverless spend per endpoint and time bucket: worker jobs, GPU-seconds and cost, each
    split into busy (a request in flight) and idle (cold starts included)."""

    _money: ClassVar[tuple[str, ...]] = ("cost", "busy_cost", "idle_cost")
    _quantities: ClassVar[tuple[str, ...]] = ("gpu_seconds", "busy_gpu_seconds", "idle_gpu_seconds")

    @property
    def endpoint(self) -> Optional[str]:
        """The endpoint the report is limited to (None: every endpoint)."""
        return self.data["endpoint"]


def serverless_rollup(records: UsageInput, *, endpoint: Optional[str] = None,
                      granularity: Union[Granularity, str] = Granularity.HOUR,
                      prices: Optional[Prices] = None, start: Optional[TimeLike] = None, end: Optional[TimeLike] = None) -> ServerlessRollup:
    """Serverless spend per endpoint per hour (or minute/day/month, UTC): the usage records
    labelled ``serverless_endpoint`` (the rows a platform endpoint's ``meter()`` writes), summed
    per bucket and endpoint; records crossing a bucket are split exactly. Bad input raises
    :class:`budcore.ValidationError` naming the field (``"endpoint"``, ``"granularity"``)."""
    book = load_prices(prices) if prices is not None else None
    q: _RollupQuery = {"granularity": granularity}
    if endpoint is not None:
        q["endpoint"] = endpoint
    if start is not None:
        q["from"] = _time(start)
    if end is not None:
        q["to"] = _time(end)
    return ServerlessRollup(cast(ReportDocument, _core.cost_serverless_report(_records(records), _json(q), book)))


def rollup_arrays(start_seconds: numpy.typing.ArrayLike, tenant: numpy.typing.ArrayLike, gpu_type: numpy.typing.ArrayLike,
                  gpu_nanos: numpy.typing.ArrayLike, cost_pico: numpy.typing.ArrayLike, *,
                  granularity: Union[Granularity, str] = Granularity.HOUR,
                  threads: int = 0) -> dict[str, numpy.typing.NDArray[numpy.generic]]:
    """The columnar fast path over numpy arrays (int64 start seconds, int32 dictionary codes,
    int64 GPU nano-seconds and pico-unit costs): bucket x tenant x gpu_type sums as numpy
    arrays. Sums that do not fit int64 come back as exact Python ints (object arrays)."""
    import numpy as np

    return _core.cost_rollup_arrays(np.ascontiguousarray(start_seconds, dtype=np.int64),
                                    np.ascontiguousarray(tenant, dtype=np.int32),
                                    np.ascontiguousarray(gpu_type, dtype=np.int32),
                                    np.ascontiguousarray(gpu_nanos, dtype=np.int64),
                                    np.ascontiguousarray(cost_pico, dtype=np.int64), granularity, threads)


# ---- forecasts and budgets ------------------------------------------------------------------


@dataclass(frozen=True)
class Forecast(Record):
    """The month-end forecast (least squares over the month's days) and recent anomalies."""

    COLUMNS = ("day", "cost", "anomaly")
    data: ForecastDocument = field(metadata={"document": True})

    @property
    def month_to_date(self) -> Decimal:
        """The spend of the month so far."""
        return Decimal(self.data["forecast"]["month_to_date"])

    @property
    def forecast_total(self) -> Decimal:
        """The month's expected spend at its end (the trend continued)."""
        return Decimal(self.data["forecast"]["forecast_total"])

    @property
    def anomalies(self) -> list[Anomaly]:
        """Days whose spend is 3 or more standard deviations from the 14 days before them."""
        return list(self.data["anomalies"])

    # Typed by its keys: a ForecastDocument is the JSON object Record.to_dict promises.
    def to_dict(self) -> ForecastDocument:  # type: ignore[override]
        """The forecast document as the library wrote it."""
        return self.data

    def rows(self) -> list[dict[str, object]]:
        """Daily totals: day (RFC 3339), cost as Decimal, whether the day is an anomaly."""
        spikes = {a["day"] for a in self.data["anomalies"]}
        return [{"day": d["day"], "cost": Decimal(d["cost"]), "anomaly": d["day"] in spikes} for d in self.data["daily"]]

    def caption(self) -> str:
        """The month to date and the forecast month end."""
        return f"month to date {self.month_to_date}, forecast {self.forecast_total} {self.data['forecast']['currency']}"

    def to_pandas(self) -> DataFrame:
        """Daily totals (day as a timestamp, cost as Decimal, anomaly flag)."""
        import pandas as pd

        frame = pd.DataFrame(self.rows(), columns=list(self.COLUMNS))
        frame["day"] = pd.to_datetime(frame["day"])
        return frame

    def plot(self, ax: Optional[Axes] = None) -> Axes:
        """The daily spend and the forecast month end as a matplotlib chart; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 4))
        frame = self.to_pandas()
        ax.bar(frame["day"], frame["cost"].astype(float), color=["tab:red" if a else "tab:blue" for a in frame["anomaly"]])
        ax.set_title(f"Daily cost; month-end forecast {self.forecast_total} {self.data['forecast']['currency']}")
        return ax


def forecast(records: UsageInput, *, now: Optional[TimeLike] = None, prices: Optional[Prices] = None) -> Forecast:
    """Month-end spend forecast as of `now` (default: the system clock) and daily anomalies."""
    book = load_prices(prices) if prices is not None else None
    return Forecast(cast(ForecastDocument, _core.cost_forecast(_records(records), now, book)))


Budgets = Union[str, Document]


def budget_status(budgets: Budgets, records: UsageInput, prices: Prices, *, now: Optional[TimeLike] = None) -> Rows[BudgetStatus]:
    """Spend, thresholds crossed and remaining per budget in the period of `now`."""
    out = _core.cost_budget_status(_doc(budgets), _records(records), load_prices(prices), now)
    return Rows(BudgetStatus.from_dict(b) for b in out)


def check_budget(budgets: Budgets, records: UsageInput, prices: Prices, *, tenant: IdLike, estimate: Union[str, Decimal, Money],
                 project: Optional[IdLike] = None, job: str = "", now: Optional[TimeLike] = None) -> AdmissionDecision:
    """May a job of this tenant/project with this estimated cost be admitted? {"allowed", "reason", ...}."""
    return AdmissionDecision.from_dict(_core.cost_check_admission(_doc(budgets), _records(records), load_prices(prices),
                                                                  tenant, project, str(estimate), job, now))


def admit_job(store: Store, budgets: Budgets, prices: Prices, job: Union[Job, Document], *,
              now: Optional[TimeLike] = None) -> AdmissionDecision:
    """The admission gate: estimates `job` and checks it against the budgets with spend from `store`."""
    if not isinstance(job, Job):
        job = Job.from_dict(dict(job))
    return AdmissionDecision.from_dict(_core.cost_admit_job(store, _doc(budgets), load_prices(prices), job, now))


# ---- helpers --------------------------------------------------------------------------------


def _doc(value: Union[str, Document]) -> Union[str, dict[str, object]]:
    return value if isinstance(value, str) else dict(value)


def _json(query: _RollupQuery) -> dict[str, object]:
    return cast("dict[str, object]", query)  # a TypedDict is the dict itself


def _time(value: TimeLike) -> str:
    if hasattr(value, "isoformat"):
        when = cast("datetime.datetime", value)
        if getattr(when, "tzinfo", None) is None:
            import datetime

            when = when.replace(tzinfo=datetime.timezone.utc)
        return when.isoformat()
    return str(value)
