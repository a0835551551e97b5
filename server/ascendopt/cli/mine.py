"""`ascendopt mine`: rewind a good operator into measured lessons for the experience bank."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from ascendopt.cli.common import JsonOpt, NameOpt, OpArg, app, err, fail, load, out, workspace_for
from ascendopt.cli.layout import Field, records
from ascendopt.cli.layout import show as show_records
from ascendopt.cli.live import build_panel
from ascendopt.evaluation.backends import make_evaluator
from ascendopt.experience.bank import Bank
from ascendopt.experience.miner import MinedStep, MiningReport, RewindMiner


@app.command("mine")
def mine_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    budget: Annotated[int, typer.Option("--budget", min=1, help="evaluations to spend")] = 20,
    backend: Annotated[str, typer.Option("--backend")] = "cpu-twin",
    workspace: Annotated[Path | None, typer.Option("--workspace", help="where .ascendopt/ lives")] = None,
    as_json: JsonOpt = False,
) -> None:
    """De-optimize the operator step by step; keep the steps that measurably hurt as lessons."""
    op = load(op_path, name)
    ws = workspace_for(workspace, op.root)

    def show(step: MinedStep) -> None:
        if not as_json:
            err.print(f"  {step.deoptimization}: {'kept' if step.kept else step.reason}")

    async def mine() -> MiningReport:
        evaluator = make_evaluator(backend)
        try:
            with build_panel(err, f"{op.name} on {evaluator.name}", enabled=not as_json):
                return await RewindMiner(evaluator, budget=budget, on_step=show).mine(op)
        finally:
            await evaluator.close()

    try:
        report = asyncio.run(mine())
    except ValueError as exc:
        fail(str(exc))
    with Bank.open(ws) as bank:
        added = bank.add_many(report.lessons)
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    fields = [
        Field("de-optimization"),
        Field("family"),
        Field("slowdown", right=True),
        Field("kept", free=True),
    ]
    rows = [
        [
            s.deoptimization,
            s.family,
            f"{s.slowdown:.2f}x" if s.slowdown else "-",
            "yes" if s.kept else s.reason,
        ]
        for s in report.steps
    ]
    title = f"{op.name}: rewind mining ({report.evaluations} evaluations, noise {report.noise:.1%})"
    show_records(out, records(out, fields, rows, title, narrow="lines"))
    out.print(f"{added} new lesson(s) in {bank.path}")
