"""Verify an operator as it is on disk: the service behind `ascendopt verify` and the editor's Verify."""

from __future__ import annotations

from ascendopt.evaluation.evaluator import Evaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.operators.candidate import KnobValue, apply_knobs, baseline
from ascendopt.operators.issues import blocking
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


def parse_assignments(items: list[str], project: OperatorProject) -> dict[str, KnobValue]:
    """`KNOB=VALUE` strings (from `--set`) → a knob assignment, checked against the knob space."""
    out: dict[str, KnobValue] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise VerifyError(f"--set {item!r}: expected KNOB=VALUE")
        try:
            knob = project.knob(name.strip())
        except KeyError as exc:
            raise VerifyError(str(exc.args[0])) from exc
        try:
            out[knob.name] = value if knob.kind == "region" else int(value, 0)
        except ValueError as exc:
            raise VerifyError(f"--set {item!r}: {knob.name} takes an integer") from exc
    return out


async def verify(
    evaluator: Evaluator,
    project: OperatorProject,
    case: str | None = None,
    seed: int = 0,
    profile: bool = False,
    assignment: dict[str, KnobValue] | None = None,
) -> Evaluation:
    """Evaluate the operator as on disk (with `assignment` applied to a copy, never to the files)."""
    errors = blocking(project.issues)
    if errors:
        # Each at a path the reader can open from anywhere (issues are relative to the operator).
        raise VerifyError(
            "; ".join(str(i.model_copy(update={"file": str(project.root / i.file)})) for i in errors)
        )
    candidate = baseline(project)
    if assignment:
        try:
            candidate = apply_knobs(project, candidate, assignment)
        except ValueError as exc:
            raise VerifyError(str(exc)) from exc
    return await evaluator.evaluate(
        project, candidate, select_cases(project, case), seed=seed, profile=profile
    )
