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
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union

from ._core import Error, Job, NotFoundError, PriceBook, Store
from . import _core

if TYPE_CHECKING:  # names the annotations use
    import datetime
    import uuid

    from ._core import Money

__all__ = [
    "Budgets",
    "Estimate",
    "Forecast",
    "PriceBook",
    "Report",
    "Rollup",
    "ServerlessRollup",
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
Prices = Union[PriceBook, Mapping[str, Any], PathLike]
UsageInput = Union[str, Sequence[Mapping[str, Any]]]
IdLike = Union[str, "uuid.UUID"]  # a tenant, project or job id
TimeLike = Union["datetime.datetime", str]  # a datetime (naive: UTC) or RFC 3339 text


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
class Estimate:
    """A contract-5 estimate of a job, a pipeline or a use-case render."""

    data: dict[str, Any]

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
    def lines(self) -> list[dict[str, Any]]:
        """Every priced line (with its "step" for a pipeline)."""
        if not self.is_pipeline:
            return list(self.data["lines"])
        return [dict(line, step=s["step"]) for s in self.data["steps"] for line in s["lines"]]

    def to_dict(self) -> dict[str, Any]:
        """The estimate document as the library wrote it."""
        return self.data

    def to_pandas(self):
        """The lines as a DataFrame; quantity, unit_price and amount as Decimal."""
        import pandas as pd

        rows = []
        for line in self.lines:
            row = dict(line)
            for k in ("quantity", "unit_price", "amount"):
                row[k] = Decimal(row[k])
            rows.append(row)
        return pd.DataFrame(rows)


def estimate(prices: Prices, spec: Union[str, Mapping[str, Any]], *, tier: Optional[str] = None) -> Estimate:
    """What SPEC (a job, a pipeline or a use-case render; dict or JSON/YAML text) will cost."""
    return Estimate(_core.cost_estimate(load_prices(prices), _doc(spec), tier))


def compare_tiers(prices: Prices, spec: Union[str, Mapping[str, Any]]) -> dict[str, Any]:
    """On-demand and spot side by side: {"on_demand": Estimate, "spot": Estimate, "savings": Decimal,
    "savings_percent": Decimal}."""
    c = _core.cost_compare_tiers(load_prices(prices), _doc(spec))
    return {
        "currency": c["currency"],
        "on_demand": Estimate(c["on_demand"]),
        "spot": Estimate(c["spot"]),
        "savings": Decimal(c["savings"]),
        "savings_percent": Decimal(c["savings_percent"]),
    }


def cheapest_gpu(prices: Prices, memory_gib: int, *, gpu_count: int = 1, seconds: int = 3600,
                 tier: str = "on_demand") -> list[dict[str, Any]]:
    """GPU types with at least memory_gib of device memory, cheapest first (cost as Decimal)."""
    r = _core.cost_cheapest_gpu(load_prices(prices), {"memory_gib": memory_gib, "gpu_count": gpu_count,
                                                      "seconds": seconds, "tier": tier})
    return [dict(o, cost=Decimal(o["cost"]), unit_price=Decimal(o["unit_price"])) for o in r["options"]]


# ---- metering -------------------------------------------------------------------------------


def meter(prices: Prices, interval: Mapping[str, Any]) -> dict[str, Any]:
    """A priced usage record of one interval (computed_cost and its parts as decimal strings)."""
    return _core.cost_meter(load_prices(prices), dict(interval))


def usage(records: UsageInput, prices: Optional[Prices] = None) -> list[dict[str, Any]]:
    """Usage records as dicts; intervals among them are priced with `prices`."""
    return _core.cost_usage(records, load_prices(prices) if prices is not None else None)


def record_usage(store: Store, prices: Prices, interval: Mapping[str, Any]) -> dict[str, Any]:
    """Meters `interval` and appends it to `store` (tenant = interval["tenant_id"])."""
    return _core.cost_record_usage(store, load_prices(prices), dict(interval))


def load_usage(store: Store, tenant: IdLike, *, start: Optional[TimeLike] = None, end: Optional[TimeLike] = None) -> list[dict[str, Any]]:
    """A tenant's usage records from a store, oldest first (start/end bound the records' starts)."""
    return _core.cost_load_usage(store, tenant, start, end)


def job_cost(store: Store, tenant: IdLike, job_id: IdLike) -> dict[str, Any]:
    """The actual cost of a job from its usage records (amounts as Decimal)."""
    s = _core.cost_job_cost(store, tenant, job_id)
    for k in ("gpu_cost", "idle_cost", "cpu_cost", "memory_cost", "storage_cost", "total"):
        s[k] = Decimal(s[k])
    return s


# ---- reports --------------------------------------------------------------------------------


class _Table:
    """Rows of dicts with decimal-string amounts; shared by Report and Rollup."""

    _money = ()
    _quantities = ()

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    @property
    def currency(self) -> str:
        """The ISO 4217 code every amount is in."""
        return self.data["currency"]

    @property
    def by(self) -> list[str]:
        """The dimensions the rows are grouped by (``project``, ``job_type``, ...)."""
        return list(self.data["by"])

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One dict per group, amounts as Decimal."""
        return list(self.data["rows"])

    def to_dict(self) -> dict[str, Any]:
        """The document as the library wrote it."""
        return self.data

    def to_pandas(self):
        """The rows as a DataFrame; amounts and quantities as Decimal."""
        import pandas as pd

        rows = []
        for r in self.rows:
            row = dict(r)
            for k in self._money + self._quantities:
                if k in row:
                    row[k] = Decimal(row[k])
            rows.append(row)
        return pd.DataFrame(rows, columns=self._columns())

    def to_csv(self) -> str:
        """The rows as CSV text (a header line, amounts exact)."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        cols = self._columns()
        w.writerow(cols)
        for r in self.rows:
            w.writerow([r.get(c, "") for c in cols])
        return out.getvalue()

    def _columns(self) -> list[str]:
        return list(self.data["rows"][0].keys()) if self.data["rows"] else self.by

    def __len__(self) -> int:
        return len(self.data["rows"])


class Report(_Table):
    """A chargeback/showback report: direct cost per group plus allocated shared costs."""

    _money = ("direct", "idle", "shared", "total")
    _quantities = ("gpu_seconds", "idle_gpu_seconds", "share_percent")

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

    def plot(self, ax=None, *, title: Optional[str] = None):
        """A stacked bar chart of direct and shared cost per group (matplotlib Axes)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 4))
        labels = [" / ".join(str(r[b]) or "(none)" for b in self.by) for r in self.rows]
        direct = [float(Decimal(r["direct"])) for r in self.rows]  # plotting only
        shared = [float(Decimal(r["shared"])) for r in self.rows]
        ax.bar(labels, direct, label="direct")
        ax.bar(labels, shared, bottom=direct, label="shared")
        ax.set_ylabel(f"cost ({self.currency})")
        ax.set_title(title or "Cost by " + ", ".join(self.by))
        ax.legend()
        ax.tick_params(axis="x", labelrotation=30)
        return ax


class Rollup(_Table):
    """Usage per time bucket and group."""

    _money = ("cost", "idle_cost")
    _quantities = ("seconds", "gpu_seconds", "idle_gpu_seconds", "cpu_core_seconds", "memory_gib_seconds")

    @property
    def granularity(self) -> str:
        """The width of each period: ``total``, ``minute``, ``hour``, ``day`` or ``month``."""
        return self.data["granularity"]

    def to_pandas(self):
        """The rows as a DataFrame, ``period`` as UTC timestamps. Requires pandas."""
        frame = super().to_pandas()
        if "bucket" in frame and self.granularity != "total":
            import pandas as pd

            frame["bucket"] = pd.to_datetime(frame["bucket"], utc=True)
        return frame

    def plot(self, ax=None, *, value: str = "cost", title: Optional[str] = None):
        """Cost (or another column) over time, one line per group (matplotlib Axes)."""
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


def _query(by, granularity, start, end, shared) -> dict[str, Any]:
    q: dict[str, Any] = {"granularity": granularity}
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
    return Report(_core.cost_report(records, _query(by, "total", start, end, shared), book))


def rollup(records: UsageInput, *, granularity: str = "hour", by: Union[str, Sequence[str]] = (),
           prices: Optional[Prices] = None, start: Optional[TimeLike] = None, end: Optional[TimeLike] = None) -> Rollup:
    """Usage per minute/hour/day/month (UTC) and group; records crossing a bucket are split exactly."""
    book = load_prices(prices) if prices is not None else None
    return Rollup(_core.cost_report(records, _query(by, granularity, start, end, None), book))


class ServerlessRollup(Rollup):
    """Serverless spend per endpoint and time bucket: worker jobs, GPU-seconds and cost, each
    split into busy (a request in flight) and idle (cold starts included)."""

    _money = ("cost", "busy_cost", "idle_cost")
    _quantities = ("gpu_seconds", "busy_gpu_seconds", "idle_gpu_seconds")

    @property
    def endpoint(self) -> Optional[str]:
        """The endpoint the report is limited to (None: every endpoint)."""
        return self.data["endpoint"]


def serverless_rollup(records: UsageInput, *, endpoint: Optional[str] = None, granularity: str = "hour",
                      prices: Optional[Prices] = None, start: Optional[TimeLike] = None, end: Optional[TimeLike] = None) -> ServerlessRollup:
    """Serverless spend per endpoint per hour (or minute/day/month, UTC): the usage records
    labelled ``serverless_endpoint`` (the rows a platform endpoint's ``meter()`` writes), summed
    per bucket and endpoint; records crossing a bucket are split exactly. Bad input raises
    :class:`budcore.ValidationError` naming the field (``"endpoint"``, ``"granularity"``)."""
    book = load_prices(prices) if prices is not None else None
    q: dict[str, Any] = {"granularity": granularity}
    if endpoint is not None:
        q["endpoint"] = endpoint
    if start is not None:
        q["from"] = _time(start)
    if end is not None:
        q["to"] = _time(end)
    return ServerlessRollup(_core.cost_serverless_report(records, q, book))


def rollup_arrays(start_seconds, tenant, gpu_type, gpu_nanos, cost_pico, *, granularity: str = "hour",
                  threads: int = 0) -> dict[str, Any]:
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
class Forecast:
    """The month-end forecast (least squares over the month's days) and recent anomalies."""

    data: dict[str, Any]

    @property
    def month_to_date(self) -> Decimal:
        """The spend of the month so far."""
        return Decimal(self.data["forecast"]["month_to_date"])

    @property
    def forecast_total(self) -> Decimal:
        """The month's expected spend at its end (the trend continued)."""
        return Decimal(self.data["forecast"]["forecast_total"])

    @property
    def anomalies(self) -> list[dict[str, Any]]:
        """Days whose spend is 3 or more standard deviations from the 14 days before them."""
        return list(self.data["anomalies"])

    def to_dict(self) -> dict[str, Any]:
        """The forecast document as the library wrote it."""
        return self.data

    def to_pandas(self):
        """Daily totals (day, cost as Decimal, anomaly flag)."""
        import pandas as pd

        spikes = {a["day"] for a in self.data["anomalies"]}
        return pd.DataFrame([{"day": pd.Timestamp(d["day"]), "cost": Decimal(d["cost"]), "anomaly": d["day"] in spikes}
                             for d in self.data["daily"]])

    def plot(self, ax=None):
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
    return Forecast(_core.cost_forecast(records, now, book))


Budgets = Union[str, Mapping[str, Any]]


def budget_status(budgets: Budgets, records: UsageInput, prices: Prices, *, now: Optional[TimeLike] = None) -> list[dict[str, Any]]:
    """Spend, thresholds crossed and remaining per budget in the period of `now`."""
    return _core.cost_budget_status(_doc(budgets), records, load_prices(prices), now)


def check_budget(budgets: Budgets, records: UsageInput, prices: Prices, *, tenant: IdLike, estimate: Union[str, Decimal, Money],
                 project: Optional[IdLike] = None, job: str = "", now: Optional[TimeLike] = None) -> dict[str, Any]:
    """May a job of this tenant/project with this estimated cost be admitted? {"allowed", "reason", ...}."""
    return _core.cost_check_admission(_doc(budgets), records, load_prices(prices), tenant, project, str(estimate), job, now)


def admit_job(store: Store, budgets: Budgets, prices: Prices, job: Union[Job, Mapping[str, Any]], *,
              now: Optional[TimeLike] = None) -> dict[str, Any]:
    """The admission gate: estimates `job` and checks it against the budgets with spend from `store`."""
    if not isinstance(job, Job):
        job = Job.from_dict(dict(job))
    return _core.cost_admit_job(store, _doc(budgets), load_prices(prices), job, now)


# ---- helpers --------------------------------------------------------------------------------


def _doc(value: Union[str, Mapping[str, Any]]) -> Any:
    return value if isinstance(value, str) else dict(value)


def _time(value: TimeLike) -> str:
    if hasattr(value, "isoformat"):
        if getattr(value, "tzinfo", None) is None:
            import datetime

            value = value.replace(tzinfo=datetime.timezone.utc)
        return value.isoformat()
    return str(value)
