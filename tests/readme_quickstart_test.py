#!/usr/bin/env python3
"""README.md's quick start shows real files: every fenced block marked

    <!-- snippet: PATH -->
    ```lang
    ...
    ```

must be byte-identical to PATH (relative to the repository root), and every quick start file
must be shown. Run with plain python3 from anywhere: `python3 tests/readme_quickstart_test.py`
(exit 0 when they match; otherwise a diff per file and exit 1). pytest collects it too.
"""
from __future__ import annotations

import difflib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# The quick start on every surface: each must appear in the README as a marked snippet.
QUICKSTART_FILES = (
    "examples/quickstart/quickstart.cpp",
    "examples/quickstart/quickstart.c",
    "examples/quickstart/quickstart.py",
    "rust/budcore/examples/quickstart.rs",
    "examples/go/quickstart/main.go",
    "examples/quickstart/quickstart.sh",
)

# The marker, then the fence that opens on the next line; the block runs to the first line that
# is exactly the same fence. Group "body" keeps every byte between them, the last newline too.
SNIPPET = re.compile(
    r"^<!-- snippet: (?P<path>\S+) -->\n(?P<fence>`{3,})[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)


def snippets(text: str) -> list[tuple[str, str]]:
    """(path, block text) for every marked snippet, in README order."""
    return [(m["path"], m["body"]) for m in SNIPPET.finditer(text)]


def problems() -> list[str]:
    text = README.read_bytes().decode("utf-8")
    found = snippets(text)
    out: list[str] = []
    markers = len(re.findall(r"^<!-- snippet: ", text, re.MULTILINE))
    if markers != len(found):
        out.append(f"README.md: {markers} snippet markers but {len(found)} are followed by a fenced block")
    seen: dict[str, int] = {}
    for path, body in found:
        seen[path] = seen.get(path, 0) + 1
        file = ROOT / path
        if not file.is_file():
            out.append(f"README.md shows {path}, which does not exist")
            continue
        want = file.read_bytes().decode("utf-8")
        if body != want:
            diff = difflib.unified_diff(want.splitlines(keepends=True), body.splitlines(keepends=True),
                                        fromfile=path, tofile=f"README.md ({path})")
            out.append(f"README.md's snippet of {path} differs from the file:\n" + "".join(diff))
    for path in QUICKSTART_FILES:
        if path not in seen:
            out.append(f"README.md does not show {path}")
    for path, n in seen.items():
        if n > 1:
            out.append(f"README.md shows {path} {n} times")
    return out


def test_readme_snippets_match_their_files() -> None:
    assert not problems(), "\n".join(problems())


def main() -> int:
    found = problems()
    for p in found:
        print(p, file=sys.stderr)
    if found:
        return 1
    print(f"README.md: {len(snippets(README.read_text(encoding='utf-8')))} snippets match their files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
