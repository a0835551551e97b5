"""Whole flows in a real editor: code-server (VS Code 1.100 in the browser) driven by headless
Chromium. tests/e2e/install.sh (run by .ci/run) installs the tools; without them the tests skip."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives the VS Code extension in code-server + Chromium (tests/e2e)"
    )
