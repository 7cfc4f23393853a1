"""budcore.templates: Jinja2-compatible templates rendered in budcore's sandbox (docs/templates.md).

    budcore.templates.render("Hello {{ name }}", name="GPU")     # 'Hello GPU'
    t = budcore.templates.Template("{{ n * 2 }}"); t.render_native(n=21)   # 42

The same objects are also at the top level (``budcore.render``, ``budcore.Template``).
"""

from typing import TYPE_CHECKING

from ._core import Template, render, render_native

if TYPE_CHECKING:
    # The classes are made by the extension at import time (bindings/bind_templates.cpp); its
    # generated stub only names them, so their hierarchy is declared here for type checkers.
    from .errors import Error, SecurityError

    class TemplateError(Error):
        kind: str
        line: int
        column: int

    class TemplateSyntaxError(TemplateError): ...
    class TemplateAssertionError(TemplateSyntaxError): ...
    class TemplateRuntimeError(TemplateError): ...
    class UndefinedError(TemplateRuntimeError): ...
    class TemplateSecurityError(TemplateRuntimeError, SecurityError): ...
    class TemplateTypeError(TemplateError, TypeError): ...
    class TemplateValueError(TemplateError, ValueError): ...
    class TemplateZeroDivisionError(TemplateError, ZeroDivisionError): ...
else:
    from ._core import (
        TemplateAssertionError,
        TemplateError,
        TemplateRuntimeError,
        TemplateSecurityError,
        TemplateSyntaxError,
        TemplateTypeError,
        TemplateValueError,
        TemplateZeroDivisionError,
        UndefinedError,
    )

__all__ = [
    "Template",
    "TemplateAssertionError",
    "TemplateError",
    "TemplateRuntimeError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateTypeError",
    "TemplateValueError",
    "TemplateZeroDivisionError",
    "UndefinedError",
    "render",
    "render_native",
]
