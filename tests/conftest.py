from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"


@pytest.fixture
def templates() -> Path:
    return TEMPLATES
