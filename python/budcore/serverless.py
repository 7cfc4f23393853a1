"""budcore.serverless: a request trace replayed through a serverless endpoint.

:func:`simulate` runs ``budcore serverless simulate`` (docs/serverless.md): the trace (the
Azure LLM inference format) goes through the endpoint's request queue, warm pool and one or more
autoscaling policies on a virtual clock. The result is a :class:`ServerlessSimulation`: the dict
the CLI prints with ``--format json`` (``reports``, one per policy), plus ``.to_pandas()`` (a
row per policy) and ``.report(policy)``.

    s = budcore.serverless.simulate("endpoint.yaml", "trace.csv", policy="all")
    s.to_pandas()[["policy", "wait_p95", "cold_starts", "cost"]]
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any, Mapping, Sequence, Union

from ._core import SERVERLESS_POLICY_NAMES, serverless_simulate as _simulate
from .results import Result

__all__ = ["REPORT_COLUMNS", "ServerlessSimulation", "policy_names", "simulate"]

#: Columns of :meth:`ServerlessSimulation.to_pandas`, in order.
REPORT_COLUMNS = ("policy", "requests", "admitted", "completed", "timeouts", "failed", "dead_letters", "sla_misses",
                  "preemptions", "wait_p50", "wait_p95", "wait_p99", "end_to_end_p50", "end_to_end_p95",
                  "end_to_end_p99", "cold_starts", "peak_workers", "busy_gpu_seconds", "idle_gpu_seconds",
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
        return [r["policy"] for r in self.get("reports", [])]

    def report(self, policy: str) -> dict[str, Any]:
        """The report of one policy."""
        for r in self.get("reports", []):
            if r["policy"] == policy:
                return r
        raise KeyError(policy)

    def rows(self) -> list[dict]:
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
             policy: Union[str, Sequence[str]] = "queue_depth") -> ServerlessSimulation:
    """Replay ``trace`` (a path or the CSV text) through ``endpoint`` (a dict, JSON/YAML text,
    or a file path) under ``policy``: ``"queue_depth"`` (default), ``"all"``, a name, names
    separated by commas, or a list of names (:func:`policy_names`). Bad input raises
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
    return ServerlessSimulation(_simulate(doc, trace_text, policies, trace_name))
