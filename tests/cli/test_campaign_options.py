"""`campaign --strategy`: repeated, comma-separated or both, every one given is run (a repeated option
used to keep only the last)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.cli.campaign import _strategies

runner = CliRunner()


def test_repeated_and_comma_separated_strategies_all_count() -> None:
    assert _strategies(["random", "ours"]) == ["ours", "random"]
    assert _strategies(["tpe", "ours,random"]) == ["ours", "random", "tpe"]
    with pytest.raises(typer.BadParameter, match="unknown strategy nope"):
        _strategies(["ours", "nope"])


def test_an_unknown_strategy_among_repeated_ones_is_a_usage_error(tmp_path: Path) -> None:
    # the unknown one first: keeping only the last (`ours`) would run with no error
    args = ["campaign", str(tmp_path), "--strategy", "nope", "--strategy", "ours"]
    result = runner.invoke(app, [*args, "--workspace", str(tmp_path)])
    assert result.exit_code == 2
    assert "unknown strategy nope" in result.output
