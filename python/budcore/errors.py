"""budcore.errors: every error budcore raises. Each is a :class:`Error` with ``.code``,
``.field`` (the path of the offending input), ``.value`` and ``.message``; most also derive
from the matching builtin (``ValidationError`` is a ``ValueError``, ``NotFoundError`` a
``KeyError``). The template errors are in :mod:`budcore.templates`.

The same classes are also at the top level (``budcore.ValidationError``, ...).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The classes are made by the extension at import time (bindings/errors.cpp); its generated
    # stub only names them, so their hierarchy and attributes are declared here for type checkers.
    from .types import JsonObject, JsonValue

    class Error(Exception):
        code: str
        message: str
        field: str | None
        value: JsonValue
        errors: list[JsonObject]

    class ValidationError(Error, ValueError): ...
    class NotFoundError(Error, KeyError): ...
    class ConflictError(Error): ...
    class AlreadyExistsError(ConflictError): ...
    class QuotaExceededError(Error): ...
    class BudgetExceededError(Error): ...
    class ArithmeticOverflowError(Error, OverflowError): ...
    class UnsupportedError(Error, NotImplementedError): ...
    class SecurityError(Error): ...

    class RateLimitedError(Error):
        retry_after: float

    class NotLeaderError(Error): ...
    class GoneError(Error): ...
    class IoError(Error, OSError): ...
    class InternalError(Error, RuntimeError): ...
else:
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
