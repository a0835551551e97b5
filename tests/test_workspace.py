from __future__ import annotations

from pathlib import Path

from ascendopt.workspace import find_workspace_root


def test_the_nearest_existing_state_folder_wins(tmp_path: Path) -> None:
    op = tmp_path / "lib" / "op" / "op_kernel"
    op.mkdir(parents=True)
    (tmp_path / "lib" / ".ascendopt").mkdir()
    assert find_workspace_root(op) == tmp_path / "lib"
    assert find_workspace_root(op / "kernel.cpp") == tmp_path / "lib"  # a file: from its folder
    (tmp_path / "lib" / "op" / ".ascendopt").mkdir()
    assert find_workspace_root(op) == tmp_path / "lib" / "op"


def test_a_vcs_root_stops_the_walk(tmp_path: Path) -> None:
    (tmp_path / ".ascendopt").mkdir()  # above the checkout: never used for it
    repo = tmp_path / "repo"
    (repo / "ops" / "add").mkdir(parents=True)
    (repo / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    assert find_workspace_root(repo / "ops" / "add") == repo
    assert find_workspace_root(tmp_path / "other") == tmp_path


def test_nothing_found_gives_the_fallback_or_the_start(tmp_path: Path) -> None:
    op = tmp_path / "a" / "op"
    op.mkdir(parents=True)
    assert find_workspace_root(op) == op
    assert find_workspace_root(op, fallback=tmp_path / "a") == tmp_path / "a"
