"""budcore.gpu: GPU placement policies replayed on the Alibaba GPU cluster trace.

:func:`replay` runs the experiment of ``budcore gpu replay`` (docs/gpu.md): tasks drawn with
replacement (seeded) from the trace's pod list arrive one by one on its node list and are placed
by each policy; as the arrived GPU demand grows past the cluster's capacity, the share of GPU
capacity left unallocated is recorded. The result is a :class:`GpuReplay` record of what the
CLI prints with ``--format json`` (its ``to_dict()``), with ``.to_pandas()`` (a row per policy and recorded load) and
``.plot()`` (unallocated share against arrived load, one line per policy; matplotlib).

    r = budcore.gpu.replay("nodes.csv", "pods.csv", policy=["fgd", "best_fit"], seed=7)
    r.to_pandas()   # policy, arrived_load, unallocated_share, fragmentation_share, arrived, failed
    r.plot()

:func:`defrag` answers ``budcore gpu defrag``: for a pending request that no node takes, the
cheapest plan (move workloads, wait for them, or re-partition a MIG GPU) and its cost in
GPU-seconds, as a :class:`DefragPlan` (``.to_pandas()``: one row per move or wait).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Sequence, TypedDict, Union, cast

from ._core import gpu_defrag as _defrag, gpu_place_mig as _place_mig, gpu_policy_names, gpu_replay as _replay
from .results import Record, document_field
from .types import Document, JsonObject

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["DefragMove", "DefragPlan", "DefragPlanDocument", "GpuReplay", "MigPlacement", "MigPlacementResult", "PLAN_COLUMNS", "POINT_COLUMNS",
           "PolicyReplay", "ReplayPoint", "defrag", "place_mig", "policy_names", "replay"]

#: Columns of :meth:`DefragPlan.to_pandas`, in order.
PLAN_COLUMNS = ("action", "workload", "from_node", "to_node", "cost_gpu_seconds")

#: Columns of :meth:`GpuReplay.to_pandas`, in order.
POINT_COLUMNS = ("policy", "arrived_load", "unallocated_share", "fragmentation_share", "arrived", "failed")

Csv = Union[str, "os.PathLike[str]"]
Problem = Union[Document, str, "os.PathLike[str]"]  # a dict, JSON text or a path


#: A workload a defragmentation plan moves: from one node to another, at a cost in GPU-seconds.
DefragMove = TypedDict("DefragMove", {"workload": str, "from": str, "to": str, "cost_gpu_seconds": float})
DefragMove.__doc__ = """A workload a defragmentation plan moves: ``from`` one node ``to`` another, at a cost in GPU-seconds."""


class _DefragPlanDocumentBase(TypedDict):
    kind: str
    node: str
    moves: List[DefragMove]
    wait_for: List[str]
    cost_gpu_seconds: float
    summary: str


class DefragPlanDocument(_DefragPlanDocumentBase, total=False):
    """The plan of a :class:`DefragPlan`: its ``kind`` (fits_now, move, wait, repartition), the
    ``node`` it makes room on, the ``moves``, the runs to ``wait_for``, its cost and summary."""

    gpus: List[int]
    wait_seconds: float
    repartition: Optional[List[JsonObject]]


class ReplayPoint(TypedDict):
    """One recorded point of a policy's replay: the arrived GPU load (a share of capacity), the
    share of GPU capacity left unallocated and fragmented, tasks arrived and failed so far."""

    arrived_load: float
    unallocated_share: float
    fragmentation_share: float
    arrived: int
    failed: int


class PolicyReplay(TypedDict):
    """One policy's replay: its recorded points and the first point at which a task failed to
    place (None: none failed)."""

    policy: str
    points: List[ReplayPoint]
    first_failure: Optional[ReplayPoint]


class MigPlacement(TypedDict):
    """Where :func:`place_mig` puts the instance: node, GPU index and instance index, the GPU's
    new layout when it is re-partitioned (else None) and how many idle instances that drops."""

    node: str
    gpu: int
    instance: int
    repartition: Optional[List[str]]
    dropped: int


@dataclass(frozen=True)
class MigPlacementResult(Record):
    """:func:`place_mig`'s answer: the placement (None: no GPU admits the profile), whether it
    was applied and, when it was, the ``workloads`` after it."""

    placement: Optional[MigPlacement] = None
    applied: bool = False
    workloads: List[JsonObject] = field(default_factory=list)
    document: JsonObject = document_field()

    def caption(self) -> str:
        """Where the instance goes, or that no GPU admits it."""
        p = self.placement
        return "no GPU admits the profile" if p is None else f"node {p['node']}, GPU {p['gpu']}, instance {p['instance']}"


def policy_names() -> list[str]:
    """The placement policies, in the order ``policy="all"`` runs them."""
    return list(gpu_policy_names())


@dataclass(frozen=True)
class GpuReplay(Record):
    """A trace replay: nodes, gpus, tasks, seed and results (one per policy: policy, points,
    first_failure)."""

    COLUMNS = POINT_COLUMNS
    nodes: int = 0
    gpus: int = 0
    tasks: int = 0
    seed: int = 0
    results: List[PolicyReplay] = field(default_factory=list)
    document: JsonObject = document_field()

    @property
    def policies(self) -> list[str]:
        """The policies replayed, in order."""
        return [r["policy"] for r in self.results]

    def curve(self, policy: str) -> list[ReplayPoint]:
        """The recorded points of one policy."""
        for r in self.results:
            if r["policy"] == policy:
                return list(r["points"])
        raise KeyError(policy)

    def rows(self) -> list[dict[str, object]]:
        """One dict per (policy, arrived load) point of the replay."""
        return [dict(point, policy=r["policy"]) for r in self.results for point in r["points"]]

    def caption(self) -> str:
        """What a notebook shows above the table."""
        return f"{self.tasks} tasks on {self.nodes} nodes ({self.gpus} GPUs), seed {self.seed}"

    def plot(self, ax: Optional[Axes] = None, *, title: Optional[str] = None) -> Axes:
        """Unallocated GPU share (percent) against arrived GPU load (percent of capacity), one
        line per policy; returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 4))
        for r in self.results:
            xs = [100 * p["arrived_load"] for p in r["points"]]
            ys = [100 * p["unallocated_share"] for p in r["points"]]
            ax.plot(xs, ys, marker=".", label=r["policy"])
        ax.set_xlabel("arrived GPU load (% of capacity)")
        ax.set_ylabel("unallocated GPU (% of capacity)")
        ax.set_title(title or f"GPU trace replay: {self.caption()}")
        ax.legend()
        return ax


def _csv(source: Csv, default_name: str) -> tuple[str, str]:
    """(text, name for errors) of CSV text or a file path."""
    if isinstance(source, str) and "\n" in source:
        return source, default_name
    path = os.fspath(source)
    with open(path, encoding="utf-8") as f:
        return f.read(), path


def replay(nodes: Csv, pods: Csv, policy: Union[str, Sequence[str]] = "all", *, seed: int = 1,
           max_load: float = 1.3, step: float = 0.05) -> GpuReplay:
    """Replay the trace with one or more placement policies.

    ``nodes`` and ``pods`` are the openb CSV files (a path, or the CSV text itself);
    ``policy`` is ``"all"``, one name, names separated by commas, or a list of names
    (:func:`policy_names`). ``seed`` draws the task sequence (the same for every policy);
    the run stops at ``max_load`` (arrived GPU demand / capacity) and records a point every
    ``step``. Bad input raises :class:`budcore.ValidationError` naming the field
    (``"pods.csv:3.cpu_milli"``, ``"policy"``, ``"max_load"``)."""
    nodes_text, nodes_name = _csv(nodes, "nodes")
    pods_text, pods_name = _csv(pods, "pods")
    policies = policy if isinstance(policy, str) else ",".join(policy)
    return GpuReplay.from_dict(_replay(nodes_text, pods_text, policies, seed, max_load, step, nodes_name, pods_name))


@dataclass(frozen=True)
class DefragPlan(Record):
    """A defragmentation answer: ``plan`` (kind, node, gpus, moves, wait_for, wait_seconds,
    repartition, cost_gpu_seconds, summary; None when nothing may make room), ``applied`` and,
    when applied, ``workloads`` after the plan."""

    COLUMNS = PLAN_COLUMNS
    plan: Optional[DefragPlanDocument] = None
    applied: bool = False
    workloads: List[JsonObject] = field(default_factory=list)
    document: JsonObject = document_field()

    @property
    def kind(self) -> Optional[str]:
        """fits_now, move, wait, repartition, or None without a plan."""
        return self.plan["kind"] if self.plan else None

    @property
    def cost(self) -> float:
        """The plan's cost in GPU-seconds of disruption (0 without a plan)."""
        return float(self.plan["cost_gpu_seconds"]) if self.plan else 0.0

    def rows(self) -> list[dict[str, object]]:
        """One dict per action of the plan (:data:`PLAN_COLUMNS`): each move, then each run to
        wait for; empty without a plan."""
        plan = self.plan
        if not plan:
            return []
        rows: list[dict[str, object]] = [{"action": "move", "workload": m["workload"], "from_node": m["from"], "to_node": m["to"],
                 "cost_gpu_seconds": m["cost_gpu_seconds"]} for m in plan["moves"]]
        rows += [{"action": "wait", "workload": w, "from_node": plan["node"], "to_node": None,
                  "cost_gpu_seconds": None} for w in plan["wait_for"]]
        return rows

    def caption(self) -> str:
        """The plan's one-line summary (``"no plan"`` without one)."""
        return self.plan["summary"] if self.plan else "no plan"

    def plot(self, ax: Optional[Axes] = None, *, title: Optional[str] = None) -> Axes:
        """The plan's disruption in GPU-seconds, one bar per workload it moves (a wait: one bar,
        the request's GPUs x the wait, for the workloads waited for); returns the matplotlib Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 3))
        plan = self.plan
        labels: list[str] = []
        costs: list[float] = []
        if plan:
            for m in plan["moves"]:
                labels.append(f"move {m['workload']}: {m['from']} -> {m['to']}")
                costs.append(float(m["cost_gpu_seconds"]))
            if plan["wait_for"]:
                labels.append("wait for " + ", ".join(plan["wait_for"]))
                costs.append(float(plan["cost_gpu_seconds"]))
        ax.barh(labels, costs)
        ax.invert_yaxis()
        ax.set_xlabel("disruption (GPU-seconds)")
        ax.set_title(title or self.caption())
        return ax


def _problem(problem: Problem, apply: Optional[bool]) -> dict[str, object]:
    doc: dict[str, object]
    if isinstance(problem, dict):
        doc = dict(problem)
    elif isinstance(problem, str) and problem.lstrip().startswith("{"):
        doc = json.loads(problem)
    else:
        with open(os.fspath(cast("Union[str, os.PathLike[str]]", problem)), encoding="utf-8") as f:
            doc = json.load(f)
    if apply is not None:
        doc["apply"] = bool(apply)
    return doc


def place_mig(problem: Problem, *, apply: Optional[bool] = None) -> MigPlacementResult:
    """MIG-aware placement (docs/gpu.md "MIG-aware placement") of one instance of the problem's
    ``request.mig_profile``: a free instance of the profile, else a new one where a MIG GPU's
    layout admits it under NVIDIA's rules, re-partitioning that GPU. ``problem`` is a problem
    document as :func:`defrag` reads it. Returns ``{"placement": {"node", "gpu", "instance",
    "repartition", "dropped"} | None, "applied"}`` (and ``workloads`` with ``apply=True``).
    Bad input raises :class:`budcore.ValidationError` naming the field."""
    return MigPlacementResult.from_dict(_place_mig(json.dumps(_problem(problem, apply))))


def defrag(problem: Problem, *, apply: Optional[bool] = None) -> DefragPlan:
    """The cheapest plan that makes a pending request fit (docs/gpu.md "Defragmentation plans").

    ``problem`` is the problem document as a dict, its JSON text, or a path to it: ``nodes``,
    ``workloads`` (what runs where, with priority, elapsed_seconds and ends_in_seconds),
    ``request`` (num_gpu and gpu_milli, or mig_profile; priority). ``apply=True`` applies the
    plan and returns the workloads after it. Bad input raises :class:`budcore.ValidationError`
    naming the field (``"workloads[1].gpus[0]"``)."""
    return DefragPlan.from_dict(_defrag(json.dumps(_problem(problem, apply))))
