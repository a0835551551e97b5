"""`optimize`'s exit codes, as README's table says: 0 a suggestion, 1 the operator as it is fails,
2 a usage error, 3 no gain, 130 cancelled."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ascendopt.agent.outcome import Outcome, Status
from ascendopt.agent.service import Optimizer
from ascendopt.cli import app
from ascendopt.cli import optimize as optimize_cli

runner = CliRunner()


@pytest.mark.parametrize(
    ("status", "code"), [("suggestion", 0), ("failed", 1), ("no_gain", 3), ("cancelled", 130)]
)
@pytest.mark.parametrize("as_json", [False, True])
def test_each_outcome_has_its_exit_code(
    add_op: Path, monkeypatch: pytest.MonkeyPatch, status: Status, code: int, as_json: bool
) -> None:
    async def episode(self: Optimizer, *args: Any, **kwargs: Any) -> Outcome:
        return Outcome(
            operator="add_custom",
            episode="e1",
            status=status,
            reason="because",
            evaluations=4,
            budget=4,
            backend="cpu-twin",
            kernel_rewriting="skipped",
        )

    monkeypatch.setattr(Optimizer, "optimize", episode)
    monkeypatch.setattr(optimize_cli.EpisodeJournal, "open", lambda ws, episode: None)
    monkeypatch.setattr(optimize_cli.episode_report, "llm_line", lambda journal: "")
    args = ["optimize", str(add_op), "--budget", "4"] + (["--json"] if as_json else [])
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output


def test_a_usage_error_exits_2(add_op: Path) -> None:
    assert runner.invoke(app, ["optimize", str(add_op), "--budget", "1"]).exit_code == 2
    assert runner.invoke(app, ["optimize", str(add_op), "--no-such-option"]).exit_code == 2


@pytest.mark.slow
def test_an_operator_that_does_not_build_exits_1(add_op: Path) -> None:
    kernel = add_op / "op_kernel" / "add_custom.cpp"
    kernel.write_text(kernel.read_text() + "\nthis is not C++;\n")
    result = runner.invoke(app, ["optimize", str(add_op), "--budget", "4"])
    assert result.exit_code == 1, result.output
    assert "failed" in result.output


@pytest.mark.slow
def test_the_smallest_budget_searches_and_says_the_space_is_larger(add_op: Path) -> None:
    # --budget counts every evaluation: at 4 the noise run is left out so one search step fits, and
    # a space larger than what the budget leaves for the search is said in one sentence.
    result = runner.invoke(app, ["optimize", str(add_op), "--budget", "4", "--tiling-only"])
    assert result.exit_code in (0, 3), result.output
    flat = " ".join(result.output.split())
    assert "nothing to try" not in flat
    assert re.search(
        r"--budget 4 leaves 1 evaluation\(s\) for the \d+ other point\(s\) of the knob space", flat
    )
    assert "(the baseline and the re-check take 3)" in flat and "a larger --budget tries more" in flat
