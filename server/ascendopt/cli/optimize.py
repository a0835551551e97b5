"""`ascendopt optimize`: run an episode with a live progress display, then show and save the suggestion."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Annotated

import typer

from ascendopt.agent.outcome import Status
from ascendopt.agent.service import Optimizer, ResumeBudget, new_episode_id
from ascendopt.agent.settings import DEFAULT_BUDGET, MIN_BUDGET, EpisodeSettings
from ascendopt.agent.suggestion import StaleSuggestion
from ascendopt.cli.common import (
    JsonOpt,
    NameOpt,
    OpArg,
    SpecOpt,
    app,
    err,
    error,
    fail,
    load,
    out,
    print_raw,
    say,
    shown,
    workspace_for,
)
from ascendopt.cli.progress import episode_progress
from ascendopt.cli.report import find_workspace
from ascendopt.evaluation import build_output
from ascendopt.evaluation.backends import BackendError, parse_backend
from ascendopt.evaluation.remote.settings import SettingsError
from ascendopt.evaluation.timing.calibration import CalibrationError
from ascendopt.journal.store import EpisodeJournal, episodes_dir, patch_name, repo_patch_name
from ascendopt.report import episode as episode_report

# `optimize`'s exit status (README, "Exit codes"): what a script needs to tell apart. 2 is a usage
# error (typer's, and `fail`), 1 also when --apply finds the suggestion stale.
EXIT_CODES: dict[Status, int] = {
    "suggestion": 0,  # a faster, re-checked candidate (a cancelled episode that found one too)
    "failed": 1,  # the operator as it is fails: does not build, is wrong, or its spec is unusable
    "no_gain": 3,  # searched, nothing faster
    "cancelled": 130,  # stopped before it found anything (Ctrl-C: 130 too, as a shell reports SIGINT)
}


@app.command("optimize")
def optimize_cmd(
    op_path: OpArg,
    name: NameOpt = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            min=MIN_BUDGET,
            help=f"evaluations to spend, re-checks included (default {DEFAULT_BUDGET}; with --resume: "
            "extends the episode's budget when larger)",
        ),
    ] = None,
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
    try:
        parse_backend(backend)
    except BackendError as exc:
        fail(f"--backend: {exc}")
    op = load(op_path, name, spec)
    # With the spec kept outside the checkout, the journal and bank stay outside it too.
    ws = workspace_for(workspace, op.spec_root if op.external_spec is not None else op.root, remember=True)
    optimizer = Optimizer(ws)
    settings = EpisodeSettings(
        budget=budget or DEFAULT_BUDGET,
        seed=seed,
        backend=backend,
        soc=soc,
        model=model,
        tiling_only=tiling_only,
    )
    if resume is not None:
        try:
            plan = optimizer.resume_budget(resume, budget)
        except KeyError as exc:
            fail(f"--resume: {exc.args[0]}")
        err.print(_budget_sentence(plan), highlight=False)
    episode_id = resume or new_episode_id(op.name)
    total = plan.applies if resume is not None else settings.budget
    try:
        with episode_progress(err, op.name, total, enabled=not as_json) as show:
            # Build output (a remote CANN build) scrolls above the bar while it runs.
            lines = lambda line: err.print(line, markup=False, highlight=False)  # noqa: E731
            with build_output.streaming(lines):
                outcome = asyncio.run(
                    optimizer.optimize(
                        op,
                        settings,
                        on_progress=show,
                        resume=resume,
                        episode_id=episode_id,
                        extend_budget=budget,
                    )
                )
    except (KeyboardInterrupt, asyncio.CancelledError):  # Ctrl-C (scratch.Termination)
        _interrupted(ws, episode_id, op_path, name, workspace, spec)
        raise typer.Exit(130) from None
    except (BackendError, SettingsError, CalibrationError) as exc:  # --backend / --soc
        fail(str(exc))
    if as_json:
        print_raw(json.dumps(outcome.public(), indent=2, ensure_ascii=False) + "\n")
        raise typer.Exit(EXIT_CODES[outcome.status])
    # The end text is the outcome record's (agent/outcome.py), as the editor shows it.
    say(f"episode {outcome.episode}: {outcome.text()}")
    for note in outcome.recheck:
        say(f"re-check extra shape {note.line()}")
    tokens = episode_report.llm_line(EpisodeJournal.open(ws, outcome.episode))
    if tokens:
        say(tokens)
    say("report: " + report_command(outcome.episode, ws), whole=True)
    s = outcome.suggestion
    if s is None:
        raise typer.Exit(EXIT_CODES[outcome.status])
    patch = episodes_dir(ws) / s.episode / patch_name(s.operator)  # the episode wrote it
    print_raw(s.patch())
    say(f"suggestion {s.id}: {s.summary}")
    say(f"patch written to {patch} (git apply in {s.root})", whole=True)
    if s.repo_prefix:
        repo_patch = patch.with_name(repo_patch_name(s.operator))
        say(episode_report.repo_patch_line(str(repo_patch), s.repo_prefix), whole=True)
    if not apply:
        say("apply it: " + report_command(s.episode, ws, "accept", s.id), whole=True)
    if apply:
        try:
            written = optimizer.accept(s.id)
        except StaleSuggestion as exc:
            error(str(exc), "not applied:")
            raise typer.Exit(1) from exc
        out.print("applied to " + ", ".join(str(p) for p in written))
    raise typer.Exit(EXIT_CODES[outcome.status])


def _budget_sentence(plan: ResumeBudget) -> str:
    if plan.asked is None or plan.asked == plan.recorded:
        hint = "" if plan.asked else " (--budget N extends it)"
        return f"budget: {plan.recorded} evaluations, as episode {plan.episode} started{hint}"
    if plan.asked > plan.recorded:
        return (
            f"budget extended from {plan.recorded} to {plan.asked} evaluations "
            "(those already made count toward it)"
        )
    return (
        f"budget stays at {plan.recorded} evaluations, as episode {plan.episode} started: "
        f"--budget {plan.asked} is smaller, and a budget is only ever extended"
    )


def report_command(episode: str, ws: Path, verb: str = "report", key: str | None = None) -> str:
    """`ascendopt report EPISODE` (or `accept SUGGESTION`: `verb`, `key`) as it works from the
    current folder: with `--workspace` when the command's own search from here (the folder, its
    parents and children) would not find the episode there."""
    command = ["ascendopt", verb, key or episode]
    if find_workspace(episode, Path.cwd().resolve()) != ws.resolve():
        command += ["--workspace", shown(ws)]
    return shlex.join(command)


def _interrupted(
    ws: Path, episode: str, op_path: Path, name: str | None, workspace: Path | None, spec: Path | None
) -> None:
    """Ctrl-C: what was kept and the exact command that continues it (run from the same folder,
    it finds the same operator, spec and workspace)."""
    if not (episodes_dir(ws) / episode).is_dir():
        err.print("interrupted before the episode started: nothing to resume")
        return
    command = ["ascendopt", "optimize", str(op_path), "--resume", episode]
    command += ["--name", name] if name else []
    command += ["--workspace", str(workspace)] if workspace else []
    command += ["--spec", str(spec)] if spec else []
    err.print(
        f"interrupted: episode {episode} is kept in {episodes_dir(ws) / episode}\n"
        f"continue it with:\n  {shlex.join(command)}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


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
        outcome = asyncio.run(Optimizer(workspace_for(workspace, op.root)).replay(op, episode))
    except KeyError as exc:
        fail(str(exc.args[0]))
    if as_json:
        print(json.dumps(outcome.public(), indent=2, ensure_ascii=False))
        return
    out.print(
        f"replayed {episode} as {outcome.episode}: {outcome.message} ({outcome.evaluations} evaluations)"
    )
