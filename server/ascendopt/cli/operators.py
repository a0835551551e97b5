"""Commands that read operators: discover, knobs, init-spec, templates."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ascendopt.cli.common import JsonOpt, NameOpt, OpArg, SpecOpt, app, fail, load, out, shown
from ascendopt.cli.layout import Field, print_json, records, show
from ascendopt.evaluation.cpu_twin.spec_draft import write_starting_spec
from ascendopt.operators import domains
from ascendopt.operators.discovery import discover
from ascendopt.operators.spec import SPEC_FILE
from ascendopt.operators.task import TaskSpecError
from ascendopt.operators.templates import TemplateError, copy_template, list_templates


@app.command("discover")
def discover_cmd(
    path: Annotated[Path, typer.Argument()] = Path("."),
    as_json: JsonOpt = False,
    specs: Annotated[
        list[Path] | None,
        typer.Option("--spec", help="a spec kept outside the tree, for the operator it names (repeatable)"),
    ] = None,
) -> None:
    """Find the AscendC operators under PATH: layout, entry, tiling fields, knobs, problems."""
    found = discover(path, specs or [])
    if as_json:
        print(found.model_dump_json(indent=2))
        return
    fields = [
        Field("operator"),
        Field("layout"),
        Field("kernel entry", essential=False),
        Field("tiling", essential=False),
        Field("tiling fields", free=True, essential=False),
        Field("knobs", free=True),
        Field("issues", right=True),
    ]
    rows = [
        [
            op.name,
            op.layout,
            f"{op.files.kernel}:{op.kernel.range.start_line} ({len(op.kernel.params)} params)",
            f"{op.tiling.function}" if op.tiling else "-",
            ", ".join(f.name for f in op.tiling_fields) or "-",
            ", ".join(k.name for k in op.knobs) or "-",
            str(len(op.issues)) if op.issues else "",
        ]
        for op in found.operators
    ]
    lines: list[RenderableType] = [
        records(out, fields, rows, f"{len(found.operators)} operator(s) under {path}")
    ]
    for op in found.operators:
        for issue in op.issues:
            lines.append(
                _issue(f"{op.root / issue.file}:{issue.line}:{issue.column}", issue.severity, issue.message)
            )
    for issue in found.issues:
        lines.append(_issue(f"{issue.file}:{issue.line}", issue.severity, issue.message))
    show(out, *lines)


def _issue(where: str, severity: str, message: str) -> Text:
    return Text.assemble((where, "yellow"), f" {severity}: {message}")


@app.command("knobs")
def knobs_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    as_json: JsonOpt = False,
    spec: SpecOpt = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="also every constant considered and refused, with why")
    ] = False,
) -> None:
    """The tunable choices of one operator: where each lives, its value and the values it may take."""
    op = load(op_path, name, spec)
    if as_json:
        if show_all:
            dump = {
                k: [m.model_dump(mode="json") for m in v]
                for k, v in (("knobs", op.knobs), ("refused", op.refused))
            }
            print(json.dumps(dump, indent=2, ensure_ascii=False))
        else:
            print_json(op.knobs)
        return
    fields = [
        Field("knob"),
        Field("kind"),
        Field("side"),
        Field("where", essential=False),
        Field("current"),
        Field("values", free=True),
        Field("source", essential=False),
    ]
    rows = [
        [
            k.name,
            k.kind if k.role is None else f"{k.kind} ({k.role})",
            k.side,
            ", ".join(
                [
                    f"{k.range.file}:{k.range.start_line}",
                    *(f"{r.file}:{r.start_line}" for r in k.links),
                    *(f"{s.range.file}:{s.range.start_line} (x{s.factor})" for s in k.scaled_links),
                ]
            ),
            str(k.current) if k.kind != "region" else f"{len(str(k.current).splitlines())} lines",
            ", ".join(map(str, k.values)) if k.values else "free-form",
            k.source,
        ]
        for k in op.knobs
    ]
    show(out, records(out, fields, rows, f"knobs of {op.name}"))
    out.print(f"{domains.space_size(op.knobs)} point(s) in the knob space of {len(rows)} knob(s)")
    if show_all:
        for r in op.refused:
            out.print(f"refused {r.name} = {r.value} ({r.file}:{r.line}): {r.reason}")


@app.command("init-spec")
def init_spec_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    force: Annotated[bool, typer.Option("--force", help="overwrite an existing spec")] = False,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", help="write the spec here instead (outside the checkout; use it with --spec)"),
    ] = None,
) -> None:
    """Write a starting ascendopt.toml beside the operator from its OpDef / kernel signature."""
    op = load(op_path, name, derive=False)
    target = out_path.resolve() if out_path is not None else op.root / SPEC_FILE
    if target.exists() and not force:
        fail(f"{target} exists; pass --force to overwrite it", 1)
    try:
        written = asyncio.run(write_starting_spec(op, target, external=out_path is not None))
    except TaskSpecError as exc:
        fail(f"{op.name}: the benchmark task gives no spec: {exc}", 1)
    for note in written.notes:
        out.print(f"  {note}", markup=False)
    out.print(f"wrote {target}", markup=False, highlight=False, soft_wrap=True)
    out.print(written.next_step(shown), markup=False, highlight=False, soft_wrap=True)


@app.command("templates")
def templates_cmd(
    copy: Annotated[str | None, typer.Option("--copy", help="template to copy")] = None,
    to: Annotated[Path | None, typer.Option("--to", help="destination folder for --copy")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the shipped operator templates (one line each), or copy one into a workspace."""
    if copy is None:
        listed = list_templates()
        if as_json:
            print(json.dumps([{"name": t.name, "summary": t.summary} for t in listed]))
            return
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column()  # the summary wraps under itself at any width
        for t in listed:
            grid.add_row(t.name, t.summary)
        out.print(grid, highlight=False)
        return
    try:
        dest = copy_template(copy, to or Path("."))
    except TemplateError as exc:
        fail(str(exc))
    out.print(f"copied {copy} to {dest}")
