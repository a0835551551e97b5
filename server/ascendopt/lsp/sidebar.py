"""ascendopt/workspaceState: the sidebar's data in one answer: the operators with the state of their
spec and their last Verify and Profile, the episodes recorded in the workspace, the suggestions
waiting for a decision and the lessons in the bank."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ascendopt.agent.outcome import timing_of
from ascendopt.experience.markdown import lesson_markdown
from ascendopt.experience.schema import SchemaError
from ascendopt.journal.listing import recent_episodes
from ascendopt.lsp import protocol, render
from ascendopt.lsp.experience import newest_lessons
from ascendopt.lsp.index import Folders, op_key
from ascendopt.lsp.locations import path_to_uri
from ascendopt.lsp.offers import Offers
from ascendopt.lsp.runs import Runs
from ascendopt.lsp.server import AscendServer
from ascendopt.operators.model import OperatorProject

LESSONS_SHOWN = 50
EPISODES_SHOWN = 20


def _spec_state(op: OperatorProject) -> tuple[str, str | None]:
    if op.files.spec is None:
        return "missing", "no ascendopt.toml: Write a starting spec (`ascendopt init-spec`; Verify offers it)"
    if op.spec is None:
        problem = next((i for i in op.issues if i.file == op.files.spec), None)
        return "invalid", f"{op.files.spec}:{problem.line}: {problem.message}" if problem else "unreadable"
    return "ok", None


def _operator(ls: AscendServer, op: OperatorProject) -> protocol.StateOperator:
    key = op_key(op)
    spec, problem = _spec_state(op)
    verify = ls.state(Runs).last_runs.get(key)
    profile = ls.state(Runs).last_profiles.get(key)
    return protocol.StateOperator(
        name=op.name,
        root=str(op.root),
        kernel=path_to_uri(op.root / op.files.kernel),
        spec=spec,
        specProblem=problem,
        lastVerify=render.verdict(verify.evaluation) if verify else None,
        lastProfile=render.lens_duration(profile) if profile else None,
        running=ls.jobs.running(key, "episode") is not None,
    )


def _stored(
    folders: list[Path],
) -> tuple[list[protocol.StateEpisode], list[protocol.StateLesson], str | None]:
    """What the workspace folders hold on disk: their episodes and their bank's lessons."""
    episodes: list[protocol.StateEpisode] = []
    lessons: list[protocol.StateLesson] = []
    message = None
    for folder in folders:
        for e in recent_episodes(folder, EPISODES_SHOWN):
            episodes.append(
                protocol.StateEpisode(
                    id=e.id,
                    operator=e.operator,
                    ended=e.ended,
                    cancelled=e.cancelled,
                    message=e.message,
                    bestSpeedup=e.best_speedup,
                    evaluations=e.evaluations,
                )
            )
        if not (folder / ".ascendopt").is_dir():
            continue  # no bank yet; opening one would create it
        try:
            entries = newest_lessons(folder, None, LESSONS_SHOWN)
        except SchemaError as exc:
            message = str(exc)
            continue
        lessons.extend(
            protocol.StateLesson(id=e.id, title=e.title, family=e.family, markdown=lesson_markdown(e))
            for e in entries
        )
    episodes.sort(key=lambda e: e.id, reverse=True)
    return episodes, lessons, message


async def workspace_state(ls: AscendServer) -> protocol.WorkspaceState:
    folders = list(ls.state(Folders).index.folders)
    episodes, lessons, message = await asyncio.to_thread(_stored, folders)
    return protocol.WorkspaceState(
        folders=[str(f) for f in folders],
        operators=[_operator(ls, op) for op in ls.state(Folders).index.operators()],
        episodes=episodes,
        suggestions=[
            protocol.StateSuggestion(
                id=s.id,
                operator=s.operator,
                operatorRoot=str(s.root),
                episode=s.episode,
                geomean=s.geomean_speedup,
                timing=timing_of(c.kind for c in s.speedups),
                summary=s.summary,
            )
            for s in ls.state(Offers).suggestions.values()
        ],
        lessons=lessons,
        message=message,
    )


def register(ls: AscendServer) -> None:
    @ls.feature(protocol.WORKSPACE_STATE)
    async def state(ls: AscendServer, params: Any) -> dict[str, Any]:
        return (await workspace_state(ls)).wire()
