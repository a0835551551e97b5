"""The optimize service: what `ascendopt optimize` and the editor's "Optimize operator" call.

It wires an episode from settings (backend, LLM, experience bank), runs it, and keeps
the suggestion and the user's decision in the workspace journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from ascendopt.agent.episode import BASELINE_PURPOSES, Episode, Progress
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.llm import LLMClient, LLMSettings
from ascendopt.agent.outcome import Outcome
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.strategies import strategy_class
from ascendopt.agent.strategies.base import Tools
from ascendopt.agent.suggestion import StaleSuggestion, Suggestion, apply_suggestion
from ascendopt.evaluation.backends import make_evaluator, make_precheck
from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.experience.bank import Bank
from ascendopt.journal.events import EvaluationEvent, StartEvent, UserDecision
from ascendopt.journal.store import EpisodeJournal, episodes_dir
from ascendopt.operators.model import OperatorProject
from ascendopt.untrusted import PARSE_ERRORS

__all__ = [
    "EpisodeSettings",
    "Optimizer",
    "Outcome",
    "Progress",
    "ResumeBudget",
    "accept",
    "baseline_evaluations",
    "new_episode_id",
]

log = logging.getLogger(__name__)
Decision = Literal["accepted", "rejected"]


class ResumeBudget(BaseModel):
    """The budget a resumed episode runs with: the one it started with, or a larger one asked for
    (a budget is only ever extended; what was already evaluated counts toward it)."""

    episode: str
    recorded: int
    asked: int | None = None

    @property
    def applies(self) -> int:
        return max(self.recorded, self.asked or 0)


def new_episode_id(operator: str) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{operator}-{secrets.token_hex(3)}"


class Optimizer:
    def __init__(
        self,
        workspace: Path,
        evaluator_factory: Callable[[str, str | None], Evaluator] | None = None,
        llm: LLMSettings | None = None,
    ):
        """`evaluator_factory`: the caller's, who then owns (and closes) what it hands out; by
        default each episode makes its backend's evaluator and closes it when it ends."""
        self.workspace = workspace
        self._make_evaluator = evaluator_factory or make_evaluator
        self._owns_evaluators = evaluator_factory is None
        self._llm = llm  # None: from the environment (ASCENDOPT_LLM_*)

    async def optimize(
        self,
        project: OperatorProject,
        settings: EpisodeSettings,
        on_progress: Callable[[Progress], None] | None = None,
        cancel: asyncio.Event | None = None,
        resume: str | None = None,
        offline: bool = False,
        episode_id: str | None = None,
        extend_budget: int | None = None,
        baseline_from: str | None = None,
    ) -> Outcome:
        """Run an episode; `resume` continues one by id; `offline` replays it from its journal alone.
        `episode_id` names a new episode, or continues it if its journal exists (a campaign's tasks).
        `extend_budget`: a resumed episode's budget becomes this when larger (`resume_budget`).
        `baseline_from`: an episode of the same operator and settings whose baseline and noise runs
        this one takes as its own (spent from its budget all the same) instead of running them again."""
        if episode_id is not None and (episodes_dir(self.workspace) / episode_id).is_dir():
            resume = episode_id
        if resume is not None:
            journal = EpisodeJournal.open(self.workspace, resume)
            settings = _resumed(journal, settings, extend_budget)[0]
        else:
            journal = EpisodeJournal.create(self.workspace, episode_id or new_episode_id(project.name))
        llm_settings = self._llm or LLMSettings.from_env(model=settings.model)
        journal.scrubber = llm_settings.scrubber()
        evaluator = self._make_evaluator(settings.backend, settings.soc)
        try:
            shared = baseline_evaluations(self.workspace, baseline_from) if baseline_from else {}
            return await self._run(
                project, llm_settings, settings, journal, evaluator, on_progress, cancel, offline, shared
            )
        finally:
            if self._owns_evaluators:
                await evaluator.close()

    async def _run(
        self,
        project: OperatorProject,
        llm_settings: LLMSettings,
        settings: EpisodeSettings,
        journal: EpisodeJournal,
        evaluator: Evaluator,
        on_progress: Callable[[Progress], None] | None,
        cancel: asyncio.Event | None,
        offline: bool,
        shared: dict[str, tuple[Evaluation, str]],
    ) -> Outcome:
        ledger = Ledger(evaluator, journal, settings.budget, offline=offline, shared=shared)
        llm = LLMClient(llm_settings, journal, offline=offline) if llm_settings.enabled or offline else None
        with Bank.open(self.workspace) as bank:
            strategy = strategy_class(settings.strategy).wire(
                Tools(project, settings, llm, llm_settings, bank)
            )
            cases = project.spec.resolve_cases() if project.spec else []
            episode = Episode(
                project,
                settings,
                ledger,
                journal,
                strategy=strategy,
                on_progress=on_progress,
                cancel=cancel,
                precheck=make_precheck(settings.backend, project, cases, soc=settings.soc),
            )
            return await episode.run()

    def resume_budget(self, episode_id: str, asked: int | None) -> ResumeBudget:
        """What budget `optimize(resume=episode_id, extend_budget=asked)` will run with (KeyError: no
        such episode). An episode whose start record is unreadable counts as started with `asked`."""
        asking = EpisodeSettings() if asked is None else EpisodeSettings(budget=asked)
        return _resumed(EpisodeJournal.open(self.workspace, episode_id), asking, asked)[1]

    async def replay(self, project: OperatorProject, episode_id: str) -> Outcome:
        """Re-run a recorded episode offline: every evaluation and LLM answer comes from its journal."""
        source = EpisodeJournal.open(self.workspace, episode_id)
        n = 1 + sum(1 for _ in episodes_dir(self.workspace).glob(f"{episode_id}-replay-*"))
        copy = EpisodeJournal.create(self.workspace, f"{episode_id}-replay-{n}")
        copy.events_path.write_bytes(source.events_path.read_bytes())
        return await self.optimize(project, EpisodeSettings(), resume=copy.id, offline=True)

    def load_suggestion(self, suggestion_id: str) -> Suggestion:
        """The suggestion with this id, or the one the episode with this id ended on."""
        for path in sorted(episodes_dir(self.workspace).glob("*/suggestion.json")):
            s = Suggestion.model_validate_json(path.read_text(encoding="utf-8"))
            if suggestion_id in (s.id, s.episode):
                return s
        raise KeyError(f"no suggestion {suggestion_id!r} in {episodes_dir(self.workspace)}")

    def record_decision(self, suggestion_id: str, decision: Decision) -> None:
        s = self.load_suggestion(suggestion_id)
        EpisodeJournal.open(self.workspace, s.episode).append(
            UserDecision(suggestion=s.id, decision=decision)
        )

    def accept(self, suggestion_id: str) -> list[Path]:
        """Apply both files or neither (StaleSuggestion if they changed), and journal it."""
        return accept(self.load_suggestion(suggestion_id), self.record_decision)

    def reject(self, suggestion_id: str) -> None:
        self.record_decision(suggestion_id, "rejected")


def baseline_evaluations(workspace: Path, episode_id: str) -> dict[str, tuple[Evaluation, str]]:
    """The baseline and noise evaluations journaled by `episode_id`, by key (the ledger offers
    them only to the same candidate, cases, seed and backend); none from a record that does not
    parse, or an episode that is not there."""
    try:
        journal = EpisodeJournal.open(workspace, episode_id)
    except KeyError:
        return {}
    shared: dict[str, tuple[Evaluation, str]] = {}
    for e in journal.events("evaluation"):
        if isinstance(e.data, EvaluationEvent) and e.data.purpose in BASELINE_PURPOSES:
            with contextlib.suppress(*PARSE_ERRORS):
                origin = e.data.shared_from or episode_id
                shared[e.data.key] = (Evaluation.model_validate(e.data.evaluation), origin)
    return shared


def _resumed(
    journal: EpisodeJournal, asked: EpisodeSettings, extend_budget: int | None
) -> tuple[EpisodeSettings, ResumeBudget]:
    """The one place the resume arithmetic lives: a resumed episode runs with the settings it
    started with (`asked`'s if its start record is unreadable), its budget extended to
    `extend_budget` when that is larger, and the LLM model asked for now."""
    settings = _recorded_settings(journal) or asked
    plan = ResumeBudget(episode=journal.id, recorded=settings.budget, asked=extend_budget)
    return settings.model_copy(update={"budget": plan.applies, "model": asked.model}), plan


def _recorded_settings(journal: EpisodeJournal) -> EpisodeSettings | None:
    """The settings of the episode's latest start (a resume that extended the budget starts again
    with the new one); None: no start record that this version can read."""
    for event in reversed(journal.events("start")):
        if isinstance(event.data, StartEvent):
            with contextlib.suppress(*PARSE_ERRORS):
                return EpisodeSettings.model_validate(event.data.settings)
    return None


def accept(
    suggestion: Suggestion, record: Callable[[str, Decision], None], unsaved: Sequence[str] = ()
) -> list[Path]:
    """The one accept path, for the CLI and the editor: write both files or neither, then journal the
    decision. StaleSuggestion if a file changed since the episode started, or is in `unsaved` (open
    in an editor with unsaved changes, so that a write on disk never races a buffer). A decision
    that cannot be journaled is logged: the files are written, and stay so."""
    if unsaved:
        raise StaleSuggestion(list(unsaved))
    written = apply_suggestion(suggestion)
    try:
        record(suggestion.id, "accepted")
    except (KeyError, OSError, ValueError):
        log.warning("could not journal the accepted decision on %s", suggestion.id, exc_info=True)
    return written
