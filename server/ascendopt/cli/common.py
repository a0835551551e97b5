"""Shared pieces of the CLI: the Typer app, consoles, common arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from ascendopt.operators.discovery import load_operator
from ascendopt.operators.model import OperatorProject
from ascendopt.redact import LLM_KEY, Scrubber

# Locals stay out of tracebacks: they may hold an API key.
app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    help="Tune AscendC operators: tiling + kernel.",
)
out = Console()
err = Console(stderr=True)

OpArg = Annotated[Path, typer.Argument(help="operator folder (or a folder holding one operator)")]
NameOpt = Annotated[str | None, typer.Option("--name", help="operator name when the folder holds several")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of tables")]
SpecOpt = Annotated[
    Path | None,
    typer.Option("--spec", help="the operator's ascendopt.toml kept elsewhere (its reference beside it)"),
]


def say(text: str) -> None:
    """A line of product text (it may quote candidate code or messages): no markup, emoji or
    highlighting interpreted, and no configured secret."""
    out.print(Scrubber([LLM_KEY.read() or ""]).text(text), markup=False, emoji=False, highlight=False)


def print_raw(text: str) -> None:
    """Exactly `text` on stdout (a patch: what is shown must be what is applied, byte for byte)."""
    file = out.file
    file.write(Scrubber([LLM_KEY.read() or ""]).text(text))
    file.flush()


def load(path: Path, name: str | None, spec: Path | None = None) -> OperatorProject:
    try:
        op = load_operator(path, name, spec)
    except KeyError as exc:
        err.print(f"[red]error:[/] {exc.args[0]}")
        raise typer.Exit(2) from exc
    if spec is not None and op.external_spec is None:
        err.print(f"[red]error:[/] {spec} is not a usable spec for {op.name} (see `ascendopt discover`)")
        for issue in op.issues:
            if Path(issue.file).name == spec.name:
                err.print(str(issue), markup=False)
        raise typer.Exit(2)
    return op
