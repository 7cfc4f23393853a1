"""The Python package type-checks: mypy --strict over python/budcore, the generated _core.pyi
included, with pyproject.toml's [tool.mypy] settings (pandas, which ships no annotations, is
untyped; the generated stub's own shortcomings are left to the bindings). Skips only when mypy
is not installed (scripts/install-deps.sh installs the pinned version)."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (scripts/install-deps.sh installs it)")
def test_the_package_type_checks(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--config-file", str(ROOT / "pyproject.toml"),
                        "--cache-dir", str(tmp_path / "mypy-cache"), str(ROOT / "python" / "budcore")],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-2000:]
    assert "no issues found" in r.stdout


def test_the_type_check_is_strict():
    # The settings the test relies on: the strict checks, unused ignores reported, and the
    # generated stub checked rather than skipped.
    text = (ROOT / "pyproject.toml").read_text()
    section = text[text.index("[tool.mypy]"):]
    assert "strict = true" in section and "warn_unused_ignores = true" in section
    assert "ignore_errors" not in section and "follow_imports" not in section
