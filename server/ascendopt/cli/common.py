"""Shared pieces of the CLI: the Typer app, consoles, common arguments."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console, ConsoleDimensions
from rich.text import Text
from typer import _click  # the click Typer vendors (its groups are built on it)
from typer.core import TyperCommand, TyperGroup

from ascendopt.redact import LLM_KEY, Scrubber

if TYPE_CHECKING:
    from pydantic import ValidationError

    from ascendopt.operators.model import OperatorProject

# Every command, in the order `--help` lists them: the module (ascendopt.cli.<module>) that registers
# it on `app`, and its help as that module gives it (tests/cli/test_startup.py keeps the two equal).
# A command's module, and what it imports, is loaded only when that command runs: `ascendopt
# --version` and `--help` import none of them.
COMMANDS: dict[str, tuple[str, str]] = {
    "campaign": (
        "campaign",
        "Optimize every operator under PATHS with each strategy; write report.html/.md/.json.",
    ),
    "mine": (
        "mine",
        "De-optimize the operator step by step; keep the steps that measurably hurt as lessons.",
    ),
    "discover": (
        "operators",
        "Find the AscendC operators under PATH: layout, entry, tiling fields, knobs, problems.",
    ),
    "knobs": (
        "operators",
        "The tunable choices of one operator: where each lives, its value and the values it may take.",
    ),
    "init-spec": (
        "operators",
        "Write a starting ascendopt.toml beside the operator from its OpDef / kernel signature.",
    ),
    "templates": (
        "operators",
        "List the shipped operator templates (one line each), or copy one into a workspace.",
    ),
    "optimize": (
        "optimize",
        "Tune the operator (tiling search; kernel rewriting with an LLM) and suggest one paired edit.",
    ),
    "accept": (
        "accept",
        "Apply a suggestion to your files (both files or neither), as the editor's Accept does.\n"
        "Exit 0 applied (or, with --dry-run, would apply), 1 refused: a file changed since the episode,\n"
        "2 no such suggestion.",
    ),
    "replay": (
        "optimize",
        "Re-run a recorded episode offline and deterministically (to debug a prompt or the search).",
    ),
    "report": (
        "report",
        "Write one episode's report: outcome, best speedup over evaluations, per-case timings, every\n"
        "candidate with its verdict, lessons retrieved and written, the paired diff.",
    ),
    "serve": ("serve", "Run the AscendOptimizer language server (what the VS Code extension starts)."),
    "verify": (
        "verify",
        "Build the operator, run every case, compare with the reference, report findings.",
    ),
    "profile": (
        "verify",
        "Verify, then time every case: the 910B timing model on the twin (an estimate, labelled so),\n"
        "msprof op on a CANN backend (measured).",
    ),
    "experience": ("experience", "The experience bank: lessons that guide kernel rewriting."),
    "llm": ("llm", "The LLM endpoint kernel rewriting talks to."),
    "remote": ("remote", "SSH hosts for the ssh:HOST backends."),
}


class LazyGroup(TyperGroup):
    """The top-level group: a command's module is imported when the command is looked up to run;
    the help lists every command from COMMANDS without importing any."""

    _listing = False

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return [*COMMANDS, *(n for n in self.commands if n not in COMMANDS)]

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return self.commands.get(cmd_name)
        module, help_text = COMMANDS[cmd_name]
        if self._listing:
            return TyperCommand(name=cmd_name, help=help_text)
        importlib.import_module(f"ascendopt.cli.{module}")  # registers its commands on `app`
        built = typer.main.get_command(app)
        assert isinstance(built, TyperGroup)
        for name, command in built.commands.items():
            self.commands.setdefault(name, command)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: _click.Context, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def load_all() -> None:
    """Import every command's module (what `typer.main.get_command(app)` then sees in full)."""
    for module in dict.fromkeys(m for m, _ in COMMANDS.values()):
        importlib.import_module(f"ascendopt.cli.{module}")


# Locals stay out of tracebacks: they may hold an API key.
app = typer.Typer(
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    help="Tune AscendC operators: tiling + kernel.",
)
# Piped (stdout not a terminal, no COLUMNS set): lines as wide as they are, so that a script reads a
# path, an id or a command whole.
UNWRAPPED = 10_000


class _Console(Console):
    """A console that wraps only on a terminal (or at COLUMNS when set)."""

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        if self._width is None and not self.is_terminal and not os.environ.get("COLUMNS"):
            return ConsoleDimensions(UNWRAPPED, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


# Literal by default: what is printed quotes compilers, user files, models and paths, where `[with
# T = half]` is not markup and `:100:` is not an emoji. Our own colours are `Text` styles (`error`).
out = _Console(markup=False, emoji=False, highlight=False)
err = _Console(stderr=True, markup=False, emoji=False, highlight=False)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("ascendopt")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown (not installed)"
        out.print(f"ascendopt {number}", highlight=False)
        raise typer.Exit()


@app.callback()
def _main(
    show_version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="print the version and exit")
    ] = False,
) -> None:
    """Tune AscendC operators: tiling + kernel."""


OpArg = Annotated[Path, typer.Argument(help="operator folder (or a folder holding one operator)")]
NameOpt = Annotated[str | None, typer.Option("--name", help="operator name when the folder holds several")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of tables")]
SpecOpt = Annotated[
    Path | None,
    typer.Option("--spec", help="the operator's ascendopt.toml kept elsewhere (its reference beside it)"),
]


def say(text: str, *, whole: bool = False) -> None:
    """A line of product text (it may quote candidate code or messages): no markup, emoji or
    highlighting interpreted, and no configured secret. `whole`: a command or a path, never broken
    across lines (the terminal may fold it; a copy of it is still one line)."""
    out.print(
        Scrubber([LLM_KEY.read() or ""]).text(text),
        markup=False,
        emoji=False,
        highlight=False,
        soft_wrap=whole,
    )


def shown(path: Path) -> str:
    """A path as a command printed here should spell it: relative to the current folder when
    below it, else absolute."""
    path = path.resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(path)


def print_raw(text: str) -> None:
    """Exactly `text` on stdout (a patch: what is shown must be what is applied, byte for byte)."""
    file = out.file
    file.write(Scrubber([LLM_KEY.read() or ""]).text(text))
    file.flush()


def workspace_for(
    explicit: Path | None, start: Path, *, remember: bool = False, read_only: bool = False
) -> Path:
    """`--workspace` as given; else, for a read-only command, the workspace the last `optimize` run
    from the current folder used; else the workspace holding `start` (the one rule the language
    server uses too: `ascendopt.workspace`). Says on stderr which bank that means and why.
    `remember`: record the choice for the current folder (what `optimize` does)."""
    from ascendopt.experience.bank import BANK_FILE
    from ascendopt.workspace import choose_workspace, remember_workspace

    if explicit is not None:
        ws, why = explicit.resolve(), "--workspace"
    else:
        ws, why = choose_workspace(start, cwd=Path.cwd() if read_only else None)
    if remember:
        remember_workspace(Path.cwd(), ws)
    err.print(f"bank: {ws / BANK_FILE} ({why})", markup=False, highlight=False, soft_wrap=True)
    return ws


def error(message: str, label: str = "error:", console: Console = err) -> None:
    """`label message` with the label in red and the message as it is (it may quote anything), never
    wrapped: it names paths and file:line places a reader copies whole."""
    console.print(Text.assemble((label, "red"), " ", message), soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """One sentence on stderr and the exit code (2: the command line asked for something invalid)."""
    error(message)
    raise typer.Exit(code)


def invalid(exc: ValidationError) -> str:
    """A settings model's refusal as one sentence naming the option (`budget` -> `--budget`)."""
    first = exc.errors()[0]
    name = "--" + "-".join(str(p) for p in first["loc"]).replace("_", "-")
    return f"{name}: {first['msg']}" + (f" (got {first['input']!r})" if "input" in first else "")


def load(path: Path, name: str | None, spec: Path | None = None, derive: bool = True) -> OperatorProject:
    """The operator at `path`; a benchmark task's answer without a spec gets the one its task says
    (derived in memory, unless `derive` is off: init-spec writes it instead)."""
    from ascendopt.evaluation.task_spec import run_sync, with_task_spec
    from ascendopt.operators.discovery import load_operator
    from ascendopt.operators.task import TaskSpecError, task_of

    try:
        op = load_operator(path, name, spec)
    except KeyError as exc:
        fail(exc.args[0])  # issues quote the user's text
    if spec is not None and op.external_spec is None:
        fail(f"{spec} names another operator than {op.name} (see `ascendopt discover`)")
    if op.root in path.resolve().parents:
        err.print(f"{path} is inside operator {op.name}: using {shown(op.root)}", soft_wrap=True)
    if derive and op.spec is None and task_of(op.root) is not None:
        try:
            op, draft = run_sync(with_task_spec(op))
        except TaskSpecError as exc:
            fail(f"{op.name}: no spec, and none can be derived from its benchmark task: {exc}", 1)
        err.print(
            f"spec: derived from the benchmark task ({len(draft.case_names)} case(s); "
            f"`ascendopt init-spec {shown(op.root)} --out FILE` writes it)"
        )
    return op
