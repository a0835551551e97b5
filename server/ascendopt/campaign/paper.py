"""The AscendOptimizer paper's published figures, set beside a campaign's (data, with its source).

They are not ours and not comparable one for one: the paper measured on an Ascend 910B2 with LLM
kernel rewriting and tiling search together; a campaign on the CPU twin reports estimates from the
timing model, and its levels are the benchmark's (a task's `level<N>` folder), not the paper's.
"""

from __future__ import annotations

from pydantic import BaseModel


class PaperFigures(BaseModel):
    source: str
    measured: str  # what the figures are: hardware, method, budget
    geomean: dict[str, float]  # by level ("level1" …) and "overall"
    fast_1: float  # share of all operators faster than their reference
    tiling_only: float  # the geomean of the paper's tiling-search-only ablation
    # The paper's operators by name (a benchmark task folder's name), for the subset reported apart;
    # None when no list is published, `operators_note` then saying so.
    operators: frozenset[str] | None = None
    operators_note: str = ""


PAPER = PaperFigures(
    source="arXiv 2603.23566 v2 (AscendOptimizer: Episodic Agent for Ascend NPU Operator Optimization)",
    measured=(
        "their measurements on an Ascend 910B2: LLM kernel rewriting + tiling search, 101 cann-ops "
        "operators, 230 hardware evaluations each; their own level split (25/63/13 operators)"
    ),
    geomean={"level1": 1.24, "level2": 1.10, "level3": 1.89, "overall": 1.21},
    fast_1=0.5347,
    tiling_only=1.02,
    operators=None,
    operators_note=(
        "unavailable: the paper gives its figures by level only and names no list of its 101 "
        "operators that could be found (its arXiv HTML v2 searched), so the tasks named among them "
        "are not reported apart"
    ),
)
