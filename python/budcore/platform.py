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
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Optional, Sequence, Union

from ._core import StoredJob, platform_open, platform_open_embedded, platform_simulate
from .results import html_table

if TYPE_CHECKING:  # names the annotations use
    import uuid

    from ._core import Job

__all__ = [
    "Event",
    "JobTable",
    "PipelineRun",
    "Platform",
    "SimulationResult",
    "StoredJobs",
    "simulate",
]

PathLike = Union[str, "os.PathLike[str]"]
IdLike = Union[str, "uuid.UUID"]  # a tenant, job, run or project id
JobLike = Union["Job", Mapping[str, Any]]

JOB_COLUMNS = (
    "id", "name", "status", "job_type", "source", "priority", "project_id", "cluster_id",
    "pipeline_id", "gpu_type", "gpu_count", "created_at", "updated_at", "version", "idempotency_key",
)


class JobTable(Sequence[dict]):
    """Job summaries (newest first), as rows; ``to_pandas()`` gives a DataFrame."""

    def __init__(self, rows: list[dict]):
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i):  # type: ignore[override]
        return self._rows[i]

    def to_pandas(self):
        """The rows as a DataFrame (``created_at``/``updated_at`` as UTC timestamps). Requires pandas."""
        import pandas as pd

        frame = pd.DataFrame(self._rows, columns=list(JOB_COLUMNS))
        for col in ("created_at", "updated_at"):
            frame[col] = pd.to_datetime(frame[col], utc=True)
        return frame

    def _repr_html_(self) -> str:
        # Names first; the id stays in the table for copying.
        columns = ("name", "status", "job_type", "priority", "gpu_type", "gpu_count", "created_at", "id")
        n = len(self._rows)
        return html_table(self._rows, columns, f"{n} job" + ("" if n == 1 else "s"))

    def __repr__(self) -> str:
        return f"JobTable({len(self._rows)} jobs)"


class StoredJobs(list):
    """Stored jobs (a list of :class:`budcore.StoredJob`, as :meth:`Platform.submit_batch`
    returns them) that a notebook shows as one table, names first."""

    def _repr_html_(self) -> str:
        rows = [dict(j.to_dict().get("job", {}), version=j.version, idempotency_key=j.idempotency_key) for j in self]
        columns = ("name", "status", "job_type", "priority", "gpu_type", "gpu_count", "version", "idempotency_key", "id")
        return html_table(rows, columns, f"{len(rows)} job" + ("" if len(rows) == 1 else "s"))


@dataclass(frozen=True)
class Event:
    """One entry of a tenant's event log: a job transition, a submission, a pipeline change."""

    seq: int
    at: str
    type: str
    object_id: str
    data: dict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Event":
        """An event from the library's document."""
        return cls(d["seq"], d["at"], d["type"], d["object_id"], dict(d.get("data") or {}))


@dataclass(frozen=True)
class PipelineRun:
    """A pipeline run the platform drives; ``steps`` maps step id to its state."""

    id: str
    pipeline: str
    status: str
    created_at: str
    updated_at: str
    version: int
    state: dict

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "PipelineRun":
        """A run from the library's document."""
        return cls(d["id"], d["pipeline"], d["status"], d["created_at"], d["updated_at"], d["version"], d["state"])

    @property
    def steps(self) -> dict[str, str]:
        """Each step's id and its state (``pending``, ``running``, ``succeeded``, ...)."""
        return {s["id"]: s["state"] for s in self.state.get("steps", [])}

    def to_pandas(self):
        """One row per step (id, state, message, outputs). Requires pandas."""
        import pandas as pd

        return pd.DataFrame(self.state.get("steps", []))

    def _repr_html_(self) -> str:
        return html_table(self.state.get("steps", []), ("id", "state", "message", "outputs"),
                          f"pipeline {self.pipeline}: {self.status} (run {self.id})")


def _every_page(fetch: Callable[[dict], dict], filters: Mapping[str, Any], limit: Optional[int]) -> list[dict]:
    """Every item of a keyset-paged list (pages of 1000 following next_cursor), at most ``limit``."""
    items: list[dict] = []
    after = ""
    while True:
        query = {k: v for k, v in filters.items() if v is not None}
        query["limit"] = 1000
        if after:
            query["after"] = after
        page = fetch(query)
        items.extend(page["items"])
        after = page["next_cursor"]
        if not after or (limit is not None and len(items) >= limit):
            break
    return items if limit is None else items[:limit]


class Platform:
    """The budcore Platform. Open it from a config (a dict, YAML/JSON text or a file path) or
    with :meth:`embedded`; every call acts for ``tenant`` (a UUID) unless one is passed. A context
    manager: ``with Platform.embedded(dir, tenant=t) as p: ...``. Thread-safe."""

    def __init__(self, handle, *, tenant: Optional[IdLike] = None, principal: str = "", request_id: str = ""):
        self._h = handle
        self.tenant = None if tenant is None else str(tenant)
        self.principal = principal
        self.request_id = request_id

    @classmethod
    def open(cls, config: Union[Mapping[str, Any], str, PathLike], **caller: Any) -> "Platform":
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
    def embedded(cls, directory: PathLike, **caller: Any) -> "Platform":
        """The embedded default in ``directory``: SQLite, the simulated cluster, a virtual clock."""
        os.makedirs(directory, exist_ok=True)
        return cls(platform_open_embedded(os.fspath(directory)), **caller)

    # -- context -------------------------------------------------------------------------------
    def __enter__(self) -> "Platform":
        return self

    def __exit__(self, *exc: Any) -> None:
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
        return self._h.submit(*self._who(tenant), job, idempotency_key)

    def submit_batch(self, jobs: Sequence[Union[JobLike, tuple[JobLike, Optional[str]]]], *, tenant: Optional[IdLike] = None) -> StoredJobs:
        """Many jobs in one transaction: each a job or a (job, idempotency_key) tuple. Returns
        the stored jobs in order, as a list a notebook shows as a table."""
        return StoredJobs(self._h.submit_batch(*self._who(tenant), list(jobs)))

    def get(self, id: IdLike, *, tenant: Optional[IdLike] = None) -> StoredJob:
        """The caller's job by id (NotFoundError for another tenant's)."""
        return self._h.get(*self._who(tenant), id)

    def cancel(self, id: IdLike, reason: str = "", *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Cancels a job that has not ended (ConflictError for an ended one)."""
        return self._h.act(*self._who(tenant), "cancel", id, reason)

    def retry(self, id: IdLike, *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Starts another run of a FAILED job now (ConflictError when its retries are spent)."""
        return self._h.act(*self._who(tenant), "retry", id, "")

    def set_priority(self, id: IdLike, priority: str, *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Changes a job's priority (``critical``, ``high``, ``normal``, ``low``, ``spot``) within policy."""
        return self._h.act(*self._who(tenant), "priority", id, priority)

    def preempt(self, id: IdLike, reason: str = "", *, tenant: Optional[IdLike] = None) -> StoredJob:
        """Preempts a running job: it goes back to the queue with its full duration."""
        return self._h.act(*self._who(tenant), "preempt", id, reason)

    def jobs(self, *, tenant: Optional[IdLike] = None, limit: Optional[int] = None, **filters: Any) -> JobTable:
        """Every job matching the filters (status, project_id, pipeline_id, job_type, source,
        created_from, created_to), newest first, as a :class:`JobTable`."""
        who = self._who(tenant)
        return JobTable(_every_page(lambda q: self._h.list(*who, q), filters, limit))

    def watch(self, since: int = 0, *, follow: bool = False, poll_seconds: float = 0.5,
              tenant: Optional[IdLike] = None) -> Iterator[Event]:
        """The tenant's events after ``since``, in order. With ``follow`` the iterator waits for
        new events (a system-clock platform); otherwise it ends at the last one."""
        who = self._who(tenant)
        while True:
            page = self._h.events(*who, since, 1000)
            for e in page["events"]:
                yield Event.from_dict(e)
            since = page["last_seq"]
            if page["events"]:
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
    def run_pipeline(self, document: Mapping[str, Any], params: Optional[Mapping[str, Any]] = None, *,
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

    def ha_status(self) -> dict:
        """This replica's view of the election (docs/ha.md): {'role': 'single' | 'leader' |
        'follower', 'replica', 'epoch', 'lease', 'replicas'}."""
        return self._h.ha_status()

    def cluster(self, *, tenant: Optional[IdLike] = None) -> dict:
        """What the cluster holds ({'workloads', 'usage'}), and with a placement policy its GPU
        pools' fragmentation ('gpu': per flavor, see docs/gpu.md), as the caller sees it: the
        tenant's runs by job id, other tenants' runs named ``[hidden <token>]`` with no tenant
        and no message (a platform admin sees every run). Needs the ``list`` right on jobs."""
        return self._h.cluster_view(*self._who(tenant))

    def cluster_all(self) -> dict:
        """The operator's view of :meth:`cluster`: every tenant's runs by job id, no caller
        checked. For tools that hold the platform's configuration, not for tenants' code."""
        return self._h.cluster()

    def gpu_defrag(self, id: IdLike, *, tenant: Optional[IdLike] = None) -> "DefragPlan":
        """The cheapest defragmentation plan for one of the tenant's jobs that the quota admitted
        and no node of its flavor takes yet (``cluster.placement_policy``; docs/gpu.md "In the
        platform"), over the runs on its flavor with the timeline's estimated ends; other
        tenants' runs are named ``[hidden <token>]`` (a keyed digest of the run). Advice only: nothing is applied. A
        :class:`budcore.gpu.DefragPlan` (``kind``, ``cost``, ``to_pandas()``, ``plot()``)."""
        from .gpu import DefragPlan
        return DefragPlan(self._h.gpu_defrag(*self._who(tenant), id))

    def gpu_defrag_apply(self, id: IdLike, plan: Optional[Mapping[str, Any]] = None, *, tenant: Optional[IdLike] = None) -> "DefragPlan":
        """Applies the defragmentation plan for one of the tenant's jobs that waits for
        placement: the runs it moves are evicted and placed where it names (keeping their
        quota), a MIG GPU it names is re-partitioned, and the job starts. ``plan`` is what
        :meth:`gpu_defrag` returned (a DefragPlan or its dict); a stale one (the cluster
        changed since) raises :class:`budcore.ConflictError` naming the first difference.
        None applies the plan made now. A :class:`budcore.gpu.DefragPlan` with ``applied``."""
        from .gpu import DefragPlan
        if isinstance(plan, DefragPlan):
            plan = dict(plan)
        return DefragPlan(self._h.gpu_defrag_apply(*self._who(tenant), id, plan))

    def check(self) -> None:
        """Raises budcore.InternalError naming what differs when a crash-safety invariant fails."""
        self._h.check()

    # -- security (docs/security.md) -----------------------------------------------------------
    def bind_role(self, principal: str, role: str, *, project: Optional[IdLike] = None, tenant: Optional[IdLike] = None) -> dict:
        """Grants ``role`` (viewer, editor, admin, tenant-admin, platform-admin) to ``principal``
        ("user:NAME" or "sa:NAME") on ``project`` (a UUID) or the whole tenant. Needs
        tenant-admin (platform-admin for platform-admin). Returns the binding record."""
        binding = {"principal": principal, "role": role, "project_id": None if project is None else str(project)}
        return self._h.bind_role(*self._who(tenant), binding, True)

    def unbind_role(self, principal: str, role: str, *, project: Optional[IdLike] = None, tenant: Optional[IdLike] = None) -> None:
        """Revokes a binding (budcore.NotFoundError when there is none)."""
        binding = {"principal": principal, "role": role, "project_id": None if project is None else str(project)}
        self._h.bind_role(*self._who(tenant), binding, False)

    def role_bindings(self, principal: Optional[str] = None, *, tenant: Optional[IdLike] = None) -> list[dict]:
        """The tenant's role bindings (of one principal when given); tenant admins."""
        return self._h.role_bindings(*self._who(tenant), principal)["items"]

    def audit(self, *, tenant: Optional[IdLike] = None, limit: Optional[int] = None, **query: Any) -> list[dict]:
        """The tenant's audit log, oldest first (tenant admins): every entry matching ``actor``,
        ``object_type``, ``object_id``, ``from``/``to`` (RFC 3339), each with its ``hash``."""
        who = self._who(tenant)
        return _every_page(lambda q: self._h.audit(*who, q), query, limit)

    def verify_audit(self, *, tenant: Optional[IdLike] = None, anchors: Optional[list[str]] = None) -> dict:
        """Checks every tenant's audit chain and head (platform admins): {'ok', 'entries',
        'head_hash', 'heads', 'problems', ...}; a broken chain is ok False, not an exception.
        ``anchors``: entry hashes kept outside the store (heads published earlier, as
        ``security.audit_anchor`` does); each must still be chained, else it is a problem."""
        return self._h.verify_audit(*self._who(tenant), list(anchors or []))

    def compact(self, *, tenant: Optional[IdLike] = None) -> dict:
        """Compacts the store now by the config's ``retention`` (platform admins; the leader also
        does it every ``retention.interval_seconds``): {'events_removed', 'audit_removed',
        'usage_removed', 'checkpoints': [{'tenant', 'log', 'seq', 'hash', 'at'}]}. A watch from
        before a tenant's event checkpoint then raises :class:`budcore.GoneError`."""
        return self._h.compact(*self._who(tenant))

    def __repr__(self) -> str:
        return f"Platform(tenant={self.tenant!r}, closed={self.closed})"


class SimulationResult:
    """A what-if scenario's outcome: ``jobs`` (rows), ``log`` (what happened), ``table`` (the
    text table), ``pipelines``, ``metrics``; ``to_pandas()`` gives the jobs as a DataFrame."""

    def __init__(self, d: Mapping[str, Any]):
        self._d = dict(d)
        self.jobs: list[dict] = self._d["jobs"]
        self.log: list[str] = self._d["log"]
        self.table: str = self._d["table"]
        self.pipelines: list[dict] = self._d["pipelines"]
        self.metrics: str = self._d["metrics"]
        self.start: str = self._d["start"]
        self.end: str = self._d["end"]

    def to_dict(self) -> dict:
        """The simulation's document as the library wrote it."""
        return dict(self._d)

    def to_pandas(self):
        """One row per job of the scenario. Requires pandas."""
        import pandas as pd

        return pd.DataFrame(self.jobs)

    def _repr_html_(self) -> str:
        # Names first; times are seconds after the scenario's start.
        columns = ("name", "status", "tenant", "job_type", "priority", "cluster_queue", "flavor", "started_at",
                   "ended_at", "wait_seconds", "preemptions", "message")
        n = len(self.jobs)
        return html_table(self.jobs, columns, f"{n} job{'' if n == 1 else 's'}, {self.start} to {self.end}")

    def __repr__(self) -> str:
        return f"SimulationResult({len(self.jobs)} jobs, {self.start} .. {self.end})"


def simulate(scenario: Union[Mapping[str, Any], str, PathLike]) -> SimulationResult:
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
    return SimulationResult(platform_simulate(scenario, base))
