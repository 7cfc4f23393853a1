"""budcore.serverless: a request trace replayed through a serverless endpoint.

:func:`simulate` runs ``budcore serverless simulate`` (docs/serverless.md): the trace (the
Azure LLM inference format) goes through the endpoint's request queue, warm pool and one or more
autoscaling policies on a virtual clock. The result is a :class:`ServerlessSimulation` record of
what the CLI prints with ``--format json`` (``reports``, one per policy; its ``to_dict()``), with
``.to_pandas()`` (a row per policy) and ``.report(policy)``.

    s = budcore.serverless.simulate("endpoint.yaml", "trace.csv", policy="all")
    s.to_pandas()[["policy", "wait_p95", "cold_starts", "cost"]]

:class:`DurableQueue` is an endpoint's request queue kept in a store (docs/serverless.md
"Durable queue"): requests survive the process that accepted them and the workers that serve
them; a claim is leased, and a completion counts only for the claim the request is under.

    q = budcore.serverless.DurableQueue(budcore.open_store("queue.db"), "endpoint.yaml")
    q.enqueue([{"tenant": "acme", "priority": "premium"}])
    for r in q.claim("worker-1", max=10, lease_seconds=30):   # QueuedRequest records
        q.complete(r.id, r.claim)
"""

from __future__ import annotations

import os
import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, TypedDict, Union, cast

from ._core import SERVERLESS_POLICY_NAMES, serverless_simulate as _simulate
from ._core import serverless_endpoint_name as _endpoint_name
from ._core import (serverless_queue_claim as _q_claim, serverless_queue_enqueue as _q_enqueue,
                    serverless_queue_finish as _q_finish, serverless_queue_list as _q_list,
                    serverless_queue_status as _q_status)
from .enums import JobStatus, Priority, RequestStatus, ServerlessPriority, WorkerState
from .results import Record, Rows, document_field
from .types import Document, ErrorDocument, JsonObject

if TYPE_CHECKING:  # names the annotations use
    import uuid

    from ._core import Store
    from .cost import UsageRecord
    from .platform import Platform

__all__ = ["Assignment", "DEFAULT_OWNER", "DurableQueue", "EndpointStatus", "EnqueueResult", "FinishResult",
           "Latency", "PlacementResult", "PlatformEndpoint", "PolicyReport", "QueueStatus", "QueuedRequest",
           "REPORT_COLUMNS", "ScalingStep", "ServerlessSimulation", "Worker", "policy_names", "simulate"]

EndpointArg = Union[Document, str, "os.PathLike[str]"]  # a dict, JSON/YAML text or a file path


class Latency(TypedDict):
    """A latency distribution in seconds."""

    p50: float
    p95: float
    p99: float
    max: float
    mean: float


class ScalingStep(TypedDict, total=False):
    """The pool after a change of its size (``at_seconds`` on the virtual clock, then the
    workers by state)."""

    at_seconds: float
    workers: int
    ready: int
    busy: int
    pending: int


class PolicyReport(TypedDict):
    """One policy's replay: requests and their outcomes, latencies, cold starts, workers,
    GPU-seconds and ``cost`` (a decimal string in ``currency``); ``refusals`` counts each kind;
    ``scaling`` lists the pool after every change of its size."""

    endpoint: str
    policy: str
    requests: int
    admitted: int
    completed: int
    timeouts: int
    failed: int
    dead_letters: int
    sla_misses: int
    refusals: Dict[str, int]
    preemptions: int
    wait_seconds: Latency
    end_to_end_seconds: Latency
    cold_starts: int
    failed_starts: int
    peak_workers: int
    max_idle_workers: int
    busy_gpu_seconds: float
    idle_gpu_seconds: float
    starting_gpu_seconds: float
    billed_gpu_seconds: float
    cost: str
    currency: str
    virtual_seconds: float
    scaling: List[ScalingStep]


@dataclass(frozen=True)
class EnqueueResult(Record):
    """A submission's outcome: its request ``id`` and whether it ``deduplicated`` an earlier one,
    or ``id`` 0 with the ``refusal`` (``queue_full``, ``payload_too_large``,
    ``tenant_concurrency``) and the ``error``."""

    NOUN = "submission"
    id: int = 0
    deduplicated: bool = False
    refusal: str = ""
    error: Optional[ErrorDocument] = None
    document: JsonObject = document_field()

    @property
    def accepted(self) -> bool:
        """True when the submission is stored (a new request or a duplicate of one)."""
        return self.id != 0


@dataclass(frozen=True)
class QueuedRequest(Record):
    """A request of a durable queue: what was submitted, its score, limits and status, and the
    claim (token, worker, lease) it is under."""

    ROW_COLUMNS = ("id", "tenant", "priority", "status", "attempts", "worker", "claim", "score", "enqueued_at",
                   "lease_until", "last_error")
    NOUN = "request"
    id: int = 0
    tenant: str = ""
    priority: ServerlessPriority = field(default=ServerlessPriority.STANDARD, metadata={"enum": ServerlessPriority})
    status: RequestStatus = field(default=RequestStatus.PENDING, metadata={"enum": RequestStatus})
    endpoint: str = ""
    payload_hash: str = ""
    payload_size_bytes: int = 0
    score: float = 0.0
    estimated_compute_seconds: float = 0.0
    max_wait_seconds: float = 0.0
    max_process_seconds: float = 0.0
    max_retries: int = 0
    attempts: int = 0
    claim: int = 0
    worker: str = ""
    enqueued_at: Optional[str] = None
    claimed_at: Optional[str] = None
    lease_until: Optional[str] = None
    completed_at: Optional[str] = None
    timeout_at: Optional[str] = None
    last_error: str = ""
    document: JsonObject = document_field()


@dataclass(frozen=True)
class FinishResult(Record):
    """A report's outcome: ``ok`` is False when the request is no longer under that claim."""

    NOUN = "report"
    id: int = 0
    ok: bool = False
    status: RequestStatus = field(default=RequestStatus.PENDING, metadata={"enum": RequestStatus})
    document: JsonObject = document_field()


@dataclass(frozen=True)
class QueueStatus(Record):
    """A durable queue's requests by status, and each tenant's requests in flight."""

    pending: int = 0
    in_flight: int = 0
    completed: int = 0
    failed: int = 0
    timeout: int = 0
    tenant_active: Dict[str, int] = field(default_factory=dict)
    document: JsonObject = document_field()


@dataclass(frozen=True)
class Worker(Record):
    """A warm worker of a platform endpoint: its SERVICE job (name, id, status), its state in the
    pool and its requests in flight."""

    NOUN = "worker"
    name: str = ""
    state: WorkerState = field(default=WorkerState.QUEUED, metadata={"enum": WorkerState})
    status: JobStatus = field(default=JobStatus.PENDING, metadata={"enum": JobStatus})
    in_flight: int = 0
    id: int = 0
    job: str = ""
    document: JsonObject = document_field()


@dataclass(frozen=True)
class EndpointStatus(Record):
    """A platform endpoint's workers by state, its requests, counters and the workers (``rows()``:
    one per worker)."""

    COLUMNS = ("name", "state", "status", "in_flight", "id", "job")
    endpoint: str = ""
    queued: int = 0
    starting: int = 0
    ready: int = 0
    busy: int = 0
    pending: int = 0
    in_flight: int = 0
    cold_starts: int = 0
    stopped: int = 0
    lost: int = 0
    failed_starts: int = 0
    preemptions: int = 0
    metered_rows: int = 0
    last_refusal: str = ""
    workers: Rows[Worker] = field(default_factory=Rows)
    document: JsonObject = document_field()

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> "EndpointStatus":
        """The status of the library's document, each worker a :class:`Worker`."""
        status = super().from_dict(d)
        workers = cast("List[JsonObject]", d.get("workers") or [])
        return dataclasses.replace(status, workers=Rows(Worker.from_dict(w) for w in workers))

    def rows(self) -> list[dict[str, object]]:
        """One dict per worker: name, state, job status, requests in flight, ids."""
        return self.workers.rows()

    def caption(self) -> str:
        """The endpoint and its pool by state."""
        return (f"endpoint {self.endpoint}: {self.ready} ready, {self.busy} busy, {self.starting} starting, "
                f"{self.queued} queued; {self.pending} requests pending")


@dataclass(frozen=True)
class Assignment(Record):
    """A request placed on a worker: ``placement`` is ``warm`` or ``preempted`` (``preempted``
    names the request it displaced)."""

    NOUN = "assignment"
    request: int = 0
    worker: int = 0
    placement: str = ""
    preempted: int = 0
    document: JsonObject = document_field()


@dataclass(frozen=True)
class PlacementResult(Record):
    """What a platform endpoint placed now (``assignments``); after an enqueue also each
    submission's ``results``."""

    assignments: Rows[Assignment] = field(default_factory=Rows)
    results: Rows[EnqueueResult] = field(default_factory=Rows)
    document: JsonObject = document_field()

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> "PlacementResult":
        """The placement of the library's document, its parts as records."""
        placed = super().from_dict(d)
        assignments = cast("List[JsonObject]", d.get("assignments") or [])
        results = cast("List[JsonObject]", d.get("results") or [])
        return dataclasses.replace(placed, assignments=Rows(Assignment.from_dict(a) for a in assignments),
                                   results=Rows(EnqueueResult.from_dict(r) for r in results))


#: The tenant owning the endpoints when none is given (as ``budcore serverless queue``).
DEFAULT_OWNER = "00000000-0000-0000-0000-000000000001"

#: Columns of :meth:`ServerlessSimulation.to_pandas`, in order.
REPORT_COLUMNS = ("policy", "requests", "admitted", "completed", "timeouts", "failed", "dead_letters", "sla_misses",
                  "preemptions", "wait_p50", "wait_p95", "wait_p99", "end_to_end_p50", "end_to_end_p95",
                  "end_to_end_p99", "cold_starts", "failed_starts", "peak_workers", "busy_gpu_seconds", "idle_gpu_seconds",
                  "billed_gpu_seconds", "cost", "currency", "virtual_seconds")


def policy_names() -> list[str]:
    """The autoscaling policies, in the order ``policy="all"`` runs them."""
    return list(SERVERLESS_POLICY_NAMES)


@dataclass(frozen=True)
class ServerlessSimulation(Record):
    """A trace replay: ``reports``, one per policy (endpoint, policy, requests, admitted,
    completed, timeouts, wait_seconds, end_to_end_seconds, cold_starts, cost, ...)."""

    COLUMNS = REPORT_COLUMNS
    reports: List[PolicyReport] = field(default_factory=list)
    document: JsonObject = document_field()

    @property
    def policies(self) -> list[str]:
        """The policies compared, in the order of the table."""
        return [r["policy"] for r in self.reports]

    def report(self, policy: str) -> PolicyReport:
        """The report of one policy."""
        for r in self.reports:
            if r["policy"] == policy:
                return r
        raise KeyError(policy)

    def rows(self) -> list[dict[str, object]]:
        """One dict per policy: waits, latencies, cold starts, SLA misses, GPU-seconds and cost."""
        out: list[dict[str, object]] = []
        for r in self.reports:
            report = cast("Mapping[str, object]", r)  # a TypedDict read by column name
            row = {c: report.get(c) for c in REPORT_COLUMNS}
            for name, latency in (("wait", r["wait_seconds"]), ("end_to_end", r["end_to_end_seconds"])):
                row.update({f"{name}_p50": latency["p50"], f"{name}_p95": latency["p95"], f"{name}_p99": latency["p99"]})
            row["cost"] = Decimal(r["cost"])
            out.append(row)
        return out

    def caption(self) -> str:
        """The trace and endpoint the table compares policies on."""
        reports = self.reports
        endpoint = reports[0]["endpoint"] if reports else ""
        return f"endpoint {endpoint}: {len(reports)} policies"


def _text(source: Union[str, "os.PathLike[str]"]) -> tuple[str, str]:
    if isinstance(source, str) and "\n" in source:
        return source, "trace"
    path = os.fspath(source)
    with open(path, encoding="utf-8") as f:
        return f.read(), path


def simulate(endpoint: EndpointArg, trace: Union[str, "os.PathLike[str]"],
             policy: Union[str, Sequence[str]] = "queue_depth", *,
             until_scaled_down: bool = False) -> ServerlessSimulation:
    """Replay ``trace`` (a path or the CSV text) through ``endpoint`` (a dict, JSON/YAML text,
    or a file path) under ``policy``: ``"queue_depth"`` (default), ``"all"``, a name, names
    separated by commas, or a list of names (:func:`policy_names`). With
    ``until_scaled_down`` the replay runs on after the last request until the policy has
    scaled the pool down to its minimum (the idle tail is billed); each report's ``scaling``
    lists the pool after every change of its size. Bad input raises
    :class:`budcore.ValidationError` naming the field (``"concurrency_per_worker"``,
    ``"trace.csv:3.ContextTokens"``, ``"policy"``)."""
    if isinstance(endpoint, Mapping):
        doc: Union[str, dict[str, object]] = dict(endpoint)
    elif isinstance(endpoint, str) and ("\n" in endpoint or endpoint.lstrip().startswith("{")):
        doc = endpoint
    else:
        with open(os.fspath(endpoint), encoding="utf-8") as f:
            doc = f.read()
    trace_text, trace_name = _text(trace)
    policies = policy if isinstance(policy, str) else ",".join(policy)
    return ServerlessSimulation.from_dict(_simulate(doc, trace_text, policies, trace_name, until_scaled_down))


def _endpoint_doc(endpoint: EndpointArg) -> Union[str, dict[str, object]]:
    if isinstance(endpoint, Mapping):
        return dict(endpoint)
    if isinstance(endpoint, str) and ("\n" in endpoint or endpoint.lstrip().startswith("{")):
        return endpoint
    with open(os.fspath(endpoint), encoding="utf-8") as f:
        return f.read()


class DurableQueue:
    """An endpoint's durable request queue in ``store`` (a :class:`budcore.Store`), owned by
    the tenant ``owner`` (a UUID). ``endpoint`` is a dict, JSON/YAML text or a file path: its
    name, queue limits, SLA, retries and priority weights apply. Every call is one transaction;
    bad input raises :class:`budcore.ValidationError` naming the field
    (``"submissions[1].priority"``) and stores nothing."""

    def __init__(self, store: Store, endpoint: EndpointArg, owner: str = DEFAULT_OWNER) -> None:
        self.store = store
        self.owner = owner
        self._doc = _endpoint_doc(endpoint)
        self.endpoint: str = _endpoint_name(self._doc)

    def enqueue(self, submissions: Sequence[Document]) -> Rows[EnqueueResult]:
        """Admit, score and store ``submissions`` ({tenant, payload_hash, payload_size_bytes,
        estimated_compute_seconds, priority}): one ``{"id", "deduplicated"}`` per accepted
        request, or ``{"id": 0, "refusal", "error"}`` (``queue_full``, ``payload_too_large``,
        ``tenant_concurrency``)."""
        out = _q_enqueue(self.store, self.owner, self._doc, [dict(s) for s in submissions])
        return Rows(EnqueueResult.from_dict(d) for d in out)

    def claim(self, worker: str, max: int = 1, lease_seconds: float = 30.0) -> Rows[QueuedRequest]:
        """Claim up to ``max`` pending requests, highest score first, each leased for
        ``lease_seconds``; report on each with its ``"claim"`` token."""
        return Rows(QueuedRequest.from_dict(d) for d in _q_claim(self.store, self.owner, self.endpoint, worker, max,
                                                                 lease_seconds))

    def finish(self, reports: Sequence[Document]) -> Rows[FinishResult]:
        """Apply ``{"id", "claim", "outcome": "start" | "renew" | "complete" | "fail", "reason",
        "lease_seconds"}`` reports in one transaction: ``{"id", "ok", "status"}`` each (``ok`` is
        False when the request is no longer under that claim)."""
        return Rows(FinishResult.from_dict(d) for d in _q_finish(self.store, self.owner, [dict(r) for r in reports]))

    def complete(self, id: int, claim: int) -> FinishResult:
        """Marks claimed request ``id`` COMPLETED (ConflictError when ``claim`` is no longer the worker's)."""
        return self.finish([{"id": id, "claim": claim, "outcome": "complete"}])[0]

    def fail(self, id: int, claim: int, reason: str = "") -> FinishResult:
        """Marks claimed request ``id`` failed: retried while attempts remain, else dead-lettered."""
        return self.finish([{"id": id, "claim": claim, "outcome": "fail", "reason": reason}])[0]

    def status(self) -> QueueStatus:
        """The queue's counts: ``{"pending", "in_flight", "completed", "failed", "timeout",
        "tenant_active"}``."""
        return QueueStatus.from_dict(_q_status(self.store, self.owner, self.endpoint))

    def requests(self, statuses: Sequence[Union[RequestStatus, str]] = (), after: int = 0,
                 limit: int = 1000) -> Rows[QueuedRequest]:
        """The requests with an id above ``after``, by id (of ``statuses``, each a
        :class:`budcore.RequestStatus` or its string; any when empty)."""
        out = _q_list(self.store, self.owner, self.endpoint, [str(s) for s in statuses], after, limit)
        return Rows(QueuedRequest.from_dict(d) for d in out)

    def dead_letters(self, after: int = 0, limit: int = 1000) -> Rows[QueuedRequest]:
        """FAILED and TIMEOUT requests, with the reason in ``last_error``."""
        return self.requests([RequestStatus.FAILED, RequestStatus.TIMEOUT], after, limit)

    # Last in the class body: below it, `list` would name this method rather than the builtin.
    def list(self, statuses: Sequence[Union[RequestStatus, str]] = (), after: int = 0, limit: int = 1000) -> Rows[QueuedRequest]:
        """Alias of :meth:`requests` under its former name (which shadows the builtin in the
        class), kept so that existing code runs: the requests with an id above ``after``."""
        return self.requests(statuses, after, limit)


class PlatformEndpoint:
    """A serverless endpoint whose warm workers are SERVICE jobs on ``platform`` (a
    :class:`budcore.Platform`), owned by ``tenant`` (default: the platform's tenant) and admitted
    by the serverless ClusterQueue: growing the pool waits for quota or takes it back from
    lower-priority work by the platform's Kueue rules; shrinking it cancels worker jobs.
    ``endpoint`` is a dict, JSON/YAML text or a file path. Drive the platform
    (``platform.run(seconds)``) and call :meth:`scale` (``None``: only read) to see the workers
    move. One thread drives an endpoint at a time."""

    def __init__(self, platform: Platform, endpoint: EndpointArg,
                 tenant: Optional[Union[str, uuid.UUID]] = None, worker_priority: Union[Priority, str] = Priority.HIGH,
                 image: str = "") -> None:
        self.platform = platform
        who = platform._who(tenant)
        self._h = platform._h.serverless_endpoint(*who, _endpoint_doc(endpoint), str(worker_priority), image)

    def scale(self, desired: Union[int, None] = None) -> EndpointStatus:
        """Reads the workers' jobs, then grows or shrinks the pool to ``desired`` (clamped to the
        warm pool's bounds). Returns the status: ``queued``, ``starting``, ``ready``, ``busy``,
        ``pending``, ``in_flight``, ``cold_starts``, ``stopped``, ``failed_starts`` (workers
        cancelled when their warm-up passed ``warmup_timeout_seconds``), ``workers``, ...
        :class:`budcore.BudgetExceededError` when a hard budget refuses a worker."""
        return EndpointStatus.from_dict(self._h.scale(desired))

    def status(self) -> EndpointStatus:
        """The workers as the platform has them now (``scale(None)``)."""
        return EndpointStatus.from_dict(self._h.scale(None))

    def enqueue(self, submissions: Sequence[Document]) -> PlacementResult:
        """Admits ``submissions`` ({tenant, payload_hash, payload_size_bytes,
        estimated_compute_seconds, priority}) and places what can run now (warm worker, else a
        cold start, else preempt a lower class, else wait): ``{"results", "assignments"}``."""
        return PlacementResult.from_dict(self._h.enqueue([dict(s) for s in submissions]))

    def complete(self, request: int) -> PlacementResult:
        """Request ``request`` completed; places what can run now: ``{"assignments"}``."""
        return PlacementResult.from_dict(self._h.finish(request, ""))

    def fail(self, request: int, reason: str) -> PlacementResult:
        """A failed attempt of ``request`` (retried while attempts remain); places what can run
        now: ``{"assignments"}``."""
        return PlacementResult.from_dict(self._h.finish(request, reason))

    def meter(self) -> List[UsageRecord]:
        """Writes the workers' GPU time since their last rows as usage rows of the owner tenant
        (labels ``serverless_endpoint``; ``idle_gpu_seconds`` the time without a request), which
        cost reports, budgets and chargeback read; returns them. The budgets are checked at
        once: threshold alerts, and ``stop_running`` budgets stop the workers they cover."""
        return cast("List[UsageRecord]", self._h.meter())
