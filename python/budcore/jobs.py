"""budcore.jobs: the Job model (the Job schema) and its exact units.

    job = budcore.jobs.Job.from_dict({...})     # ValidationError: .errors lists every problem
    budcore.jobs.Quantity("500m"), budcore.jobs.Money("12.50", "USD")

The same objects are also at the top level (``budcore.Job``, ``budcore.Quantity``, ``budcore.Money``).
"""

from ._core import Job, Money, Quantity

__all__ = ["Job", "Money", "Quantity"]
