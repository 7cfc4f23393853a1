"""budcore.enums: the closed sets of names budcore reads and writes, as string enums.

Each member is a ``str`` whose value is the name the library writes (``JobStatus.RUNNING ==
"running"``), so a result's enum compares equal to the string code wrote before, formats as it
(``f"{status}"`` is ``"running"``) and goes into JSON unchanged; every function that takes one
accepts the member or its string. Documents (``to_dict()``, the library's dicts) keep the
strings.

    job.status is budcore.JobStatus.COMPLETED      # a member, equal to "completed"
    p.set_priority(job_id, budcore.Priority.HIGH)  # or "high"
    budcore.JobStatus("queued")                    # ValueError for a name outside the set
"""

from __future__ import annotations

import enum
import sys
from typing import Optional, Type, TypeVar

__all__ = ["CheckState", "DeploymentStatus", "DeploymentType", "Granularity", "HaRole", "JobSource", "JobStatus", "JobType", "PipelineStatus", "Priority", "QuantityFormat", "RequestStatus", "Role",
           "ServerlessPriority", "StepState", "Tier", "WaitKind", "WorkerState"]

if sys.version_info >= (3, 11):
    from enum import StrEnum as _StrEnum
else:  # the package runs on 3.9 too: the same behaviour, spelled out

    class _StrEnum(str, enum.Enum):
        """A str enum whose str() and format() are its value (enum.StrEnum before 3.11)."""

        def __str__(self) -> str:
            return str(self.value)

        def __format__(self, spec: str) -> str:
            return format(str(self.value), spec)


class JobStatus(_StrEnum):
    """Where a job is in its life (docs/jobs.md): ``pending`` to ``completed``, ``failed``,
    ``cancelled`` or ``preempted``."""

    PENDING = "pending"
    QUEUED = "queued"
    SCHEDULED = "scheduled"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    PREEMPTED = "preempted"

    @property
    def ended(self) -> bool:
        """True when the run has ended (completed, failed, cancelled or preempted)."""
        return self in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.PREEMPTED)


class Priority(_StrEnum):
    """A job's priority, highest first; ``spot`` is always preemptible."""

    CRITICAL = "critical"
    HIGH = "high"
    NORMAL = "normal"
    LOW = "low"
    SPOT = "spot"


class JobType(_StrEnum):
    """What a job does: a long-running ``service``, a ``batch`` run or ``training``."""

    SERVICE = "service"
    BATCH = "batch"
    TRAINING = "training"


class DeploymentType(_StrEnum):
    """How a job is deployed: a Helm chart, a Docker container or a served model."""

    HELM = "helm"
    DOCKER = "docker"
    MODEL = "model"


class JobSource(_StrEnum):
    """What created a job: an API call (``direct``), a pipeline's JOB step or a use-case deployment."""

    DIRECT = "direct"
    PIPELINE = "pipeline"
    USECASE = "usecase"


class PipelineStatus(_StrEnum):
    """A pipeline run's status."""

    PENDING = "pending"
    RUNNING = "running"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


class StepState(_StrEnum):
    """A pipeline step's state in a run (rehearsed or on a platform)."""

    PENDING = "pending"
    AWAITING_APPROVAL = "awaiting_approval"
    RUNNING = "running"
    RETRYING = "retrying"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    ERRORED = "errored"
    SKIPPED = "skipped"
    OMITTED = "omitted"
    CANCELLED = "cancelled"


class DeploymentStatus(_StrEnum):
    """A use-case deployment's status, as its jobs imply it."""

    DEPLOYING = "deploying"
    RUNNING = "running"
    FAILED = "failed"
    TEARING_DOWN = "tearing_down"
    DELETED = "deleted"


class ServerlessPriority(_StrEnum):
    """A serverless request's class, highest first: ``premium`` may preempt the classes below it."""

    PREMIUM = "premium"
    STANDARD = "standard"
    SPOT = "spot"
    BATCH = "batch"


class RequestStatus(_StrEnum):
    """A durable queue request's status (docs/serverless.md "Durable queue")."""

    PENDING = "pending"
    ASSIGNED = "assigned"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    TIMEOUT = "timeout"


class WorkerState(_StrEnum):
    """A serverless endpoint's worker in its pool: ``queued`` (its job waits for quota),
    ``starting`` (warming up) or ``ready``."""

    QUEUED = "queued"
    STARTING = "starting"
    READY = "ready"


class CheckState(_StrEnum):
    """A Kueue AdmissionCheck's state as the companion answers it (Kueue's names)."""

    PENDING = "Pending"
    READY = "Ready"
    RETRY = "Retry"
    REJECTED = "Rejected"


class HaRole(_StrEnum):
    """A platform replica's part in the election (docs/ha.md): ``single`` (no election),
    ``leader`` or ``follower``."""

    SINGLE = "single"
    LEADER = "leader"
    FOLLOWER = "follower"


class Role(_StrEnum):
    """A role a principal is bound to (docs/security.md), least to most."""

    VIEWER = "viewer"
    EDITOR = "editor"
    ADMIN = "admin"
    TENANT_ADMIN = "tenant-admin"
    PLATFORM_ADMIN = "platform-admin"


class Tier(_StrEnum):
    """How capacity is priced: ``on_demand``, or ``spot`` (cheaper, preemptible)."""

    ON_DEMAND = "on_demand"
    SPOT = "spot"


class Granularity(_StrEnum):
    """The width of a cost rollup's buckets (UTC); ``total`` is one bucket."""

    TOTAL = "total"
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    MONTH = "month"


class QuantityFormat(_StrEnum):
    """How a Kubernetes quantity was written: decimal suffixes (``500m``, ``2G``), binary ones
    (``4Gi``) or an exponent (``1e3``)."""

    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


class WaitKind(_StrEnum):
    """Why a job of a schedule timeline has not started (a WaitReason's ``reason``)."""

    QUOTA = "quota"
    DEPENDENCY = "dependency"
    WINDOW = "window"
    PLACEMENT = "placement"


E = TypeVar("E", bound=_StrEnum)


def _member(kind: Type[E], value: str) -> E:
    """``value`` as a member of ``kind``; a name the enum does not know (a newer library's)
    raises ValueError naming the set."""
    try:
        return kind(value)
    except ValueError:
        names = ", ".join(m.value for m in kind)
        raise ValueError(f"{value!r} is not a {kind.__name__} ({names})") from None


def _optional_member(kind: Type[E], value: Optional[str]) -> Optional[E]:
    """``_member``, with None kept as None."""
    return None if value is None else _member(kind, value)
