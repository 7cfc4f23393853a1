#!/usr/bin/env python3
"""Checks the C headers' conventions: every BUDCORE_API declaration is documented with a
`Thread-safety:` line, and every text parameter `const char *x` is followed by its length
`size_t x_len` (one naming scheme for lengths); a call given a const handle hands out nothing
mutable; every declared function is listed in docs/capi.md.
Usage: header_docs_test.py SOURCE_DIR"""
import glob
import re
import sys

DECL = re.compile(r"((?:/\*(?:[^*]|\*(?!/))*\*/\s*)?)(BUDCORE_API[^;]*;)")


def problems(path):
    text = open(path, encoding="utf-8").read()
    name = path.split("/")[-1]
    for m in DECL.finditer(text):
        comment, decl = m.group(1), " ".join(m.group(2).split())
        # A deprecation attribute follows the parameter list; its message is not a parameter.
        decl = re.sub(r'\s*BUDCORE_DEPRECATED\("[^"]*"\)', "", decl)
        fn = re.search(r"(budcore_\w+)\s*\(", decl)
        fn = fn.group(1) if fn else decl[:40]
        if "Thread-safety:" not in comment:
            yield f"{name}: {fn} has no 'Thread-safety:' line in its comment"
        params = re.search(r"\((.*)\)", decl)
        if not params:
            continue
        parts = [p.strip() for p in params.group(1).split(",")]
        yield from const_leaks(name, fn, decl, parts)
        for i, p in enumerate(parts):
            t = re.fullmatch(r"const char \*(\w+)", p)
            if not t:
                continue
            want = t.group(1) + "_len"
            nxt = parts[i + 1] if i + 1 < len(parts) else ""
            if nxt != f"size_t {want}":
                yield f"{name}: {fn}: text parameter {t.group(1)} must be followed by size_t {want}, not '{nxt}'"


def handle_types(headers):
    """The opaque handle types (`typedef struct budcore_x budcore_x;`) and their alias names."""
    text = " ".join(open(h, encoding="utf-8").read() for h in headers)
    handles = set(re.findall(r"typedef struct (budcore_\w+) \1;", text))
    handles |= {new for old, new in re.findall(r"typedef (budcore_\w+) (budcore_\w+);", text) if old in handles}
    return handles


HANDLES = set()


def const_leaks(name, fn, decl, parts):
    """A call given a const handle never hands out a mutable object: no non-const pointer
    returned, no handle written through an `**` output."""
    consts = [re.fullmatch(r"const (budcore_\w+) \*\w+", p) for p in parts]
    if not any(m and m.group(1) in HANDLES for m in consts):
        return
    ret = decl[len("BUDCORE_API"):decl.index(fn)]
    if "*" in ret and "const" not in ret:
        yield f"{name}: {fn} takes a const handle and returns a non-const pointer"
    for p in parts:
        if re.fullmatch(r"budcore_\w+ \*\*\w+", p):
            yield f"{name}: {fn} takes a const handle and writes a mutable handle ({p})"


def main():
    src = sys.argv[1]
    headers = sorted(glob.glob(f"{src}/include/budcore/c/*.h"))
    HANDLES.update(handle_types(headers))
    found = [p for h in headers for p in problems(h)]
    listed = open(f"{src}/docs/capi.md", encoding="utf-8").read()
    for h in headers:
        for fn in sorted(set(re.findall(r"BUDCORE_API[^;(]*?\b(budcore_\w+)\s*\(", open(h, encoding="utf-8").read()))):
            if f"`{fn}`" not in listed:
                found.append(f"{h.split('/')[-1]}: {fn} is not listed in docs/capi.md ('Every function')")
    decls = sum(len(DECL.findall(open(h, encoding="utf-8").read())) for h in headers)
    if decls == 0:
        print("no declarations found")
        return 1
    for p in found:
        print(p)
    if not found:
        print(f"header docs ok: {decls} declarations")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
