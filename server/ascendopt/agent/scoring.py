"""Turning evaluations into one number to optimise, and speedups a user can trust."""

from __future__ import annotations

import math

from ascendopt.agent.suggestion import CaseSpeedup
from ascendopt.evaluation.records import Evaluation


def relative_score(candidate: dict[str, float], baseline: dict[str, float]) -> float:
    """Geometric mean of candidate/baseline duration over the cases: < 1 is faster."""
    ratios = [candidate[k] / baseline[k] for k in baseline if k in candidate and baseline[k] > 0]
    if not ratios:
        return math.inf
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios))


def case_speedups(
    baseline: Evaluation, candidate: Evaluation, noise: float, cases: list[str] | None = None
) -> tuple[list[CaseSpeedup], float]:
    """Per-case speedups and their geomean, over `cases` (default: all the evaluations share)."""
    base, cand = baseline.durations(), candidate.durations()
    if base is None or cand is None:
        return [], 1.0
    if cases is not None:
        base = {k: v for k, v in base.items() if k in cases}
    kinds = {c.name: (c.profile.kind if c.profile else "estimate") for c in candidate.cases}
    rows = [
        CaseSpeedup(
            case=k,
            baseline_us=base[k],
            candidate_us=cand[k],
            speedup=base[k] / cand[k],
            noise=noise,
            kind=kinds.get(k, "estimate"),
        )
        for k in base
        if k in cand
    ]
    return rows, 1.0 / relative_score(cand, base)
