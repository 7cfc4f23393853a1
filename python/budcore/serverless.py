"""budcore.serverless: a request trace replayed through a serverless endpoint.

:func:`simulate` runs ``budcore serverless simulate`` (docs/serverless.md): the trace (the
Azure LLM inference format) goes through the endpoint's request queue, warm pool and one or more
autoscaling policies on a virtual clock. The result is a :class:`ServerlessSimulation`: the dict
the CLI prints with ``--format json`` (``reports``, one per policy), plus ``.to_pandas()`` (a
row per policy) and ``.report(policy)``.

    s = budcore.serverless.simulate("endpoint.yaml", "trace.csv", policy="all")
    s.to_pandas()[["policy", "wait_p95", "cold_starts", "cost"]]

:class:`DurableQueue` is an endpoint's request queue kept in a store (docs/serverless.md
"Durable queue"): requests survive the process that accepted them and the workers that serve
them; a claim is leased, and a completion counts only for the claim the request is under.

    q = budcore.serverless.DurableQueue(budcore.open_store("queue.db"), "endpoint.yaml")
    q.enqueue([{"tenant": "acme", "priority": "premium"}])
    for r in q.claim("worker-1", max=10, lease_seconds=30):
        q.complete(r["id"], r["claim"])
"""

from __future__ import annotations

import builtins
import os
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence, Union

from ._core import SERVERLESS_POLICY_NAMES, serverless_simulate as _simulate
from ._core import serverless_endpoint_name as _endpoint_name
from ._core import (serverless_queue_claim as _q_claim, serverless_queue_enqueue as _q_enqueue,
                    serverless_queue_finish as _q_finish, serverless_queue_list as _q_list,
                    serverless_queue_status as _q_status)
from .results import Result

if TYPE_CHECKING:  # names the annotations use
    import uuid

    from ._core import Store
    from .platform import Platform

__all__ = ["DEFAULT_OWNER", "DurableQueue", "PlatformEndpoint", "REPORT_COLUMNS", "ServerlessSimulation", "policy_names", "simulate"]

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


class ServerlessSimulation(Result):
    """A trace replay: ``reports``, one per policy (endpoint, policy, requests, admitted,
    completed, timeouts, wait_seconds, end_to_end_seconds, cold_starts, cost, ...)."""

    COLUMNS = REPORT_COLUMNS

    @property
    def policies(self) -> list[str]:
        """The policies compared, in the order of the table."""
        return [r["policy"] for r in self.get("reports", [])]

    def report(self, policy: str) -> dict[str, Any]:
        """The report of one policy."""
        for r in self.get("reports", []):
            if r["policy"] == policy:
                return r
        raise KeyError(policy)

    def rows(self) -> list[dict]:
        """One dict per policy: waits, latencies, cold starts, SLA misses, GPU-seconds and cost."""
        out = []
        for r in self.get("reports", []):
            row = {c: r.get(c) for c in REPORT_COLUMNS}
            for name, key in (("wait", "wait_seconds"), ("end_to_end", "end_to_end_seconds")):
                for q in ("p50", "p95", "p99"):
                    row[f"{name}_{q}"] = r.get(key, {}).get(q)
            row["cost"] = Decimal(r["cost"]) if r.get("cost") is not None else None
            out.append(row)
        return out

    def caption(self) -> str:
        """The trace and endpoint the table compares policies on."""
        reports = self.get("reports", [])
        endpoint = reports[0]["endpoint"] if reports else ""
        return f"endpoint {endpoint}: {len(reports)} policies"


def _text(source: Union[str, "os.PathLike[str]"]) -> tuple[str, str]:
    if isinstance(source, str) and "\n" in source:
        return source, "trace"
    path = os.fspath(source)
    with open(path, encoding="utf-8") as f:
        return f.read(), path


def simulate(endpoint: Union[Mapping[str, Any], str, "os.PathLike[str]"], trace: Union[str, "os.PathLike[str]"],
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
        doc: Any = dict(endpoint)
    elif isinstance(endpoint, str) and ("\n" in endpoint or endpoint.lstrip().startswith("{")):
        doc = endpoint
    else:
        with open(os.fspath(endpoint), encoding="utf-8") as f:
            doc = f.read()
    trace_text, trace_name = _text(trace)
    policies = policy if isinstance(policy, str) else ",".join(policy)
    return ServerlessSimulation(_simulate(doc, trace_text, policies, trace_name, until_scaled_down))


def _endpoint_doc(endpoint: Union[Mapping[str, Any], str, "os.PathLike[str]"]) -> Any:
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

    def __init__(self, store: Store, endpoint: Union[Mapping[str, Any], str, "os.PathLike[str]"],
                 owner: str = DEFAULT_OWNER) -> None:
        self.store = store
        self.owner = owner
        self._doc = _endpoint_doc(endpoint)
        self.endpoint: str = _endpoint_name(self._doc)

    def enqueue(self, submissions: Sequence[Mapping[str, Any]]) -> list[dict]:
        """Admit, score and store ``submissions`` ({tenant, payload_hash, payload_size_bytes,
        estimated_compute_seconds, priority}): one ``{"id", "deduplicated"}`` per accepted
        request, or ``{"id": 0, "refusal", "error"}`` (``queue_full``, ``payload_too_large``,
        ``tenant_concurrency``)."""
        return _q_enqueue(self.store, self.owner, self._doc, [dict(s) for s in submissions])

    def claim(self, worker: str, max: int = 1, lease_seconds: float = 30.0) -> list[dict]:
        """Claim up to ``max`` pending requests, highest score first, each leased for
        ``lease_seconds``; report on each with its ``"claim"`` token."""
        return _q_claim(self.store, self.owner, self.endpoint, worker, max, lease_seconds)

    def finish(self, reports: Sequence[Mapping[str, Any]]) -> list[dict]:
        """Apply ``{"id", "claim", "outcome": "start" | "renew" | "complete" | "fail", "reason",
        "lease_seconds"}`` reports in one transaction: ``{"id", "ok", "status"}`` each (``ok`` is
        False when the request is no longer under that claim)."""
        return _q_finish(self.store, self.owner, [dict(r) for r in reports])

    def complete(self, id: int, claim: int) -> dict:
        """Marks claimed request ``id`` COMPLETED (ConflictError when ``claim`` is no longer the worker's)."""
        return self.finish([{"id": id, "claim": claim, "outcome": "complete"}])[0]

    def fail(self, id: int, claim: int, reason: str = "") -> dict:
        """Marks claimed request ``id`` failed: retried while attempts remain, else dead-lettered."""
        return self.finish([{"id": id, "claim": claim, "outcome": "fail", "reason": reason}])[0]

    def status(self) -> dict:
        """``{"pending", "in_flight", "completed", "failed", "timeout", "tenant_active"}``."""
        return _q_status(self.store, self.owner, self.endpoint)

    def list(self, statuses: Sequence[str] = (), after: int = 0, limit: int = 1000) -> list[dict]:
        """The requests with an id above ``after``, by id (of ``statuses``; any when empty)."""
        return _q_list(self.store, self.owner, self.endpoint, list(statuses), after, limit)

    def dead_letters(self, after: int = 0, limit: int = 1000) -> builtins.list[dict]:
        """FAILED and TIMEOUT requests, with the reason in ``last_error``."""
        return self.list(["failed", "timeout"], after, limit)


class PlatformEndpoint:
    """A serverless endpoint whose warm workers are SERVICE jobs on ``platform`` (a
    :class:`budcore.Platform`), owned by ``tenant`` (default: the platform's tenant) and admitted
    by the serverless ClusterQueue: growing the pool waits for quota or takes it back from
    lower-priority work by the platform's Kueue rules; shrinking it cancels worker jobs.
    ``endpoint`` is a dict, JSON/YAML text or a file path. Drive the platform
    (``platform.run(seconds)``) and call :meth:`scale` (``None``: only read) to see the workers
    move. One thread drives an endpoint at a time."""

    def __init__(self, platform: Platform, endpoint: Union[Mapping[str, Any], str, "os.PathLike[str]"],
                 tenant: Optional[Union[str, uuid.UUID]] = None, worker_priority: str = "high", image: str = "") -> None:
        self.platform = platform
        who = platform._who(tenant)
        self._h = platform._h.serverless_endpoint(*who, _endpoint_doc(endpoint), worker_priority, image)

    def scale(self, desired: Union[int, None] = None) -> dict:
        """Reads the workers' jobs, then grows or shrinks the pool to ``desired`` (clamped to the
        warm pool's bounds). Returns the status: ``queued``, ``starting``, ``ready``, ``busy``,
        ``pending``, ``in_flight``, ``cold_starts``, ``stopped``, ``failed_starts`` (workers
        cancelled when their warm-up passed ``warmup_timeout_seconds``), ``workers``, ...
        :class:`budcore.BudgetExceededError` when a hard budget refuses a worker."""
        return self._h.scale(desired)

    def status(self) -> dict:
        """The workers as the platform has them now (``scale(None)``)."""
        return self._h.scale(None)

    def enqueue(self, submissions: Sequence[Mapping[str, Any]]) -> dict:
        """Admits ``submissions`` ({tenant, payload_hash, payload_size_bytes,
        estimated_compute_seconds, priority}) and places what can run now (warm worker, else a
        cold start, else preempt a lower class, else wait): ``{"results", "assignments"}``."""
        return self._h.enqueue([dict(s) for s in submissions])

    def complete(self, request: int) -> dict:
        """Request ``request`` completed; places what can run now: ``{"assignments"}``."""
        return self._h.finish(request, "")

    def fail(self, request: int, reason: str) -> dict:
        """A failed attempt of ``request`` (retried while attempts remain)."""
        return self._h.finish(request, reason)

    def meter(self) -> list[dict]:
        """Writes the workers' GPU time since their last rows as usage rows of the owner tenant
        (labels ``serverless_endpoint``; ``idle_gpu_seconds`` the time without a request), which
        cost reports, budgets and chargeback read; returns them. The budgets are checked at
        once: threshold alerts, and ``stop_running`` budgets stop the workers they cover."""
        return self._h.meter()
