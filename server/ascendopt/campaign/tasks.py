"""One campaign task: one episode of one operator under one strategy.

`run_task` is a plain top-level function of a picklable record, so the same code runs in a
local worker process and as a Ray task. It writes the episode's journal in the workspace and
returns what the report needs; a task run again continues its journal (nothing evaluated twice).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel

from ascendopt.agent.service import Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.suggestion import Suggestion
from ascendopt.campaign.records import TaskResult
from ascendopt.journal.events import StartEvent
from ascendopt.journal.store import EpisodeJournal, episodes_dir
from ascendopt.journal.view import budget_curve, rejections
from ascendopt.operators.discovery import load_operator
from ascendopt.scratch import Scratch


class EpisodeTask(BaseModel):
    workspace: Path
    root: Path
    operator: str
    episode: str
    request: EpisodeSettings  # what `ascendopt optimize` would be asked: budget, strategy, backend …
    spec: Path | None = None  # the spec kept outside the operator (`--spec`)
    baseline_from: str | None = None  # the episode whose baseline measurements this one takes


def run_task_in_scratch(task: EpisodeTask) -> TaskResult:
    """`run_task` in a scratch folder of its own, for a Ray worker: a long-lived process that runs
    many tasks, and may be killed mid-task (the next task's claim then sweeps the folder)."""
    scratch = Scratch()
    scratch.claim()
    try:
        return run_task(task)
    finally:
        scratch.release()


def run_task(task: EpisodeTask) -> TaskResult:
    project = load_operator(task.root, task.operator, task.spec)
    optimizer = Optimizer(task.workspace)
    outcome = asyncio.run(
        optimizer.optimize(project, task.request, episode_id=task.episode, baseline_from=task.baseline_from)
    )
    journal = EpisodeJournal.open(task.workspace, task.episode)
    s = outcome.suggestion
    return TaskResult(
        message=outcome.message,
        evaluations=outcome.evaluations,
        baseline_correct=bool(outcome.baseline_us),
        speedup=s.geomean_speedup if s else None,
        baseline_us={r.case: r.baseline_us for r in s.speedups} if s else outcome.baseline_us,
        candidate_us={r.case: r.candidate_us for r in s.speedups} if s else {},
        kind=s.speedups[0].kind if s and s.speedups else "",
        noise=s.speedups[0].noise if s and s.speedups else 0.0,
        patch=s.patch() if s else "",
        kernel_rewriting=outcome.kernel_rewriting,
        change=change_of(journal, s) if s else "",
        rejected=rejections(journal),
        curve=budget_curve(journal),
    )


def change_of(journal: EpisodeJournal, suggestion: Suggestion) -> str:
    """What the winner changed, in one line: each knob it moved (`name old → new`; a code region
    "rewritten"), else the files it rewrote."""
    start = next((e.data for e in journal.events("start") if isinstance(e.data, StartEvent)), None)
    base = journal.load_candidate(start.baseline).knobs if start else {}
    best = journal.load_candidate(suggestion.candidate_id).knobs
    moved = [
        f"{k} rewritten" if isinstance(v, str) else f"{k} {base.get(k, '?')} → {v}"
        for k, v in best.items()
        if base.get(k) != v
    ]
    return "; ".join(moved) or "rewrote " + ", ".join(c.path for c in suggestion.changes)


def progress_of(workspace: Path, episode: str) -> tuple[int, float | None]:
    """(evaluations spent, search-time best speedup) of a running episode, read from its journal."""
    if not (episodes_dir(workspace) / episode).is_dir():
        return 0, None
    curve = budget_curve(EpisodeJournal.open(workspace, episode))
    return (curve[-1].evaluations, curve[-1].best_speedup) if curve else (0, None)
