"""`random`: a comparison baseline a campaign runs at the same budget as ours: uniform random
sampling over the same knob space, told the same scores (no kernel rewriting).

It speaks the episode's search interface (propose / tell / best / scores), so budget counting,
the pre-check and the honest re-check are the episode's, whatever searches.
"""

from __future__ import annotations

import random

from ascendopt.agent.strategies.knobs import Assignment, HostSearch, KnobStrategy, ScoreBook, key_of
from ascendopt.operators.model import Knob


class RandomSearch(ScoreBook):
    """Uniform over the untried points (without replacement where the space is small enough)."""

    def __init__(self, knobs: list[Knob], seed: int) -> None:
        super().__init__(knobs)
        self.rng = random.Random(seed)
        self._pool = self.every_point()
        if self._pool is not None:
            self.rng.shuffle(self._pool)

    def propose(self, n: int, extra: list[Assignment] | None = None) -> list[Assignment]:
        out: list[Assignment] = []
        keys: set[tuple[tuple[str, int], ...]] = set()
        candidates = (
            iter(self._pool)
            if self._pool is not None
            else ({k.name: self.rng.choice(k.values) for k in self.knobs} for _ in range(200 * n))
        )
        for a in candidates:
            if len(out) >= n:
                break
            if not self.seen(a) and key_of(a) not in keys:
                out.append(a)
                keys.add(key_of(a))
        return out


class RandomStrategy(KnobStrategy):
    name = "random"

    @classmethod
    def new_search(cls, knobs: list[Knob], seed: int) -> HostSearch:
        return RandomSearch(knobs, seed)
