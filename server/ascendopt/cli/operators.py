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
from ascendopt.evaluation.cpu_twin.precheck import precheck_spec
from ascendopt.evaluation.task_spec import derive_task_spec, run_sync
from ascendopt.operators.discovery import discover
from ascendopt.operators.issues import SpecError
from ascendopt.operators.spec import SPEC_FILE, parse_spec
from ascendopt.operators.spec_init import drop_case, reference_signature, starting_spec
from ascendopt.operators.task import TaskSpecError, task_of
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
def knobs_cmd(op_path: OpArg, name: NameOpt = None, as_json: JsonOpt = False, spec: SpecOpt = None) -> None:
    """The tunable choices of one operator: where each lives, its value and the values it may take."""
    op = load(op_path, name, spec)
    if as_json:
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
            k.kind,
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
    task = task_of(op.root)
    if task is not None:
        try:
            draft = run_sync(derive_task_spec(op))
        except TaskSpecError as exc:
            fail(f"{op.name}: the benchmark task gives no spec: {exc}", 1)
    else:
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
    if out_path is not None and (spec is None or spec.oracle is None):
        draft.notes.append(
            f"the reference goes beside it ({target.parent / 'reference.py'}); "
            f"run the other commands with --spec {target}"
        )
    for note in draft.notes:
        out.print(f"  {note}", markup=False)
    out.print(f"wrote {target}", markup=False, highlight=False, soft_wrap=True)
    if spec is not None and spec.oracle is not None:
        what = "the task's Model" if spec.oracle.kind == "kernelbench" else "the sample's golden generator"
        out.print(f"next: nothing to write: {what} is the oracle", markup=False, highlight=False)
        return
    ref = target.parent / (spec.reference.partition(":")[0] if spec is not None else "reference.py")
    what = (
        reference_signature(spec)
        if spec is not None
        else "a NumPy function of the inputs, attrs as keywords, returning the outputs"
    )
    step = f"check that {shown(ref)} has" if ref.exists() else f"write {shown(ref)} with"
    out.print(f"next: {step} {what}", markup=False, highlight=False, soft_wrap=True)


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
