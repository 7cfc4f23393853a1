#!/usr/bin/env bash
# rust/budcore-sys/src/bindings.rs is bindgen's output for include/budcore/budcore.h
# (bindgen-cli pinned in scripts/install-deps.sh). `rust-bindings.sh` writes it;
# `rust-bindings.sh --check` fails when the checked-in file differs (ctest capi.rust_bindings).
set -euo pipefail
version=0.73.2
check=0
if [[ "${1:-}" == "--check" ]]; then check=1; fi
root=$(cd "$(dirname "$0")/.." && pwd)
bindgen=$(command -v bindgen || echo "$HOME/.cargo/bin/bindgen")
if [[ ! -x "$bindgen" ]] || [[ "$("$bindgen" --version)" != "bindgen $version" ]]; then
  echo "bindgen $version not found (scripts/install-deps.sh installs it with cargo)" >&2
  exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# MSRV 1.77 (rust/Cargo.toml); C comments become doc comments; enums are plain consts.
"$bindgen" "$root/include/budcore/budcore.h" --rust-target 1.77 \
  --allowlist-function 'budcore_.*' --allowlist-type 'budcore_.*' --allowlist-var 'BUDCORE_.*' \
  --no-layout-tests --no-prepend-enum-name --default-enum-style consts \
  -o "$out" -- -I"$root/include" -fparse-all-comments
if ((check)); then
  if ! diff -u "$root/rust/budcore-sys/src/bindings.rs" "$out"; then
    echo "bindings.rs is not bindgen's output for the headers: run scripts/rust-bindings.sh" >&2
    exit 1
  fi
else
  cp "$out" "$root/rust/budcore-sys/src/bindings.rs"
fi
