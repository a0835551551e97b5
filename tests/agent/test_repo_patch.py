"""A suggestion's patch also comes relative to the repository root, so `git apply` works where the
user of the repository stands (issue 28); the operator-folder patch stays as it was."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ascendopt.agent.suggestion import make_suggestion
from ascendopt.journal.store import EpisodeJournal, patch_name, repo_patch_name
from ascendopt.operators.files import repo_prefix

KERNEL = "// look-alike kernel\nconstexpr int TILE = 64;\nvoid Body() {}\n"
SHARED = "#pragma once\nconstexpr int LANES = 8;\n"


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


def test_the_repo_patch_applies_at_the_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    op = repo / "vector" / "scale_thing"
    (op / "op_kernel").mkdir(parents=True)
    (op / "op_kernel" / "scale_thing.cpp").write_text(KERNEL)
    (repo / "vector" / "shared").mkdir()
    (repo / "vector" / "shared" / "lanes.h").write_text(SHARED)
    assert _git(repo, "init", "-q").returncode == 0
    assert repo_prefix(op) == "vector/scale_thing" and repo_prefix(repo) == ""
    base = {"op_kernel/scale_thing.cpp": KERNEL, "../shared/lanes.h": SHARED}
    proposed = {
        "op_kernel/scale_thing.cpp": KERNEL.replace("64", "128"),
        "../shared/lanes.h": SHARED.replace("8", "16"),
    }
    s = make_suggestion(
        operator="scale_thing",
        root=op,
        episode="e1",
        candidate_id="c1",
        base_files=base,
        proposed_files=proposed,
        speedups=[],
        geomean=1.1,
        summary="",
        repo_prefix=repo_prefix(op),
    )
    assert "b/vector/scale_thing/op_kernel/scale_thing.cpp" in s.repo_patch()
    assert "b/vector/shared/lanes.h" in s.repo_patch()  # a file outside the folder, normalised
    assert "b/op_kernel/scale_thing.cpp" in s.patch()  # the folder's patch as before
    journal = EpisodeJournal.create(tmp_path / "ws", "e1")
    journal.write_suggestion(s, "scale_thing", s.patch(), s.repo_patch())
    at_root = journal.folder / repo_patch_name("scale_thing")
    assert at_root.is_file() and (journal.folder / patch_name("scale_thing")).is_file()
    checked = _git(repo, "apply", "--check", str(at_root))
    assert checked.returncode == 0, checked.stderr
    assert _git(repo, "apply", str(at_root)).returncode == 0
    assert "TILE = 128" in (op / "op_kernel" / "scale_thing.cpp").read_text()
    assert "LANES = 16" in (repo / "vector" / "shared" / "lanes.h").read_text()


def test_no_repository_no_second_patch(tmp_path: Path) -> None:
    op = tmp_path / "alone"
    op.mkdir()
    assert repo_prefix(op) == ""
    s = make_suggestion(
        operator="alone",
        root=op,
        episode="e2",
        candidate_id="c",
        base_files={"k.cpp": KERNEL},
        proposed_files={"k.cpp": KERNEL + "// x\n"},
        speedups=[],
        geomean=1.0,
        summary="",
    )
    assert s.repo_patch() == s.patch()
    journal = EpisodeJournal.create(tmp_path / "ws", "e2")
    journal.write_suggestion(s, "alone", s.patch(), s.repo_patch())
    assert not (journal.folder / repo_patch_name("alone")).exists()


def test_accept_dry_run_and_the_report_name_the_repository_root_patch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from ascendopt.cli import app
    from ascendopt.report import episode as episode_report

    repo = tmp_path / "repo"
    op = repo / "vector" / "scale_thing"
    (op / "op_kernel").mkdir(parents=True)
    (op / "op_kernel" / "scale_thing.cpp").write_text(KERNEL)
    assert _git(repo, "init", "-q").returncode == 0
    s = make_suggestion(
        operator="scale_thing",
        root=op,
        episode="20261205-000000-scale_thing-bbbb",
        candidate_id="c1",
        base_files={"op_kernel/scale_thing.cpp": KERNEL},
        proposed_files={"op_kernel/scale_thing.cpp": KERNEL.replace("64", "128")},
        speedups=[],
        geomean=1.1,
        summary="TILE 64 -> 128",
        repo_prefix=repo_prefix(op),
    )
    ws = tmp_path / "ws"
    journal = EpisodeJournal.create(ws, s.episode)
    journal.write_suggestion(s, s.operator, s.patch(), s.repo_patch())
    at_root = journal.folder / repo_patch_name("scale_thing")
    said = f"from the repository root: {at_root} (git apply there; paths start vector/scale_thing/)"
    monkeypatch.chdir(ws)
    result = CliRunner().invoke(app, ["accept", s.id, "--dry-run"])
    assert result.exit_code == 0, result.output
    assert said in " ".join(result.output.split())
    report = episode_report.build(ws, s.episode)
    assert report.repo_patch_file == str(at_root)
    assert said in episode_report.render(report, "md") and said in episode_report.render(report, "html")
