"""The seam between the editor and the episode service.

The server talks to an `EpisodeService`; the default one is the episode service
(`ascendopt.agent.service.Optimizer`), one per workspace folder. Tests hand the server another
service (a scripted one, named as such) to exercise progress, cancel and suggestions quickly.
Progress and outcomes are read structurally: any service's records will do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.outcome import Outcome
from ascendopt.agent.service import Decision, Optimizer
from ascendopt.agent.settings import EpisodeSettings
from ascendopt.agent.suggestion import Suggestion
from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.lsp.settings import Settings
from ascendopt.operators.model import OperatorProject

__all__ = ["Decision", "EpisodeService", "OptimizerService", "ServiceFactory"]


class ProgressLike(Protocol):
    episode: str
    used: int
    budget: int
    phase: str
    best_speedup: float | None
    message: str


class OutcomeLike(Protocol):
    episode: str
    operator: str
    suggestion: Suggestion | None
    cancelled: bool

    @property
    def message(self) -> str: ...


def record_of(outcome: OutcomeLike) -> Outcome | None:
    """The outcome record every front end renders (agent/outcome.py), if the service returned one."""
    return outcome if isinstance(outcome, Outcome) else None


class EpisodeService(Protocol):
    async def optimize(
        self,
        project: OperatorProject,
        *,
        settings: Settings,
        evaluator: Evaluator,  # the workspace's, owned by the server (lsp/evaluators.py)
        tiling_only: bool,
        on_progress: Callable[[ProgressLike], None],
        cancel: asyncio.Event,
        resume: str | None = None,
    ) -> OutcomeLike: ...

    def load_suggestion(self, suggestion_id: str) -> Suggestion: ...

    def record_decision(self, suggestion_id: str, decision: Decision) -> None: ...


ServiceFactory = Callable[[Path], EpisodeService]


class OptimizerService:
    """The episode service for one workspace folder (it keeps `.ascendopt/` there).

    A fresh Optimizer per episode: the LLM settings may have changed since the last one.
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    async def optimize(
        self,
        project: OperatorProject,
        *,
        settings: Settings,
        evaluator: Evaluator,
        tiling_only: bool,
        on_progress: Callable[[ProgressLike], None],
        cancel: asyncio.Event,
        resume: str | None = None,
    ) -> OutcomeLike:
        """`resume`: continue that interrupted episode with the settings it started with."""
        request = EpisodeSettings(
            budget=settings.budget,
            backend=settings.backend,
            soc=settings.soc,
            model=settings.llm_model,
            tiling_only=tiling_only,
        )
        optimizer = Optimizer(self.workspace, lambda _backend, _soc: evaluator, llm=llm_settings(settings))
        return await optimizer.optimize(project, request, on_progress, cancel, resume=resume)

    def load_suggestion(self, suggestion_id: str) -> Suggestion:
        return Optimizer(self.workspace).load_suggestion(suggestion_id)

    def record_decision(self, suggestion_id: str, decision: Decision) -> None:
        Optimizer(self.workspace).record_decision(suggestion_id, decision)


def llm_settings(settings: Settings) -> LLMSettings:
    """The editor's LLM settings over the environment's (ASCENDOPT_LLM_*): what is set wins."""
    llm = LLMSettings.from_env(model=settings.llm_model, base_url=settings.llm_base_url)
    if settings.api_key is not None:
        llm = llm.model_copy(update={"api_key": settings.api_key})
    return llm
