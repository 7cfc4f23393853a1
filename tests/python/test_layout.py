"""One layout of submodules, one per layer, with the old top-level names kept as aliases: every
public top-level name the library implements lives in exactly one submodule and is the very
same object there."""

import types

import budcore

SUBMODULES = {"cost", "documents", "enums", "errors", "gpu", "jobs", "pipeline", "platform", "quota", "results", "schedule",
              "serverless", "store", "templates", "usecases"}


def test_every_layer_is_a_submodule():
    found = {n for n in budcore.__all__ if isinstance(getattr(budcore, n), types.ModuleType)}
    assert found == SUBMODULES


def test_every_top_level_name_has_one_home_and_is_the_same_object():
    homes = {}
    for sub in SUBMODULES:
        module = getattr(budcore, sub)
        for name in module.__all__:
            assert hasattr(module, name), f"budcore.{sub}.__all__ names a missing {name}"
            if hasattr(budcore, name) and getattr(budcore, name) is getattr(module, name):
                homes.setdefault(name, []).append(sub)
    for name in budcore.__all__:
        if name in SUBMODULES or name in ("__version__", "version_info"):
            continue
        assert len(homes.get(name, [])) == 1, f"budcore.{name} lives in {homes.get(name)}"


def test_aliases_are_kept():
    assert budcore.Job is budcore.jobs.Job
    assert budcore.render is budcore.templates.render
    assert budcore.Pipeline is budcore.pipeline.Pipeline
    assert budcore.open_store is budcore.store.open_store
    assert budcore.ValidationError is budcore.errors.ValidationError
    assert budcore.TemplateSyntaxError is budcore.templates.TemplateSyntaxError
    assert budcore.ScheduleTimeline is budcore.schedule.ScheduleTimeline
    assert budcore.templates.render("{{ native }}", native="yes") == "yes"
