#!/usr/bin/env bash
# The whole test suite: lint, type check, tests. Creates .venv on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
.venv/bin/ruff check server tests benchmarks
.venv/bin/mypy
.venv/bin/python -m pytest -q -n "${TEST_WORKERS:-2}" "$@"
