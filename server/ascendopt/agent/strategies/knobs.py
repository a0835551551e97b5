"""Knob-level search over an operator's knob space: pattern moves around the best, then evolution
(ours); the search interface every knob search speaks (random and TPE too); and the tiling phase
that runs one, shared by the strategies that search knobs (`KnobStrategy`).

Deterministic for a seed: proposals depend only on the seed and on the scores told so far,
so batches evaluated on one slot or eight give the same sequence.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable
from typing import Any, Protocol

from typing_extensions import Self

from ascendopt.agent.ledger import BudgetExhausted
from ascendopt.agent.strategies.base import EpisodeFace, SearchStrategy, Tools
from ascendopt.journal.events import ConvergedEvent, KnobRejected
from ascendopt.operators.candidate import Candidate, KnobError, apply_knobs
from ascendopt.operators.model import Knob, OperatorProject

Assignment = dict[str, int]

# Tiling knobs first: on memory-bound vector operators they move the needle most.
_KIND_ORDER = {
    "tile_length": 0,
    "buffer_num": 1,
    "block_dim": 2,
    "core_grain": 2,
    "tile_num": 3,
    "threshold": 4,
    "annotated": 5,
}
# Spaces up to this size are enumerated when the search falls back to "anything not tried yet".
_ENUMERATE_LIMIT = 4096


def key_of(a: Assignment) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(a.items()))


class HostSearch(Protocol):
    """What the episode asks of a search over the knob space (ours, random, TPE)."""

    best: Assignment
    scores: dict[tuple[tuple[str, int], ...], float | None]

    def propose(self, n: int, extra: list[Assignment] | None = None) -> list[Assignment]: ...

    def tell(self, assignment: Assignment, score: float | None) -> None: ...


class ScoreBook:
    """What every search remembers: the scores told, in order, and the best assignment so far."""

    def __init__(self, knobs: list[Knob], order: Callable[[Knob], Any] = lambda k: k.name) -> None:
        self.knobs = sorted((k for k in knobs if k.kind != "region" and k.values), key=order)
        self.scores: dict[tuple[tuple[str, int], ...], float | None] = {}
        self.order: list[Assignment] = []
        self.best: Assignment = {k.name: int(k.current) for k in self.knobs}

    def tell(self, assignment: Assignment, score: float | None) -> None:
        """score: geomean duration relative to the baseline (lower is better); None if invalid."""
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
        size = 1
        for k in self.knobs:
            size *= len(k.values)
        return size


class KnobSearch(ScoreBook):
    def __init__(self, knobs: list[Knob], seed: int, elite: int = 4) -> None:
        super().__init__(knobs, order=lambda k: (_KIND_ORDER.get(k.kind, 9), k.name))
        self.rng = random.Random(seed)
        self.elite_size = elite

    def _move(self, base: Assignment, knob: Knob, steps: int) -> Assignment | None:
        values = knob.values
        idx = values.index(base[knob.name]) if base[knob.name] in values else 0
        new = idx + steps
        if not 0 <= new < len(values):
            return None
        return {**base, knob.name: values[new]}

    def elite(self) -> list[Assignment]:
        valid = [(s, i, a) for i, a in enumerate(self.order) if (s := self.scores[key_of(a)]) is not None]
        valid.sort(key=lambda t: (t[0], t[1]))
        return [a for _, _, a in valid[: self.elite_size]]

    def propose(self, n: int, extra: list[Assignment] | None = None) -> list[Assignment]:
        """Up to n unseen assignments: `extra` first (e.g. lessons' knob settings), then the
        neighbours of the best at growing step sizes, then crossover + mutation of the elite, then
        (when those find nothing new) the untried rest of the space in a seeded random order."""
        out: list[Assignment] = []

        def add(a: Assignment | None) -> bool:
            if a is not None and not self.seen(a) and all(key_of(a) != key_of(o) for o in out):
                out.append(a)
            return len(out) >= n

        for a in extra or []:
            if add({**self.best, **{k: v for k, v in a.items() if k in self.best}}):
                return out
        for step in (1, 2, 3):
            for knob in self.knobs:
                for direction in (-1, 1):
                    if add(self._move(self.best, knob, direction * step)):
                        return out
            if out:
                return out  # finish the closer ring before jumping further
        elite = self.elite() or [self.best]
        for _ in range(200 * n):
            p1, p2 = self.rng.sample(elite, 2) if len(elite) >= 2 else (elite[0], elite[0])
            child = {k.name: self.rng.choice((p1[k.name], p2[k.name])) for k in self.knobs}
            for knob in self.knobs:
                if self.rng.random() < max(0.3, 1.0 / max(1, len(self.knobs))):
                    moved = self._move(child, knob, self.rng.choice((-2, -1, 1, 2)))
                    child = moved or child
            if add(child):
                return out
        # Nothing new within reach of the elite (crossover and +-2 moves stay near it): fall back
        # to the untried rest of the space, so the search runs dry only once it has tried it all.
        for a in self._untried(n):
            if add(a):
                return out
        return out

    def _untried(self, n: int) -> list[Assignment]:
        names = [k.name for k in self.knobs]
        if self.space_size <= _ENUMERATE_LIMIT:
            pool = [
                dict(zip(names, combo, strict=True))
                for combo in itertools.product(*(k.values for k in self.knobs))
            ]
            pool = [a for a in pool if not self.seen(a)]
            self.rng.shuffle(pool)
            return pool
        return [{k.name: self.rng.choice(k.values) for k in self.knobs} for _ in range(200 * n)]


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
    def new_search(cls, knobs: list[Knob], seed: int) -> HostSearch:
        return KnobSearch(knobs, seed)

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
        search = self._searches.get(parent.id)
        if search is None:
            search = self._searches[parent.id] = self.new_search(view.knobs, face.settings.seed)
            search.tell(search.best, face.best_score if face.best.id == parent.id else None)
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
                search.tell(a, face.score(r))
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
