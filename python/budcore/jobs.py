"""budcore.jobs: the Job model (the Job schema) and its exact units.

    job = budcore.jobs.Job.from_dict({...})     # ValidationError: .errors lists every problem
    budcore.jobs.Quantity("500m"), budcore.jobs.Money("12.50", "USD")

The same objects are also at the top level (``budcore.Job``, ``budcore.Quantity``, ``budcore.Money``).
"""

from typing import Mapping, cast

from ._core import Job, Money, Quantity, StoredJob
from .results import html_record, register_row
from .types import JsonObject

__all__ = ["Job", "Money", "Quantity"]

# What a notebook shows for a job: the fields a person reads first (name before id).
_JOB_FIELDS = ("name", "status", "job_type", "priority", "gpu_count", "gpu_type", "cpu_cores", "memory_gb",
               "estimated_start", "estimated_end", "estimated_duration_seconds", "actual_cost", "status_message",
               "project_id", "pipeline_id", "created_at", "id")


def _job_html(doc: Mapping[str, object], caption: str) -> str:
    return html_record([(k, doc.get(k)) for k in _JOB_FIELDS], caption)


def _job_repr_html(self: Job) -> str:
    doc = self.to_dict()
    return _job_html(doc, f"job {doc.get('name', '')}")


def _job_of(record: JsonObject) -> JsonObject:
    """The job document of a stored job's record."""
    return cast(JsonObject, record.get("job") or {})


def _stored_job_repr_html(self: StoredJob) -> str:
    rec = self.to_dict()
    doc = _job_of(rec)
    key = rec.get("idempotency_key")
    caption = f"job {doc.get('name', '')}, version {rec.get('version')}" + (f", key {key}" if key else "")
    return _job_html(doc, caption)


# A stored job as a row of a table (a Rows of them): the job's fields, its version and key.
_STORED_JOB_COLUMNS = ("name", "status", "job_type", "priority", "gpu_type", "gpu_count", "version", "idempotency_key",
                       "id")


def _stored_job_row(self: StoredJob) -> dict[str, object]:
    """The stored job as a row of a table: the job's fields, its version and idempotency key."""
    return dict(_job_of(self.to_dict()), version=self.version, idempotency_key=self.idempotency_key)


# The classes come from the extension module; their rich display is written here, beside the
# other HTML views, rather than as HTML strings in C++.
# (setattr: type checkers see the classes' methods as read-only.)
setattr(Job, "_repr_html_", _job_repr_html)
setattr(StoredJob, "_repr_html_", _stored_job_repr_html)
register_row(StoredJob, _stored_job_row, _STORED_JOB_COLUMNS, "job")
