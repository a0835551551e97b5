"""The campaign's numbers, as the paper and KernelBench define them.

Per strategy over its operators: the geometric mean speedup over the operators whose baseline
verifies (an operator with no suggestion counts 1.0), and fast_p, the share of ALL its
operators that are correct and at least p times faster. Budget curves are search-time bests
(before each episode's final re-check) and are labelled so.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from ascendopt.campaign.records import CampaignRecord, TaskEntry

FAST_P = (1.0, 1.2, 2.0)


class StrategySummary(BaseModel):
    strategy: str
    operators: int
    correct: int
    improved: int  # with a suggestion (re-checked, beyond the noise band)
    failed: int  # the task itself failed (crash, unreachable backend)
    geomean: float | None
    fast_p: dict[str, float]
    evaluations: int
    curve: list[tuple[int, float]]  # (evaluations, geomean of the best-so-far speedups)


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def speedup_of(task: TaskEntry) -> float | None:
    """The operator's speedup under this task: None unless its baseline verified."""
    r = task.result
    if r is None or not r.baseline_correct:
        return None
    return r.speedup or 1.0


def summarize(record: CampaignRecord) -> list[StrategySummary]:
    out = []
    for strategy in record.settings.strategies:
        tasks = [t for t in record.tasks if t.strategy == strategy]
        speedups = [s for t in tasks if (s := speedup_of(t)) is not None]
        out.append(
            StrategySummary(
                strategy=strategy,
                operators=len(tasks),
                correct=len(speedups),
                improved=sum(1 for t in tasks if t.result and t.result.speedup),
                failed=sum(1 for t in tasks if t.status == "failed"),
                geomean=geomean(speedups),
                fast_p={
                    f"{p:g}": (sum(1 for s in speedups if s >= p) / len(tasks) if tasks else 0.0)
                    for p in FAST_P
                },
                evaluations=sum(t.result.evaluations for t in tasks if t.result),
                curve=_curve(tasks, record.settings.budget),
            )
        )
    return out


def _curve(tasks: list[TaskEntry], budget: int) -> list[tuple[int, float]]:
    results = [t.result for t in tasks if t.result and t.result.baseline_correct]
    if not results:
        return []
    points = []
    for n in range(1, budget + 1):
        bests = []
        for r in results:
            reached = [p.best_speedup for p in r.curve if p.evaluations <= n]
            bests.append(reached[-1] if reached else 1.0)
        points.append((n, geomean(bests) or 1.0))
    return points
