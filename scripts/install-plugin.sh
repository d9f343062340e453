#!/usr/bin/env bash
# npm run install-plugin -- /path/to/vault: builds the plugin and copies main.js, manifest.json
# and styles.css to /path/to/vault/.obsidian/plugins/vault-agent/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: npm run install-plugin -- /path/to/vault"; exit 2; }
exec bash scripts/build.sh "$1"
