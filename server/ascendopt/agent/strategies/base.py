"""What a search strategy is, and the face the episode gives it.

Modelled on TVM MetaSchedule's `search_strategy/`: a strategy decides what to try next and nothing
else. The episode measures (through the ledger: budget counted, journaled), judges (correctness,
findings, the noise band, the audit of LLM-written code), keeps score and the best candidate, and
writes the end record; it measured the baseline and its noise before the strategy runs, and
re-checks the winner after. A strategy gets the episode only through `EpisodeFace`.

Two methods: `wire` (a classmethod: the strategy builds itself from what the service has: the LLM
client or none, the experience bank) and `search` (spend the search budget through the face).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

if TYPE_CHECKING:  # settings.py names the strategies: imported for types only (no import cycle)
    from typing_extensions import Self

    from ascendopt.agent.llm import LLMClient, LLMSettings
    from ascendopt.agent.rewrite import LessonSink, Rewriter
    from ascendopt.agent.settings import EpisodeSettings
    from ascendopt.evaluation.records import Evaluation, TilingCheck
    from ascendopt.experience.bank import Bank
    from ascendopt.journal.events import _Event
    from ascendopt.operators.candidate import Candidate
    from ascendopt.operators.model import OperatorProject


def no_llm(consequence: str) -> str:
    """The kernel-rewriting note when no LLM is configured (`consequence`: what runs instead)."""
    from ascendopt.agent.llm import ENV_BASE_URL, ENV_KEY, ENV_MODEL

    return (
        f"skipped: no LLM configured (set {ENV_BASE_URL}, {ENV_MODEL} and {ENV_KEY}, or pass "
        f"--model with an endpoint){consequence}"
    )


@dataclass
class Tools:
    """What the service has for a strategy to wire itself from."""

    project: OperatorProject
    settings: EpisodeSettings
    llm: LLMClient | None  # None: no LLM configured (offline replays have one: it answers from the journal)
    llm_settings: LLMSettings
    bank: Bank


class EpisodeFace(Protocol):
    """The episode, as a strategy sees it: it proposes, the episode measures and keeps score."""

    project: OperatorProject
    settings: EpisodeSettings
    phase: str  # what the progress line says the episode is doing
    tried: int  # candidates judged so far
    cancel: asyncio.Event

    @property
    def base(self) -> Candidate: ...  # the operator as it is

    @property
    def best(self) -> Candidate: ...  # the best candidate so far, and its score (relative duration)

    @property
    def best_score(self) -> float: ...

    @property
    def best_eval(self) -> Evaluation | None: ...  # the best candidate's evaluation (its profile)

    @property
    def kernel_base(self) -> Candidate: ...  # the kernel a tiling search tunes (moves on accepted rewrites)

    @property
    def kernel_stopped(self) -> bool: ...  # the kernel rewriter gave up (its LLM calls kept failing)

    # -- measure, judge, consider: the episode's --------------------------------------------------
    async def measure(self, candidate: Candidate, purpose: str) -> Evaluation: ...

    def score(self, evaluation: Evaluation) -> float | None: ...  # relative to the baseline; None: no timing

    async def precheck(self, candidate: Candidate) -> TilingCheck | None: ...  # None: no pre-check here

    def consider_tiling(self, candidate: Candidate, evaluation: Evaluation) -> bool: ...  # accepted?

    async def judge_rewrite(self, candidate: Candidate, kind: str) -> tuple[Evaluation | None, bool]: ...

    async def rewrite(
        self, rewriter: Rewriter, from_baseline: bool = False, lessons: LessonSink | None = None
    ) -> Candidate | None: ...  # ask for a rewrite of the best (or the baseline) and judge it

    def view(self, candidate: Candidate) -> OperatorProject: ...  # the operator as its files describe it

    # -- budget and cancel ------------------------------------------------------------------------
    def budget_left(self) -> int: ...  # search evaluations left (the re-check's are kept back)

    def cancelled(self) -> bool: ...

    # -- what the strategy says -------------------------------------------------------------------
    def note(self, event: _Event) -> None: ...  # journal it

    def progress(self, message: str) -> None: ...


class SearchStrategy(ABC):
    """One strategy: `wire` builds it, `search` spends the search budget through the face."""

    name: ClassVar[str]

    def __init__(self, note: str = "", llm_missing: bool = False) -> None:
        self.note = note  # kernel rewriting, in words: on (which model), or why not
        self.llm_missing = llm_missing  # off because no LLM is configured (the end record says so)

    @property
    def rewrites_kernel(self) -> bool:
        """Whether this strategy, as wired, asks an LLM to rewrite the kernel."""
        return False

    @classmethod
    @abstractmethod
    def wire(cls, tools: Tools) -> Self: ...

    @abstractmethod
    async def search(self, face: EpisodeFace) -> None: ...
