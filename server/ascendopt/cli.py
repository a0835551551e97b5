"""`ascendopt …`: the terminal face. Each command parses arguments, calls a service, renders."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from ascendopt.evaluation.cpu_twin.evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.verify import VerifyError, verify
from ascendopt.operators.discovery import discover, load_operator
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import SPEC_FILE
from ascendopt.operators.spec_init import starting_spec
from ascendopt.resources import templates_dir

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Tune AscendC operators: tiling + kernel.")
out = Console()
err = Console(stderr=True)

OpArg = Annotated[Path, typer.Argument(help="operator folder (or a folder holding one operator)")]
NameOpt = Annotated[str | None, typer.Option("--name", help="operator name when the folder holds several")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON instead of tables")]


def _load(path: Path, name: str | None) -> OperatorProject:
    try:
        return load_operator(path, name)
    except KeyError as exc:
        err.print(f"[red]error:[/] {exc.args[0]}")
        raise typer.Exit(2) from exc


@app.command("discover")
def discover_cmd(path: Annotated[Path, typer.Argument()] = Path("."), as_json: JsonOpt = False) -> None:
    """Find the AscendC operators under PATH: layout, entry, tiling fields, knobs, problems."""
    found = discover(path)
    if as_json:
        print(found.model_dump_json(indent=2))
        return
    table = Table(title=f"{len(found.operators)} operator(s) under {path}")
    for col in ("operator", "layout", "kernel entry", "tiling", "tiling fields", "knobs", "issues"):
        table.add_column(col)
    for op in found.operators:
        table.add_row(
            op.name,
            op.layout,
            f"{op.files.kernel}:{op.kernel.range.start_line} ({len(op.kernel.params)} params)",
            f"{op.tiling.function}" if op.tiling else "-",
            ", ".join(f.name for f in op.tiling_fields) or "-",
            ", ".join(k.name for k in op.knobs) or "-",
            str(len(op.issues)) if op.issues else "",
        )
    out.print(table)
    for op in found.operators:
        for issue in op.issues:
            where = f"{op.root / issue.file}:{issue.line}:{issue.column}"
            out.print(f"[yellow]{where}[/] {issue.severity}: {issue.message}")
    for issue in found.issues:
        out.print(f"[yellow]{issue.file}:{issue.line}[/] {issue.severity}: {issue.message}")


@app.command("knobs")
def knobs_cmd(op_path: OpArg, name: NameOpt = None, as_json: JsonOpt = False) -> None:
    """The tunable choices of one operator: where each lives, its value and the values it may take."""
    op = _load(op_path, name)
    if as_json:
        print(json.dumps([k.model_dump() for k in op.knobs], indent=2))
        return
    table = Table(title=f"knobs of {op.name}")
    for col in ("knob", "kind", "side", "where", "current", "values", "source"):
        table.add_column(col)
    for k in op.knobs:
        current = str(k.current) if k.kind != "region" else f"{len(str(k.current).splitlines())} lines"
        values = ", ".join(map(str, k.values)) if k.values else "free-form"
        table.add_row(
            k.name, k.kind, k.side, f"{k.range.file}:{k.range.start_line}", current, values, k.source
        )
    out.print(table)


@app.command("init-spec")
def init_spec_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite an existing spec")] = False,
) -> None:
    """Write a starting ascendopt.toml beside the operator from its OpDef / kernel signature."""
    op = _load(op_path, name)
    target = op.root / SPEC_FILE
    if target.exists() and not force:
        err.print(f"[red]error:[/] {target} exists; pass --force to overwrite it")
        raise typer.Exit(1)
    target.write_text(starting_spec(op), encoding="utf-8")
    out.print(f"wrote {target}")


@app.command("verify")
def verify_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    case: Annotated[str | None, typer.Option("--case", help="case name or index (default: all)")] = None,
    seed: Annotated[int, typer.Option("--seed", help="seed for the random inputs")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Build the operator on the CPU twin, run every case, compare with the reference, report findings."""
    op = _load(op_path, name)
    try:
        evaluation = asyncio.run(verify(CpuTwinEvaluator(), op, case, seed))
    except VerifyError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc
    if as_json:
        print(evaluation.model_dump_json(indent=2))
    else:
        _render_evaluation(op, evaluation)
    raise typer.Exit(0 if evaluation.correct else 1)


def _render_evaluation(op: OperatorProject, ev: Evaluation) -> None:
    if ev.status == "compile_error":
        out.print(f"[red]{op.name}: does not compile[/] ({ev.backend})")
        for issue in ev.compile_errors:
            out.print(f"  {op.root / issue.file}:{issue.line}:{issue.column}: {issue.message}")
        return
    if ev.status != "ok":
        out.print(f"[red]{op.name}: {ev.message}[/]")
        return
    table = Table(title=f"{op.name} on {ev.hardware} (seed {ev.seed}, {ev.wall_seconds:.2f} s)")
    for col in (
        "case",
        "dtypes",
        "status",
        "output",
        "max abs err",
        "max rel err",
        "mismatches",
        "block dim",
    ):
        table.add_column(col)
    for c in ev.cases:
        dts = ",".join(sorted(set(c.dtypes.values())))
        status = {"passed": "[green]passed[/]", "failed": "[red]failed[/]"}.get(
            c.status, f"[red]{c.status}[/]"
        )
        if not c.outputs:
            table.add_row(c.name, dts, status, "-", "-", "-", c.message, str(c.block_dim or "-"))
        for i, o in enumerate(c.outputs):
            mism = f"{o.mismatches} ({o.mismatch_fraction:.2%})" if o.mismatches else "0"
            if o.first_bad_index is not None:
                mism += (
                    f" first at {o.first_bad_index}: {o.actual_at_first_bad:g} vs {o.expected_at_first_bad:g}"
                )
            table.add_row(
                c.name if i == 0 else "",
                dts if i == 0 else "",
                status if i == 0 else "",
                o.name,
                f"{o.max_abs_error:.3g}",
                f"{o.max_rel_error:.3g}",
                mism,
                str(c.block_dim or "-") if i == 0 else "",
            )
    out.print(table)
    for f in ev.findings():
        where = f"{op.root / f.file}:{f.line}" if f.file else op.name
        colour = "red" if f.severity == "error" else "yellow"
        out.print(
            f"[{colour}]{where}[/] {f.severity} [{f.kind}] {f.message}"
            + (f" (x{f.count})" if f.count > 1 else "")
        )
    verdict = "[green]correct on every case[/]" if ev.correct else "[red]not correct[/]"
    out.print(f"{op.name}: {verdict}")


@app.command("templates")
def templates_cmd(
    copy: Annotated[str | None, typer.Option("--copy", help="template to copy")] = None,
    to: Annotated[Path | None, typer.Option("--to", help="destination folder for --copy")] = None,
) -> None:
    """List the shipped operator templates, or copy one into a workspace."""
    base = templates_dir()
    if copy is None:
        for d in sorted(p for p in base.iterdir() if (p / SPEC_FILE).exists()):
            out.print(d.name)
        return
    src = base / copy
    if not (src / SPEC_FILE).exists():
        err.print(f"[red]error:[/] no template named {copy!r}")
        raise typer.Exit(2)
    dest = (to or Path(".")) / copy
    if dest.exists():
        err.print(f"[red]error:[/] {dest} exists")
        raise typer.Exit(1)
    shutil.copytree(src, dest)
    out.print(f"copied {copy} to {dest}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
