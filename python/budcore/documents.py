"""budcore.documents: JSON and YAML documents read and written the library's way (exact
numbers, bounded sizes and nesting, errors with the path of the offending item).

The same functions are also at the top level (``budcore.parse_json``, ...).
"""

from ._core import load_document, parse_json, to_json

__all__ = ["load_document", "parse_json", "to_json"]
