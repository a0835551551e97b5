"""`ascendopt accept`: apply an episode's suggestion from the terminal, by the editor's path
(agent/service.py `accept`: both files or neither, refused when they changed since the episode)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ascendopt.agent.service import Optimizer
from ascendopt.agent.suggestion import StaleSuggestion, Suggestion
from ascendopt.cli.common import app, error, fail, print_raw, say
from ascendopt.cli.report import workspaces_around
from ascendopt.journal.store import episodes_dir, repo_patch_name
from ascendopt.report import episode as episode_report


def _find(key: str, workspace: Path | None) -> tuple[Optimizer, Suggestion]:
    """The suggestion (by its id or its episode's) in `--workspace`, else in the first workspace
    around the current folder that holds it (as `report` looks for an episode)."""
    places = [workspace.resolve()] if workspace else list(workspaces_around(Path.cwd().resolve()))
    for ws in places:
        optimizer = Optimizer(ws)
        try:
            return optimizer, optimizer.load_suggestion(key)
        except KeyError:
            continue
    where = ", ".join(str(episodes_dir(ws)) for ws in places) or "no .ascendopt/ here, above or below"
    fail(f"no suggestion or episode {key!r} in {where} (pass --workspace DIR)")


@app.command("accept")
def accept_cmd(
    suggestion: Annotated[
        str, typer.Argument(help="the suggestion id `optimize` printed (or its episode id)")
    ],
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="print the diff and the files it would change; change nothing")
    ] = False,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="where .ascendopt/ lives")] = None,
) -> None:
    """Apply a suggestion to your files (both files or neither), as the editor's Accept does.
    Exit 0 applied (or, with --dry-run, would apply), 1 refused: a file changed since the episode,
    2 no such suggestion."""
    optimizer, s = _find(suggestion, workspace)
    files = ", ".join(c.path for c in s.changes)
    if dry_run:
        print_raw(s.patch())
        if s.repo_prefix:  # a repository's user applies it where they stand
            repo_patch = episodes_dir(optimizer.workspace) / s.episode / repo_patch_name(s.operator)
            say(episode_report.repo_patch_line(str(repo_patch), s.repo_prefix), whole=True)
        if stale := s.stale_files():
            exc = StaleSuggestion(stale, applied=s.applied())
            error(str(exc), "would not apply:")
            raise typer.Exit(0 if exc.applied else 1)
        say(
            f"would change {len(s.changes)} file(s) in {s.root}: {files} (nothing changed: --dry-run)",
            whole=True,
        )
        return
    try:
        written = optimizer.accept(s.id)
    except StaleSuggestion as exc:
        error(str(exc), "not applied:")
        raise typer.Exit(0 if exc.applied else 1) from exc
    except OSError as exc:
        fail(f"could not write the suggestion ({exc}); no file was changed", 1)
    say(f"{s.operator}: applied to {len(written)} file(s) in {s.root}: {files}", whole=True)
