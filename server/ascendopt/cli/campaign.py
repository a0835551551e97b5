"""`ascendopt campaign`: one episode per operator and strategy over whole folders, one report."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.text import Text

from ascendopt.agent.settings import MIN_BUDGET
from ascendopt.agent.strategies import DEFAULT_STRATEGY, STRATEGIES, Strategy
from ascendopt.campaign.pools import LocalPool, RayPool, TaskPool
from ascendopt.campaign.records import CampaignRecord, CampaignSettings
from ascendopt.campaign.service import CampaignService
from ascendopt.campaign.store import CampaignStore
from ascendopt.cli.common import JsonOpt, app, err, fail, invalid, out, workspace_for
from ascendopt.cli.layout import Field, records
from ascendopt.cli.layout import show as show_all
from ascendopt.cli.progress import campaign_progress
from ascendopt.report.campaign import (
    LEVEL_HEADER,
    OPERATOR_HEADER,
    SUMMARY_HEADER,
    TASK_HEADER,
    build_report,
    level_rows,
    operator_rows,
    paper_header,
    paper_note,
    paper_rows,
    partial_note,
    shared_note,
    summary_rows,
    task_table,
    write_reports,
)


def _strategies(given: list[str]) -> list[Strategy]:
    """Every `--strategy` given (repeated, comma-separated, or both), in the registry's order."""
    names = [s.strip() for text in given for s in text.split(",") if s.strip()]
    bad = [n for n in names if n not in STRATEGIES]
    if bad or not names:
        choices = ", ".join(STRATEGIES)
        raise typer.BadParameter(f"unknown strategy {', '.join(bad) or repr(given)}; choose from {choices}")
    return [n for n in STRATEGIES if n in names]


@app.command("campaign")
def campaign_cmd(
    paths: Annotated[list[Path] | None, typer.Argument(help="folders holding operators")] = None,
    budget: Annotated[
        int, typer.Option("--budget", min=MIN_BUDGET, help="evaluations per operator and strategy")
    ] = 24,
    strategy: Annotated[
        list[str] | None,
        typer.Option(
            "--strategy",
            help="ours, random, tpe; best-of-n, openevolve (need an LLM); repeat it or separate by commas",
        ),
    ] = None,
    backend: Annotated[str, typer.Option("--backend", help="cpu-twin (default) or ssh:HOST")] = "cpu-twin",
    soc: Annotated[str | None, typer.Option("--soc", help="platform model, e.g. Ascend910B4")] = None,
    model: Annotated[str | None, typer.Option("--model", help="LLM model for `ours`")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    jobs: Annotated[
        int,
        typer.Option("--jobs", min=1, help="episodes at once (local pool); benchmark tasks planned at once"),
    ] = 2,
    ray: Annotated[
        str | None, typer.Option("--ray", help="run episodes as Ray tasks: a cluster address, or 'local'")
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option("--resume", help="continue a campaign by id (planned again: what verifies now joins)"),
    ] = None,
    report_only: Annotated[
        str | None,
        typer.Option("--report", help="write and show a campaign's report as it stands; run nothing"),
    ] = None,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="where .ascendopt/ lives")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Optimize every operator under PATHS with each strategy; write report.html/.md/.json."""
    ws = workspace_for(workspace, Path.cwd())
    service = CampaignService(ws)
    try:
        if report_only:
            record = service.load(report_only)
        elif resume:
            record = service.load(resume)
            if added := service.refresh(record, jobs):  # what verifies now, or was added, joins
                err.print(f"campaign {record.id}: planned again, {added} episode(s) added")
        else:
            if not paths:
                raise typer.BadParameter("give at least one folder, or --resume ID")
            settings = CampaignSettings(
                paths=[p.resolve() for p in paths],
                budget=budget,
                strategies=_strategies(strategy or [DEFAULT_STRATEGY]),
                backend=backend,
                soc=soc,
                seed=seed,
                model=model,
            )
            record = service.plan(settings, jobs)
    except ValidationError as exc:
        fail(invalid(exc))
    except (KeyError, ValueError) as exc:
        fail(str(exc.args[0] if isinstance(exc, KeyError) else exc))
    if report_only:
        write_reports(record, CampaignStore(ws, record.id).folder, ws)
        _show(record, ws, as_json)
        return
    skipped = [o for o in record.operators if not o.usable]
    err.print(
        f"campaign {record.id}: {len(record.tasks)} episode(s) over "
        f"{len(record.operators) - len(skipped)} operator(s), {len(skipped)} not run"
    )
    for o in skipped:
        err.print(f"  not run: {o.name} ({o.root}): {o.reason}")
    pool: TaskPool = RayPool(ray, jobs) if ray else LocalPool(jobs)

    try:
        with campaign_progress(err, record.id, enabled=not as_json) as show:
            record = asyncio.run(service.run(record, pool, on_progress=show))
        write_reports(record, CampaignStore(ws, record.id).folder, ws)
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C (scratch.Termination)
        command = ["ascendopt", "campaign", "--resume", record.id]
        command += ["--workspace", str(workspace)] if workspace else []
        done = sum(1 for t in record.tasks if t.status == "done")
        err.print(
            f"\ninterrupted, partial: {done} of {len(record.tasks)} tasks done; continue with "
            f"`{shlex.join(command)}`",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    finally:
        pool.close()
    _show(record, ws, as_json)


def _show(record: CampaignRecord, ws: Path, as_json: bool) -> None:
    """The campaign's tables on the terminal (or its report as JSON), and where its report files are."""
    report = build_report(record)
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    folder = CampaignStore(ws, record.id).folder
    if report.levels:  # a benchmark: one row per task, the levels, the paper's figures beside
        per_task = records(
            out,
            [
                Field(c, free=c in ("verified", "change"), right=c in ("baseline µs", "best"))
                for c in TASK_HEADER
            ],
            task_table(report),
            "per task (best re-checked speedup of any strategy; baseline summed over cases; twin: estimates)",
            narrow="lines",
        )
        levels = records(
            out,
            [Field(c, right=c not in ("level", "strategy")) for c in LEVEL_HEADER],
            level_rows(report),
            f"by benchmark level ({record.settings.budget} evaluations each)",
        )
        header = paper_header(report)
        paper = records(
            out, [Field(c, right=bool(c)) for c in header], paper_rows(report), "beside the paper"
        )
        notes = [
            Text(paper_note(report)),
            *(Text(n) for n in (partial_note(report), shared_note(report)) if n),
        ]
        if report.paper_subset:
            notes.append(Text(report.paper_subset.note))
        show_all(out, per_task, Text(""), levels, Text(""), paper, *notes)
    else:
        ops = records(
            out,
            [Field(c, free=c == "outcome", right=c in ("speedup", "evals")) for c in OPERATOR_HEADER],
            operator_rows(report),
            "per operator (speedups re-checked; twin figures are estimates)",
            narrow="lines",
        )
        summary = records(
            out,
            [Field(c, right=c != "strategy") for c in SUMMARY_HEADER],
            summary_rows(report),
            f"campaign {record.id} ({record.settings.budget} evaluations each)",
        )
        notes = [Text(n) for n in (partial_note(report), shared_note(report)) if n]
        show_all(out, ops, Text(""), summary, *notes)
    out.print(
        f"wall time {report.wall_s:.0f} s, {sum(s.evaluations for s in report.strategies)} evaluations",
        highlight=False,
    )
    out.print(
        f"report: {folder / 'report.html'} (and report.md, report.json)", highlight=False, soft_wrap=True
    )
