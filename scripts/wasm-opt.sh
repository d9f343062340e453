#!/usr/bin/env bash
# Optimises a release wasm in place with binaryen's wasm-opt from npm (never Debian's binaryen,
# whose output fails to load). -O3 rather than -Oz: both gzip to the same size here (2.87 MB),
# and -O3 keeps the search and indexing speed (BENCHMARKS.md, "Size"). The name section goes:
# 1 MB that only stack traces read.
#   bash scripts/wasm-opt.sh pkg/vault_agent_bg.wasm
set -euo pipefail
cd "$(dirname "$0")/.."
wasm=$1
before=$(stat -c %s "$wasm")
node_modules/.bin/wasm-opt -O3 --strip-debug --strip-producers "$wasm" -o "$wasm.opt"
mv "$wasm.opt" "$wasm"
echo "wasm-opt: $wasm $before -> $(stat -c %s "$wasm") bytes"
