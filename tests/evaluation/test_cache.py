from __future__ import annotations

from pathlib import Path

from ascendopt.evaluation.cache import CachedEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.candidate import Candidate, apply_knobs, baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


class CountingEvaluator:
    """A stand-in backend that only counts calls (the cache is what is under test)."""

    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    async def evaluate(
        self,
        project: OperatorProject,
        candidate: Candidate,
        cases: list[ResolvedCase],
        *,
        seed: int = 0,
        profile: bool = False,
    ) -> Evaluation:
        self.calls += 1
        return Evaluation(
            candidate_id=candidate.id,
            operator=project.name,
            backend=self.name,
            hardware="none",
            seed=seed,
            status="ok",
        )


async def test_same_candidate_is_evaluated_once(tmp_path: Path, templates: Path) -> None:
    op = load_operator(templates / "add_custom")
    assert op.spec is not None
    cases = op.spec.resolve_cases()
    inner = CountingEvaluator()
    cached = CachedEvaluator(inner, tmp_path / "evals")
    base = baseline(op)
    await cached.evaluate(op, base, cases)
    again = await cached.evaluate(op, baseline(op), cases)
    assert inner.calls == 1 and again.candidate_id == base.id
    await cached.evaluate(op, base, cases, seed=1)  # fresh inputs are a new evaluation
    await cached.evaluate(op, apply_knobs(op, base, {"TILE_LENGTH": 2048}), cases)
    assert inner.calls == 3
    # survives a restart (new wrapper, same folder)
    other = CachedEvaluator(inner, tmp_path / "evals")
    await other.evaluate(op, base, cases)
    assert inner.calls == 3 and other.hits == 1
