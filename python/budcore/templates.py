"""budcore.templates: Jinja2-compatible templates rendered in budcore's sandbox (docs/templates.md).

    budcore.templates.render("Hello {{ name }}", name="GPU")     # 'Hello GPU'
    t = budcore.templates.Template("{{ n * 2 }}"); t.render_native(n=21)   # 42

The same objects are also at the top level (``budcore.render``, ``budcore.Template``).
"""

from ._core import (
    Template,
    TemplateAssertionError,
    TemplateError,
    TemplateRuntimeError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateTypeError,
    TemplateValueError,
    TemplateZeroDivisionError,
    UndefinedError,
    render,
    render_native,
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
