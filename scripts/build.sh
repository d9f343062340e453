#!/usr/bin/env bash
# README command (1): builds the plugin — the release wasm core, inlined into main.js — puts the
# three files a user installs in dist/vault-agent/, and then
#   - with a vault path, installs them there:        bash scripts/build.sh /path/to/vault
#   - without one, serves the demo on localhost:      bash scripts/build.sh
#     (the plugin in a small fake Obsidian page over ../shared/vaults/obsidian-help, with the
#     provider named by environment variables; see README and scripts/demo.sh)
#   - with --no-demo, only builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

demo=1
vault=""
for arg in "$@"; do
  case "$arg" in
    --no-demo) demo=0 ;;
    *) vault=$arg ;;
  esac
done

bash scripts/setup.sh
npm run build:wasm
node esbuild.config.mjs --production

mkdir -p dist/vault-agent
cp main.js manifest.json styles.css dist/vault-agent/
printf '\nBuilt dist/vault-agent/ (the whole install):\n'
ls -l dist/vault-agent
printf 'release .wasm: %s bytes\n' "$(stat -c %s pkg/vault_agent_bg.wasm)"

if [ -n "$vault" ]; then
  [ -d "$vault/.obsidian" ] || { echo "$vault does not look like an Obsidian vault (no .obsidian/ folder)"; exit 1; }
  mkdir -p "$vault/.obsidian/plugins/vault-agent"
  cp dist/vault-agent/* "$vault/.obsidian/plugins/vault-agent/"
  echo "Installed into $vault/.obsidian/plugins/vault-agent — enable Vault Agent under Settings → Community plugins."
elif [ "$demo" = 1 ]; then
  exec bash scripts/demo.sh
fi
