"""Differential test: every case of tests/templates/data/corpus.jsonl is rendered by the real
Jinja2 (Environment(undefined=StrictUndefined) with the loopcontrols extension, NativeEnvironment
for native cases) and by
`budcore template eval --batch`; outputs must agree (value, or the exception class name).

The CLI is found through $BUDCORE_CLI (default build/dev/bin/budcore). Run as a script to
print the agreement rate and every disagreement."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "templates" / "data" / "corpus.jsonl"
_DASHED = "budcore extension: a dotted path may name a key with '-' (Jinja2 reads it as subtraction)"
_ADDRESS = "Python prints a memory address"
# Disagreements by design, documented in docs/templates.md: (template, native) -> reason.
KNOWN_DIFFERENCES: dict[tuple[str, bool], str] = {
    ("{{ steps.step-6.outputs.url | default('') }}", False): _DASHED,
    ("{{ steps.step-1.outputs.config }}", False): _DASHED,
    ("{{ steps.step-1.outputs.config.model }}", False): _DASHED,
    ("{{ steps.step-1.outputs.url }}", False): _DASHED,
    ("{{ components.vector-db.url }}", False): _DASHED,
    ("{{ components.vector-db.enabled }}", False): _DASHED,
    ("{{ steps.step-2.outputs.score * 100 }}", False): _DASHED,
    ("{{ steps.step-1.outputs.config.replicas + 1 }}", False): _DASHED,
    ("{{ steps.step-1.outputs.config }}", True): _DASHED,
    ("{{ steps.step-2.outputs.items | sum }}", True): _DASHED,
    ("{{ cfg.items }}", False): _ADDRESS,
    ("{{ 'x' | attr('upper') }}", False): _ADDRESS,
    ("{{ 'a' | batch(0) }}", False): _ADDRESS + " (a lazy generator; budcore checks the size eagerly)",
    ("{{ 1e20 | int }}", False): "budcore integers are 64-bit",
    ("{% for i in range(100001) %}{% endfor %}", False): "sandbox: range() is limited to 100000 items",
    ("{{ range(200000) | length }}", False): "sandbox: range() is limited to 100000 items",
    ("{{ 'x' if false }}", True): "native mode: budcore renders the missing else branch as ''",
}


def cli_path() -> Path:
    return Path(os.environ.get("BUDCORE_CLI", ROOT / "build" / "dev" / "bin" / "budcore"))


def jinja2_results(lines):
    jinja2 = pytest.importorskip("jinja2")
    from jinja2 import Environment, StrictUndefined
    from jinja2.nativetypes import NativeEnvironment

    # budcore has Jinja2's loop controls ({% break %}, {% continue %}) built in.
    extensions = ["jinja2.ext.loopcontrols"]
    env = Environment(undefined=StrictUndefined, extensions=extensions)
    native_env = NativeEnvironment(undefined=StrictUndefined, extensions=extensions)
    context = json.loads(lines[0])["context"]
    out = {}
    for line in lines[1:]:
        case = json.loads(line)
        e = native_env if case.get("native") else env
        try:
            value = e.from_string(case["template"]).render(**context)
            if isinstance(value, jinja2.Undefined):
                raise jinja2.UndefinedError("undefined result")
            value = json.loads(json.dumps(value, default=str))
            out[case["id"]] = {"ok": True, "value": value}
        except Exception as exc:  # the class name is what the contract compares
            out[case["id"]] = {"ok": False, "error": type(exc).__name__}
    return out


def budcore_results(path: Path):
    proc = subprocess.run([str(cli_path()), "template", "eval", "--batch", str(path)],
                          capture_output=True, text=True, check=True)
    out = {}
    for line in proc.stdout.splitlines():
        r = json.loads(line)
        out[r["id"]] = {"ok": True, "value": r["value"]} if r["ok"] else {"ok": False, "error": r["error"]}
    return out


def compare(corpus: Path = CORPUS):
    lines = [l for l in corpus.read_text(encoding="utf-8").splitlines() if l.strip()]
    expected = jinja2_results(lines)
    actual = budcore_results(corpus)
    templates = {json.loads(l)["id"]: json.loads(l) for l in lines[1:]}
    diffs = []
    for cid, exp in expected.items():
        got = actual.get(cid)
        case = templates[cid]
        if got != exp and (case["template"], bool(case.get("native"))) not in KNOWN_DIFFERENCES:
            diffs.append((cid, templates[cid], exp, got))
    return len(expected), diffs


def agreement(corpus: Path = CORPUS):
    """Raw agreement rate, known differences counted as disagreements."""
    lines = [l for l in corpus.read_text(encoding="utf-8").splitlines() if l.strip()]
    expected = jinja2_results(lines)
    actual = budcore_results(corpus)
    same = sum(1 for cid, exp in expected.items() if actual.get(cid) == exp)
    return same, len(expected)


@pytest.mark.skipif(not cli_path().exists(), reason="budcore CLI not built (set BUDCORE_CLI)")
def test_corpus_agrees_with_jinja2():
    total, diffs = compare()
    rate = 1 - len(diffs) / total
    detail = "\n".join(f"{cid} {case['template']!r} native={case.get('native')}: jinja2={exp} budcore={got}"
                       for cid, case, exp, got in diffs)
    assert not diffs, f"agreement {rate:.2%} over {total} cases\n{detail}"


if __name__ == "__main__":
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS
    total, diffs = compare(corpus)
    for cid, case, exp, got in diffs:
        print(f"{cid} {case['template']!r} native={case.get('native')}\n   jinja2 ={exp}\n   budcore={got}")
    same, n = agreement(corpus)
    print(f"unexplained disagreements: {len(diffs)}; raw agreement: {same}/{n} = {same / n:.2%}")
