#!/usr/bin/env bash
# Runs every check and test: lints, native tests, tests in headless Chrome, the plugin bundle's
# type check, lint and node tests, and the plugin end to end in a fake Obsidian page. This is
# README command (2) and exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# The local test server's port: a free one unless given. Browser tests read it at compile time.
if [ -z "${VAULT_AGENT_TEST_PORT:-}" ]; then
  VAULT_AGENT_TEST_PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
fi
export VAULT_AGENT_TEST_PORT
# Tests over the whole sample vault take longer than wasm-bindgen-test's 20 s default.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-900}"
# chromedriver gets 5 s to bind its port by default; on a loaded 2-core CI machine it once took
# longer and the runner killed it ("driver failed to bind port during startup"). The runner
# restarts a driver that has not bound in 10 s; this is how long it keeps trying.
export WASM_BINDGEN_TEST_DRIVER_TIMEOUT="${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-120}"

step() { printf '\n==> %s\n' "$*"; }

step "setup (idempotent)"
bash scripts/setup.sh

step "cargo fmt --check"
cargo fmt --check

step "cargo clippy (native)"
cargo clippy --locked --all-targets -- -D warnings

step "cargo clippy (wasm32)"
cargo clippy --locked --all-targets --target wasm32-unknown-unknown -- -D warnings

step "cargo doc (a broken or private intra-doc link fails)"
RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps --lib

step "cargo test (native)"
cargo test --locked

step "the patched bitpacking (crates/bitpacking): the wasm's variant against the native one"
cargo test --locked -p bitpacking

step "fuzz every parser of outside input briefly: 11 targets x 2 s (long runs: RELIABILITY.md)"
FUZZ_SECONDS=2 cargo test --locked --test fuzz

step "tests in headless Chrome (wasm-pack test)"
server_log=$(mktemp)
node tests/servers/server.mjs >"$server_log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do grep -q listening "$server_log" && break; sleep 0.1; done
grep -q listening "$server_log" || { cat "$server_log"; echo "the test server did not start"; exit 1; }
wasm-pack test --headless --chrome -- --locked --test browser

step "plugin: wasm package, bundle, type check, lint (eslint-plugin-obsidianmd), node tests"
wasm-pack build --dev --target web --out-dir pkg --no-pack -- --locked
node esbuild.config.mjs
npx --no-install tsc --noEmit -p tsconfig.json
npx --no-install eslint --max-warnings 0 js/
node --test tests/js/

step "plugin end to end: main.js in a fake Obsidian page, headless Chromium (playwright-core)"
node tests/e2e/build-host.mjs
node --test tests/e2e/plugin.test.mjs

step "all checks passed"
