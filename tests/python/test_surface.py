"""The Python surface as a whole: python/budcore/_core.pyi is pybind11-stubgen's output for the
built extension (scripts/python-stubs.sh), and every public member of the extension has a
docstring beyond pybind11's signature line."""

import inspect
import os
import pathlib
import subprocess
import sys

import budcore._core as core

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_checked_in_stubs_are_the_generated_ones():
    pylib = str(pathlib.Path(core.__file__).resolve().parents[1])
    r = subprocess.run(["bash", str(ROOT / "scripts" / "python-stubs.sh"), "--check", pylib],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=pylib))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def _documented(fn, name):
    """pybind11 writes 'name(args) -> ret' (and 'Overloaded function.' lists); a docstring adds
    more text."""
    lines = [l.strip() for l in (fn.__doc__ or "").splitlines() if l.strip()]
    return any(not l.startswith(name + "(") and l != "Overloaded function." and not l[:1].isdigit() for l in lines)


def undocumented():
    missing = []
    for name, obj in vars(core).items():
        if name.startswith("_"):
            continue
        if inspect.isclass(obj):
            if obj.__module__ != "budcore._core":
                continue  # the exception classes: documented in budcore/__init__
            if not (obj.__doc__ or "").strip():
                missing.append(name)
            for member, m in vars(obj).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if isinstance(m, property):
                    if not (m.__doc__ or "").strip():
                        missing.append(f"{name}.{member}")
                elif isinstance(m, (staticmethod, classmethod)):
                    if not _documented(m.__func__, member):
                        missing.append(f"{name}.{member}")
                elif callable(m) and not _documented(m, member):
                    missing.append(f"{name}.{member}")
        elif callable(obj) and not _documented(obj, name):
            missing.append(name)
    return missing


def test_every_public_member_has_a_docstring():
    assert undocumented() == []


def test_the_check_sees_a_member_without_one():
    # The check itself: pybind11's bare signature line does not count as documentation.
    class Bare:
        def method(self):
            pass

    Bare.method.__doc__ = "method(self: Bare) -> None"
    assert not _documented(Bare.method, "method")
    Bare.method.__doc__ = "method(self: Bare) -> None\n\nDoes a thing."
    assert _documented(Bare.method, "method")
