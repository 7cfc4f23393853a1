"""budcore.kueue: the Kueue companion's budget and window checks (docs/kueue-companion.md).

The companion answers Kueue AdmissionChecks beside any Kueue; these are its decisions as pure
functions, to try a configuration or a Workload before the controller runs it:

    summary = budcore.kueue.check_config(open("companion.yaml").read())
    d = budcore.kueue.decide(config, workload, spent={"team-a": "70.00 USD"},
                             now="2026-11-28T12:00:00Z")
    d["budget"]["state"]        # "Ready", "Retry" or "Rejected"
    d["window"]["message"]      # why not now, and the next opening

The controller itself runs as ``budcore kueue companion --config FILE``, or from Python:

    with budcore.kueue.Companion(config, kubeconfig="/etc/budcore/kubeconfig",
                                 store="sqlite:///var/lib/budcore/companion.db") as c:
        c.sync_once()                        # one pass, as --once
        c.run(on_event=print)                # until c.stop() from another thread, or Ctrl-C
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from typing import Callable, List, Mapping, Optional, TypedDict, Union, cast

from ._core import kueue_companion_decide, kueue_companion_open, kueue_companion_summary
from .enums import CheckState
from .results import Record, Rows, document_field
from .types import Document, ErrorDocument, JsonObject

__all__ = ["CheckDecision", "Companion", "CompanionEvent", "ConfigSummary", "ControllerSummary", "Decision",
           "EstimatesSummary", "LeaderElectionSummary", "Pass", "WorkloadPrice", "WrittenDecision", "check_config",
           "decide"]

Config = Union[str, Document]


class ControllerSummary(TypedDict):
    """A controller of the configuration: its name and the checks it answers."""

    name: str
    checks: List[str]


class EstimatesSummary(TypedDict):
    """Whether the companion writes start estimates, how often and with how many writers."""

    enabled: bool
    refresh_seconds: int
    writers: int


class LeaderElectionSummary(TypedDict):
    """The Lease the replicas elect a leader with, and its timings."""

    lease_name: str
    namespace: str
    identity: str
    lease_duration_seconds: int
    renew_deadline_seconds: int
    retry_period_seconds: int


@dataclass(frozen=True)
class ConfigSummary(Record):
    """:func:`check_config`: what a valid configuration holds (``tenants`` counts its rules);
    ``leader_election`` when it has one."""

    controllers: List[ControllerSummary] = field(default_factory=list)
    cluster_queues: List[str] = field(default_factory=list)
    tenants: int = 0
    budgets: List[str] = field(default_factory=list)
    currency: str = ""
    estimates: Optional[EstimatesSummary] = None
    leader_election: Optional[LeaderElectionSummary] = None
    document: JsonObject = document_field()


@dataclass(frozen=True)
class CheckDecision(Record):
    """One check's answer: ``state`` (a :class:`budcore.CheckState`: Ready, Retry or Rejected)
    and why; a Retry has ``requeue_after_seconds``; ``estimate``, ``tenant_id`` and ``budget``
    when known."""

    check: str = ""
    state: CheckState = field(default=CheckState.READY, metadata={"enum": CheckState})
    message: str = ""
    requeue_after_seconds: Optional[int] = None
    estimate: Optional[str] = None
    tenant_id: Optional[str] = None
    budget: Optional[str] = None
    document: JsonObject = document_field()


class WorkloadPrice(TypedDict):
    """What a Workload costs: ``total`` (an amount with its currency), the duration priced and
    where it came from, and the priced lines as text."""

    total: str
    duration_seconds: int
    duration_source: str
    lines: List[str]


@dataclass(frozen=True)
class Decision(Record):
    """:func:`decide`: the budget and window checks of one Workload, its ``tenant_id`` when a rule
    names it, and its ``price`` (or ``price_error`` when it cannot be priced)."""

    budget: CheckDecision = field(default_factory=CheckDecision)
    window: CheckDecision = field(default_factory=CheckDecision)
    tenant_id: Optional[str] = None
    price: Optional[WorkloadPrice] = None
    price_error: Optional[ErrorDocument] = None
    document: JsonObject = document_field()

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> "Decision":
        """The decision of the library's document, each check a :class:`CheckDecision`."""
        decision = super().from_dict(d)
        return dataclasses.replace(decision, budget=CheckDecision.from_dict(cast(JsonObject, d["budget"])),
                                   window=CheckDecision.from_dict(cast(JsonObject, d["window"])))


@dataclass(frozen=True)
class WrittenDecision(CheckDecision):
    """A decision the controller wrote: the Workload (``namespace/name``) and its AdmissionCheck."""

    ROW_COLUMNS = ("workload", "admission_check", "check", "state", "message", "requeue_after_seconds")
    NOUN = "decision"
    workload: str = ""
    admission_check: str = ""


@dataclass(frozen=True)
class Pass(Record):
    """:meth:`Companion.sync_once`: whether this replica led, the AdmissionChecks it marked
    Active, the decisions it wrote (``rows()``) and the errors it will retry; ``identity`` with
    leader election."""

    COLUMNS = WrittenDecision.ROW_COLUMNS
    leader: bool = False
    identity: Optional[str] = None
    admission_checks: List[str] = field(default_factory=list)
    written: Rows[WrittenDecision] = field(default_factory=Rows)
    retrying: List[ErrorDocument] = field(default_factory=list)
    document: JsonObject = document_field()

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> "Pass":
        """The pass of the library's document, each written decision a :class:`WrittenDecision`."""
        one = super().from_dict(d)
        written = cast(List[JsonObject], d.get("written") or [])
        return dataclasses.replace(one, written=Rows(WrittenDecision.from_dict(w) for w in written))

    def rows(self) -> list[dict[str, object]]:
        """One dict per decision written."""
        return self.written.rows()


class CompanionEvent(TypedDict, total=False):
    """What :meth:`Companion.run` passes ``on_event``: ``event`` is ``"decision"`` (with a
    :class:`WrittenDecision`'s keys) or ``"retrying"`` (with the ``error``)."""

    event: str
    check: str
    state: str
    message: str
    requeue_after_seconds: int
    estimate: str
    tenant_id: str
    budget: str
    workload: str
    admission_check: str
    error: ErrorDocument


def check_config(config: Config, *, base_dir: str = ".") -> ConfigSummary:
    """Validates a companion configuration (YAML/JSON text or a dict; file names in it are
    relative to ``base_dir``) and returns its summary: ``controllers`` (name and checks),
    ``cluster_queues``, ``tenants`` (how many rules), ``budgets`` (names) and ``currency``.
    An invalid one raises ValidationError naming the field."""
    return ConfigSummary.from_dict(kueue_companion_summary(config if isinstance(config, str) else dict(config), base_dir))


def decide(config: Config, workload: Document, *, spent: Optional[Mapping[str, str]] = None,
           now: Union[str, _dt.datetime, None] = None, owner_annotations: Optional[Mapping[str, str]] = None,
           base_dir: str = ".") -> Decision:
    """The budget and window checks for one Workload (a ``kueue.x-k8s.io`` Workload object as a
    dict). ``spent`` is each budget's spend so far in its period (``{"team-a": "12.00 USD"}``),
    ``now`` the time of the decision (RFC 3339 text or an aware datetime; default: now, UTC).
    Returns ``{"tenant_id"?, "price" | "price_error", "budget", "window"}``; each decision has
    ``check``, ``state`` ("Ready", "Retry", "Rejected"), ``message`` and, for a Retry,
    ``requeue_after_seconds``."""
    if now is None:
        now = _dt.datetime.now(_dt.timezone.utc)
    if isinstance(now, _dt.datetime):
        if now.tzinfo is None:
            raise ValueError("now: a datetime with a time zone (naive times are ambiguous)")
        now = now.astimezone(_dt.timezone.utc).isoformat().replace("+00:00", "Z")
    request: dict[str, object] = {"workload": dict(workload), "now": now}
    if spent is not None:
        request["spent"] = dict(spent)
    if owner_annotations is not None:
        request["owner_annotations"] = dict(owner_annotations)
    return Decision.from_dict(kueue_companion_decide(config if isinstance(config, str) else dict(config), request, base_dir))


class Companion:
    """The companion controller on a cluster with a Store, as ``budcore kueue companion`` runs
    it. ``config`` is the configuration (YAML/JSON text or a dict; file names in it relative to
    ``base_dir``), ``kubeconfig`` a kubeconfig file (default: the configuration's, else
    ``$KUBECONFIG``, ``~/.kube/config``, in-cluster), ``store`` a store URI (default: the
    configuration's, else ``sqlite:budcore-companion.db``). A bad input raises ValidationError
    naming it (``kubeconfig``, ``store`` or the configuration's field) with the value and why.
    One thread drives it at a time; ``stop()`` may be called from any."""

    def __init__(self, config: Config, *, kubeconfig: Optional[str] = None, store: Optional[str] = None,
                 base_dir: str = ".") -> None:
        self._handle = kueue_companion_open(config if isinstance(config, str) else dict(config),
                                            kubeconfig or "", store or "", base_dir)

    def sync_once(self) -> Pass:
        """One pass (``--once``): with leader election one attempt at the Lease, then the
        AdmissionChecks marked Active, every Workload listed, its runs metered and its pending
        checks answered, and the Lease released. Returns ``{"leader", "identity"?,
        "admission_checks", "written", "retrying"}``; ``leader`` is False (and nothing
        written) when another replica holds the Lease."""
        return Pass.from_dict(self._handle.sync_once())

    def run(self, on_event: Optional[Callable[[CompanionEvent], object]] = None) -> None:
        """Runs until ``stop()`` (from another thread), ``on_event`` returning False, or a signal
        (Ctrl-C raises KeyboardInterrupt after the controller has stopped and released its
        Lease; an exception in ``on_event`` stops it the same way). ``on_event`` gets each event:
        ``{"event": "decision", "workload", "admission_check", "state", "message", ...}`` or
        ``{"event": "retrying", "error": {...}}``; a return of None counts as True."""
        callback = None if on_event is None else (lambda e: on_event(cast(CompanionEvent, e)) is not False)
        self._handle.run(callback)

    def stop(self) -> None:
        """Asks a running ``run()`` to return after its current pass; a later run returns at once."""
        self._handle.stop()

    def close(self) -> None:
        """Closes the controller's client and Store; later calls raise."""
        self._handle.close()

    def __enter__(self) -> "Companion":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
