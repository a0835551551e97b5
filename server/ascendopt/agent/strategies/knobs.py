"""The search interface every knob search speaks (ours: guided.py; random; TPE), what they all
remember (`ScoreBook`), and the tiling phase that runs one, shared by the strategies that search
knobs (`KnobStrategy`): each point is told with its score and what its profile says (signals.py).

Deterministic for a seed: proposals depend only on the seed and on what was told so far,
so batches evaluated on one slot or eight give the same sequence.
"""

from __future__ import annotations

import asyncio
import itertools
from abc import abstractmethod
from typing import Protocol

from typing_extensions import Self

from ascendopt.agent.ledger import BudgetExhausted
from ascendopt.agent.strategies.base import EpisodeFace, SearchStrategy, Tools
from ascendopt.agent.strategies.signals import Signals
from ascendopt.journal.events import ConvergedEvent, KnobRejected
from ascendopt.operators import domains
from ascendopt.operators.candidate import Candidate, KnobError, apply_knobs
from ascendopt.operators.model import Knob, OperatorProject
from ascendopt.operators.soc import resolve_soc

Assignment = dict[str, int]

# Spaces up to this size are enumerated (random order without replacement, restarts).
ENUMERATE_LIMIT = 4096


def key_of(a: Assignment) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(a.items()))


class HostSearch(Protocol):
    """What the episode asks of a search over the knob space (ours, random, TPE)."""

    best: Assignment
    scores: dict[tuple[tuple[str, int], ...], float | None]

    def propose(self, n: int, extra: list[Assignment] | None = None) -> list[Assignment]: ...

    def tell(self, assignment: Assignment, score: float | None, signals: Signals | None = None) -> None: ...


class ScoreBook:
    """What every search remembers: the scores told, in order, and the best assignment so far."""

    def __init__(self, knobs: list[Knob]) -> None:
        self.knobs = sorted((k for k in knobs if k.kind != "region" and k.values), key=lambda k: k.name)
        self.scores: dict[tuple[tuple[str, int], ...], float | None] = {}
        self.order: list[Assignment] = []
        self.best: Assignment = {k.name: int(k.current) for k in self.knobs}

    def tell(self, assignment: Assignment, score: float | None, signals: Signals | None = None) -> None:
        """score: geomean duration relative to the baseline (lower is better); None if invalid.
        signals: what the point's profile says (only `ours` reads them)."""
        key = key_of(assignment)
        if key not in self.scores:
            self.order.append(assignment)
        self.scores[key] = score
        best_score = self.scores.get(key_of(self.best))
        if score is not None and (best_score is None or score < best_score):
            self.best = dict(assignment)

    def seen(self, assignment: Assignment) -> bool:
        return key_of(assignment) in self.scores

    @property
    def space_size(self) -> int:
        return domains.space_size(self.knobs)

    def every_point(self) -> list[Assignment] | None:
        """The whole space in order, or None when it is larger than ENUMERATE_LIMIT."""
        if self.space_size > ENUMERATE_LIMIT:
            return None
        names = [k.name for k in self.knobs]
        return [
            dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(k.values for k in self.knobs))
        ]


class KnobStrategy(SearchStrategy):
    """A search of the knobs alone (random, TPE): tiling phases until the budget is spent or the
    search has nothing new to try. Ours adds kernel rewriting between the phases."""

    def __init__(
        self, note: str = "", llm_missing: bool = False, lesson_knobs: list[Assignment] | None = None
    ):
        super().__init__(note, llm_missing)
        self.lesson_knobs = lesson_knobs or []  # tried first (ours: the bank's knob settings)
        self._searches: dict[str, HostSearch] = {}  # one per kernel: it remembers across phases

    @classmethod
    def wire(cls, tools: Tools) -> Self:
        return cls(note=f"not part of the {cls.name} baseline (knob search only)")

    @classmethod
    @abstractmethod
    def new_search(cls, knobs: list[Knob], seed: int) -> HostSearch: ...

    async def search(self, face: EpisodeFace) -> None:
        while face.budget_left() > 0 and not face.cancelled():
            left = face.budget_left()
            await self.round(face)
            if face.budget_left() == left:
                face.note(ConvergedEvent(message="no new candidate to try"))
                return

    async def round(self, face: EpisodeFace) -> None:
        face.phase = "tiling search"
        await self.tiling_phase(face, face.settings.tiling_steps)

    async def tiling_phase(self, face: EpisodeFace, steps: int) -> None:
        """Up to `steps` evaluations of knob assignments of the kernel the episode tunes."""
        parent = face.kernel_base
        view = face.view(parent)
        soc = resolve_soc(face.settings.soc, None, face.project.spec)  # the cores and UB the signals count
        search = self._searches.get(parent.id)
        if search is None:
            search = self._searches[parent.id] = self.new_search(view.knobs, face.settings.seed)
            if face.best.id == parent.id:
                search.tell(search.best, face.best_score, Signals.of(face.best_eval, soc))
            else:
                search.tell(search.best, None)
        left = min(steps, face.budget_left())
        while left > 0 and not face.cancelled():
            n = min(face.settings.batch, left)
            proposals = search.propose(n, extra=self.lesson_knobs)
            if not proposals:
                return
            candidates = []
            for a in proposals:
                try:
                    candidates.append((a, apply_knobs(view, parent, a)))
                except KnobError as exc:
                    face.note(KnobRejected(type="rejected", assignment=a, reason=str(exc)))
                    search.tell(a, None)
            candidates = await _prechecked(face, candidates, search)
            before = face.budget_left()
            results = await asyncio.gather(
                *(face.measure(c, "tiling") for _, c in candidates), return_exceptions=True
            )
            left -= before - face.budget_left()
            for (a, c), r in zip(candidates, results, strict=True):
                if isinstance(r, BudgetExhausted):
                    continue
                if isinstance(r, BaseException):
                    raise r
                search.tell(a, face.score(r), Signals.of(r, soc))
                if face.consider_tiling(c, r):
                    face.progress(f"new best {1 / face.best_score:.2f}x: {_assignment_text(a, view)}")
            face.progress(f"{len(search.scores)} tilings tried")


async def _prechecked(
    face: EpisodeFace, candidates: list[tuple[Assignment, Candidate]], search: HostSearch
) -> list[tuple[Assignment, Candidate]]:
    """Drop the candidates whose tiling program fails on some case: no evaluation is spent on them."""
    checks = await asyncio.gather(*(face.precheck(c) for _, c in candidates))
    kept = []
    for (a, c), check in zip(candidates, checks, strict=True):
        if check is None or check.ok:
            kept.append((a, c))
        else:
            search.tell(a, None)
            face.note(
                KnobRejected(type="precheck.rejected", candidate=c.id, assignment=a, reason=check.reason)
            )
    return kept


def _assignment_text(a: Assignment, view: OperatorProject) -> str:
    current = {k.name: k.current for k in view.knobs}
    return ", ".join(f"{k}={v}" for k, v in a.items() if current.get(k) != v) or "as is"
