"""budcore.errors: every error budcore raises. Each is a :class:`Error` with ``.code``,
``.field`` (the path of the offending input), ``.value`` and ``.message``; most also derive
from the matching builtin (``ValidationError`` is a ``ValueError``, ``NotFoundError`` a
``KeyError``). The template errors are in :mod:`budcore.templates`.

The same classes are also at the top level (``budcore.ValidationError``, ...).
"""

from ._core import (
    AlreadyExistsError,
    ArithmeticOverflowError,
    BudgetExceededError,
    ConflictError,
    Error,
    GoneError,
    InternalError,
    IoError,
    NotFoundError,
    NotLeaderError,
    QuotaExceededError,
    RateLimitedError,
    SecurityError,
    UnsupportedError,
    ValidationError,
)

__all__ = [
    "AlreadyExistsError",
    "ArithmeticOverflowError",
    "BudgetExceededError",
    "ConflictError",
    "Error",
    "GoneError",
    "InternalError",
    "IoError",
    "NotFoundError",
    "NotLeaderError",
    "QuotaExceededError",
    "RateLimitedError",
    "SecurityError",
    "UnsupportedError",
    "ValidationError",
]
