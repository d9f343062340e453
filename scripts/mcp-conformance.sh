#!/usr/bin/env bash
# Runs the official MCP client conformance suite (@modelcontextprotocol/conformance) against
# `vault-agent mcp`. The suite needs Node >= 22; both come from the npm registry into
# .cache/mcp-conformance/ (ignored, rebuilt on demand). Not part of scripts/test.sh: it adds a
# Node download to CI for checks the native tests already make against server-everything.
# Scenarios this client does not claim (some OAuth ones) are listed, with the reason, in
# tests/mcp/conformance-baseline.yml; the suite fails on any other failure, or on a listed one
# that starts passing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
tools=.cache/mcp-conformance
if [ ! -x "$tools/node_modules/.bin/conformance" ]; then
  mkdir -p "$tools"
  [ -f "$tools/package.json" ] || (cd "$tools" && npm init -y >/dev/null)
  (cd "$tools" && npm install --no-audit --no-fund --loglevel=error node@22 @modelcontextprotocol/conformance@0.1)
fi
cargo build --locked --bin vault-agent
export PATH="$PWD/$tools/node_modules/.bin:$PATH"
node --version
scenarios=$(conformance list 2>/dev/null | sed -n '/^Client scenarios/,$p' | sed -n 's/^  - \([^ ]*\).*/\1/p')
failed=0
for scenario in $scenarios; do
  if ! conformance client --command "$PWD/tests/mcp/conformance-client.sh" --scenario "$scenario" \
      --expected-failures tests/mcp/conformance-baseline.yml -o "$tools/results" >"$tools/$(echo "$scenario" | tr / _).log" 2>&1; then
    echo "FAILED  $scenario (log: $tools/$(echo "$scenario" | tr / _).log)"
    failed=1
  else
    echo "ok      $scenario: $(grep -Eo 'Passed: [0-9]+/[0-9]+, [0-9]+ failed' "$tools/$(echo "$scenario" | tr / _).log" | tail -1)"
  fi
done
exit $failed
