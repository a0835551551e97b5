"""The campaign's numbers, as the paper and KernelBench define them.

Per strategy over its operators: the geometric mean speedup over the operators whose baseline
verifies (an operator with no suggestion counts 1.0), and fast_p, the share of ALL its
operators that are correct and more than p times faster (KernelBench's fast_p, and the paper's
"faster than the reference" for p = 1: an operator left as it was is not fast_1). Budget curves
are search-time bests (before each episode's final re-check) and are labelled so.

A campaign in progress (a benchmark takes several runs) is summed over the operators every strategy
has finished, so that strategies compare on the same operators and a pending one counts for none.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascendopt.campaign.records import CampaignRecord, TaskEntry

FAST_P = (1.0, 1.2, 2.0)


class StrategySummary(BaseModel):
    strategy: str
    operators: int
    correct: int
    improved: int  # with a suggestion (re-checked, beyond the noise band)
    failed: int  # the task itself failed (crash, unreachable backend)
    unsettled: int = 0  # its tasks left out: not yet finished by every strategy
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


class LevelSummary(BaseModel):
    level: str  # a benchmark level ("level1" …), or "overall"
    strategies: list[StrategySummary]


_LEVEL = re.compile(r"level\d+")


def level_of(root: Path) -> str:
    """The benchmark level an operator sits in: the nearest `level<N>` folder above it, else ""."""
    return next((p for p in reversed(root.parts) if _LEVEL.fullmatch(p)), "")


def task_label(root: Path) -> str:
    """A benchmark task as its path names it (`level1/Math/Sqrt` for `…/level1/Math/Sqrt/answer/0`),
    else the operator's folder."""
    parts = root.parts
    level = next((i for i in range(len(parts) - 1, -1, -1) if _LEVEL.fullmatch(parts[i])), None)
    if level is None:
        return str(root)
    end = parts.index("answer", level) if "answer" in parts[level:] else len(parts)
    return "/".join(parts[level:end])


def by_level(record: CampaignRecord) -> list[LevelSummary]:
    """The summary per benchmark level found among the tasks, then "overall"; [] when no task
    sits under a `level<N>` folder (not a benchmark)."""
    levels = sorted({lv for t in record.tasks if (lv := level_of(t.root))}, key=lambda x: int(x[5:]))
    if not levels:
        return []
    out = [LevelSummary(level=lv, strategies=summarize(record, _in_level(lv))) for lv in levels]
    return [*out, LevelSummary(level="overall", strategies=summarize(record))]


def _in_level(level: str) -> Callable[[TaskEntry], bool]:
    return lambda t: level_of(t.root) == level


def settled(record: CampaignRecord) -> set[tuple[Path, str]]:
    """The operators (root, name) every strategy of the campaign has finished (done, or failed)."""
    finished: dict[tuple[Path, str], set[str]] = {}
    for t in record.tasks:
        if t.status in ("done", "failed"):
            finished.setdefault((t.root, t.operator), set()).add(t.strategy)
    wanted = set(record.settings.strategies)
    return {key for key, done in finished.items() if wanted <= done}


def summarize(
    record: CampaignRecord, keep: Callable[[TaskEntry], bool] | None = None
) -> list[StrategySummary]:
    """Per strategy over its tasks (those `keep` takes, else all) on the settled operators."""
    done = settled(record)
    out = []
    for strategy in record.settings.strategies:
        mine = [t for t in record.tasks if t.strategy == strategy and (keep is None or keep(t))]
        tasks = [t for t in mine if (t.root, t.operator) in done]
        speedups = [s for t in tasks if (s := speedup_of(t)) is not None]
        out.append(
            StrategySummary(
                strategy=strategy,
                operators=len(tasks),
                correct=len(speedups),
                improved=sum(1 for t in tasks if t.result and t.result.speedup),
                failed=sum(1 for t in tasks if t.status == "failed"),
                unsettled=len(mine) - len(tasks),
                geomean=geomean(speedups),
                fast_p={
                    f"{p:g}": (sum(1 for s in speedups if s > p) / len(tasks) if tasks else 0.0)
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
