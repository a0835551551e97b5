"""Commands that read operators: discover, knobs, init-spec, templates."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ascendopt.cli.common import JsonOpt, NameOpt, OpArg, SpecOpt, app, err, load, out
from ascendopt.evaluation.cpu_twin.precheck import precheck_spec
from ascendopt.operators.discovery import discover
from ascendopt.operators.issues import SpecError
from ascendopt.operators.spec import SPEC_FILE, parse_spec
from ascendopt.operators.spec_init import drop_case, starting_spec
from ascendopt.resources import templates_dir


@app.command("discover")
def discover_cmd(path: Annotated[Path, typer.Argument()] = Path("."), as_json: JsonOpt = False) -> None:
    """Find the AscendC operators under PATH: layout, entry, tiling fields, knobs, problems."""
    found = discover(path)
    if as_json:
        print(found.model_dump_json(indent=2))
        return
    table = Table(title=f"{len(found.operators)} operator(s) under {path}")
    table.add_column("operator", no_wrap=True)
    for col in ("layout", "kernel entry", "tiling", "tiling fields", "knobs", "issues"):
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
def knobs_cmd(op_path: OpArg, name: NameOpt = None, as_json: JsonOpt = False, spec: SpecOpt = None) -> None:
    """The tunable choices of one operator: where each lives, its value and the values it may take."""
    op = load(op_path, name, spec)
    if as_json:
        print(json.dumps([k.model_dump() for k in op.knobs], indent=2))
        return
    table = Table(title=f"knobs of {op.name}")
    table.add_column("knob", no_wrap=True)
    for col in ("kind", "side", "where", "current", "values", "source"):
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
    out_path: Annotated[
        Path | None,
        typer.Option("--out", help="write the spec here instead (outside the checkout; use it with --spec)"),
    ] = None,
) -> None:
    """Write a starting ascendopt.toml beside the operator from its OpDef / kernel signature."""
    op = load(op_path, name)
    target = out_path.resolve() if out_path is not None else op.root / SPEC_FILE
    if target.exists() and not force:
        err.print(f"[red]error:[/] {target} exists; pass --force to overwrite it")
        raise typer.Exit(1)
    draft = starting_spec(op)
    text = draft.text
    try:
        spec = parse_spec(text, target)
    except SpecError as exc:  # a draft with a TODO the schema refuses: written for the user to fix
        spec = None
        draft.notes.append(f"the draft does not validate yet: {exc}")
    if spec is not None:
        external = target if out_path is not None else None
        refused, unchecked = asyncio.run(
            precheck_spec(op.model_copy(update={"spec": spec, "external_spec": external}))
        )
        for case, why in refused.items():
            text = drop_case(text, case, why)
            draft.notes.append(f"case {case} left out: the operator refuses it ({why})")
        if unchecked:
            draft.notes.append(f"pre-check: {unchecked}")
        if not refused and (not unchecked or "kernel launch" in unchecked):
            draft.notes.append(f"pre-check: the operator takes every case ({', '.join(draft.case_names)})")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    if out_path is not None:
        draft.notes.append(
            f"the reference goes beside it ({target.parent / 'reference.py'}); "
            f"run the other commands with --spec {target}"
        )
    for note in draft.notes:
        out.print(f"  {note}", markup=False)
    out.print(f"wrote {target}")


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
