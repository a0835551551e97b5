"""`ascendopt verify` and `ascendopt profile`: build, check and time an operator on the CPU twin."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.console import RenderableType
from rich.text import Text

from ascendopt.cli.common import JsonOpt, NameOpt, OpArg, SpecOpt, app, err, fail, load, out
from ascendopt.cli.layout import Cell, Field, records, show
from ascendopt.cli.live import build_panel
from ascendopt.evaluation.backends import BackendError, make_evaluator
from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.remote.settings import SettingsError
from ascendopt.evaluation.verify import VerifyError, parse_assignments, verify
from ascendopt.operators.candidate import KnobValue
from ascendopt.operators.model import OperatorProject

BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        help="cpu-twin (default), local:cann, or ssh:HOST[,HOST…][:cpu-twin|cann] "
        "(hosts in .ascendopt/remote.toml)",
    ),
]


def _evaluator(backend: str, soc: str | None = None) -> Evaluator:
    try:
        return make_evaluator(backend, soc)
    except (BackendError, SettingsError) as exc:
        fail(str(exc))


async def _verify(
    evaluator: Evaluator,
    op: OperatorProject,
    case: str | None,
    seed: int,
    profile: bool = False,
    assignment: dict[str, KnobValue] | None = None,
    *,
    quiet: bool = False,
) -> Evaluation:
    """One verify (or profile) with the build's output live on stderr; the evaluator's
    connections are closed before the command exits."""
    try:
        with build_panel(err, f"{op.name} on {evaluator.name}", enabled=not quiet):
            return await verify(evaluator, op, case, seed, profile, assignment)
    finally:
        await evaluator.close()


@app.command("verify")
def verify_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    case: Annotated[str | None, typer.Option("--case", help="case name or index (default: all)")] = None,
    seed: Annotated[int, typer.Option("--seed", help="seed for the random inputs")] = 0,
    backend: BackendOpt = "cpu-twin",
    as_json: JsonOpt = False,
    spec: SpecOpt = None,
) -> None:
    """Build the operator, run every case, compare with the reference, report findings."""
    op = load(op_path, name, spec)
    try:
        evaluation = asyncio.run(_verify(_evaluator(backend), op, case, seed, quiet=as_json))
    except VerifyError as exc:
        fail(str(exc))
    if as_json:
        print(evaluation.model_dump_json(indent=2))
    else:
        _render_evaluation(op, evaluation)
    raise typer.Exit(0 if evaluation.correct else 1)


def _render_evaluation(op: OperatorProject, ev: Evaluation) -> None:
    if ev.status == "compile_error":
        out.print(Text.assemble((f"{op.name}: does not compile", "red"), f" ({ev.backend})"))
        for issue in ev.compile_errors:
            # As g++ prints it: one line, the terminal folds it (the file:line:col stays whole).
            out.print(
                f"  {op.root / issue.file}:{issue.line}:{issue.column}: {issue.message}", soft_wrap=True
            )
        return
    if ev.status != "ok":
        out.print(Text(f"{op.name}: {ev.failure_reason()}", style="red"))
        return
    fields = [
        Field("case"),
        Field("dtypes", essential=False),
        Field("status"),
        Field("output"),
        Field("max abs err", right=True),
        Field("max rel err", right=True, essential=False),
        Field("mismatches", free=True),
        Field("block dim", right=True, essential=False),
    ]
    rows: list[list[Cell]] = []
    for c in ev.cases:
        dts = ",".join(sorted(set(c.dtypes.values())))
        status = Text(c.status, style="green" if c.status == "passed" else "red")
        blocks = str(c.block_dim or "-")
        if not c.outputs:
            rows.append([c.name, dts, status, "-", "-", "-", c.message, blocks])
        for o in c.outputs:
            mism = f"{o.mismatches} ({o.mismatch_fraction:.2%})" if o.mismatches else "0"
            if o.first_bad_index is not None:
                mism += f" {o.first_bad_text()}"
            rows.append(
                [
                    c.name,
                    dts,
                    status,
                    o.name,
                    f"{o.max_abs_error:.3g}",
                    f"{o.max_rel_error:.3g}",
                    mism,
                    blocks,
                ]
            )
    title = f"{op.name} on {ev.hardware} (seed {ev.seed}, {ev.wall_seconds:.2f} s)"
    lines: list[RenderableType] = [records(out, fields, rows, title)]
    for f in ev.findings():
        where = f"{op.root / f.file}:{f.line}" if f.file else op.name
        colour = "red" if f.severity == "error" else "yellow"
        count = f" (x{f.count})" if f.count > 1 else ""
        lines.append(Text.assemble((where, colour), f" {f.severity} [{f.kind}] {f.message}{count}"))
    if ev.unchecked_outputs:
        lines.append(
            Text(
                f"not checked: {', '.join(ev.unchecked_outputs)} (the spec's check = false: the kernel "
                "writes it, nothing says its values)",
                style="yellow",
            )
        )
    verdict = ("correct on every case", "green") if ev.correct else ("not correct", "red")
    lines.append(Text.assemble(f"{op.name}: ", verdict))
    show(out, *lines)


@app.command("profile")
def profile_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    case: Annotated[str | None, typer.Option("--case", help="case name or index (default: all)")] = None,
    soc: Annotated[
        str | None, typer.Option("--soc", help="Ascend910B1 or Ascend910B4 (default: the spec's)")
    ] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", help="KNOB=VALUE, applied to a copy")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    backend: BackendOpt = "cpu-twin",
    as_json: JsonOpt = False,
    spec: SpecOpt = None,
) -> None:
    """Verify, then time every case: the 910B timing model on the twin (an estimate, labelled so),
    msprof op on a CANN backend (measured)."""
    op = load(op_path, name, spec)
    try:
        assignment = parse_assignments(sets or [], op)
        evaluator = _evaluator(backend, soc)
        evaluation = asyncio.run(_verify(evaluator, op, case, seed, True, assignment, quiet=as_json))
    except VerifyError as exc:
        fail(str(exc))
    if as_json:
        print(evaluation.model_dump_json(indent=2))
        raise typer.Exit(0 if evaluation.correct else 1)
    if evaluation.status != "ok" or not evaluation.correct:
        _render_evaluation(op, evaluation)
        raise typer.Exit(1)
    fields = [
        Field("case"),
        *(Field(c, right=True) for c in ("µs", "MTE2", "V", "MTE3", "S")),
        Field("bound"),
    ]
    fields.append(Field("blocks", right=True))
    rows: list[list[Cell]] = []
    labels: set[str] = set()
    hot: list[list[Cell]] = []
    for c in evaluation.cases:
        p = c.profile
        if p is None:
            rows.append([c.name, "-", "", "", "", "", "", str(c.block_dim or "-")])
            continue
        labels.add(p.source)
        ratio = {t.pipe: f"{t.ratio:.0%}" for t in p.pipes}
        rows.append(
            [
                c.name,
                f"{p.duration_us:.2f}",
                *(ratio.get(col, "-") for col in PIPE_COLUMNS),
                p.bound or "-",
                str(c.block_dim or "-"),
            ]
        )
        hot.append([c.name, ", ".join(p.hot_lines[:3])])
    lines: list[RenderableType] = [records(out, fields, rows, f"{op.name}: duration per case")]
    lines.append(Text("pipes: busy share of the critical core (msprof PipeUtilization aiv_*_ratio)"))
    lines += [Text(f"durations: {label}") for label in sorted(labels)]
    if hot:
        fields = [Field("case"), Field("lines", free=True)]
        lines.append(records(out, fields, hot, "lines on the critical path", narrow="lines"))
    show(out, *lines)


PIPE_COLUMNS = ("aiv_mte2_time(us)", "aiv_vec_time(us)", "aiv_mte3_time(us)", "aiv_scalar_time(us)")
