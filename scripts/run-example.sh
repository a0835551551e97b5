#!/usr/bin/env bash
# The main job on the embedded default (the CPU twin; no NPU, no LLM key).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
.venv/bin/ascendopt discover templates/operators
