#!/usr/bin/env bash
# Serves the built plugin (main.js) in the fake Obsidian host page on http://127.0.0.1:PORT/host/,
# over an in-memory copy of a vault (the page's writes never reach the disk). Run after a build
# (bash scripts/build.sh does both). Until Ctrl-C.
#
#   VAULT_AGENT_VAULT          the vault folder (default ../shared/vaults/obsidian-help)
#   VAULT_AGENT_DEMO_PORT      the port (default 8787)
#   The model, by the first that applies:
#   VAULT_AGENT_PROVIDER       anthropic | openai | azure | gemini | mistral | deepseek | xai | groq | openrouter | ollama | lmstudio | custom | mock
#   ANTHROPIC_API_KEY / OPENAI_API_KEY / GEMINI_API_KEY / MISTRAL_API_KEY /
#   DEEPSEEK_API_KEY / XAI_API_KEY / GROQ_API_KEY / AZURE_OPENAI_API_KEY /
#   OPENROUTER_API_KEY   (pick the provider when it is unset; Azure also needs
#   AZURE_OPENAI_ENDPOINT and VAULT_AGENT_MODEL, the deployment's name)
#   VAULT_AGENT_API_KEY, VAULT_AGENT_MODEL, VAULT_AGENT_BASE_URL   (override the provider's defaults)
#   With none, the chat says how to connect a model, and search works all the same.
set -euo pipefail
cd "$(dirname "$0")/.."

[ -f main.js ] || { echo "main.js is missing: run bash scripts/build.sh first"; exit 1; }
export VAULT_AGENT_VAULT="${VAULT_AGENT_VAULT:-$(cd .. && pwd)/shared/vaults/obsidian-help}"
[ -d "$VAULT_AGENT_VAULT" ] || { echo "no vault at $VAULT_AGENT_VAULT (set VAULT_AGENT_VAULT)"; exit 1; }
export VAULT_AGENT_VAULT_NAME="${VAULT_AGENT_VAULT_NAME:-$(basename "$VAULT_AGENT_VAULT")}"
port="${VAULT_AGENT_DEMO_PORT:-8787}"

node tests/e2e/build-host.mjs

provider="${VAULT_AGENT_PROVIDER:-}"
if [ -z "$provider" ]; then
  if [ -n "${ANTHROPIC_API_KEY:-}" ]; then provider=anthropic
  elif [ -n "${OPENAI_API_KEY:-}" ]; then provider=openai
  elif [ -n "${GEMINI_API_KEY:-}" ]; then provider=gemini
  elif [ -n "${MISTRAL_API_KEY:-}" ]; then provider=mistral
  elif [ -n "${DEEPSEEK_API_KEY:-}" ]; then provider=deepseek
  elif [ -n "${XAI_API_KEY:-}" ]; then provider=xai
  elif [ -n "${GROQ_API_KEY:-}" ]; then provider=groq
  elif [ -n "${AZURE_OPENAI_API_KEY:-}" ]; then provider=azure
  elif [ -n "${OPENROUTER_API_KEY:-}" ]; then provider=openrouter
  fi
fi
printf '\nVault Agent demo: http://127.0.0.1:%s/host/\n' "$port"
printf '  vault: %s (an in-memory copy; nothing is written to disk)\n' "$VAULT_AGENT_VAULT"
printf '  model: %s\n' "${provider:-none — the chat explains how to connect one; search works without}"
printf '  Ctrl-C to stop.\n\n'
exec node tests/servers/server.mjs --port "$port"
