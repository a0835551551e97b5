"""A candidate's files outside the candidate: written out as an operator folder, or as a diff."""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Callable
from pathlib import Path

from ascendopt.operators.candidate import Candidate
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.repository import find_repo_root


def materialize(project: OperatorProject, candidate: Candidate, folder: Path) -> OperatorProject:
    """The operator as `candidate`'s files describe it, written under `folder` (knob ranges move with
    kernel edits, so a candidate's own knobs come from its own files). The caller owns `folder`."""
    tree = folder / candidate.id
    if project.repo is None:
        tree = tree / project.root.name
    return load_operator(write_tree(project, candidate.files, tree), project.name, project.external_spec)


def write_tree(project: OperatorProject, files: dict[str, str], tree: Path) -> Path:
    """Write `files` under `tree` as the build sees them (inside a repository: in its shape);
    returns where the operator folder is."""
    for rel, text in project.tree_files(files).items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text, encoding="utf-8")
    return Path(project.source_dir(str(tree)))


def unified_diff(path: str, before: str, after: str) -> str:
    """One file's change as a `git apply`-able unified diff (empty when unchanged)."""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


def files_diff(
    before: dict[str, str], after: dict[str, str], keep: Callable[[str], bool] = lambda _: True
) -> str:
    """The diff of every file both sides have and `keep` selects, in path order."""
    return "".join(
        unified_diff(p, before[p], after[p])
        for p in sorted(after)
        if p in before and before[p] != after[p] and keep(p)
    )


def repo_prefix(root: Path) -> str:
    """The operator folder inside the repository around it (POSIX; "" when it is the root or none is
    found): the nearest `.git` above or at it, else the open-repo root (`build.sh` beside `common/`)."""
    root = root.resolve()
    top = next((p for p in (root, *root.parents) if (p / ".git").exists()), None) or find_repo_root(root)
    if top is None or top == root:
        return ""
    return root.relative_to(top).as_posix()


def in_repo(prefix: str, path: str) -> str:
    """A path relative to the operator folder, relative to the repository root instead."""
    return posixpath.normpath(posixpath.join(prefix, path)) if prefix else path
