"""`--budget N` counts every evaluation (baseline, noise, search, re-check); the smallest budget
runs one search step. A fake evaluator: no compiles."""

from __future__ import annotations

from pathlib import Path

from ascendopt.agent.episode import Episode
from ascendopt.agent.ledger import Ledger
from ascendopt.agent.settings import MIN_BUDGET, EpisodeSettings
from ascendopt.evaluation.records import CaseResult, Evaluation, Profile
from ascendopt.journal.events import EvaluationEvent
from ascendopt.journal.store import EpisodeJournal
from ascendopt.operators.candidate import Candidate, baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


class FasterWhenChanged:
    """Every case passes; the operator as it is takes 100 µs, any other candidate 80 µs."""

    name = "fake"

    def __init__(self, base_id: str) -> None:
        self.base_id = base_id
        self.purposes: list[str] = []

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int,
        profile: bool = True,
    ) -> Evaluation:
        us = 100.0 if candidate.id == self.base_id else 80.0
        return Evaluation(
            candidate_id=candidate.id,
            operator=project.name,
            backend="fake",
            hardware="fake",
            seed=seed,
            status="ok",
            cases=[
                CaseResult(
                    index=c.index,
                    name=c.name,
                    dtypes={k: str(v) for k, v in c.dtypes.items()},
                    status="passed",
                    profile=Profile(duration_us=us, kind="estimate", source="fake"),
                )
                for c in cases
            ],
        )


async def test_the_smallest_budget_runs_one_search_step_and_counts_everything(add_op: Path) -> None:
    project = load_operator(add_op)
    assert project.knobs
    settings = EpisodeSettings(budget=MIN_BUDGET, seed=0)
    journal = EpisodeJournal.create(add_op.parent, "ep-budget")
    evaluator = FasterWhenChanged(baseline(project).id)
    ledger = Ledger(evaluator, journal, settings.budget)  # type: ignore[arg-type]
    outcome = await Episode(project, settings, ledger, journal).run()
    purposes = [e.data.purpose for e in journal.events("evaluation") if isinstance(e.data, EvaluationEvent)]
    assert purposes.count("tiling") == 1  # one search step
    assert len(purposes) == ledger.used == MIN_BUDGET  # baseline, search, and the two re-check runs
    assert "noise" not in purposes
    assert outcome.suggestion is not None
    assert outcome.budget_note.startswith(f"--budget {MIN_BUDGET} leaves 1 evaluation(s) for the ")
    assert outcome.budget_note in outcome.text()


async def test_a_budget_that_covers_the_space_tries_all_of_it_and_says_nothing(add_op: Path) -> None:
    project = load_operator(add_op)
    # one knob of four values: the baseline, its noise, the three other points and the re-check
    project.knobs = [k for k in project.knobs if k.kind == "buffer_num"]
    assert [k.values for k in project.knobs] == [[1, 2, 3, 4]]
    settings = EpisodeSettings(budget=7, seed=0)
    journal = EpisodeJournal.create(add_op.parent, "ep-covered")
    ledger = Ledger(FasterWhenChanged(baseline(project).id), journal, settings.budget)  # type: ignore[arg-type]
    outcome = await Episode(project, settings, ledger, journal).run()
    purposes = [e.data.purpose for e in journal.events("evaluation") if isinstance(e.data, EvaluationEvent)]
    assert purposes.count("tiling") == 3 and purposes.count("noise") == 1
    assert len(purposes) == ledger.used == 7
    assert outcome.budget_note == "" and "leaves" not in outcome.text()
