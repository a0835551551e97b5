"""`ascendopt optimize`: run an episode with a live progress display, then show and save the suggestion."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ascendopt.agent.episode import Progress as EpisodeProgress
from ascendopt.agent.service import Optimizer, OptimizeRequest
from ascendopt.agent.suggestion import StaleSuggestion
from ascendopt.cli.common import JsonOpt, NameOpt, OpArg, SpecOpt, app, err, load, out, print_raw, say
from ascendopt.evaluation import build_output
from ascendopt.journal.store import episodes_dir, patch_name


@app.command("optimize")
def optimize_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    budget: Annotated[int, typer.Option("--budget", help="evaluations to spend (re-checks included)")] = 40,
    backend: Annotated[str, typer.Option("--backend", help="cpu-twin (default) or ssh:HOST")] = "cpu-twin",
    soc: Annotated[str | None, typer.Option("--soc", help="platform model, e.g. Ascend910B4")] = None,
    model: Annotated[str | None, typer.Option("--model", help="LLM model for kernel rewriting")] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    tiling_only: Annotated[bool, typer.Option("--tiling-only", help="tune the tiling program only")] = False,
    resume: Annotated[
        str | None, typer.Option("--resume", help="continue an interrupted episode by id")
    ] = None,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="where .ascendopt/ lives")] = None,
    apply: Annotated[bool, typer.Option("--apply", help="apply the suggestion after showing it")] = False,
    as_json: JsonOpt = False,
    spec: SpecOpt = None,
) -> None:
    """Tune the operator (tiling search; kernel rewriting with an LLM) and suggest one paired edit."""
    op = load(op_path, name, spec)
    # With the spec kept outside the checkout, the journal and bank stay outside it too.
    ws = workspace or (op.spec_root if op.external_spec is not None else op.root)
    optimizer = Optimizer(ws)
    request = OptimizeRequest(
        budget=budget, seed=seed, backend=backend, soc=soc, model=model, tiling_only=tiling_only
    )
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[status]}"),
        console=err,
        disable=as_json,
        transient=False,
    ) as bar:
        task = bar.add_task(f"{op.name}", total=budget, status="")

        def show(p: EpisodeProgress) -> None:
            best = f"best {p.best_speedup:.2f}x" if p.best_speedup else "best -"
            bar.update(task, completed=p.used, total=p.budget, status=f"{best} · {p.phase} · {p.message}")

        # Build output (a remote CANN build) scrolls above the bar while it runs.
        lines = lambda line: bar.console.print(line, markup=False, highlight=False)  # noqa: E731
        with build_output.streaming(lines):
            outcome = asyncio.run(optimizer.optimize(op, request, on_progress=show, resume=resume))
    if as_json:
        print_raw(outcome.model_dump_json(indent=2) + "\n")
        return
    say(f"episode {outcome.episode}: {outcome.message} ({outcome.evaluations} evaluations)")
    if outcome.kernel_rewriting:
        say(f"kernel rewriting: {outcome.kernel_rewriting}")
    for note in outcome.recheck:
        say(f"re-check extra shape {note.line()}")
    s = outcome.suggestion
    if s is None:
        return
    table = Table(title=f"{s.operator}: per case (fresh inputs, re-measured)")
    for col in ("case", "baseline µs", "candidate µs", "speedup", "kind"):
        table.add_column(col)
    for row in s.speedups:
        table.add_row(
            row.case, f"{row.baseline_us:.2f}", f"{row.candidate_us:.2f}", f"{row.speedup:.2f}x", row.kind
        )
    out.print(table)
    patch = episodes_dir(ws) / s.episode / patch_name(s.operator)  # the episode wrote it
    print_raw(s.patch())
    say(f"suggestion {s.id}: {s.summary}\npatch written to {patch}")
    if apply:
        try:
            written = optimizer.accept(s.id)
        except StaleSuggestion as exc:
            err.print(f"[red]not applied:[/] {exc}")
            raise typer.Exit(1) from exc
        out.print("applied to " + ", ".join(str(p) for p in written))


@app.command("replay")
def replay_cmd(
    op_path: OpArg,
    episode: Annotated[str, typer.Argument(help="episode id (a folder under .ascendopt/episodes/)")],
    name: NameOpt = None,
    workspace: Annotated[Path | None, typer.Option("--workspace", help="where .ascendopt/ lives")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-run a recorded episode offline and deterministically (to debug a prompt or the search)."""
    op = load(op_path, name)
    try:
        outcome = asyncio.run(Optimizer(workspace or op.root).replay(op, episode))
    except KeyError as exc:
        err.print(f"[red]error:[/] {exc.args[0]}")
        raise typer.Exit(2) from exc
    if as_json:
        print(outcome.model_dump_json(indent=2))
        return
    out.print(
        f"replayed {episode} as {outcome.episode}: {outcome.message} ({outcome.evaluations} evaluations)"
    )
