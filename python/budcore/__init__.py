"""budcore: the control-plane core of a GPU platform (jobs, quantities, money), from C++.

Every type here is implemented in the C++ library (the ``_core`` extension); this package only
re-exports it. Errors raised by budcore derive from :class:`budcore.Error` and carry ``.code``,
``.field`` (the path of the offending input), ``.value`` and ``.message``.
"""

from ._core import (
    AlreadyExistsError,
    ArithmeticOverflowError,
    BudgetExceededError,
    ConflictError,
    Error,
    InternalError,
    IoError,
    Job,
    Money,
    NotFoundError,
    Quantity,
    QuotaExceededError,
    SecurityError,
    UnsupportedError,
    ValidationError,
    __version__,
    parse_json,
    to_json,
    version_info,
)

__all__ = [
    "AlreadyExistsError",
    "ArithmeticOverflowError",
    "BudgetExceededError",
    "ConflictError",
    "Error",
    "InternalError",
    "IoError",
    "Job",
    "Money",
    "NotFoundError",
    "Quantity",
    "QuotaExceededError",
    "SecurityError",
    "UnsupportedError",
    "ValidationError",
    "__version__",
    "parse_json",
    "to_json",
    "version_info",
]
