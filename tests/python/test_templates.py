import threading

import pytest

import budcore
from budcore import Template, render, render_native

jinja2 = pytest.importorskip("jinja2")


def jinja(text, native=False, **ctx):
    from jinja2 import Environment, StrictUndefined
    from jinja2.nativetypes import NativeEnvironment

    env = (NativeEnvironment if native else Environment)(undefined=StrictUndefined)
    return env.from_string(text).render(**ctx)


CASES = [
    ("Hello {{ name }}!", {"name": "world"}),
    ("{% for x in items %}{{ loop.index }}:{{ x | upper }} {% endfor %}", {"items": ["a", "b"]}),
    ("{{ n * 2 + 1 }} {{ (n / 4) | round(1) }}", {"n": 7}),
    ("{{ cfg.model | default('gpt') }}-{{ cfg.get('size', 3) }}", {"cfg": {}}),
    ("{% if flag %}yes{% else %}no{% endif %}", {"flag": False}),
    ("{{ data | tojson }}", {"data": {"k": [1, 2.5, None, True]}}),
    ("{{ words | join(', ') }} {{ words | length }}", {"words": ["x", "y", "z"]}),
]


@pytest.mark.parametrize("text,ctx", CASES)
def test_render_matches_jinja2(text, ctx):
    assert render(text, ctx) == jinja(text, **ctx)
    assert Template(text).render(ctx) == jinja(text, **ctx)


@pytest.mark.parametrize("text,ctx", [
    ("{{ n + 1 }}", {"n": 41}),
    ("{{ items }}", {"items": [1, "a", None]}),
    ("{{ cfg }}", {"cfg": {"a": 1.5}}),
    ("{{ flag }}", {"flag": True}),
    ("v{{ n }}", {"n": 3}),
])
def test_native_matches_jinja2_native(text, ctx):
    assert render_native(text, ctx) == jinja(text, native=True, **ctx)
    assert Template(text).render_native(ctx) == jinja(text, native=True, **ctx)


def test_native_keeps_types():
    assert render_native("{{ x }}", {"x": 5}) == 5
    assert render_native("{{ x }}", {"x": [1, {"a": None}]}) == [1, {"a": None}]
    assert render("{{ x }}", {"x": 5}) == "5"


def test_context_keywords_and_defaults():
    assert render("{{ a }}{{ b }}", {"a": 1}, b=2) == "12"
    assert Template("{{ a }}").render(a="k") == "k"
    assert render("plain") == "plain"


def test_template_compiles_once_and_reports_references():
    t = Template("{{ params.llm_model }} {{ steps.step-1.outputs.config.url }}{% for i in items %}{{ i }}{% endfor %}")
    assert t.references() == ["params.llm_model", "steps.step-1.outputs.config.url", "items"]
    assert not t.is_single_expression
    assert Template("{{ x }}").is_single_expression
    ctxs = [{"params": {"llm_model": m}, "steps": {"step-1": {"outputs": {"config": {"url": "u"}}}}, "items": [1]}
            for m in ("a", "b", "c")]
    assert t.render_many(ctxs) == ["a u1", "b u1", "c u1"]
    assert Template("{{ n * 2 }}").render_many([{"n": i} for i in range(5)], native=True) == [0, 2, 4, 6, 8]
    assert Template("x").render_many([]) == []


@pytest.mark.parametrize("text,ctx,cls,kind", [
    ("{{ missing }}", {}, budcore.UndefinedError, "UndefinedError"),
    ("{{ a.b }}", {"a": {}}, budcore.UndefinedError, "UndefinedError"),
    ("{{ 1 / 0 }}", {}, budcore.TemplateZeroDivisionError, "ZeroDivisionError"),
    ("{{ 'a' + 1 }}", {}, budcore.TemplateTypeError, "TypeError"),
    ("{{ x | no_such_filter }}", {"x": 1}, budcore.TemplateAssertionError, "TemplateAssertionError"),
    ("{{ x ", {}, budcore.TemplateSyntaxError, "TemplateSyntaxError"),
    ("{% for i in range(200000) %}{% endfor %}", {}, budcore.TemplateSecurityError, "SecurityError"),
])
def test_errors_carry_the_jinja2_kind(text, ctx, cls, kind):
    with pytest.raises(cls) as e:
        render(text, ctx)
    err = e.value
    assert isinstance(err, budcore.TemplateError) and isinstance(err, budcore.Error)
    assert err.kind == kind
    assert kind in str(err) and kind in err.message
    if kind == "SecurityError":
        return  # a budcore sandbox limit; plain Jinja2 has none
    assert err.line >= 1
    # The real Jinja2 raises the exception of the same name.
    with pytest.raises(Exception) as j:
        jinja(text, **ctx)
    assert type(j.value).__name__ == kind


def test_error_class_hierarchy():
    assert issubclass(budcore.UndefinedError, budcore.TemplateRuntimeError)
    assert issubclass(budcore.TemplateAssertionError, budcore.TemplateSyntaxError)
    assert issubclass(budcore.TemplateSecurityError, budcore.SecurityError)
    assert issubclass(budcore.TemplateZeroDivisionError, ZeroDivisionError)
    assert issubclass(budcore.TemplateTypeError, TypeError)
    assert issubclass(budcore.TemplateValueError, ValueError)
    with pytest.raises(budcore.TemplateSyntaxError) as e:
        Template("{% if %}")
    assert e.value.code == "invalid" and e.value.field == "template"
    with pytest.raises(budcore.TemplateSecurityError) as e:
        render("{{ range(10**6) | length }}")
    assert e.value.code == "security"


def test_render_many_stops_at_the_first_failure():
    t = Template("{{ 10 // n }}")
    with pytest.raises(budcore.TemplateZeroDivisionError):
        t.render_many([{"n": 1}, {"n": 0}, {"n": 2}])
    with pytest.raises(budcore.ValidationError) as e:
        t.render_many([{"n": 1}, [1]])
    assert e.value.field == "contexts[1]"


def test_context_must_be_a_dict():
    with pytest.raises(budcore.ValidationError) as e:
        render("x", [1, 2])
    assert e.value.field == "context"
    with pytest.raises(budcore.ValidationError):
        render("x", {"bad": object()})


def test_rendering_from_threads():
    t = Template("{% for i in range(n) %}{{ i }},{% endfor %}")
    out = {}

    def work(k):
        out[k] = t.render_many([{"n": 200}] * 50)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    expected = jinja("{% for i in range(n) %}{{ i }},{% endfor %}", n=200)
    assert all(v == [expected] * 50 for v in out.values()) and len(out) == 4


def test_every_keyword_is_a_context_variable():
    # text and context are positional-only and no mode flag hides among the keywords.
    assert render("{{ native }}", native="yes") == "yes"
    assert render("{{ text }}-{{ context }}", text="t", context="c") == "t-c"
    assert render_native("{{ native }}", native=3) == 3
    assert Template("{{ context }}").render(context="c") == "c"
    assert render("{{ a }}{{ b }}", {"a": 1, "b": 2}, b=3) == "13"
