"""Knob-level search over an operator's knob space: pattern moves around the best, then evolution.

Deterministic for a seed: proposals depend only on the seed and on the scores told so far,
so batches evaluated on one slot or eight give the same sequence.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any, Protocol

from ascendopt.operators.model import Knob

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
