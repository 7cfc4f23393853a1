"""budcore.types: the types of the documents budcore reads and writes, for annotations.

The package's results are records (``budcore.results``: frozen dataclasses with typed fields)
whose ``to_dict()`` is the library's document, and plain dicts and lists (JSON-shaped) where a
function returns the document itself; the submodules describe the documents whose shape is
fixed with ``TypedDict`` classes beside the functions that return them
(``budcore.cost.UsageRecord``, ``budcore.kueue.Decision``, ...). What remains is a document
whose shape is the user's (a template's parameters, a job's ``spec``) or varies with a query
(a report row's group keys); those are typed with the aliases here:

* :data:`JsonValue`: a JSON value as budcore returns it (None, bool, int, float, str, lists and
  dicts of them).
* :data:`JsonObject`: a JSON object (``dict[str, JsonValue]``).
* :data:`Document`: what a function reads as a document: any mapping with str keys (the library
  validates the values and names the offending path).

:class:`ErrorDocument` is an error written into a result (a refusal, a retried failure) rather
than raised.

They are aliases, not classes: ``isinstance`` does not apply, and nothing here changes what a
function returns at run time.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, TypedDict, Union

__all__ = ["Document", "ErrorDocument", "JsonObject", "JsonValue"]

#: A JSON value as budcore returns it.
JsonValue = Union[None, bool, int, float, str, List["JsonValue"], Dict[str, "JsonValue"]]

#: A JSON object: what budcore returns for a document whose keys are the user's.
JsonObject = Dict[str, JsonValue]

#: A document budcore reads (a job, a configuration, a scenario): any mapping with str keys.
Document = Mapping[str, object]


class _ErrorDocumentBase(TypedDict):
    code: str
    message: str
    path: str


class ErrorDocument(_ErrorDocumentBase, total=False):
    """An error as a document: ``code`` (``invalid``, ``not_found``, ...), ``message``, ``path``
    (the offending input's, or empty), the offending ``value`` and, when a retry may succeed
    later, ``retry_after_ms``."""

    value: str
    retry_after_ms: int
