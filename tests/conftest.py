from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.build import NO_COMPILE_ENV

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "templates" / "operators"


@pytest.fixture(autouse=True)
def _builds_only_when_slow(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """`slow` means "builds operators with g++": a test without the mark builds nothing (its builds fail at
    once, in this process and in the servers and CLIs it starts), so `-m "not slow"` is the quick run."""
    if request.node.get_closest_marker("slow") is None:
        monkeypatch.setenv(NO_COMPILE_ENV, "1")


@pytest.fixture(autouse=True)
def _state_outside_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record of which workspace `optimize` used per folder ($XDG_STATE_HOME) is the test's own,
    never the user's (the servers and CLIs a test starts inherit it)."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture
def templates() -> Path:
    return TEMPLATES


# Two cases keep an evaluation near a second on the twin; one of them is big enough
# that the tiling matters (several tiles per core).
SMALL_SPEC = """\
schema_version = 1
name = "add_custom"
soc = "Ascend910B4"
reference = "reference.py:add_custom"

[[inputs]]
name = "x"
dtypes = ["float16", "float32", "bfloat16"]

[[inputs]]
name = "y"
dtypes = ["float16", "float32", "bfloat16"]

[[outputs]]
name = "z"
dtypes = ["float16", "float32", "bfloat16"]

[[cases]]
name = "tail"
dtype = "float16"
shapes = { x = [3, 1000], y = [3, 1000] }

[[cases]]
name = "big"
dtype = "float16"
shapes = { x = [512, 4096], y = [512, 4096] }
"""


@pytest.fixture
def add_op(tmp_path: Path) -> Path:
    root = tmp_path / "ws" / "add_custom"
    shutil.copytree(TEMPLATES / "add_custom", root)
    (root / "ascendopt.toml").write_text(SMALL_SPEC)
    return root
