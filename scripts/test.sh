#!/usr/bin/env bash
# The whole test suite: lint, type check, tests. Creates .venv on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test]'
# torch (CPU) runs a benchmark task's PyTorch oracle (the `benchmark` extra), and only from a local
# wheel: torch from PyPI is a multi-GB CUDA build. So torch itself with --no-index (find-links
# only), then its dependencies from the index. Without a local wheel the benchmark-task tests skip.
if .venv/bin/python -m pip install -q --disable-pip-version-check --no-index --no-deps 'torch==2.13.0' 2>/dev/null; then
    .venv/bin/python -m pip install -q --disable-pip-version-check 'torch==2.13.0'
else
    echo "scripts/test.sh: no local torch 2.13.0 wheel; the benchmark-task tests skip" >&2
fi
.venv/bin/ruff check server tests benchmarks
.venv/bin/mypy
# The VS Code extension (extension/): tsc --noEmit and its unit tests (node --test, mocked vscode),
# whenever its node_modules is there or `npm ci` can install it from the committed lock file.
if [ -z "${SKIP_EXTENSION_TESTS:-}" ] && command -v npm >/dev/null; then
    if [ ! -f extension/node_modules/.package-lock.json ] ||
        [ extension/package-lock.json -nt extension/node_modules/.package-lock.json ]; then
        (cd extension && npm ci --no-audit --no-fund --loglevel=error) ||
            echo "scripts/test.sh: npm ci failed in extension/; skipping the extension's unit tests" >&2
    fi
    if [ -d extension/node_modules ]; then
        (cd extension && npm test --silent)
    fi
fi
.venv/bin/python -m pytest -q -n "${TEST_WORKERS:-2}" "$@"
