#!/usr/bin/env bash
# README command (1): builds the plugin — the release wasm core, inlined into main.js — and puts the
# three files a user installs in dist/vault-agent/. With a vault path, also installs it there.
#   bash scripts/build.sh [/path/to/vault]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh
wasm-pack build --release --target web --out-dir pkg --no-pack -- --locked
node esbuild.config.mjs --production

mkdir -p dist/vault-agent
cp main.js manifest.json styles.css dist/vault-agent/
printf '\nBuilt dist/vault-agent/ (the whole install):\n'
ls -l dist/vault-agent
printf 'release .wasm: %s bytes\n' "$(stat -c %s pkg/vault_agent_bg.wasm)"

if [ $# -ge 1 ]; then
  vault=$1
  [ -d "$vault/.obsidian" ] || { echo "$vault does not look like an Obsidian vault (no .obsidian/ folder)"; exit 1; }
  mkdir -p "$vault/.obsidian/plugins/vault-agent"
  cp dist/vault-agent/* "$vault/.obsidian/plugins/vault-agent/"
  echo "Installed into $vault/.obsidian/plugins/vault-agent — enable Vault Agent under Settings → Community plugins."
fi
