"""Every evaluation an episode asks for goes through the ledger: counted, journaled, never repeated.

On resume or replay, evaluations already in the journal are returned from it, so the
deterministic search retraces its steps without spending anything twice. An evaluation another
episode paid for (`shared`: a campaign's strategies share one operator's baseline) is spent and
journaled like one made here, saying whose it is, so every episode's budget counts it alike.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from ascendopt.evaluation.cache import evaluation_key
from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.journal.events import EvaluationEvent
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase
from ascendopt.untrusted import PARSE_ERRORS


class BudgetExhausted(Exception):
    pass


class Ledger:
    def __init__(
        self,
        evaluator: Evaluator,
        journal: EpisodeJournal,
        budget: int,
        on_evaluation: Callable[[Evaluation, str], None] | None = None,
        offline: bool = False,
        shared: Mapping[str, tuple[Evaluation, str]] | None = None,
    ) -> None:
        """`shared`: by evaluation key, an evaluation made by another episode of the same candidate,
        cases, seed and backend, and that episode's id."""
        self.evaluator = evaluator
        self.journal = journal
        self.budget = budget
        self.used = 0
        self.replayed = 0
        self.offline = offline  # replay: an evaluation missing from the journal is an error
        self.on_evaluation = on_evaluation
        self._recorded: dict[str, Evaluation] = {}
        for e in journal.events("evaluation"):  # a record that does not parse is re-evaluated, not a crash
            if not isinstance(e.data, EvaluationEvent):
                continue
            try:
                self._recorded[e.data.key] = Evaluation.model_validate(e.data.evaluation)
            except PARSE_ERRORS:  # ValidationError, or RecursionError of a deeply nested record
                continue
        self._inflight: dict[str, asyncio.Task[Evaluation]] = {}
        self._shared = dict(shared or {})

    @property
    def remaining(self) -> int:
        return self.budget - self.used

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int,
        purpose: str,
        profile: bool = True,
    ) -> Evaluation:
        key = evaluation_key(self.evaluator.name, candidate, cases, seed, profile)
        if key in self._recorded:
            self.replayed += 1
            self.used += 1
            evaluation = self._recorded[key]
            if self.on_evaluation:
                self.on_evaluation(evaluation, purpose)
            return evaluation
        if key in self._inflight:  # the same candidate proposed twice in one batch
            return await asyncio.shield(self._inflight[key])
        if self.used >= self.budget:
            raise BudgetExhausted()
        if self.offline:
            raise KeyError(f"replay: evaluation of {candidate.id} ({purpose}) is not in the journal")
        self.used += 1
        self.journal.save_candidate(candidate)
        paid_by = ""
        if key in self._shared:
            evaluation, paid_by = self._shared.pop(key)
        else:
            task = asyncio.ensure_future(
                self.evaluator.evaluate(project, candidate, cases, seed=seed, profile=profile)
            )
            self._inflight[key] = task
            try:
                evaluation = await task
            finally:
                self._inflight.pop(key, None)
        self._recorded[key] = evaluation
        self.journal.append(
            EvaluationEvent(
                key=key,
                candidate=candidate.id,
                purpose=purpose,
                seed=seed,
                evaluation=evaluation.model_dump(mode="json"),
                shared_from=paid_by,
            )
        )
        if self.on_evaluation:
            self.on_evaluation(evaluation, purpose)
        return evaluation
