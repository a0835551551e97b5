"""The comparison searches a campaign runs at the same budget as the episode's own (`ours`):
uniform random sampling and optuna's TPE over the same knob space, told the same scores, and
`best-of-n` (N independent LLM rewrites of the baseline, the best kept; the episode runs it).

The knob searches speak the episode's search interface (propose / tell / best / scores), so
budget counting, the pre-check and the honest re-check are the episode's, whatever searches.
"""

from __future__ import annotations

import itertools
import random
from typing import Any, Literal

from ascendopt.agent.host_search import Assignment, HostSearch, KnobSearch, ScoreBook, key_of
from ascendopt.operators.model import Knob

Strategy = Literal["ours", "random", "tpe", "best-of-n", "openevolve"]
STRATEGIES: tuple[Strategy, ...] = ("ours", "random", "tpe", "best-of-n", "openevolve")
KNOB_STRATEGIES: tuple[Strategy, ...] = ("random", "tpe")  # search the knobs alone
LLM_STRATEGIES: tuple[Strategy, ...] = ("best-of-n", "openevolve")  # rewrite the kernel alone: need an LLM
_ENUMERATE_LIMIT = 4096


class RandomSearch(ScoreBook):
    """Uniform over the untried points (without replacement where the space is small enough)."""

    def __init__(self, knobs: list[Knob], seed: int) -> None:
        super().__init__(knobs)
        self.rng = random.Random(seed)
        names = [k.name for k in self.knobs]
        self._pool: list[Assignment] | None = None
        if self.space_size <= _ENUMERATE_LIMIT:
            self._pool = [
                dict(zip(names, combo, strict=True))
                for combo in itertools.product(*(k.values for k in self.knobs))
            ]
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


class TpeSearch(ScoreBook):
    """optuna's TPE sampler (ask-and-tell), one categorical parameter per knob."""

    def __init__(self, knobs: list[Knob], seed: int) -> None:
        super().__init__(knobs)
        import optuna  # an optional dependency: the `campaign` extra

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self._optuna = optuna
        self.study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
        self._asked: dict[tuple[tuple[str, int], ...], list[Any]] = {}

    def propose(self, n: int, extra: list[Assignment] | None = None) -> list[Assignment]:
        out: list[Assignment] = []
        keys: set[tuple[tuple[str, int], ...]] = set()
        for _ in range(20 * n):
            if len(out) >= n or not self.knobs:
                break
            trial = self.study.ask()
            a = {k.name: int(trial.suggest_categorical(k.name, list(k.values))) for k in self.knobs}
            key = key_of(a)
            if self.seen(a) or key in keys:
                # A repeat teaches TPE nothing new; tell it the known score so it moves on.
                known = self.scores.get(key)
                self.study.tell(trial, known if known is not None else float("inf"))
                continue
            self._asked.setdefault(key, []).append(trial)
            out.append(a)
            keys.add(key)
        return out

    def tell(self, assignment: Assignment, score: float | None) -> None:
        super().tell(assignment, score)
        for trial in self._asked.pop(key_of(assignment), []):
            if score is None:
                self.study.tell(trial, state=self._optuna.trial.TrialState.FAIL)
            else:
                self.study.tell(trial, score)


def make_search(strategy: Strategy, knobs: list[Knob], seed: int) -> HostSearch:
    if strategy == "random":
        return RandomSearch(knobs, seed)
    if strategy == "tpe":
        return TpeSearch(knobs, seed)
    return KnobSearch(knobs, seed)
