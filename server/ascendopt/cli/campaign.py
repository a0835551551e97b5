"""`ascendopt campaign`: one episode per operator and strategy over whole folders, one report."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ascendopt.agent.strategies import STRATEGIES, Strategy
from ascendopt.campaign.pools import LocalPool, RayPool, TaskPool
from ascendopt.campaign.records import CampaignSettings
from ascendopt.campaign.service import CampaignProgress, CampaignService
from ascendopt.cli.common import JsonOpt, app, err, out
from ascendopt.report.campaign import (
    OPERATOR_HEADER,
    SUMMARY_HEADER,
    build_report,
    operator_rows,
    summary_rows,
)


def _strategies(text: str) -> list[Strategy]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    bad = [n for n in names if n not in STRATEGIES]
    if bad or not names:
        choices = ", ".join(STRATEGIES)
        raise typer.BadParameter(f"unknown strategy {', '.join(bad) or text!r}; choose from {choices}")
    return [n for n in STRATEGIES if n in names]


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "ETA -"
    m, s = divmod(int(seconds), 60)
    return f"ETA {m}:{s:02d}"


@app.command("campaign")
def campaign_cmd(
    paths: Annotated[list[Path] | None, typer.Argument(help="folders holding operators")] = None,
    budget: Annotated[int, typer.Option("--budget", help="evaluations per operator and strategy")] = 24,
    strategy: Annotated[
        str,
        typer.Option("--strategy", help="ours, random, tpe; best-of-n, openevolve (need an LLM)"),
    ] = "ours",
    backend: Annotated[str, typer.Option("--backend", help="cpu-twin (default) or ssh:HOST")] = "cpu-twin",
    soc: Annotated[str | None, typer.Option("--soc", help="platform model, e.g. Ascend910B4")] = None,
    model: Annotated[str | None, typer.Option("--model", help="LLM model for `ours`")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", help="episodes at once (local pool)")] = 2,
    ray: Annotated[
        str | None, typer.Option("--ray", help="run episodes as Ray tasks: a cluster address, or 'local'")
    ] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="continue a campaign by id")] = None,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="where .ascendopt/ lives")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Optimize every operator under PATHS with each strategy; write report.html/.md/.json."""
    ws = (workspace or Path.cwd()).resolve()
    service = CampaignService(ws)
    try:
        if resume:
            record = service.load(resume)
        else:
            if not paths:
                raise typer.BadParameter("give at least one folder, or --resume ID")
            settings = CampaignSettings(
                paths=[p.resolve() for p in paths],
                budget=budget,
                strategies=_strategies(strategy),
                backend=backend,
                soc=soc,
                seed=seed,
                model=model,
            )
            record = service.plan(settings)
    except (KeyError, ValueError) as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc
    skipped = [o for o in record.operators if not o.usable]
    err.print(
        f"campaign {record.id}: {len(record.tasks)} episode(s) over "
        f"{len(record.operators) - len(skipped)} operator(s), {len(skipped)} not run"
    )
    for o in skipped:
        err.print(f"  not run: {o.name} ({o.root}): {o.reason}")
    pool: TaskPool = RayPool(ray, jobs) if ray else LocalPool(jobs)

    def show(p: CampaignProgress) -> None:
        best = f"best {p.best_speedup:.2f}x" if p.best_speedup else "best -"
        line = (
            f"{p.done}/{p.total} done · {p.running} running · {p.failed} failed · "
            f"{p.evaluations}/{p.budget} evals · {best} · {_eta(p.eta_s)}"
        )
        if not as_json:
            err.print(line, end="\r" if err.is_terminal else "\n", highlight=False)

    try:
        record = asyncio.run(service.run(record, pool, on_progress=show))
    except KeyboardInterrupt:
        err.print(f"\ninterrupted: continue with `ascendopt campaign --resume {record.id}`")
        raise typer.Exit(130) from None
    finally:
        pool.close()
    report = build_report(record)
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    folder = ws / ".ascendopt" / "campaigns" / record.id
    table = Table(title=f"campaign {record.id} ({record.settings.budget} evaluations each)")
    for col in SUMMARY_HEADER:
        table.add_column(col)
    for row in summary_rows(report):
        table.add_row(*row)
    ops = Table(title="per operator (speedups re-checked; twin figures are estimates)")
    for col in OPERATOR_HEADER:
        ops.add_column(col, overflow="fold")
    for row in operator_rows(report):
        ops.add_row(*row)
    out.print(ops)
    out.print(table)
    out.print(f"report: {folder / 'report.html'} (and report.md, report.json)", highlight=False)
