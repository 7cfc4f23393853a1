"""budcore.quota: Kueue's quota model and admission in-process.

Build a :class:`QuotaConfig` from dicts (the ``budcore quota simulate`` shape, docs/cli.md
contract 2), a JSON/YAML file, or Kueue's own YAML; run a whole scenario with :func:`simulate`;
or drive an :class:`AdmissionEngine` cycle by cycle and read its usage views.
:func:`usage_frame` gives usage as a pandas DataFrame (pandas is imported only when called).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, TypedDict, Union, cast

from ._core import AdmissionEngine, Quantity, QuotaConfig, ValidationError, load_document
from ._core import quota_simulate as _quota_simulate
from .results import QuotaSimulation, Rows
from .types import Document

if TYPE_CHECKING:
    from pandas import DataFrame

__all__ = [
    "AdmissionEngine",
    "PodSet",
    "QuotaConfig",
    "USAGE_COLUMNS",
    "UsageRow",
    "Workload",
    "config",
    "load",
    "load_kueue",
    "simulate",
    "usage_frame",
    "usage_table",
    "workload",
]

#: The quota amounts of a usage row, in this order.
USAGE_COLUMNS = ("nominal", "used", "borrowed", "lent", "available")
_VIEWS = ("cluster_queue", "cohort", "local_queue")

PathLike = Union[str, "os.PathLike[str]"]

#: A row of :func:`usage_table`: the view's node (``cluster_queue``, ``cohort`` or
#: ``local_queue``), ``flavor`` and ``resource`` names, then the amounts (float units or int
#: milli-units).
UsageRow = Dict[str, Union[str, float, int]]
Usage = Mapping[str, Mapping[str, Mapping[str, str]]]  # a simulation's usage: queue -> flavor -> resource -> amount


class _PodSetBase(TypedDict):
    name: str
    count: int
    requests: Dict[str, Union[str, int]]


class PodSet(_PodSetBase, total=False):
    """A pod set of a workload: ``count`` pods, each requesting ``requests`` (quantities);
    ``min_count`` for partial admission."""

    min_count: int


class Workload(TypedDict):
    """A workload in the contract-2 shape, as :func:`workload` builds it."""

    name: str
    namespace: str
    queue: str
    priority: int
    creation_seq: int
    pod_sets: List[PodSet]


def config(data: Optional[Document] = None, **sections: object) -> QuotaConfig:
    """A validated QuotaConfig from a dict and/or keyword sections.

    ``config(cluster_queues=[...], resource_flavors=[...])`` is the same as
    ``config({"cluster_queues": [...], "resource_flavors": [...]})``; keywords override keys of
    ``data``. Raises budcore.ValidationError naming the offending path.
    """
    merged = dict(data or {})
    merged.update(sections)
    return QuotaConfig.from_dict(merged)


def load(path: PathLike) -> QuotaConfig:
    """A budcore quota configuration (or scenario) file, JSON or YAML."""
    return QuotaConfig.load(os.fspath(path))


def load_kueue(source: Union[PathLike, str]) -> QuotaConfig:
    """Kueue objects: a YAML file, a directory of them, or multi-document YAML text."""
    if isinstance(source, str) and ("\n" in source or source.lstrip().startswith(("apiVersion", "kind", "{", "---"))):
        return QuotaConfig.from_kueue_yaml(source)
    return QuotaConfig.load_kueue(os.fspath(source))


def workload(
    name: str,
    queue: str,
    requests: Mapping[str, Union[str, int, Quantity]],
    *,
    namespace: str = "default",
    count: int = 1,
    min_count: Optional[int] = None,
    priority: int = 0,
    creation_seq: int = 0,
    pod_set: str = "main",
) -> Workload:
    """A one-pod-set workload dict in the contract-2 shape (requests are per pod)."""
    ps: PodSet = {
        "name": pod_set,
        "count": count,
        "requests": {k: str(v) if isinstance(v, Quantity) else v for k, v in requests.items()},
    }
    if min_count is not None:
        ps["min_count"] = min_count
    return {
        "name": name,
        "namespace": namespace,
        "queue": queue,
        "priority": priority,
        "creation_seq": creation_seq,
        "pod_sets": [ps],
    }


def simulate(
    scenario: Union[Document, str, "os.PathLike[str]", None] = None,
    *,
    config: Optional[QuotaConfig] = None,
    workloads: Optional[Sequence[Document]] = None,
    cycles: Union[int, str, None] = None,
    fair_sharing: Optional[bool] = None,
) -> QuotaSimulation:
    """Run a scenario and return the contract-2 output (a dict; ``.to_pandas()`` gives a row per workload).

    ``scenario`` is a dict, JSON text or a path (os.PathLike, or a str naming an existing
    JSON/YAML file). Alternatively (or on top) give ``config`` (a QuotaConfig) and
    ``workloads``; ``cycles`` (an int or "until_quiescent") and ``fair_sharing`` override the
    scenario's. Returns ``{"admitted", "preempted", "pending", "usage", "cycles_run"}``. The
    simulation runs without the GIL.
    """
    doc: dict[str, object]
    if scenario is None:
        doc = {}
    elif isinstance(scenario, Mapping):
        doc = dict(scenario)
    elif isinstance(scenario, str) and scenario.lstrip().startswith("{"):
        if config is None and workloads is None and cycles is None and fair_sharing is None:
            return QuotaSimulation.from_dict(_quota_simulate(scenario))
        doc = json.loads(scenario)
    else:
        loaded = load_document(os.fspath(scenario))
        if not isinstance(loaded, dict):
            raise ValidationError(f"{os.fspath(scenario)}: a scenario must be a map")
        doc = dict(loaded)
    if config is not None:
        doc.update(config.to_dict())
    if workloads is not None:
        doc["workloads"] = list(workloads)
    if cycles is not None:
        doc["cycles"] = cycles
    if fair_sharing is not None:
        doc["fair_sharing"] = fair_sharing
    return QuotaSimulation.from_dict(_quota_simulate(doc))


def _units(milli: int) -> float:
    return milli / 1000


def usage_table(
    source: Union[AdmissionEngine, QuotaSimulation, Document],
    view: str = "cluster_queue",
    *,
    unit: str = "units",
) -> Rows[UsageRow]:
    """Usage as flat rows (dicts, in a :class:`budcore.results.Rows`: ``to_pandas()``, an HTML
    table), one per (node, flavor, resource).

    ``source`` is an AdmissionEngine (rows carry nominal, used, borrowed, lent and available
    for the ``view``: "cluster_queue", "cohort" or "local_queue") or a :func:`simulate` result
    (rows carry ``used`` per cluster queue). ``unit="units"`` gives floats in the resource's
    base unit (cores, bytes, GPUs); ``unit="milli"`` exact integers in milli-units.
    """
    if unit not in ("units", "milli"):
        raise ValueError(f"unit must be 'units' or 'milli', not {unit!r}")
    conv: Callable[[int], Union[float, int]] = _units if unit == "units" else int
    if isinstance(source, AdmissionEngine):
        if view not in _VIEWS:
            raise ValueError(f"view must be one of {_VIEWS}, not {view!r}")
        return Rows(
            {view: node, "flavor": flavor, "resource": resource, **{c: conv(v) for c, v in zip(USAGE_COLUMNS, amounts)}}
            for node, flavor, resource, *amounts in source.usage_rows(view)
        )
    if isinstance(source, QuotaSimulation) or (isinstance(source, Mapping) and "usage" in source):
        if view != "cluster_queue":
            raise ValueError("a simulate() result only has the cluster_queue view")
        rows: Rows[UsageRow] = Rows()
        usage: Usage = source.usage if isinstance(source, QuotaSimulation) else cast(Usage, source["usage"])
        for cq, flavors in usage.items():
            for flavor, resources in flavors.items():
                for resource, used in resources.items():
                    nano = Quantity(used).nano
                    rows.append({"cluster_queue": cq, "flavor": flavor, "resource": resource,
                                 "used": nano / 1e9 if unit == "units" else -(-nano // 1_000_000)})
        return rows
    raise TypeError("usage source must be an AdmissionEngine or a simulate() result")


def usage_frame(
    source: Union[AdmissionEngine, QuotaSimulation, Document],
    view: str = "cluster_queue",
    *,
    unit: str = "units",
) -> DataFrame:
    """:func:`usage_table` as a pandas DataFrame (columns: the view's node, flavor, resource,
    then the amounts). Requires pandas (``pip install budcore[pandas]``)."""
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - exercised only without pandas
        raise ImportError("budcore.quota.usage_frame needs pandas: pip install 'budcore[pandas]'") from e
    rows = usage_table(source, view, unit=unit)
    if isinstance(source, AdmissionEngine):
        columns = [view, "flavor", "resource", *USAGE_COLUMNS]
    else:
        columns = ["cluster_queue", "flavor", "resource", "used"]
    return pd.DataFrame(rows, columns=columns)
