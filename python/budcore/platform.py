"""budcore.platform: jobs from submission to completion, pipelines and what-if runs.

:class:`Platform` is the C++ Platform (a store, a simulated cluster admitted by budcore's
Kueue engine, a virtual or system clock) with Python results: :meth:`Platform.jobs` gives a
:class:`JobTable` (``.to_pandas()``), :meth:`Platform.watch` iterates :class:`Event` objects,
:meth:`Platform.run_pipeline` returns a :class:`PipelineRun`, and :func:`simulate` runs a
scenario into a :class:`SimulationResult`. pandas is imported only by ``to_pandas()``.

    with budcore.Platform.embedded("/tmp/bud", tenant=TENANT) as p:
        job = p.submit({"name": "train", "job_type": "training", "deployment_type": "docker",
                        "gpu_type": "nvidia-a100-80gb", "gpu_count": 8,
                        "estimated_duration_seconds": 3600})
        p.run()                       # the virtual clock runs until nothing is left to do
        print(p.get(job.id).job.status)
        frame = p.jobs().to_pandas()
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, TypedDict, Union, cast, overload

from ._core import PlatformHandle, StoredJob, platform_open, platform_open_embedded, platform_simulate
from .enums import HaRole, JobSource, JobStatus, JobType, PipelineStatus, Priority, Role
from .results import Record, Rows, document_field, html_table
from .types import Document, JsonObject, JsonValue

if TYPE_CHECKING:  # names the annotations use
    import uuid

    from pandas import DataFrame
    from typing_extensions import Unpack

    from ._core import Job
    from .gpu import DefragPlan
    from .schedule import Timeline

__all__ = [
    "AuditEntry",
    "AuditReport",
    "Caller",
    "ClusterView",
    "CompactionReport",
    "Event",
    "HaStatus",
    "JobSummary",
    "JobTable",
    "PipelineRun",
    "Platform",
    "RoleBinding",
    "SimulationResult",
    "StoredJobs",
    "simulate",
]

PathLike = Union[str, "os.PathLike[str]"]
IdLike = Union[str, "uuid.UUID"]  # a tenant, job, run or project id
JobLike = Union["Job", Document]


class Caller(TypedDict, total=False):
    """Who a :class:`Platform`'s calls act for by default: the tenant, the principal and the
    request id."""

    tenant: Optional[IdLike]
    principal: str
    request_id: str


class Lease(TypedDict):
    """The leader's Lease: holder, epoch, when it expires and the store's clock."""

    holder: str
    epoch: int
    expires: str
    now: str


class Replica(TypedDict):
    """A replica as the election sees it (``renew_us``: its last renewal's round trip)."""

    replica: str
    role: str
    epoch: int
    started: str
    seen: str
    renew_us: int


@dataclass(frozen=True)
class HaStatus(Record):
    """:meth:`Platform.ha_status`: this replica's role (``single``, ``leader``, ``follower``),
    the Lease (None without a holder) and the replicas."""

    role: HaRole = field(default=HaRole.SINGLE, metadata={"enum": HaRole})
    replica: str = ""
    epoch: int = 0
    lease: Optional[Lease] = None
    replicas: List[Replica] = field(default_factory=list)
    document: JsonObject = document_field()


class QuotaCell(TypedDict):
    """A resource's use and nominal quota (quantities)."""

    used: str
    nominal: str


@dataclass(frozen=True)
class ClusterView(Record):
    """What the cluster holds: its ``workloads`` (``rows()``) and ``usage`` (cluster queue ->
    flavor -> resource); with a placement policy ``gpu``, the GPU pools' fragmentation per flavor."""

    COLUMNS = ("name", "job_id", "tenant", "cluster_queue", "state", "nodes")
    workloads: List[JsonObject] = field(default_factory=list)
    usage: Dict[str, Dict[str, Dict[str, QuotaCell]]] = field(default_factory=dict)
    gpu: Optional[JsonObject] = None
    document: JsonObject = document_field()

    def rows(self) -> list[dict[str, object]]:
        """One dict per workload, as the library wrote it."""
        return [dict(w) for w in self.workloads]

    def caption(self) -> str:
        """How many workloads the cluster holds."""
        return f"{len(self.workloads)} workloads"


@dataclass(frozen=True)
class RoleBinding(Record):
    """A role binding: who, which role, on which project (None: the whole tenant), since when
    and by whom."""

    NOUN = "binding"
    principal: str = ""
    role: Role = field(default=Role.VIEWER, metadata={"enum": Role})
    project_id: Optional[str] = None
    created_at: str = ""
    created_by: str = ""
    document: JsonObject = document_field()


@dataclass(frozen=True)
class AuditEntry(Record):
    """An entry of a tenant's audit log, chained by hash to the one before it."""

    ROW_COLUMNS = ("seq", "at", "actor", "action", "object_type", "object_id", "request_id", "hash")
    NOUN = "entry"
    seq: int = 0
    at: str = ""
    actor: str = ""
    action: str = ""
    object_type: str = ""
    object_id: str = ""
    request_id: str = ""
    detail: JsonValue = None
    prev_hash: Optional[str] = None
    hash: Optional[str] = None
    document: JsonObject = document_field()


class AuditHead(TypedDict):
    """A tenant's audit chain head."""

    tenant: str
    seq: int
    hash: str


@dataclass(frozen=True)
class AuditReport(Record):
    """:meth:`Platform.verify_audit`: ``ok`` with the entries checked, the heads, and what is
    wrong (``problems``)."""

    ok: bool = False
    entries: int = 0
    unchained: int = 0
    head_seq: int = 0
    compacted: int = 0
    head_hash: str = ""
    heads: List[AuditHead] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    document: JsonObject = document_field()


class Checkpoint(TypedDict):
    """Where compaction cut a tenant's log (``log``: events or audit): the last seq removed and
    its hash."""

    tenant: str
    log: str
    seq: int
    hash: Optional[str]
    at: str


@dataclass(frozen=True)
class CompactionReport(Record):
    """:meth:`Platform.compact`: how many events, audit entries and usage rows were removed, and
    the checkpoints written."""

    events_removed: int = 0
    audit_removed: int = 0
    usage_removed: int = 0
    checkpoints: List[Checkpoint] = field(default_factory=list)
    document: JsonObject = document_field()


JOB_COLUMNS = (
    "name", "status", "job_type", "source", "priority", "project_id", "cluster_id", "pipeline_id", "gpu_type",
    "gpu_count", "created_at", "updated_at", "version", "idempotency_key", "id",
)


@dataclass(frozen=True)
class JobSummary(Record):
    """One job of :meth:`Platform.jobs`: the store's summary of it (names first, the id last)."""

    ROW_COLUMNS = JOB_COLUMNS
    NOUN = "job"
    name: str = ""
    status: JobStatus = field(default=JobStatus.PENDING, metadata={"enum": JobStatus})
    job_type: JobType = field(default=JobType.BATCH, metadata={"enum": JobType})
    source: JobSource = field(default=JobSource.DIRECT, metadata={"enum": JobSource})
    priority: Priority = field(default=Priority.NORMAL, metadata={"enum": Priority})
    project_id: Optional[str] = None
    cluster_id: Optional[str] = None
    pipeline_id: Optional[str] = None
    gpu_type: Optional[str] = None
    gpu_count: int = 0
    created_at: str = ""
    updated_at: str = ""
    version: int = 0
    idempotency_key: Optional[str] = None
    id: str = ""
    document: JsonObject = document_field()


#: Job summaries (newest first) as :meth:`Platform.jobs` returns them: a :class:`budcore.results.Rows`
#: of :class:`JobSummary` (``to_pandas()``: ``created_at``/``updated_at`` as UTC timestamps).
JobTable = Rows[JobSummary]

#: Stored jobs as :meth:`Platform.submit_batch` returns them: a :class:`budcore.results.Rows` of
#: :class:`budcore.StoredJob`, which a notebook shows as one table, names first.
StoredJobs = Rows[StoredJob]


@dataclass(frozen=True)
class Event(Record):
    """One entry of a tenant's event log: a job transition, a submission, a pipeline change."""

    seq: int
    at: str
    type: str
    object_id: str
    data: JsonObject = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> "Event":
        """An event from the library's document."""
        e = cast(Mapping[str, str], d)
        return cls(cast(int, d["seq"]), e["at"], e["type"], e["object_id"],
                   dict(cast(Optional[JsonObject], d.get("data")) or {}))


@dataclass(frozen=True)
class PipelineRun(Record):
    """A pipeline run the platform drives; ``steps`` maps step id to its state."""

    COLUMNS = ("id", "state", "message", "outputs")
    id: str
    pipeline: str
    status: PipelineStatus = field(metadata={"enum": PipelineStatus})
    created_at: str
    updated_at: str
    version: int
    state: JsonObject

    def _steps(self) -> list[JsonObject]:
        return cast(List[JsonObject], self.state.get("steps", []))

    @property
    def steps(self) -> dict[str, str]:
        """Each step's id and its state (``pending``, ``running``, ``succeeded``, ...)."""
        return {cast(str, s["id"]): cast(str, s["state"]) for s in self._steps()}

    def rows(self) -> list[dict[str, object]]:
        """One dict per step: id, state, message, outputs."""
        return [dict(s) for s in self._steps()]

    def to_pandas(self) -> DataFrame:
        """One row per step (id, state, message, outputs, as the run has them). Requires pandas."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def caption(self) -> str:
        """The pipeline, the run's status and its id."""
        return f"pipeline {self.pipeline}: {self.status.value} (run {self.id})"


def _every_page(fetch: Callable[[dict[str, object]], Mapping[str, object]], filters: Mapping[str, object],
                limit: Optional[int]) -> list[JsonObject]:
    """Every item of a keyset-paged list (pages of 1000 following next_cursor), at most ``limit``."""
    items: list[JsonObject] = []
    after = ""
    while True:
        query = {k: v for k, v in filters.items() if v is not None}
        query["limit"] = 1000
        if after:
            query["after"] = after
        page = fetch(query)
        items.extend(cast(List[JsonObject], page["items"]))
        after = cast(str, page["next_cursor"])
        if not after or (limit is not None and len(items) >= limit):
            break
    return items if limit is None else items[:limit]


class Platform:
    """The budcore Platform. Open it from a config (a dict, YAML/JSON text or a file path) or
    with :meth:`embedded`; every call acts for ``tenant`` (a UUID) unless one is passed. A context
    manager: ``with Platform.embedded(dir, tenant=t) as p: ...``. Thread-safe."""

    def __init__(self, handle: PlatformHandle, *, tenant: Optional[IdLike] = None, principal: str = "",
                 request_id: str = "") -> None:
        self._h = handle
        self.tenant = None if tenant is None else str(tenant)
        self.principal = principal
        self.request_id = request_id

    @classmethod
    def open(cls, config: Union[Document, str, PathLike], **caller: Unpack[Caller]) -> "Platform":
        """Opens a platform from a config (a dict, YAML/JSON text or a file path); ``caller`` sets
        the default tenant, principal and request id of every call."""
        if isinstance(config, Mapping):
            return cls(platform_open(dict(config)), **caller)
        text = os.fspath(config)
        if os.path.exists(text):
            with open(text, encoding="utf-8") as f:
                text = f.read()
        return cls(platform_open(text), **caller)

    @classmethod
    def embedded(cls, directory: PathLike, **caller: Unpack[Caller]) -> "Platform":
        """The embedded default in ``directory``: SQLite, the simulated cluster, a virtual clock."""
        os.makedirs(directory, exist_ok=True)
        return cls(platform_open_embedded(os.fspath(directory)), **caller)

    # -- context -------------------------------------------------------------------------------
    def __enter__(self) -> "Platform":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the platform and its store (a replica resigns its lease); later calls raise."""
        self._h.close()

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._h.closed

    def _who(self, tenant: Optional[IdLike]) -> tuple[str, str, str]:
        t = tenant if tenant is not None else self.tenant
        if t is None:
            raise ValueError("no tenant: pass tenant=... to the call or to the Platform")
        return (str(t), self.principal, self.request_id)

    @property
    def now(self) -> str:
        """The platform's clock (RFC 3339)."""
        return self._h.now()

    # -- jobs ----------------------------------------------------------------------------------
    def submit(self, job: JobLike, *, idempotency_key: Optional[str] = None, tenant: Optional[IdLike] = None) -> StoredJob:
        """Validate, store (QUEUED) and hand a job (budcore.Job or dict) to the cluster."""
        # The extension converts the job's dict; its stub names it dict[str, object].
        return self._h.submit(*self._who(tenant), cast("Union[Job, dict[str, object]]", job), idempotency_key)

    def submit_batch(self, jobs: Sequence[Union[JobLike, tuple[JobLike, Optional[str]]]], *, tenant: Optional[IdLike] = None) -> StoredJobs:
        """Many jobs in one transaction: each a job or a (job, idempotency_key) tuple. Returns
        the stored jobs in order, as a list a notebook shows as a table."""
        # The extension reads the items as before; its stub names their documents dict[str, object].
        batch = cast("list[Union[Job, dict[str, object], tuple[Union[Job, dict[str, object]], Optional[str]]]]", list(jobs))
        return Rows(self._h.submit_batch(*self._who(tenant), batch))

    def get(self, id: IdLike, *, tenant: Optional[IdLike] = None) -> StoredJob:
        """The caller's job by id (NotFoundError for another tenant's)."""
        return self._h.get(*self._who(tenant), id)

    def cancel(self, id: IdLike, reason: str = "", *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Cancels a job that has not ended (ConflictError for an ended one)."""
        return self._h.act(*self._who(tenant), "cancel", id, reason)

    def retry(self, id: IdLike, *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Starts another run of a FAILED job now (ConflictError when its retries are spent)."""
        return self._h.act(*self._who(tenant), "retry", id, "")

    def set_priority(self, id: IdLike, priority: Union[Priority, str], *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Changes a job's priority (``critical``, ``high``, ``normal``, ``low``, ``spot``) within policy."""
        return self._h.act(*self._who(tenant), "priority", id, priority)  # a Priority is its str

    def preempt(self, id: IdLike, reason: str = "", *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Preempts a running job: it goes back to the queue with its full duration."""
        return self._h.act(*self._who(tenant), "preempt", id, reason)

    def jobs(self, *, tenant: Optional[IdLike] = None, limit: Optional[int] = None, **filters: object) -> JobTable:
        """Every job matching the filters (status, project_id, pipeline_id, job_type, source,
        created_from, created_to), newest first, as a :class:`JobTable`."""
        who = self._who(tenant)
        return Rows(JobSummary.from_dict(r) for r in _every_page(lambda q: self._h.jobs(*who, q), filters, limit))

    def watch(self, since: int = 0, *, follow: bool = False, poll_seconds: float = 0.5,
              tenant: Optional[IdLike] = None) -> Iterator[Event]:
        """The tenant's events after ``since``, in order. With ``follow`` the iterator waits for
        new events (a system-clock platform); otherwise it ends at the last one."""
        who = self._who(tenant)
        while True:
            page = self._h.events(*who, since, 1000)
            events = cast(List[JsonObject], page["events"])
            for e in events:
                yield Event.from_dict(e)
            since = cast(int, page["last_seq"])
            if events:
                continue
            if not follow:
                return
            time.sleep(poll_seconds)

    def schedule(self, *, tenant: Optional[IdLike] = None) -> "Timeline":
        """When each of the tenant's waiting and running jobs is expected to start and end, as a
        read-only :class:`budcore.schedule.Timeline` (``jobs``, ``to_pandas()``, ``plot()``,
        ``to_html()``). Every tenant's jobs are simulated under the platform's quota; a job's
        ``name`` is its id (names repeat) and its ``label`` the name it was given, which pictures show. ``Platform.get`` fills a live job's ``estimated_start``/``estimated_end``
        from the same timeline."""
        from .schedule import Timeline
        return Timeline._of(self._h.schedule(*self._who(tenant)))

    # -- pipelines -----------------------------------------------------------------------------
    def run_pipeline(self, document: Document, params: Optional[Document] = None, *,
                     tenant: Optional[IdLike] = None) -> PipelineRun:
        """Starts a run of a pipeline document with ``params``; its JOB steps become platform jobs."""
        return PipelineRun.from_dict(self._h.run_pipeline(*self._who(tenant), dict(document),
                                                          None if params is None else dict(params)))

    def pipeline_run(self, id: IdLike, *, tenant: Optional[IdLike] = None) -> PipelineRun:
        """A pipeline run by id, with every step's state."""
        return PipelineRun.from_dict(self._h.pipeline_run(*self._who(tenant), id, False, ""))

    def cancel_pipeline_run(self, id: IdLike, reason: str = "", *, tenant: Optional[IdLike] = None) -> PipelineRun:
        """Cancels a pipeline run and its running jobs."""
        return PipelineRun.from_dict(self._h.pipeline_run(*self._who(tenant), id, True, reason))

    # -- time and views ------------------------------------------------------------------------
    def run(self, seconds: Optional[float] = None) -> str:
        """Moves a virtual clock ``seconds`` forward, or (None) until nothing is scheduled.
        Returns the new time."""
        return self._h.run(seconds)

    def pump(self) -> None:
        """Applies what the cluster reported since the last call (a system-clock platform does it itself)."""
        self._h.pump()

    def metrics(self) -> str:
        """Prometheus text exposition of the platform's metrics."""
        return self._h.metrics()

    def ha_status(self) -> HaStatus:
        """This replica's view of the election (docs/ha.md), a :class:`HaStatus`: ``role`` (a
        :class:`budcore.HaRole`), ``replica``, ``epoch``, ``lease``, ``replicas``."""
        return HaStatus.from_dict(self._h.ha_status())

    def cluster(self, *, tenant: Optional[IdLike] = None) -> ClusterView:
        """What the cluster holds ({'workloads', 'usage'}), and with a placement policy its GPU
        pools' fragmentation ('gpu': per flavor, see docs/gpu.md), as the caller sees it: the
        tenant's runs by job id, other tenants' runs named ``[hidden <token>]`` with no tenant
        and no message (a platform admin sees every run). Needs the ``list`` right on jobs."""
        return ClusterView.from_dict(self._h.cluster_view(*self._who(tenant)))

    def cluster_all(self) -> ClusterView:
        """The operator's view of :meth:`cluster`: every tenant's runs by job id, no caller
        checked. For tools that hold the platform's configuration, not for tenants' code."""
        return ClusterView.from_dict(self._h.cluster())

    def gpu_defrag(self, id: IdLike, *, tenant: Optional[IdLike] = None) -> "DefragPlan":
        """The cheapest defragmentation plan for one of the tenant's jobs that the quota admitted
        and no node of its flavor takes yet (``cluster.placement_policy``; docs/gpu.md "In the
        platform"), over the runs on its flavor with the timeline's estimated ends; other
        tenants' runs are named ``[hidden <token>]`` (a keyed digest of the run). Advice only: nothing is applied. A
        :class:`budcore.gpu.DefragPlan` (``kind``, ``cost``, ``to_pandas()``, ``plot()``)."""
        from .gpu import DefragPlan
        return DefragPlan.from_dict(self._h.gpu_defrag(*self._who(tenant), id))

    def gpu_defrag_apply(self, id: IdLike, plan: Optional[Document] = None, *, tenant: Optional[IdLike] = None) -> DefragPlan:
        """Applies the defragmentation plan for one of the tenant's jobs that waits for
        placement: the runs it moves are evicted and placed where it names (keeping their
        quota), a MIG GPU it names is re-partitioned, and the job starts. ``plan`` is what
        :meth:`gpu_defrag` returned (a DefragPlan or its dict); a stale one (the cluster
        changed since) raises :class:`budcore.ConflictError` naming the first difference.
        None applies the plan made now. A :class:`budcore.gpu.DefragPlan` with ``applied``."""
        from .gpu import DefragPlan
        doc = plan.to_dict() if isinstance(plan, DefragPlan) else None if plan is None else dict(plan)
        return DefragPlan.from_dict(self._h.gpu_defrag_apply(*self._who(tenant), id, doc))

    def check(self) -> None:
        """Raises budcore.InternalError naming what differs when a crash-safety invariant fails."""
        self._h.check()

    # -- security (docs/security.md) -----------------------------------------------------------
    def bind_role(self, principal: str, role: Union[Role, str], *, project: Optional[IdLike] = None, tenant: Optional[IdLike] = None) -> RoleBinding:
        """Grants ``role`` (viewer, editor, admin, tenant-admin, platform-admin) to ``principal``
        ("user:NAME" or "sa:NAME") on ``project`` (a UUID) or the whole tenant. Needs
        tenant-admin (platform-admin for platform-admin). Returns the binding record."""
        binding: dict[str, object] = {"principal": principal, "role": str(role),
                                      "project_id": None if project is None else str(project)}
        return RoleBinding.from_dict(cast(JsonObject, self._h.bind_role(*self._who(tenant), binding, True)))

    def unbind_role(self, principal: str, role: Union[Role, str], *, project: Optional[IdLike] = None, tenant: Optional[IdLike] = None) -> None:
        """Revokes a binding (budcore.NotFoundError when there is none)."""
        binding: dict[str, object] = {"principal": principal, "role": str(role),
                                      "project_id": None if project is None else str(project)}
        self._h.bind_role(*self._who(tenant), binding, False)

    def role_bindings(self, principal: Optional[str] = None, *, tenant: Optional[IdLike] = None) -> Rows[RoleBinding]:
        """The tenant's role bindings (of one principal when given); tenant admins."""
        items = cast(List[JsonObject], self._h.role_bindings(*self._who(tenant), principal)["items"])
        return Rows(RoleBinding.from_dict(b) for b in items)

    def audit(self, *, tenant: Optional[IdLike] = None, limit: Optional[int] = None, **query: object) -> Rows[AuditEntry]:
        """The tenant's audit log, oldest first (tenant admins): every entry matching ``actor``,
        ``object_type``, ``object_id``, ``from``/``to`` (RFC 3339), each with its ``hash``."""
        who = self._who(tenant)
        return Rows(AuditEntry.from_dict(e) for e in _every_page(lambda q: self._h.audit(*who, q), query, limit))

    def verify_audit(self, *, tenant: Optional[IdLike] = None, anchors: Optional[list[str]] = None) -> AuditReport:
        """Checks every tenant's audit chain and head (platform admins): an :class:`AuditReport`
        (ok, entries, head_hash, heads, problems, ...); a broken chain is ok False, not an exception.
        ``anchors``: entry hashes kept outside the store (heads published earlier, as
        ``security.audit_anchor`` does); each must still be chained, else it is a problem."""
        return AuditReport.from_dict(self._h.verify_audit(*self._who(tenant), list(anchors or [])))

    def compact(self, *, tenant: Optional[IdLike] = None) -> CompactionReport:
        """Compacts the store now by the config's ``retention`` (platform admins; the leader also
        does it every ``retention.interval_seconds``): a :class:`CompactionReport` (events_removed,
        audit_removed, usage_removed, checkpoints: [{'tenant', 'log', 'seq', 'hash', 'at'}]). A watch from
        before a tenant's event checkpoint then raises :class:`budcore.GoneError`."""
        return CompactionReport.from_dict(self._h.compact(*self._who(tenant)))

    def __repr__(self) -> str:
        return f"Platform(tenant={self.tenant!r}, closed={self.closed})"


@dataclass(frozen=True, repr=False)
class SimulationResult(Record):
    """A what-if scenario's outcome: ``jobs`` (rows), ``log`` (what happened), ``table`` (the
    text table), ``pipelines``, ``metrics``; ``to_pandas()`` gives the jobs as a DataFrame."""

    # Names first; times are seconds after the scenario's start.
    COLUMNS = ("name", "status", "tenant", "job_type", "priority", "cluster_queue", "flavor", "started_at",
               "ended_at", "wait_seconds", "preemptions", "message")
    start: str = ""
    end: str = ""
    jobs: List[JsonObject] = field(default_factory=list)
    pipelines: List[JsonObject] = field(default_factory=list)
    log: List[str] = field(default_factory=list)
    table: str = ""
    metrics: str = ""
    document: JsonObject = document_field()

    def rows(self) -> list[dict[str, object]]:
        """One dict per job of the scenario."""
        return [dict(j) for j in self.jobs]

    def to_pandas(self) -> DataFrame:
        """One row per job of the scenario, every column the library wrote. Requires pandas."""
        import pandas as pd

        return pd.DataFrame(self.jobs)

    def caption(self) -> str:
        """The job count and the scenario's span."""
        n = len(self.jobs)
        return f"{n} job{'' if n == 1 else 's'}, {self.start} to {self.end}"

    def __repr__(self) -> str:
        return f"SimulationResult({len(self.jobs)} jobs, {self.start} .. {self.end})"


def simulate(scenario: Union[Document, str, PathLike]) -> SimulationResult:
    """Runs a scenario (a dict, YAML/JSON text or a file; docs/platform.md "Scenarios") to
    completion on a virtual clock."""
    base = ""
    if not isinstance(scenario, Mapping):
        text = os.fspath(scenario)
        if os.path.exists(text):
            base = os.path.dirname(os.path.abspath(text))
            with open(text, encoding="utf-8") as f:
                text = f.read()
        scenario = text
    else:
        scenario = dict(scenario)
    return SimulationResult.from_dict(platform_simulate(scenario, base))
