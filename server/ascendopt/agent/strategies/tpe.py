"""`tpe`: a comparison baseline a campaign runs at the same budget as ours: optuna's TPE sampler
over the same knob space, told the same scores (no kernel rewriting).
"""

from __future__ import annotations

from typing import Any

from ascendopt.agent.strategies.knobs import Assignment, HostSearch, KnobStrategy, ScoreBook, key_of
from ascendopt.agent.strategies.signals import Signals
from ascendopt.operators.model import Knob


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

    def tell(self, assignment: Assignment, score: float | None, signals: Signals | None = None) -> None:
        super().tell(assignment, score)
        for trial in self._asked.pop(key_of(assignment), []):
            if score is None:
                self.study.tell(trial, state=self._optuna.trial.TrialState.FAIL)
            else:
                self.study.tell(trial, score)


class TpeStrategy(KnobStrategy):
    name = "tpe"

    @classmethod
    def new_search(cls, knobs: list[Knob], seed: int) -> HostSearch:
        return TpeSearch(knobs, seed)
