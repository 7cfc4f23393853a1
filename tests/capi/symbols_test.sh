#!/usr/bin/env bash
# Fails when a C function declared in include/budcore/c/*.h is missing from capi/budcore.sym
# or not exported by libbudcore.so, or when budcore.sym lists a symbol the library lacks; when
# a function of the recorded baseline (capi/symbols.baseline) is gone or a new one is not in
# it; and when the library exports private C++ symbols (an Impl's members, src/ internals).
set -euo pipefail
src=$1 lib=$2
declared=$(grep -hoE 'BUDCORE_API[^(]*\b(budcore_[a-z0-9_]+)\s*\(' "$src"/include/budcore/c/*.h |
  grep -oE 'budcore_[a-z0-9_]+\s*\($' | tr -d ' (' | sort -u)
listed=$(grep -oE '^\s*budcore_[a-z0-9_]+;' "$src/capi/budcore.sym" | tr -d ' ;' | sort -u)
exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -E '^budcore_' | sed 's/@.*//' | sort -u)
fail=0
for s in $declared; do
  grep -qx "$s" <<<"$listed" || { echo "declared but not in budcore.sym: $s"; fail=1; }
  grep -qx "$s" <<<"$exported" || { echo "declared but not exported: $s"; fail=1; }
done
for s in $listed; do
  grep -qx "$s" <<<"$exported" || { echo "in budcore.sym but not exported: $s"; fail=1; }
done
extra=$(comm -13 <(echo "$listed") <(echo "$exported") || true)
[ -z "$extra" ] || { echo "exported but not listed: $extra"; fail=1; }
baseline=$(grep -vE '^\s*(#|$)' "$src/capi/symbols.baseline" | sort -u)
for s in $baseline; do
  grep -qx "$s" <<<"$exported" || { echo "released C function removed (capi/symbols.baseline): $s"; fail=1; }
done
for s in $exported; do
  grep -qx "$s" <<<"$baseline" || { echo "new C function not in capi/symbols.baseline (add it when it ships): $s"; fail=1; }
done
private=$(nm -DC --defined-only "$lib" | grep -E '::Impl::|\(anonymous namespace\)' || true)
[ -z "$private" ] || { echo "private C++ symbols exported:"; head -20 <<<"$private"; fail=1; }
n=$(wc -w <<<"$declared")
[ "$n" -gt 0 ] || { echo "no declared symbols found"; exit 1; }
[ $fail -eq 0 ] && echo "symbols ok: $n C functions declared, listed and exported"
exit $fail
