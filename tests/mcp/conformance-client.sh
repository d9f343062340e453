#!/usr/bin/env bash
# The client side of the MCP conformance suite (@modelcontextprotocol/conformance): the suite
# starts a server for one scenario and runs this with the server's URL as the last argument
# and the scenario's name in MCP_CONFORMANCE_SCENARIO. Each scenario gets what a user would do
# with `vault-agent mcp`: list the tools, or call the one the scenario serves.
set -euo pipefail
url="${!#}"
bin="${VAULT_AGENT_BIN:-$(dirname "$0")/../../target/debug/vault-agent}"
server=(--mcp-http "conformance=$url")
# The server asks for a sign-in: `mcp login` signs in with curl as the browser (the suite's
# authorization server agrees at once and sends it back to the CLI's address on this machine);
# the sign-in is kept for the commands after it.
export VAULT_AGENT_CREDENTIALS
VAULT_AGENT_CREDENTIALS="$(mktemp -d)/credentials.json"
login() {
  local said app=() client_id page pid
  said=$(mktemp)
  # A scenario whose server registers no apps hands over the app's credentials.
  client_id=$(node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); process.stdout.write(c.client_id || "")')
  if [ -n "$client_id" ]; then
    app=(--client-id "$client_id")
    export VAULT_AGENT_CLIENT_SECRET
    VAULT_AGENT_CLIENT_SECRET=$(node -e 'process.stdout.write(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).client_secret || "")')
  fi
  "$bin" mcp login --no-browser "${app[@]}" "conformance=$url" 2>"$said" &
  pid=$!
  until page=$(grep -m1 -Eo '^  https?://[^ ]+' "$said"); do
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$said" >&2
      wait "$pid"
      exit 1
    fi
    sleep 0.1
  done
  curl -sS -L -o /dev/null "${page##* }"
  wait "$pid"
}
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  tools_call) exec "$bin" mcp call "${server[@]}" conformance add_numbers '{"a": 2, "b": 3}' ;;
  sse-retry) exec "$bin" mcp call "${server[@]}" conformance test_reconnection '{}' ;;
  elicitation-sep1034-client-defaults)
    exec "$bin" mcp call --accept-defaults "${server[@]}" conformance test_client_elicitation_defaults '{}' ;;
  auth/scope-step-up)
    # Signed in, the tools are listed; a call needs more access (403, insufficient_scope), so
    # the user signs in again (asking for it too, kept from the refusal) and calls again.
    login
    tool=$("$bin" mcp tools --json "${server[@]}" | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => process.stdout.write(JSON.parse(s)[0].tool))')
    if ! "$bin" mcp call "${server[@]}" conformance "$tool" '{}'; then
      login
      exec "$bin" mcp call "${server[@]}" conformance "$tool" '{}'
    fi
    ;;
  auth/*)
    login
    exec "$bin" mcp tools "${server[@]}"
    ;;
  *) exec "$bin" mcp tools "${server[@]}" ;;
esac
