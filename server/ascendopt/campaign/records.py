"""The campaign's on-disk records (`.ascendopt/campaigns/<id>/campaign.json`)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ascendopt.agent.strategies import DEFAULT_STRATEGY, Strategy
from ascendopt.journal.view import CurvePoint

CAMPAIGN_VERSION = 1

TaskStatus = Literal["pending", "running", "done", "failed"]


class CampaignSettings(BaseModel):
    paths: list[Path]
    budget: int = Field(default=24, ge=4)
    strategies: list[Strategy] = Field(
        default_factory=lambda: list[Strategy]([DEFAULT_STRATEGY]), min_length=1
    )
    backend: str = "cpu-twin"
    soc: str | None = None
    seed: int = 0
    model: str | None = None  # LLM model for `ours`; None = from the environment, or none


class OperatorEntry(BaseModel):
    """Every operator found under the paths; those without a usable spec say why."""

    name: str
    root: Path
    layout: str
    usable: bool
    reason: str = ""  # why not usable: no spec, a spec error with its file:line, …
    spec: Path | None = None  # a spec kept outside the operator (derived from its benchmark task)


class TaskResult(BaseModel):
    """What one episode ended with, as the report needs it."""

    message: str
    evaluations: int
    baseline_correct: bool
    speedup: float | None = None  # re-checked geomean of the suggestion; None = no suggestion
    baseline_us: dict[str, float] = Field(default_factory=dict)
    candidate_us: dict[str, float] = Field(default_factory=dict)
    kind: str = ""  # estimate / measured
    noise: float = 0.0
    patch: str = ""
    kernel_rewriting: str = ""  # ran / stopped / skipped (no LLM, or tiling-only); "" = not recorded
    change: str = ""  # what the suggestion changed, one line: knobs moved, else files rewritten
    rejected: dict[str, int] = Field(default_factory=dict)  # reason class -> count
    curve: list[CurvePoint] = Field(default_factory=list)


class TaskEntry(BaseModel):
    operator: str
    root: Path
    strategy: Strategy
    episode: str  # its journal under .ascendopt/episodes/; a resumed task continues it
    spec: Path | None = None  # the operator's spec when kept outside it (derived from its benchmark task)
    status: TaskStatus = "pending"
    error: str = ""
    result: TaskResult | None = None
    # Another strategy's episode of the same operator whose baseline this task took: its verified
    # baseline and noise runs, reused (and counted in this budget); or its failing baseline, which
    # settled this task without running it.
    baseline_from: str = ""

    @property
    def settled_unrun(self) -> bool:
        """Settled by another strategy's failing baseline: no episode of its own ran."""
        return bool(self.baseline_from) and self.result is not None and not self.result.baseline_correct


class CampaignRecord(BaseModel):
    v: int = CAMPAIGN_VERSION
    id: str
    created: datetime = Field(default_factory=lambda: datetime.now(timezone.utc))
    settings: CampaignSettings
    operators: list[OperatorEntry] = Field(default_factory=list)
    tasks: list[TaskEntry] = Field(default_factory=list)
    wall_s: float = 0.0  # summed over the runs of this campaign (a resume adds to it)
