"""Optimize / Tune tiling only: an episode in the background, one per operator at a time, with
cancellable work-done progress (evaluations used / budget) and the suggestion offered at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from ascendopt.journal.events import StartEvent
from ascendopt.journal.store import EpisodeJournal, episodes_dir
from ascendopt.lsp import output, protocol, render, suggestions
from ascendopt.lsp.episodes import ProgressLike, record_of
from ascendopt.lsp.evaluate import refresh_lenses
from ascendopt.lsp.index import Folders, op_key
from ascendopt.lsp.jobs import AlreadyRunning, Job, WorkDone
from ascendopt.lsp.server import AscendServer
from ascendopt.lsp.settings import Configuration
from ascendopt.lsp.targets import TargetError, fresh, parse_target, resolve
from ascendopt.operators.model import OperatorProject


def register(ls: AscendServer) -> None:
    @ls.command(protocol.OPTIMIZE)
    async def optimize_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        return await _command(ls, args, tiling_only=False)

    @ls.command(protocol.TUNE_TILING)
    async def tune_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        return await _command(ls, args, tiling_only=True)

    @ls.command(protocol.RESUME_EPISODE)
    async def resume_command(ls: AscendServer, *args: Any) -> dict[str, Any]:
        """[{episode}]: continue an interrupted episode of an operator in the workspace."""
        episode = str(args[0].get("episode", "")) if args and isinstance(args[0], dict) else ""
        return await resume(ls, episode)


async def resume(ls: AscendServer, episode: str) -> dict[str, Any]:
    """The episode's operator (as its journal's start says) continued, as `optimize --resume`."""
    start_event = None
    index = ls.state(Folders).index
    places = dict.fromkeys([*index.folders, *(ls.workspace_of(op.root) for op in index.operators())])
    for ws in places:
        if episode and (episodes_dir(ws) / episode).is_dir():
            starts = EpisodeJournal.open(ws, episode).events("start")
            start_event = starts[-1].data if starts else None
            break
    if not isinstance(start_event, StartEvent):
        message = f"no interrupted episode {episode!r} in this workspace"
        _show(ls, types.MessageType.Error, message)
        return {"status": "error", "message": message}
    try:
        op = await fresh(ls, Path(start_event.root), start_event.operator)
    except TargetError as exc:
        _show(ls, types.MessageType.Error, str(exc))
        return {"status": "error", "message": str(exc)}
    await ls.current_settings()
    tiling_only = bool(start_event.settings.get("tiling_only"))
    return start(ls, op, tiling_only=tiling_only, resume=episode)


def _show(ls: AscendServer, kind: types.MessageType, message: str) -> None:
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))


async def _command(ls: AscendServer, args: tuple[Any, ...], *, tiling_only: bool) -> dict[str, Any]:
    """Starts the episode and answers at once: episodes take minutes; the result comes by notification."""
    try:
        op = await resolve(ls, parse_target(args))
    except TargetError as exc:
        _show(ls, types.MessageType.Error, str(exc))
        return {"status": "error", "message": str(exc)}
    await ls.current_settings()
    return start(ls, op, tiling_only=tiling_only)


async def launch(ls: AscendServer, root: Path, name: str, *, tiling_only: bool) -> dict[str, Any]:
    try:
        op = await fresh(ls, root, name)
    except TargetError as exc:
        _show(ls, types.MessageType.Error, str(exc))
        return {"status": "error", "message": str(exc)}
    return start(ls, op, tiling_only=tiling_only)


def start(
    ls: AscendServer, op: OperatorProject, *, tiling_only: bool, resume: str | None = None
) -> dict[str, Any]:
    workspace = ls.workspace_of(op.root)
    service = ls.service_for(workspace)
    title = f"{'Tune tiling of' if tiling_only else 'Optimize'} {op.name}"
    if resume:
        title = f"Resume {op.name} ({resume})"

    async def work(job: Job) -> None:
        progress = WorkDone(ls, job)
        current = ls.state(Configuration).settings
        await progress.begin(f"starting ({current.backend}, budget {current.budget})")

        def on_progress(p: ProgressLike) -> None:
            line = render.progress_line(p.used, p.budget, p.phase, p.best_speedup)
            progress.report(line, min(100, int(100 * p.used / max(p.budget, 1))))

        try:
            async with ls.evaluators.use(ls.state(Configuration).settings, workspace) as evaluator:
                with output.to_channel(ls):
                    outcome = await service.optimize(
                        op,
                        settings=ls.state(Configuration).settings,
                        evaluator=evaluator,
                        tiling_only=tiling_only,
                        on_progress=on_progress,
                        cancel=job.cancel,
                        resume=resume,
                    )
        except Exception as exc:
            progress.end("failed")
            scrub = ls.state(Configuration).settings.scrub
            _show(ls, types.MessageType.Error, scrub(f"{title} failed: {exc}"))
            raise
        progress.end(outcome.message)
        refresh_lenses(ls)
        ended = protocol.EpisodeEndedParams(
            operator=op.name,
            operatorRoot=str(op.root),
            episode=outcome.episode,
            cancelled=outcome.cancelled,
            message=outcome.message,
            suggestion=outcome.suggestion.id if outcome.suggestion else None,
            outcome=suggestions.outcome_summary(record_of(outcome)),
        )
        ls.protocol.notify(protocol.EPISODE_ENDED, ended.wire())
        if outcome.suggestion is not None and outcome.suggestion.changes:
            suggestions.offer(ls, outcome.suggestion, record_of(outcome))
        elif not suggestions.client_has_view(ls):  # that client words the end itself, with its report
            _show(ls, types.MessageType.Info, f"{op.name}: {outcome.message}")

    try:
        ls.jobs.start(op_key(op), "episode", title, work)
    except AlreadyRunning as exc:
        _show(
            ls, types.MessageType.Warning, f"{op.name}: an optimization is already running ({exc.job.status})"
        )
        return {"status": "already-running", "message": str(exc)}
    refresh_lenses(ls)
    return {"status": "started", "operator": op.name, "operatorRoot": str(op.root)}
