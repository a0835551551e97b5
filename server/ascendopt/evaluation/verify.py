"""Verify an operator as it is on disk: the service behind `ascendopt verify` and the editor's Verify."""

from __future__ import annotations

from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.candidate import baseline
from ascendopt.operators.model import OperatorProject
from ascendopt.operators.spec import ResolvedCase


class VerifyError(ValueError):
    pass


def select_cases(project: OperatorProject, case: str | None = None) -> list[ResolvedCase]:
    """All cases, or the one named/numbered by `case`."""
    if project.spec is None:
        problems = "; ".join(str(i) for i in project.issues if "toml" in i.file) or "no ascendopt.toml"
        raise VerifyError(f"{project.name}: no usable spec ({problems}); `ascendopt init-spec` writes one")
    cases = project.spec.resolve_cases()
    if case is None:
        return cases
    chosen = [c for c in cases if c.name == case or str(c.index) == case]
    if not chosen:
        names = ", ".join(f"{c.index}:{c.name}" for c in cases)
        raise VerifyError(f"{project.name} has no case {case!r} (cases: {names})")
    return chosen


async def verify(
    evaluator: Evaluator,
    project: OperatorProject,
    case: str | None = None,
    seed: int = 0,
    profile: bool = False,
) -> Evaluation:
    errors = [i for i in project.issues if i.severity == "error" and i.code in ("parse", "duplicate")]
    if errors:
        raise VerifyError("; ".join(str(i) for i in errors))
    return await evaluator.evaluate(
        project, baseline(project), select_cases(project, case), seed=seed, profile=profile
    )
