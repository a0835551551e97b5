"""What Verify and Profile last said of each operator (written by evaluate.py, dropped by sync.py when
the operator changes; read by diagnostics, hovers, lenses, the sidebar and suggestions)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ascendopt.evaluation.records import Evaluation
from ascendopt.lsp.feature import FeatureState


class LastRun(BaseModel):
    """The last Verify/Profile of one operator: what was asked, and what came back."""

    action: Literal["verify", "profile"]
    case: str | None = None
    evaluation: Evaluation


class Runs(FeatureState):
    def __init__(self) -> None:
        self.last_runs: dict[str, LastRun] = {}  # by operator key
        self.last_profiles: dict[str, Evaluation] = {}  # by operator key; outlives a later Verify
