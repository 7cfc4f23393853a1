#!/usr/bin/env bash
# Every released C function (capi/symbols.baseline) is wrapped in Rust (rust/budcore)
# and Go (go/budcore, including its C trampolines), so no surface lags the C ABI.
# budcore_free is one exception: no call hands out memory for it today. The others are the
# functions declared BUDCORE_DEPRECATED: they stay exported for programs built against older
# headers, and the wrappers call what replaces them.
set -euo pipefail
src=$1
fail=0
n=0
deprecated=$(cat "$src"/include/budcore/c/*.h | tr '\n' ' ' | tr ';' '\n' | grep -E '\)\s*BUDCORE_DEPRECATED' |
  grep -oE 'BUDCORE_API[^(]*\bbudcore_[a-z0-9_]+\s*\(' | grep -oE 'budcore_[a-z0-9_]+\s*\($' | tr -d ' (' || true)
for f in $(grep -vE '^\s*(#|$)' "$src/capi/symbols.baseline"); do
  [ "$f" = budcore_free ] && continue
  grep -qx "$f" <<<"$deprecated" && continue
  n=$((n + 1))
  grep -qE "sys::$f\b" "$src"/rust/budcore/src/*.rs || { echo "not wrapped in Rust: $f"; fail=1; }
  grep -qE "(C\.$f\b|\b$f\()" "$src"/go/budcore/*.go "$src"/go/budcore/*.c ||
    { echo "not wrapped in Go: $f"; fail=1; }
done
[ $fail -eq 0 ] && echo "wrappers ok: $n C functions wrapped in Rust and Go"
exit $fail
