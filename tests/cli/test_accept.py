"""`ascendopt accept`: the editor's accept path from a terminal (both files or neither, journaled),
`--dry-run` that changes nothing, and a clean refusal naming the files that changed since."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.agent.suggestion import Suggestion, make_suggestion
from ascendopt.cli import app
from ascendopt.journal.store import EpisodeJournal

runner = CliRunner()
HOST, KERNEL = "op_host/add_custom.cpp", "op_kernel/add_custom.cpp"


@pytest.fixture
def pending(tmp_path: Path, templates: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Suggestion]:
    """A workspace with add_custom and an episode that ended on a suggestion (BUFFER_NUM 2 → 3 in both
    files); the current folder is the workspace, as after `optimize`."""
    root = tmp_path / "add_custom"
    shutil.copytree(templates / "add_custom", root)
    base = {f: (root / f).read_text() for f in (HOST, KERNEL)}
    s = make_suggestion(
        operator="add_custom",
        root=root,
        episode="20261205-000000-add_custom-aaaa",
        candidate_id="c1",
        base_files=base,
        proposed_files={f: t.replace("BUFFER_NUM = 2", "BUFFER_NUM = 3") for f, t in base.items()},
        speedups=[],
        geomean=1.2,
        summary="BUFFER_NUM 2 -> 3",
    )
    assert len(s.changes) == 2
    EpisodeJournal.create(tmp_path, s.episode).write_suggestion(s, s.operator, s.patch())
    monkeypatch.chdir(tmp_path)
    return tmp_path, s


def _texts(s: Suggestion) -> dict[str, str]:
    return {c.path: (s.root / c.path).read_text() for c in s.changes}


def test_dry_run_prints_the_diff_and_the_files_and_changes_nothing(pending: tuple[Path, Suggestion]) -> None:
    ws, s = pending
    before = _texts(s)
    result = runner.invoke(app, ["accept", s.id, "--dry-run"])
    assert result.exit_code == 0, result.output
    assert s.patch() in result.output
    would = f"would change 2 file(s) in {s.root}: {HOST}, {KERNEL} (nothing changed: --dry-run)"
    assert would in result.output
    assert _texts(s) == before
    assert not EpisodeJournal.open(ws, s.episode).events("decision.user")


def test_accept_writes_both_files_and_journals_the_decision(pending: tuple[Path, Suggestion]) -> None:
    ws, s = pending
    result = runner.invoke(app, ["accept", s.episode])  # the episode id finds its suggestion too
    assert result.exit_code == 0, result.output
    assert f"add_custom: applied to 2 file(s) in {s.root}: {HOST}, {KERNEL}" in result.output
    assert _texts(s) == {c.path: c.proposed_text for c in s.changes}
    [decision] = EpisodeJournal.open(ws, s.episode).events("decision.user")
    assert decision.data.model_dump()["decision"] == "accepted"  # type: ignore[union-attr]
    # a second accept changes nothing and says why
    again = runner.invoke(app, ["accept", s.id])
    assert again.exit_code == 0 and "already applied" in again.output


def test_a_file_changed_since_the_episode_is_refused_by_name(pending: tuple[Path, Suggestion]) -> None:
    _, s = pending
    kernel = s.root / KERNEL
    kernel.write_text(kernel.read_text() + "// my edit\n")
    before = _texts(s)
    for args in (["accept", s.id, "--dry-run"], ["accept", s.id]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        assert f"the suggestion is stale: {KERNEL} changed since the episode started" in result.output
        assert _texts(s) == before  # neither file written, the host file included


def test_an_unknown_suggestion_is_a_usage_error(pending: tuple[Path, Suggestion]) -> None:
    ws, _ = pending
    result = runner.invoke(app, ["accept", "nope"])
    assert result.exit_code == 2 and "no suggestion or episode 'nope'" in result.output
    elsewhere = runner.invoke(app, ["accept", "nope", "--workspace", str(ws / "add_custom")])
    assert elsewhere.exit_code == 2 and "pass --workspace DIR" in elsewhere.output


def test_found_from_a_child_folder_and_with_workspace(
    pending: tuple[Path, Suggestion], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, s = pending
    monkeypatch.chdir(s.root / "op_kernel")  # the workspace is a parent
    assert runner.invoke(app, ["accept", s.id, "--dry-run"]).exit_code == 0
    monkeypatch.chdir("/")
    result = runner.invoke(app, ["accept", s.id, "--dry-run", "--workspace", str(ws)])
    assert result.exit_code == 0, result.output
    assert s.patch() in result.output
