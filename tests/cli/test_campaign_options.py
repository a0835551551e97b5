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


def test_report_writes_a_campaign_as_it_stands_and_runs_nothing(tmp_path: Path) -> None:
    from ascendopt.campaign.records import CampaignRecord, CampaignSettings, TaskEntry, TaskResult
    from ascendopt.campaign.store import CampaignStore

    def task(op: str, strategy: str, done: bool) -> TaskEntry:
        result = TaskResult(message="", evaluations=6, baseline_correct=True, speedup=1.5) if done else None
        return TaskEntry(
            operator=op,
            root=tmp_path / op,
            strategy=strategy,  # type: ignore[arg-type]
            episode=f"e-{op}-{strategy}",
            status="done" if done else "pending",
            result=result,
        )

    settings = CampaignSettings(paths=[tmp_path], budget=4, strategies=["ours", "random"])
    tasks = [
        task("a", "ours", True),
        task("a", "random", True),
        task("b", "ours", True),
        task("b", "random", False),
    ]
    record = CampaignRecord(id="20261205-000000-abcdef", settings=settings, tasks=tasks)
    store = CampaignStore(tmp_path, record.id)
    store.save(record)
    before = store.path.read_text()
    result = runner.invoke(app, ["campaign", "--report", record.id, "--workspace", str(tmp_path)])
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())  # the terminal wraps the note
    # b: ours finished, random pending: neither of its two episodes counts yet
    assert "1 operator(s) every strategy has finished; 2 episode(s) are not counted yet" in shown
    # not finished: every face says how far it is
    assert "Partial: 3 of 4 tasks done." in shown
    for face in ("report.md", "report.html"):
        assert "Partial: 3 of 4 tasks done." in (store.folder / face).read_text()
    assert '"done": 3' in (store.folder / "report.json").read_text()
    assert f"ascendopt campaign --resume {record.id}" in (store.folder / "report.md").read_text()
    assert store.path.read_text() == before  # nothing ran, nothing was re-planned

    result = runner.invoke(app, ["campaign", "--report", "nope", "--workspace", str(tmp_path)])
    assert result.exit_code == 2 and "no campaign 'nope'" in " ".join(result.output.split())
