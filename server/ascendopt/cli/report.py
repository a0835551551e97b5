"""`ascendopt report EPISODE`: the episode report (report/episode.py) as HTML, Markdown or JSON."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from ascendopt.cli.common import app, fail, print_raw, say
from ascendopt.journal.store import EpisodeJournal, episodes_dir
from ascendopt.report import episode as episode_report


def workspaces_around(start: Path) -> Iterator[Path]:
    """The folders holding `.ascendopt/episodes/` where an episode printed here may be: `start`, a
    parent, or a child (optimize keeps episodes beside the operator unless told otherwise)."""
    for folder in (start, *start.parents, *sorted(p for p in start.iterdir() if p.is_dir())):
        if episodes_dir(folder).is_dir():
            yield folder


def find_workspace(episode: str, start: Path) -> Path | None:
    """The first of `workspaces_around(start)` that holds the episode."""
    return next((ws for ws in workspaces_around(start) if (episodes_dir(ws) / episode).is_dir()), None)


@app.command("report")
def report_cmd(
    episode: Annotated[str, typer.Argument(help="episode id (a folder under .ascendopt/episodes/)")],
    fmt: Annotated[
        episode_report.Format, typer.Option("--format", help="html (self-contained page), md or json")
    ] = "html",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="where to write it (default: the episode's folder)")
    ] = None,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="where .ascendopt/ lives")] = None,
    stdout: Annotated[
        bool, typer.Option("--stdout", help="print the report instead of writing a file")
    ] = False,
) -> None:
    """Write one episode's report: outcome, best speedup over evaluations, per-case timings, every
    candidate with its verdict, lessons retrieved and written, the paired diff."""
    ws = (workspace or find_workspace(episode, Path.cwd().resolve()) or Path.cwd()).resolve()
    try:
        if stdout:
            print_raw(episode_report.render(episode_report.build(ws, episode), fmt))
            return
        path = episode_report.write(ws, episode, fmt, output)
    except KeyError as exc:
        fail(str(exc.args[0]))
    tokens = episode_report.llm_line(EpisodeJournal.open(ws, episode))
    if tokens:
        say(tokens)
    say(f"report written to {path}", whole=True)
