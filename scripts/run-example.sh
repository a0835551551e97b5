#!/usr/bin/env bash
# The main job on the embedded default: optimize a shipped template on the CPU twin
# (no NPU, no LLM key). The template is copied to a scratch workspace first; nothing
# in the repository changes.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
installed=$SECONDS
WORK=${ASCENDOPT_EXAMPLE_DIR:-$(mktemp -d)}
.venv/bin/ascendopt templates --copy "${1:-add_custom}" --to "$WORK"
code=0
.venv/bin/ascendopt optimize "$WORK/${1:-add_custom}" --budget "${BUDGET:-24}" || code=$?
echo "workspace: $WORK (journal and patch under .ascendopt/)"
echo "took $((SECONDS - installed)) s, after $installed s of install (the first run creates .venv)"
[ "$code" -eq 3 ] && code=0  # no gain (README, exit codes): the example still ran
exit "$code"
